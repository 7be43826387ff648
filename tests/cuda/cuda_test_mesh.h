/*
 * Host helpers shared by the CUDA test programs in tests/cuda: a small
 * structured quad mesh with its edges in a scrambled order, deterministic
 * data, and PASS/FAIL reporting. Plain C++ (no CUDA, no OP2).
 */
#ifndef OP2_RS_CUDA_TEST_MESH_H
#define OP2_RS_CUDA_TEST_MESH_H

#include <math.h>
#include <stdio.h>

#include <vector>

/* (nx+1) x (ny+1) nodes, nx*ny cells (4 nodes each, counter-clockwise) and
 * the nx*(ny+1) + ny*(nx+1) edges between neighbouring nodes, listed in a
 * fixed pseudo-random order so that consecutive edges rarely share a node
 * pattern a plan could rely on. */
struct QuadMesh {
  int nx = 0, ny = 0;
  int nnode = 0, nedge = 0, ncell = 0;
  std::vector<int> edge2node; /* 2 per edge */
  std::vector<int> cell2node; /* 4 per cell */
};

inline QuadMesh make_quad_mesh(int nx, int ny) {
  QuadMesh m;
  m.nx = nx;
  m.ny = ny;
  m.nnode = (nx + 1) * (ny + 1);
  m.ncell = nx * ny;
  auto node = [nx](int i, int j) { return j * (nx + 1) + i; };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i < nx; ++i) {
      m.edge2node.push_back(node(i, j));
      m.edge2node.push_back(node(i + 1, j));
    }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      m.edge2node.push_back(node(i, j));
      m.edge2node.push_back(node(i, j + 1));
    }
  m.nedge = (int)m.edge2node.size() / 2;
  /* Fisher-Yates with a fixed linear congruential generator */
  unsigned long long state = 12345;
  for (int e = m.nedge - 1; e > 0; --e) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const int k = (int)((state >> 33) % (unsigned long long)(e + 1));
    for (int c = 0; c < 2; ++c) {
      const int t = m.edge2node[2 * e + c];
      m.edge2node[2 * e + c] = m.edge2node[2 * k + c];
      m.edge2node[2 * k + c] = t;
    }
  }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      m.cell2node.push_back(node(i, j));
      m.cell2node.push_back(node(i + 1, j));
      m.cell2node.push_back(node(i + 1, j + 1));
      m.cell2node.push_back(node(i, j + 1));
    }
  return m;
}

/* Small multiples of 1/4 in [-8, 8): sums and products of a few of them are
 * exact in double, whatever the order of accumulation. */
inline double test_value(int i, int salt) { return (double)((i * 37 + salt * 11) % 64) * 0.25 - 8.0; }

/* Compare n values; print one PASS or FAIL line (with the first mismatch). */
inline bool check_values(const char *what, const double *got, const double *want, int n,
                         double tol = 1e-12) {
  for (int i = 0; i < n; ++i) {
    const double scale = fabs(want[i]) > 1.0 ? fabs(want[i]) : 1.0;
    if (!(fabs(got[i] - want[i]) <= tol * scale)) {
      printf("FAIL %s: [%d] = %.17g, expected %.17g\n", what, i, got[i], want[i]);
      return false;
    }
  }
  printf("PASS %s (%d values)\n", what, n);
  return true;
}

inline bool check_int(const char *what, long long got, long long want) {
  if (got != want) {
    printf("FAIL %s: %lld, expected %lld\n", what, got, want);
    return false;
  }
  printf("PASS %s\n", what);
  return true;
}

/* Final line and exit status of a test program. */
inline int report(const char *test, bool ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", test);
  return ok ? 0 : 1;
}

#endif /* OP2_RS_CUDA_TEST_MESH_H */
