// trampoline_const.cpp -- vector arguments (op_arg_dat with idx < -1) whose
// kernel parameter is spelled with const at either level, as OP2's op_seq.h
// accepts: T**, const T**, T* const*, const T* const* and T const* const*.
// Each spelling runs in a loop that increments through a vector argument and
// in one that only reads through it, with the width as a literal (the
// specialised path and its SIMD blocks) and in a variable (the argument is
// formed at run time); a vector wider than the generic path's fixed array
// (64 pointers) as well. Results must be bitwise those of a plain loop over
// copies of the input (no row of the map names a node twice, so staged
// increments keep the scalar path's bits). Prints "PASS <name>" /
// "FAIL <name>" per check and "DONE <n> failures". Compiled by
// tests/tests/trampoline.rs at OP2_RS_SIMD 0 to 3, -O0, -O3 and
// -O3 -march=native, and with OP2_RS_PLAIN_PAR_LOOP=1.
#define OP2_RS_COUNT_PATHS
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "op_seq.h"

static const int NN = 3000, NC = 2011, WIDE = 70, NW = 53;

static int g_failures = 0;

static void report(const char *name, bool ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    g_failures++;
}

static bool same_bits(const std::vector<double> &a, const std::vector<double> &b) {
  return a.size() == b.size() && memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The paths that ran since the last call must be the specialised one, with
// SIMD blocks or not (the plain op_par_loop counts nothing).
static void check_paths(const char *name, bool want_simd) {
  const long generic = op2_rs::path_count[0].exchange(0);
  const long special = op2_rs::path_count[1].exchange(0);
  const long simd = op2_rs::path_count[2].exchange(0);
  char label[80];
  snprintf(label, sizeof label, "path_%s", name);
  if (OP2_RS_PLAIN_PAR_LOOP) {
    report(label, generic == 0 && special == 0 && simd == 0);
    return;
  }
  const bool ok = generic == 0 && special > 0 && (simd > 0) == want_simd;
  if (!ok)
    printf("  %s: generic %ld, specialised %ld, simd blocks %ld\n", name, generic, special, simd);
  report(label, ok);
}

// SIMD blocks expected for a loop that increments through a vector argument,
// and for one that only reads through it.
static const bool k_inc_simd = OP2_RS_SIMD >= 3;
static const bool k_read_simd = OP2_RS_SIMD >= 2 && OP2_RS_SIMD_GATHER_ONLY;

// ---- mesh --------------------------------------------------------------------

static uint64_t g_lcg = 0x2545F4914F6CDD1DULL;
static uint32_t next_u32() {
  g_lcg = g_lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(g_lcg >> 33);
}
static double next_double() { return (double)(next_u32() % 100000) / 9973.0 - 5.0; }

static std::vector<int> m_cell(4 * NC), m_wide(WIDE * NW);
static std::vector<double> d_x(2 * NN), d_u(NN), d_c(4 * NC);
static op_set nodes, cells, wset;
static op_map pcell, pwide;
static op_dat xd, cd;

// A row of n distinct nodes.
static void distinct_row(int *row, int n) {
  for (int k = 0; k < n; ++k) {
    bool again = true;
    while (again) {
      row[k] = (int)(next_u32() % NN);
      again = false;
      for (int j = 0; j < k; ++j)
        again = again || row[j] == row[k];
    }
  }
}

static void make_mesh() {
  for (int c = 0; c < NC; ++c)
    distinct_row(&m_cell[4 * c], 4);
  for (int c = 0; c < NW; ++c)
    distinct_row(&m_wide[WIDE * c], WIDE);
  for (auto &v : d_x)
    v = next_double();
  for (auto &v : d_u)
    v = next_double();
  for (auto &v : d_c)
    v = next_double();
  nodes = op_decl_set(NN, "nodes");
  cells = op_decl_set(NC, "cells");
  wset = op_decl_set(NW, "wide");
  pcell = op_decl_map(cells, nodes, 4, m_cell.data(), "pcell");
  pwide = op_decl_map(wset, nodes, WIDE, m_wide.data(), "pwide");
  xd = op_decl_dat(nodes, 2, "double", d_x.data(), "x");
  cd = op_decl_dat(cells, 4, "double", d_c.data(), "c");
}

// ---- kernels: one body, each parameter spelling --------------------------------

template <typename X, typename U> static inline void inc_body(X x, U u, const double *c) {
  for (int k = 0; k < 4; ++k)
    u[k][0] += c[k] * (x[k][0] - x[(k + 1) % 4][1]);
}
template <typename X> static inline void read_body(X x, double *out) {
  out[0] = x[0][0] * x[1][1] - x[2][0] + 0.5 * x[3][1];
}

static void inc_pp(double **x, double **u, const double *c) { inc_body(x, u, c); }
static void inc_cpp(const double **x, double **u, const double *c) { inc_body(x, u, c); }
static void inc_pcp(double *const *x, double *const *u, const double *c) { inc_body(x, u, c); }
static void inc_cpcp(const double *const *x, double *const *u, const double *c) {
  inc_body(x, u, c);
}
static void inc_dcpcp(double const *const *x, double *const *u, double const *c) {
  inc_body(x, u, c);
}

static void read_pp(double **x, double *out) { read_body(x, out); }
static void read_cpp(const double **x, double *out) { read_body(x, out); }
static void read_pcp(double *const *x, double *out) { read_body(x, out); }
static void read_cpcp(const double *const *x, double *out) { read_body(x, out); }
static void read_dcpcp(double const *const *x, double *out) { read_body(x, out); }

static void wide_dcpcp(double const *const *x, double *out) {
  double s = 0.0;
  for (int k = 0; k < WIDE; ++k)
    s += (k + 1) * x[k][1];
  out[0] = s;
}

// ---- checks --------------------------------------------------------------------

// What the increment loops must give (a plain loop over a copy).
static std::vector<double> inc_reference() {
  std::vector<double> u(d_u);
  for (int c = 0; c < NC; ++c) {
    const double *x[4];
    double *p[4];
    for (int k = 0; k < 4; ++k) {
      x[k] = &d_x[2 * m_cell[4 * c + k]];
      p[k] = &u[m_cell[4 * c + k]];
    }
    inc_body(x, p, &d_c[4 * c]);
  }
  return u;
}

// What the read loops must give.
static std::vector<double> read_reference() {
  std::vector<double> out(NC);
  for (int c = 0; c < NC; ++c) {
    const double *x[4];
    for (int k = 0; k < 4; ++k)
      x[k] = &d_x[2 * m_cell[4 * c + k]];
    read_body(x, &out[c]);
  }
  return out;
}

// The increment and read loops of one spelling, with the width as a literal
// and in a variable.
#define CHECK_SPELLING(tag, inc_kernel, read_kernel)                                             \
  do {                                                                                           \
    const int minus_four = -4;                                                                   \
    std::vector<double> g(NN), r(NC);                                                            \
    op_dat u = op_decl_dat(nodes, 1, "double", d_u.data(), "u_" tag);                            \
    op_par_loop(inc_kernel, "inc_" tag, cells, op_arg_dat(xd, -4, pcell, 2, "double", OP_READ),  \
                op_arg_dat(u, -4, pcell, 1, "double", OP_INC),                                   \
                op_arg_dat(cd, -1, OP_ID, 4, "double", OP_READ));                                \
    check_paths("inc_" tag, k_inc_simd);                                                         \
    op_fetch_data(u, g.data());                                                                  \
    report("inc_" tag, same_bits(g, inc_ref));                                                   \
    op_dat u2 = op_decl_dat(nodes, 1, "double", d_u.data(), "u2_" tag);                          \
    op_par_loop(inc_kernel, "inc_rt_" tag, cells,                                                \
                op_arg_dat(xd, minus_four, pcell, 2, "double", OP_READ),                         \
                op_arg_dat(u2, minus_four, pcell, 1, "double", OP_INC),                          \
                op_arg_dat(cd, -1, OP_ID, 4, "double", OP_READ));                                \
    check_paths("inc_runtime_" tag, false);                                                      \
    op_fetch_data(u2, g.data());                                                                 \
    report("inc_runtime_" tag, same_bits(g, inc_ref));                                           \
    op_dat out = op_decl_dat(cells, 1, "double", (double *)nullptr, "out_" tag);                 \
    op_par_loop(read_kernel, "read_" tag, cells, op_arg_dat(xd, -4, pcell, 2, "double", OP_READ), \
                op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));                              \
    check_paths("read_" tag, k_read_simd);                                                       \
    op_fetch_data(out, r.data());                                                                \
    report("read_" tag, same_bits(r, read_ref));                                                 \
    op_par_loop(read_kernel, "read_rt_" tag, cells,                                              \
                op_arg_dat(xd, minus_four, pcell, 2, "double", OP_READ),                         \
                op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));                              \
    check_paths("read_runtime_" tag, false);                                                     \
    std::fill(r.begin(), r.end(), 0.0);                                                          \
    op_fetch_data(out, r.data());                                                                \
    report("read_runtime_" tag, same_bits(r, read_ref));                                         \
  } while (0)

