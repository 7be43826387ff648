/*
 * Kernels file of t5_mpi_halo.cpp (translator-v2 `cuda` target, atomics), for
 * libop2_mpi_cuda. Nothing MPI-specific is compiled here: the stubs call
 * op_mpi_halo_exchanges_grouped(set, n, args, 2) (device halo exchange of
 * the dats read through maps), run the core elements, op_mpi_wait_all_grouped,
 * then the rest including the exec halo, and mark written dats with
 * op_mpi_set_dirtybit_cuda; globals are combined across ranks by op_mpi_reduce.
 *
 * Loop 5, over edges: x read through the map at both ends, OP_INC of r at
 * both ends (atomics), a global OP_INC of the edge weights (three rounds: the
 * exec-halo round's partials are never read back, so halo edges executed
 * redundantly on several ranks are not counted twice).
 * Loop 6, direct over nodes: x += r, r = 0, global OP_INC and OP_MAX of x.
 */
#include "op_lib_cpp.h"
#include "op_cuda_rt_support.h"
#include "op_cuda_reduction.h"
#include <op_profile.h>

void op_decl_const_char(int dim, const char *type, int size, char *dat, const char *name) {
  (void)dim;
  (void)type;
  (void)size;
  (void)dat;
  if (!OP_hybrid_gpu)
    return;
  printf("error: unknown const name %s\n", name);
  exit(1);
}

namespace op2_k5 {
__device__ inline void mpi_edge_flux(const double *w, const double *xa, const double *xb,
                                     double *ra, double *rb, double *total) {
  const double f = *w * (*xa - *xb);
  *ra += f;
  *rb -= f;
  *total += *w;
}
} // namespace op2_k5

__global__ void op_cuda_mpi_edge_flux(const double *__restrict dat0,
                                      const double *__restrict dat1, double *__restrict dat2,
                                      const int *__restrict map0, double *gbl5, int start,
                                      int end, int set_size) {
  double gbl5_local[1];
  for (int d = 0; d < 1; ++d)
    gbl5_local[d] = ZERO_double;

  int thread_id = threadIdx.x + blockIdx.x * blockDim.x;
  if (thread_id + start < end) {
    int n = thread_id + start;
    double arg3_0_local[1];
    for (int d = 0; d < 1; ++d)
      arg3_0_local[d] = ZERO_double;
    double arg4_1_local[1];
    for (int d = 0; d < 1; ++d)
      arg4_1_local[d] = ZERO_double;

    op2_k5::mpi_edge_flux(dat0 + n * 1, dat1 + map0[round32(set_size) * 0 + n] * 1,
                          dat1 + map0[round32(set_size) * 1 + n] * 1, arg3_0_local,
                          arg4_1_local, gbl5_local);

    for (int d = 0; d < 1; ++d)
      atomicAdd(dat2 + map0[round32(set_size) * 0 + n] * 1 + d, arg3_0_local[d]);
    for (int d = 0; d < 1; ++d)
      atomicAdd(dat2 + map0[round32(set_size) * 1 + n] * 1 + d, arg4_1_local[d]);
  }

  for (int d = 0; d < 1; ++d)
    op_reduction<OP_INC>(gbl5 + blockIdx.x * 1 + d, gbl5_local[d]);
}

void op_par_loop_mpi_edge_flux(const char *name, op_set set, op_arg arg0, op_arg arg1,
                               op_arg arg2, op_arg arg3, op_arg arg4, op_arg arg5) {
  int num_args_expanded = 6;
  op_arg args_expanded[6] = {arg0, arg1, arg2, arg3, arg4, arg5};

  double cpu_start, cpu_end, wall_start, wall_end;
  op_timing_realloc(5);
  OP_kernels[5].name = name;
  OP_kernels[5].count += 1;
  op_timers_core(&cpu_start, &wall_start);

  op_profile_enter_kernel(name, "cuda", "Indirect");
  op_profile_enter("MPI Exchanges");
  op_mpi_halo_exchanges_grouped(set, num_args_expanded, args_expanded, 2);
  op_profile_next("Computation");

  double *arg5_host_data = (double *)arg5.data;

#ifdef OP_BLOCK_SIZE_5
  int block_size = OP_BLOCK_SIZE_5;
#else
  int block_size = OP_block_size;
#endif

  int max_blocks =
      (MAX(set->core_size, set->size + set->exec_size - set->core_size) - 1) / block_size + 1;

  int reduction_bytes = 0;
  int reduction_size = 0;
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  reduction_size = MAX(reduction_size, (int)sizeof(double));

  reallocReductArrays(reduction_bytes);
  reduction_bytes = 0;
  arg5.data = OP_reduct_h + reduction_bytes;
  arg5.data_d = OP_reduct_d + reduction_bytes;
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      ((double *)arg5.data)[b * 1 + d] = ZERO_double;
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  mvReductArraysToDevice(reduction_bytes);

  for (int round = 0; round < 3; ++round) {
    if (round == 1) {
      op_profile_next("MPI Wait");
      op_mpi_wait_all_grouped(num_args_expanded, args_expanded, 2);
      op_profile_next("Computation");
    }
    int start = round == 0 ? 0 : (round == 1 ? set->core_size : set->size);
    int end = round == 0 ? set->core_size : (round == 1 ? set->size : set->size + set->exec_size);
    if (end - start > 0) {
      int num_blocks = (end - start - 1) / block_size + 1;
      op_cuda_mpi_edge_flux<<<num_blocks, block_size, reduction_size * block_size>>>(
          (double *)arg0.data_d, (double *)arg1.data_d, (double *)arg3.data_d,
          arg1.map_data_d, (double *)arg5.data_d, start, end, set->size + set->exec_size);
      cutilCheckMsg("op_cuda_mpi_edge_flux execution failed");
    }
    if (round == 1)
      mvReductArraysToHost(reduction_bytes);
  }

  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      arg5_host_data[d] += ((double *)arg5.data)[b * 1 + d];

  op_profile_next("MPI Reduce");
  arg5.data = (char *)arg5_host_data;
  op_mpi_reduce(&arg5, arg5_host_data);
  op_profile_exit();

  op_mpi_set_dirtybit_cuda(num_args_expanded, args_expanded);
  cutilSafeCall(cudaDeviceSynchronize());
  op_profile_exit();

  op_timers_core(&cpu_end, &wall_end);
  OP_kernels[5].time += wall_end - wall_start;
}

