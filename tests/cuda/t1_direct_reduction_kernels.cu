/*
 * Kernels file of t1_direct_reduction.cpp, in the form OP2's translator-v2
 * gives its `cuda` target (op2_kernels.cu): __constant__ copies of the
 * application's constants, op_decl_const_char, then per loop the user kernel
 * as a __device__ function, the CUDA kernel and the host stub
 * op_par_loop_<name>.
 *
 * Loop 1, direct over cells, with global reductions: a dim-2 double OP_INC,
 * a double OP_MIN, a double OP_MAX and an int OP_INC. Per-block partials go
 * through reallocReductArrays / mvReductArraysToDevice / mvReductArraysToHost
 * and are combined by op_reduction.
 */
__constant__ double scale_d;

#include "op_lib_cpp.h"
#include "op_cuda_rt_support.h"
#include "op_cuda_reduction.h"
#include <op_profile.h>

void op_decl_const_char(int dim, const char *type, int size, char *dat, const char *name) {
  (void)type;
  if (!OP_hybrid_gpu)
    return;
  if (!strcmp(name, "scale")) {
    cutilSafeCall(cudaMemcpyToSymbol(scale_d, dat, dim * size));
    return;
  }
  printf("error: unknown const name %s\n", name);
  exit(1);
}

namespace op2_k1 {
__device__ inline void direct_reduction(const double *x, double *y, double *sum, double *mn,
                                        double *mx, int *count) {
  y[0] = scale_d * x[0] + x[1];
  sum[0] += x[0];
  sum[1] += x[0] * x[1];
  if (x[1] < *mn)
    *mn = x[1];
  if (x[0] > *mx)
    *mx = x[0];
  *count += 1;
}
} // namespace op2_k1

__global__ void op_cuda_direct_reduction(const double *__restrict dat0, double *__restrict dat1,
                                         double *gbl2, double *gbl3, double *gbl4, int *gbl5,
                                         int set_size) {
  double gbl2_local[2];
  for (int d = 0; d < 2; ++d)
    gbl2_local[d] = ZERO_double;
  double gbl3_local[1];
  for (int d = 0; d < 1; ++d)
    gbl3_local[d] = gbl3[blockIdx.x * 1 + d];
  double gbl4_local[1];
  for (int d = 0; d < 1; ++d)
    gbl4_local[d] = gbl4[blockIdx.x * 1 + d];
  int gbl5_local[1];
  for (int d = 0; d < 1; ++d)
    gbl5_local[d] = ZERO_int;

  int thread_id = threadIdx.x + blockIdx.x * blockDim.x;
  for (int n = thread_id; n < set_size; n += blockDim.x * gridDim.x) {
    op2_k1::direct_reduction(dat0 + n * 2, dat1 + n * 1, gbl2_local, gbl3_local, gbl4_local,
                             gbl5_local);
  }

  for (int d = 0; d < 2; ++d)
    op_reduction<OP_INC>(gbl2 + blockIdx.x * 2 + d, gbl2_local[d]);
  for (int d = 0; d < 1; ++d)
    op_reduction<OP_MIN>(gbl3 + blockIdx.x * 1 + d, gbl3_local[d]);
  for (int d = 0; d < 1; ++d)
    op_reduction<OP_MAX>(gbl4 + blockIdx.x * 1 + d, gbl4_local[d]);
  for (int d = 0; d < 1; ++d)
    op_reduction<OP_INC>(gbl5 + blockIdx.x * 1 + d, gbl5_local[d]);
}

