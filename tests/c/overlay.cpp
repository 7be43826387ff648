// overlay.cpp -- op_decl_dat_overlay(_ptr), OP_NO_REALLOC and OP2's helpers
// for reaching library-held data (op_get_data_ptr ... op_halo_create), on a
// single-node library. Every check compares with values computed here by
// plain loops. Prints PASS/FAIL lines.
//
//   overlay              the checks
//   overlay OP_NO_REALLOC   the same with OP2's switch (dats use the arrays)
//   overlay bad-<what>   one bad call (prints BEFORE first)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_seq.h"
#include "op_util.h"

static int failures = 0;

static void report(const char *name, bool ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    ++failures;
}

static void add100(double *x) {
  x[0] += 100.0;
  x[1] += 100.0;
}
static void twice(double *x) {
  x[0] *= 2.0;
  x[1] *= 2.0;
}
static void sum1(const double *x, double *s) { *s += x[0]; }
static void inc_int(int *v) { *v += 1; }

static bool file_text(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
  return true;
}

static void bad(const char *what, op_set nodes, op_set half, op_dat x, double *xarr, int *iarr) {
  if (!strcmp(what, "bad-big")) {
    op_dat h = op_decl_dat(half, 2, "double", xarr, "on_half");
    printf("BEFORE\n");
    fflush(stdout);
    op_decl_dat_overlay(nodes, h);
  } else if (!strcmp(what, "bad-free")) {
    op_dat t = op_decl_dat_temp(nodes, 1, "double", (double *)NULL, "tmp");
    op_decl_dat_overlay(half, t);
    printf("BEFORE\n");
    fflush(stdout);
    op_free_dat_temp(t);
  } else if (!strcmp(what, "bad-mode")) {
    printf("BEFORE\n");
    fflush(stdout);
    op_reset_data_ptr((char *)xarr, 3);
  } else if (!strcmp(what, "bad-wrongset")) {
    printf("BEFORE\n");
    fflush(stdout);
    op_dat_write_index(half, iarr);
  } else if (!strcmp(what, "bad-ptr")) {
    double other[2];
    printf("BEFORE\n");
    fflush(stdout);
    op_decl_dat_overlay_ptr(half, (char *)other);
  }
  (void)x;
  printf("UNREACHABLE\n");
}

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  const bool no_realloc = argc > 1 && !strcmp(argv[1], "OP_NO_REALLOC");
  const int N = 6, H = 4;
  double xarr[2 * N], yarr[2 * N];
  int iarr[N], marr[2 * H], zarr[N];
  for (int i = 0; i < 2 * N; ++i) {
    xarr[i] = 10.0 * (i / 2) + (i % 2);
    yarr[i] = -xarr[i];
  }
  for (int i = 0; i < N; ++i) {
    iarr[i] = -1;
    zarr[i] = 7 * i;
  }
  for (int e = 0; e < H; ++e) {
    marr[2 * e] = e;
    marr[2 * e + 1] = (e + 2) % N;
  }
  op_set nodes = op_decl_set(N, "nodes");
  op_set half = op_decl_set(H, "half");
  op_map m = op_decl_map(half, nodes, 2, marr, "m");
  op_dat x = op_decl_dat(nodes, 2, "double", xarr, "x");
  op_dat y = op_decl_dat(nodes, 2, "double", yarr, "y");
  op_dat idx = op_decl_dat(nodes, 1, "int", iarr, "idx");
  op_dat z = op_decl_dat(nodes, 1, "int", zarr, "z");

  if (argc > 1 && !strncmp(argv[1], "bad-", 4)) {
    bad(argv[1], nodes, half, x, xarr, iarr);
    op_exit();
    return 1;
  }

  // ---- OP_NO_REALLOC: the dat lives in the application's array ----
  op_par_loop(inc_int, "inc_int", nodes, op_arg_dat(z, -1, OP_ID, 1, "int", OP_RW));
  {
    bool ok = true;
    for (int i = 0; i < N; ++i)
      ok = ok && zarr[i] == (no_realloc ? 7 * i + 1 : 7 * i);
    int got[N];
    op_fetch_data(z, got);
    for (int i = 0; i < N; ++i)
      ok = ok && got[i] == 7 * i + 1;
    ok = ok && (z->data == (char *)zarr) == no_realloc && z->user_managed == (no_realloc ? 1 : 0);
    ok = ok && OP_realloc == (no_realloc ? 0 : 1);
    report("no_realloc", ok);
  }

  // ---- overlays share storage ----
  op_dat ov = op_decl_dat_overlay(half, x);
  {
    bool ok = ov->data == x->data && ov->set == half && ov->dim == 2 && ov->size == 16 &&
              !strcmp(ov->name, "x") && !strcmp(ov->type, "double") && ov != x;
    report("overlay_fields", ok);
  }
  double ref[2 * N];
  memcpy(ref, xarr, sizeof ref);
  op_par_loop(add100, "add100", half, op_arg_dat(ov, -1, OP_ID, 2, "double", OP_RW));
  for (int i = 0; i < 2 * H; ++i)
    ref[i] += 100.0;
  {
    double got[2 * N];
    op_fetch_data(x, got);
    report("overlay_write_seen_by_dat", memcmp(got, ref, sizeof got) == 0);
  }
  op_par_loop(twice, "twice", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_RW));
  for (int i = 0; i < 2 * N; ++i)
    ref[i] *= 2.0;
  {
    double got[2 * H];
    op_fetch_data(ov, got);
    report("dat_write_seen_by_overlay", memcmp(got, ref, sizeof got) == 0);
  }
  {
    op_dat ov2 = op_decl_dat_overlay(half, ov);
    op_dat ovp = op_decl_dat_overlay_ptr(half, (char *)xarr);
    // overlays are filed under their index, as in OP2
    op_dat ovi = op_decl_dat_overlay_ptr(half, (char *)(unsigned long)ov->index);
    double s = 0.0, sref = 0.0;
    op_par_loop(sum1, "sum1", half, op_arg_dat(ovp, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(&s, 1, "double", OP_INC));
    for (int i = 0; i < H; ++i)
      sref += ref[2 * i];
    report("overlay_of_overlay_and_ptr",
           ov2->data == x->data && ovp->data == x->data && ovi->data == x->data && s == sref);
  }

  // ---- data and map pointers ----
  {
    bool ok = op_get_data_ptr(x) == (unsigned long)x->data;
    ok = ok && op_get_data_ptr2((unsigned long)yarr) == (unsigned long)y->data;
    unsigned long k = op_reset_data_ptr((char *)yarr, 2);
    ok = ok && k == (unsigned long)y->data && op_get_data_ptr2(k) == (unsigned long)y->data;
    unsigned long k1 = op_reset_data_ptr((char *)y->data, 1);
    ok = ok && k1 == (unsigned long)y->index && op_get_data_ptr2(k1) == (unsigned long)y->data;
    report("data_ptr", ok);
  }
  {
    bool ok = op_get_map_ptr(m) == (unsigned long)m->map;
    int *fort = (int *)op_copy_map_to_fort(marr);
    for (int i = 0; i < 2 * H; ++i)
      ok = ok && fort[i] == marr[i] + 1;
    // the copy names the map (Fortran's raw-array op_arg_dat)
    op_arg a = op_arg_dat_ptr(1, (char *)xarr, 1, fort, 2, "double", OP_READ);
    ok = ok && a.map == m && a.dat == x && a.idx == 1;
    unsigned long p = op_reset_map_ptr(marr);
    ok = ok && p == (unsigned long)m->map;
    op_force_part((int *)p);
    ok = ok && m->force_part;
    report("map_ptr", ok);
  }

  // ---- set registry, global index, copies in original order ----
  {
    op_register_set(7, half);
    op_register_set(3, nodes);
    report("set_registry", op_get_set(7) == half && op_get_set(3) == nodes &&
                               op_get_set(8) == NULL && op_get_set(-1) == NULL);
    report("g_index_single_node", op_get_g_index(nodes) == 0);
  }
  {
    double got[2 * N];
    op_fetch_data(x, got);
    op_dat t = op_mpi_get_data(x);
    bool ok = t->set->size == N && t->dim == 2 && t->size == 16 && !strcmp(t->name, "x") &&
              memcmp(t->data, got, sizeof got) == 0 && t->data != x->data;
    op_mpi_free_data(t);
    op_dat f = op_fetch_data_file_char(x);
    ok = ok && f->set->size == N && memcmp(f->data, got, sizeof got) == 0;
    // OP2's own code frees the copy piece by piece
    free(f->data);
    free(f->set);
    free(f);
    report("mpi_get_data", ok);
  }
  {
    double before[2 * N], after[2 * N];
    op_fetch_data(x, before);
    op_get_dat_mpi(x);
    op_put_dat_mpi(x);
    op_fetch_data(x, after);
    report("get_put_dat_mpi", memcmp(before, after, sizeof before) == 0);
  }
  {
    op_dat_write_index(nodes, iarr);
    int got[N];
    op_fetch_data(idx, got);
    bool ok = true;
    for (int i = 0; i < N; ++i)
      ok = ok && got[i] == i + 1;
    op_print_dat_to_txtfile2(iarr, "idx2.txt");
    op_print_dat_to_txtfile(idx, "idx_ref.txt");
    char a[512], b[512];
    ok = ok && file_text("idx2.txt", a, sizeof a) && file_text("idx_ref.txt", b, sizeof b) &&
         !strcmp(a, b) && strstr(a, "6") != NULL;
    report("write_index_and_txtfile2", ok);
  }

  // ---- switches: one node has nothing to disable ----
  {
    op_disable_mpi_reductions(true);
    double s = 0.0, sref = 0.0;
    double got[2 * N];
    op_fetch_data(x, got);
    op_par_loop(sum1, "sum1", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(&s, 1, "double", OP_INC));
    for (int i = 0; i < N; ++i)
      sref += got[2 * i];
    bool ok = OP_disable_mpi_reductions == 1 && s == sref;
    op_disable_mpi_reductions(false);
    ok = ok && OP_disable_mpi_reductions == 0;
    op_disable_device_execution(true);
    op_par_loop(twice, "twice", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_RW));
    op_disable_device_execution(false);
    double after[2 * N];
    op_fetch_data(x, after);
    for (int i = 0; i < 2 * N; ++i)
      ok = ok && after[i] == 2.0 * got[i];
    report("disable_switches", ok);
  }

  // ---- op_util.h and halos (none on one node) ----
  {
    bool ok = compute_local_size(10, 3, 0) == 4 && compute_local_size(10, 3, 1) == 3 &&
              compute_local_size(10, 3, 2) == 3 && compute_local_size(0, 2, 1) == 0 &&
              compute_local_size(7, 7, 6) == 1 && compute_local_size(5, 8, 7) == 0 &&
              compute_local_size(5, 0, 0) == 0;
    int total = 0;
    for (int r = 0; r < 4; ++r)
      total += compute_local_size(1001, 4, r);
    report("compute_local_size", ok && total == 1001);
    double before[2 * N], after[2 * N];
    op_fetch_data(x, before);
    op_halo_create();
    op_arg args[1] = {op_arg_dat(x, 0, m, 2, "double", OP_READ)};
    op_mpi_reset_halos(1, args);
    op_fetch_data(x, after);
    report("halos_single_node", memcmp(before, after, sizeof before) == 0 && nodes->size == N &&
                                    nodes->exec_size == 0 && !isnan(after[0]));
  }

  op_exit();
  return failures ? 1 : 0;
}
