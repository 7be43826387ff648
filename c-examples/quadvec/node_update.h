// node_update -- direct loop over nodes: one damped Richardson step
//   u += dt (f - r - mass u),  r = 0 for the next residual,
// and the squared change added to a global (OP_INC). Needs the global dt.
#ifndef QUADVEC_NODE_UPDATE_H
#define QUADVEC_NODE_UPDATE_H

inline void node_update(const double *f, double *u, double *r, double *rms) {
  const double du = dt * (f[0] - r[0] - 0.1 * u[0]);
  u[0] += du;
  r[0] = 0.0;
  *rms += du * du;
}

#endif
