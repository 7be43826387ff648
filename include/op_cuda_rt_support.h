/*
 * op2-rs: OP2's CUDA run-time interface, as called by code that OP2's translator
 * generates for the `cuda` target (op2_kernels.cu) and by OP2-style host code.
 * Implemented by libop2_cuda / libop2_mpi_cuda.
 *
 * Declared elsewhere, not repeated here (same signatures as OP2's):
 *   op2_rs_generated.h (through op_lib_core.h / op_rt_support.h):
 *     op_plan_get, op_plan_get_stage, op_plan_get_stage_upload -- on this
 *       library the plan's index arrays (col_reord, blkmap, offset, nelems,
 *       ind_map, loc_map, ind_sizes, ind_offs, nthrcol, thrcol) are device
 *       pointers; ncolors*, col_offsets, ncolblk, nsharedCol stay on the host;
 *     OP_consts_h, OP_consts_d, OP_reduct_h, OP_reduct_d, OP_hybrid_gpu,
 *     OP_block_size, OP_part_size, OP_auto_soa, OP_gpu_direct,
 *     getSetSizeFromOpArg, op_mpi_halo_exchanges[_grouped|_cuda],
 *     op_mpi_wait_all[_grouped|_cuda], op_mpi_set_dirtybit_cuda,
 *     op_upload_dat, op_download_dat, deviceSync;
 *   op_lib_core.h: round32, ROUND_UP, MIN, MAX, ZERO_<type>.
 */
#ifndef __OP_CUDA_RT_SUPPORT_H
#define __OP_CUDA_RT_SUPPORT_H

#include "op_gpu_shims.h"

#include "op_lib_core.h"
#include "op_rt_support.h"

/* Threads per warp on every CUDA device op2-rs targets. */
#define OP_WARPSIZE 32

/* Check a runtime-API result / the last launch; on error print the message with
 * the caller's file and line and exit. */
#define cutilSafeCall(err) __cudaSafeCall((err), __FILE__, __LINE__)
#define cutilCheckMsg(msg) __cutilCheckMsg((msg), __FILE__, __LINE__)

#ifdef __cplusplus
extern "C" {
#endif

/* Host staging / device buffers for global arguments of the `cuda` target:
 * OP_consts_* for READ/WRITE/RW globals, OP_reduct_* for per-block reduction
 * partials (declared in op2_rs_generated.h). */

/* The library's second stream (MPI halo work overlapping computation). */
extern gpuStream_t op2_grp_secondary;

/* Exit with a message naming file:line unless err is gpuSuccess. */
void __cudaSafeCall(gpuError_t err, const char *file, const int line);

/* Exit with errorMessage and file:line if the last kernel launch failed. */
void __cutilCheckMsg(const char *errorMessage, const char *file, const int line);

/* Pick and initialise the device (called by op_init / op_mpi_init); sets
 * OP_hybrid_gpu. */
void cutilDeviceInit(int argc, char **argv);
void cutilDeviceInit_mpi(int argc, char **argv, int mpi_rank);

/* Device allocation (size bytes) / zero fill. */
gpuError_t op_deviceMalloc(void **ptr, size_t size);
gpuError_t op_deviceZero(void *ptr, size_t size);

/* Copy size bytes of the host array *map to a new device array, free the host
 * array and leave the device pointer in *map. */
void op_mvHostToDevice(void **map, size_t size);

/* Allocate *data_d (size bytes; a previous *data_d is freed) and copy
 * size bytes from *data_h into it. */
void op_cpHostToDevice(void **data_d, void **data_h, size_t size);

/* Bring dat->data up to date if the device copy is newer (dirty_hd == 2),
 * undoing the SoA layout. */
void op_cuda_get_data(op_dat dat);

/* Free every device array the library holds (called by op_exit). */
void op_cuda_exit(void);

/* Grow (never shrink) the paired host/device buffers to at least n bytes. */
void reallocConstArrays(int consts_bytes);
void reallocReductArrays(int reduct_bytes);

/* Copy the first n bytes between OP_consts_h and OP_consts_d / OP_reduct_h and
 * OP_reduct_d (synchronous). */
void mvConstArraysToDevice(int consts_bytes);
void mvConstArraysToHost(int consts_bytes);
void mvReductArraysToDevice(int reduct_bytes);
void mvReductArraysToHost(int reduct_bytes);

#ifdef __cplusplus
}
#endif

#endif /* __OP_CUDA_RT_SUPPORT_H */
