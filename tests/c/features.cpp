// features.cpp -- the checks of features_common.h through OP2's C++
// op_par_loop template, plus what only C++ has: loops of 20 mixed-type
// arguments and of 70 arguments (more than a C kernel may take), and
// op_malloc called from a static initialiser (as OP2's op_seq.h does).
// Prints PASS/FAIL lines; exit status 1 if any check failed.
#include <stdint.h>

#include "features_common.h"

// ---- op_malloc before op_init (during static initialisation) ----------------

static double *const g_early = static_cast<double *>(op_malloc(10 * sizeof(double)));

static void check_static_malloc() {
  bool ok = g_early != nullptr && (uintptr_t)g_early % 64 == 0;
  if (ok) {
    for (int i = 0; i < 10; ++i)
      g_early[i] = i;
    ok = g_early[9] == 9.0;
  }
  report("malloc_static_init", ok);
  op_free(g_early);
}

// ---- 20 arguments of every kind and type ------------------------------------

static void k20(const double *x0, const double *x1, const float *f0, const float *f1,
                const int *i0, const int *i1, const double *w, const double **vx,
                const int *eidx, const int *m1, const double *c3, double *sd, double *mind,
                float *maxf, int *si, double *acc0, double *acc1, double *eo, int *iw,
                const double *cc) {
  const double v = x0[0] * c3[0] + x1[1] * c3[1] + (double)(*f0 - *f1) + vx[1][0] * c3[2];
  *sd += v * *w;
  if (v < *mind)
    *mind = v;
  if (*f0 * *f1 > *maxf)
    *maxf = *f0 * *f1;
  *si += *i0 - *i1 + *eidx + *m1;
  *acc0 += *w;
  *acc1 -= v;
  eo[0] = v;
  eo[1] = cc[3] - cc[0];
  *iw = *eidx * 1000 + *m1;
}

static void check_20_args() {
  double nv0[NN], c3[3] = {0.5, -1.5, 2.25};
  for (int n = 0; n < NN; ++n)
    nv0[n] = 0.125 * n;
  op_dat nv = op_decl_dat(nodes, 1, "double", nv0, "k20_acc");
  op_dat eo = op_decl_dat(edges, 2, "double", (double *)nullptr, "k20_eo");
  op_dat iw = op_decl_dat(edges, 1, "int", (int *)nullptr, "k20_iw");
  double sd = -3.0, mind = 1e300;
  float maxf = -1e30f;
  int si = 17;

  op_par_loop(k20, "k20", edges, op_arg_dat(xd, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(xd, 1, pedge, 2, "double", OP_READ),
              op_arg_dat(xf, 0, pedge, 1, "float", OP_READ),
              op_arg_dat(xf, 1, pedge, 1, "float", OP_READ),
              op_arg_dat(xi, 0, pedge, 1, "int", OP_READ),
              op_arg_dat(xi, 1, pedge, 1, "int", OP_READ),
              op_arg_dat(ed, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(xd, -2, pedge, 2, "double", OP_READ), op_arg_idx(-1, OP_ID),
              op_arg_idx(1, pedge), op_arg_gbl(c3, 3, "double", OP_READ),
              op_arg_gbl(&sd, 1, "double", OP_INC), op_arg_gbl(&mind, 1, "double", OP_MIN),
              op_arg_gbl(&maxf, 1, "float", OP_MAX), op_arg_gbl(&si, 1, "int", OP_INC),
              op_arg_dat(nv, 0, pedge, 1, "double", OP_INC),
              op_arg_dat(nv, 1, pedge, 1, "double", OP_INC),
              op_arg_dat(eo, -1, OP_ID, 2, "double", OP_WRITE),
              op_arg_dat(iw, -1, OP_ID, 1, "int", OP_WRITE),
              op_arg_dat(cd, 0, pec, 4, "double", OP_READ));

  double w_sd = -3.0, w_mind = 1e300;
  float w_maxf = -1e30f;
  int w_si = 17;
  double w_nv[NN], w_eo[2 * NE];
  int w_iw[NE];
  for (int n = 0; n < NN; ++n)
    w_nv[n] = 0.125 * n;
  for (int n = 0; n < NE; ++n) {
    const int a = m_edge[2 * n], b = m_edge[2 * n + 1];
    const double *vx[2] = {&d_x[2 * a], &d_x[2 * b]};
    k20(&d_x[2 * a], &d_x[2 * b], &d_f[a], &d_f[b], &d_i[a], &d_i[b], &d_w[n], vx, &n,
        &m_edge[2 * n + 1], c3, &w_sd, &w_mind, &w_maxf, &w_si, &w_nv[a], &w_nv[b],
        &w_eo[2 * n], &w_iw[n], &d_c[4 * m_ec[n]]);
  }
  double g_nv[NN], g_eo[2 * NE];
  int g_iw[NE];
  op_fetch_data(nv, g_nv);
  op_fetch_data(eo, g_eo);
  op_fetch_data(iw, g_iw);
  report("args_20_mixed",
         same(&sd, &w_sd, sizeof sd) && same(&mind, &w_mind, sizeof mind) &&
             same(&maxf, &w_maxf, sizeof maxf) && si == w_si && same(g_nv, w_nv, sizeof g_nv) &&
             same(g_eo, w_eo, sizeof g_eo) && same(g_iw, w_iw, sizeof g_iw));
}

// ---- 70 arguments: C++ kernels have no 64-parameter limit -------------------

#define P5(p)                                                                              \
  const double *p##0, const double *p##1, const double *p##2, const double *p##3,          \
      const double *p##4
#define L5(p) p##0, p##1, p##2, p##3, p##4
#define AX5(b) AX(b), AX(b + 1), AX(b + 2), AX(b + 3), AX(b + 4)

// 69 inputs and one output
static void k70(P8(a), P8(b), P8(c), P8(d), P8(e), P8(f), P8(g), P8(h), P5(i), double *out) {
  const double *v[69] = {L8(a), L8(b), L8(c), L8(d), L8(e), L8(f), L8(g), L8(h), L5(i)};
  weighted_sum(v, 69, out);
}

static void check_70_args() {
  double out[NC], want[NC];
  op_dat o = op_decl_dat(cells, 1, "double", (double *)nullptr, "out70");
  op_par_loop(k70, "k70", cells, AX8(0), AX8(8), AX8(16), AX8(24), AX8(32), AX8(40), AX8(48),
              AX8(56), AX5(64), op_arg_dat(o, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(o, out);
  many_args_reference(69, want);
  report("args_70", same(out, want, sizeof out));
}

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  check_static_malloc();
  run_common_checks();
  check_20_args();
  check_70_args();
  op_exit();
  printf("DONE %d failures\n", g_failures);
  return g_failures != 0;
}
