/*
 * aero_meshgen -- write a finite-element mesh for OP2's aero example: the
 * NACA 0012 O-grid of naca_mesh.c, as bilinear quadrilaterals, in the text
 * format aero reads ("FE_grid.dat").
 *
 *   aero_meshgen [-o FILE] [--cells N | --ni A --nj B] [--radius R] [--wall]
 *                [--shuffle SEED]
 *
 * Options may also be written as --cells=N, --ni=A, --nj=B, --radius=R,
 * --out=FILE, --shuffle=SEED.  Defaults: -o FE_grid.dat, --cells 20000,
 * --radius 15, no shuffle.
 *
 * --shuffle SEED numbers the same mesh at random (naca_mesh_shuffle: nodes
 * and cells permuted, a cell's corners kept in order; a positive SEED, the
 * same file for the same seed on every machine).  The generator's own
 * numbering goes ring by ring, which suits caches and colouring; a shuffled
 * mesh is the other extreme, for measuring how much a result depends on the
 * numbering of a mesh we do not have (OP2's own FE_grid.dat, say).
 *
 * The format, as aero's reader expects it (fscanf, all indices 0-based):
 *   nnode ncell nbnode
 *   nnode lines   "x y"
 *   ncell lines   "n0 n1 n2 n3"
 *   nbnode lines  "n"
 *
 * Corner order of a cell: aero's shape functions (the Ng2 / Ng2_xi tables)
 * number the corners of the reference square tensor-wise, (0,0) (1,0)
 * (0,1) (1,1), not around the square.  naca_mesh gives the corners
 * counter-clockwise (c0 c1 c2 c3), so a cell is written as c0 c1 c3 c2,
 * which keeps the Jacobian of every element positive.
 *
 * Boundary nodes are the nodes held fixed (Dirichlet) by aero's `dirichlet`
 * loop: by default the far-field ring only, so that phi = minf * x stays the
 * free stream there while the airfoil surface gets the natural (zero normal
 * flux, i.e. slip wall) condition, and the solver has real work to do.
 * With --wall the airfoil surface nodes are fixed as well.
 */
#include "cli_options.h"
#include "naca_mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [-o FILE] [--cells N | --ni A --nj B] [--radius R] "
          "[--wall] [--shuffle SEED]\n",
          prog);
}

int main(int argc, char **argv) {
  const char *out = "FE_grid.dat";
  long cells = 20000;
  int ni = 0, nj = 0, wall = 0;
  long seed = 0;
  double radius = NACA_MESH_DEFAULT_RADIUS;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(argv[0]);
      return 0;
    } else if (strcmp(argv[i], "--wall") == 0) {
      wall = 1;
    } else if ((v = option_value(argc, argv, &i, "-o")) != NULL ||
               (v = option_value(argc, argv, &i, "--out")) != NULL) {
      out = v;
    } else if ((v = option_value(argc, argv, &i, "--cells")) != NULL) {
      cells = parse_long(v, "cell count");
    } else if ((v = option_value(argc, argv, &i, "--ni")) != NULL) {
      ni = (int)parse_long(v, "ni");
    } else if ((v = option_value(argc, argv, &i, "--nj")) != NULL) {
      nj = (int)parse_long(v, "nj");
    } else if ((v = option_value(argc, argv, &i, "--shuffle")) != NULL) {
      seed = parse_long(v, "shuffle seed");
    } else if ((v = option_value(argc, argv, &i, "--radius")) != NULL) {
      char *end;
      radius = strtod(v, &end);
      if (*end != '\0' || !(radius > 2.0)) {
        fprintf(stderr, "invalid radius (must be > 2): %s\n", v);
        return 2;
      }
    } else {
      fprintf(stderr, "unknown argument: %s\n", argv[i]);
      usage(argv[0]);
      return 2;
    }
  }
  if ((ni > 0) != (nj > 0)) {
    fprintf(stderr, "--ni and --nj must be given together\n");
    return 2;
  }
  if (ni == 0)
    naca_mesh_dims_for_cells(cells, &ni, &nj);

  naca_mesh m;
  if (naca_mesh_generate(ni, nj, radius, &m) != 0)
    return 1;
  if (seed > 0 && naca_mesh_shuffle(&m, (unsigned long)seed) != 0) {
    fprintf(stderr, "out of memory\n");
    naca_mesh_free(&m);
    return 1;
  }

  /* boundary nodes: endpoints of the chosen boundary edges, each once, in
   * increasing node order */
  char *fixed = calloc((size_t)m.nnode, 1);
  if (fixed == NULL) {
    fprintf(stderr, "out of memory\n");
    naca_mesh_free(&m);
    return 1;
  }
  for (int e = 0; e < m.nbedge; e++) {
    if (m.bound[e] == 2 || (wall && m.bound[e] == 1)) {
      fixed[m.bedge[2 * e]] = 1;
      fixed[m.bedge[2 * e + 1]] = 1;
    }
  }
  int nbnode = 0;
  for (int n = 0; n < m.nnode; n++)
    nbnode += fixed[n];

  FILE *fp = fopen(out, "w");
  if (fp == NULL) {
    perror(out);
    free(fixed);
    naca_mesh_free(&m);
    return 1;
  }
  fprintf(fp, "%d %d %d\n", m.nnode, m.ncell, nbnode);
  for (int n = 0; n < m.nnode; n++)
    fprintf(fp, "%.17g %.17g\n", m.x[2 * n], m.x[2 * n + 1]);
  for (int c = 0; c < m.ncell; c++) {
    const int *q = &m.cell[4 * c];
    fprintf(fp, "%d %d %d %d\n", q[0], q[1], q[3], q[2]);
  }
  for (int n = 0; n < m.nnode; n++)
    if (fixed[n])
      fprintf(fp, "%d\n", n);
  int bad = ferror(fp);
  if (fclose(fp) != 0 || bad) {
    fprintf(stderr, "error writing %s\n", out);
    free(fixed);
    naca_mesh_free(&m);
    return 1;
  }
  printf("wrote %s: O-grid %d x %d, %d nodes, %d cells, %d boundary nodes "
         "(%s), far field at %g chords",
         out, ni % 2 ? ni + 1 : ni, nj, m.nnode, m.ncell, nbnode,
         wall ? "far field and wall" : "far field", radius);
  if (seed > 0)
    printf(", numbered at random (seed %ld)", seed);
  printf("\n");
  free(fixed);
  naca_mesh_free(&m);
  return 0;
}
