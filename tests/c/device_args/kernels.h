/*
 * kernels.h -- the kernels of device_args.c, one argument kind or more
 * each; a header, as OP2's applications keep theirs, so a device library
 * finds their source beside the program (or through OP2_RS_KERNEL_PATH).
 */
#ifndef DEVICE_ARGS_KERNELS_H
#define DEVICE_ARGS_KERNELS_H

/* sums reads alpha, and pin pin_shift: constants the program defines before
   it includes this header and declares with op_decl_const (as OP2's
   airfoil does gam) */

/* direct: AoS double[2], float and int read; a double written; a global
   read (3 doubles); reductions: double[2] sum, float min, int max, and a
   double max with the element where it is (op_arg_info) */
static inline void sums(const double *x, const float *s, const int *k, const double *c, double *y,
                        double *sum, float *mn, int *mx, const int *i, double *big, int *where) {
  y[0] = c[0] * x[0] + c[1] * x[1] + c[2] + alpha;
  sum[0] += x[0];
  sum[1] += x[1] * x[1];
  if (s[0] < *mn) *mn = s[0];
  if (k[0] > *mx) *mx = k[0];
  if (x[1] > *big) {
    *big = x[1];
    *where = *i;
  }
}

/* a constant table of the header's own (file scope: OpenCL C keeps such
   variables in __constant memory, which the library writes them as) */
static const double flux_weights[2] = {1.0, 0.5};

/* through a map: both ends' coordinates by a vector argument, increments of
   an SoA double at both ends and of an optional float at the first, the
   edge's index and its second node's (op_arg_idx, direct and through the
   map) written to an int[2] on the edge */
static inline void flux(const double **x, double *r0, double *r1, float *w, const int *e,
                        const int *n1, int *ids) {
  double d = flux_weights[0] * (x[1][0] - x[0][0]) + flux_weights[1] * (x[1][1] - x[0][1]);
  *r0 += d;
  *r1 -= d;
  if (w) *w += 1.0f;
  ids[0] = *e;
  ids[1] = *n1;
}

/* OP_WORK: a global's scratch (3 doubles) and a dat's (1 double); y is
   |x0 + 2 x1| + 1 */
static inline void scratch(const double *x, double *t, double *u, double *y) {
  /* a function's static constant (OpenCL C has no static locals) */
  static const double twice = 2.0;
  t[0] = x[0];
  t[1] = twice * x[1];
  t[2] = t[0] + t[1];
  u[0] = std::abs(t[2]); /* C++'s double overload, not C's int abs */
  y[0] = u[0] + 1.0;
}

/* through a map reaching each node once: a double read and written (OP_RW)
   and an int written (OP_WRITE) */
static inline void pin(double *z, int *tag) {
  z[0] = 2.0 * z[0] + pin_shift;
  tag[0] = 7;
}

/* through both ends of the edges, which share nodes: an int read and
   written (OP_RW) at each end */
static inline void count(int *a, int *b) {
  a[0] += 1;
  b[0] += 1;
}

#endif