namespace op2_k6 {
__device__ inline void mpi_node_update(double *r, double *x, double *sum, double *max) {
  *x += *r;
  *r = 0.0;
  *sum += *x;
  if (*x > *max)
    *max = *x;
}
} // namespace op2_k6

__global__ void op_cuda_mpi_node_update(double *__restrict dat0, double *__restrict dat1,
                                        double *gbl2, double *gbl3, int set_size) {
  double gbl2_local[1];
  for (int d = 0; d < 1; ++d)
    gbl2_local[d] = ZERO_double;
  double gbl3_local[1];
  for (int d = 0; d < 1; ++d)
    gbl3_local[d] = gbl3[blockIdx.x * 1 + d];

  int thread_id = threadIdx.x + blockIdx.x * blockDim.x;
  for (int n = thread_id; n < set_size; n += blockDim.x * gridDim.x)
    op2_k6::mpi_node_update(dat0 + n * 1, dat1 + n * 1, gbl2_local, gbl3_local);

  for (int d = 0; d < 1; ++d)
    op_reduction<OP_INC>(gbl2 + blockIdx.x * 1 + d, gbl2_local[d]);
  for (int d = 0; d < 1; ++d)
    op_reduction<OP_MAX>(gbl3 + blockIdx.x * 1 + d, gbl3_local[d]);
}

void op_par_loop_mpi_node_update(const char *name, op_set set, op_arg arg0, op_arg arg1,
                                 op_arg arg2, op_arg arg3) {
  int num_args_expanded = 4;
  op_arg args_expanded[4] = {arg0, arg1, arg2, arg3};

  double cpu_start, cpu_end, wall_start, wall_end;
  op_timing_realloc(6);
  OP_kernels[6].name = name;
  OP_kernels[6].count += 1;
  op_timers_core(&cpu_start, &wall_start);

  op_profile_enter_kernel(name, "cuda", "Direct");
  op_profile_enter("MPI Exchanges");
  op_mpi_halo_exchanges_grouped(set, num_args_expanded, args_expanded, 2);
  op_profile_next("Computation");

  double *arg2_host_data = (double *)arg2.data;
  double *arg3_host_data = (double *)arg3.data;

#ifdef OP_BLOCK_SIZE_6
  int block_size = OP_BLOCK_SIZE_6;
#else
  int block_size = OP_block_size;
#endif
  int num_blocks = 200;
  int max_blocks = num_blocks;

  int reduction_bytes = 0;
  int reduction_size = 0;
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  reduction_size = MAX(reduction_size, (int)sizeof(double));
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  reduction_size = MAX(reduction_size, (int)sizeof(double));

  reallocReductArrays(reduction_bytes);
  reduction_bytes = 0;
  arg2.data = OP_reduct_h + reduction_bytes;
  arg2.data_d = OP_reduct_d + reduction_bytes;
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      ((double *)arg2.data)[b * 1 + d] = ZERO_double;
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  arg3.data = OP_reduct_h + reduction_bytes;
  arg3.data_d = OP_reduct_d + reduction_bytes;
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      ((double *)arg3.data)[b * 1 + d] = arg3_host_data[d];
  reduction_bytes += ROUND_UP(max_blocks * 1 * (int)sizeof(double));
  mvReductArraysToDevice(reduction_bytes);

  op_cuda_mpi_node_update<<<num_blocks, block_size, reduction_size * block_size>>>(
      (double *)arg0.data_d, (double *)arg1.data_d, (double *)arg2.data_d,
      (double *)arg3.data_d, set->size);
  cutilCheckMsg("op_cuda_mpi_node_update execution failed");
  mvReductArraysToHost(reduction_bytes);

  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      arg2_host_data[d] += ((double *)arg2.data)[b * 1 + d];
  for (int b = 0; b < max_blocks; ++b)
    for (int d = 0; d < 1; ++d)
      arg3_host_data[d] = MAX(arg3_host_data[d], ((double *)arg3.data)[b * 1 + d]);

  op_profile_next("MPI Reduce");
  arg2.data = (char *)arg2_host_data;
  op_mpi_reduce(&arg2, arg2_host_data);
  arg3.data = (char *)arg3_host_data;
  op_mpi_reduce(&arg3, arg3_host_data);
  op_profile_exit();

  op_mpi_set_dirtybit_cuda(num_args_expanded, args_expanded);
  cutilSafeCall(cudaDeviceSynchronize());
  op_profile_exit();

  op_timers_core(&cpu_end, &wall_end);
  OP_kernels[6].time += wall_end - wall_start;
}
