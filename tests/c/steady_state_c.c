/*
 * Steady state of op_par_loop from C (kernels called once per element
 * through the library's arity runners): once a loop has run, running it
 * again allocates nothing. Interposes malloc & co. and counts calls made
 * while the loops run; prints "allocations <n> over <loops> loops" and exits
 * 1 if there were any.
 */
#include "op_seq.h"

#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile int counting;
static long allocations;

static void count_one(void) {
  if (counting)
    __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t n) {
  count_one();
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  count_one();
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  count_one();
  return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
int posix_memalign(void **out, size_t align, size_t n) {
  void *p;
  count_one();
  p = __libc_memalign(align, n);
  if (p == NULL)
    return 12;
  *out = p;
  return 0;
}
void *aligned_alloc(size_t align, size_t n) {
  count_one();
  return __libc_memalign(align, n);
}

static void spread(const double *w, double *a, double *b) {
  *a += *w;
  *b -= 0.5 * *w;
}

static void gather4(const double **n, double *c) { *c = n[0][0] + n[1][0] + n[2][0] + n[3][0]; }

static void total(const double *x, double *s) { *s += *x; }

static void index_of(const int *i, double *y) { *y = 0.25 * *i; }

#define N 20000

int main(int argc, char **argv) {
  static int edge[2 * (N - 1)], quad[4 * (N - 3)];
  static double x[N], w[N - 1];
  double sum = 0;
  int i, it;
  op_set nodes, edges, cells;
  op_map pedge, pquad;
  op_dat px, pw, pa, pc, py;
  for (i = 0; i < N; ++i)
    x[i] = (i * 37 % 101) * 0.01;
  for (i = 0; i < N - 1; ++i) {
    edge[2 * i] = i;
    edge[2 * i + 1] = i + 1;
    w[i] = 1.0 / (i + 1);
  }
  for (i = 0; i < N - 3; ++i) {
    int k;
    for (k = 0; k < 4; ++k)
      quad[4 * i + k] = i + k;
  }
  op_init(argc, argv, 1);
  nodes = op_decl_set(N, "nodes");
  edges = op_decl_set(N - 1, "edges");
  cells = op_decl_set(N - 3, "cells");
  pedge = op_decl_map(edges, nodes, 2, edge, "pedge");
  pquad = op_decl_map(cells, nodes, 4, quad, "pquad");
  px = op_decl_dat(nodes, 1, "double", x, "x");
  pw = op_decl_dat(edges, 1, "double", w, "w");
  pa = op_decl_dat(nodes, 1, "double", x, "a");
  pc = op_decl_dat(cells, 1, "double", x, "c");
  py = op_decl_dat(nodes, 1, "double", x, "y");
  for (it = 0; it < 52; ++it) {
    if (it == 2)
      counting = 1;
    op_par_loop(spread, "spread", edges, op_arg_dat(pw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(pa, 0, pedge, 1, "double", OP_INC),
                op_arg_dat(pa, 1, pedge, 1, "double", OP_INC));
    op_par_loop(gather4, "gather4", cells, op_arg_dat(pa, -4, pquad, 1, "double", OP_READ),
                op_arg_dat(pc, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(total, "total", nodes, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&sum, 1, "double", OP_INC));
    op_par_loop(index_of, "index_of", nodes, op_arg_idx(-1, OP_ID),
                op_arg_dat(py, -1, OP_ID, 1, "double", OP_WRITE));
  }
  counting = 0;
  printf("allocations %ld over %d loops\n", allocations, 4 * 50);
  printf("sum %.6f\n", sum);
  op_exit();
  return allocations != 0;
}
