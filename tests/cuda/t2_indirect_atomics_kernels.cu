/*
 * Kernels file of t2_indirect_atomics.cpp (translator-v2 `cuda` target form,
 * default configuration: atomics, no plan).
 *
 * Loop 2, over edges: node values read through the edge->node map, OP_INC of
 * node residuals through the same map, a direct edge weight and a global
 * OP_INC. One thread per edge; each indirect increment is accumulated in a
 * thread-local array and added with atomicAdd. The device map is transposed:
 * column j of edge n is map0[round32(set_size) * j + n]. With a global
 * reduction the loop runs in three rounds: [0, core), [core, size) and the
 * exec halo [size, size + exec), whose partials are not read back.
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

namespace op2_k2 {
__device__ inline void edge_flux(const double *w, const double *xa, const double *xb, double *ra,
                                 double *rb, double *total) {
  for (int k = 0; k < 2; ++k) {
    const double f = *w * (xa[k] - xb[k]);
    ra[k] += f;
    rb[k] -= f;
  }
  *total += *w * (xa[0] - xb[0]) * (xa[0] - xb[0]);
}
} // namespace op2_k2

__global__ void op_cuda_edge_flux(const double *__restrict dat0, const double *__restrict dat1,
                                  double *__restrict dat2, const int *__restrict map0,
                                  double *gbl5, int start, int end, int set_size) {
  double gbl5_local[1];
  for (int d = 0; d < 1; ++d)
    gbl5_local[d] = ZERO_double;

  int thread_id = threadIdx.x + blockIdx.x * blockDim.x;
  if (thread_id + start < end) {
    int n = thread_id + start;

    double arg3_0_local[2];
    for (int d = 0; d < 2; ++d)
      arg3_0_local[d] = ZERO_double;
    double arg4_1_local[2];
    for (int d = 0; d < 2; ++d)
      arg4_1_local[d] = ZERO_double;

    op2_k2::edge_flux(dat0 + n * 1, dat1 + map0[round32(set_size) * 0 + n] * 2,
                      dat1 + map0[round32(set_size) * 1 + n] * 2, arg3_0_local, arg4_1_local,
                      gbl5_local);

    for (int d = 0; d < 2; ++d)
      atomicAdd(dat2 + map0[round32(set_size) * 0 + n] * 2 + d, arg3_0_local[d]);
    for (int d = 0; d < 2; ++d)
      atomicAdd(dat2 + map0[round32(set_size) * 1 + n] * 2 + d, arg4_1_local[d]);
  }

  for (int d = 0; d < 1; ++d)
    op_reduction<OP_INC>(gbl5 + blockIdx.x * 1 + d, gbl5_local[d]);
}

void op_par_loop_edge_flux(const char *name, op_set set, op_arg arg0, op_arg arg1, op_arg arg2,
                           op_arg arg3, op_arg arg4, op_arg arg5) {
  int num_args_expanded = 6;
  op_arg args_expanded[6] = {arg0, arg1, arg2, arg3, arg4, arg5};

  double cpu_start, cpu_end, wall_start, wall_end;
  op_timing_realloc(2);
  OP_kernels[2].name = name;
  OP_kernels[2].count += 1;
  op_timers_core(&cpu_start, &wall_start);

  op_profile_enter_kernel(name, "cuda", "Indirect");
  op_profile_enter("MPI Exchanges");
  if (OP_diags > 2)
    printf(" kernel routine (indirect): edge_flux\n");
  op_mpi_halo_exchanges_grouped(set, num_args_expanded, args_expanded, 2);
  op_profile_next("Computation");

  double *arg5_host_data = (double *)arg5.data;

#ifdef OP_BLOCK_SIZE_2
  int block_size = OP_BLOCK_SIZE_2;
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
      op_cuda_edge_flux<<<num_blocks, block_size, reduction_size * block_size>>>(
          (double *)arg0.data_d, (double *)arg1.data_d, (double *)arg3.data_d,
          arg1.map_data_d, (double *)arg5.data_d, start, end, set->size + set->exec_size);
      cutilCheckMsg("op_cuda_edge_flux execution failed");
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
  OP_kernels[2].time += wall_end - wall_start;
}
