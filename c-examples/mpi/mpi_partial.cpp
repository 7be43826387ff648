// mpi_partial.cpp -- OP_PARTIAL_EXCHANGE: a dat read only through a sparse
// map (probes -> cells, two far-apart cells per probe) refreshes only the
// halo rows that map reaches. Each iteration doubles a cell dat (direct
// loop: its halo becomes stale), then every probe sums its two cells. The
// probe values are compared with a plain loop over the global data; the
// test (tests/tests/mpi.rs) runs it with and without OP_PARTIAL_EXCHANGE and
// compares the printed results and the halo bytes op_timing_output reports.
#include "op_lib_mpi.h"
#include "op_seq.h"

#include "mpi_check.h"

static void dbl(double *v) { *v *= 2.0; }
static void probe(const double *a, const double *b, double *r) { *r = *a + *b; }

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  Checks ck;
  const int rank = ck.rank(), nranks = ck.nranks();
  const Grid g(48, 32, false);
  const int nprobe = 6;

  // every rank's block of nodes, cells and probes, maps in global indices
  const int n0 = block_start(g.nnode, nranks, rank), nn = block_size(g.nnode, nranks, rank);
  const int c0 = block_start(g.ncell, nranks, rank), nc = block_size(g.ncell, nranks, rank);
  const int p0 = block_start(nprobe, nranks, rank), np = block_size(nprobe, nranks, rank);
  std::vector<int> l_pcell(g.cell.begin() + 4 * c0, g.cell.begin() + 4 * (c0 + nc));
  std::vector<double> l_xy(g.xy.begin() + 2 * n0, g.xy.begin() + 2 * (n0 + nn));
  std::vector<double> l_v(nc);
  for (int c = 0; c < nc; ++c)
    l_v[c] = c0 + c + 1.0;
  std::vector<int> all_pprobe(2 * nprobe);
  for (int p = 0; p < nprobe; ++p) {
    all_pprobe[2 * p] = (p * 7) % g.ncell;
    all_pprobe[2 * p + 1] = g.ncell - 1 - (p * 13) % g.ncell;
  }
  std::vector<int> l_pprobe(all_pprobe.begin() + 2 * p0, all_pprobe.begin() + 2 * (p0 + np));
  std::vector<double> l_r(np, 0.0);

  op_set nodes = op_decl_set(nn, "nodes");
  op_set cells = op_decl_set(nc, "cells");
  op_set probes = op_decl_set(np, "probes");
  op_map pcell = op_decl_map(cells, nodes, 4, l_pcell.data(), "pcell");
  op_map pprobe = op_decl_map(probes, cells, 2, l_pprobe.data(), "pprobe");
  op_dat p_xy = op_decl_dat(nodes, 2, "double", l_xy.data(), "p_xy");
  op_dat p_v = op_decl_dat(cells, 1, "double", l_v.data(), "p_v");
  op_dat p_r = op_decl_dat(probes, 1, "double", l_r.data(), "p_r");
  op_partition("PARMETIS", "GEOM", nodes, pcell, p_xy);

  const int iters = 5;
  for (int k = 0; k < iters; ++k) {
    op_par_loop(dbl, "dbl", cells, op_arg_dat(p_v, -1, OP_ID, 1, "double", OP_RW));
    op_par_loop(probe, "probe", probes, op_arg_dat(p_v, 0, pprobe, 1, "double", OP_READ),
                op_arg_dat(p_v, 1, pprobe, 1, "double", OP_READ),
                op_arg_dat(p_r, -1, OP_ID, 1, "double", OP_WRITE));
  }

  std::vector<double> got(nprobe);
  op_fetch_data_idx(p_r, got.data(), 0, nprobe - 1);
  const double scale = 1 << iters;
  for (int p = 0; p < nprobe; ++p) {
    const double want = scale * (all_pprobe[2 * p] + 1.0 + all_pprobe[2 * p + 1] + 1.0);
    ck.expect("probe_values", got[p] == want, "probe %d: %.17g, expected %.17g", p, got[p], want);
  }
  op_printf("probe sum %.17g\n", [&] {
    double s = 0.0;
    for (double x : got)
      s += x;
    return s;
  }());
  op_timing_output();
  const int failed = ck.report();
  op_printf("%s\n", failed == 0 ? "PASSED" : "FAILED");
  op_exit();
  return failed == 0 ? 0 : 1;
}
