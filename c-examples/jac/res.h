/* res -- loop over matrix entries ("edges" row -> column).
 * Accumulates the matrix-vector product: du[row] += beta * A_e * u[col].
 * u is read through column 1 of the map, du is incremented (OP_INC)
 * through column 0, beta is a global read-only scalar.
 * Plain C99 / C++. */
#ifndef JAC_RES_H
#define JAC_RES_H

static inline void res(const double *A, const double *u, double *du,
                       const double *beta) {
  *du += (*beta) * (*A) * (*u);
}

#endif
