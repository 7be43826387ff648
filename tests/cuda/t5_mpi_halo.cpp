/*
 * CUDA + MPI test (e), for libop2_mpi_cuda (kernels in t5_mpi_halo_kernels.cu).
 *
 * Every rank builds the same global mesh (nodes on a ring, edges joining
 * scattered nodes), declares its contiguous block of nodes and edges (map
 * rows with global node indices) and calls op_partition. Two steps of an
 * indirect OP_INC edge loop (reads across the halo, atomics, global OP_INC)
 * and a direct node loop (global OP_INC and OP_MAX) follow. Node values,
 * fetched in the original global order with op_fetch_data_idx, and the
 * globals are compared with plain loops over the global mesh. Small integers
 * in doubles: exact in any order. Every rank prints its PASS/FAIL lines; the
 * exit status is 1 if any rank failed. Runs on one rank as well.
 */
/* the MPI C API only (OpenMPI's C++ bindings warn under -Wextra) */
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "op_lib_cpp.h"
#include "op_lib_mpi.h"

#include "cuda_test_mesh.h"

void op_par_loop_mpi_edge_flux(char const *, op_set, op_arg, op_arg, op_arg, op_arg, op_arg,
                               op_arg);
void op_par_loop_mpi_node_update(char const *, op_set, op_arg, op_arg, op_arg, op_arg);

static int block_len(int n, int nranks, int r) { return n / nranks + (r < n % nranks ? 1 : 0); }

static int block_first(int n, int nranks, int r) {
  int s = 0;
  for (int k = 0; k < r; ++k)
    s += block_len(n, nranks, k);
  return s;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  const int g_nnode = 1000, g_nedge = 3000, steps = 2;
  std::vector<int> g_edge(2 * g_nedge);
  std::vector<double> g_w(g_nedge), g_x(g_nnode);
  for (int e = 0; e < g_nedge; ++e) {
    g_edge[2 * e] = e % g_nnode;
    g_edge[2 * e + 1] = (7 * e + 13) % g_nnode;
    g_w[e] = (double)(e % 5 + 1);
  }
  for (int n = 0; n < g_nnode; ++n)
    g_x[n] = (double)((n * 37) % 101 - 50);

  /* reference: plain loops over the global mesh */
  std::vector<double> x_ref = g_x, r_ref(g_nnode, 0.0);
  std::vector<double> total_ref(steps, 0.0), sum_ref(steps, 0.0), max_ref(steps, -1e300);
  for (int s = 0; s < steps; ++s) {
    for (int e = 0; e < g_nedge; ++e) {
      const int a = g_edge[2 * e], b = g_edge[2 * e + 1];
      const double f = g_w[e] * (x_ref[a] - x_ref[b]);
      r_ref[a] += f;
      r_ref[b] -= f;
      total_ref[s] += g_w[e];
    }
    for (int n = 0; n < g_nnode; ++n) {
      x_ref[n] += r_ref[n];
      r_ref[n] = 0.0;
      sum_ref[s] += x_ref[n];
      if (x_ref[n] > max_ref[s])
        max_ref[s] = x_ref[n];
    }
  }

  /* this rank's blocks (one spare element each, so data() is never null) */
  const int nnode = block_len(g_nnode, nranks, rank), node0 = block_first(g_nnode, nranks, rank);
  const int nedge = block_len(g_nedge, nranks, rank), edge0 = block_first(g_nedge, nranks, rank);
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

  bool ok = true;
  for (int s = 0; s < steps; ++s) {
    double total = 0.0, sum = 0.0, max = -1e300;
    op_par_loop_mpi_edge_flux("mpi_edge_flux", edges,
                              op_arg_dat(p_w, -1, OP_ID, 1, "double", OP_READ),
                              op_arg_dat(p_x, 0, pedge, 1, "double", OP_READ),
                              op_arg_dat(p_x, 1, pedge, 1, "double", OP_READ),
                              op_arg_dat(p_r, 0, pedge, 1, "double", OP_INC),
                              op_arg_dat(p_r, 1, pedge, 1, "double", OP_INC),
                              op_arg_gbl(&total, 1, "double", OP_INC));
    op_par_loop_mpi_node_update("mpi_node_update", nodes,
                                op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_RW),
                                op_arg_dat(p_x, -1, OP_ID, 1, "double", OP_RW),
                                op_arg_gbl(&sum, 1, "double", OP_INC),
                                op_arg_gbl(&max, 1, "double", OP_MAX));
    char what[96];
    snprintf(what, sizeof what, "rank %d step %d: edge weight total (OP_INC)", rank, s);
    ok &= check_values(what, &total, &total_ref[s], 1, 0.0);
    snprintf(what, sizeof what, "rank %d step %d: node sum (OP_INC)", rank, s);
    ok &= check_values(what, &sum, &sum_ref[s], 1, 0.0);
    snprintf(what, sizeof what, "rank %d step %d: node max (OP_MAX)", rank, s);
    ok &= check_values(what, &max, &max_ref[s], 1, 0.0);
  }

  std::vector<double> x_got(g_nnode);
  op_fetch_data_idx(p_x, x_got.data(), 0, g_nnode - 1);
  char what[64];
  snprintf(what, sizeof what, "rank %d: node values", rank);
  ok &= check_values(what, x_got.data(), x_ref.data(), g_nnode, 0.0);

  int bad = ok ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  op_exit();
  return report("t5_mpi_halo", any_bad == 0);
}
