/*
 * formats.c -- what OP2 prints and writes, one mode per argv[1]; the
 * expected text is produced here with printf/fprintf from OP2's format
 * strings, and tests/tests/formats.rs compares files and lines byte for byte.
 *
 *   txt       op_print_dat_to_txtfile for double, float, int and long dats
 *             -> <name>.txt (OP2) and <name>.want (fprintf)
 *   bin       op_print_dat_to_binfile -> <name>.bin (OP2), <name>.want (fwrite)
 *   timing    two loops run 7 and 3 times, op_timing_output before and after;
 *             then op_timing_output_2_file -> timing.txt, op_timings_to_csv
 *             -> timing.csv
 *   dump      op_dump_dat of double, float and int dats, then printf's lines
 *   diags     op_init(argc, argv, diags from argv[2]) then op_diagnostic_output
 *   printf    op_printf and printf with the same long mixed argument list
 *   options   OP_block_size/OP_part_size before and after op_init(argv options)
 *   malloc    op_malloc/op_calloc/op_realloc alignment, before and after op_init
 *   timers    op_timers wall time against a measured busy wait
 *   reinit    op_init, a loop, op_exit, twice: a second session works
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "op_seq.h"

static int failures = 0;
static void report(const char *name, int ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    failures++;
}

/* ---- txt ----------------------------------------------------------------- */

static double dvals[12] = {1.0,      -0.0,       0.0,        0.1,  -2.5e-300, 1.7976931348623157e308,
                           4.9e-324, 123456.789, -1.0 / 3.0, 1e21, 3.0,       -7.25};
static float fvals[8] = {0.5f, -0.0f, 1e-7f, -3.4e38f, 123456.789f, 2.0f / 3.0f, 1e10f, -1.0f};
static int ivals[6] = {0, -1, 2147483647, -2147483647 - 1, 42, -42};
static long lvals[12] = {0L, -1L, 9223372036854775807L, -9223372036854775807L - 1L, 77L, -5L,
                         1L, 2L,  -3L,                  4000000000L,                 -5L, 6L};

/* OP2's single-node text layout: "<n> <dim>\n", then per element each value
   with the type's format and a newline. -0.0 prints as +0 for doubles. */
static void want_txt(const char *path, const char *type, const void *vals, int n, int dim) {
  FILE *f = fopen(path, "w");
  int e, c;
  fprintf(f, "%d %d\n", n, dim);
  for (e = 0; e < n; e++) {
    for (c = 0; c < dim; c++) {
      int k = e * dim + c;
      if (strcmp(type, "double") == 0) {
        double v = ((const double *)vals)[k];
        fprintf(f, " %+2.15lE", v == 0.0 ? 0.0 : v);
      } else if (strcmp(type, "float") == 0) {
        fprintf(f, " %+f", ((const float *)vals)[k]);
      } else if (strcmp(type, "int") == 0) {
        fprintf(f, " %+d", ((const int *)vals)[k]);
      } else {
        fprintf(f, " %+ld", ((const long *)vals)[k]);
      }
    }
    fprintf(f, "\n");
  }
  fclose(f);
}

static void mode_txt(void) {
  double special[4];
  op_set four = op_decl_set(4, "four"), six = op_decl_set(6, "six");
  op_set none = op_decl_set(0, "none");
  op_dat d, f, i, l, e, sp;
  special[0] = INFINITY;
  special[1] = -INFINITY;
  special[2] = NAN;
  special[3] = -NAN;
  d = op_decl_dat(four, 3, "double", dvals, "d");
  f = op_decl_dat(four, 2, "float", fvals, "f");
  i = op_decl_dat(six, 1, "int", ivals, "i");
  l = op_decl_dat(four, 3, "long", lvals, "l");
  e = op_decl_dat(none, 2, "double", (double *)NULL, "e");
  sp = op_decl_dat(four, 1, "double", special, "sp");

  op_print_dat_to_txtfile(d, "double.txt");
  want_txt("double.want", "double", dvals, 4, 3);
  op_print_dat_to_txtfile(f, "float.txt");
  want_txt("float.want", "float", fvals, 4, 2);
  op_print_dat_to_txtfile(i, "int.txt");
  want_txt("int.want", "int", ivals, 6, 1);
  op_print_dat_to_txtfile(l, "long.txt");
  want_txt("long.want", "long", lvals, 4, 3);
  op_print_dat_to_txtfile(e, "empty.txt");
  want_txt("empty.want", "double", NULL, 0, 2);
  op_print_dat_to_txtfile(sp, "special.txt");
  want_txt("special.want", "double", special, 4, 1);
}

/* ---- bin ----------------------------------------------------------------- */

