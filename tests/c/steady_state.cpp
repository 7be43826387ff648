/*
 * Steady state of op_par_loop: once a loop's plan exists, calling it again
 * allocates nothing (this program interposes malloc & co. and counts calls
 * made while loops run), and the sequential library starts no thread.
 *
 * Loops: a direct loop with an OP_INC, OP_MIN and OP_MAX global, an indirect
 * increment through a map, a vector argument (a dim-4 map passed as T**),
 * an op_arg_idx argument, an OP_WRITE global, and the plan functions
 * generated code calls (op_plan_get). Each runs twice to build its plan,
 * then ITERS more times while allocations are counted.
 *
 * Prints "allocations <n> over <loops> loops", "threads <n>" and, with the
 * expected values given as argv[1] (max allocations) and argv[2] (max
 * threads, 0 = do not check), exits 1 if either is exceeded. With argv[3]
 * "leak" a kernel that allocates runs too (the control: it must be counted);
 * with argv[3] "small" every set has fewer than 1000 elements.
 */
#include "op_seq.h"
#include "op_profile.h"
#include "op_rt_support.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <vector>

/* ---- counting allocator --------------------------------------------------- */

extern "C" void *__libc_malloc(size_t);
extern "C" void *__libc_calloc(size_t, size_t);
extern "C" void *__libc_realloc(void *, size_t);
extern "C" void *__libc_memalign(size_t, size_t);
extern "C" void __libc_free(void *);

static std::atomic<bool> counting{false};
static std::atomic<long> allocations{0};

static void count_one() {
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
}

extern "C" void *malloc(size_t n) {
  count_one();
  return __libc_malloc(n);
}
extern "C" void *calloc(size_t a, size_t b) {
  count_one();
  return __libc_calloc(a, b);
}
extern "C" void *realloc(void *p, size_t n) {
  count_one();
  return __libc_realloc(p, n);
}
extern "C" void free(void *p) { __libc_free(p); }
extern "C" int posix_memalign(void **out, size_t align, size_t n) {
  count_one();
  void *p = __libc_memalign(align, n);
  if (p == NULL)
    return 12; /* ENOMEM */
  *out = p;
  return 0;
}
extern "C" void *aligned_alloc(size_t align, size_t n) {
  count_one();
  return __libc_memalign(align, n);
}
extern "C" void *memalign(size_t align, size_t n) {
  count_one();
  return __libc_memalign(align, n);
}

/* ---- kernels --------------------------------------------------------------- */

static void stats(const double *x, double *sum, double *mn, double *mx) {
  *sum += *x;
  if (*x < *mn)
    *mn = *x;
  if (*x > *mx)
    *mx = *x;
}

static void spread(const double *w, double *a, double *b) {
  *a += *w;
  *b -= 0.5 * *w;
}

static void gather4(const double **n, double *c) { *c = n[0][0] + n[1][0] + n[2][0] + n[3][0]; }

static void index_of(const int *i, double *y) { *y = 0.25 * *i; }

static void last_value(const double *x, double *last) { *last = *x; }

/* The control: a kernel that allocates (argv[3] == "leak"). */
static void leaky(const double *x, double *y) {
  double *p = (double *)malloc(sizeof(double));
  *p = *x;
  *y = *p;
  free(p);
}

