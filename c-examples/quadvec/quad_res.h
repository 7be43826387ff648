// quad_res -- loop over quadrilateral cells with vector arguments (idx -4:
// all four corners of the cell through the cell -> node map).
// The residual r = K u of the bilinear (Q1) finite-element Laplacian,
// matrix-free: for each of the 2 x 2 Gauss points, the Jacobian of the
// cell's map from the reference square, the gradients of the four shape
// functions, the gradient of u, and each corner's share added to r (OP_INC).
#ifndef QUADVEC_QUAD_RES_H
#define QUADVEC_QUAD_RES_H

inline void quad_res(const double **x, const double **u, double **r) {
  // Gauss points of the reference square [-1, 1]^2 (weights 1)
  const double g = 0.57735026918962576451; // 1 / sqrt(3)
  const double gxi[4] = {-g, g, g, -g}, geta[4] = {-g, -g, g, g};
  // reference corner signs (counter-clockwise from (-1, -1))
  const double sxi[4] = {-1.0, 1.0, 1.0, -1.0}, seta[4] = {-1.0, -1.0, 1.0, 1.0};
  double acc[4] = {0.0, 0.0, 0.0, 0.0};
  for (int q = 0; q < 4; ++q) {
    double dxi[4], deta[4];
    for (int k = 0; k < 4; ++k) {
      dxi[k] = 0.25 * sxi[k] * (1.0 + seta[k] * geta[q]);
      deta[k] = 0.25 * seta[k] * (1.0 + sxi[k] * gxi[q]);
    }
    double j11 = 0.0, j12 = 0.0, j21 = 0.0, j22 = 0.0;
    for (int k = 0; k < 4; ++k) {
      j11 += x[k][0] * dxi[k];
      j12 += x[k][0] * deta[k];
      j21 += x[k][1] * dxi[k];
      j22 += x[k][1] * deta[k];
    }
    const double det = j11 * j22 - j12 * j21;
    const double inv = 1.0 / det;
    double gx[4], gy[4], ux = 0.0, uy = 0.0;
    for (int k = 0; k < 4; ++k) {
      gx[k] = inv * (j22 * dxi[k] - j21 * deta[k]);
      gy[k] = inv * (j11 * deta[k] - j12 * dxi[k]);
      ux += u[k][0] * gx[k];
      uy += u[k][0] * gy[k];
    }
    for (int k = 0; k < 4; ++k)
      acc[k] += det * (gx[k] * ux + gy[k] * uy);
  }
  for (int k = 0; k < 4; ++k)
    r[k][0] += acc[k];
}

#endif
