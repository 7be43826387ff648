// bres_calc -- loop over boundary edges.
// The scaled normal (d.y, -d.x), d = x1 - x2, points out of the domain.
//   bound == 1 (solid wall): only the pressure force acts on the momentum.
//   otherwise (far field):   same central flux as res_calc, with the free
//                            stream state qinf on the outside and the cell's
//                            own adt for the dissipation.
// Needs the globals gm1, eps, qinf.
#ifndef AIRFOIL_BRES_CALC_H
#define AIRFOIL_BRES_CALC_H

inline void bres_calc(const double *x1, const double *x2, const double *q1,
                      const double *adt1, double *res1, const int *bound) {
  const double dx = x1[0] - x2[0];
  const double dy = x1[1] - x2[1];

  double rinv = 1.0 / q1[0];
  const double p1 = gm1 * (q1[3] - 0.5 * rinv * (q1[1] * q1[1] + q1[2] * q1[2]));

  if (*bound == 1) {
    res1[1] += p1 * dy;
    res1[2] -= p1 * dx;
    return;
  }

  const double vn1 = rinv * (q1[1] * dy - q1[2] * dx);

  rinv = 1.0 / qinf[0];
  const double p2 =
      gm1 * (qinf[3] - 0.5 * rinv * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));
  const double vn2 = rinv * (qinf[1] * dy - qinf[2] * dx);

  const double mu = (*adt1) * eps;

  res1[0] += 0.5 * (vn1 * q1[0] + vn2 * qinf[0]) + mu * (q1[0] - qinf[0]);
  res1[1] += 0.5 * (vn1 * q1[1] + p1 * dy + vn2 * qinf[1] + p2 * dy) +
             mu * (q1[1] - qinf[1]);
  res1[2] += 0.5 * (vn1 * q1[2] - p1 * dx + vn2 * qinf[2] - p2 * dx) +
             mu * (q1[2] - qinf[2]);
  res1[3] += 0.5 * (vn1 * (q1[3] + p1) + vn2 * (qinf[3] + p2)) +
             mu * (q1[3] - qinf[3]);
}

#endif
