// airfoil_openmp_kernels.cpp -- OpenMP host stubs for airfoil_gen_main.cpp in
// the form of OP2's old translator's "openmp" target (abi.md sections 2.1,
// 2.3).  Build with -fopenmp and link -lop2_openmp.
//
// Indirect loops (adt_calc, res_calc, bres_calc) run over an execution plan
// from op_plan_get_stage_upload(..., OP_STAGE_ALL, 0): colour by colour, the
// blocks of one colour in parallel (no two of them touch the same indirect
// element through an OP_INC/OP_RW argument), each block's elements in order
// by one thread.  OP_kernels[k].name/count are set before the plan call so
// the library can charge the plan time to the kernel.
//
// Direct loops (save_soln, update) split [0, set->size) into one contiguous
// range per thread; update's OP_INC global goes into per-thread slots (64
// doubles apart, so threads do not share cache lines) that are added to the
// user's variable afterwards, thread by thread.
//
// The part size is OP_PART_SIZE_<k> if defined at compile time, else the
// runtime's OP_part_size (OP_PART_SIZE=... on the command line; 0 lets the
// library choose).
#include <stdio.h>

#include <vector>

#include <omp.h>

// the application's constants (defined in the main file)
extern double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "op_lib_cpp.h"

#include "adt_calc.h"
#include "bres_calc.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

namespace {

void stub_enter(int k, const char *name, bool indirect, double *wall) {
  op_timing_realloc(k);
  OP_kernels[k].name = name;
  OP_kernels[k].count += 1;
  double cpu;
  op_timers_core(&cpu, wall);
  if (OP_diags > 2) {
    if (indirect)
      printf(" kernel routine with indirection: %s\n", name);
    else
      printf(" kernel routine w/o indirection:  %s\n", name);
  }
}

void stub_wait(op_set set, int set_size, int nargs, op_arg *args) {
  if (set_size == 0 || set_size == set->core_size)
    op_mpi_wait_all(nargs, args);
}

void stub_exit(int k, int nargs, op_arg *args, double wall1) {
  op_mpi_set_dirtybit(nargs, args);
  double cpu, wall2;
  op_timers_core(&cpu, &wall2);
  OP_kernels[k].time += wall2 - wall1;
}

// account a plan's data movement to kernel k
void plan_transfer(int k, const op_plan *plan) {
  OP_kernels[k].transfer += plan->transfer;
  OP_kernels[k].transfer2 += plan->transfer2;
}

float dat_bytes(const op_arg &a) {
  float b = (float)a.size;
  return (a.acc == OP_READ || a.acc == OP_WRITE) ? b : 2.0f * b;
}

// slot distance of per-thread reduction values (one cache line and more)
const int SLOT = 64;

} // namespace

#ifdef OP_PART_SIZE_1
#define ADT_PART_SIZE OP_PART_SIZE_1
#else
#define ADT_PART_SIZE OP_part_size
#endif
#ifdef OP_PART_SIZE_2
#define RES_PART_SIZE OP_PART_SIZE_2
#else
#define RES_PART_SIZE OP_part_size
#endif
#ifdef OP_PART_SIZE_3
#define BRES_PART_SIZE OP_PART_SIZE_3
#else
#define BRES_PART_SIZE OP_part_size
#endif

// ---- direct loops ------------------------------------------------------------