static void check_spellings() {
  const std::vector<double> inc_ref = inc_reference(), read_ref = read_reference();
  CHECK_SPELLING("pp", inc_pp, read_pp);
  CHECK_SPELLING("cpp", inc_cpp, read_cpp);
  CHECK_SPELLING("pcp", inc_pcp, read_pcp);
  CHECK_SPELLING("cpcp", inc_cpcp, read_cpcp);
  CHECK_SPELLING("dcpcp", inc_dcpcp, read_dcpcp);
}

// Wider than 64 pointers: the argument formed at run time takes the
// per-thread buffer.
static void check_wide() {
  std::vector<double> w(NW), g(NW);
  for (int c = 0; c < NW; ++c) {
    const double *x[WIDE];
    for (int k = 0; k < WIDE; ++k)
      x[k] = &d_x[2 * m_wide[WIDE * c + k]];
    wide_dcpcp(x, &w[c]);
  }
  op_dat out = op_decl_dat(wset, 1, "double", (double *)nullptr, "wide_out");
  op_par_loop(wide_dcpcp, "wide", wset, op_arg_dat(xd, -70, pwide, 2, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));
  check_paths("wide", k_read_simd);
  op_fetch_data(out, g.data());
  report("wide", same_bits(g, w));
  const int minus_wide = -WIDE;
  op_par_loop(wide_dcpcp, "wide_rt", wset, op_arg_dat(xd, minus_wide, pwide, 2, "double", OP_READ),
              op_arg_dat(out, -1, OP_ID, 1, "double", OP_WRITE));
  check_paths("wide_runtime", false);
  std::fill(g.begin(), g.end(), 0.0);
  op_fetch_data(out, g.data());
  report("wide_runtime", same_bits(g, w));
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  make_mesh();
  check_spellings();
  check_wide();
  op_exit();
  printf("DONE %d failures\n", g_failures);
  return g_failures != 0;
}
