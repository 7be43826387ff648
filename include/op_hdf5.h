/*
 * op2-rs: OP2's HDF5 I/O interface (OP2's file layout). Defined by
 * libop2_hdf5 for a single node: link -lop2_hdf5 -lop2_seq (or -lop2_openmp)
 * and the serial HDF5 library (Debian: -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5).
 */
#ifndef __OP_HDF5_H
#define __OP_HDF5_H

#include "op_lib_core.h"

#ifdef __cplusplus
extern "C" {
#endif

op_set op_decl_set_hdf5(char const *file, char const *name);
op_set op_decl_set_hdf5_infer_size(char const *file, char const *name, char const *set_dataset_name);
op_map op_decl_map_hdf5(op_set from, op_set to, int dim, char const *file, char const *name);
op_dat op_decl_dat_hdf5(op_set set, int dim, char const *type, char const *file, char const *name);
void op_get_const_hdf5(char const *name, int dim, char const *type, char *const_data, char const *file_name);
void op_dump_to_hdf5(char const *file_name);
void op_write_const_hdf5(char const *name, int dim, char const *type, char *const_data, char const *file_name);
void op_fetch_data_hdf5_file(op_dat dat, char const *file_name);
void op_fetch_data_hdf5_file_path(op_dat dat, char const *file_name, char const *path_name);
/* Defined by OP2's HDF5 library but not declared in its header; declared here. */
void op_fetch_data_hdf5(op_dat dat, char const *file_name, char const *path_name);
void op_fetch_data_hdf5_file_ptr(char *data, const char *file_name);

#ifdef __cplusplus
}
#endif

#endif /* __OP_HDF5_H */
