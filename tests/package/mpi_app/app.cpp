// A small OP2 MPI application for the package tests.
//
// Every rank builds the same global mesh (nodes on a ring, edges joining
// scattered nodes), declares only its contiguous block of nodes and edges
// (map rows with GLOBAL node indices) and calls op_partition("PARMETIS",
// "KWAY", ...). Two steps of an indirect OP_INC loop over edges (reading
// node values through the map, so across the halo) and a direct loop over
// nodes with global OP_INC / OP_MAX reductions follow. The final node values
// (fetched in the original global order with op_fetch_data_idx) and the
// reductions are compared with plain loops over the global mesh, computed on
// every rank. Small integers in doubles: every sum is exact in any order, so
// the results must match exactly. Rank 0 prints PASSED; the exit status is 1
// on any mismatch.
#include <stdio.h>
#include <stdlib.h>

#include <vector>

#include <mpi.h>

#include "op_lib_mpi.h"
#include "op_seq.h"

// flux w * (x_a - x_b) added to node a and subtracted from node b
inline void edge_flux(const double *w, const double *xa, const double *xb, double *ra,
                      double *rb, double *total) {
  double f = *w * (*xa - *xb);
  *ra += f;
  *rb -= f;
  *total += *w;
}

// x += r, r = 0; sum and max of the new x
inline void node_update(double *r, double *x, double *sum, double *max) {
  *x += *r;
  *r = 0.0;
  *sum += *x;
  if (*x > *max)
    *max = *x;
}

static int block_size(int n, int nranks, int r) { return n / nranks + (r < n % nranks ? 1 : 0); }

static int block_start(int n, int nranks, int r) {
  int s = 0;
  for (int k = 0; k < r; ++k)
    s += block_size(n, nranks, k);
  return s;
}

int main(int argc, char **argv) {
  const int g_nnode = 1000, g_nedge = 3000, steps = 2;

  // the global mesh and initial values (the same on every rank)
  std::vector<int> g_edge(2 * g_nedge);
  std::vector<double> g_w(g_nedge), g_x(g_nnode);
  for (int e = 0; e < g_nedge; ++e) {
    g_edge[2 * e] = e % g_nnode;
    g_edge[2 * e + 1] = (7 * e + 13) % g_nnode;
    g_w[e] = (double)(e % 5 + 1);
  }
  for (int n = 0; n < g_nnode; ++n)
    g_x[n] = (double)((n * 37) % 101 - 50);

  // plain loops over the global mesh
  std::vector<double> xr = g_x, rr(g_nnode, 0.0);
  std::vector<double> total_ref(steps, 0.0), sum_ref(steps, 0.0), max_ref(steps, -1e300);
  for (int s = 0; s < steps; ++s) {
    for (int e = 0; e < g_nedge; ++e) {
      int a = g_edge[2 * e], b = g_edge[2 * e + 1];
      edge_flux(&g_w[e], &xr[a], &xr[b], &rr[a], &rr[b], &total_ref[s]);
    }
    for (int n = 0; n < g_nnode; ++n)
      node_update(&rr[n], &xr[n], &sum_ref[s], &max_ref[s]);
  }

  // OP2: this rank's blocks
  op_init(argc, argv, 0);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  const int nnode = block_size(g_nnode, nranks, rank), node0 = block_start(g_nnode, nranks, rank);
  const int nedge = block_size(g_nedge, nranks, rank), edge0 = block_start(g_nedge, nranks, rank);
  // one spare element: data() is never null
  std::vector<int> edge(g_edge.begin() + 2 * edge0, g_edge.begin() + 2 * (edge0 + nedge));
  std::vector<double> w(g_w.begin() + edge0, g_w.begin() + edge0 + nedge);
  std::vector<double> x(g_x.begin() + node0, g_x.begin() + node0 + nnode);
  std::vector<double> r(nnode, 0.0);
  edge.push_back(0);
  w.push_back(0.0);
  x.push_back(0.0);
  r.push_back(0.0);

  op_set nodes = op_decl_set(nnode, "nodes");
  op_set edges = op_decl_set(nedge, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, edge.data(), "pedge");
  op_dat p_w = op_decl_dat(edges, 1, "double", w.data(), "p_w");
  op_dat p_x = op_decl_dat(nodes, 1, "double", x.data(), "p_x");
  op_dat p_r = op_decl_dat(nodes, 1, "double", r.data(), "p_r");

  op_partition("PARMETIS", "KWAY", nodes, pedge, p_x);

  int bad = 0;
  for (int s = 0; s < steps; ++s) {
    double total = 0.0, sum = 0.0, max = -1e300;
    op_par_loop(edge_flux, "edge_flux", edges, op_arg_dat(p_w, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_x, 0, pedge, 1, "double", OP_READ),
                op_arg_dat(p_x, 1, pedge, 1, "double", OP_READ),
                op_arg_dat(p_r, 0, pedge, 1, "double", OP_INC),
                op_arg_dat(p_r, 1, pedge, 1, "double", OP_INC),
                op_arg_gbl(&total, 1, "double", OP_INC));
    op_par_loop(node_update, "node_update", nodes,
                op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(p_x, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&max, 1, "double", OP_MAX));
    const bool ok = total == total_ref[s] && sum == sum_ref[s] && max == max_ref[s];
    if (!ok) {
      printf("rank %d step %d: total %g (%g) sum %g (%g) max %g (%g)\n", rank, s, total,
             total_ref[s], sum, sum_ref[s], max, max_ref[s]);
      bad += 1;
    }
  }

  std::vector<double> xall(g_nnode);
  op_fetch_data_idx(p_x, xall.data(), 0, g_nnode - 1);
  int wrong = 0;
  for (int n = 0; n < g_nnode; ++n)
    wrong += xall[n] != xr[n];
  if (wrong > 0) {
    printf("rank %d: %d of %d node values differ\n", rank, wrong, g_nnode);
    bad += 1;
  }
  if (op_get_size(nodes) != g_nnode || op_get_size(edges) != g_nedge) {
    printf("rank %d: op_get_size: nodes %d edges %d\n", rank, (int)op_get_size(nodes),
           (int)op_get_size(edges));
    bad += 1;
  }

  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  op_printf("ranks %d  sum %g  max %g  mismatches %d\n", nranks, sum_ref[steps - 1],
            max_ref[steps - 1], any_bad);
  op_printf("%s\n", any_bad == 0 ? "PASSED" : "FAILED");
  op_exit();
  return any_bad == 0 ? 0 : 1;
}
