/*
 * CUDA test (b): an indirect OP_INC loop over the edges of a quad mesh,
 * resolved with atomics (translator-v2's default for `cuda`), with a global
 * OP_INC, run twice (the residual accumulates), against a plain host loop.
 * Kernels in t2_indirect_atomics_kernels.cu.
 */
#include "op_lib_cpp.h"

#include "cuda_test_mesh.h"

void op_par_loop_edge_flux(char const *, op_set, op_arg, op_arg, op_arg, op_arg, op_arg, op_arg);

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

  std::vector<double> r_ref(2 * m.nnode, 0.0);
  bool ok = true;
  for (int step = 0; step < 2; ++step) {
    double total = 0.0;
    op_par_loop_edge_flux("edge_flux", edges, op_arg_dat(p_w, -1, OP_ID, 1, "double", OP_READ),
                          op_arg_dat(p_x, 0, pedge, 2, "double", OP_READ),
                          op_arg_dat(p_x, 1, pedge, 2, "double", OP_READ),
                          op_arg_dat(p_r, 0, pedge, 2, "double", OP_INC),
                          op_arg_dat(p_r, 1, pedge, 2, "double", OP_INC),
                          op_arg_gbl(&total, 1, "double", OP_INC));

    double total_ref = 0.0;
    for (int e = 0; e < m.nedge; ++e) {
      const int a = m.edge2node[2 * e], b = m.edge2node[2 * e + 1];
      for (int k = 0; k < 2; ++k) {
        const double f = w[e] * (x[2 * a + k] - x[2 * b + k]);
        r_ref[2 * a + k] += f;
        r_ref[2 * b + k] -= f;
      }
      total_ref += w[e] * (x[2 * a] - x[2 * b]) * (x[2 * a] - x[2 * b]);
    }
    char what[64];
    snprintf(what, sizeof what, "step %d: global OP_INC", step);
    ok &= check_values(what, &total, &total_ref, 1);
  }

  std::vector<double> r_got(2 * m.nnode);
  op_fetch_data(p_r, r_got.data());
  ok &= check_values("node residuals (atomic OP_INC)", r_got.data(), r_ref.data(), 2 * m.nnode);

  op_exit();
  return report("t2_indirect_atomics", ok);
}
