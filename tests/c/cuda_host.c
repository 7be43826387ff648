/* libop2_cuda's host-side logic, run on a device simulated in host memory
 * (OP2_RS_DEVICE=host): device pointers are host addresses there, so this
 * program can check every copy the library makes, and play the part of
 * generated CUDA code by writing "device" memory itself. Each check prints
 * PASS <name> or FAIL <name>; the references are plain loops written here.
 *
 * Checked: device copies made at declaration (AoS dats, SoA dats with OP2's
 * round32 stride, maps transposed), the op_arg device fields, the dirty_hd
 * state through generated-code calls (op_mpi_halo_exchanges_grouped with
 * device 2, op_mpi_set_dirtybit_cuda), op_fetch_data, host loops through
 * op_par_loop, op_upload_dat/op_download_dat, the reduction scratch buffers,
 * plan upload (a COLOR2 plan's col_reord on the device), and op_decl_const
 * forwarded to the program's own op_decl_const_char (as generated code
 * defines it). */
#include "op_seq.h"

#include <stdio.h>
#include <string.h>

void reallocReductArrays(int reduct_bytes);
void mvReductArraysToDevice(int reduct_bytes);
void mvReductArraysToHost(int reduct_bytes);
void op_upload_dat(op_dat dat);
void op_download_dat(op_dat dat);
extern char *OP_reduct_h, *OP_reduct_d;
extern int OP_hybrid_gpu;

static int failures = 0;
static void check(int ok, const char *name) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    failures++;
}

/* Generated CUDA code defines op_decl_const_char; the CUDA library does not. */
static int const_calls = 0;
static double const_seen = 0.0;
void op_decl_const_char(int dim, const char *type, int size, char *dat, const char *name) {
  (void)type;
  (void)size;
  if (dim == 1 && name != NULL && strstr(name, "alpha") != NULL) {
    const_calls++;
    memcpy(&const_seen, dat, sizeof(double));
  }
}

#define NN 5
#define NE 4
#define STRIDE 32 /* round32(NN) */

static void add_one(double *x) {
  x[0] += 1.0;
  x[1] += 1.0;
}
static void sum_x(const double *x, double *s) { *s += x[0] + x[1]; }

