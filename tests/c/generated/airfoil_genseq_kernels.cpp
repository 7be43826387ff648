// airfoil_genseq_kernels.cpp -- sequential host stubs for airfoil_gen_main.cpp
// in the form of OP2's old translator's "seq" target (abi.md section 2.1).
// Each stub:
//   * packs its arguments into an op_arg array,
//   * op_timing_realloc(k) before touching OP_kernels[k] (k = order of first
//     appearance in the application: save_soln 0, adt_calc 1, res_calc 2,
//     bres_calc 3, update 4), op_timers_core around the work,
//   * n_upper = op_mpi_halo_exchanges(set, nargs, args), then visits the
//     elements in order, indexing arg.data / arg.map_data itself,
//   * op_mpi_wait_all, op_mpi_reduce for globals, op_mpi_set_dirtybit,
//   * records name, count, time and bytes moved in OP_kernels[k].
// Element order and kernel pointers are those of op_seq.h's op_par_loop, so
// results are bitwise those of c-examples' airfoil and airfoil_ref.
#include <stdio.h>

// the application's constants (defined in the main file)
extern double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "op_lib_cpp.h"

#include "adt_calc.h"
#include "bres_calc.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

namespace {

// start-of-stub bookkeeping shared by the five stubs
void stub_enter(int k, const char *name, bool indirect, double *wall) {
  op_timing_realloc(k);
  double cpu;
  op_timers_core(&cpu, wall);
  if (OP_diags > 2) {
    if (indirect)
      printf(" kernel routine with indirection: %s\n", name);
    else
      printf(" kernel routine w/o indirection:  %s\n", name);
  }
}

// inside the element loop: progress the (no-op here) halo exchanges
inline void stub_progress(op_set set, int n, int nargs, op_arg *args) {
  if (n < set->core_size && n > 0 && n % OP_mpi_test_frequency == 0)
    op_mpi_test_all(nargs, args);
  if (n == set->core_size)
    op_mpi_wait_all(nargs, args);
}

// after the element loop: complete the halo exchanges if the loop did not
inline void stub_wait(op_set set, int set_size, int nargs, op_arg *args) {
  if (set_size == 0 || set_size == set->core_size)
    op_mpi_wait_all(nargs, args);
}

// end-of-stub bookkeeping (after any reductions): dirty bits, timing record
void stub_exit(int k, const char *name, int nargs, op_arg *args, double wall1,
               float transfer) {
  op_mpi_set_dirtybit(nargs, args);
  double cpu, wall2;
  op_timers_core(&cpu, &wall2);
  OP_kernels[k].name = name;
  OP_kernels[k].count += 1;
  OP_kernels[k].time += wall2 - wall1;
  OP_kernels[k].transfer += transfer;
}

// bytes one argument moves per element (written args count twice)
float dat_bytes(const op_arg &a) {
  float b = (float)a.size;
  return (a.acc == OP_READ || a.acc == OP_WRITE) ? b : 2.0f * b;
}

} // namespace

