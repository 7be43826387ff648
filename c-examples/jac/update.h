/* update -- direct loop over nodes.
 * Weighted Jacobi step on the unit-diagonal system:  u += omega * (r - Au),
 * where du holds Au from the res loop and is cleared for the next sweep.
 * Global reductions: u_sum += u*u (OP_INC), u_max = max |u| (OP_MAX).
 * Needs the global constant omega.  Plain C99 / C++. */
#ifndef JAC_UPDATE_H
#define JAC_UPDATE_H

#include <math.h>

static inline void update(const double *r, double *du, double *u,
                          double *u_sum, double *u_max) {
  const double change = omega * (*r - *du);
  *u += change;
  *du = 0.0;
  *u_sum += (*u) * (*u);
  if (fabs(*u) > *u_max)
    *u_max = fabs(*u);
}

#endif
