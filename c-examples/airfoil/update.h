// update -- direct loop over cells.
// q = qold - res / adt, clear the residual for the next stage, and add the
// squared change to the global rms accumulator (OP_INC).
#ifndef AIRFOIL_UPDATE_H
#define AIRFOIL_UPDATE_H

inline void update(const double *qold, double *q, double *res,
                   const double *adt, double *rms) {
  const double scale = 1.0 / (*adt);
  for (int k = 0; k < 4; ++k) {
    const double delta = scale * res[k];
    q[k] = qold[k] - delta;
    res[k] = 0.0;
    *rms += delta * delta;
  }
}

#endif
