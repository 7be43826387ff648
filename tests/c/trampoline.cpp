// trampoline.cpp -- the paths of op_seq.h's C++ trampoline against plain
// loops: the specialised path (argument facts read from the op_par_loop text),
// its SIMD blocks, the generic path (views that contradict the text), with
// sets long enough for several SIMD blocks and a remainder.
//
// Every check computes the same result with a plain loop over copies of the
// input and prints "PASS <name>" / "FAIL <name>". With libop2_seq (no
// argument) results must be bitwise those of the plain loop, except where
// noted; with `tol` (libop2_openmp: blocks in colour order, reductions per
// block) within 1e-12 relative. The program also checks which paths ran
// (path_<name>, counting with OP2_RS_COUNT_PATHS) and prints a digest of all
// results ("DIGEST <hex>"), which must not depend on the thread count.
// Compiled with -DOP2_RS_SIMD=0, 1, 2 and 3, with and without
// OP2_RS_SIMD_SUMS and OP2_RS_SIMD_GATHER_ONLY, and with the defaults of the
// build machine's own instruction set (-march=native), by
// tests/tests/trampoline.rs.
#define OP2_RS_COUNT_PATHS
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "op_seq.h"

// loops that read through maps and increment nothing through them
static const bool k_gather_simd = OP2_RS_SIMD >= 2 && OP2_RS_SIMD_GATHER_ONLY;

// 20011 edges: 1250 SIMD blocks of 16 and a remainder of 11 (sequential library).
static const int NN = 8000, NE = 20011, NC = 6007;

static int g_failures = 0;
static bool g_tol = false;
static uint64_t g_digest = 1469598103934665603ULL;

static void report(const char *name, bool ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    g_failures++;
}

static void digest(const void *p, size_t bytes) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < bytes; ++i)
    g_digest = (g_digest ^ c[i]) * 1099511628211ULL;
}

// Bitwise equal, or (tol) within 1e-12 relative.
template <typename T> static bool close(const T *a, const T *b, size_t n, bool exact) {
  for (size_t i = 0; i < n; ++i) {
    if (exact || !g_tol) {
      if (memcmp(&a[i], &b[i], sizeof(T)) != 0)
        return false;
    } else {
      const double x = (double)a[i], y = (double)b[i];
      if (fabs(x - y) > 1e-12 * fmax(fabs(x), fabs(y)))
        return false;
    }
  }
  return true;
}

// A global OP_INC of doubles: summed per lane in SIMD blocks (OP2_RS_SIMD_SUMS),
// so within 1e-12 there; else bitwise (or within 1e-12 with `tol`).
static const bool k_lane_sums = OP2_RS_SIMD >= 1 && OP2_RS_SIMD_SUMS;
static bool close_sum(const double *a, const double *b) {
  if (!k_lane_sums)
    return close(a, b, 1, false);
  return fabs(*a - *b) <= 1e-12 * fmax(fabs(*a), fabs(*b));
}

// Which paths ran since the last call: generic ranges, specialised ranges, SIMD blocks.
struct paths {
  long generic, special, simd, side;
};
static paths take_paths() {
  paths p{op2_rs::path_count[0].exchange(0), op2_rs::path_count[1].exchange(0),
          op2_rs::path_count[2].exchange(0), op2_rs::path_count[3].exchange(0)};
  return p;
}
static void report_paths(const char *name, paths p, bool want_generic, bool want_simd) {
  char label[64];
  snprintf(label, sizeof label, "path_%s", name);
  const bool ok = (p.generic > 0) == want_generic && (p.special > 0) == !want_generic &&
                  (p.simd > 0) == want_simd;
  if (!ok)
    printf("  %s: generic %ld, specialised %ld, simd blocks %ld\n", name, p.generic, p.special,
           p.simd);
  report(label, ok);
}

// ---- mesh --------------------------------------------------------------------