void op_par_loop_save_soln(char const *name, op_set set, op_arg arg0,
                           op_arg arg1) {
  const int nargs = 2;
  op_arg args[2] = {arg0, arg1};
  double wall1;
  stub_enter(0, name, false, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  if (set_size > 0) {
    const int nthreads = omp_get_max_threads();
#pragma omp parallel for
    for (int thr = 0; thr < nthreads; thr++) {
      const int start = (int)(((long)set->size * thr) / nthreads);
      const int finish = (int)(((long)set->size * (thr + 1)) / nthreads);
      for (int n = start; n < finish; n++)
        save_soln((double *)arg0.data + 4 * n, (double *)arg1.data + 4 * n);
    }
  }

  stub_wait(set, set_size, nargs, args);
  OP_kernels[0].transfer +=
      (float)set->size * (dat_bytes(arg0) + dat_bytes(arg1));
  stub_exit(0, nargs, args, wall1);
}

void op_par_loop_update(char const *name, op_set set, op_arg arg0, op_arg arg1,
                        op_arg arg2, op_arg arg3, op_arg arg4) {
  const int nargs = 5;
  op_arg args[5] = {arg0, arg1, arg2, arg3, arg4};
  double wall1;
  stub_enter(4, name, false, &wall1);

  double *arg4h = (double *)arg4.data;
  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  if (set_size > 0) {
    const int nthreads = omp_get_max_threads();
    std::vector<double> arg4_l((size_t)nthreads * SLOT);
    for (int thr = 0; thr < nthreads; thr++)
      arg4_l[(size_t)thr * SLOT] = ZERO_double;
#pragma omp parallel for
    for (int thr = 0; thr < nthreads; thr++) {
      const int start = (int)(((long)set->size * thr) / nthreads);
      const int finish = (int)(((long)set->size * (thr + 1)) / nthreads);
      double *slot = &arg4_l[(size_t)thr * SLOT];
      for (int n = start; n < finish; n++)
        update((double *)arg0.data + 4 * n, (double *)arg1.data + 4 * n,
               (double *)arg2.data + 4 * n, (double *)arg3.data + 1 * n, slot);
    }
    for (int thr = 0; thr < nthreads; thr++)
      arg4h[0] += arg4_l[(size_t)thr * SLOT];
  }

  stub_wait(set, set_size, nargs, args);
  op_mpi_reduce(&arg4, arg4h);
  OP_kernels[4].transfer +=
      (float)set->size * (dat_bytes(arg0) + dat_bytes(arg1) +
                          dat_bytes(arg2) + dat_bytes(arg3));
  stub_exit(4, nargs, args, wall1);
}

// ---- indirect loops ------------------------------------------------------------

void op_par_loop_adt_calc(char const *name, op_set set, op_arg arg0,
                          op_arg arg1, op_arg arg2, op_arg arg3, op_arg arg4,
                          op_arg arg5) {
  const int nargs = 6;
  op_arg args[6] = {arg0, arg1, arg2, arg3, arg4, arg5};
  const int ninds = 1;
  int inds[6] = {0, 0, 0, 0, -1, -1};
  double wall1;
  stub_enter(1, name, true, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  if (set_size > 0) {
    op_plan *Plan = op_plan_get_stage_upload(name, set, ADT_PART_SIZE, nargs,
                                             args, ninds, inds, OP_STAGE_ALL, 0);
    int block_offset = 0;
    for (int col = 0; col < Plan->ncolors; col++) {
      if (col == Plan->ncolors_core)
        op_mpi_wait_all(nargs, args);
      const int nblocks = Plan->ncolblk[col];
#pragma omp parallel for
      for (int blockIdx = 0; blockIdx < nblocks; blockIdx++) {
        const int blockId = Plan->blkmap[blockIdx + block_offset];
        const int nelem = Plan->nelems[blockId];
        const int offset_b = Plan->offset[blockId];
        for (int n = offset_b; n < offset_b + nelem; n++) {
          const int map0idx = arg0.map_data[n * arg0.map->dim + 0];
          const int map1idx = arg0.map_data[n * arg0.map->dim + 1];
          const int map2idx = arg0.map_data[n * arg0.map->dim + 2];
          const int map3idx = arg0.map_data[n * arg0.map->dim + 3];
          adt_calc((double *)arg0.data + 2 * map0idx,
                   (double *)arg1.data + 2 * map1idx,
                   (double *)arg2.data + 2 * map2idx,
                   (double *)arg3.data + 2 * map3idx,
                   (double *)arg4.data + 4 * n, (double *)arg5.data + 1 * n);
        }
      }
      block_offset += nblocks;
    }
    plan_transfer(1, Plan);
  }

  stub_wait(set, set_size, nargs, args);
  stub_exit(1, nargs, args, wall1);
}

void op_par_loop_res_calc(char const *name, op_set set, op_arg arg0,
                          op_arg arg1, op_arg arg2, op_arg arg3, op_arg arg4,
                          op_arg arg5, op_arg arg6, op_arg arg7) {
  const int nargs = 8;
  op_arg args[8] = {arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7};
  const int ninds = 4;
  int inds[8] = {0, 0, 1, 1, 2, 2, 3, 3};
  double wall1;
  stub_enter(2, name, true, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  if (set_size > 0) {
    op_plan *Plan = op_plan_get_stage_upload(name, set, RES_PART_SIZE, nargs,
                                             args, ninds, inds, OP_STAGE_ALL, 0);
    int block_offset = 0;
    for (int col = 0; col < Plan->ncolors; col++) {
      if (col == Plan->ncolors_core)
        op_mpi_wait_all(nargs, args);
      const int nblocks = Plan->ncolblk[col];
#pragma omp parallel for
      for (int blockIdx = 0; blockIdx < nblocks; blockIdx++) {
        const int blockId = Plan->blkmap[blockIdx + block_offset];
        const int nelem = Plan->nelems[blockId];
        const int offset_b = Plan->offset[blockId];
        for (int n = offset_b; n < offset_b + nelem; n++) {
          const int map0idx = arg0.map_data[n * arg0.map->dim + 0];
          const int map1idx = arg0.map_data[n * arg0.map->dim + 1];
          const int map2idx = arg2.map_data[n * arg2.map->dim + 0];
          const int map3idx = arg2.map_data[n * arg2.map->dim + 1];
          res_calc((double *)arg0.data + 2 * map0idx,
                   (double *)arg1.data + 2 * map1idx,
                   (double *)arg2.data + 4 * map2idx,
                   (double *)arg3.data + 4 * map3idx,
                   (double *)arg4.data + 1 * map2idx,
                   (double *)arg5.data + 1 * map3idx,
                   (double *)arg6.data + 4 * map2idx,
                   (double *)arg7.data + 4 * map3idx);
        }
      }
      block_offset += nblocks;
    }
    plan_transfer(2, Plan);
  }

  stub_wait(set, set_size, nargs, args);
  stub_exit(2, nargs, args, wall1);
}

void op_par_loop_bres_calc(char const *name, op_set set, op_arg arg0,
                           op_arg arg1, op_arg arg2, op_arg arg3, op_arg arg4,
                           op_arg arg5) {
  const int nargs = 6;
  op_arg args[6] = {arg0, arg1, arg2, arg3, arg4, arg5};
  const int ninds = 4;
  int inds[6] = {0, 0, 1, 2, 3, -1};
  double wall1;
  stub_enter(3, name, true, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  if (set_size > 0) {
    op_plan *Plan = op_plan_get_stage_upload(name, set, BRES_PART_SIZE, nargs,
                                             args, ninds, inds, OP_STAGE_ALL, 0);
    int block_offset = 0;
    for (int col = 0; col < Plan->ncolors; col++) {
      if (col == Plan->ncolors_core)
        op_mpi_wait_all(nargs, args);
      const int nblocks = Plan->ncolblk[col];
#pragma omp parallel for
      for (int blockIdx = 0; blockIdx < nblocks; blockIdx++) {
        const int blockId = Plan->blkmap[blockIdx + block_offset];
        const int nelem = Plan->nelems[blockId];
        const int offset_b = Plan->offset[blockId];
        for (int n = offset_b; n < offset_b + nelem; n++) {
          const int map0idx = arg0.map_data[n * arg0.map->dim + 0];
          const int map1idx = arg0.map_data[n * arg0.map->dim + 1];
          const int map2idx = arg2.map_data[n * arg2.map->dim + 0];
          bres_calc((double *)arg0.data + 2 * map0idx,
                    (double *)arg1.data + 2 * map1idx,
                    (double *)arg2.data + 4 * map2idx,
                    (double *)arg3.data + 1 * map2idx,
                    (double *)arg4.data + 4 * map2idx,
                    (int *)arg5.data + 1 * n);
        }
      }
      block_offset += nblocks;
    }
    plan_transfer(3, Plan);
  }

  stub_wait(set, set_size, nargs, args);
  stub_exit(3, nargs, args, wall1);
}
