/*
 * Kernels file of t3_indirect_colour.cpp (translator-v2 `cuda` target with
 * the per-loop configuration {"atomics": false, "color2": true}).
 *
 * Loop 3, over edges: the increment loop of t2 without its global, run by
 * element colours from op_plan_get_stage(..., OP_COLOR2): one launch per
 * colour over plan->col_offsets[0][col] .. [col + 1] (host array), edge
 * n = plan->col_reord[i] (a device array on this library). Edges of one colour
 * share no node, so the increments are plain stores, no atomics.
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

namespace op2_k3 {
__device__ inline void edge_flux_col(const double *w, const double *xa, const double *xb,
                                     double *ra, double *rb) {
  for (int k = 0; k < 2; ++k) {
    const double f = *w * (xa[k] - xb[k]);
    ra[k] += f;
    rb[k] -= f;
  }
}
} // namespace op2_k3

__global__ void op_cuda_edge_flux_col(const double *__restrict dat0,
                                      const double *__restrict dat1, double *__restrict dat2,
                                      const int *__restrict map0, int *col_reord, int start,
                                      int end, int set_size) {
  int thread_id = threadIdx.x + blockIdx.x * blockDim.x;
  if (thread_id + start < end) {
    int n = col_reord[thread_id + start];
    op2_k3::edge_flux_col(dat0 + n * 1, dat1 + map0[round32(set_size) * 0 + n] * 2,
                          dat1 + map0[round32(set_size) * 1 + n] * 2,
                          dat2 + map0[round32(set_size) * 0 + n] * 2,
                          dat2 + map0[round32(set_size) * 1 + n] * 2);
  }
}

void op_par_loop_edge_flux_col(const char *name, op_set set, op_arg arg0, op_arg arg1,
                               op_arg arg2, op_arg arg3, op_arg arg4) {
  int num_args_expanded = 5;
  op_arg args_expanded[5] = {arg0, arg1, arg2, arg3, arg4};

  double cpu_start, cpu_end, wall_start, wall_end;
  op_timing_realloc(3);
  OP_kernels[3].name = name;
  OP_kernels[3].count += 1;
  op_timers_core(&cpu_start, &wall_start);

  op_profile_enter_kernel(name, "cuda", "Indirect");
  op_profile_enter("MPI Exchanges");
  if (OP_diags > 2)
    printf(" kernel routine (indirect): edge_flux_col\n");
  op_mpi_halo_exchanges_grouped(set, num_args_expanded, args_expanded, 2);
  op_profile_next("Computation");

#ifdef OP_PART_SIZE_3
  int part_size = OP_PART_SIZE_3;
#else
  int part_size = OP_part_size;
#endif

  /* indirect dat of each argument: 0 = p_x, 1 = p_r, -1 = direct */
  int num_dats_indirect = 2;
  int dats_indirect[5] = {-1, 0, 0, 1, 1};

  op_plan *plan = op_plan_get_stage(name, set, part_size, num_args_expanded, args_expanded,
                                    num_dats_indirect, dats_indirect, OP_COLOR2);

#ifdef OP_BLOCK_SIZE_3
  int block_size = OP_BLOCK_SIZE_3;
#else
  int block_size = OP_block_size;
#endif

  for (int col = 0; col < plan->ncolors; ++col) {
    if (col == plan->ncolors_core) {
      op_profile_next("MPI Wait");
      op_mpi_wait_all_grouped(num_args_expanded, args_expanded, 2);
      op_profile_next("Computation");
    }

    int start = plan->col_offsets[0][col];
    int end = plan->col_offsets[0][col + 1];
    int num_blocks = (end - start - 1) / block_size + 1;

    op_cuda_edge_flux_col<<<num_blocks, block_size>>>(
        (double *)arg0.data_d, (double *)arg1.data_d, (double *)arg3.data_d, arg1.map_data_d,
        plan->col_reord, start, end, set->size + set->exec_size);
    cutilCheckMsg("op_cuda_edge_flux_col execution failed");
  }

  op_profile_exit();
  op_mpi_set_dirtybit_cuda(num_args_expanded, args_expanded);
  cutilSafeCall(cudaDeviceSynchronize());
  op_profile_exit();

  op_timers_core(&cpu_end, &wall_end);
  OP_kernels[3].time += wall_end - wall_start;
  OP_kernels[3].transfer += plan->transfer;
  OP_kernels[3].transfer2 += plan->transfer2;
}
