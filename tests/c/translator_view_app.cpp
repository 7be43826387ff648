/*
 * A small OP2 application in the form OP2's code generator (translator-v2)
 * reads: every loop is an op_par_loop call with op_arg_* calls as arguments.
 * tests/c/translator_view.c parses it with libclang the way translator-v2
 * does; compiled normally it runs on the sequential library and prints its
 * results (the same with the macro form of op_par_loop and with the plain
 * form, -DOP2_RS_PLAIN_PAR_LOOP=1, but for the "form" line naming which).
 *
 * Loops: a direct loop (OP_ID) with a global read, an indirect loop through a
 * map with a direct argument, a vector-map argument (idx -2), and a direct
 * loop with an optional argument and a global increment.
 */
#include "op_seq.h"

#include <cstdio>

static void init_x(double *x, const double *scale) { x[0] = x[0] * scale[0]; }

static void edge_flux(const double *xa, const double *xb, double *ra, double *rb,
                      const double *w) {
  double f = w[0] * (xb[0] - xa[0]);
  ra[0] += f;
  rb[0] -= f;
}

static void edge_sum(const double **x, double *len) { len[0] = x[0][0] + x[1][0]; }

static void total(const double *res, const double *wn, double *sum, double *top) {
  sum[0] += res[0] * wn[0];
  if (res[0] > top[0])
    top[0] = res[0];
}

static double gain = 1.5;

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  op_decl_const(1, "double", &gain);

  double xs[5] = {1.0, 2.5, 4.0, 7.0, 11.0};
  double rs[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  double ws[4] = {0.5, 1.0, 1.5, 2.0};
  double lens[4] = {0.0, 0.0, 0.0, 0.0};
  double wns[5] = {1.0, 2.0, 3.0, 4.0, 5.0};
  int es[8] = {0, 1, 1, 2, 2, 3, 3, 4};

  op_set nodes = op_decl_set(5, "nodes");
  op_set edges = op_decl_set(4, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, es, "pedge");
  op_dat x = op_decl_dat(nodes, 1, "double", xs, "x");
  op_dat res = op_decl_dat(nodes, 1, "double", rs, "res");
  op_dat w = op_decl_dat(edges, 1, "double", ws, "w");
  op_dat len = op_decl_dat(edges, 1, "double", lens, "len");
  op_dat wn = op_decl_dat(nodes, 1, "double", wns, "wn");

  double scale = 2.0;
  double sum = 0.0;
  double top = -1.0e300;
  int use_wn = 1;

  op_par_loop(init_x, "init_x", nodes, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW),
              op_arg_gbl(&scale, 1, "double", OP_READ));

  op_par_loop(edge_flux, "edge_flux", edges, op_arg_dat(x, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(x, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(res, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(res, 1, pedge, 1, "double", OP_INC),
              op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ));

  op_par_loop(edge_sum, "edge_sum", edges, op_arg_dat(x, -2, pedge, 1, "double", OP_READ),
              op_arg_dat(len, -1, OP_ID, 1, "double", OP_WRITE));

  op_par_loop(total, "total", nodes, op_arg_dat(res, -1, OP_ID, 1, "double", OP_READ),
              op_opt_arg_dat(use_wn, wn, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&top, 1, "double", OP_MAX));

  std::printf("form %s\n", OP2_RS_PLAIN_PAR_LOOP ? "plain" : "macro");
  op_fetch_data(x, xs);
  op_fetch_data(res, rs);
  op_fetch_data(len, lens);
  for (int i = 0; i < 5; ++i)
    std::printf("node %d x %.17g res %.17g\n", i, xs[i], rs[i]);
  for (int i = 0; i < 4; ++i)
    std::printf("edge %d len %.17g\n", i, lens[i]);
  std::printf("sum %.17g top %.17g\n", sum, top);

  op_exit();
  return 0;
}
