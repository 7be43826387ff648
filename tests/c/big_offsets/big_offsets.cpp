/*
 * big_offsets.cpp -- a dat whose offsets pass 2^31 - 1: CELLS cells of 32
 * ints (more than 67,108,864 cells: cell e's component k is element
 * e * 32 + k, past int's range in the last cells). A direct loop writes
 * every cell (op_arg_idx), an indirect one adds 1 through a map into every
 * 64th cell counted from the last. On a device library the loops' offsets
 * must be computed in 64 bits (the library decides from the sizes; with
 * int arithmetic the last cells' offsets wrap and the writes land
 * elsewhere). Checked against the expected values on the host: the last
 * cells, the cells around element 2^31, and a spread of others, fetched
 * with op_fetch_data_idx (the program's own array is freed once the dat is
 * declared, so the host holds one copy: the library's). Unchanged op_seq.h
 * code. Prints "PASSED (0 wrong values)" or FAILED with the
 * count; exit status 0 only when every value checked is right.
 *   big_offsets [CELLS]   (default 1000; 67200000 passes 2^31 - 1:
 *                         8.6 GB of ints, on the host and the device)
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "op_seq.h"

#include "kernels.h"

static const int DIM = 32;

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  long cells = argc > 1 ? atol(argv[1]) : 1000;
  if (cells < 64 || cells > 2000000000L) {
    fprintf(stderr, "big_offsets: CELLS must be 64 to 2000000000, not %s\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  const int n = (int)cells;
  // edge j points at cell n - 1 - 64 j
  const int edges = (n - 1) / 64 + 1;
  std::vector<int> e2c(edges);
  for (int j = 0; j < edges; ++j)
    e2c[j] = n - 1 - 64 * j;
  std::vector<int> x((size_t)n * DIM, -1);
  op_set scells = op_decl_set(n, "cells");
  op_set sedges = op_decl_set(edges, "edges");
  op_map m = op_decl_map(sedges, scells, 1, e2c.data(), "e2c");
  op_dat dx = op_decl_dat(scells, DIM, "int", x.data(), "x");
  std::vector<int>().swap(x);
  op_par_loop(stamp, "stamp", scells, op_arg_dat(dx, -1, OP_ID, DIM, "int", OP_WRITE),
              op_arg_idx(-1, OP_ID));
  op_par_loop(bump, "bump", sedges, op_arg_dat(dx, 0, m, DIM, "int", OP_INC));

  // the cells checked: the first and last 100, 100 on each side of the
  // cell holding element 2^31 (when there is one), and every (n / 10000)th
  std::vector<long> check;
  for (long e = 0; e < 100 && e < n; ++e) {
    check.push_back(e);
    check.push_back(n - 1 - e);
  }
  const long edge = (1L << 31) / DIM;
  for (long e = edge - 100; e < edge + 100; ++e)
    if (e >= 0 && e < n)
      check.push_back(e);
  for (long e = 0; e < n; e += n / 10000 + 1)
    check.push_back(e);
  long wrong = 0;
  int got_cell[DIM];
  for (long e : check) {
    op_fetch_data_idx(dx, got_cell, (int)e, (int)e);
    const int bumped = (n - 1 - e) % 64 == 0 ? 1 : 0;
    for (int k = 0; k < DIM; ++k) {
      const int want = (int)(e % 1000000) * 64 + k + bumped;
      const int got = got_cell[k];
      if (got != want) {
        if (wrong < 10)
          printf("wrong: cell %ld component %d: %d, not %d\n", e, k, got, want);
        wrong++;
      }
    }
  }
  printf("%s (%ld wrong values)\n", wrong ? "FAILED" : "PASSED", wrong);
  op_timing_output();
  op_exit();
  return wrong ? 1 : 0;
}