void op_par_loop_direct_reduction(const char *name, op_set set, op_arg arg0, op_arg arg1,
                                  op_arg arg2, op_arg arg3, op_arg arg4, op_arg arg5) {
  int num_args_expanded = 6;
  op_arg args_expanded[6] = {arg0, arg1, arg2, arg3, arg4, arg5};

  double cpu_start, cpu_end, wall_start, wall_end;
  op_timing_realloc(1);
  OP_kernels[1].name = name;
  OP_kernels[1].count += 1;
  op_timers_core(&cpu_start, &wall_start);

  op_profile_enter_kernel(name, "cuda", "Direct");
  op_profile_enter("MPI Exchanges");
  if (OP_diags > 2)
    printf(" kernel routine (direct): direct_reduction\n");
  op_mpi_halo_exchanges_grouped(set, num_args_expanded, args_expanded, 2);
  op_profile_next("Computation");

  double *arg2_host_data = (double *)arg2.data;
  double *arg3_host_data = (double *)arg3.data;
  double *arg4_host_data = (double *)arg4.data;
  int *arg5_host_data = (int *)arg5.data;

#ifdef OP_BLOCK_SIZE_1
  int block_size = OP_BLOCK_SIZE_1;
#else
  int block_size = OP_block_size;
#endif
  int num_blocks = 200;
  int max_blocks = num_blocks;

  int reduction_bytes = 0;
  int reduction_size = 0;
  reduction_bytes += ROUND_UP(max_blocks * 2 * (int)sizeof(double));
  reduction_size = MAX(reduction_size, (int)sizeof(double));
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  reduction_size = MAX(reduction_size, (int)sizeof(double));
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  reduction_size = MAX(reduction_size, (int)sizeof(double));
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(int));
  reduction_size = MAX(reduction_size, (int)sizeof(int));

  reallocReductArrays(reduction_bytes);
  reduction_bytes = 0;

  arg2.data = OP_reduct_h + reduction_bytes;
  arg2.data_d = OP_reduct_d + reduction_bytes;
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 2; ++d)
      ((double *)arg2.data)[b * 2 + d] = ZERO_double;
  reduction_bytes += ROUND_UP(max_blocks * 2 * (int)sizeof(double));

  arg3.data = OP_reduct_h + reduction_bytes;
  arg3.data_d = OP_reduct_d + reduction_bytes;
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      ((double *)arg3.data)[b * 1 + d] = arg3_host_data[d];
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));

  arg4.data = OP_reduct_h + reduction_bytes;
  arg4.data_d = OP_reduct_d + reduction_bytes;
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      ((double *)arg4.data)[b * 1 + d] = arg4_host_data[d];
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));

  arg5.data = OP_reduct_h + reduction_bytes;
  arg5.data_d = OP_reduct_d + reduction_bytes;
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      ((int *)arg5.data)[b * 1 + d] = ZERO_int;
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(int));

  mvReductArraysToDevice(reduction_bytes);

  op_cuda_direct_reduction<<<num_blocks, block_size, reduction_size * block_size>>>(
      (double *)arg0.data_d, (double *)arg1.data_d, (double *)arg2.data_d,
      (double *)arg3.data_d, (double *)arg4.data_d, (int *)arg5.data_d, set->size);
  cutilCheckMsg("op_cuda_direct_reduction execution failed");

  mvReductArraysToHost(reduction_bytes);

  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 2; ++d)
      arg2_host_data[d] += ((double *)arg2.data)[b * 2 + d];
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      arg3_host_data[d] = MIN(arg3_host_data[d], ((double *)arg3.data)[b * 1 + d]);
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      arg4_host_data[d] = MAX(arg4_host_data[d], ((double *)arg4.data)[b * 1 + d]);
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      arg5_host_data[d] += ((int *)arg5.data)[b * 1 + d];

  op_profile_next("MPI Reduce");
  arg2.data = (char *)arg2_host_data;
  op_mpi_reduce(&arg2, arg2_host_data);
  arg3.data = (char *)arg3_host_data;
  op_mpi_reduce(&arg3, arg3_host_data);
  arg4.data = (char *)arg4_host_data;
  op_mpi_reduce(&arg4, arg4_host_data);
  arg5.data = (char *)arg5_host_data;
  op_mpi_reduce(&arg5, arg5_host_data);
  op_profile_exit();

  op_mpi_set_dirtybit_cuda(num_args_expanded, args_expanded);
  cutilSafeCall(cudaDeviceSynchronize());
  op_profile_exit();

  op_timers_core(&cpu_end, &wall_end);
  OP_kernels[1].time += wall_end - wall_start;
  OP_kernels[1].transfer += (float)set->size * arg0.size;
  OP_kernels[1].transfer += (float)set->size * arg1.size * 2.0f;
}