static uint64_t g_lcg = 0x9E3779B97F4A7C15ULL;
static uint32_t next_u32() {
  g_lcg = g_lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(g_lcg >> 33);
}
static double next_double() { return (double)(next_u32() % 100000) / 9973.0 - 5.0; }

static std::vector<int> m_edge(2 * NE), m_cell(4 * NC), m_edge2(2 * NE);
static std::vector<double> d_x(2 * NN), d_w(NE), d_c(4 * NC), d_acc(NN), d_q(2 * NC),
    d_res(2 * NC), d_adt(NC);
static std::vector<float> d_f(NN);
static std::vector<int> d_i(NN);

static op_set nodes, edges, cells;
static op_map pedge, pedge2, pcell;
static op_dat xd, xf, xi, ed, cd, qd, resd, adtd;

static void make_mesh() {
  for (int e = 0; e < NE; ++e) {
    // chains of consecutive edges share nodes (increments collide inside a
    // SIMD block); every 97th edge is a loop (both ends the same node)
    const int a = (e % 3 == 0) ? (int)(next_u32() % NN) : m_edge[2 * (e - 1) + 1];
    const int b = (e % 97 == 0) ? a : (int)(next_u32() % NN);
    m_edge[2 * e] = a;
    m_edge[2 * e + 1] = b;
    m_edge2[2 * e] = (int)(next_u32() % NN);
    m_edge2[2 * e + 1] = (int)(next_u32() % NN);
  }
  for (int n = 0; n < 4 * NC; ++n)
    m_cell[n] = (n % 7 == 3) ? m_cell[n - 1] : (int)(next_u32() % NN);
  for (auto &v : d_x)
    v = next_double();
  for (auto &v : d_w)
    v = next_double();
  for (auto &v : d_c)
    v = next_double();
  for (auto &v : d_acc)
    v = next_double();
  for (auto &v : d_q)
    v = next_double();
  for (auto &v : d_res)
    v = next_double();
  for (auto &v : d_adt)
    v = 1.5 + fabs(next_double());
  for (auto &v : d_f)
    v = (float)next_double();
  for (auto &v : d_i)
    v = (int)(next_u32() % 2001) - 1000;

  nodes = op_decl_set(NN, "nodes");
  edges = op_decl_set(NE, "edges");
  cells = op_decl_set(NC, "cells");
  pedge = op_decl_map(edges, nodes, 2, m_edge.data(), "pedge");
  pedge2 = op_decl_map(edges, nodes, 2, m_edge2.data(), "pedge2");
  pcell = op_decl_map(cells, nodes, 4, m_cell.data(), "pcell");
  xd = op_decl_dat(nodes, 2, "double", d_x.data(), "xd");
  xf = op_decl_dat(nodes, 1, "float", d_f.data(), "xf");
  xi = op_decl_dat(nodes, 1, "int", d_i.data(), "xi");
  ed = op_decl_dat(edges, 1, "double", d_w.data(), "ed");
  cd = op_decl_dat(cells, 4, "double", d_c.data(), "cd");
  qd = op_decl_dat(cells, 2, "double", d_q.data(), "q");
  resd = op_decl_dat(cells, 2, "double", d_res.data(), "res");
  adtd = op_decl_dat(cells, 1, "double", d_adt.data(), "adt");
}

// ---- kernels -------------------------------------------------------------------

static void k_gather(const double *x0, const double *x1, const double *w, const double *c3,
                     double *sum, double *mn, double *mx, int *cnt, double *out) {
  const double v = x0[0] * c3[0] + x1[1] * c3[1] - x0[1] * x1[0] * c3[2];
  *sum += v * *w;
  if (v < *mn)
    *mn = v;
  if (v > *mx)
    *mx = v;
  *cnt += v > 0 ? 1 : 0;
  out[0] = v;
  out[1] = v * *w;
}

static void k_mix(const float *f0, const float *f1, const int *i0, const double *c, float *outf,
                  int *outi, double *outd) {
  outf[0] = f0[0] * 0.5f - f1[0];
  outi[0] = i0[0] * 3 - (int)f1[0];
  outd[0] = c[0] * (double)f0[0] + c[3] / (1.0 + c[1] * c[1]);
}

