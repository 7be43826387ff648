// reader FILE        -- declare the sets, map and dats of writer.cpp's OUT file
//                       with op_decl_set_hdf5 / op_decl_map_hdf5 /
//                       op_decl_dat_hdf5, its constants with op_get_const_hdf5,
//                       and check every value
// reader --fetch FILE -- the same for writer.cpp's FETCH file
// Prints "reader: FILE: N values ok" and exits 0, or lists what differs and
// exits 1. Built once against OP2's library and once against op2-rs's.
#include <stdio.h>
#include <string.h>

#include "op_seq.h"
#include "op_hdf5.h"

#include "values.h"

static int g_bad = 0;
static long g_checked = 0;

template <class T> static void check(const char *what, int i, T got, T want) {
  ++g_checked;
  if (!(got == want)) {
    if (g_bad < 20)
      printf("MISMATCH %s[%d]: got %.17g, want %.17g\n", what, i, (double)got, (double)want);
    ++g_bad;
  }
}

static void check_present(const void *p, const char *what) {
  if (p == nullptr) {
    printf("MISSING %s\n", what);
    ++g_bad;
  }
}

static void check_set(op_set s, int want) {
  check_present(s, "set");
  if (s != nullptr)
    check(s->name, 0, s->size, want);
}

static void check_x(op_dat d, const char *what) {
  check_present(d, what);
  if (d == nullptr)
    return;
  const double *v = (const double *)d->data;
  for (int n = 0; n < NNODE; ++n)
    for (int k = 0; k < 2; ++k)
      check(what, n * 2 + k, v[n * 2 + k], x_val(n, k));
}

static void check_l(op_dat d) {
  check_present(d, L_NAME);
  if (d == nullptr)
    return;
  const long *v = (const long *)d->data;
  for (int c = 0; c < NCELL; ++c)
    for (int k = 0; k < 2; ++k)
      check(L_NAME, c * 2 + k, v[c * 2 + k], l_val(c, k));
}

static void check_s(op_dat d) {
  check_present(d, S_NAME);
  if (d == nullptr)
    return;
  const double *v = (const double *)d->data;
  for (int n = 0; n < NNODE; ++n)
    for (int k = 0; k < 2; ++k)
      check(S_NAME, n * 2 + k, v[n * 2 + k], s_val(n, k));
}

static void read_main(const char *file, op_set nodes, op_set cells) {
  op_map m = op_decl_map_hdf5(cells, nodes, MAPDIM, file, MAP_NAME);
  check_present(m, MAP_NAME);
  if (m != nullptr)
    for (int c = 0; c < NCELL; ++c)
      for (int k = 0; k < MAPDIM; ++k)
        check(MAP_NAME, c * MAPDIM + k, (int)m->map[c * MAPDIM + k], map_val(c, k));

  check_x(op_decl_dat_hdf5(nodes, 2, "double", file, X_NAME), X_NAME);

  op_dat f = op_decl_dat_hdf5(cells, 1, "float", file, F_NAME);
  check_present(f, F_NAME);
  if (f != nullptr)
    for (int c = 0; c < NCELL; ++c)
      check(F_NAME, c, ((const float *)f->data)[c], f_val(c));

  op_dat iv = op_decl_dat_hdf5(nodes, 3, "int", file, I_NAME);
  check_present(iv, I_NAME);
  if (iv != nullptr)
    for (int n = 0; n < NNODE; ++n)
      for (int k = 0; k < 3; ++k)
        check(I_NAME, n * 3 + k, ((const int *)iv->data)[n * 3 + k], i_val(n, k));

  check_l(op_decl_dat_hdf5(cells, 2, "long", file, L_NAME));

  op_dat ll = op_decl_dat_hdf5(cells, 1, "long long", file, LL_NAME);
  check_present(ll, LL_NAME);
  if (ll != nullptr)
    for (int c = 0; c < NCELL; ++c)
      check(LL_NAME, c, ((const long long *)ll->data)[c], ll_val(c));

  check_s(op_decl_dat_hdf5(nodes, 2, "double:soa", file, S_NAME));

  double gam = 0, qinf[4] = {0, 0, 0, 0}, cst[2] = {0, 0};
  int nint[2] = {0, 0};
  float fl[3] = {0, 0, 0};
  long lg[1] = {0};
  op_get_const_hdf5("gam", 1, "double", (char *)&gam, file);
  op_get_const_hdf5("qinf", 4, "double", (char *)qinf, file);
  op_get_const_hdf5("nint", 2, "int", (char *)nint, file);
  op_get_const_hdf5("fl", 3, "float", (char *)fl, file);
  op_get_const_hdf5("lg", 1, "long", (char *)lg, file);
  op_get_const_hdf5("fields/cst", 2, "double", (char *)cst, file);
  check("gam", 0, gam, C_GAM);
  for (int k = 0; k < 4; ++k)
    check("qinf", k, qinf[k], C_QINF[k]);
  for (int k = 0; k < 2; ++k)
    check("nint", k, nint[k], C_NINT[k]);
  for (int k = 0; k < 3; ++k)
    check("fl", k, fl[k], C_FL[k]);
  check("lg", 0, lg[0], C_LG[0]);
  for (int k = 0; k < 2; ++k)
    check("fields/cst", k, cst[k], C_CST[k]);
}

static void read_fetch(const char *file, op_set nodes, op_set cells) {
  check_l(op_decl_dat_hdf5(cells, 2, "long", file, L_NAME));
  check_s(op_decl_dat_hdf5(nodes, 2, "double:soa", file, S_NAME));
  check_x(op_decl_dat_hdf5(nodes, 2, "double", file, FETCH_PATH), FETCH_PATH);
}

int main(int argc, char **argv) {
  bool fetch = argc == 3 && strcmp(argv[1], "--fetch") == 0;
  if (argc != 2 && !fetch) {
    fprintf(stderr, "usage: %s [--fetch] FILE.h5\n", argv[0]);
    return 2;
  }
  const char *file = argv[argc - 1];
  op_init(0, nullptr, 0);
  op_set nodes, cells;
  if (fetch) {
    // the fetch file holds no set datasets: take the sizes from the dats
    nodes = op_decl_set_hdf5_infer_size(file, "nodes", S_NAME);
    cells = op_decl_set_hdf5_infer_size(file, "cells", L_NAME);
  } else {
    nodes = op_decl_set_hdf5(file, "nodes");
    cells = op_decl_set_hdf5(file, "cells");
  }
  check_set(nodes, NNODE);
  check_set(cells, NCELL);
  if (nodes != nullptr && cells != nullptr) {
    if (fetch)
      read_fetch(file, nodes, cells);
    else
      read_main(file, nodes, cells);
  }
  op_exit();
  if (g_bad != 0) {
    printf("reader: %s: %d of %ld values differ\n", file, g_bad, g_checked);
    return 1;
  }
  printf("reader: %s: %ld values ok\n", file, g_checked);
  return 0;
}
