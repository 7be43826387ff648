// mpi_output.cpp -- figures combined across ranks: the merged profile tree
// (op_profile_output / OP_PROFILE_JSON_OUTPUT), op_timings_to_csv (one row
// per rank and thread, written by the root) and op_compute_moment[_across_times]
// (averaged over every rank). The test (tests/tests/mpi.rs) reads the JSON
// and CSV files the root writes; this program checks the moments itself.
#include "op_lib_mpi.h"
#include "op_seq.h"

#include "mpi_check.h"

#include <math.h>

static void scale(double *x) { *x *= 2.0; }

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  Checks ck;
  const int rank = ck.rank(), nranks = ck.nranks();

  op_profile_start("main");
  op_profile_enter("everyone");
  const int n = 10;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = rank * n + i;
  op_set cells = op_decl_set(n, "cells");
  op_dat p_x = op_decl_dat(cells, 1, "double", x.data(), "p_x");
  for (int k = 0; k < 3; ++k)
    op_par_loop(scale, "scale", cells, op_arg_dat(p_x, -1, OP_ID, 1, "double", OP_RW));
  op_profile_exit();
  if (rank == 1) {
    op_profile_enter("only_rank_1");
    op_profile_exit();
  }
  op_profile_end();

  // op_compute_moment: rank r gives r + 1
  double m1 = -1.0, m2 = -1.0, want1 = 0.0, want2 = 0.0;
  for (int r = 0; r < nranks; ++r) {
    want1 += (r + 1.0) / nranks;
    want2 += (r + 1.0) * (r + 1.0) / nranks;
  }
  op_compute_moment(rank + 1.0, &m1, &m2);
  ck.expect("compute_moment", fabs(m1 - want1) < 1e-12 && fabs(m2 - want2) < 1e-12,
            "got %.17g %.17g, expected %.17g %.17g", m1, m2, want1, want2);

  // across times: rank r gives {r + 1, 0, 2(r + 1)}; zeros ignored
  double t[3] = {rank + 1.0, 0.0, 2.0 * (rank + 1.0)};
  double s1 = 0.0, s2 = 0.0;
  for (int r = 0; r < nranks; ++r) {
    s1 += 3.0 * (r + 1.0);
    s2 += 5.0 * (r + 1.0) * (r + 1.0);
  }
  op_compute_moment_across_times(t, 3, true, &m1, &m2);
  ck.expect("moment_across_times",
            fabs(m1 - s1 / (2 * nranks)) < 1e-12 && fabs(m2 - s2 / (2 * nranks)) < 1e-12,
            "got %.17g %.17g, expected %.17g %.17g", m1, m2, s1 / (2 * nranks), s2 / (2 * nranks));
  // no time counts anywhere: outputs untouched
  double z[2] = {0.0, 0.0};
  m1 = 7.0;
  m2 = 8.0;
  op_compute_moment_across_times(z, 2, true, &m1, &m2);
  ck.expect("moment_nothing_counts", m1 == 7.0 && m2 == 8.0, "got %g %g", m1, m2);

  op_timings_to_csv("timings.csv");
  op_profile_output();

  const int failed = ck.report();
  op_printf("%s\n", failed == 0 ? "PASSED" : "FAILED");
  op_exit();
  return failed == 0 ? 0 : 1;
}