// one increment per target per element: the SIMD path is bitwise exact
static void k_inc(const double *w, double *a, double *b) {
  a[0] += *w;
  b[0] -= 0.5 * *w;
}

// two increments of a: summed from zero per element in the SIMD path
static void k_inc2(const double *w, double *a, double *b) {
  a[0] += *w;
  a[0] += *w * *w;
  b[0] -= *w;
}

static void k_vec(const double **x, double **u, const double *c) {
  for (int k = 0; k < 4; ++k)
    u[k][0] += c[k] * (x[k][0] - x[(k + 1) % 4][1]);
}

static void k_update(const double *qold, double *q, double *res, const double *adt,
                     double *rms) {
  const double s = 1.0 / *adt;
  for (int k = 0; k < 2; ++k) {
    const double d = s * res[k];
    q[k] = qold[k] - d;
    res[k] = 0.0;
    *rms += d * d;
  }
}

static void k_idx(const int *n, const int *m, const double *x, double *out) {
  out[0] = *n * 0.5 + *m + x[1];
}

static void k_sym(const double *a, const double *b, double *out) { out[0] = a[0] + b[0]; }

// adds -0.0 (for the compiler a value like any other)
static void k_negz(const double *w, double *a, double *z) {
  const double nz = -fabs(w[0]) * 0.0;
  a[0] += nz;
  *z += nz;
}
static void k_negz_gbl(const double *w, double *z) { *z += -fabs(w[0]) * 0.0; }

// a vector argument wider than the generic path's fixed array (64 pointers)
static const int WIDE = 70;
static void k_wide(const double **x, double *out) {
  double s = 0.0;
  for (int k = 0; k < WIDE; ++k)
    s += (k + 1) * x[k][1];
  out[0] = s;
}

// a conjugate-gradient step, loop by loop (aero's direct loops): direct dats
// and globals only, so SIMD blocks run back to back in one call per range
static void k_axpy(const double *r, double *p, const double *beta) { p[0] = r[0] + beta[0] * p[0]; }
static void k_step(double *u, double *r, const double *p, double *v, const double *alpha) {
  u[0] = u[0] + alpha[0] * p[0];
  r[0] = r[0] - alpha[0] * v[0];
  v[0] = 0.0;
}
static void k_dot(const double *a, const double *b, double *s) { s[0] = s[0] + a[0] * b[0]; }
static void k_norm(const double *a, double *s, double *top) {
  s[0] = s[0] + a[0] * a[0];
  top[0] = a[0] > top[0] ? a[0] : top[0];
}

// ---- checks --------------------------------------------------------------------

