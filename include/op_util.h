/*
 * op_util.h for op2-rs: the utilities of OP2's op_util.h that OP2's mesh
 * conversion tools use (convert_mesh_mpi.cpp, aero's write_hdf5.cpp).
 *
 *   compute_local_size(g, size, rank)  OP2's block rule: rank `rank` of
 *                                      `size` holds g / size elements, one
 *                                      more when rank < g % size
 *   op_halo_create()                   MPI: halos of a mesh not partitioned
 *                                      yet, for its declared blocks (after
 *                                      op_partition: nothing to do); one node:
 *                                      nothing
 *
 * Not provided (internals of OP2's own MPI layer, not used by applications):
 * xmalloc, xcalloc, xrealloc (use op_malloc, op_calloc, op_realloc), min,
 * compare_sets, op2_hash, binary_search, linear_search, op_sort, op_sort_2,
 * op_sort_dat, op_sort_map, op_sort_get_permutation, op_reorder_data,
 * removeDups, file_exist, op_type_equivalence, and the ZipRef/ZipIter
 * helpers.
 */
#ifndef __OP_UTIL_H
#define __OP_UTIL_H

#include "op_lib_core.h"

#ifdef __cplusplus
extern "C" {
#endif

int compute_local_size(int global_size, int mpi_comm_size, int mpi_rank);

void op_halo_create(void);

#ifdef __cplusplus
}
#endif

#endif /* __OP_UTIL_H */
