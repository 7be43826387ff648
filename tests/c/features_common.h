/*
 * features_common.h -- the checks shared by features_c99.c (C99) and
 * features.cpp (C++17): plain C99 that is also valid C++.
 *
 * Every check runs an op_par_loop (or another API call) and recomputes the
 * same result with a plain C loop over copies of the input, calling the same
 * kernel with pointers it builds itself. The sequential library visits the
 * elements in set order, so the two must agree BITWISE (memcmp). Each check
 * prints "PASS <name>" or "FAIL <name>"; tests/tests/features.rs expects a
 * PASS line for every name.
 *
 * The mesh: NN nodes, NE edges, NC cells and an empty set, with maps
 *   pedge  edges -> nodes, dim 2      pcell  cells -> nodes, dim 4
 *   pec    edges -> cells, dim 1      pempty empty -> nodes, dim 2 (no entries)
 * filled from a fixed pseudo-random sequence.
 */
#ifndef FEATURES_COMMON_H
#define FEATURES_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_seq.h"

#define NN 37
#define NE 61
#define NC 23

/* ---- helpers ------------------------------------------------------------- */

static int g_failures = 0;

static inline void report(const char *name, int ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    g_failures++;
}

/* Bitwise equality. */
static inline int same(const void *a, const void *b, size_t bytes) {
  return memcmp(a, b, bytes) == 0;
}

static uint64_t g_lcg = 0x2545F4914F6CDD1DULL;
static inline uint32_t next_u32(void) {
  g_lcg = g_lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(g_lcg >> 33);
}
/* Inexact doubles in about [-5, 5): rounding makes the summation order visible. */
static inline double next_double(void) { return (double)(next_u32() % 100000) / 9973.0 - 5.0; }
static inline float next_float(void) { return (float)(next_u32() % 100000) / 997.0f - 50.0f; }
static inline int next_int(void) { return (int)(next_u32() % 2001) - 1000; }

/* ---- the mesh ------------------------------------------------------------ */

static int m_edge[2 * NE], m_cell[4 * NC], m_ec[NE];
static double d_x[2 * NN];   /* xd: nodes, dim 2 */
static float d_f[NN];        /* xf: nodes, dim 1 */
static int d_i[NN];          /* xi: nodes, dim 1 */
static double d_w[NE];       /* ed: edges, dim 1 */
static double d_c[4 * NC];   /* cd: cells, dim 4 */
static double d_acc[NN];     /* nacc: nodes, dim 1, start values for OP_INC */

static op_set nodes, edges, cells, empty;
static op_map pedge, pcell, pec, pempty;
static op_dat xd, xf, xi, ed, cd, nacc;

static void make_mesh(void) {
  int n;
  for (n = 0; n < 2 * NE; n++)
    m_edge[n] = (int)(next_u32() % NN);
  for (n = 0; n < 4 * NC; n++)
    m_cell[n] = (int)(next_u32() % NN);
  for (n = 0; n < NE; n++)
    m_ec[n] = (int)(next_u32() % NC);
  for (n = 0; n < 2 * NN; n++)
    d_x[n] = next_double();
  for (n = 0; n < NN; n++) {
    d_f[n] = next_float();
    d_i[n] = next_int();
    d_acc[n] = next_double();
  }
  for (n = 0; n < NE; n++)
    d_w[n] = next_double();
  for (n = 0; n < 4 * NC; n++)
    d_c[n] = next_double();

  nodes = op_decl_set(NN, "nodes");
  edges = op_decl_set(NE, "edges");
  cells = op_decl_set(NC, "cells");
  empty = op_decl_set(0, "empty");
  pedge = op_decl_map(edges, nodes, 2, m_edge, "pedge");
  pcell = op_decl_map(cells, nodes, 4, m_cell, "pcell");
  pec = op_decl_map(edges, cells, 1, m_ec, "pec");
  pempty = op_decl_map(empty, nodes, 2, NULL, "pempty");
  xd = op_decl_dat(nodes, 2, "double", d_x, "xd");
  xf = op_decl_dat(nodes, 1, "float", d_f, "xf");
  xi = op_decl_dat(nodes, 1, "int", d_i, "xi");
  ed = op_decl_dat(edges, 1, "double", d_w, "ed");
  cd = op_decl_dat(cells, 4, "double", d_c, "cd");
  nacc = op_decl_dat(nodes, 1, "double", d_acc, "nacc");
}

/* ---- reductions ---------------------------------------------------------- */

