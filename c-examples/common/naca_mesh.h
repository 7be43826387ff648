/*
 * naca_mesh.h -- structured O-grid around a NACA 0012 section, stored in the
 * unstructured layout used by the airfoil example (and by OP2's airfoil app).
 *
 * Layout of a mesh (all indices 0-based):
 *
 *   x[2*nnode]       node coordinates (x, y)
 *   cell[4*ncell]    cell -> node, corners in counter-clockwise order
 *   edge[2*nedge]    interior edge -> node (n0, n1)
 *   ecell[2*nedge]   interior edge -> cell (c0, c1)
 *   bedge[2*nbedge]  boundary edge -> node (n0, n1)
 *   becell[nbedge]   boundary edge -> cell
 *   bound[nbedge]    1 = airfoil wall, 2 = far field
 *
 * Edge orientation convention (what res_calc / bres_calc rely on): with
 * d = x[n0] - x[n1], the vector (d.y, -d.x) -- the edge length times a unit
 * normal -- points out of c0 and into c1.  For a boundary edge it points out
 * of the domain, away from its cell.  Equivalently, walking n0 -> n1 keeps c0
 * on the right-hand side.
 *
 * The text file format ("new_grid.dat") is:
 *   nnode ncell nedge nbedge
 *   nnode lines   "x y"
 *   ncell lines   "n0 n1 n2 n3"
 *   nedge lines   "n0 n1 c0 c1"
 *   nbedge lines  "n0 n1 c bound"
 *
 * Written in C99; usable from C++.
 */
#ifndef C_EXAMPLES_NACA_MESH_H
#define C_EXAMPLES_NACA_MESH_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct naca_mesh {
  int nnode, ncell, nedge, nbedge;
  double *x;
  int *cell;
  int *edge;
  int *ecell;
  int *bedge;
  int *becell;
  int *bound;
} naca_mesh;

/* Default far-field radius, in chord lengths. */
#define NACA_MESH_DEFAULT_RADIUS 15.0

/* Pick (ni, nj) -- cells around the section and cells outwards -- so that
 * ni*nj is close to target_cells, with ni roughly 2*nj and ni even.
 * Minimum size is 16 x 8. */
void naca_mesh_dims_for_cells(long target_cells, int *ni, int *nj);

/* Build the O-grid.  ni >= 8 (rounded up to even), nj >= 2,
 * radius > 2 (chords).  Returns 0 on success, non-zero on failure (bad
 * arguments, out of memory, or the generated mesh failed its own checks).
 * On failure *m is left empty. */
int naca_mesh_generate(int ni, int nj, double radius, naca_mesh *m);

/* Read / write the text format above.  Return 0 on success; on failure an
 * explanation is printed to stderr and *m is left empty (read). */
int naca_mesh_read(const char *path, naca_mesh *m);
int naca_mesh_write(const char *path, const naca_mesh *m);

/* Consistency checks: index ranges, positive cell areas, every cell closed
 * (the normals of its faces, oriented as described above, sum to zero) and
 * edges pointing out of c0 (centroid test).  Problems are described on
 * `report` (may be NULL).  Returns the number of problems found. */
int naca_mesh_check(const naca_mesh *m, FILE *report);

/* Renumber every set (nodes, cells, edges, boundary edges) by a random
 * permutation drawn from `seed` (the same seed gives the same mesh): the
 * same mesh with a numbering that has no locality, for studying reordering
 * (op_renumber).  Edge orientations are kept.  Returns 0 on success, -1 when
 * out of memory (the mesh is then unchanged). */
int naca_mesh_shuffle(naca_mesh *m, unsigned long seed);

/* Release the arrays and zero the struct (safe on an empty struct). */
void naca_mesh_free(naca_mesh *m);

#ifdef __cplusplus
}
#endif

#endif