static int threads_now() {
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

int main(int argc, char **argv) {
  const long max_alloc = argc > 1 ? atol(argv[1]) : 0;
  const int max_threads = argc > 2 ? atoi(argv[2]) : 0;
  const bool leak = argc > 3 && strcmp(argv[3], "leak") == 0;
  /* "small": every set below the threads library's parallel threshold, as in
     OP2-Common's jac1 (the threads library must then start no thread) */
  const bool small = argc > 3 && strcmp(argv[3], "small") == 0;
  const int N = small ? 1000 : 50000, ITERS = 50;
  op_init(argc, argv, 1);
  op_profile_start("steady_state");
  std::vector<int> edge(2 * (N - 1)), quad(4 * (N - 3));
  std::vector<double> x(N), w(N - 1);
  for (int i = 0; i < N; ++i)
    x[i] = (i * 37 % 101) * 0.01;
  for (int e = 0; e < N - 1; ++e) {
    edge[2 * e] = e;
    edge[2 * e + 1] = e + 1;
    w[e] = 1.0 / (e + 1);
  }
  for (int c = 0; c < N - 3; ++c)
    for (int k = 0; k < 4; ++k)
      quad[4 * c + k] = c + k;
  op_set nodes = op_decl_set(N, "nodes");
  op_set edges = op_decl_set(N - 1, "edges");
  op_set cells = op_decl_set(N - 3, "cells");
  op_map pedge = op_decl_map(edges, nodes, 2, edge.data(), "pedge");
  op_map pquad = op_decl_map(cells, nodes, 4, quad.data(), "pquad");
  op_dat px = op_decl_dat(nodes, 1, "double", x.data(), "x");
  op_dat pw = op_decl_dat(edges, 1, "double", w.data(), "w");
  op_dat pa = op_decl_dat_temp(nodes, 1, "double", (double *)NULL, "a");
  op_dat pc = op_decl_dat_temp(cells, 1, "double", (double *)NULL, "c");
  op_dat py = op_decl_dat_temp(nodes, 1, "double", (double *)NULL, "y");

  double sum = 0, mn = 1e300, mx = -1e300, last = 0;
  op_arg plan_args[2] = {op_arg_dat(pa, 0, pedge, 1, "double", OP_INC),
                         op_arg_dat(pa, 1, pedge, 1, "double", OP_INC)};
  int inds[2] = {0, 0};
  op_plan *plan = NULL;
  long loops = 0;
  for (int it = 0; it < ITERS + 2; ++it) {
    if (it == 2)
      counting = true;
    op_par_loop(stats, "stats", nodes, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&sum, 1, "double", OP_INC), op_arg_gbl(&mn, 1, "double", OP_MIN),
                op_arg_gbl(&mx, 1, "double", OP_MAX));
    op_par_loop(spread, "spread", edges, op_arg_dat(pw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(pa, 0, pedge, 1, "double", OP_INC),
                op_arg_dat(pa, 1, pedge, 1, "double", OP_INC));
    op_par_loop(gather4, "gather4", cells, op_arg_dat(pa, -4, pquad, 1, "double", OP_READ),
                op_arg_dat(pc, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(index_of, "index_of", nodes, op_arg_idx(-1, OP_ID),
                op_arg_dat(py, -1, OP_ID, 1, "double", OP_WRITE));
    op_par_loop(last_value, "last_value", nodes, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&last, 1, "double", OP_WRITE));
    plan = op_plan_get("generated_spread", edges, 64, 2, plan_args, 1, inds);
    if (leak)
      op_par_loop(leaky, "leaky", nodes, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(py, -1, OP_ID, 1, "double", OP_WRITE));
    loops += 5;
  }
  counting = false;
  const long n_alloc = allocations.load();
  op_partition("PTSCOTCH", "KWAY", edges, pedge, px);
  const int nthreads = threads_now();
  printf("allocations %ld over %ld loops\n", n_alloc, loops - 10);
  printf("threads %d\n", nthreads);
  printf("sum %.6f min %.3f max %.3f last %.3f plan blocks %d\n", sum, mn, mx, last,
         plan ? plan->nblocks : -1);
  op_profile_end();
  op_exit();
  int bad = 0;
  if (n_alloc > max_alloc) {
    printf("FAIL: more than %ld allocations\n", max_alloc);
    bad = 1;
  }
  if (max_threads > 0 && nthreads > max_threads) {
    printf("FAIL: more than %d threads\n", max_threads);
    bad = 1;
  }
  return bad;
}