/* Start values: INC adds to them; MIN/MAX component 0 lies beyond every data
   value (the start must win), component 1 on the other side (the data wins). */
typedef struct reds {
  double sd, mind[2], maxd[2];
  float sf, minf[2], maxf[2];
  int si, mini[2], maxi[2];
} reds;

static inline reds reds_start(void) {
  reds r = {1.5, {-1e9, 1e9}, {1e9, -1e9}, 0.25f, {-1e9f, 1e9f}, {1e9f, -1e9f}, 7,
            {-2000000, 2000000}, {2000000, -2000000}};
  return r;
}

static inline void fold_d(double v, double *s, double *mn, double *mx) {
  int k;
  *s += v;
  for (k = 0; k < 2; k++) {
    if (v < mn[k])
      mn[k] = v;
    if (v > mx[k])
      mx[k] = v;
  }
}
static inline void fold_f(float v, float *s, float *mn, float *mx) {
  int k;
  *s += v;
  for (k = 0; k < 2; k++) {
    if (v < mn[k])
      mn[k] = v;
    if (v > mx[k])
      mx[k] = v;
  }
}
static inline void fold_i(int v, int *s, int *mn, int *mx) {
  int k;
  *s += v;
  for (k = 0; k < 2; k++) {
    if (v < mn[k])
      mn[k] = v;
    if (v > mx[k])
      mx[k] = v;
  }
}

static inline void red_direct(const double *x, const float *f, const int *i, double *sd,
                              double *mind, double *maxd, float *sf, float *minf, float *maxf,
                              int *si, int *mini, int *maxi) {
  fold_d(x[0] * x[1], sd, mind, maxd);
  fold_f(*f * 0.5f, sf, minf, maxf);
  fold_i(*i * 3, si, mini, maxi);
}

static inline void red_indirect(const double *xa, const double *xb, const float *fa,
                                const float *fb, const int *ia, const int *ib, double *sd,
                                double *mind, double *maxd, float *sf, float *minf, float *maxf,
                                int *si, int *mini, int *maxi) {
  fold_d(xa[0] - xb[1], sd, mind, maxd);
  fold_f(*fa * *fb, sf, minf, maxf);
  fold_i(*ia - 2 * *ib, si, mini, maxi);
}

static void report_reds(const char *where, const reds *got, const reds *want) {
  char name[64];
#define R(field, what)                                                                     \
  sprintf(name, "gbl_%s_%s", what, where);                                                 \
  report(name, same(&got->field, &want->field, sizeof got->field));
  R(sd, "inc_double") R(mind, "min_double") R(maxd, "max_double");
  R(sf, "inc_float") R(minf, "min_float") R(maxf, "max_float");
  R(si, "inc_int") R(mini, "min_int") R(maxi, "max_int");
#undef R
}

