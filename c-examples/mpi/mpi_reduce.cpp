// mpi_reduce.cpp -- global reductions (op_arg_gbl with OP_INC, OP_MIN,
// OP_MAX for double, float and int) under MPI, compared with values computed
// independently from the global mesh, which every rank generates itself.
//
// Mesh: a structured nx x ny grid (mpi_check.h) with scrambled numbering, so
// that the initial blocks and hence the halos are spread over the mesh.
// Every value is a small multiple of a power of two, so sums are exact in
// any order and all results are compared exactly.
//
// Loops, each run in three rounds with the data changed between rounds by
// direct loops (so halos must be refreshed):
//   direct_*   direct loop over cells: 9 reductions of cell values;
//   indirect_* loop over edges READing node and cell values through the
//              edge -> node and edge -> cell maps (no exec halo): 9
//              reductions of a combination of the values;
//   exec_*     loop over cells INCrementing node values through the
//              cell -> node map (so the exec halo of cells is executed) and
//              reducing over the cells: every owned cell must be counted
//              once, halo cells never;
//   node_inc_* the node sums of exec_* (fetched with op_fetch_data_idx);
//   vector_*   vector arguments (idx -4) reduced into dim-1 and dim-3/dim-2
//              globals;
//   node_data  the node values after all updates; get_size: op_get_size;
//   partition_threads  op_partition starts no more threads than the rank's
//              share of the cores (none when that share is one core);
//   bool_*     bool globals (OP_INC: any, OP_MIN: all, OP_MAX: any) whose
//              value differs between ranks, through op_par_loop and through
//              op_mpi_reduce_bool: every rank must end with the global answer.
// Rank 0 prints "PASS <check>" / "FAIL <check>"; exit status 1 on failure.
//
// Options: --nx=N --ny=N (default 17 x 13), --part=NAME (see mpi_check.h,
// default RANDOM), --scramble=0|1 (default 1); "OP_" arguments go to OP2.
#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <mpi.h>

#include "op_lib_mpi.h"
#include "op_seq.h"

#include "mpi_check.h"

// ---------------------------------------------------------------------------
// the 9 reductions of one loop
// ---------------------------------------------------------------------------

struct Red {
  double dinc = 0.0, dmin = DBL_MAX, dmax = -DBL_MAX;
  float finc = 0.0f, fmin = FLT_MAX, fmax = -FLT_MAX;
  int iinc = 0, imin = INT_MAX, imax = INT_MIN;
};

inline void red_add(double d, float f, int i, double *dinc, double *dmin,
                    double *dmax, float *finc, float *fmin, float *fmax,
                    int *iinc, int *imin, int *imax) {
  *dinc += d;
  if (d < *dmin)
    *dmin = d;
  if (d > *dmax)
    *dmax = d;
  *finc += f;
  if (f < *fmin)
    *fmin = f;
  if (f > *fmax)
    *fmax = f;
  *iinc += i;
  if (i < *imin)
    *imin = i;
  if (i > *imax)
    *imax = i;
}

inline void red_add(Red &r, double d, float f, int i) {
  red_add(d, f, i, &r.dinc, &r.dmin, &r.dmax, &r.finc, &r.fmin, &r.fmax,
          &r.iinc, &r.imin, &r.imax);
}

// ---------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------

inline void k_direct(const double *d, const float *f, const int *i,
                     double *dinc, double *dmin, double *dmax, float *finc,
                     float *fmin, float *fmax, int *iinc, int *imin,
                     int *imax) {
  red_add(*d, *f, *i, dinc, dmin, dmax, finc, fmin, fmax, iinc, imin, imax);
}

// the value an edge contributes (also used by the plain loop)
inline double edge_d(double nd0, double nd1, double cd0, double cd1) {
  return nd0 - 0.5 * nd1 + 0.25 * cd0 - cd1;
}
inline float edge_f(float nf0, float nf1) { return nf0 + 2.0f * nf1; }
inline int edge_i(int ni0, int ni1) { return 3 * ni0 - ni1; }

