// airfoil_setup.h -- pieces shared by airfoil.cpp (OP2 version) and
// airfoil_ref.cpp (plain loop nest): command line, flow constants and mesh
// acquisition.  Include after the global constants are declared.
//
// Command line (any order):
//   [MESHFILE]      read this new_grid.dat-format file instead of generating
//   --cells=N       size of the built-in O-grid (default AIRFOIL_DEFAULT_CELLS)
//   --ni=A --nj=B   exact built-in O-grid dimensions (overrides --cells)
//   --iters=N       number of time steps (default 1000)
//   --out=FILE      write the final q (binary, op_print_dat_to_binfile layout)
//   --diags=N       OP2 diagnostics level passed to op_init (default 0)
//   --shuffle=SEED  renumber nodes, cells and edges randomly (the same mesh
//                   with no locality in its numbering; naca_mesh_shuffle)
//   --renumber      reorder the mesh for locality with op_renumber(pecell)
//                   after the declarations (OP2 programs only)
// Arguments containing "OP_" (OP_PART_SIZE=..., OP_BLOCK_SIZE=..., ...) and
// "-gpudirect" belong to the OP2 runtime and are skipped here.
#ifndef AIRFOIL_SETUP_H
#define AIRFOIL_SETUP_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naca_mesh.h"

#ifndef AIRFOIL_DEFAULT_CELLS
#define AIRFOIL_DEFAULT_CELLS 20000
#endif

struct AirfoilOptions {
  const char *mesh_file = nullptr;
  long cells = AIRFOIL_DEFAULT_CELLS;
  int ni = 0, nj = 0;
  int iters = 1000;
  const char *out_file = nullptr;
  int diags = 0;
  long shuffle = -1; // seed, or -1: the generator's numbering
  bool renumber = false;
};

inline bool airfoil_is_runtime_arg(const char *a) {
  return strstr(a, "OP_") != nullptr || strcmp(a, "-gpudirect") == 0;
}

// value of "--name=VALUE", or nullptr if `arg` is not that option
inline const char *airfoil_opt(const char *arg, const char *name) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) == 0 && arg[n] == '=')
    return arg + n + 1;
  return nullptr;
}

inline long airfoil_positive(const char *text, const char *what) {
  char *end = nullptr;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0) {
    fprintf(stderr, "invalid value for %s: '%s'\n", what, text);
    exit(2);
  }
  return v;
}

inline AirfoilOptions airfoil_parse_args(int argc, char **argv) {
  AirfoilOptions o;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v;
    if (airfoil_is_runtime_arg(a))
      continue;
    if ((v = airfoil_opt(a, "--cells")))
      o.cells = airfoil_positive(v, "--cells");
    else if ((v = airfoil_opt(a, "--ni")))
      o.ni = (int)airfoil_positive(v, "--ni");
    else if ((v = airfoil_opt(a, "--nj")))
      o.nj = (int)airfoil_positive(v, "--nj");
    else if ((v = airfoil_opt(a, "--iters")))
      o.iters = (int)airfoil_positive(v, "--iters");
    else if ((v = airfoil_opt(a, "--out")))
      o.out_file = v;
    else if ((v = airfoil_opt(a, "--diags")))
      o.diags = (int)airfoil_positive(v, "--diags");
    else if ((v = airfoil_opt(a, "--shuffle")))
      o.shuffle = airfoil_positive(v, "--shuffle");
    else if (strcmp(a, "--renumber") == 0)
      o.renumber = true;
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      printf("usage: %s [MESHFILE] [--cells=N | --ni=A --nj=B] [--iters=N] "
             "[--out=FILE] [--diags=N] [--shuffle=SEED] [--renumber] "
             "[OP2 runtime options]\n",
             argv[0]);
      exit(0);
    } else if (a[0] == '-') {
      fprintf(stderr, "unknown option '%s' (try --help)\n", a);
      exit(2);
    } else if (o.mesh_file == nullptr)
      o.mesh_file = a;
    else {
      fprintf(stderr, "more than one mesh file given ('%s', '%s')\n",
              o.mesh_file, a);
      exit(2);
    }
  }
  if ((o.ni > 0) != (o.nj > 0)) {
    fprintf(stderr, "--ni and --nj must be given together\n");
    exit(2);
  }
  return o;
}

// Free-stream state and scheme parameters.  OP2's reference airfoil assigns
// these from single-precision literals (1.4f, 0.9f, ...); the same rounded
// values are used here so that both programs agree bit for bit on a mesh.
inline void airfoil_set_constants() {
  gam = (double)1.4f;
  gm1 = gam - 1.0;
  cfl = (double)0.9f;
  eps = (double)0.05f;
  mach = (double)0.4f;
  alpha = 3.0 * atan(1.0) / 45.0; // 3 degrees; the kernels do not use it

  const double p_inf = 1.0, rho_inf = 1.0;
  const double u_inf = sqrt(gam * p_inf / rho_inf) * mach;
  const double e_inf = p_inf / (rho_inf * gm1) + 0.5 * u_inf * u_inf;
  qinf[0] = rho_inf;
  qinf[1] = rho_inf * u_inf;
  qinf[2] = 0.0;
  qinf[3] = rho_inf * e_inf;
}

// Read the mesh file or build the O-grid.  Exits on failure.
inline void airfoil_get_mesh(const AirfoilOptions &o, naca_mesh *m) {
  if (o.mesh_file != nullptr) {
    if (naca_mesh_read(o.mesh_file, m) != 0)
      exit(1);
  } else {
    int ni = o.ni, nj = o.nj;
    if (ni == 0)
      naca_mesh_dims_for_cells(o.cells, &ni, &nj);
    if (naca_mesh_generate(ni, nj, NACA_MESH_DEFAULT_RADIUS, m) != 0)
      exit(1);
  }
  if (o.shuffle >= 0 && naca_mesh_shuffle(m, (unsigned long)o.shuffle) != 0) {
    fprintf(stderr, "out of memory shuffling the mesh\n");
    exit(1);
  }
}

#endif