static double dev_at(op_dat d, int i) { return ((const double *)d->data_d)[i]; }

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  check(OP_hybrid_gpu == 1, "hybrid_gpu");

  int pedge[2 * NE] = {0, 1, 1, 2, 2, 3, 3, 4};
  double x0[2 * NN], y0[3 * NN];
  for (int i = 0; i < 2 * NN; i++)
    x0[i] = 0.5 * i;
  for (int i = 0; i < 3 * NN; i++)
    y0[i] = 100.0 + i;
  op_set nodes = op_decl_set(NN, "nodes");
  op_set edges = op_decl_set(NE, "edges");
  op_map m = op_decl_map(edges, nodes, 2, pedge, "pedge");
  op_dat x = op_decl_dat(nodes, 2, "double", x0, "x");
  op_dat y = op_decl_dat(nodes, 3, "double:soa", y0, "y");

  /* Declaration: AoS copy, SoA copy with stride round32(size), map transposed. */
  check(x->data_d != NULL && x->data_d != x->data &&
            memcmp(x->data_d, x->data, sizeof x0) == 0 && x->dirty_hd == 0,
        "decl_aos_copy");
  int soa_ok = y->data_d != NULL;
  for (int c = 0; c < 3 && soa_ok; c++)
    for (int e = 0; e < STRIDE; e++)
      soa_ok &= dev_at(y, c * STRIDE + e) == (e < NN ? y0[3 * e + c] : 0.0);
  check(soa_ok, "decl_soa_copy");
  int map_ok = m->map_d != NULL;
  for (int j = 0; j < 2 && map_ok; j++)
    for (int e = 0; e < NE; e++)
      map_ok &= m->map_d[j * STRIDE + e] == pedge[2 * e + j];
  check(map_ok, "decl_map_transposed");

  op_arg a = op_arg_dat(x, 0, m, 2, "double", OP_INC);
  check(a.data_d == x->data_d && a.map_data_d == m->map_d, "arg_device_fields");

  /* A device loop (generated code's calls) writes x on the device. */
  op_arg args[1] = {op_arg_dat(x, -1, OP_ID, 2, "double", OP_RW)};
  int n = op_mpi_halo_exchanges_grouped(nodes, 1, args, 2);
  double *xd = (double *)x->data_d;
  for (int i = 0; i < 2 * NN; i++)
    xd[i] = 10.0 * i;
  op_mpi_set_dirtybit_cuda(1, args);
  check(n == NN && x->dirty_hd == 2, "device_write_marks_dirty_hd_2");
  double got[2 * NN];
  op_fetch_data(x, got);
  int fetch_ok = x->dirty_hd == 0;
  for (int i = 0; i < 2 * NN; i++)
    fetch_ok &= got[i] == 10.0 * i;
  check(fetch_ok, "fetch_downloads_device_copy");
  /* The host copy is now fresh: a second fetch copies nothing. */
  xd[0] = -1.0;
  op_fetch_data(x, got);
  check(got[0] == 0.0, "fetch_never_downloads_twice");
  xd[0] = 0.0;

  /* A host loop (op_par_loop) writes x: host newer, then a device loop uploads. */
  op_par_loop(add_one, "add_one", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_RW));
  check(x->dirty_hd == 1, "host_loop_marks_dirty_hd_1");
  op_mpi_halo_exchanges_grouped(nodes, 1, args, 2);
  int up_ok = x->dirty_hd == 0;
  for (int i = 0; i < 2 * NN; i++)
    up_ok &= dev_at(x, i) == 10.0 * i + 1.0;
  check(up_ok, "device_loop_uploads_host_copy");

  /* A device write, then a host loop reading x sees the device values. */
  for (int i = 0; i < 2 * NN; i++)
    xd[i] = 2.0;
  op_mpi_set_dirtybit_cuda(1, args);
  double s = 0.0;
  op_par_loop(sum_x, "sum_x", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_READ),
              op_arg_gbl(&s, 1, "double", OP_INC));
  check(s == 2.0 * 2 * NN && x->dirty_hd == 0, "host_loop_downloads_first");

  /* SoA device write, fetched back in AoS order. */
  op_arg ya[1] = {op_arg_dat(y, -1, OP_ID, 3, "double:soa", OP_WRITE)};
  op_mpi_halo_exchanges_grouped(nodes, 1, ya, 2);
  double *yd = (double *)y->data_d;
  for (int c = 0; c < 3; c++)
    for (int e = 0; e < NN; e++)
      yd[c * STRIDE + e] = 1000.0 * c + e;
  op_mpi_set_dirtybit_cuda(1, ya);
  double yg[3 * NN];
  op_fetch_data(y, yg);
  int soa_back = 1;
  for (int e = 0; e < NN; e++)
    for (int c = 0; c < 3; c++)
      soa_back &= yg[3 * e + c] == 1000.0 * c + e;
  check(soa_back, "soa_device_write_fetched_aos");

  /* Expanded vector args of generated code name a :soa dat by its C type. */
  op_arg plain = op_arg_dat(y, -1, OP_ID, 3, "double", OP_READ);
  check(plain.data_d == y->data_d, "soa_dat_arg_with_c_type");

  /* Printing reads the host copy: a device write is downloaded first. */
  for (int e = 0; e < NN; e++)
    yd[2 * STRIDE + e] = -5.0;
  op_mpi_set_dirtybit_cuda(1, ya);
  op_print_dat_to_txtfile(y, "cuda_host_y.txt");
  FILE *f = fopen("cuda_host_y.txt", "r");
  int printed = 0;
  if (f != NULL) {
    char line[256];
    while (fgets(line, sizeof line, f) != NULL)
      printed += strstr(line, "-5.0") != NULL;
    fclose(f);
  }
  check(y->dirty_hd == 0 && printed >= NN, "print_dat_downloads_first");
  double part[3 * 2];
  op_fetch_data_idx(y, part, 1, 2);
  check(part[2] == -5.0 && part[5] == -5.0 && part[0] == 1.0, "fetch_idx_after_device_write");

  /* Explicit transfers. */
  ((double *)x->data)[0] = 42.0;
  op_upload_dat(x);
  check(dev_at(x, 0) == 42.0 && x->dirty_hd == 0, "op_upload_dat");
  xd[1] = 43.0;
  op_download_dat(x);
  check(((double *)x->data)[1] == 43.0, "op_download_dat");

  /* Reduction scratch: paired buffers, copies both ways, growth. */
  reallocReductArrays(64);
  char *h1 = OP_reduct_h, *d1 = OP_reduct_d;
  int red_ok = h1 != NULL && d1 != NULL && h1 != d1;
  for (int i = 0; i < 8; i++)
    ((double *)OP_reduct_d)[i] = i + 0.25;
  mvReductArraysToHost(64);
  for (int i = 0; i < 8; i++)
    red_ok &= ((double *)OP_reduct_h)[i] == i + 0.25;
  ((double *)OP_reduct_h)[3] = -7.0;
  mvReductArraysToDevice(64);
  red_ok &= ((double *)OP_reduct_d)[3] == -7.0;
  reallocReductArrays(200); /* within 4 x 64: kept */
  red_ok &= OP_reduct_h == h1 && OP_reduct_d == d1;
  reallocReductArrays(257); /* beyond: new buffers */
  red_ok &= OP_reduct_h != NULL && OP_reduct_d != NULL && OP_reduct_d != d1;
  check(red_ok, "reduction_scratch");

  /* A COLOR2 plan: col_reord on the device is a permutation in which no two
     edges of one colour share a node. */
  op_arg pa[2] = {op_arg_dat(x, 0, m, 2, "double", OP_INC), op_arg_dat(x, 1, m, 2, "double", OP_INC)};
  int inds[2] = {0, 0};
  op_plan *p = op_plan_get_stage("inc", edges, 0, 2, pa, 1, inds, OP_COLOR2);
  int plan_ok = p != NULL && p->col_reord != NULL && p->ncolors > 0;
  int seen[NE] = {0};
  for (int col = 0; plan_ok && col < p->ncolors; col++) {
    int touched[NN] = {0};
    for (int i = p->col_offsets[0][col]; i < p->col_offsets[0][col + 1]; i++) {
      int e = p->col_reord[i];
      plan_ok &= e >= 0 && e < NE && !seen[e];
      if (!plan_ok)
        break;
      seen[e] = 1;
      plan_ok &= !touched[pedge[2 * e]] && !touched[pedge[2 * e + 1]];
      touched[pedge[2 * e]] = touched[pedge[2 * e + 1]] = 1;
    }
  }
  for (int e = 0; e < NE; e++)
    plan_ok &= seen[e];
  check(plan_ok, "plan_color2_uploaded");

  /* Constants reach the program's op_decl_const_char. */
  double alpha = 0.125;
  op_decl_const(1, "double", &alpha);
  check(const_calls == 1 && const_seen == 0.125, "decl_const_forwarded");

  op_exit();
  printf("%d failures\n", failures);
  return failures != 0;
}
