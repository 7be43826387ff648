/*
 * device_args.cpp -- every kind of loop argument a device library writes
 * code for, checked against plain C++ loops: direct dats (AoS double[2],
 * float, int, an SoA double), a global read, reductions (sum of double[2],
 * float min, int max, a max with its location through op_arg_info), a
 * vector map argument, increments through a map at both ends, an optional
 * increment switched on and off, op_arg_idx direct and through a map,
 * OP_WORK on a global and on a dat, a dat read and written (OP_RW) and one
 * written (OP_WRITE) through a map that reaches each node once, an int
 * read and written (OP_RW) at both ends of the edges, and a constant
 * declared again with a new value, one of internal linkage (a C++
 * namespace-scope const: its symbol is mangled), and the kernels' header's
 * own constants (a table at file scope, a function's static const). Unchanged op_seq.h code: on libop2_opencl / libop2_cuda every
 * loop runs on the device (tests/tests/opencl_lib.rs, cuda_loops.rs, and
 * the GPU bundle's check.sh). Prints "PASSED (0 wrong values)" or FAILED
 * with the count; exit status 0 only when everything agrees.
 *   device_args [NODES]   (default 3000; over 131,072 a device's loops
 *                         with reductions run several elements per work-item)
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "op_seq.h"

double alpha = 0.5;
/* const at namespace scope: internal linkage, symbol _ZL9pin_shift (C++'s
   op_decl_const passes no name: a device library reads it back from the
   symbol; OP2's airfoil tutorial declares its constants so) */
const double pin_shift = 1.0;

#include "kernels.h"

static int wrong = 0;

static void expect(bool ok, const char *what, int rep) {
  if (!ok) {
    wrong++;
    printf("wrong: %s (pass %d)\n", what, rep);
  }
}

static bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * (std::fabs(b) + 1.0); }

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  const int n = argc > 1 ? atoi(argv[1]) : 3000;
  if (n < 4) {
    printf("FAILED (NODES must be at least 4)\n");
    op_exit();
    return 1;
  }
  /* nodes, and edges joining them in a scrambled ring */
  std::vector<double> x(2 * n), y(n), r(n), u(n);
  std::vector<float> s(n), w(n);
  std::vector<int> k(n), e2n(2 * n), ids(2 * n), tag(n, 0);
  std::vector<double> z(n);
  for (int i = 0; i < n; i++) {
    x[2 * i] = std::cos(0.01 * i) + 1e-3 * (i % 7);
    /* capped: the maximum is reached at many elements (the first one is
       where op_arg_info must point, also when a device's work-items run
       several elements each: NODES over 131,072) */
    x[2 * i + 1] = std::fmin(std::sin(0.013 * i) + 1e-4 * (i % 11), 0.75);
    s[i] = (float)(1.0 + 0.25 * ((i * 37) % 101));
    k[i] = (i * 7919) % 1009;
  }
  for (int i = 0; i < n; i++) z[i] = 0.5 * i - 3.0;
  /* ends: every third node (as aero's Dirichlet nodes), through a map that
     reaches each node once */
  const int m = n / 3;
  std::vector<int> b2n(m);
  for (int j = 0; j < m; j++) b2n[j] = 3 * (m - 1 - j) + 1;
  for (int e = 0; e < n; e++) {
    e2n[2 * e] = (int)(((long)e * 7919) % n);
    e2n[2 * e + 1] = (int)(((long)(e + 1) * 7919) % n);
  }
  op_set nodes = op_decl_set(n, "nodes");
  op_set edges = op_decl_set(n, "edges");
  op_set ends = op_decl_set(m, "ends");
  op_map e_n = op_decl_map(edges, nodes, 2, e2n.data(), "e_n");
  op_map b_n = op_decl_map(ends, nodes, 1, b2n.data(), "b_n");
  op_dat dx = op_decl_dat(nodes, 2, "double", x.data(), "x");
  op_dat ds = op_decl_dat(nodes, 1, "float", s.data(), "s");
  op_dat dk = op_decl_dat(nodes, 1, "int", k.data(), "k");
  op_dat dy = op_decl_dat(nodes, 1, "double", y.data(), "y");
  op_dat dr = op_decl_dat(nodes, 1, "double:soa", r.data(), "r");
  op_dat dw = op_decl_dat(nodes, 1, "float", w.data(), "w");
  op_dat du = op_decl_dat(nodes, 1, "double", u.data(), "u");
  op_dat dids = op_decl_dat(edges, 2, "int", ids.data(), "ids");
  op_dat dz = op_decl_dat(nodes, 1, "double", z.data(), "z");
  op_dat dtag = op_decl_dat(nodes, 1, "int", tag.data(), "tag");
  std::vector<int> cnt(n, 0), rcnt(n, 0);
  op_dat dcnt = op_decl_dat(nodes, 1, "int", cnt.data(), "cnt");
  std::vector<double> rz(z);
  std::vector<int> rtag(tag);
  op_decl_const(1, "double", &alpha);
  op_decl_const(1, "double", &pin_shift);
  const double c[3] = {0.75, -1.5, 0.125};

  for (int rep = 0; rep < 2; rep++) {
    /* sums: direct arguments, a global read, four reductions */
    double sum[2] = {0.0, 0.0}, big = -1e300;
    float mn = 1e30f;
    int mx = -1, where = -1;
    op_par_loop(sums, "sums", nodes, op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(ds, -1, OP_ID, 1, "float", OP_READ),
                op_arg_dat(dk, -1, OP_ID, 1, "int", OP_READ),
                op_arg_gbl(c, 3, "double", OP_READ),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE),
                op_arg_gbl(sum, 2, "double", OP_INC), op_arg_gbl(&mn, 1, "float", OP_MIN),
                op_arg_gbl(&mx, 1, "int", OP_MAX), op_arg_idx(-1, OP_ID),
                op_arg_gbl(&big, 1, "double", OP_MAX), op_arg_info(&where, 1, "int", 9));
    op_fetch_data(dy, y.data());
    double rsum[2] = {0.0, 0.0}, rbig = -1e300;
    float rmn = 1e30f;
    int rmx = -1, rwhere = -1, bad = 0;
    for (int i = 0; i < n; i++) {
      bad += y[i] != c[0] * x[2 * i] + c[1] * x[2 * i + 1] + c[2] + alpha;
      rsum[0] += x[2 * i];
      rsum[1] += x[2 * i + 1] * x[2 * i + 1];
      if (s[i] < rmn) rmn = s[i];
      if (k[i] > rmx) rmx = k[i];
      if (x[2 * i + 1] > rbig) {
        rbig = x[2 * i + 1];
        rwhere = i;
      }
    }
    expect(bad == 0, "sums: y", rep);
    expect(near(sum[0], rsum[0]) && near(sum[1], rsum[1]), "sums: sum", rep);
    expect(mn == rmn && mx == rmx, "sums: min and max", rep);
    expect(big == rbig && where == rwhere, "sums: max and where", rep);

    /* flux: a vector argument, increments at both ends (SoA), an optional
       increment (on in the first pass, off in the second), op_arg_idx */
    /* r and w hold the dats' values (declared zero, then fetched) */
    std::vector<double> rr(r);
    std::vector<float> rw(w);
    op_par_loop(flux, "flux", edges, op_arg_dat(dx, -2, e_n, 2, "double", OP_READ),
                op_arg_dat(dr, 0, e_n, 1, "double:soa", OP_INC),
                op_arg_dat(dr, 1, e_n, 1, "double:soa", OP_INC),
                op_opt_arg_dat(rep == 0, dw, 0, e_n, 1, "float", OP_INC), op_arg_idx(-1, OP_ID),
                op_arg_idx(1, e_n), op_arg_dat(dids, -1, OP_ID, 2, "int", OP_WRITE));
    op_fetch_data(dr, r.data());
    op_fetch_data(dw, w.data());
    op_fetch_data(dids, ids.data());
    bad = 0;
    for (int e = 0; e < n; e++) {
      const int a = e2n[2 * e], b = e2n[2 * e + 1];
      double d = x[2 * b] - x[2 * a] + 0.5 * (x[2 * b + 1] - x[2 * a + 1]);
      rr[a] += d;
      rr[b] -= d;
      if (rep == 0) rw[a] += 1.0f;
      bad += ids[2 * e] != e || ids[2 * e + 1] != b;
    }
    expect(bad == 0, "flux: op_arg_idx", rep);
    bad = 0;
    for (int i = 0; i < n; i++) bad += !near(r[i], rr[i]) || w[i] != rw[i];
    expect(bad == 0, "flux: increments", rep);

    /* scratch: OP_WORK on a global and on a dat */
    double t[3] = {-7.5, -7.5, -7.5};
    op_par_loop(scratch, "scratch", nodes, op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(t, 3, "double", OP_WORK), op_arg_dat(du, -1, OP_ID, 1, "double", OP_WORK),
                op_arg_dat(dy, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(dy, y.data());
    bad = 0;
    for (int i = 0; i < n; i++) bad += y[i] != std::fabs(x[2 * i] + 2.0 * x[2 * i + 1]) + 1.0;
    expect(bad == 0, "scratch: y", rep);

    /* pin: through the ends' map, z read and written (OP_RW), tag written
       (OP_WRITE); the map reaches each node once, so no two elements
       write one row: the device runs it flat, plain stores, in every
       scheme (2z + 1 is exact: bitwise in any order) */
    op_par_loop(pin, "pin", ends, op_arg_dat(dz, 0, b_n, 1, "double", OP_RW),
                op_arg_dat(dtag, 0, b_n, 1, "int", OP_WRITE));
    op_fetch_data(dz, z.data());
    op_fetch_data(dtag, tag.data());
    for (int j = 0; j < m; j++) {
      rz[b2n[j]] = 2.0 * rz[b2n[j]] + pin_shift;
      rtag[b2n[j]] = 7;
    }
    bad = 0;
    for (int i = 0; i < n; i++) bad += z[i] != rz[i] || tag[i] != rtag[i];
    expect(bad == 0, "pin: through a map", rep);

    /* count: OP_RW at both ends of the edges, which share nodes: atomics
       cannot serve it, so with atomics asked for every loop it is
       coloured (integer adds: the same in any order) */
    op_par_loop(count, "count", edges, op_arg_dat(dcnt, 0, e_n, 1, "int", OP_RW),
                op_arg_dat(dcnt, 1, e_n, 1, "int", OP_RW));
    op_fetch_data(dcnt, cnt.data());
    for (int e = 0; e < n; e++) {
      rcnt[e2n[2 * e]] += 1;
      rcnt[e2n[2 * e + 1]] += 1;
    }
    bad = 0;
    for (int i = 0; i < n; i++) bad += cnt[i] != rcnt[i];
    expect(bad == 0, "count: both ends", rep);

    /* a new value of the constant for the second pass */
    alpha = 0.25;
    op_decl_const(1, "double", &alpha);
  }
  op_timing_output();
  op_exit();
  printf("%s (%d wrong values)\n", wrong ? "FAILED" : "PASSED", wrong);
  return wrong != 0;
}
