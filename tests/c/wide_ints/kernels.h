/*
 * kernels.h -- the kernels of wide_ints.c: dats and globals of OP2's
 * 64-bit and unsigned integer types ("ll", "long", "ull", "uint") and of
 * "bool", and
 * constants of them, with values past 32 bits and arithmetic that wraps
 * modulo 2^64; one kernel spells them as <stdint.h> does.
 */
#ifndef WIDE_INTS_KERNELS_H
#define WIDE_INTS_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

/* unsigned long long mult; long long shift; unsigned int mask: the
 * program's constants (op_decl_const) */

static inline unsigned long long mix(unsigned long long h, unsigned int t) {
  return (h ^ t) * mult;
}

/* edges: both cells' totals grow by a value past 2^32 (through the map),
 * the edge's tag enters three reductions */
static void spread(long long *l, long long *r, const unsigned int *tag, unsigned long long *sum,
                   long long *hi, unsigned int *lo) {
  long long v = (long long)(*tag & mask) * shift;
  *l += v;
  *r -= 2 * v;
  *sum += (unsigned long long)v * 3u;
  if (v > *hi) *hi = v;
  if (*tag < *lo) *lo = *tag;
}

/* cells: a hash of two words that wraps modulo 2^64 */
static void hash(unsigned long long *h, const long long *total) {
  h[0] = mix(h[0], (unsigned int)*total);
  h[1] = h[1] * 6364136223846793005ull + (unsigned long long)total[0];
  h[0] += (unsigned long long)sizeof(long long) + (unsigned long long)sizeof(unsigned long long);
}

/* edges: both cells' longs through a vector map argument, a direct long
 * and an unsigned int written */
static void gather(const long *const *c, long *d, unsigned int *t) {
  *d = c[0][0] - 3 * c[1][0] + (long)shift;
  *t = *t * 1664525u + 1013904223u;
}

/* edges: <stdint.h>'s names (a device compiler has no <stdint.h>) */
static void stamp(int64_t *st, const uint32_t *tag) {
  *st = (int64_t)*tag * (int64_t)-3000000001LL + (int64_t)sizeof(int64_t);
}

/* edges: bools, a dat read and written, a dat read through the map, and
 * reductions (OP_INC: any; OP_MIN: all; OP_MAX: any) */
static void flags(bool *f, const bool *n, bool *any, bool *all, bool *some) {
  *f = *f != *n;
  *any += *f;
  *all = *n < *all ? *n : *all;
  if (*f && *n) *some = true;
}

#endif
