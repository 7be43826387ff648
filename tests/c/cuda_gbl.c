/* libop2_cuda's global-argument entry points for code generated for OP2's
 * `c_cuda` target (prepareDeviceGbls, processDeviceGbls, getBlockLimit,
 * setGblIncAtomic), run on a device simulated in host memory
 * (OP2_RS_DEVICE=host): "device" pointers are host addresses there, so this
 * program plays the generated kernel by writing the per-thread slots itself.
 * Each check prints PASS <name> or FAIL <name>. */
#include "op_seq.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void prepareDeviceGbls(op_arg *args, int nargs, int max_threads);
bool processDeviceGbls(op_arg *args, int nargs, int nelems, int max_threads);
int getBlockLimit(op_arg *args, int nargs, int block_size, const char *name);
void setGblIncAtomic(bool enable);
extern int OP_cuda_reductions_mib;

static int failures = 0;
static void check(int ok, const char *name) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    failures++;
}

#define MT 10 /* max_threads */
#define NEL 7 /* threads that ran: slots 7..9 hold junk the library must ignore */

static long off(const op_arg *a, const op_arg *base) { return (const char *)a->data_d - (const char *)base->data_d; }

int main(int argc, char **argv) {
  op_init(argc, argv, 1);

  double inc[2] = {0.5, -1.0}, rd1 = 2.0, rd3[3] = {1.0, 2.0, 3.0}, wr = -7.0, mx = 4.0, work[2] = {0, 0};
  double off_inc = 100.0;
  int rw = 3, loc = -1;
  float mn[2] = {10.0f, -10.0f};
  op_arg a[10] = {
      op_arg_gbl(inc, 2, "double", OP_INC),      /* 0: per-thread */
      op_arg_gbl(&rd1, 1, "double", OP_READ),    /* 1: none (passed by value) */
      op_arg_gbl(rd3, 3, "double", OP_READ),     /* 2: one slot, uploaded */
      op_arg_gbl(&rw, 1, "int", OP_RW),          /* 3: one slot, uploaded */
      op_arg_gbl(&wr, 1, "double", OP_WRITE),    /* 4: one slot, not uploaded */
      op_arg_gbl(&mx, 1, "double", OP_MAX),      /* 5: per-thread */
      op_arg_info(&loc, 1, "int", 5),            /* 6: per-thread, payload of 5 */
      op_arg_gbl(mn, 2, "float", OP_MIN),        /* 7: per-thread */
      op_opt_arg_gbl(0, &off_inc, 1, "double", OP_INC), /* 8: switched off */
      op_arg_gbl(work, 2, "double", OP_WORK),    /* 9: per-thread, not reduced */
  };
  char *before1 = a[1].data_d, *before8 = a[8].data_d;
  prepareDeviceGbls(a, 10, MT);

  /* Regions: 128-byte aligned, in argument order, sized per OP2's rule. */
  check(a[0].data_d != NULL && off(&a[2], &a[0]) == 256 && off(&a[3], &a[0]) == 384 &&
            off(&a[4], &a[0]) == 512 && off(&a[5], &a[0]) == 640 && off(&a[6], &a[0]) == 768 &&
            off(&a[7], &a[0]) == 896 && off(&a[9], &a[0]) == 1024,
        "layout_aligned_regions");
  check(a[1].data_d == before1 && a[8].data_d == before8, "no_storage_for_scalar_read_or_disabled");
  check(memcmp(a[2].data_d, rd3, sizeof rd3) == 0 && *(int *)a[3].data_d == 3, "read_rw_uploaded");
  check(*(double *)a[4].data_d == 0.0, "write_not_uploaded");

  /* The "kernel": component d of thread t at d * MT + t. */
  double *pi = (double *)a[0].data_d, *px = (double *)a[5].data_d;
  int *pl = (int *)a[6].data_d;
  float *pm = (float *)a[7].data_d;
  for (int t = 0; t < MT; t++) {
    int junk = t >= NEL;
    pi[t] = junk ? 1e9 : 0.25 * t;     /* sum 0..6 * 0.25 = 5.25 */
    pi[MT + t] = junk ? 1e9 : 1.0;     /* sum 7 */
    px[t] = junk ? 1e9 : (t == 2 || t == 5 ? 9.0 : 1.0); /* max 9 first at t = 2 */
    pl[t] = junk ? -99 : 100 + t;
    pm[t] = junk ? -1e9f : (float)(20 - t); /* min 14 > host 10: unchanged */
    pm[MT + t] = junk ? -1e9f : (t == 4 ? -12.0f : 0.0f);
  }
  *(int *)a[3].data_d = 42;
  *(double *)a[4].data_d = 3.5;
  bool sync = processDeviceGbls(a, 10, NEL, MT);
  check(!sync, "no_sync_needed");
  check(inc[0] == 0.5 + 5.25 && inc[1] == -1.0 + 7.0, "inc_combined_first_nelems");
  check(mx == 9.0 && loc == 102, "max_with_info_lowest_thread");
  check(mn[0] == 10.0f && mn[1] == -12.0f, "min_per_component");
  check(rw == 42 && wr == 3.5, "rw_write_copied_back");
  check(rd1 == 2.0 && rd3[2] == 3.0 && off_inc == 100.0, "others_untouched");

  /* No improvement: the host value and the INFO payload stay. */
  prepareDeviceGbls(a, 10, MT);
  for (int t = 0; t < MT; t++) {
    ((double *)a[5].data_d)[t] = 1.0;
    ((int *)a[6].data_d)[t] = 7;
  }
  memset(a[0].data_d, 0, 2 * MT * sizeof(double));
  memset(a[7].data_d, 0, 2 * MT * sizeof(float));
  processDeviceGbls(a, 10, NEL, MT);
  check(mx == 9.0 && loc == 102, "max_no_improvement_keeps_info");

  /* Grow-only: a smaller request reuses the block, a larger one moves it. */
  char *base = a[0].data_d;
  op_arg small[1] = {op_arg_gbl(inc, 2, "double", OP_INC)};
  prepareDeviceGbls(small, 1, 4);
  int reused = small[0].data_d == base;
  op_arg big[1] = {op_arg_gbl(inc, 2, "double", OP_INC)};
  prepareDeviceGbls(big, 1, 100000);
  double *pb = (double *)big[0].data_d;
  for (int t = 0; t < 100000; t++)
    pb[t] = pb[100000 + t] = 1.0;
  inc[0] = inc[1] = 0.0;
  processDeviceGbls(big, 1, 100000, 100000);
  check(reused && inc[0] == 100000.0 && inc[1] == 100000.0, "buffer_grow_only");

  /* Atomic INC: one uploaded slot, copied back whole. */
  setGblIncAtomic(true);
  double acc = 5.0;
  op_arg at[1] = {op_arg_gbl(&acc, 1, "double", OP_INC)};
  prepareDeviceGbls(at, 1, MT);
  int up = *(double *)at[0].data_d == 5.0;
  *(double *)at[0].data_d += 2.5;
  processDeviceGbls(at, 1, NEL, MT);
  check(up && acc == 7.5, "atomic_inc_single_slot");

  /* Block limit: per-thread bytes of INC/MIN/MAX/INFO (not WORK, not atomic INC). */
  OP_cuda_reductions_mib = 5;
  int with_atomic = getBlockLimit(a, 10, 128, "t");
  setGblIncAtomic(false);
  int plain = getBlockLimit(a, 10, 128, "t");
  OP_cuda_reductions_mib = -1;
  int unlimited = getBlockLimit(a, 10, 128, "t");
  OP_cuda_reductions_mib = 5;
  int none = getBlockLimit(a + 1, 4, 128, "t");
  check(plain == (5 << 20) / (128 * 36) && with_atomic == (5 << 20) / (128 * 20) &&
            unlimited == INT_MAX && none == INT_MAX,
        "block_limit");

  op_exit();
  printf("%d failures\n", failures);
  return failures != 0;
}
