/*
 * Kernels file of t4_soa_aos.cpp (translator-v2 `cuda` target, atomics).
 *
 * Loop 4, over cells, mixing SoA dats (type "double:soa": on the device,
 * component c of element e is at data_d[c * stride + e], stride =
 * round32(set size with halos)) and AoS dats (data_d[e * dim + c]):
 *   arg0 node coordinates, SoA dim 2, all 4 nodes of the cell (vector argument)
 *   arg1 cell state, SoA dim 3, direct OP_RW
 *   arg2 cell centre, AoS dim 2, direct OP_WRITE
 *   arg3 node accumulator, SoA dim 2, OP_INC through cell->node column 0
 *   arg4 node counter, AoS dim 1, OP_INC through cell->node column 2
 * As the translator does, SoA pointers are not scaled by dim, the kernel's
 * component subscripts are multiplied by a per-dat __constant__ stride (which
 * the host stub updates when the set size changes), and the atomic update of
 * an SoA increment uses the stride while its thread-local array does not.
 */
__constant__ double weight_d;

#include "op_lib_cpp.h"
#include "op_cuda_rt_support.h"
#include "op_cuda_reduction.h"
#include <op_profile.h>

void op_decl_const_char(int dim, const char *type, int size, char *dat, const char *name) {
  (void)type;
  if (!OP_hybrid_gpu)
    return;
  if (!strcmp(name, "weight")) {
    cutilSafeCall(cudaMemcpyToSymbol(weight_d, dat, dim * size));
    return;
  }
  printf("error: unknown const name %s\n", name);
  exit(1);
}

namespace op2_k4 {

int op2_cell_centre_dat0_stride = -1;
int op2_cell_centre_dat1_stride = -1;
int op2_cell_centre_dat3_stride = -1;

__constant__ int op2_cell_centre_dat0_stride_d;
__constant__ int op2_cell_centre_dat1_stride_d;
__constant__ int op2_cell_centre_dat3_stride_d;

__device__ inline void cell_centre(const double **xy, double *q, double *cen, double *acc,
                                   double *cnt) {
  cen[0] = 0.25 * (xy[0][(0) * op2_cell_centre_dat0_stride_d] +
                   xy[1][(0) * op2_cell_centre_dat0_stride_d] +
                   xy[2][(0) * op2_cell_centre_dat0_stride_d] +
                   xy[3][(0) * op2_cell_centre_dat0_stride_d]);
  cen[1] = 0.25 * (xy[0][(1) * op2_cell_centre_dat0_stride_d] +
                   xy[1][(1) * op2_cell_centre_dat0_stride_d] +
                   xy[2][(1) * op2_cell_centre_dat0_stride_d] +
                   xy[3][(1) * op2_cell_centre_dat0_stride_d]);
  q[(0) * op2_cell_centre_dat1_stride_d] = q[(0) * op2_cell_centre_dat1_stride_d] + cen[0];
  q[(1) * op2_cell_centre_dat1_stride_d] = weight_d * q[(1) * op2_cell_centre_dat1_stride_d];
  q[(2) * op2_cell_centre_dat1_stride_d] =
      q[(0) * op2_cell_centre_dat1_stride_d] - q[(1) * op2_cell_centre_dat1_stride_d];
  acc[0] += cen[0];
  acc[1] += cen[1];
  cnt[0] += 1.0;
}
} // namespace op2_k4

__global__ void op_cuda_cell_centre(const double *__restrict dat0, double *__restrict dat1,
                                    double *__restrict dat2, double *__restrict dat3,
                                    double *__restrict dat4, const int *__restrict map0,
                                    int start, int end, int set_size) {
  int thread_id = threadIdx.x + blockIdx.x * blockDim.x;
  if (thread_id + start < end) {
    int n = thread_id + start;

    double arg3_0_local[2];
    for (int d = 0; d < 2; ++d)
      arg3_0_local[d] = ZERO_double;
    double arg4_2_local[1];
    for (int d = 0; d < 1; ++d)
      arg4_2_local[d] = ZERO_double;

    const double *arg0_vec[4];
    arg0_vec[0] = dat0 + map0[round32(set_size) * 0 + n];
    arg0_vec[1] = dat0 + map0[round32(set_size) * 1 + n];
    arg0_vec[2] = dat0 + map0[round32(set_size) * 2 + n];
    arg0_vec[3] = dat0 + map0[round32(set_size) * 3 + n];

    op2_k4::cell_centre(arg0_vec, dat1 + n, dat2 + n * 2, arg3_0_local, arg4_2_local);

    for (int d = 0; d < 2; ++d)
      atomicAdd(dat3 + map0[round32(set_size) * 0 + n] + d * op2_k4::op2_cell_centre_dat3_stride_d,
                arg3_0_local[d]);
    for (int d = 0; d < 1; ++d)
      atomicAdd(dat4 + map0[round32(set_size) * 2 + n] * 1 + d, arg4_2_local[d]);
  }
}

