/*
 * CUDA test (d): SoA ("double:soa") and AoS ("double") dats in one indirect
 * loop over the cells of a quad mesh (kernels in t4_soa_aos_kernels.cu): a
 * vector read of SoA node coordinates, a direct SoA read-write, a direct AoS
 * write, an SoA and an AoS OP_INC through the cell->node map (atomics).
 * Run twice; results fetched (in AoS order, as op_fetch_data always returns
 * them) and compared with a plain host loop.
 */
#include "op_lib_cpp.h"

#include "cuda_test_mesh.h"

void op_par_loop_cell_centre(char const *, op_set, op_arg, op_arg, op_arg, op_arg, op_arg);

int main(int argc, char **argv) {
  op_init(argc, argv, 1);

  QuadMesh m = make_quad_mesh(37, 23); /* 912 nodes, 851 cells: neither a multiple of 32 */
  std::vector<double> xy(2 * m.nnode), q(3 * m.ncell), cen(2 * m.ncell, 0.0);
  std::vector<double> acc(2 * m.nnode, 0.0), cnt(m.nnode, 0.0);
  for (int j = 0; j <= m.ny; ++j)
    for (int i = 0; i <= m.nx; ++i) {
      xy[2 * (j * (m.nx + 1) + i)] = 0.5 * i;
      xy[2 * (j * (m.nx + 1) + i) + 1] = 0.25 * j;
    }
  for (int c = 0; c < m.ncell; ++c)
    for (int k = 0; k < 3; ++k)
      q[3 * c + k] = test_value(c, k);
  double weight = 0.5;
  op_decl_const2("weight", 1, "double", &weight);

  op_set nodes = op_decl_set(m.nnode, "nodes");
  op_set cells = op_decl_set(m.ncell, "cells");
  op_map pcell = op_decl_map(cells, nodes, 4, m.cell2node.data(), "pcell");
  op_dat p_xy = op_decl_dat(nodes, 2, "double:soa", xy.data(), "p_xy");
  op_dat p_q = op_decl_dat(cells, 3, "double:soa", q.data(), "p_q");
  op_dat p_cen = op_decl_dat(cells, 2, "double", cen.data(), "p_cen");
  op_dat p_acc = op_decl_dat(nodes, 2, "double:soa", acc.data(), "p_acc");
  op_dat p_cnt = op_decl_dat(nodes, 1, "double", cnt.data(), "p_cnt");

  for (int step = 0; step < 2; ++step)
    op_par_loop_cell_centre("cell_centre", cells,
                            op_arg_dat(p_xy, -4, pcell, 2, "double:soa", OP_READ),
                            op_arg_dat(p_q, -1, OP_ID, 3, "double:soa", OP_RW),
                            op_arg_dat(p_cen, -1, OP_ID, 2, "double", OP_WRITE),
                            op_arg_dat(p_acc, 0, pcell, 2, "double:soa", OP_INC),
                            op_arg_dat(p_cnt, 2, pcell, 1, "double", OP_INC));

  std::vector<double> q_ref = q, cen_ref(2 * m.ncell), acc_ref(2 * m.nnode, 0.0),
                      cnt_ref(m.nnode, 0.0);
  for (int step = 0; step < 2; ++step)
    for (int c = 0; c < m.ncell; ++c) {
      const int *nd = &m.cell2node[4 * c];
      for (int k = 0; k < 2; ++k)
        cen_ref[2 * c + k] =
            0.25 * (xy[2 * nd[0] + k] + xy[2 * nd[1] + k] + xy[2 * nd[2] + k] + xy[2 * nd[3] + k]);
      double *qc = &q_ref[3 * c];
      qc[0] = qc[0] + cen_ref[2 * c];
      qc[1] = weight * qc[1];
      qc[2] = qc[0] - qc[1];
      acc_ref[2 * nd[0]] += cen_ref[2 * c];
      acc_ref[2 * nd[0] + 1] += cen_ref[2 * c + 1];
      cnt_ref[nd[2]] += 1.0;
    }

  std::vector<double> q_got(3 * m.ncell), cen_got(2 * m.ncell), acc_got(2 * m.nnode),
      cnt_got(m.nnode);
  op_fetch_data(p_q, q_got.data());
  op_fetch_data(p_cen, cen_got.data());
  op_fetch_data(p_acc, acc_got.data());
  op_fetch_data(p_cnt, cnt_got.data());
  bool ok = true;
  ok &= check_values("SoA direct OP_RW (q)", q_got.data(), q_ref.data(), 3 * m.ncell);
  ok &= check_values("AoS direct OP_WRITE from SoA vector read (cen)", cen_got.data(),
                     cen_ref.data(), 2 * m.ncell);
  ok &= check_values("SoA indirect OP_INC (acc)", acc_got.data(), acc_ref.data(), 2 * m.nnode);
  ok &= check_values("AoS indirect OP_INC (cnt)", cnt_got.data(), cnt_ref.data(), m.nnode);

  op_exit();
  return report("t4_soa_aos", ok);
}
