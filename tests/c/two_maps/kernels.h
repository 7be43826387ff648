/*
 * kernels.h -- the kernels of two_maps.c (a header, so that a device
 * library finds them where the program's source is not: the GPU bundle).
 */
#ifndef TWO_MAPS_KERNELS_H
#define TWO_MAPS_KERNELS_H

static void both(double *l, double *r) {
  *l += 1.0;
  *r += 10.0;
}

static void both_inc(double *l, double *r) {
  *l += 0.5;
  *r += 4.0;
}

static void gather(const double *l, const double *r, double *out) { *out = *l - 2.0 * *r; }

static void pinched(double *a, double *b) {
  *a += 1.0;
  *b += 10.0;
}

#endif
