// adt_calc -- loop over cells, reading the 4 corner coordinates through the
// cell -> node map.
// Result: adt = (sum over the 4 sides of |u.n| + c |n|) / cfl, where n is the
// side vector turned by 90 degrees.  1/adt is the cell's local time step
// divided by its area, so the update is simply q -= res / adt.
// Needs the globals gam, gm1, cfl.
#ifndef AIRFOIL_ADT_CALC_H
#define AIRFOIL_ADT_CALC_H

#include <math.h>

// wave-speed contribution of the side running from a to b
inline double adt_calc_side(const double *a, const double *b, double u,
                            double v, double c) {
  const double sx = b[0] - a[0];
  const double sy = b[1] - a[1];
  return fabs(u * sy - v * sx) + c * sqrt(sx * sx + sy * sy);
}

inline void adt_calc(const double *x1, const double *x2, const double *x3,
                     const double *x4, const double *q, double *adt) {
  const double rinv = 1.0 / q[0];
  const double u = rinv * q[1];
  const double v = rinv * q[2];
  // speed of sound from the internal energy per unit mass
  const double c = sqrt(gam * gm1 * (rinv * q[3] - 0.5 * (u * u + v * v)));

  double sum = adt_calc_side(x1, x2, u, v, c);
  sum += adt_calc_side(x2, x3, u, v, c);
  sum += adt_calc_side(x3, x4, u, v, c);
  sum += adt_calc_side(x4, x1, u, v, c);
  *adt = sum / cfl;
}

#endif