void op_par_loop_save_soln(char const *name, op_set set, op_arg arg0,
                           op_arg arg1) {
  const int nargs = 2;
  op_arg args[2] = {arg0, arg1};
  double wall1;
  stub_enter(0, name, false, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  for (int n = 0; n < set_size; n++) {
    stub_progress(set, n, nargs, args);
    save_soln((double *)arg0.data + 4 * n, (double *)arg1.data + 4 * n);
  }

  float transfer = (float)set->size * (dat_bytes(arg0) + dat_bytes(arg1));
  stub_wait(set, set_size, nargs, args);
  stub_exit(0, name, nargs, args, wall1, transfer);
}

void op_par_loop_adt_calc(char const *name, op_set set, op_arg arg0,
                          op_arg arg1, op_arg arg2, op_arg arg3, op_arg arg4,
                          op_arg arg5) {
  const int nargs = 6;
  op_arg args[6] = {arg0, arg1, arg2, arg3, arg4, arg5};
  double wall1;
  stub_enter(1, name, true, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  for (int n = 0; n < set_size; n++) {
    stub_progress(set, n, nargs, args);
    const int map0idx = arg0.map_data[n * arg0.map->dim + 0];
    const int map1idx = arg0.map_data[n * arg0.map->dim + 1];
    const int map2idx = arg0.map_data[n * arg0.map->dim + 2];
    const int map3idx = arg0.map_data[n * arg0.map->dim + 3];
    adt_calc((double *)arg0.data + 2 * map0idx,
             (double *)arg0.data + 2 * map1idx,
             (double *)arg0.data + 2 * map2idx,
             (double *)arg0.data + 2 * map3idx, (double *)arg4.data + 4 * n,
             (double *)arg5.data + 1 * n);
  }

  // the dat reached through the map once, the map itself, the direct dats
  float transfer = (float)arg0.dat->set->size * dat_bytes(arg0) +
                   (float)set->size * arg0.map->dim * 4.0f +
                   (float)set->size * (dat_bytes(arg4) + dat_bytes(arg5));
  stub_wait(set, set_size, nargs, args);
  stub_exit(1, name, nargs, args, wall1, transfer);
}

void op_par_loop_res_calc(char const *name, op_set set, op_arg arg0,
                          op_arg arg1, op_arg arg2, op_arg arg3, op_arg arg4,
                          op_arg arg5, op_arg arg6, op_arg arg7) {
  const int nargs = 8;
  op_arg args[8] = {arg0, arg1, arg2, arg3, arg4, arg5, arg6, arg7};
  double wall1;
  stub_enter(2, name, true, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  for (int n = 0; n < set_size; n++) {
    stub_progress(set, n, nargs, args);
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

  float transfer = (float)arg0.dat->set->size * dat_bytes(arg0) +
                   (float)arg2.dat->set->size *
                       (dat_bytes(arg2) + dat_bytes(arg4) + dat_bytes(arg6)) +
                   (float)set->size * (arg0.map->dim + arg2.map->dim) * 4.0f;
  stub_wait(set, set_size, nargs, args);
  stub_exit(2, name, nargs, args, wall1, transfer);
}

void op_par_loop_bres_calc(char const *name, op_set set, op_arg arg0,
                           op_arg arg1, op_arg arg2, op_arg arg3, op_arg arg4,
                           op_arg arg5) {
  const int nargs = 6;
  op_arg args[6] = {arg0, arg1, arg2, arg3, arg4, arg5};
  double wall1;
  stub_enter(3, name, true, &wall1);

  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  for (int n = 0; n < set_size; n++) {
    stub_progress(set, n, nargs, args);
    const int map0idx = arg0.map_data[n * arg0.map->dim + 0];
    const int map1idx = arg0.map_data[n * arg0.map->dim + 1];
    const int map2idx = arg2.map_data[n * arg2.map->dim + 0];
    bres_calc((double *)arg0.data + 2 * map0idx,
              (double *)arg1.data + 2 * map1idx,
              (double *)arg2.data + 4 * map2idx,
              (double *)arg3.data + 1 * map2idx,
              (double *)arg4.data + 4 * map2idx, (int *)arg5.data + 1 * n);
  }

  float transfer = (float)arg0.dat->set->size * dat_bytes(arg0) +
                   (float)arg2.dat->set->size *
                       (dat_bytes(arg2) + dat_bytes(arg3) + dat_bytes(arg4)) +
                   (float)set->size * dat_bytes(arg5) +
                   (float)set->size * (arg0.map->dim + arg2.map->dim) * 4.0f;
  stub_wait(set, set_size, nargs, args);
  stub_exit(3, name, nargs, args, wall1, transfer);
}

void op_par_loop_update(char const *name, op_set set, op_arg arg0, op_arg arg1,
                        op_arg arg2, op_arg arg3, op_arg arg4) {
  const int nargs = 5;
  op_arg args[5] = {arg0, arg1, arg2, arg3, arg4};
  double wall1;
  stub_enter(4, name, false, &wall1);

  // the global is reduced in place: the kernel adds into the user's variable
  int set_size = op_mpi_halo_exchanges(set, nargs, args);
  for (int n = 0; n < set_size; n++) {
    stub_progress(set, n, nargs, args);
    update((double *)arg0.data + 4 * n, (double *)arg1.data + 4 * n,
           (double *)arg2.data + 4 * n, (double *)arg3.data + 1 * n,
           (double *)arg4.data);
  }
  stub_wait(set, set_size, nargs, args);
  op_mpi_reduce(&arg4, (double *)arg4.data);

  float transfer = (float)set->size * (dat_bytes(arg0) + dat_bytes(arg1) +
                                       dat_bytes(arg2) + dat_bytes(arg3));
  stub_exit(4, name, nargs, args, wall1, transfer);
}
