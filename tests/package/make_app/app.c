/* A small OP2 C99 application for the package tests: an indirect OP_INC loop
 * over edges and a direct loop with global OP_INC/OP_MAX reductions, checked
 * against plain loops. Small integers in doubles: every sum is exact in any
 * order, so the results must match exactly with any backend. */
#include <stdio.h>
#include <stdlib.h>

#include "op_seq.h"

#define NNODE 1000
#define NEDGE 3000

static void edge_flux(const double *w, const double *xa, const double *xb, double *ra,
                      double *rb, double *total) {
  double f = *w * (*xa - *xb);
  *ra += f;
  *rb -= f;
  *total += *w;
}

static void node_update(const double *r, double *x, double *sum, double *max) {
  *x += *r;
  *sum += *x;
  if (*x > *max)
    *max = *x;
}

static int edge_nodes[2 * NEDGE];
static double w[NEDGE], x[NNODE], r[NNODE], xr[NNODE], rr[NNODE];

int main(int argc, char **argv) {
  double total_ref = 0.0, sum_ref = 0.0, max_ref = -1e300;
  double total = 0.0, sum = 0.0, max = -1e300;
  op_set nodes, edges;
  op_map pedge;
  op_dat p_w, p_x, p_r;
  int e, n, bad = 0;

  for (e = 0; e < NEDGE; ++e) {
    edge_nodes[2 * e] = e % NNODE;
    edge_nodes[2 * e + 1] = (7 * e + 13) % NNODE;
    w[e] = (double)(e % 5 + 1);
  }
  for (n = 0; n < NNODE; ++n) {
    x[n] = xr[n] = (double)((n * 37) % 101 - 50);
    r[n] = rr[n] = 0.0;
  }

  /* plain loops */
  for (e = 0; e < NEDGE; ++e) {
    int a = edge_nodes[2 * e], b = edge_nodes[2 * e + 1];
    edge_flux(&w[e], &xr[a], &xr[b], &rr[a], &rr[b], &total_ref);
  }
  for (n = 0; n < NNODE; ++n)
    node_update(&rr[n], &xr[n], &sum_ref, &max_ref);

  /* OP2 */
  op_init(argc, argv, 1);
  nodes = op_decl_set(NNODE, "nodes");
  edges = op_decl_set(NEDGE, "edges");
  pedge = op_decl_map(edges, nodes, 2, edge_nodes, "pedge");
  p_w = op_decl_dat(edges, 1, "double", w, "p_w");
  p_x = op_decl_dat(nodes, 1, "double", x, "p_x");
  p_r = op_decl_dat(nodes, 1, "double", r, "p_r");

  op_par_loop(edge_flux, "edge_flux", edges, op_arg_dat(p_w, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(p_x, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(p_x, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(p_r, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(p_r, 1, pedge, 1, "double", OP_INC),
              op_arg_gbl(&total, 1, "double", OP_INC));
  op_par_loop(node_update, "node_update", nodes, op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(p_x, -1, OP_ID, 1, "double", OP_RW),
              op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&max, 1, "double", OP_MAX));
  op_fetch_data(p_x, x);

  for (n = 0; n < NNODE; ++n)
    bad += x[n] != xr[n];
  bad += total != total_ref;
  bad += sum != sum_ref;
  bad += max != max_ref;
  op_printf("total %g (%g)  sum %g (%g)  max %g (%g)  mismatches %d\n", total, total_ref, sum,
            sum_ref, max, max_ref, bad);
  op_exit();
  printf("%s\n", bad == 0 ? "PASSED" : "FAILED");
  return bad == 0 ? 0 : 1;
}