static void want_bin(const char *path, const void *vals, int n, int dim, size_t elem) {
  FILE *f = fopen(path, "wb");
  int32_t head[2];
  head[0] = n;
  head[1] = dim;
  fwrite(head, sizeof head[0], 2, f);
  fwrite(vals, elem, (size_t)n, f);
  fclose(f);
}

static void mode_bin(void) {
  op_set s3 = op_decl_set(4, "four"), s6 = op_decl_set(6, "six");
  op_dat d = op_decl_dat(s3, 3, "double", dvals, "d");
  op_dat i = op_decl_dat(s6, 1, "int", ivals, "i");
  op_print_dat_to_binfile(d, "double.bin");
  want_bin("double.want", dvals, 4, 3, 3 * sizeof(double));
  op_print_dat_to_binfile(i, "int.bin");
  want_bin("int.want", ivals, 6, 1, sizeof(int));
}

/* ---- timing -------------------------------------------------------------- */

static void inc_k(double *v) { *v += 1.0; }
static void copy_k(const double *a, double *b) { *b = *a; }

static void mode_timing(void) {
  static double a[100], b[100];
  op_set s = op_decl_set(100, "elems");
  op_dat da = op_decl_dat(s, 1, "double", a, "a");
  op_dat db = op_decl_dat(s, 1, "double", b, "b");
  int k;
  op_timing_output(); /* no loop has run: prints nothing */
  printf("--- loops\n");
  for (k = 0; k < 7; k++)
    op_par_loop(inc_k, "alpha_kernel", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_RW));
  for (k = 0; k < 3; k++)
    op_par_loop(copy_k, "beta_kernel", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE));
  op_timing_output();
  printf("--- end\n");
  op_timing_output_2_file("timing.txt");
  op_timings_to_csv("timing.csv");
}

/* ---- op_dump_dat --------------------------------------------------------- */

/* OP2 prints every value on its own line: "%lf" (double), "%f" (float), "%d" (int). */
static void mode_dump(void) {
  op_set four = op_decl_set(4, "four"), six = op_decl_set(6, "six");
  op_dat d = op_decl_dat(four, 3, "double", dvals, "d");
  op_dat f = op_decl_dat(four, 2, "float", fvals, "f");
  op_dat i = op_decl_dat(six, 1, "int", ivals, "i");
  int k;
  printf("--- op2\n");
  op_dump_dat(d);
  op_dump_dat(f);
  op_dump_dat(i);
  printf("--- printf\n");
  for (k = 0; k < 12; k++)
    printf("%lf\n", dvals[k]);
  for (k = 0; k < 8; k++)
    printf("%f\n", fvals[k]);
  for (k = 0; k < 6; k++)
    printf("%d\n", ivals[k]);
}

/* ---- diagnostics --------------------------------------------------------- */

static void mode_diags(void) {
  static int e2n[6] = {0, 1, 1, 2, 2, 0};
  static double x[6];
  op_set nodes = op_decl_set(3, "nodes");
  op_set edges = op_decl_set(3, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, e2n, "pedge");
  op_decl_dat(nodes, 2, "double", x, "coords");
  op_decl_dat(edges, 1, "int", (int *)NULL, "flags");
  (void)pedge;
  printf("--- diagnostics\n");
  op_diagnostic_output();
  printf("--- end\n");
}

/* ---- op_printf ----------------------------------------------------------- */

/* 9 ints, 10 doubles, strings, a long and a char: more than the 6 integer and
   8 floating-point argument registers of x86_64, so many go on the stack. */
#define PRINTF_ARGS                                                                        \
  "%d %d %d %d %s %d %d %d %d %d | %.3f %.3f %g %e %.1f %f %.2f %g %E %a | %s %ld %c %u\n", \
      1, -2, 3, -4, "str", 5, -6, 7, -8, 9, 1.5, -2.25, 3e10, 4e-5, 5.5, -6.0, 7.125, 8.0,   \
      -9.5e100, 10.0625, "tail", -1234567890123L, 'z', 4000000000u

static void mode_printf(void) {
  op_printf(PRINTF_ARGS);
  printf(PRINTF_ARGS);
  op_printf("%s=%d %s=%.17g\n", "n", 12, "x", 0.1);
  printf("%s=%d %s=%.17g\n", "n", 12, "x", 0.1);
}

/* ---- op_malloc ----------------------------------------------------------- */

static int malloc_ok(size_t bytes) {
  unsigned char *p = (unsigned char *)op_malloc(bytes);
  size_t k;
  int ok = p != NULL && (uintptr_t)p % 64 == 0;
  if (!ok)
    return 0;
  for (k = 0; k < bytes; k++)
    p[k] = (unsigned char)k;
  for (k = 0; k < bytes; k++)
    ok = ok && p[k] == (unsigned char)k;
  op_free(p);
  return ok;
}

static int malloc_sizes_ok(void) {
  static const size_t sizes[] = {1, 7, 64, 65, 1000, 123457, 4 << 20};
  size_t k;
  int ok = 1;
  for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    ok = ok && malloc_ok(sizes[k]);
  return ok;
}

