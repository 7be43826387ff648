/* jac_setup.h -- problem set-up shared by jac.cpp (OP2), jac_ref.cpp (plain
 * loops) and c99/jac_c.c.  Plain C99, also valid C++.
 *
 * Problem: -laplace(u) = 1 on the unit square, u = 0 on the boundary,
 * 5-point finite differences on an n x n grid of interior nodes (h = 1/(n+1)).
 * Each row is divided by its diagonal (4/h^2), so the matrix has 1 on the
 * diagonal and -1/4 for each interior neighbour; r = h^2/4.  The matrix is
 * stored as an unstructured graph: one "edge" per non-zero (the diagonal
 * included), with the map ppedge = (row, column) and the coefficient A.
 *
 * Command line: --n=N (default 40)  --iters=N (default 2000)  --diags=N;
 * arguments containing "OP_" are left to the OP2 runtime. */
#ifndef JAC_SETUP_H
#define JAC_SETUP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jac_options {
  int n, iters, diags;
} jac_options;

typedef struct jac_problem {
  int n, nnode, nedge;
  int *pp;    /* 2 * nedge: row, column */
  double *A;  /* nedge */
  double *r;  /* nnode */
  double *u;  /* nnode */
  double *du; /* nnode */
} jac_problem;

static inline int jac_int_option(const char *arg, const char *name, int *v) {
  size_t len = strlen(name);
  char *end;
  long x;
  if (strncmp(arg, name, len) != 0 || arg[len] != '=')
    return 0;
  x = strtol(arg + len + 1, &end, 10);
  if (arg[len + 1] == '\0' || *end != '\0' || x < 0 || x > 1000000000L) {
    fprintf(stderr, "invalid value in '%s'\n", arg);
    exit(2);
  }
  *v = (int)x;
  return 1;
}

static inline jac_options jac_parse_args(int argc, char **argv) {
  jac_options o;
  o.n = 40;
  o.iters = 2000;
  o.diags = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strstr(a, "OP_") != NULL || strcmp(a, "-gpudirect") == 0)
      continue;
    if (jac_int_option(a, "--n", &o.n) || jac_int_option(a, "--iters", &o.iters) ||
        jac_int_option(a, "--diags", &o.diags))
      continue;
    fprintf(stderr, "usage: %s [--n=N] [--iters=N] [--diags=N]\n", argv[0]);
    exit(2);
  }
  if (o.n < 2) {
    fprintf(stderr, "--n must be at least 2\n");
    exit(2);
  }
  return o;
}

static inline void jac_free(jac_problem *p) {
  free(p->pp);
  free(p->A);
  free(p->r);
  free(p->u);
  free(p->du);
  memset(p, 0, sizeof(*p));
}

/* Returns 0 on success. */
static inline int jac_build(int n, jac_problem *p) {
  const double h = 1.0 / (double)(n + 1);
  int e = 0;
  memset(p, 0, sizeof(*p));
  p->n = n;
  p->nnode = n * n;
  /* diagonal + 2 neighbours per interior grid line segment in each direction */
  p->nedge = n * n + 4 * n * (n - 1);
  p->pp = (int *)malloc(sizeof(int) * 2 * (size_t)p->nedge);
  p->A = (double *)malloc(sizeof(double) * (size_t)p->nedge);
  p->r = (double *)malloc(sizeof(double) * (size_t)p->nnode);
  p->u = (double *)malloc(sizeof(double) * (size_t)p->nnode);
  p->du = (double *)malloc(sizeof(double) * (size_t)p->nnode);
  if (!p->pp || !p->A || !p->r || !p->u || !p->du) {
    jac_free(p);
    return -1;
  }
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      const int row = j * n + i;
      /* neighbour offsets: self, west, east, south, north */
      const int di[5] = {0, -1, 1, 0, 0};
      const int dj[5] = {0, 0, 0, -1, 1};
      p->r[row] = 0.25 * h * h;
      p->u[row] = 0.0;
      p->du[row] = 0.0;
      for (int k = 0; k < 5; k++) {
        const int i2 = i + di[k], j2 = j + dj[k];
        if (i2 < 0 || i2 >= n || j2 < 0 || j2 >= n)
          continue; /* Dirichlet neighbour, u = 0 */
        p->pp[2 * e] = row;
        p->pp[2 * e + 1] = j2 * n + i2;
        p->A[e] = (k == 0) ? 1.0 : -0.25;
        e++;
      }
    }
  }
  if (e != p->nedge) {
    jac_free(p);
    return -1;
  }
  return 0;
}

/* node index of interior grid point (i, j) */
static inline int jac_node(const jac_problem *p, int i, int j) {
  return j * p->n + i;
}

#endif
