/*
 * renumber.c -- op_renumber / op_renumber_ptr on a small quad grid whose
 * nodes, cells and edges are numbered at random.  After the renumbering,
 * loops (indirect increments, indirect reads, a reduction) run on the
 * reordered mesh and every result is fetched and compared with the same
 * computation done by plain C loops on the declared (un-renumbered) arrays.
 * All values are small integers held in doubles, so sums are exact in any
 * order and the comparisons are exact.
 *
 * argv[1]: "renumber" (op_renumber(pecell)), "ptr" (op_renumber_ptr on the
 * edge -> cell array), "twice" (pecell, then pcell), "none" (no renumbering:
 * the control), or an error case: "null" (op_renumber(NULL)), "ptr_null",
 * "ptr_unknown" (an array no map was declared with), "empty" (a map whose
 * to-set is empty).  Prints PASS/FAIL lines; exit status 1 if a check failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_seq.h"

#define NX 24
#define NY 17
#define NN ((NX + 1) * (NY + 1))
#define NC (NX * NY)
#define NE ((NX - 1) * NY + NX * (NY - 1))

static int g_failures = 0;

static void check(const char *name, int ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    g_failures++;
}

/* a fixed pseudo-random permutation: perm[natural] = declared position */
static unsigned long g_seed = 88172645463325252UL;
static unsigned long next_rand(void) {
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 7;
  g_seed ^= g_seed << 17;
  return g_seed;
}
static void shuffle(int *perm, int n) {
  int i;
  for (i = 0; i < n; i++)
    perm[i] = i;
  for (i = n - 1; i > 0; i--) {
    int j = (int)(next_rand() % (unsigned long)(i + 1));
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

/* the mesh as declared (shuffled numbering) */
static double x[2 * NN];
static int cell_node[4 * NC], edge_node[2 * NE], edge_cell[2 * NE], cell_id[NC];
static double cell_w[NC];

static void make_mesh(void) {
  static int pn[NN], pc[NC], pe[NE];
  int i, j, e = 0;
  shuffle(pn, NN);
  shuffle(pc, NC);
  shuffle(pe, NE);
  for (j = 0; j <= NY; j++)
    for (i = 0; i <= NX; i++) {
      int n = pn[j * (NX + 1) + i];
      x[2 * n] = i;
      x[2 * n + 1] = 3 * j;
    }
  for (j = 0; j < NY; j++)
    for (i = 0; i < NX; i++) {
      int c = pc[j * NX + i];
      cell_node[4 * c] = pn[j * (NX + 1) + i];
      cell_node[4 * c + 1] = pn[j * (NX + 1) + i + 1];
      cell_node[4 * c + 2] = pn[(j + 1) * (NX + 1) + i + 1];
      cell_node[4 * c + 3] = pn[(j + 1) * (NX + 1) + i];
      cell_id[c] = j * NX + i;
      cell_w[c] = (double)((j * NX + i) % 7);
    }
  /* faces between horizontal and vertical neighbours */
  for (j = 0; j < NY; j++)
    for (i = 0; i < NX; i++) {
      if (i + 1 < NX) {
        int f = pe[e++];
        edge_cell[2 * f] = pc[j * NX + i];
        edge_cell[2 * f + 1] = pc[j * NX + i + 1];
        edge_node[2 * f] = pn[j * (NX + 1) + i + 1];
        edge_node[2 * f + 1] = pn[(j + 1) * (NX + 1) + i + 1];
      }
      if (j + 1 < NY) {
        int f = pe[e++];
        edge_cell[2 * f] = pc[j * NX + i];
        edge_cell[2 * f + 1] = pc[(j + 1) * NX + i];
        edge_node[2 * f] = pn[(j + 1) * (NX + 1) + i];
        edge_node[2 * f + 1] = pn[(j + 1) * (NX + 1) + i + 1];
      }
    }
}

/* kernels */
static void flux(const double *xa, const double *xb, const double *wa, const double *wb,
                 double *ra, double *rb) {
  double f = xa[0] + 2.0 * xb[0] + xa[1] - xb[1] + *wa - 3.0 * *wb;
  ra[0] += f;
  ra[1] += 1.0;
  rb[0] -= f;
  rb[1] += 1.0;
}
static void corners(const double *a, const double *b, const double *c, const double *d,
                    double *out, double *sum) {
  out[0] = a[0] + 2.0 * b[0] + 3.0 * c[0] + 4.0 * d[0];
  *sum += out[0] + a[1] - d[1];
}
static void copy_int(const int *a, int *b) { *b = *a; }

/* largest spread of a map's rows, read from the handle (what generated code sees) */
static int spread(op_map m) {
  int i, k, worst = 0;
  for (i = 0; i < m->from->size; i++) {
    int lo = m->map[i * m->dim], hi = lo;
    for (k = 1; k < m->dim; k++) {
      int v = m->map[i * m->dim + k];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    worst = hi - lo > worst ? hi - lo : worst;
  }
  return worst;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "renumber";
  static double res[2 * NC], out[NC], want_res[2 * NC], want_out[NC], got[2 * NC];
  static int late_in[NC], late_out[NC], ids[NC];
  static double x_copy[2 * NN];
  static int edge_cell_copy[2 * NE];
  double sum = 0.0, want_sum = 0.0;
  int i, before, after;
  op_set nodes, cells, edges, empty;
  op_map pedge, pecell, pcell, pempty;
  op_dat p_x, p_w, p_res, p_out, p_id, p_late, p_late_out;

  op_init(argc, argv, 0);
  make_mesh();
  memcpy(x_copy, x, sizeof x);
  memcpy(edge_cell_copy, edge_cell, sizeof edge_cell);

  nodes = op_decl_set(NN, "nodes");
  cells = op_decl_set(NC, "cells");
  edges = op_decl_set(NE, "edges");
  empty = op_decl_set(0, "empty");
  pedge = op_decl_map(edges, nodes, 2, edge_node, "pedge");
  pecell = op_decl_map(edges, cells, 2, edge_cell, "pecell");
  pcell = op_decl_map(cells, nodes, 4, cell_node, "pcell");
  pempty = op_decl_map(empty, empty, 1, NULL, "pempty");
  p_x = op_decl_dat(nodes, 2, "double", x, "p_x");
  p_w = op_decl_dat(cells, 1, "double", cell_w, "p_w");
  p_res = op_decl_dat(cells, 2, "double", res, "p_res");
  p_out = op_decl_dat(cells, 1, "double", out, "p_out");
  p_id = op_decl_dat(cells, 1, "int", cell_id, "p_id");

  before = spread(pecell);
  printf("BEFORE\n");
  if (strcmp(mode, "null") == 0)
    op_renumber(NULL);
  else if (strcmp(mode, "ptr_null") == 0)
    op_renumber_ptr(NULL);
  else if (strcmp(mode, "ptr_unknown") == 0)
    op_renumber_ptr(ids);
  else if (strcmp(mode, "empty") == 0)
    op_renumber(pempty);
  else if (strcmp(mode, "ptr") == 0)
    op_renumber_ptr(edge_cell);
  else if (strcmp(mode, "renumber") == 0)
    op_renumber(pecell);
  else if (strcmp(mode, "twice") == 0) {
    op_renumber(pecell);
    op_renumber(pcell);
  } else if (strcmp(mode, "none") != 0) {
    printf("unknown mode %s\n", mode);
    return 2;
  }
  if (strcmp(mode, "null") == 0 || strncmp(mode, "ptr_", 4) == 0 || strcmp(mode, "empty") == 0)
    printf("UNREACHABLE\n");
  after = spread(pecell);
  printf("spread of pecell: %d -> %d\n", before, after);
  if (strcmp(mode, "none") == 0)
    check("numbering_kept", after == before);
  else
    check("bandwidth_narrowed", 10 * after < before);

  /* a dat declared after the renumbering, in the declared numbering */
  for (i = 0; i < NC; i++)
    late_in[i] = 1000 + cell_id[i];
  p_late = op_decl_dat(cells, 1, "int", late_in, "p_late");
  p_late_out = op_decl_dat(cells, 1, "int", late_out, "p_late_out");

  /* the loops */
  op_par_loop(flux, "flux", edges, op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(p_x, 1, pedge, 2, "double", OP_READ),
              op_arg_dat(p_w, 0, pecell, 1, "double", OP_READ),
              op_arg_dat(p_w, 1, pecell, 1, "double", OP_READ),
              op_arg_dat(p_res, 0, pecell, 2, "double", OP_INC),
              op_arg_dat(p_res, 1, pecell, 2, "double", OP_INC));
  op_par_loop(corners, "corners", cells, op_arg_dat(p_x, 0, pcell, 2, "double", OP_READ),
              op_arg_dat(p_x, 1, pcell, 2, "double", OP_READ),
              op_arg_dat(p_x, 2, pcell, 2, "double", OP_READ),
              op_arg_dat(p_x, 3, pcell, 2, "double", OP_READ),
              op_arg_dat(p_out, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_gbl(&sum, 1, "double", OP_INC));
  op_par_loop(copy_int, "copy_int", cells, op_arg_dat(p_late, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(p_late_out, -1, OP_ID, 1, "int", OP_WRITE));

  /* the same on the declared arrays */
  memset(want_res, 0, sizeof want_res);
  for (i = 0; i < NE; i++) {
    const int a = edge_node[2 * i], b = edge_node[2 * i + 1];
    const int c0 = edge_cell[2 * i], c1 = edge_cell[2 * i + 1];
    flux(&x[2 * a], &x[2 * b], &cell_w[c0], &cell_w[c1], &want_res[2 * c0], &want_res[2 * c1]);
  }
  for (i = 0; i < NC; i++) {
    const int *q = &cell_node[4 * i];
    corners(&x[2 * q[0]], &x[2 * q[1]], &x[2 * q[2]], &x[2 * q[3]], &want_out[i], &want_sum);
  }

  op_fetch_data(p_res, got);
  check("indirect_increments", memcmp(got, want_res, sizeof want_res) == 0);
  op_fetch_data(p_out, got);
  check("indirect_reads", memcmp(got, want_out, sizeof want_out) == 0);
  check("reduction", sum == want_sum);
  op_fetch_data(p_id, ids);
  check("fetch_declared_order", memcmp(ids, cell_id, sizeof ids) == 0);
  memset(got, 0, sizeof got);
  op_fetch_data_idx(p_res, got, 10, 29);
  check("fetch_idx_declared_order", memcmp(got, &want_res[20], 20 * sizeof(double)) == 0);
  op_fetch_data(p_late_out, late_out);
  check("dat_declared_after", memcmp(late_out, late_in, sizeof late_out) == 0);
  check("user_arrays_untouched", memcmp(x, x_copy, sizeof x) == 0 &&
                                     memcmp(edge_cell, edge_cell_copy, sizeof edge_cell) == 0);
  /* the data as held: renumbered unless nothing was asked */
  {
    const int *held = (const int *)p_id->data;
    int same = memcmp(held, cell_id, sizeof cell_id) == 0;
    check("held_order", strcmp(mode, "none") == 0 ? same : !same);
  }

  op_exit();
  printf("DONE %d failures\n", g_failures);
  return g_failures != 0;
}