static int calloc_realloc_ok(void) {
  size_t k;
  int ok;
  unsigned char *p = (unsigned char *)op_calloc(1000, 3);
  ok = p != NULL && (uintptr_t)p % 64 == 0;
  for (k = 0; ok && k < 3000; k++)
    ok = p[k] == 0;
  for (k = 0; ok && k < 3000; k++)
    p[k] = (unsigned char)(k * 7);
  for (k = 0; ok && k < 6; k++) {
    size_t j;
    p = (unsigned char *)op_realloc(p, 3000 + (k + 1) * 100000);
    ok = p != NULL && (uintptr_t)p % 64 == 0;
    for (j = 0; ok && j < 3000; j++)
      ok = p[j] == (unsigned char)(j * 7);
  }
  op_free(p);
  return ok;
}

static void mode_malloc(int argc, char **argv) {
  report("malloc_before_init", malloc_sizes_ok());
  report("calloc_realloc_before_init", calloc_realloc_ok());
  op_init(argc, argv, 0);
  report("malloc_after_init", malloc_sizes_ok());
  report("calloc_realloc_after_init", calloc_realloc_ok());
}

/* ---- op_init after op_exit ----------------------------------------------- */

static void add_k(const double *a, double *b) { *b += 2.0 * *a; }

/* One OP2 session: declare, loop, fetch; returns 1 if the result is right. */
static int session(int argc, char **argv) {
  double a[5] = {1, 2, 3, 4, 5}, b[5] = {0.5, 0.5, 0.5, 0.5, 0.5}, out[5];
  int k, ok;
  op_set s;
  op_dat da, db;
  op_init(argc, argv, 0);
  s = op_decl_set(5, "s");
  da = op_decl_dat(s, 1, "double", a, "a");
  db = op_decl_dat(s, 1, "double", b, "b");
  op_par_loop(add_k, "add", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(db, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(db, out);
  ok = OP_set_index == 1 && OP_set_list[0] == s;
  for (k = 0; k < 5; k++)
    ok = ok && out[k] == 0.5 + 2.0 * a[k];
  op_exit();
  return ok;
}

static void mode_reinit(int argc, char **argv) {
  report("first_session", session(argc, argv));
  report("globals_reset_by_exit", OP_set_index == 0 && OP_kern_max == 0);
  report("second_session", session(argc, argv));
}

/* ---- op_timers ----------------------------------------------------------- */

static double mono_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void mode_timers(void) {
  double cpu0, wall0, cpu1, wall1, start, now = 0.0;
  struct timeval tv;
  volatile double sink = 0.0;
  int k, increasing = 1;
  op_timers(&cpu0, &wall0);
  gettimeofday(&tv, NULL);
  /* wall time is seconds since the epoch, as OP2's gettimeofday-based timer */
  report("timers_epoch", fabs(wall0 - ((double)tv.tv_sec + 1e-6 * (double)tv.tv_usec)) < 1.0);
  start = mono_now();
  while (mono_now() - start < 0.05)
    sink += 1.0;
  op_timers(&cpu1, &wall1);
  report("timers_busy_wait", wall1 - wall0 >= 0.045 && wall1 - wall0 < 5.0);
  for (k = 0; k < 1000; k++) {
    op_timers_core(&cpu1, &now);
    increasing = increasing && now >= wall1;
    wall1 = now;
  }
  report("timers_monotone", increasing);
  (void)sink;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "options") == 0) {
    printf("before: part %d block %d\n", OP_part_size, OP_block_size);
    op_init(argc, argv, 0);
    printf("after: part %d block %d\n", OP_part_size, OP_block_size);
    op_exit();
    return 0;
  }
  if (strcmp(mode, "reinit") == 0) {
    mode_reinit(argc, argv);
    return failures != 0;
  }
  if (strcmp(mode, "malloc") == 0) {
    mode_malloc(argc, argv);
    op_exit();
    return failures != 0;
  }
  op_init(argc, argv, strcmp(mode, "diags") == 0 && argc > 2 ? argv[2][0] - '0' : 0);
  if (strcmp(mode, "txt") == 0)
    mode_txt();
  else if (strcmp(mode, "bin") == 0)
    mode_bin();
  else if (strcmp(mode, "dump") == 0)
    mode_dump();
  else if (strcmp(mode, "timing") == 0)
    mode_timing();
  else if (strcmp(mode, "diags") == 0)
    mode_diags();
  else if (strcmp(mode, "printf") == 0)
    mode_printf();
  else if (strcmp(mode, "timers") == 0)
    mode_timers();
  else {
    fprintf(stderr, "formats: unknown mode '%s'\n", mode);
    return 3;
  }
  op_exit();
  return failures != 0;
}