inline void k_indirect(const double *nd0, const double *nd1, const float *nf0,
                       const float *nf1, const int *ni0, const int *ni1,
                       const double *cd0, const double *cd1, double *dinc,
                       double *dmin, double *dmax, float *finc, float *fmin,
                       float *fmax, int *iinc, int *imin, int *imax) {
  red_add(edge_d(*nd0, *nd1, *cd0, *cd1), edge_f(*nf0, *nf1),
          edge_i(*ni0, *ni1), dinc, dmin, dmax, finc, fmin, fmax, iinc,
          imin, imax);
}

// Threads of this process.
static int count_threads() {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  if (d == NULL)
    return -1;
  for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
    if (e->d_name[0] != '.')
      ++n;
  closedir(d);
  return n;
}

// bool reductions: is some cell's int value `target`? are all of them
// non-negative? are all of them different from `target`?
inline void k_bool(const int *ci, const int *target, bool *any, bool *all_nonneg,
                   bool *all_other, bool *max_any) {
  *any = *any || *ci == *target;
  *all_nonneg = *all_nonneg && *ci >= 0;
  *all_other = *all_other && *ci != *target;
  *max_any = *max_any || *ci == *target;
}

inline void k_exec(const double *cd, const float *cf, const int *ci,
                   double *a0, double *a1, double *a2, double *a3, int *c0,
                   int *c1, int *c2, int *c3, int *count, double *dinc,
                   double *dmin, double *dmax, float *finc, int *imax) {
  // corner k adds to component k of its dim-4 accumulators
  a0[0] += *cd;
  a1[1] += 2.0 * *cd;
  a2[2] += 0.5 * *cd;
  a3[3] += 1.0;
  c0[0] += 1;
  c1[1] += *ci;
  c2[2] += 10;
  c3[3] += 100;
  *count += 1;
  *dinc += *cd;
  if (*cd < *dmin)
    *dmin = *cd;
  if (*cd > *dmax)
    *dmax = *cd;
  *finc += *cf;
  if (*ci > *imax)
    *imax = *ci;
}

inline void k_vector(const double **nd, const int **ni, double *dsum,
                     int *imin, int *imax, double *d3, int *i2min) {
  for (int k = 0; k < 4; ++k) {
    *dsum += *nd[k];
    if (*ni[k] < *imin)
      *imin = *ni[k];
    if (*ni[k] > *imax)
      *imax = *ni[k];
    d3[0] += *nd[k];
    d3[1] += 2.0 * *nd[k];
    d3[2] += 1.0;
    if (*ni[k] < i2min[0])
      i2min[0] = *ni[k];
    if (-*ni[k] < i2min[1])
      i2min[1] = -*ni[k];
  }
}

inline void k_zero(double *a, int *c) {
  for (int k = 0; k < 4; ++k) {
    a[k] = 0.0;
    c[k] = 0;
  }
}

inline void k_change_nodes(double *nd, float *nf, int *ni) {
  *nd = 0.5 * *nd + 1.25;
  *nf = *nf + 1.5f;
  *ni = 2 * *ni - 3;
}

inline void k_change_cells(double *cd, float *cf, int *ci) {
  *cd = *cd - 0.75;
  *cf = 0.5f * *cf;
  *ci = *ci + 5;
}

// ---------------------------------------------------------------------------

static void expect_red(Checks &ck, const char *prefix, int round,
                       const Red &got, const Red &want) {
  char name[64];
#define EXPECT_RED(field, what, fmt)                                          \
  snprintf(name, sizeof name, "%s_%s", prefix, what);                         \
  ck.expect(name, got.field == want.field, "round %d: got " fmt               \
            ", expected " fmt, round, got.field, want.field)
  EXPECT_RED(dinc, "double_inc", "%.17g");
  EXPECT_RED(dmin, "double_min", "%.17g");
  EXPECT_RED(dmax, "double_max", "%.17g");
  EXPECT_RED(finc, "float_inc", "%.9g");
  EXPECT_RED(fmin, "float_min", "%.9g");
  EXPECT_RED(fmax, "float_max", "%.9g");
  EXPECT_RED(iinc, "int_inc", "%d");
  EXPECT_RED(imin, "int_min", "%d");
  EXPECT_RED(imax, "int_max", "%d");
#undef EXPECT_RED
}

