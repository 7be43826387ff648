// quadvec_setup.h -- command line and mesh of the quadvec benchmark, shared
// by quadvec.cpp (OP2) and quadvec_ref.cpp (plain loops).
//
//   --nx=N --ny=M   cells in x and y [400 x 400]
//   --iters=K       iterations [100]
//
// The mesh: the unit square cut into nx x ny quadrilaterals, the interior
// nodes moved by a smooth perturbation (so the cells are not parallelograms
// and every cell has its own Jacobian); cell c's corners, counter-clockwise,
// in cell[4 c .. 4 c + 3]. f: a smooth source term.
#ifndef QUADVEC_SETUP_H
#define QUADVEC_SETUP_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

struct quadvec_options {
  int nx = 400, ny = 400, iters = 100;
};

inline quadvec_options quadvec_parse_args(int argc, char **argv) {
  quadvec_options o;
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--nx=", 5) == 0)
      o.nx = atoi(argv[i] + 5);
    else if (strncmp(argv[i], "--ny=", 5) == 0)
      o.ny = atoi(argv[i] + 5);
    else if (strncmp(argv[i], "--iters=", 8) == 0)
      o.iters = atoi(argv[i] + 8);
    else if (strstr(argv[i], "OP_") == nullptr) {
      fprintf(stderr, "usage: %s [--nx=N] [--ny=M] [--iters=K] [OP_...]\n", argv[0]);
      exit(2);
    }
  }
  if (o.nx < 1 || o.ny < 1 || o.iters < 0) {
    fprintf(stderr, "bad sizes\n");
    exit(2);
  }
  return o;
}

struct quadvec_mesh {
  int ncell, nnode;
  std::vector<int> cell;  // 4 per cell
  std::vector<double> x;  // 2 per node
  std::vector<double> f;  // 1 per node
};

inline quadvec_mesh quadvec_build(const quadvec_options &o) {
  const double pi = 3.14159265358979323846;
  quadvec_mesh m;
  m.ncell = o.nx * o.ny;
  m.nnode = (o.nx + 1) * (o.ny + 1);
  m.cell.resize(4 * (size_t)m.ncell);
  m.x.resize(2 * (size_t)m.nnode);
  m.f.resize((size_t)m.nnode);
  for (int j = 0; j <= o.ny; ++j)
    for (int i = 0; i <= o.nx; ++i) {
      const int n = j * (o.nx + 1) + i;
      const double s = (double)i / o.nx, t = (double)j / o.ny;
      const double b = sin(pi * s) * sin(pi * t); // 0 on the boundary
      m.x[2 * n] = s + 0.2 / o.nx * b * sin(7.0 * t);
      m.x[2 * n + 1] = t + 0.2 / o.ny * b * cos(5.0 * s);
      m.f[n] = 1.0 + 0.5 * sin(3.0 * s) * cos(2.0 * t);
    }
  for (int j = 0; j < o.ny; ++j)
    for (int i = 0; i < o.nx; ++i) {
      const int c = j * o.nx + i, n0 = j * (o.nx + 1) + i;
      m.cell[4 * c] = n0;
      m.cell[4 * c + 1] = n0 + 1;
      m.cell[4 * c + 2] = n0 + o.nx + 2;
      m.cell[4 * c + 3] = n0 + o.nx + 1;
    }
  return m;
}

#endif
