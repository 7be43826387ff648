// res_calc -- loop over interior edges.
// Central flux with scalar (Jameson-style first order) dissipation across the
// edge (x1, x2) separating cells 1 and 2.  With d = x1 - x2 the scaled normal
// is (d.y, -d.x), pointing out of cell 1 into cell 2; the flux is added to
// cell 1's residual and subtracted from cell 2's.
// Needs the globals gm1, eps.
#ifndef AIRFOIL_RES_CALC_H
#define AIRFOIL_RES_CALC_H

// pressure and normal volume flux (velocity . scaled normal) of one state
inline void res_calc_state(const double *q, double dy, double dx, double *p,
                           double *vn) {
  const double rinv = 1.0 / q[0];
  *p = gm1 * (q[3] - 0.5 * rinv * (q[1] * q[1] + q[2] * q[2]));
  *vn = rinv * (q[1] * dy - q[2] * dx);
}

inline void res_calc(const double *x1, const double *x2, const double *q1,
                     const double *q2, const double *adt1, const double *adt2,
                     double *res1, double *res2) {
  const double dx = x1[0] - x2[0];
  const double dy = x1[1] - x2[1];

  double p1, vn1, p2, vn2;
  res_calc_state(q1, dy, dx, &p1, &vn1);
  res_calc_state(q2, dy, dx, &p2, &vn2);

  // artificial dissipation coefficient: mean of the two cells' adt
  const double mu = 0.5 * ((*adt1) + (*adt2)) * eps;

  double flux[4];
  flux[0] = 0.5 * (vn1 * q1[0] + vn2 * q2[0]) + mu * (q1[0] - q2[0]);
  flux[1] = 0.5 * (vn1 * q1[1] + p1 * dy + vn2 * q2[1] + p2 * dy) +
            mu * (q1[1] - q2[1]);
  flux[2] = 0.5 * (vn1 * q1[2] - p1 * dx + vn2 * q2[2] - p2 * dx) +
            mu * (q1[2] - q2[2]);
  flux[3] = 0.5 * (vn1 * (q1[3] + p1) + vn2 * (q2[3] + p2)) +
            mu * (q1[3] - q2[3]);

  for (int k = 0; k < 4; ++k) {
    res1[k] += flux[k];
    res2[k] -= flux[k];
  }
}

#endif
