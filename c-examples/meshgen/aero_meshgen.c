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
 * --shuffle SEED numbers the same mesh at random: node numbers and the order
 * of the cells are permutations drawn from SEED (a positive integer; the
 * same seed gives the same file on every machine), the corner order of each
 * cell is kept.  The generator's own numbering goes ring by ring, which is
 * friendly to caches; a shuffled mesh is the other extreme, for measuring
 * how much a result depends on the numbering of a mesh we do not have
 * (OP2's own FE_grid.dat, say).
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

/* splitmix64: a small, fully specified generator, so that a seed gives the
 * same permutation whatever the C library. */
static unsigned long long next_random(unsigned long long *state) {
  unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* order[k] = k, then a Fisher-Yates shuffle drawn from *state; identity
 * when state is NULL.  Returns NULL when out of memory. */
static int *permutation(int n, unsigned long long *state) {
  int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (order == NULL)
    return NULL;
  for (int k = 0; k < n; k++)
    order[k] = k;
  if (state != NULL) {
    for (int k = n - 1; k > 0; k--) {
      int j = (int)(next_random(state) % (unsigned long long)(k + 1));
      int t = order[k];
      order[k] = order[j];
      order[j] = t;
    }
  }
  return order;
}

/* Write mesh m to `out` in aero's format: node n of the file is node_at[n]
 * of m (new_node the inverse), the k-th cell is cell_at[k], corners in the
 * tensor order aero's shape functions use; the nodes marked in `fixed`
 * (nbnode of them) are listed in increasing file order.  0 on success. */
static int write_mesh(const char *out, const naca_mesh *m, const char *fixed, int nbnode,
                      const int *node_at, const int *cell_at, const int *new_node) {
  FILE *fp = fopen(out, "w");
  if (fp == NULL) {
    perror(out);
    return 1;
  }
  fprintf(fp, "%d %d %d\n", m->nnode, m->ncell, nbnode);
  for (int n = 0; n < m->nnode; n++)
    fprintf(fp, "%.17g %.17g\n", m->x[2 * node_at[n]], m->x[2 * node_at[n] + 1]);
  for (int k = 0; k < m->ncell; k++) {
    const int *q = &m->cell[4 * cell_at[k]];
    fprintf(fp, "%d %d %d %d\n", new_node[q[0]], new_node[q[1]], new_node[q[3]],
            new_node[q[2]]);
  }
  for (int n = 0; n < m->nnode; n++)
    if (fixed[node_at[n]])
      fprintf(fp, "%d\n", n);
  int bad = ferror(fp);
  if (fclose(fp) != 0 || bad) {
    fprintf(stderr, "error writing %s\n", out);
    return 1;
  }
  return 0;
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

  /* node_at[n] = the generator's node written as node n; cell_at[k] = the
   * generator's cell written k-th; new_node inverts node_at.  The identity
   * without --shuffle. */
  unsigned long long state = (unsigned long long)seed;
  int *node_at = permutation(m.nnode, seed > 0 ? &state : NULL);
  int *cell_at = permutation(m.ncell, seed > 0 ? &state : NULL);
  int *new_node = malloc((size_t)(m.nnode > 0 ? m.nnode : 1) * sizeof(int));
  int status = 1;
  if (node_at == NULL || cell_at == NULL || new_node == NULL) {
    fprintf(stderr, "out of memory\n");
  } else {
    for (int n = 0; n < m.nnode; n++)
      new_node[node_at[n]] = n;
    status = write_mesh(out, &m, fixed, nbnode, node_at, cell_at, new_node);
  }
  free(node_at);
  free(cell_at);
  free(new_node);
  free(fixed);
  if (status != 0) {
    naca_mesh_free(&m);
    return status;
  }
  printf("wrote %s: O-grid %d x %d, %d nodes, %d cells, %d boundary nodes "
         "(%s), far field at %g chords",
         out, ni % 2 ? ni + 1 : ni, nj, m.nnode, m.ncell, nbnode,
         wall ? "far field and wall" : "far field", radius);
  if (seed > 0)
    printf(", numbered at random (seed %ld)", seed);
  printf("\n");
  naca_mesh_free(&m);
  return 0;
}
