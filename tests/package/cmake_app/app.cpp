// A small OP2 C++ application for the package tests: an indirect OP_INC loop
// over edges (scatter to both end nodes) and a direct loop with global
// OP_INC/OP_MAX reductions, checked against the same computation as plain
// loops. The data are small integers held in doubles, so every sum is exact
// in any order and the results must match exactly with any backend.
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include "op_seq.h"

// flux w * (x_a - x_b) added to node a and subtracted from node b
inline void edge_flux(const double *w, const double *xa, const double *xb, double *ra,
                      double *rb, double *total) {
  double f = *w * (*xa - *xb);
  *ra += f;
  *rb -= f;
  *total += *w;
}

inline void node_update(const double *r, double *x, double *sum, double *max) {
  *x += *r;
  *sum += *x;
  if (*x > *max)
    *max = *x;
}

int main(int argc, char **argv) {
  const int nnode = 1000, nedge = 3000;
  std::vector<int> edge_nodes(2 * nedge);
  std::vector<double> w(nedge), x(nnode), r(nnode, 0.0);
  for (int e = 0; e < nedge; ++e) {
    edge_nodes[2 * e] = e % nnode;
    edge_nodes[2 * e + 1] = (7 * e + 13) % nnode;
    w[e] = (double)(e % 5 + 1);
  }
  for (int n = 0; n < nnode; ++n)
    x[n] = (double)((n * 37) % 101 - 50);

  // plain loops
  std::vector<double> xr = x, rr(nnode, 0.0);
  double total_ref = 0.0, sum_ref = 0.0, max_ref = -1e300;
  for (int e = 0; e < nedge; ++e) {
    int a = edge_nodes[2 * e], b = edge_nodes[2 * e + 1];
    edge_flux(&w[e], &xr[a], &xr[b], &rr[a], &rr[b], &total_ref);
  }
  for (int n = 0; n < nnode; ++n)
    node_update(&rr[n], &xr[n], &sum_ref, &max_ref);

  // OP2
  op_init(argc, argv, 1);
  op_set nodes = op_decl_set(nnode, "nodes");
  op_set edges = op_decl_set(nedge, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, edge_nodes.data(), "pedge");
  op_dat p_w = op_decl_dat(edges, 1, "double", w.data(), "p_w");
  op_dat p_x = op_decl_dat(nodes, 1, "double", x.data(), "p_x");
  op_dat p_r = op_decl_dat(nodes, 1, "double", r.data(), "p_r");

  double total = 0.0, sum = 0.0, max = -1e300;
  op_par_loop(edge_flux, "edge_flux", edges, op_arg_dat(p_w, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(p_x, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(p_x, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(p_r, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(p_r, 1, pedge, 1, "double", OP_INC),
              op_arg_gbl(&total, 1, "double", OP_INC));
  op_par_loop(node_update, "node_update", nodes, op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(p_x, -1, OP_ID, 1, "double", OP_RW),
              op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&max, 1, "double", OP_MAX));
  op_fetch_data(p_x, x.data());

  int bad = 0;
  for (int n = 0; n < nnode; ++n)
    bad += x[n] != xr[n];
  bad += total != total_ref;
  bad += sum != sum_ref;
  bad += max != max_ref;
  op_printf("total %g (%g)  sum %g (%g)  max %g (%g)  node mismatches %d\n", total, total_ref,
            sum, sum_ref, max, max_ref, bad);
  op_exit();
  printf("%s\n", bad == 0 ? "PASSED" : "FAILED");
  return bad == 0 ? 0 : 1;
}