static void check_gather() {
  const double c3[3] = {0.75, -1.25, 0.5};
  double sum = 1.5, mn = 1e300, mx = -1e300;
  int cnt = 7;
  op_dat out = op_decl_dat(edges, 2, "double", (double *)nullptr, "g_out");
  take_paths();
  op_par_loop(k_gather, "gather", edges, op_arg_dat(xd, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(xd, 1, pedge, 2, "double", OP_READ),
              op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(c3, 3, "double", OP_READ), op_arg_gbl(&sum, 1, "double", OP_INC),
              op_arg_gbl(&mn, 1, "double", OP_MIN), op_arg_gbl(&mx, 1, "double", OP_MAX),
              op_arg_gbl(&cnt, 1, "int", OP_INC),
              op_arg_dat(out, -1, OP_ID, 2, "double", OP_WRITE));
  report_paths("gather", take_paths(), false, k_gather_simd);

  double w_sum = 1.5, w_mn = 1e300, w_mx = -1e300;
  int w_cnt = 7;
  std::vector<double> w_out(2 * NE), g_out(2 * NE);
  for (int e = 0; e < NE; ++e)
    k_gather(&d_x[2 * m_edge[2 * e]], &d_x[2 * m_edge[2 * e + 1]], &d_w[e], c3, &w_sum, &w_mn,
             &w_mx, &w_cnt, &w_out[2 * e]);
  op_fetch_data(out, g_out.data());
  report("gather", close(g_out.data(), w_out.data(), g_out.size(), true) &&
                       close_sum(&sum, &w_sum) && mn == w_mn && mx == w_mx &&
                       cnt == w_cnt);
  digest(g_out.data(), g_out.size() * sizeof(double));
  digest(&sum, sizeof sum);
  digest(&cnt, sizeof cnt);

  // the same loop with idx and dim in variables: those arguments are formed
  // at run time, the others as before; no SIMD blocks
  const int zero = 0, one = 1, two = 2;
  double sum2 = 1.5, mn2 = 1e300, mx2 = -1e300;
  int cnt2 = 7;
  op_dat out2 = op_decl_dat(edges, 2, "double", (double *)nullptr, "g_out2");
  op_par_loop(k_gather, "gather_rt", edges, op_arg_dat(xd, zero, pedge, two, "double", OP_READ),
              op_arg_dat(xd, one, pedge, 2, "double", OP_READ),
              op_arg_dat(ed, -1, OP_ID, one, "double", OP_READ),
              op_arg_gbl(c3, 3, "double", OP_READ), op_arg_gbl(&sum2, one, "double", OP_INC),
              op_arg_gbl(&mn2, 1, "double", OP_MIN), op_arg_gbl(&mx2, 1, "double", OP_MAX),
              op_arg_gbl(&cnt2, 1, "int", OP_INC),
              op_arg_dat(out2, -1, OP_ID, two, "double", OP_WRITE));
  report_paths("gather_runtime_args", take_paths(), false, false);
  op_fetch_data(out2, g_out.data());
  report("gather_runtime_args", close(g_out.data(), w_out.data(), g_out.size(), true) &&
                                    close(&sum2, &w_sum, 1, false) && mn2 == w_mn &&
                                    mx2 == w_mx && cnt2 == w_cnt);
}

static void check_mix() {
  op_dat of = op_decl_dat(cells, 1, "float", (float *)nullptr, "of");
  op_dat oi = op_decl_dat(cells, 1, "int", (int *)nullptr, "oi");
  op_dat od = op_decl_dat(cells, 1, "double", (double *)nullptr, "od");
  take_paths();
  op_par_loop(k_mix, "mix", cells, op_arg_dat(xf, 0, pcell, 1, "float", OP_READ),
              op_arg_dat(xf, 2, pcell, 1, "float", OP_READ),
              op_arg_dat(xi, 3, pcell, 1, "int", OP_READ),
              op_arg_dat(cd, -1, OP_ID, 4, "double", OP_READ),
              op_arg_dat(of, -1, OP_ID, 1, "float", OP_WRITE),
              op_arg_dat(oi, -1, OP_ID, 1, "int", OP_WRITE),
              op_arg_dat(od, -1, OP_ID, 1, "double", OP_WRITE));
  report_paths("mixed_types", take_paths(), false, k_gather_simd);
  std::vector<float> wf(NC), gf(NC);
  std::vector<int> wi(NC), gi(NC);
  std::vector<double> wd(NC), gd(NC);
  for (int c = 0; c < NC; ++c)
    k_mix(&d_f[m_cell[4 * c]], &d_f[m_cell[4 * c + 2]], &d_i[m_cell[4 * c + 3]], &d_c[4 * c],
          &wf[c], &wi[c], &wd[c]);
  op_fetch_data(of, gf.data());
  op_fetch_data(oi, gi.data());
  op_fetch_data(od, gd.data());
  report("mixed_types", close(gf.data(), wf.data(), NC, true) &&
                            close(gi.data(), wi.data(), NC, true) &&
                            close(gd.data(), wd.data(), NC, true));
  digest(gf.data(), NC * sizeof(float));
  digest(gi.data(), NC * sizeof(int));
  digest(gd.data(), NC * sizeof(double));
}

static void check_inc() {
  op_dat a = op_decl_dat(nodes, 1, "double", d_acc.data(), "inc_a");
  take_paths();
  op_par_loop(k_inc, "inc", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(a, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(a, 1, pedge, 1, "double", OP_INC));
  report_paths("inc_map", take_paths(), false, OP2_RS_SIMD >= 3);
  std::vector<double> w(d_acc), g(NN);
  for (int e = 0; e < NE; ++e)
    k_inc(&d_w[e], &w[m_edge[2 * e]], &w[m_edge[2 * e + 1]]);
  op_fetch_data(a, g.data());
  report("inc_map", close(g.data(), w.data(), NN, false));
  digest(g.data(), NN * sizeof(double));

  // two increments of the same value per element: the SIMD path (OP2_RS_SIMD=3)
  // adds their sum, so only close (and not part of the digest)
  op_dat b = op_decl_dat(nodes, 1, "double", d_acc.data(), "inc_b");
  op_par_loop(k_inc2, "inc2", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(b, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(b, 1, pedge, 1, "double", OP_INC));
  take_paths();
  std::vector<double> w2(d_acc);
  for (int e = 0; e < NE; ++e)
    k_inc2(&d_w[e], &w2[m_edge[2 * e]], &w2[m_edge[2 * e + 1]]);
  op_fetch_data(b, g.data());
  bool ok = true;
  for (int n = 0; n < NN; ++n)
    ok = ok && fabs(g[n] - w2[n]) <= 1e-12 * fmax(1.0, fabs(w2[n]));
  if (OP2_RS_SIMD < 3 && !g_tol)
    ok = ok && close(g.data(), w2.data(), NN, true);
  report("inc_map_twice", ok);
}

static void check_vector() {
  op_dat u = op_decl_dat(nodes, 1, "double", d_acc.data(), "vec_u");
  take_paths();
  op_par_loop(k_vec, "vec", cells, op_arg_dat(xd, -4, pcell, 2, "double", OP_READ),
              op_arg_dat(u, -4, pcell, 1, "double", OP_INC),
              op_arg_dat(cd, -1, OP_ID, 4, "double", OP_READ));
  report_paths("vector_args", take_paths(), false, OP2_RS_SIMD >= 3);
  std::vector<double> w(d_acc), g(NN);
  for (int c = 0; c < NC; ++c) {
    const double *x[4];
    double *p[4];
    for (int k = 0; k < 4; ++k) {
      x[k] = &d_x[2 * m_cell[4 * c + k]];
      p[k] = &w[m_cell[4 * c + k]];
    }
    k_vec(x, p, &d_c[4 * c]);
  }
  op_fetch_data(u, g.data());
  report("vector_args", close(g.data(), w.data(), NN, false));
  digest(g.data(), NN * sizeof(double));
}

static void check_update() {
  op_dat qold = op_decl_dat(cells, 2, "double", d_q.data(), "u_qold");
  op_dat q = op_decl_dat(cells, 2, "double", (double *)nullptr, "u_q");
  op_dat res = op_decl_dat(cells, 2, "double", d_res.data(), "u_res");
  double rms = 0.25;
  take_paths();
  op_par_loop(k_update, "update", cells, op_arg_dat(qold, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(q, -1, OP_ID, 2, "double", OP_WRITE),
              op_arg_dat(res, -1, OP_ID, 2, "double", OP_RW),
              op_arg_dat(adtd, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&rms, 1, "double", OP_INC));
  report_paths("direct_update", take_paths(), false, OP2_RS_SIMD >= 1);
  std::vector<double> wq(2 * NC), wres(d_res), gq(2 * NC), gres(2 * NC);
  double w_rms = 0.25;
  for (int c = 0; c < NC; ++c)
    k_update(&d_q[2 * c], &wq[2 * c], &wres[2 * c], &d_adt[c], &w_rms);
  op_fetch_data(q, gq.data());
  op_fetch_data(res, gres.data());
  report("direct_update", close(gq.data(), wq.data(), 2 * NC, true) &&
                              close(gres.data(), wres.data(), 2 * NC, true) &&
                              close_sum(&rms, &w_rms));
  digest(gq.data(), 2 * NC * sizeof(double));
  digest(&rms, sizeof rms);
}

// The loops of one conjugate-gradient step on a set of 20011 edges (more than
// one plan block, with a remainder after the SIMD blocks), against the same
// kernels in plain loops: dats bitwise, sums as close_sum says, the maximum
// bitwise. Every loop takes SIMD blocks from level 1.
static void check_direct_cg() {
  std::vector<double> u0(NE), r0(NE), p0(NE), v0(NE);
  for (int e = 0; e < NE; ++e) {
    u0[e] = next_double();
    r0[e] = next_double();
    p0[e] = next_double();
    v0[e] = next_double();
  }
  op_dat u = op_decl_dat(edges, 1, "double", u0.data(), "cg_u");
  op_dat r = op_decl_dat(edges, 1, "double", r0.data(), "cg_r");
  op_dat p = op_decl_dat(edges, 1, "double", p0.data(), "cg_p");
  op_dat v = op_decl_dat(edges, 1, "double", v0.data(), "cg_v");
  double pv = 0.125, rr = 0.0, top = -1e300;
  const double alpha = 0.375, beta = -0.625;
  take_paths();
  op_par_loop(k_dot, "cg_dot", edges, op_arg_dat(p, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(v, -1, OP_ID, 1, "double", OP_READ), op_arg_gbl(&pv, 1, "double", OP_INC));
  const paths dot = take_paths();
  report_paths("direct_cg_dot", dot, false, OP2_RS_SIMD >= 1);
  op_par_loop(k_step, "cg_step", edges, op_arg_dat(u, -1, OP_ID, 1, "double", OP_INC),
              op_arg_dat(r, -1, OP_ID, 1, "double", OP_INC),
              op_arg_dat(p, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(v, -1, OP_ID, 1, "double", OP_RW),
              op_arg_gbl(&alpha, 1, "double", OP_READ));
  const paths step = take_paths();
  report_paths("direct_cg_step", step, false, OP2_RS_SIMD >= 1);
  op_par_loop(k_norm, "cg_norm", edges, op_arg_dat(r, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&rr, 1, "double", OP_INC), op_arg_gbl(&top, 1, "double", OP_MAX));
  const paths norm = take_paths();
  report_paths("direct_cg_norm", norm, false, OP2_RS_SIMD >= 1);
  op_par_loop(k_axpy, "cg_axpy", edges, op_arg_dat(r, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(p, -1, OP_ID, 1, "double", OP_RW),
              op_arg_gbl(&beta, 1, "double", OP_READ));
  const paths axpy = take_paths();
  report_paths("direct_cg_axpy", axpy, false, OP2_RS_SIMD >= 1);
  // The reductions over few bytes per element (dot: 16, norm: 8) run their
  // 4 full plan blocks side by side where the library hands blocks over
  // together (libop2_openmp, any thread count; libop2_seq runs the set in
  // one range), unless their sums go per lane (OP2_RS_SIMD_SUMS: no chain
  // to overlap); the loops without a reduction never do.
#if defined(_OPENMP)
  const bool want_side = OP2_RS_SIMD >= 1 && OP2_RS_SIDE_BY_SIDE && !OP2_RS_SIMD_SUMS;
#else
  const bool want_side = false;
#endif
  const bool side_ok = (dot.side == (want_side ? 4 : 0)) && (norm.side == (want_side ? 4 : 0)) &&
                       step.side == 0 && axpy.side == 0;
  if (!side_ok)
    printf("  side by side: dot %ld, norm %ld, step %ld, axpy %ld\n", dot.side, norm.side,
           step.side, axpy.side);
  report("path_direct_cg_side", side_ok);

  double w_pv = 0.125, w_rr = 0.0, w_top = -1e300;
  for (int e = 0; e < NE; ++e)
    w_pv = w_pv + p0[e] * v0[e];
  for (int e = 0; e < NE; ++e) {
    u0[e] = u0[e] + alpha * p0[e];
    r0[e] = r0[e] - alpha * v0[e];
    v0[e] = 0.0;
  }
  for (int e = 0; e < NE; ++e) {
    w_rr = w_rr + r0[e] * r0[e];
    w_top = r0[e] > w_top ? r0[e] : w_top;
  }
  for (int e = 0; e < NE; ++e)
    p0[e] = r0[e] + beta * p0[e];
  std::vector<double> gu(NE), gr(NE), gp(NE), gv(NE);
  op_fetch_data(u, gu.data());
  op_fetch_data(r, gr.data());
  op_fetch_data(p, gp.data());
  op_fetch_data(v, gv.data());
  const bool dats = close(gu.data(), u0.data(), NE, true) && close(gr.data(), r0.data(), NE, true) &&
                    close(gp.data(), p0.data(), NE, true) && close(gv.data(), v0.data(), NE, true);
  report("direct_cg",
         dats && close_sum(&pv, &w_pv) && close_sum(&rr, &w_rr) && close(&top, &w_top, 1, true));
  digest(gu.data(), NE * sizeof(double));
  digest(gr.data(), NE * sizeof(double));
  digest(gp.data(), NE * sizeof(double));
  digest(&pv, sizeof pv);
  digest(&rr, sizeof rr);
  digest(&top, sizeof top);
}

// -0.0 plus -0.0 is -0.0: staged increments and lane sums must start from
// -0.0, not +0.0, to keep a total of -0.0 (and the scalar path's bits)
static void check_signed_zero() {
  std::vector<double> nz(NN, -0.0), g(NN);
  op_dat a = op_decl_dat(nodes, 1, "double", nz.data(), "negz_a");
  double z = -0.0;
  take_paths();
  op_par_loop(k_negz, "negz", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(a, 0, pedge, 1, "double", OP_INC),
              op_arg_gbl(&z, 1, "double", OP_INC));
  report_paths("signed_zero_map", take_paths(), false, OP2_RS_SIMD >= 3);
  double z2 = -0.0;
  op_par_loop(k_negz_gbl, "negz_gbl", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_arg_gbl(&z2, 1, "double", OP_INC));
  report_paths("signed_zero_gbl", take_paths(), false, OP2_RS_SIMD >= 1);
  op_fetch_data(a, g.data());
  bool ok = std::signbit(z) && z == 0.0 && std::signbit(z2) && z2 == 0.0;
  for (int n = 0; n < NN; ++n)
    ok = ok && std::signbit(g[n]) && g[n] == 0.0;
  report("signed_zero", ok);
  digest(g.data(), NN * sizeof(double));
  digest(&z, sizeof z);
}

static void check_idx() {
  op_dat out = op_decl_dat(edges, 1, "double", (double *)nullptr, "idx_out");
  take_paths();
  op_par_loop(k_idx, "idx", edges, op_arg_idx(-1, OP_ID), op_arg_idx(1, pedge),
              op_arg_dat(xd, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));
  report_paths("idx_args", take_paths(), false, false);
  std::vector<double> w(NE), g(NE);
  for (int e = 0; e < NE; ++e)
    k_idx(&e, &m_edge[2 * e + 1], &d_x[2 * m_edge[2 * e]], &w[e]);
  op_fetch_data(out, g.data());
  report("idx_args", close(g.data(), w.data(), NE, true));
  digest(g.data(), NE * sizeof(double));
}

// The same text for different maps (or dats): the views contradict what the
// text says (one map row, one base pointer), so the generic path runs.
static int g_pick = 0;
static op_map pick_map() { return (g_pick++ % 2) ? pedge2 : pedge; }
static op_dat g_pick_y, g_pick_z;
static op_dat pick_dat() { return (g_pick++ % 2) ? g_pick_z : g_pick_y; }

static void check_text_contradicted() {
  op_dat out = op_decl_dat(edges, 1, "double", (double *)nullptr, "lie_out");
  take_paths();
  op_par_loop(k_sym, "lie_map", edges, op_arg_dat(xd, 0, pick_map(), 2, "double", OP_READ),
              op_arg_dat(xd, 0, pick_map(), 2, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));
  report_paths("text_contradicted_map", take_paths(), true, false);
  std::vector<double> w(NE), g(NE);
  for (int e = 0; e < NE; ++e) // k_sym is symmetric: argument order does not matter
    k_sym(&d_x[2 * m_edge[2 * e]], &d_x[2 * m_edge2[2 * e]], &w[e]);
  op_fetch_data(out, g.data());
  report("text_contradicted_map", close(g.data(), w.data(), NE, true));
  digest(g.data(), NE * sizeof(double));

  op_dat y = op_decl_dat(nodes, 2, "double", d_x.data(), "lie_y");
  std::vector<double> d_y(d_x);
  for (auto &v : d_y)
    v *= 3.0;
  op_dat z = op_decl_dat(nodes, 2, "double", d_y.data(), "lie_z");
  g_pick_y = y;
  g_pick_z = z;
  op_par_loop(k_sym, "lie_dat", edges, op_arg_dat(pick_dat(), 1, pedge, 2, "double", OP_READ),
              op_arg_dat(pick_dat(), 1, pedge, 2, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));
  report_paths("text_contradicted_dat", take_paths(), true, false);
  for (int e = 0; e < NE; ++e)
    k_sym(&d_x[2 * m_edge[2 * e + 1]], &d_y[2 * m_edge[2 * e + 1]], &w[e]);
  op_fetch_data(out, g.data());
  report("text_contradicted_dat", close(g.data(), w.data(), NE, true));
  digest(g.data(), NE * sizeof(double));
}

static void check_wide_vector() {
  const int nw = 150;
  op_set wset = op_decl_set(nw, "wide");
  std::vector<int> m(WIDE * nw);
  for (auto &v : m)
    v = (int)(next_u32() % NN);
  op_map pw = op_decl_map(wset, nodes, WIDE, m.data(), "pwide");
  op_dat out = op_decl_dat(wset, 1, "double", (double *)nullptr, "wide_out");
  std::vector<double> w(nw), g(nw);
  for (int c = 0; c < nw; ++c) {
    const double *x[WIDE];
    for (int k = 0; k < WIDE; ++k)
      x[k] = &d_x[2 * m[WIDE * c + k]];
    k_wide(x, &w[c]);
  }
  take_paths();
  op_par_loop(k_wide, "wide", wset, op_arg_dat(xd, -70, pw, 2, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));
  // SIMD blocks when a block's gathered values fit the trampoline's limit
  report_paths("vector_wide", take_paths(), false,
               k_gather_simd && OP2_RS_SIMD_LANES * WIDE * 2 * sizeof(double) <= 48 * 1024);
  op_fetch_data(out, g.data());
  report("vector_wide", close(g.data(), w.data(), nw, true));
  // the same with the width in a variable: formed at run time
  const int minus_wide = -WIDE;
  op_par_loop(k_wide, "wide_rt", wset, op_arg_dat(xd, minus_wide, pw, 2, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));
  take_paths();
  std::fill(g.begin(), g.end(), 0.0);
  op_fetch_data(out, g.data());
  report("vector_wide_runtime", close(g.data(), w.data(), nw, true));
  digest(g.data(), nw * sizeof(double));
}

int main(int argc, char **argv) {
  g_tol = argc > 1 && strcmp(argv[1], "tol") == 0;
  op_init(argc, argv, 0);
  make_mesh();
  check_gather();
  check_mix();
  check_inc();
  check_vector();
  check_update();
  check_direct_cg();
  check_signed_zero();
  check_idx();
  check_text_contradicted();
  check_wide_vector();
  printf("DIGEST %016llx\n", (unsigned long long)g_digest);
  op_exit();
  printf("DONE %d failures\n", g_failures);
  return g_failures != 0;
}