static void check_reductions(void) {
  int n;
  /* direct loop over nodes */
  reds got = reds_start(), want = reds_start();
  op_par_loop(red_direct, "red_direct", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(xf, -1, OP_ID, 1, "float", OP_READ),
              op_arg_dat(xi, -1, OP_ID, 1, "int", OP_READ), op_arg_gbl(&got.sd, 1, "double", OP_INC),
              op_arg_gbl(got.mind, 2, "double", OP_MIN), op_arg_gbl(got.maxd, 2, "double", OP_MAX),
              op_arg_gbl(&got.sf, 1, "float", OP_INC), op_arg_gbl(got.minf, 2, "float", OP_MIN),
              op_arg_gbl(got.maxf, 2, "float", OP_MAX), op_arg_gbl(&got.si, 1, "int", OP_INC),
              op_arg_gbl(got.mini, 2, "int", OP_MIN), op_arg_gbl(got.maxi, 2, "int", OP_MAX));
  for (n = 0; n < NN; n++)
    red_direct(&d_x[2 * n], &d_f[n], &d_i[n], &want.sd, want.mind, want.maxd, &want.sf,
               want.minf, want.maxf, &want.si, want.mini, want.maxi);
  report_reds("direct", &got, &want);

  /* indirect loop over edges, through both columns of pedge */
  got = reds_start();
  want = reds_start();
  op_par_loop(red_indirect, "red_indirect", edges,
              op_arg_dat(xd, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(xd, 1, pedge, 2, "double", OP_READ),
              op_arg_dat(xf, 0, pedge, 1, "float", OP_READ),
              op_arg_dat(xf, 1, pedge, 1, "float", OP_READ),
              op_arg_dat(xi, 0, pedge, 1, "int", OP_READ),
              op_arg_dat(xi, 1, pedge, 1, "int", OP_READ), op_arg_gbl(&got.sd, 1, "double", OP_INC),
              op_arg_gbl(got.mind, 2, "double", OP_MIN), op_arg_gbl(got.maxd, 2, "double", OP_MAX),
              op_arg_gbl(&got.sf, 1, "float", OP_INC), op_arg_gbl(got.minf, 2, "float", OP_MIN),
              op_arg_gbl(got.maxf, 2, "float", OP_MAX), op_arg_gbl(&got.si, 1, "int", OP_INC),
              op_arg_gbl(got.mini, 2, "int", OP_MIN), op_arg_gbl(got.maxi, 2, "int", OP_MAX));
  for (n = 0; n < NE; n++) {
    const int a = m_edge[2 * n], b = m_edge[2 * n + 1];
    red_indirect(&d_x[2 * a], &d_x[2 * b], &d_f[a], &d_f[b], &d_i[a], &d_i[b], &want.sd,
                 want.mind, want.maxd, &want.sf, want.minf, want.maxf, &want.si, want.mini,
                 want.maxi);
  }
  report_reds("indirect", &got, &want);
}

/* ---- other globals: OP_WRITE, OP_RW, dim > 1 ----------------------------- */

static inline void gbl_write_k(const double *x, double *g) { *g = 2.0 * x[0] - x[1]; }
static inline void gbl_rw_k(const double *x, double *g) { *g = *g * 0.5 + x[1]; }
static inline void gbl_dim3_k(const double *x, const double *c3, double *s3, double *out) {
  *out = c3[0] * x[0] + c3[1] * x[1] + c3[2];
  s3[0] += x[0];
  s3[1] += x[1] * c3[1];
  s3[2] += *out;
}

static void check_globals(void) {
  int n;
  double g = 123.0, want = 123.0;
  op_par_loop(gbl_write_k, "gbl_write", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
              op_arg_gbl(&g, 1, "double", OP_WRITE));
  for (n = 0; n < NN; n++)
    gbl_write_k(&d_x[2 * n], &want);
  report("gbl_write", same(&g, &want, sizeof g));

  g = want = 3.25;
  op_par_loop(gbl_rw_k, "gbl_rw", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
              op_arg_gbl(&g, 1, "double", OP_RW));
  for (n = 0; n < NN; n++)
    gbl_rw_k(&d_x[2 * n], &want);
  report("gbl_rw", same(&g, &want, sizeof g));

  {
    double c3[3] = {0.75, -1.25, 0.1}, c3_orig[3] = {0.75, -1.25, 0.1};
    double s3[3] = {1, 2, 3}, s3_want[3] = {1, 2, 3};
    double out[NN], out_want[NN];
    op_dat o = op_decl_dat(nodes, 1, "double", (double *)NULL, "gbl_dim3_out");
    op_par_loop(gbl_dim3_k, "gbl_dim3", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
                op_arg_gbl(c3, 3, "double", OP_READ), op_arg_gbl(s3, 3, "double", OP_INC),
                op_arg_dat(o, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(o, out);
    for (n = 0; n < NN; n++)
      gbl_dim3_k(&d_x[2 * n], c3_orig, s3_want, &out_want[n]);
    report("gbl_read_dim3", same(c3, c3_orig, sizeof c3) && same(out, out_want, sizeof out));
    report("gbl_inc_dim3", same(s3, s3_want, sizeof s3));
  }
}

/* ---- vector arguments (idx = -K) ----------------------------------------- */

static inline void vec_read_k(const double **v, double *out) {
  int k;
  double s = 0.0;
  for (k = 0; k < 4; k++)
    s += (double)(k + 1) * v[k][0] - v[k][1];
  *out = s;
}
static inline void vec_inc_k(const double *w, double **v) {
  v[0][0] += *w;
  v[1][0] -= 0.5 * *w;
}
static inline void vec_partial_k(const double **v, double *out) {
  *out = v[0][0] * 3.0 + v[1][1] * 5.0 - v[2][0];
}
/* The vector pointers point exactly at the dat's storage for map columns 0..3. */
static const double *g_xbase;
static const int *g_pcell_map, *g_pedge_map;
static inline void vec_ptr_k(const double **v, const int *n, int *ok) {
  int k, good = 1;
  for (k = 0; k < 4; k++)
    good = good && v[k] == g_xbase + 2 * g_pcell_map[4 * *n + k];
  *ok = good;
}

static void check_vectors(void) {
  int n, k;
  double out[NC], out_want[NC], acc[NN], acc_want[NN];
  int ok[NC], all = 1;
  op_dat o = op_decl_dat(cells, 1, "double", (double *)NULL, "vec_out");
  op_dat okd = op_decl_dat(cells, 1, "int", (int *)NULL, "vec_ok");

  op_par_loop(vec_read_k, "vec_read", cells, op_arg_dat(xd, -4, pcell, 2, "double", OP_READ),
              op_arg_dat(o, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(o, out);
  for (n = 0; n < NC; n++) {
    const double *v[4];
    for (k = 0; k < 4; k++)
      v[k] = &d_x[2 * m_cell[4 * n + k]];
    vec_read_k(v, &out_want[n]);
  }
  report("vector_read", same(out, out_want, sizeof out));

  op_par_loop(vec_inc_k, "vec_inc", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(nacc, -2, pedge, 1, "double", OP_INC));
  op_fetch_data(nacc, acc);
  memcpy(acc_want, d_acc, sizeof acc_want);
  for (n = 0; n < NE; n++) {
    double *v[2];
    v[0] = &acc_want[m_edge[2 * n]];
    v[1] = &acc_want[m_edge[2 * n + 1]];
    vec_inc_k(&d_w[n], v);
  }
  report("vector_inc", same(acc, acc_want, sizeof acc));

  /* idx -3 with a dim-4 map: the kernel gets columns 0..2 */
  op_par_loop(vec_partial_k, "vec_partial", cells, op_arg_dat(xd, -3, pcell, 2, "double", OP_READ),
              op_arg_dat(o, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(o, out);
  for (n = 0; n < NC; n++) {
    const double *v[3];
    for (k = 0; k < 3; k++)
      v[k] = &d_x[2 * m_cell[4 * n + k]];
    vec_partial_k(v, &out_want[n]);
  }
  report("vector_partial", same(out, out_want, sizeof out));

  g_xbase = (const double *)xd->data;
  g_pcell_map = pcell->map;
  op_par_loop(vec_ptr_k, "vec_ptr", cells, op_arg_dat(xd, -4, pcell, 2, "double", OP_READ),
              op_arg_idx(-1, OP_ID), op_arg_dat(okd, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(okd, ok);
  for (n = 0; n < NC; n++)
    all = all && ok[n] == 1;
  report("vector_pointers", all);
}

/* ---- op_arg_idx ---------------------------------------------------------- */

static inline void idx_copy_k(const int *i, int *out) { *out = *i; }
static inline void idx_ptr_k(const int *n, const int *m, int *ok) {
  *ok = (m == g_pedge_map + 2 * *n + 1);
}

/* op_arg_info: the kernel records where its OP_MAX global improved */
static inline void info_k(const double *x, const int *n, double *mx, int *loc) {
  if (x[1] > *mx) {
    *mx = x[1];
    *loc = *n;
  }
}

static void check_arg_idx(void) {
  int n, out[NE], want[NE];
  op_dat o = op_decl_dat(edges, 1, "int", (int *)NULL, "idx_out");

  op_par_loop(idx_copy_k, "idx_direct", edges, op_arg_idx(-1, OP_ID),
              op_arg_dat(o, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(o, out);
  for (n = 0; n < NE; n++)
    want[n] = n;
  report("arg_idx_direct", same(out, want, sizeof out));

  op_par_loop(idx_copy_k, "idx_mapped", edges, op_arg_idx(1, pedge),
              op_arg_dat(o, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(o, out);
  for (n = 0; n < NE; n++)
    want[n] = m_edge[2 * n + 1];
  report("arg_idx_mapped", same(out, want, sizeof out));

  /* the mapped index is a pointer into the map itself */
  g_pedge_map = pedge->map;
  op_par_loop(idx_ptr_k, "idx_ptr", edges, op_arg_idx(-1, OP_ID), op_arg_idx(1, pedge),
              op_arg_dat(o, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(o, out);
  for (n = 0; n < NE; n++)
    want[n] = 1;
  report("arg_idx_mapped_pointer", same(out, want, sizeof out));

  {
    double mx = -1e300, mx_want = -1e300;
    int loc = -1, loc_want = -1;
    op_par_loop(info_k, "arg_info", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
                op_arg_idx(-1, OP_ID), op_arg_gbl(&mx, 1, "double", OP_MAX),
                op_arg_info(&loc, 1, "int", 2));
    for (n = 0; n < NN; n++)
      info_k(&d_x[2 * n], &n, &mx_want, &loc_want);
    report("arg_info", same(&mx, &mx_want, sizeof mx) && loc == loc_want && loc >= 0);
  }
}

/* ---- optional arguments -------------------------------------------------- */

static inline void opt_dat_k(double *y, const double *x, int *flag) {
  *flag = (y == NULL) + 2 * (x == NULL);
  if (y != NULL && x != NULL)
    *y += x[0];
}
static inline void opt_gbl_k(const double *w, double *g, int *flag) {
  *flag = (g == NULL);
  if (g != NULL)
    *g += *w;
}

static inline void opt_null_k(const double *p, int *flag) { *flag = (p == NULL); }

static void check_optional(void) {
  int n, flags[NE], all;
  double y[NE], y_want[NE], g, g_want;
  op_dat yd = op_decl_dat(edges, 1, "double", d_w, "opt_y");
  op_dat fl = op_decl_dat(edges, 1, "int", (int *)NULL, "opt_flag");

  /* opt = 0: the kernel gets NULL for both (direct and indirect); y untouched */
  op_par_loop(opt_dat_k, "opt_off", edges, op_opt_arg_dat(0, yd, -1, OP_ID, 1, "double", OP_RW),
              op_opt_arg_dat(0, xd, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(fl, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(yd, y);
  op_fetch_data(fl, flags);
  all = 1;
  for (n = 0; n < NE; n++)
    all = all && flags[n] == 3;
  report("opt_dat_off", all && same(y, d_w, sizeof y));

  /* opt = 1: an ordinary argument */
  op_par_loop(opt_dat_k, "opt_on", edges, op_opt_arg_dat(1, yd, -1, OP_ID, 1, "double", OP_RW),
              op_opt_arg_dat(1, xd, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(fl, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(yd, y);
  op_fetch_data(fl, flags);
  memcpy(y_want, d_w, sizeof y_want);
  all = 1;
  for (n = 0; n < NE; n++) {
    int f;
    opt_dat_k(&y_want[n], &d_x[2 * m_edge[2 * n]], &f);
    all = all && flags[n] == 0;
  }
  report("opt_dat_on", all && same(y, y_want, sizeof y));

  /* a switched-off argument may name no dat at all */
  op_par_loop(opt_null_k, "opt_null", edges, op_opt_arg_dat(0, NULL, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(fl, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(fl, flags);
  all = 1;
  for (n = 0; n < NE; n++)
    all = all && flags[n] == 1;
  report("opt_dat_off_null_dat", all);

  g = g_want = 0.5;
  op_par_loop(opt_gbl_k, "opt_gbl_off", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_opt_arg_gbl(0, &g, 1, "double", OP_INC),
              op_arg_dat(fl, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(fl, flags);
  all = 1;
  for (n = 0; n < NE; n++)
    all = all && flags[n] == 1;
  report("opt_gbl_off", all && same(&g, &g_want, sizeof g));

  op_par_loop(opt_gbl_k, "opt_gbl_on", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_opt_arg_gbl(1, &g, 1, "double", OP_INC),
              op_arg_dat(fl, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(fl, flags);
  all = 1;
  for (n = 0; n < NE; n++) {
    int f;
    opt_gbl_k(&d_w[n], &g_want, &f);
    all = all && flags[n] == 0;
  }
  report("opt_gbl_on", all && same(&g, &g_want, sizeof g));
}

/* ---- dats: temporaries, NULL data, fetch, access modes ------------------- */

static inline void twice_k(const double *x, double *t) {
  t[0] = 2.0 * x[0];
  t[1] = x[1] - x[0];
}
static inline void write_rw_k(const double *x, double *wr, double *rw) {
  *wr = x[0] * 3.0 - x[1];
  *rw = *rw * 0.25 + x[0];
}
static inline void inc_k(const double *w, double *c) { *c += *w; }
static inline void rw_ind_k(const double *w, double *v) { *v = *v * 0.75 + *w; }
static inline void write_ind_k(const double *w, double *v) { *v = *w; }

static void check_dats(void) {
  int n;
  double t[2 * NN], t_want[2 * NN], zeros[4 * NN];
  memset(zeros, 0, sizeof zeros);

  /* op_decl_dat_temp: zero-initialised, usable, freed once */
  {
    op_dat tmp = op_decl_dat_temp(nodes, 2, "double", (double *)NULL, "tmp");
    op_fetch_data(tmp, t);
    report("dat_temp_zero", same(t, zeros, sizeof t));
    op_par_loop(twice_k, "dat_temp", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(tmp, -1, OP_ID, 2, "double", OP_WRITE));
    op_fetch_data(tmp, t);
    for (n = 0; n < NN; n++)
      twice_k(&d_x[2 * n], &t_want[2 * n]);
    report("dat_temp_loop", same(t, t_want, sizeof t));
    report("dat_temp_free", op_free_dat_temp(tmp) == 1);
    report("dat_temp_free_twice", op_free_dat_temp(tmp) == -1);
  }

  /* a dat declared with NULL data holds zeros */
  {
    int zi[3 * NN];
    double zd[2 * NN];
    op_dat a = op_decl_dat(nodes, 3, "int", (int *)NULL, "zero_i");
    op_dat b = op_decl_dat(nodes, 2, "double", (double *)NULL, "zero_d");
    memset(zi, 0x55, sizeof zi);
    memset(zd, 0x55, sizeof zd);
    op_fetch_data(a, zi);
    op_fetch_data(b, zd);
    report("dat_null_data_zero", same(zi, zeros, sizeof zi) && same(zd, zeros, sizeof zd));
  }

  /* op_decl_dat copies: changing the user's array afterwards changes nothing */
  {
    double src[2 * NN], back[2 * NN];
    op_dat c;
    memcpy(src, d_x, sizeof src);
    c = op_decl_dat(nodes, 2, "double", src, "copied");
    for (n = 0; n < 2 * NN; n++)
      src[n] = -1.0;
    op_fetch_data(c, back);
    report("dat_decl_copies", same(back, d_x, sizeof back));
  }

  /* op_fetch_data: everything; op_fetch_data_idx: exactly [low, high] */
  {
    double all[2 * NN], buf[2 + 2 * NN + 2];
    const double sentinel = -12345.5;
    int ok;
    op_fetch_data(xd, all);
    report("fetch_data", same(all, d_x, sizeof all));

    for (n = 0; n < 2 + 2 * NN + 2; n++)
      buf[n] = sentinel;
    op_fetch_data_idx(xd, buf + 2, 5, 11);
    ok = same(buf + 2, &d_x[2 * 5], 7 * 2 * sizeof(double));
    for (n = 0; n < 2 + 2 * NN + 2; n++)
      if (n < 2 || n >= 2 + 7 * 2)
        ok = ok && buf[n] == sentinel;
    report("fetch_data_idx_subrange", ok);

    for (n = 0; n < 2 + 2 * NN + 2; n++)
      buf[n] = sentinel;
    op_fetch_data_idx(xd, buf + 2, NN - 1, NN - 1);
    ok = same(buf + 2, &d_x[2 * (NN - 1)], 2 * sizeof(double)) && buf[1] == sentinel &&
         buf[4] == sentinel;
    report("fetch_data_idx_last", ok);

    for (n = 0; n < 2 + 2 * NN + 2; n++)
      buf[n] = sentinel;
    op_fetch_data_idx(xd, buf + 2, 0, NN - 1);
    ok = same(buf + 2, d_x, sizeof d_x) && buf[1] == sentinel && buf[2 + 2 * NN] == sentinel;
    report("fetch_data_idx_all", ok);
  }

  /* OP_WRITE and OP_RW dats, direct */
  {
    double wr[NN], rw[NN], wr_want[NN], rw_want[NN];
    op_dat dw = op_decl_dat(nodes, 1, "double", (double *)NULL, "dwrite");
    op_dat drw = op_decl_dat(nodes, 1, "double", d_acc, "drw");
    op_par_loop(write_rw_k, "dat_write_rw", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(dw, -1, OP_ID, 1, "double", OP_WRITE),
                op_arg_dat(drw, -1, OP_ID, 1, "double", OP_RW));
    op_fetch_data(dw, wr);
    op_fetch_data(drw, rw);
    memcpy(rw_want, d_acc, sizeof rw_want);
    for (n = 0; n < NN; n++)
      write_rw_k(&d_x[2 * n], &wr_want[n], &rw_want[n]);
    report("dat_write_direct", same(wr, wr_want, sizeof wr));
    report("dat_rw_direct", same(rw, rw_want, sizeof rw));
  }

  /* indirect OP_INC through a dim-1 map, indirect OP_RW and OP_WRITE */
  {
    double c[NC], c_want[NC], v[NN], v_want[NN];
    op_dat cacc = op_decl_dat(cells, 1, "double", d_w, "cacc"); /* first NC weights */
    op_dat nv = op_decl_dat(nodes, 1, "double", d_acc, "nv");
    op_par_loop(inc_k, "map_dim1_inc", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(cacc, 0, pec, 1, "double", OP_INC));
    op_fetch_data(cacc, c);
    memcpy(c_want, d_w, sizeof c_want);
    for (n = 0; n < NE; n++)
      inc_k(&d_w[n], &c_want[m_ec[n]]);
    report("map_dim1_inc", same(c, c_want, sizeof c));

    op_par_loop(rw_ind_k, "dat_rw_indirect", edges, op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(nv, 0, pedge, 1, "double", OP_RW));
    op_fetch_data(nv, v);
    memcpy(v_want, d_acc, sizeof v_want);
    for (n = 0; n < NE; n++)
      rw_ind_k(&d_w[n], &v_want[m_edge[2 * n]]);
    report("dat_rw_indirect", same(v, v_want, sizeof v));

    op_par_loop(write_ind_k, "dat_write_indirect", edges,
                op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(nv, 1, pedge, 1, "double", OP_WRITE));
    op_fetch_data(nv, v);
    for (n = 0; n < NE; n++)
      write_ind_k(&d_w[n], &v_want[m_edge[2 * n + 1]]);
    report("dat_write_indirect", same(v, v_want, sizeof v));
  }
}

/* ---- empty set, sizes, constants, type aliases --------------------------- */

static int g_empty_calls = 0;
static inline void empty_k(const double *x, double *s, int *mn, double *e) {
  g_empty_calls++;
  *s += x[0];
  *mn = 0;
  *e = 1.0;
}

static double g_scale; /* declared to OP2 with op_decl_const */
static inline void scale_k(const double *x, double *out) { *out = g_scale * x[0] + x[1]; }

static void check_misc(void) {
  int n;
  /* a loop over an empty set: no kernel call, globals unchanged */
  {
    double s = 2.5;
    int mn[2] = {11, -11};
    op_dat e = op_decl_dat(empty, 1, "double", (double *)NULL, "on_empty");
    op_par_loop(empty_k, "empty_loop", empty, op_arg_dat(xd, 0, pempty, 2, "double", OP_READ),
                op_arg_gbl(&s, 1, "double", OP_INC), op_arg_gbl(mn, 2, "int", OP_MIN),
                op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE));
    report("empty_set_loop", g_empty_calls == 0 && s == 2.5 && mn[0] == 11 && mn[1] == -11);
  }

  report("get_size", op_get_size(nodes) == NN && op_get_size(edges) == NE &&
                         op_get_size(cells) == NC && op_get_size(empty) == 0);

  /* op_decl_const is accepted; kernels read the program's own variable */
  {
    double out[NN], want[NN];
    op_dat o = op_decl_dat(nodes, 1, "double", (double *)NULL, "scaled");
    g_scale = 1.75;
    op_decl_const(1, "double", &g_scale);
    op_decl_const2("g_scale", 1, "double", &g_scale);
    op_par_loop(scale_k, "scale", nodes, op_arg_dat(xd, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(o, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(o, out);
    for (n = 0; n < NN; n++)
      scale_k(&d_x[2 * n], &want[n]);
    report("decl_const", same(out, want, sizeof out));
  }

  /* OP2's aliases of a type name are accepted for a "double" dat */
  {
    double out[NN], want[NN];
    op_dat o = op_decl_dat(nodes, 1, "double", (double *)NULL, "aliased");
    g_scale = -0.5;
    op_par_loop(scale_k, "aliases", nodes, op_arg_dat(xd, -1, OP_ID, 2, "r8", OP_READ),
                op_arg_dat(o, -1, OP_ID, 1, "double:soa", OP_WRITE));
    op_fetch_data(o, out);
    for (n = 0; n < NN; n++)
      scale_k(&d_x[2 * n], &want[n]);
    report("type_aliases", same(out, want, sizeof out));
  }
}

/* ---- the C structs generated code reads ---------------------------------- */

static void check_structs(void) {
  op_arg a = op_arg_dat(xd, 1, pedge, 2, "double", OP_INC);
  double g[3] = {0, 0, 0};
  op_arg b = op_arg_gbl(g, 3, "double", OP_MAX);
  int ok;

  ok = nodes->size == NN && nodes->core_size == NN && nodes->exec_size == 0 &&
       nodes->nonexec_size == 0 && strcmp(nodes->name, "nodes") == 0;
  report("struct_set", ok);

  ok = pedge->dim == 2 && pedge->from == edges && pedge->to == nodes &&
       pedge->map != m_edge && same(pedge->map, m_edge, sizeof m_edge) &&
       strcmp(pedge->name, "pedge") == 0;
  report("struct_map", ok);

  ok = xd->set == nodes && xd->dim == 2 && xd->size == 2 * (int)sizeof(double) &&
       strcmp(xd->type, "double") == 0 && strcmp(xd->name, "xd") == 0 &&
       (uintptr_t)xd->data % 64 == 0 && same(xd->data, d_x, sizeof d_x);
  report("struct_dat", ok);

  ok = a.argtype == OP_ARG_DAT && a.dat == xd && a.map == pedge && a.dim == 2 && a.idx == 1 &&
       a.size == 16 && a.data == xd->data && a.map_data == pedge->map && a.acc == OP_INC &&
       a.opt == 1 && strcmp(a.type, "double") == 0;
  report("struct_arg_dat", ok);

  ok = b.argtype == OP_ARG_GBL && b.data == (char *)g && b.dim == 3 &&
       b.size == 3 * (int)sizeof(double) && b.acc == OP_MAX && b.map == NULL && b.opt == 1 &&
       strcmp(b.type, "double") == 0;
  report("struct_arg_gbl", ok);
}

/* ---- 64 arguments (the most a C kernel may have) ------------------------- */

#define P8(p)                                                                              \
  const double *p##0, const double *p##1, const double *p##2, const double *p##3,          \
      const double *p##4, const double *p##5, const double *p##6, const double *p##7
#define L8(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7
#define P7(p)                                                                              \
  const double *p##0, const double *p##1, const double *p##2, const double *p##3,          \
      const double *p##4, const double *p##5, const double *p##6
#define L7(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6

/* arg i reads node pcell[4 c + i % 4] */
#define AX(i) op_arg_dat(nacc, (i) % 4, pcell, 1, "double", OP_READ)
#define AX8(b) AX(b), AX(b + 1), AX(b + 2), AX(b + 3), AX(b + 4), AX(b + 5), AX(b + 6), AX(b + 7)
#define AX7(b) AX(b), AX(b + 1), AX(b + 2), AX(b + 3), AX(b + 4), AX(b + 5), AX(b + 6)

static inline void weighted_sum(const double *const *v, int nv, double *out) {
  int i;
  double s = 0.0;
  for (i = 0; i < nv; i++)
    s += (double)(i + 1) * *v[i];
  *out = s;
}

/* 63 inputs and one output */
static inline void k64(P8(a), P8(b), P8(c), P8(d), P8(e), P8(f), P8(g), P7(h), double *out) {
  const double *v[63] = {L8(a), L8(b), L8(c), L8(d), L8(e), L8(f), L8(g), L7(h)};
  weighted_sum(v, 63, out);
}

/* The reference for a loop whose arg i reads nacc through column i % 4 of pcell. */
static void many_args_reference(int nv, double *want) {
  int c, i;
  double acc[NN];
  const double *v[128];
  op_fetch_data(nacc, acc);
  for (c = 0; c < NC; c++) {
    for (i = 0; i < nv; i++)
      v[i] = &acc[m_cell[4 * c + i % 4]];
    weighted_sum(v, nv, &want[c]);
  }
}

#ifndef __cplusplus
static void check_64_args(void) {
  double out[NC], want[NC];
  op_dat o = op_decl_dat(cells, 1, "double", (double *)NULL, "out64");
  op_par_loop(k64, "k64", cells, AX8(0), AX8(8), AX8(16), AX8(24), AX8(32), AX8(40), AX8(48),
              AX7(56), op_arg_dat(o, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(o, out);
  many_args_reference(63, want);
  report("args_64", same(out, want, sizeof out));
}
#endif

/* Everything above except check_64_args, in order (the checks leave the mesh
   data as they found it, except nacc, which vector_inc updates; the many-args
   references read it back from OP2). check_64_args is for C kernels; the C++
   program runs 70 arguments instead (a 64-argument C++ loop only adds
   compile time). */
static void run_common_checks(void) {
  make_mesh();
  check_structs();
  check_reductions();
  check_globals();
  check_vectors();
  check_arg_idx();
  check_optional();
  check_dats();
  check_misc();
}

#endif /* FEATURES_COMMON_H */
