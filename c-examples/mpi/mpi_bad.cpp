// mpi_bad.cpp -- bad input to op_partition under MPI.  --case=NAME selects:
//
//   unknown_part      op_partition("NO_SUCH_PARTITIONER", "KWAY", ...): OP2
//                     reports the name and keeps the block distribution;
//   unknown_routine   op_partition("PARMETIS", "NO_SUCH_ROUTINE", ...):
//                     likewise;
//   null_args         op_partition("RANDOM", NULL, NULL, NULL, NULL), as
//                     some OP2 applications call it;
//   bad_map_high      the last rank's rows of the map "pecell_broken" hold a
//                     cell index past the end of the set;
//   bad_map_negative  rank 0's rows of the map "pcell_broken" hold -2.
//
// The first three must run on: the program then runs two loops, checks them
// (PASS/FAIL lines, see mpi_check.h) and prints PASSED.  For the bad_map
// cases op_partition must stop the program with a message naming the map,
// on all ranks and with a non-zero status; every rank prints "BEFORE" just
// before op_partition and "UNREACHABLE" just after it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <mpi.h>

#include "op_lib_mpi.h"
#include "op_seq.h"

#include "mpi_check.h"

inline void k_sum(const double *cd, double *sum, int *count) {
  *sum += *cd;
  *count += 1;
}

inline void k_flux(const double *n0, const double *n1, double *r0,
                   double *r1) {
  const double f = *n0 - 0.5 * *n1;
  *r0 += f;
  *r1 -= f;
}

int main(int argc, char **argv) {
  const char *which = "";
  for (int i = 1; i < argc; ++i) {
    const char *v;
    if (strstr(argv[i], "OP_") != nullptr)
      continue;
    if ((v = option_value(argv[i], "--case")))
      which = v;
    else {
      fprintf(stderr, "unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  const bool bad_high = strcmp(which, "bad_map_high") == 0;
  const bool bad_negative = strcmp(which, "bad_map_negative") == 0;
  if (!bad_high && !bad_negative && strcmp(which, "unknown_part") != 0 &&
      strcmp(which, "unknown_routine") != 0 &&
      strcmp(which, "null_args") != 0) {
    fprintf(stderr, "--case=unknown_part|unknown_routine|null_args|"
                    "bad_map_high|bad_map_negative\n");
    return 2;
  }

  op_init(argc, argv, 0);
  Checks ck;
  const int rank = ck.rank(), nranks = ck.nranks();

  const Grid g(10, 7, true);
  std::vector<double> nd(g.nnode), cd(g.ncell), cacc(g.ncell, 0.0);
  for (int n = 0; n < g.nnode; ++n)
    nd[n] = (n * 7 % 13) * 0.5 - 2.0;
  for (int c = 0; c < g.ncell; ++c)
    cd[c] = (c * 5 % 11) * 0.25 + 1.0;

  const int n0 = block_start(g.nnode, nranks, rank),
            nn = block_size(g.nnode, nranks, rank);
  const int c0 = block_start(g.ncell, nranks, rank),
            nc = block_size(g.ncell, nranks, rank);
  const int e0 = block_start(g.nedge, nranks, rank),
            ne = block_size(g.nedge, nranks, rank);

  std::vector<int> l_pcell = rows_of(g.cell, 4, c0, nc),
                   l_pedge = rows_of(g.edge, 2, e0, ne),
                   l_pecell = rows_of(g.ecell, 2, e0, ne);
  if (bad_high && rank == nranks - 1 && ne > 0)
    l_pecell[2 * ne - 1] = g.ncell + 5;
  if (bad_negative && rank == 0 && nc > 0)
    l_pcell[1] = -2;

  op_set nodes = op_decl_set(nn, "nodes");
  op_set cells = op_decl_set(nc, "cells");
  op_set edges = op_decl_set(ne, "edges");
  op_map pcell = op_decl_map(cells, nodes, 4, l_pcell.data(),
                             bad_negative ? "pcell_broken" : "pcell");
  op_map pedge = op_decl_map(edges, nodes, 2, l_pedge.data(), "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, l_pecell.data(),
                              bad_high ? "pecell_broken" : "pecell");
  (void)pcell;

  std::vector<double> l_nd = rows_of(nd, 1, n0, nn),
                      l_cd = rows_of(cd, 1, c0, nc),
                      l_cacc = rows_of(cacc, 1, c0, nc),
                      l_xy = rows_of(g.xy, 2, n0, nn);
  op_dat p_nd = op_decl_dat(nodes, 1, "double", l_nd.data(), "p_nd");
  op_dat p_cd = op_decl_dat(cells, 1, "double", l_cd.data(), "p_cd");
  op_dat p_cacc = op_decl_dat(cells, 1, "double", l_cacc.data(), "p_cacc");
  op_dat p_xy = op_decl_dat(nodes, 2, "double", l_xy.data(), "p_xy");

  if (bad_high || bad_negative) {
    printf("BEFORE rank %d\n", rank);
    fflush(stdout);
  }
  if (strcmp(which, "unknown_part") == 0)
    op_partition("NO_SUCH_PARTITIONER", "KWAY", cells, pecell, p_xy);
  else if (strcmp(which, "unknown_routine") == 0)
    op_partition("PARMETIS", "NO_SUCH_ROUTINE", cells, pecell, p_xy);
  else if (strcmp(which, "null_args") == 0)
    op_partition("RANDOM", nullptr, nullptr, nullptr, nullptr);
  else
    op_partition("RANDOM", "RANDOM", cells, pecell, p_xy);
  if (bad_high || bad_negative) {
    printf("UNREACHABLE rank %d\n", rank);
    fflush(stdout);
  }

  double sum = 0.0, wsum = 0.0;
  int count = 0, wcount = 0;
  op_par_loop(k_sum, "sum", cells,
              op_arg_dat(p_cd, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&sum, 1, "double", OP_INC),
              op_arg_gbl(&count, 1, "int", OP_INC));
  for (int c = 0; c < g.ncell; ++c)
    k_sum(&cd[c], &wsum, &wcount);
  ck.expect("sum", sum == wsum && count == wcount,
            "got %.17g %d, expected %.17g %d", sum, count, wsum, wcount);

  op_par_loop(k_flux, "flux", edges,
              op_arg_dat(p_nd, 0, pedge, 1, "double", OP_READ),
              op_arg_dat(p_nd, 1, pedge, 1, "double", OP_READ),
              op_arg_dat(p_cacc, 0, pecell, 1, "double", OP_INC),
              op_arg_dat(p_cacc, 1, pecell, 1, "double", OP_INC));
  for (int e = 0; e < g.nedge; ++e)
    k_flux(&nd[g.edge[2 * e]], &nd[g.edge[2 * e + 1]],
           &cacc[g.ecell[2 * e]], &cacc[g.ecell[2 * e + 1]]);
  std::vector<double> got(g.ncell + 1);
  op_fetch_data_idx(p_cacc, got.data(), 0, g.ncell - 1);
  size_t bad = 0;
  ck.expect("flux", same_values(got.data(), cacc.data(), g.ncell, &bad),
            "cell %zu is %.17g, expected %.17g", bad, got[bad], cacc[bad]);

  const int failed = ck.report();
  op_printf("%s\n", failed == 0 ? "PASSED" : "FAILED");
  op_exit();
  return failed == 0 ? 0 : 1;
}
