// save_soln -- direct loop over cells.
// Keep a copy of the cell state at the start of the time step; both stages
// of the two-stage update restart from it.
#ifndef AIRFOIL_SAVE_SOLN_H
#define AIRFOIL_SAVE_SOLN_H

inline void save_soln(const double *q, double *qold) {
  for (int k = 0; k < 4; ++k)
    qold[k] = q[k];
}

#endif
