/*
 * CUDA test (c): the edge increment loop of t2 run by colours
 * (op_plan_get_stage with OP_COLOR2, kernels in t3_indirect_colour_kernels.cu),
 * checked against a plain host loop. The plan itself is checked too: the
 * colour ranges col_offsets[0] cover the edges, the device array col_reord is
 * a permutation of them, and no two edges of one colour share a node.
 * Includes op_cuda_rt_support.h to read the device array (compile with the
 * CUDA include directory).
 */
#include "op_lib_cpp.h"
#include "op_cuda_rt_support.h"

#include "cuda_test_mesh.h"

void op_par_loop_edge_flux_col(char const *, op_set, op_arg, op_arg, op_arg, op_arg, op_arg);

static bool check_colour_plan(const QuadMesh &m, op_set edges, op_arg *args) {
  int dats_indirect[5] = {-1, 0, 0, 1, 1};
  /* the plan the loop used (same name, set, part size and arguments) */
  op_plan *plan =
      op_plan_get_stage("edge_flux_col", edges, OP_part_size, 5, args, 2, dats_indirect, OP_COLOR2);
  const int n = edges->size + edges->exec_size;
  if (plan->ncolors < 1 || plan->col_offsets[0][0] != 0 ||
      plan->col_offsets[0][plan->ncolors] != n) {
    printf("FAIL colour plan: %d colours, offsets do not cover the %d edges\n", plan->ncolors, n);
    return false;
  }
  std::vector<int> order(n);
  cutilSafeCall(cudaMemcpy(order.data(), plan->col_reord, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> seen(n, 0), node_colour(m.nnode, -1);
  for (int col = 0; col < plan->ncolors; ++col) {
    for (int i = plan->col_offsets[0][col]; i < plan->col_offsets[0][col + 1]; ++i) {
      const int e = order[i];
      if (e < 0 || e >= n || seen[e]++) {
        printf("FAIL colour plan: col_reord[%d] = %d is not a permutation entry\n", i, e);
        return false;
      }
      for (int c = 0; c < 2; ++c) {
        const int node = m.edge2node[2 * e + c];
        if (node_colour[node] == col) {
          printf("FAIL colour plan: node %d incremented twice in colour %d\n", node, col);
          return false;
        }
        node_colour[node] = col;
      }
    }
  }
  printf("PASS colour plan (%d colours, %d edges)\n", plan->ncolors, n);
  return true;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 1);

  QuadMesh m = make_quad_mesh(40, 30);
  std::vector<double> w(m.nedge), x(2 * m.nnode), r(2 * m.nnode, 0.0);
  for (int e = 0; e < m.nedge; ++e)
    w[e] = (double)(e % 5 + 1);
  for (int i = 0; i < m.nnode; ++i) {
    x[2 * i] = test_value(i, 3);
    x[2 * i + 1] = test_value(i, 4);
  }

  op_set nodes = op_decl_set(m.nnode, "nodes");
  op_set edges = op_decl_set(m.nedge, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, m.edge2node.data(), "pedge");
  op_dat p_w = op_decl_dat(edges, 1, "double", w.data(), "p_w");
  op_dat p_x = op_decl_dat(nodes, 2, "double", x.data(), "p_x");
  op_dat p_r = op_decl_dat(nodes, 2, "double", r.data(), "p_r");

  op_arg args[5] = {op_arg_dat(p_w, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
                    op_arg_dat(p_x, 1, pedge, 2, "double", OP_READ),
                    op_arg_dat(p_r, 0, pedge, 2, "double", OP_INC),
                    op_arg_dat(p_r, 1, pedge, 2, "double", OP_INC)};
  for (int step = 0; step < 2; ++step)
    op_par_loop_edge_flux_col("edge_flux_col", edges, args[0], args[1], args[2], args[3],
                              args[4]);

  std::vector<double> r_ref(2 * m.nnode, 0.0);
  for (int step = 0; step < 2; ++step)
    for (int e = 0; e < m.nedge; ++e) {
      const int a = m.edge2node[2 * e], b = m.edge2node[2 * e + 1];
      for (int k = 0; k < 2; ++k) {
        const double f = w[e] * (x[2 * a + k] - x[2 * b + k]);
        r_ref[2 * a + k] += f;
        r_ref[2 * b + k] -= f;
      }
    }

  bool ok = check_colour_plan(m, edges, args);
  std::vector<double> r_got(2 * m.nnode);
  op_fetch_data(p_r, r_got.data());
  ok &= check_values("node residuals (coloured OP_INC)", r_got.data(), r_ref.data(), 2 * m.nnode);

  op_exit();
  return report("t3_indirect_colour", ok);
}