int main(int argc, char **argv) {
  int nx = 17, ny = 13, scramble = 1;
  const char *part_name = "RANDOM";
  for (int i = 1; i < argc; ++i) {
    const char *v;
    if (strstr(argv[i], "OP_") != nullptr)
      continue;
    if ((v = option_value(argv[i], "--nx")))
      nx = atoi(v);
    else if ((v = option_value(argv[i], "--ny")))
      ny = atoi(v);
    else if ((v = option_value(argv[i], "--part")))
      part_name = v;
    else if ((v = option_value(argv[i], "--scramble")))
      scramble = atoi(v);
    else {
      fprintf(stderr, "unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (nx < 2 || ny < 2) {
    fprintf(stderr, "--nx and --ny must be at least 2\n");
    return 2;
  }

  op_init(argc, argv, 0);
  Checks ck;
  const int rank = ck.rank(), nranks = ck.nranks();

  // ---- global data, known to every rank --------------------------------------
  const Grid g(nx, ny, scramble != 0);
  std::vector<double> nd(g.nnode), cd(g.ncell);
  std::vector<float> nf(g.nnode), cf(g.ncell);
  std::vector<int> ni(g.nnode), ci(g.ncell), owner(g.ncell);
  for (int n = 0; n < g.nnode; ++n) {
    nd[n] = (n * 37 % 101) * 0.25 - 9.5;
    nf[n] = (float)((n * 53 % 97) * 0.5 - 20.0);
    ni[n] = n * 29 % 83 - 41;
  }
  for (int c = 0; c < g.ncell; ++c) {
    cd[c] = (c * 41 % 89) * 0.5 - 17.25;
    cf[c] = (float)((c * 17 % 61) * 0.25 - 3.0);
    ci[c] = c * 31 % 71 - 30;
    owner[c] = (c * 7 + 3) % nranks;
  }

  // ---- this rank's blocks ------------------------------------------------------
  const int n0 = block_start(g.nnode, nranks, rank),
            nn = block_size(g.nnode, nranks, rank);
  const int c0 = block_start(g.ncell, nranks, rank),
            nc = block_size(g.ncell, nranks, rank);
  const int e0 = block_start(g.nedge, nranks, rank),
            ne = block_size(g.nedge, nranks, rank);

  op_set nodes = op_decl_set(nn, "nodes");
  op_set cells = op_decl_set(nc, "cells");
  op_set edges = op_decl_set(ne, "edges");

  std::vector<int> m_cell = rows_of(g.cell, 4, c0, nc);
  std::vector<int> m_edge = rows_of(g.edge, 2, e0, ne);
  std::vector<int> m_ecell = rows_of(g.ecell, 2, e0, ne);
  op_map pcell = op_decl_map(cells, nodes, 4, m_cell.data(), "pcell");
  op_map pedge = op_decl_map(edges, nodes, 2, m_edge.data(), "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, m_ecell.data(), "pecell");

  std::vector<double> l_nd = rows_of(nd, 1, n0, nn),
                      l_cd = rows_of(cd, 1, c0, nc),
                      l_xy = rows_of(g.xy, 2, n0, nn),
                      l_cxyz = rows_of(g.cxyz, 3, c0, nc),
                      l_zero_d(4 * (size_t)nn + 1, -1.0);
  std::vector<float> l_nf = rows_of(nf, 1, n0, nn),
                     l_cf = rows_of(cf, 1, c0, nc);
  std::vector<int> l_ni = rows_of(ni, 1, n0, nn), l_ci = rows_of(ci, 1, c0, nc),
                   l_owner = rows_of(owner, 1, c0, nc),
                   l_zero_i(4 * (size_t)nn + 1, -1);

  op_dat p_nd = op_decl_dat(nodes, 1, "double", l_nd.data(), "p_nd");
  op_dat p_nf = op_decl_dat(nodes, 1, "float", l_nf.data(), "p_nf");
  op_dat p_ni = op_decl_dat(nodes, 1, "int", l_ni.data(), "p_ni");
  op_dat p_cd = op_decl_dat(cells, 1, "double", l_cd.data(), "p_cd");
  op_dat p_cf = op_decl_dat(cells, 1, "float", l_cf.data(), "p_cf");
  op_dat p_ci = op_decl_dat(cells, 1, "int", l_ci.data(), "p_ci");
  // accumulators (dim 4), cleared by a loop before use
  op_dat p_acc = op_decl_dat(nodes, 4, "double", l_zero_d.data(), "p_acc");
  op_dat p_cnt = op_decl_dat(nodes, 4, "int", l_zero_i.data(), "p_cnt");

  const PartitionCall pc = partition_call(part_name);
  op_dat coords;
  if (pc.coords == PartitionCall::CENTROIDS)
    coords = op_decl_dat(cells, 3, "double", l_cxyz.data(), "p_cxyz");
  else if (pc.coords == PartitionCall::OWNER)
    coords = op_decl_dat(cells, 1, "int", l_owner.data(), "p_owner");
  else
    coords = op_decl_dat(nodes, 2, "double", l_xy.data(), "p_xy");
  const int threads_before = count_threads();
  op_partition(pc.lib, pc.routine, cells, pecell, coords);
  const int threads_after = count_threads();
  {
    // A rank's share of the cores (all ranks of a test run on one node):
    // partitioning may use a pool of that many threads, no more.
    const char *omp = getenv("OMP_NUM_THREADS");
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long per_rank = cores / op_mpi_size();
    const int share = omp != NULL && atoi(omp) > 0 ? atoi(omp) : (per_rank > 1 ? (int)per_rank : 1);
    const int started = threads_after - threads_before;
    ck.expect("partition_threads", started <= (share > 1 ? share : 0),
              "op_partition started %d threads (a rank's share of the cores: %d)", started, share);
  }

  ck.expect("get_size",
            op_get_size(nodes) == g.nnode && op_get_size(cells) == g.ncell &&
                op_get_size(edges) == g.nedge,
            "nodes %lld cells %lld edges %lld", (long long)op_get_size(nodes),
            (long long)op_get_size(cells), (long long)op_get_size(edges));

  for (int round = 0; round < 3; ++round) {
    // ---- direct ----
    {
      Red got, want;
      op_par_loop(k_direct, "direct", cells,
                  op_arg_dat(p_cd, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_cf, -1, OP_ID, 1, "float", OP_READ),
                  op_arg_dat(p_ci, -1, OP_ID, 1, "int", OP_READ),
                  op_arg_gbl(&got.dinc, 1, "double", OP_INC),
                  op_arg_gbl(&got.dmin, 1, "double", OP_MIN),
                  op_arg_gbl(&got.dmax, 1, "double", OP_MAX),
                  op_arg_gbl(&got.finc, 1, "float", OP_INC),
                  op_arg_gbl(&got.fmin, 1, "float", OP_MIN),
                  op_arg_gbl(&got.fmax, 1, "float", OP_MAX),
                  op_arg_gbl(&got.iinc, 1, "int", OP_INC),
                  op_arg_gbl(&got.imin, 1, "int", OP_MIN),
                  op_arg_gbl(&got.imax, 1, "int", OP_MAX));
      for (int c = 0; c < g.ncell; ++c)
        red_add(want, cd[c], cf[c], ci[c]);
      expect_red(ck, "direct", round, got, want);
    }
    // ---- indirect, read only ----
    {
      Red got, want;
      op_par_loop(k_indirect, "indirect", edges,
                  op_arg_dat(p_nd, 0, pedge, 1, "double", OP_READ),
                  op_arg_dat(p_nd, 1, pedge, 1, "double", OP_READ),
                  op_arg_dat(p_nf, 0, pedge, 1, "float", OP_READ),
                  op_arg_dat(p_nf, 1, pedge, 1, "float", OP_READ),
                  op_arg_dat(p_ni, 0, pedge, 1, "int", OP_READ),
                  op_arg_dat(p_ni, 1, pedge, 1, "int", OP_READ),
                  op_arg_dat(p_cd, 0, pecell, 1, "double", OP_READ),
                  op_arg_dat(p_cd, 1, pecell, 1, "double", OP_READ),
                  op_arg_gbl(&got.dinc, 1, "double", OP_INC),
                  op_arg_gbl(&got.dmin, 1, "double", OP_MIN),
                  op_arg_gbl(&got.dmax, 1, "double", OP_MAX),
                  op_arg_gbl(&got.finc, 1, "float", OP_INC),
                  op_arg_gbl(&got.fmin, 1, "float", OP_MIN),
                  op_arg_gbl(&got.fmax, 1, "float", OP_MAX),
                  op_arg_gbl(&got.iinc, 1, "int", OP_INC),
                  op_arg_gbl(&got.imin, 1, "int", OP_MIN),
                  op_arg_gbl(&got.imax, 1, "int", OP_MAX));
      for (int e = 0; e < g.nedge; ++e) {
        const int a = g.edge[2 * e], b = g.edge[2 * e + 1];
        const int p = g.ecell[2 * e], q = g.ecell[2 * e + 1];
        red_add(want, edge_d(nd[a], nd[b], cd[p], cd[q]),
                edge_f(nf[a], nf[b]), edge_i(ni[a], ni[b]));
      }
      expect_red(ck, "indirect", round, got, want);
    }
    // ---- indirect with increments: exec halo executed ----
    {
      op_par_loop(k_zero, "zero", nodes,
                  op_arg_dat(p_acc, -1, OP_ID, 4, "double", OP_WRITE),
                  op_arg_dat(p_cnt, -1, OP_ID, 4, "int", OP_WRITE));
      Red got, want;
      int count = 0;
      op_par_loop(k_exec, "exec", cells,
                  op_arg_dat(p_cd, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(p_cf, -1, OP_ID, 1, "float", OP_READ),
                  op_arg_dat(p_ci, -1, OP_ID, 1, "int", OP_READ),
                  op_arg_dat(p_acc, 0, pcell, 4, "double", OP_INC),
                  op_arg_dat(p_acc, 1, pcell, 4, "double", OP_INC),
                  op_arg_dat(p_acc, 2, pcell, 4, "double", OP_INC),
                  op_arg_dat(p_acc, 3, pcell, 4, "double", OP_INC),
                  op_arg_dat(p_cnt, 0, pcell, 4, "int", OP_INC),
                  op_arg_dat(p_cnt, 1, pcell, 4, "int", OP_INC),
                  op_arg_dat(p_cnt, 2, pcell, 4, "int", OP_INC),
                  op_arg_dat(p_cnt, 3, pcell, 4, "int", OP_INC),
                  op_arg_gbl(&count, 1, "int", OP_INC),
                  op_arg_gbl(&got.dinc, 1, "double", OP_INC),
                  op_arg_gbl(&got.dmin, 1, "double", OP_MIN),
                  op_arg_gbl(&got.dmax, 1, "double", OP_MAX),
                  op_arg_gbl(&got.finc, 1, "float", OP_INC),
                  op_arg_gbl(&got.imax, 1, "int", OP_MAX));
      for (int c = 0; c < g.ncell; ++c)
        red_add(want, cd[c], cf[c], ci[c]);
      ck.expect("exec_count", count == g.ncell,
                "round %d: %d cells counted, expected %d", round, count,
                g.ncell);
      ck.expect("exec_double_inc", got.dinc == want.dinc,
                "round %d: got %.17g, expected %.17g", round, got.dinc,
                want.dinc);
      ck.expect("exec_double_min", got.dmin == want.dmin,
                "round %d: got %.17g, expected %.17g", round, got.dmin,
                want.dmin);
      ck.expect("exec_double_max", got.dmax == want.dmax,
                "round %d: got %.17g, expected %.17g", round, got.dmax,
                want.dmax);
      ck.expect("exec_float_inc", got.finc == want.finc,
                "round %d: got %.9g, expected %.9g", round, got.finc,
                want.finc);
      ck.expect("exec_int_max", got.imax == want.imax,
                "round %d: got %d, expected %d", round, got.imax, want.imax);

      // node sums: map column k of every cell adds to component k of its
      // k-th corner
      std::vector<double> acc(4 * (size_t)g.nnode + 4);
      std::vector<int> cnt(4 * (size_t)g.nnode + 4);
      op_fetch_data_idx(p_acc, acc.data(), 0, g.nnode - 1);
      op_fetch_data_idx(p_cnt, cnt.data(), 0, g.nnode - 1);
      std::vector<double> want_acc(4 * (size_t)g.nnode, 0.0);
      std::vector<int> want_cnt(4 * (size_t)g.nnode, 0);
      for (int c = 0; c < g.ncell; ++c) {
        want_acc[4 * g.cell[4 * c + 0] + 0] += cd[c];
        want_acc[4 * g.cell[4 * c + 1] + 1] += 2.0 * cd[c];
        want_acc[4 * g.cell[4 * c + 2] + 2] += 0.5 * cd[c];
        want_acc[4 * g.cell[4 * c + 3] + 3] += 1.0;
        want_cnt[4 * g.cell[4 * c + 0] + 0] += 1;
        want_cnt[4 * g.cell[4 * c + 1] + 1] += ci[c];
        want_cnt[4 * g.cell[4 * c + 2] + 2] += 10;
        want_cnt[4 * g.cell[4 * c + 3] + 3] += 100;
      }
      size_t bad = 0;
      ck.expect("node_inc_double",
                same_values(acc.data(), want_acc.data(), 4 * (size_t)g.nnode,
                            &bad),
                "round %d: node %zu component %zu is %.17g, expected %.17g",
                round, bad / 4, bad % 4, acc[bad], want_acc[bad]);
      ck.expect("node_inc_int",
                same_values(cnt.data(), want_cnt.data(), 4 * (size_t)g.nnode,
                            &bad),
                "round %d: node %zu component %zu is %d, expected %d", round,
                bad / 4, bad % 4, cnt[bad], want_cnt[bad]);
    }
    // ---- vector arguments, dim > 1 globals ----
    {
      double dsum = 0.0, d3[3] = {0.0, 0.0, 0.0};
      int imin = INT_MAX, imax = INT_MIN, i2[2] = {INT_MAX, INT_MAX};
      op_par_loop(k_vector, "vector", cells,
                  op_arg_dat(p_nd, -4, pcell, 1, "double", OP_READ),
                  op_arg_dat(p_ni, -4, pcell, 1, "int", OP_READ),
                  op_arg_gbl(&dsum, 1, "double", OP_INC),
                  op_arg_gbl(&imin, 1, "int", OP_MIN),
                  op_arg_gbl(&imax, 1, "int", OP_MAX),
                  op_arg_gbl(d3, 3, "double", OP_INC),
                  op_arg_gbl(i2, 2, "int", OP_MIN));
      double wsum = 0.0, w3[3] = {0.0, 0.0, 0.0};
      int wmin = INT_MAX, wmax = INT_MIN, w2[2] = {INT_MAX, INT_MAX};
      for (int c = 0; c < g.ncell; ++c)
        for (int k = 0; k < 4; ++k) {
          const int n = g.cell[4 * c + k];
          wsum += nd[n];
          wmin = ni[n] < wmin ? ni[n] : wmin;
          wmax = ni[n] > wmax ? ni[n] : wmax;
          w3[0] += nd[n];
          w3[1] += 2.0 * nd[n];
          w3[2] += 1.0;
          w2[0] = ni[n] < w2[0] ? ni[n] : w2[0];
          w2[1] = -ni[n] < w2[1] ? -ni[n] : w2[1];
        }
      ck.expect("vector_double_inc", dsum == wsum,
                "round %d: got %.17g, expected %.17g", round, dsum, wsum);
      ck.expect("vector_int_min", imin == wmin, "round %d: got %d, expected %d",
                round, imin, wmin);
      ck.expect("vector_int_max", imax == wmax, "round %d: got %d, expected %d",
                round, imax, wmax);
      ck.expect("gbl_dim3_double_inc",
                d3[0] == w3[0] && d3[1] == w3[1] && d3[2] == w3[2],
                "round %d: got %.17g %.17g %.17g, expected %.17g %.17g %.17g",
                round, d3[0], d3[1], d3[2], w3[0], w3[1], w3[2]);
      ck.expect("gbl_dim2_int_min", i2[0] == w2[0] && i2[1] == w2[1],
                "round %d: got %d %d, expected %d %d", round, i2[0], i2[1],
                w2[0], w2[1]);
    }
    // ---- change the data (owned elements only; halos become stale) ----
    op_par_loop(k_change_nodes, "change_nodes", nodes,
                op_arg_dat(p_nd, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(p_nf, -1, OP_ID, 1, "float", OP_RW),
                op_arg_dat(p_ni, -1, OP_ID, 1, "int", OP_RW));
    op_par_loop(k_change_cells, "change_cells", cells,
                op_arg_dat(p_cd, -1, OP_ID, 1, "double", OP_RW),
                op_arg_dat(p_cf, -1, OP_ID, 1, "float", OP_RW),
                op_arg_dat(p_ci, -1, OP_ID, 1, "int", OP_RW));
    for (int n = 0; n < g.nnode; ++n)
      k_change_nodes(&nd[n], &nf[n], &ni[n]);
    for (int c = 0; c < g.ncell; ++c)
      k_change_cells(&cd[c], &cf[c], &ci[c]);
  }

  {
    // one cell's value: true on the rank that owns it only
    int target = ci[g.ncell / 2];
    bool any = false, all_nonneg = true, all_other = true, max_any = false;
    op_par_loop(k_bool, "bools", cells, op_arg_dat(p_ci, -1, OP_ID, 1, "int", OP_READ),
                op_arg_gbl(&target, 1, "int", OP_READ), op_arg_gbl(&any, 1, "bool", OP_INC),
                op_arg_gbl(&all_nonneg, 1, "bool", OP_MIN),
                op_arg_gbl(&all_other, 1, "bool", OP_MIN),
                op_arg_gbl(&max_any, 1, "bool", OP_MAX));
    bool w_nonneg = true;
    for (int c = 0; c < g.ncell; ++c)
      w_nonneg = w_nonneg && ci[c] >= 0;
    ck.expect("bool_loop", any && all_nonneg == w_nonneg && !all_other && max_any,
              "any %d all_nonneg %d (want %d) all_other %d max_any %d", any, all_nonneg,
              w_nonneg, all_other, max_any);
    // generated code's call, with a value only the last rank holds
    int rank = 0, nranks = op_mpi_size();
    op_rank(&rank);
    bool last = rank == nranks - 1, first_only = rank == 0;
    op_arg a_last = op_arg_gbl(&last, 1, "bool", OP_INC);
    op_mpi_reduce_bool(&a_last, &last);
    op_arg a_first = op_arg_gbl(&first_only, 1, "bool", OP_MIN);
    op_mpi_reduce_bool(&a_first, &first_only);
    ck.expect("bool_mpi_reduce", last && first_only == (nranks == 1),
              "OP_INC gives %d, OP_MIN gives %d on %d ranks", last, first_only, nranks);
  }

  {
    std::vector<double> got(g.nnode + 1);
    op_fetch_data_idx(p_nd, got.data(), 0, g.nnode - 1);
    size_t bad = 0;
    ck.expect("node_data", same_values(got.data(), nd.data(), g.nnode, &bad),
              "node %zu is %.17g, expected %.17g", bad, got[bad], nd[bad]);
  }

  const int failed = ck.report();
  op_printf("%s\n", failed == 0 ? "PASSED" : "FAILED");
  op_exit();
  return failed == 0 ? 0 : 1;
}