/* Update a dat's device stride constant when round32(its set size) changed. */
#define UPDATE_STRIDE(host, device, arg)                                                          \
  do {                                                                                            \
    const int stride = (int)round32(getSetSizeFromOpArg(&(arg)));                                 \
    if ((host) != stride) {                                                                       \
      (host) = stride;                                                                            \
      cutilSafeCall(cudaMemcpyToSymbol(device, &(host), sizeof(int)));                            \
    }                                                                                             \
  } while (0)

void op_par_loop_cell_centre(const char *name, op_set set, op_arg arg0, op_arg arg1, op_arg arg2,
                             op_arg arg3, op_arg arg4) {
  int num_args_expanded = 8;
  op_arg args_expanded[8];
  /* the translator re-forms a vector argument per column with the dat's C type
   * ("double", without ":soa") */
  args_expanded[0] = op_arg_dat(arg0.dat, 0, arg0.map, 2, "double", OP_READ);
  args_expanded[1] = op_arg_dat(arg0.dat, 1, arg0.map, 2, "double", OP_READ);
  args_expanded[2] = op_arg_dat(arg0.dat, 2, arg0.map, 2, "double", OP_READ);
  args_expanded[3] = op_arg_dat(arg0.dat, 3, arg0.map, 2, "double", OP_READ);
  args_expanded[4] = arg1;
  args_expanded[5] = arg2;
  args_expanded[6] = arg3;
  args_expanded[7] = arg4;

  double cpu_start, cpu_end, wall_start, wall_end;
  op_timing_realloc(4);
  OP_kernels[4].name = name;
  OP_kernels[4].count += 1;
  op_timers_core(&cpu_start, &wall_start);

  op_profile_enter_kernel(name, "cuda", "Indirect");
  op_profile_enter("MPI Exchanges");
  if (OP_diags > 2)
    printf(" kernel routine (indirect): cell_centre\n");
  op_mpi_halo_exchanges_grouped(set, num_args_expanded, args_expanded, 2);
  op_profile_next("Computation");

  UPDATE_STRIDE(op2_k4::op2_cell_centre_dat0_stride, op2_k4::op2_cell_centre_dat0_stride_d, arg0);
  UPDATE_STRIDE(op2_k4::op2_cell_centre_dat1_stride, op2_k4::op2_cell_centre_dat1_stride_d, arg1);
  UPDATE_STRIDE(op2_k4::op2_cell_centre_dat3_stride, op2_k4::op2_cell_centre_dat3_stride_d, arg3);

#ifdef OP_BLOCK_SIZE_4
  int block_size = OP_BLOCK_SIZE_4;
#else
  int block_size = OP_block_size;
#endif

  for (int round = 0; round < 2; ++round) {
    if (round == 1) {
      op_profile_next("MPI Wait");
      op_mpi_wait_all_grouped(num_args_expanded, args_expanded, 2);
      op_profile_next("Computation");
    }

    int start = round == 0 ? 0 : set->core_size;
    int end = round == 0 ? set->core_size : set->size + set->exec_size;

    if (end - start > 0) {
      int num_blocks = (end - start - 1) / block_size + 1;
      op_cuda_cell_centre<<<num_blocks, block_size>>>(
          (double *)arg0.data_d, (double *)arg1.data_d, (double *)arg2.data_d,
          (double *)arg3.data_d, (double *)arg4.data_d, arg0.map_data_d, start, end,
          set->size + set->exec_size);
      cutilCheckMsg("op_cuda_cell_centre execution failed");
    }
  }

  op_profile_exit();
  op_mpi_set_dirtybit_cuda(num_args_expanded, args_expanded);
  cutilSafeCall(cudaDeviceSynchronize());
  op_profile_exit();

  op_timers_core(&cpu_end, &wall_end);
  OP_kernels[4].time += wall_end - wall_start;
}
