/*
 * wide_ints.c -- loops on dats, globals and constants of OP2's 64-bit and
 * unsigned integer types (tests/tests/opencl_lib.rs, cuda_emu.rs):
 *   "spread" long long (OP2 "ll") totals incremented through both ends of
 *            a map by values past 2^32; an unsigned int ("uint") tag read;
 *            reductions: unsigned long long ("ull") sum, long long max,
 *            unsigned int min;
 *   "hash"   a direct unsigned long long dat of dim 2 read and written
 *            with products that wrap modulo 2^64, the totals read;
 *   "gather" long ("long") values read through a vector map argument, a
 *            long and an unsigned int written;
 *   "stamp"  int64_t ("long") written from a uint32_t ("uint"): the
 *            kernel spells the types as <stdint.h> does;
 *   "flags"  bools: a dat read and written, one read through the map,
 *            OP_INC (any), OP_MIN (all) and OP_MAX (any) globals.
 * Constants "mult" (ull), "shift" (ll), "mask" (uint) are declared with
 * op_decl_const and "shift" declared again with a new value before the
 * second round. Every value is checked against plain C loops in this
 * file, and the program prints PASSED or FAILED. (In OpenCL C `long long`
 * is 128 bits: a device library that passed the kernels' types through
 * would read and wrap differently.)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "op_seq.h"

unsigned long long mult = 0x9E3779B97F4A7C15ull;
long long shift = 1LL << 33;
unsigned int mask = 0xFFFFu;

#include "kernels.h"

#define N 6000

int main(int argc, char **argv) {
  static long long tot[N], totr[N];
  static unsigned long long h[2 * N], hr[2 * N];
  static long lv[N], d[N], dr[N];
  static unsigned int tag[N], t[N], tr[N];
  static int ends[2 * N];
  static int64_t st[N];
  static bool f[N], fr[N], nb[N];
  for (int i = 0; i < N; i++) {
    ends[2 * i] = i;
    ends[2 * i + 1] = (int)((7LL * i + 3) % N);
    tag[i] = 2654435761u * (unsigned int)i + 0x9876543u;
    h[2 * i] = hr[2 * i] = 0xFFFFFFFF00000000ull + (unsigned long long)i;
    h[2 * i + 1] = hr[2 * i + 1] = (unsigned long long)i << 40;
    lv[i] = (long)i * 5000000001L - 7L;
    t[i] = tr[i] = (unsigned int)i;
    f[i] = fr[i] = i % 3 == 0;
    nb[i] = i % 5 != 0;
  }
  op_init(argc, argv, 1);
  op_set cells = op_decl_set(N, "cells");
  op_set edges = op_decl_set(N, "edges");
  op_map me = op_decl_map(edges, cells, 2, ends, "ends");
  op_dat dtot = op_decl_dat(cells, 1, "ll", tot, "tot");
  op_dat dh = op_decl_dat(cells, 2, "ull", h, "h");
  op_dat dlv = op_decl_dat(cells, 1, "long", lv, "lv");
  op_dat dtag = op_decl_dat(edges, 1, "uint", tag, "tag");
  op_dat dd = op_decl_dat(edges, 1, "long", d, "d");
  op_dat dt = op_decl_dat(edges, 1, "uint", t, "t");
  op_dat dst = op_decl_dat(edges, 1, "long", st, "st");
  op_dat df = op_decl_dat(edges, 1, "bool", f, "f");
  op_dat dnb = op_decl_dat(cells, 1, "bool", nb, "nb");
  op_decl_const(1, "ull", &mult);
  op_decl_const(1, "ll", &shift);
  op_decl_const(1, "uint", &mask);
  int bad = 0;
  for (int rep = 0; rep < 2; rep++) {
    if (rep == 1) {
      shift = -(1LL << 35) + 5;
      op_decl_const(1, "ll", &shift);
    }
    unsigned long long sum = 7, sumr = 7;
    long long hi = -(1LL << 62), hir = -(1LL << 62);
    unsigned int lo = 0xFFFFFFFFu, lor = 0xFFFFFFFFu;
    op_par_loop(spread, "spread", edges, op_arg_dat(dtot, 0, me, 1, "ll", OP_INC),
                op_arg_dat(dtot, 1, me, 1, "ll", OP_INC), op_arg_dat(dtag, -1, OP_ID, 1, "uint", OP_READ),
                op_arg_gbl(&sum, 1, "ull", OP_INC), op_arg_gbl(&hi, 1, "ll", OP_MAX),
                op_arg_gbl(&lo, 1, "uint", OP_MIN));
    op_par_loop(hash, "hash", cells, op_arg_dat(dh, -1, OP_ID, 2, "ull", OP_RW),
                op_arg_dat(dtot, -1, OP_ID, 1, "ll", OP_READ));
    op_par_loop(gather, "gather", edges, op_arg_dat(dlv, -2, me, 1, "long", OP_READ),
                op_arg_dat(dd, -1, OP_ID, 1, "long", OP_WRITE),
                op_arg_dat(dt, -1, OP_ID, 1, "uint", OP_RW));
    op_par_loop(stamp, "stamp", edges, op_arg_dat(dst, -1, OP_ID, 1, "long", OP_WRITE),
                op_arg_dat(dtag, -1, OP_ID, 1, "uint", OP_READ));
    /* round 0: some edge's flag ends true, not every cell's nb is true;
     * round 1 the same from the flags round 0 left */
    bool any = false, all = true, some = false, anyr = false, allr = true, somer = false;
    op_par_loop(flags, "flags", edges, op_arg_dat(df, -1, OP_ID, 1, "bool", OP_RW),
                op_arg_dat(dnb, 1, me, 1, "bool", OP_READ), op_arg_gbl(&any, 1, "bool", OP_INC),
                op_arg_gbl(&all, 1, "bool", OP_MIN), op_arg_gbl(&some, 1, "bool", OP_MAX));
    for (int e = 0; e < N; e++) {
      bool n = nb[ends[2 * e + 1]];
      fr[e] = fr[e] != n;
      anyr = anyr || fr[e];
      allr = allr && n;
      somer = somer || (fr[e] && n);
    }
    for (int e = 0; e < N; e++) {
      long long v = (long long)(tag[e] & mask) * shift;
      totr[ends[2 * e]] += v;
      totr[ends[2 * e + 1]] -= 2 * v;
      sumr += (unsigned long long)v * 3u;
      if (v > hir) hir = v;
      if (tag[e] < lor) lor = tag[e];
    }
    for (int c = 0; c < N; c++) {
      hr[2 * c] = ((hr[2 * c] ^ (unsigned int)totr[c]) * mult) + 16u;
      hr[2 * c + 1] = hr[2 * c + 1] * 6364136223846793005ull + (unsigned long long)totr[c];
    }
    for (int e = 0; e < N; e++) {
      dr[e] = lv[ends[2 * e]] - 3 * lv[ends[2 * e + 1]] + (long)shift;
      tr[e] = tr[e] * 1664525u + 1013904223u;
    }
    op_fetch_data(dtot, tot);
    op_fetch_data(dh, h);
    op_fetch_data(dd, d);
    op_fetch_data(dt, t);
    op_fetch_data(dst, st);
    op_fetch_data(df, f);
    for (int i = 0; i < N; i++)
      bad += (tot[i] != totr[i]) + (h[2 * i] != hr[2 * i]) + (h[2 * i + 1] != hr[2 * i + 1]) +
             (d[i] != dr[i]) + (t[i] != tr[i]) +
             (st[i] != (int64_t)tag[i] * (int64_t)-3000000001LL + 8) + (f[i] != fr[i]);
    bad += (any != anyr) + (all != allr) + (some != somer);
    bad += (sum != sumr) + (hi != hir) + (lo != lor);
    printf("round %d: sum %llu max %lld min %u any %d all %d some %d\n", rep, sum, hi, lo, any, all,
           some);
  }
  op_timing_output();
  op_exit();
  printf("%s (%d wrong values)\n", bad ? "FAILED" : "PASSED", bad);
  return bad != 0;
}
