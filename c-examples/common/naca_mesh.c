/*
 * naca_mesh.c -- O-grid generator and new_grid.dat reader/writer.
 *
 * Construction
 * ------------
 * 1. ni points are placed on the closed-trailing-edge NACA 0012 contour with
 *    cosine spacing in x (dense at both leading and trailing edge).  The
 *    contour is walked counter-clockwise starting at the trailing edge:
 *    trailing edge -> upper surface -> leading edge -> lower surface.
 * 2. Every wall point gets a curved "spoke" to a far-field point on a
 *    circle (centre at mid-chord, given radius) at the uniform angle
 *    2*pi*i/ni.  The spoke leaves the wall along a smoothed surface normal:
 *    the normal angle jumps by roughly 165 degrees at the sharp trailing
 *    edge, so the angle sequence is diffused along the wall to spread that
 *    turn over many spokes.  It arrives at the circle radially.
 * 3. nj+1 points are distributed along each spoke with a geometric growth
 *    ratio chosen so that the first layer is about twice as thick as the
 *    surface spacing at mid-chord.
 * 4. Cells, interior edges and boundary edges are numbered ring by ring
 *    (wall outwards), which keeps the edge -> cell indirections local.
 *
 * The periodic direction (i) wraps around, so there is no cut line: all
 * faces between spokes are ordinary interior edges.
 */
#include "naca_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------------ */
/* geometry helpers                                                          */
/* ------------------------------------------------------------------------ */

/* Half thickness of NACA 0012 (12% thick) with the closed trailing edge
 * variant of the last coefficient, for chordwise position xc in [0,1]. */
static double naca0012_half_thickness(double xc) {
  const double t = 0.12;
  double poly;
  if (xc <= 0.0)
    return 0.0;
  if (xc >= 1.0)
    return 0.0;
  poly = 0.2969 * sqrt(xc) +
         xc * (-0.1260 + xc * (-0.3516 + xc * (0.2843 + xc * (-0.1036))));
  return 5.0 * t * poly;
}

/* Twice the signed area of triangle (a, b, c); > 0 when counter-clockwise. */
static double tri2(const double *a, const double *b, const double *c) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Signed area of a quadrilateral given by 4 node indices. */
static double quad_area(const double *x, const int *q) {
  double s = 0.0;
  for (int k = 0; k < 4; k++) {
    const double *p = x + 2 * q[k];
    const double *r = x + 2 * q[(k + 1) % 4];
    s += p[0] * r[1] - r[0] * p[1];
  }
  return 0.5 * s;
}

/* Geometric growth ratio r >= 1 such that nj layers whose first layer has
 * relative thickness h1 add up to exactly 1:  h1 * (r^nj - 1)/(r - 1) = 1. */
static double growth_ratio(double h1, int nj) {
  double lo = 1.0, hi = 4.0;
  if (h1 * nj >= 1.0)
    return 1.0; /* uniform spacing is already fine enough */
  for (int it = 0; it < 200; it++) {
    double r = 0.5 * (lo + hi);
    double sum = (pow(r, nj) - 1.0) / (r - 1.0);
    if (h1 * sum > 1.0)
      hi = r;
    else
      lo = r;
  }
  return 0.5 * (lo + hi);
}

/* ------------------------------------------------------------------------ */
/* memory                                                                    */
/* ------------------------------------------------------------------------ */

void naca_mesh_free(naca_mesh *m) {
  if (m == NULL)
    return;
  free(m->x);
  free(m->cell);
  free(m->edge);
  free(m->ecell);
  free(m->bedge);
  free(m->becell);
  free(m->bound);
  memset(m, 0, sizeof(*m));
}

static int mesh_alloc(naca_mesh *m, int nnode, int ncell, int nedge,
                      int nbedge) {
  memset(m, 0, sizeof(*m));
  m->nnode = nnode;
  m->ncell = ncell;
  m->nedge = nedge;
  m->nbedge = nbedge;
  /* +1 so that zero-sized sets still give distinct non-NULL pointers */
  m->x = (double *)malloc(sizeof(double) * (2 * (size_t)nnode + 1));
  m->cell = (int *)malloc(sizeof(int) * (4 * (size_t)ncell + 1));
  m->edge = (int *)malloc(sizeof(int) * (2 * (size_t)nedge + 1));
  m->ecell = (int *)malloc(sizeof(int) * (2 * (size_t)nedge + 1));
  m->bedge = (int *)malloc(sizeof(int) * (2 * (size_t)nbedge + 1));
  m->becell = (int *)malloc(sizeof(int) * ((size_t)nbedge + 1));
  m->bound = (int *)malloc(sizeof(int) * ((size_t)nbedge + 1));
  if (!m->x || !m->cell || !m->edge || !m->ecell || !m->bedge || !m->becell ||
      !m->bound) {
    naca_mesh_free(m);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* shuffled numbering                                                        */
/* ------------------------------------------------------------------------ */

/* xorshift64*: small, fast and the same everywhere */
static unsigned long long shuffle_next(unsigned long long *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

/* perm[old] = new, a uniform random permutation of 0..n-1 (Fisher-Yates) */
static int *random_permutation(int n, unsigned long long *s) {
  int *p = (int *)malloc(sizeof(int) * ((size_t)n + 1));
  int i;
  if (p == NULL)
    return NULL;
  for (i = 0; i < n; ++i)
    p[i] = i;
  for (i = n - 1; i > 0; --i) {
    int j = (int)(shuffle_next(s) % (unsigned long long)(i + 1));
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

/* Rows of `rows` (n rows of `dim` ints) moved to their new positions, and
 * every entry renamed by `to` (NULL: entries kept). */
static void move_int_rows(int *rows, int n, int dim, const int *perm,
                          const int *to, int *tmp) {
  int i, k;
  for (i = 0; i < n; ++i)
    for (k = 0; k < dim; ++k) {
      int v = rows[(size_t)dim * i + k];
      tmp[(size_t)dim * perm[i] + k] = to != NULL ? to[v] : v;
    }
  memcpy(rows, tmp, sizeof(int) * (size_t)n * (size_t)dim);
}

int naca_mesh_shuffle(naca_mesh *m, unsigned long seed) {
  unsigned long long s = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)seed;
  size_t most = (size_t)m->nnode * 2;
  int *pn, *pc, *pe, *pb, *tmp;
  double *xt;
  int i;
  if (s == 0)
    s = 1;
  if ((size_t)m->ncell * 4 > most)
    most = (size_t)m->ncell * 4;
  if ((size_t)m->nedge * 2 > most)
    most = (size_t)m->nedge * 2;
  if ((size_t)m->nbedge * 2 > most)
    most = (size_t)m->nbedge * 2;
  pn = random_permutation(m->nnode, &s);
  pc = random_permutation(m->ncell, &s);
  pe = random_permutation(m->nedge, &s);
  pb = random_permutation(m->nbedge, &s);
  tmp = (int *)malloc(sizeof(int) * (most + 1));
  xt = (double *)malloc(sizeof(double) * (2 * (size_t)m->nnode + 1));
  if (!pn || !pc || !pe || !pb || !tmp || !xt) {
    free(pn);
    free(pc);
    free(pe);
    free(pb);
    free(tmp);
    free(xt);
    return -1;
  }
  for (i = 0; i < m->nnode; ++i) {
    xt[2 * (size_t)pn[i]] = m->x[2 * (size_t)i];
    xt[2 * (size_t)pn[i] + 1] = m->x[2 * (size_t)i + 1];
  }
  memcpy(m->x, xt, sizeof(double) * 2 * (size_t)m->nnode);
  move_int_rows(m->cell, m->ncell, 4, pc, pn, tmp);
  move_int_rows(m->edge, m->nedge, 2, pe, pn, tmp);
  move_int_rows(m->ecell, m->nedge, 2, pe, pc, tmp);
  move_int_rows(m->bedge, m->nbedge, 2, pb, pn, tmp);
  move_int_rows(m->becell, m->nbedge, 1, pb, pc, tmp);
  move_int_rows(m->bound, m->nbedge, 1, pb, NULL, tmp);
  free(pn);
  free(pc);
  free(pe);
  free(pb);
  free(tmp);
  free(xt);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* sizing                                                                    */
/* ------------------------------------------------------------------------ */

void naca_mesh_dims_for_cells(long target_cells, int *ni, int *nj) {
  double t = (double)target_cells;
  int a, b;
  if (t < 128.0)
    t = 128.0;
  /* ni ~ 2 nj  =>  2 nj^2 = t */
  b = (int)floor(sqrt(t / 2.0) + 0.5);
  if (b < 8)
    b = 8;
  a = (int)floor(t / b + 0.5);
  if (a % 2)
    a++;
  if (a < 16)
    a = 16;
  *ni = a;
  *nj = b;
}

/* ------------------------------------------------------------------------ */
/* generator                                                                 */
/* ------------------------------------------------------------------------ */

/* Given a cell's counter-clockwise corner list, find the corner pair that
 * joins nodes u and v, and return them in the cell's own traversal order
 * (from -> to).  Returns 0 if the cell has no such side. */
static int cell_side(const int *corners, int u, int v, int *from, int *to) {
  for (int k = 0; k < 4; k++) {
    int p = corners[k], q = corners[(k + 1) % 4];
    if ((p == u && q == v) || (p == v && q == u)) {
      *from = p;
      *to = q;
      return 1;
    }
  }
  return 0;
}

/* Store face (u,v) of `owner`, which has `other` on the far side (or is a
 * boundary face when other < 0), with the orientation convention of the
 * header: the owner's counter-clockwise walk p -> q keeps it on the LEFT,
 * so the stored pair is (q, p), which keeps the owner on the right. */
static int orient_face(const naca_mesh *m, int owner, int u, int v, int *n0,
                       int *n1) {
  int p, q;
  if (!cell_side(m->cell + 4 * owner, u, v, &p, &q))
    return 0;
  *n0 = q;
  *n1 = p;
  return 1;
}

int naca_mesh_generate(int ni, int nj, double radius, naca_mesh *m) {
  double *sx = NULL, *sy = NULL, *phi = NULL, *tmp = NULL, *sdist = NULL;
  int status = -1;

  memset(m, 0, sizeof(*m));
  if (ni < 8 || nj < 2 || !(radius > 2.0)) {
    fprintf(stderr, "naca_mesh_generate: bad arguments ni=%d nj=%d R=%g\n", ni,
            nj, radius);
    return -1;
  }
  if (ni % 2)
    ni++;
  if ((double)ni * (double)(nj + 1) > 2.0e9 ||
      (double)ni * (2.0 * nj) > 2.0e9) {
    fprintf(stderr, "naca_mesh_generate: mesh too large for int indices\n");
    return -1;
  }

  const int nnode = ni * (nj + 1);
  const int ncell = ni * nj;
  const int nedge = ni * nj + ni * (nj - 1);
  const int nbedge = 2 * ni;

  if (mesh_alloc(m, nnode, ncell, nedge, nbedge) != 0) {
    fprintf(stderr, "naca_mesh_generate: out of memory\n");
    return -1;
  }

  sx = (double *)malloc(sizeof(double) * ni);
  sy = (double *)malloc(sizeof(double) * ni);
  phi = (double *)malloc(sizeof(double) * ni);
  tmp = (double *)malloc(sizeof(double) * ni);
  sdist = (double *)malloc(sizeof(double) * (nj + 1));
  if (!sx || !sy || !phi || !tmp || !sdist) {
    fprintf(stderr, "naca_mesh_generate: out of memory\n");
    goto done;
  }

  /* --- 1. wall points ------------------------------------------------- */
  for (int i = 0; i < ni; i++) {
    double th = 2.0 * M_PI * (double)i / (double)ni;
    double xc = 0.5 * (1.0 + cos(th));
    double yt = naca0012_half_thickness(xc);
    if (i == 0) {
      xc = 1.0;
      yt = 0.0;
    } else if (2 * i == ni) {
      xc = 0.0;
      yt = 0.0;
    }
    sx[i] = xc;
    sy[i] = (2 * i < ni) ? yt : -yt; /* upper half first */
  }

  /* --- 2. spoke directions -------------------------------------------- */
  /* outward normal of a counter-clockwise contour = tangent turned right */
  for (int i = 0; i < ni; i++) {
    int ip = (i + 1) % ni, im = (i + ni - 1) % ni;
    double tx = sx[ip] - sx[im], ty = sy[ip] - sy[im];
    phi[i] = atan2(-tx, ty); /* angle of (ty, -tx) */
  }
  /* unwrap into a continuous sequence starting at 0 (the trailing edge
   * normal points along +x) and ending just below 2*pi */
  phi[0] = 0.0;
  for (int i = 1; i < ni; i++) {
    double d = phi[i] - phi[i - 1];
    while (d > M_PI)
      d -= 2.0 * M_PI;
    while (d <= -M_PI)
      d += 2.0 * M_PI;
    phi[i] = phi[i - 1] + d;
  }
  /* diffuse the periodic part g_i = phi_i - 2 pi i / ni */
  {
    int passes = 2 * (ni / 16) * (ni / 16);
    if (passes < 8)
      passes = 8;
    for (int i = 0; i < ni; i++)
      phi[i] -= 2.0 * M_PI * (double)i / (double)ni;
    for (int it = 0; it < passes; it++) {
      for (int i = 0; i < ni; i++) {
        int ip = (i + 1) % ni, im = (i + ni - 1) % ni;
        tmp[i] = 0.5 * phi[i] + 0.25 * (phi[ip] + phi[im]);
      }
      memcpy(phi, tmp, sizeof(double) * ni);
    }
    /* keep the trailing-edge spoke on the chord line (symmetry) */
    {
      double shift = phi[0];
      for (int i = 0; i < ni; i++)
        phi[i] += 2.0 * M_PI * (double)i / (double)ni - shift;
    }
  }

  /* --- 3. layer distribution ------------------------------------------ */
  {
    /* first layer about twice the wall spacing at mid-chord (pi/ni): the
     * explicit central scheme converges smoothly on near-square cells, and
     * an inviscid solution needs no strong wall clustering */
    double first = 2.0 * M_PI / (double)ni;
    double r = growth_ratio(first / (radius - 0.5), nj);
    sdist[0] = 0.0;
    for (int j = 1; j <= nj; j++) {
      if (r == 1.0)
        sdist[j] = (double)j / (double)nj;
      else
        sdist[j] = (pow(r, j) - 1.0) / (pow(r, nj) - 1.0);
    }
    sdist[nj] = 1.0;
  }

  /* --- nodes ------------------------------------------------------------ */
  /* Each spoke is a cubic Hermite curve from wall point S (leaving along the
   * smoothed normal u) to far-field point F at the uniform angle 2 pi i/ni
   * (arriving radially).  Both end tangents have length |F - S|, so a
   * spoke whose two directions agree is a uniformly parametrised straight
   * line, and the first layer thickness is sdist[1] * |F - S|. */
  for (int i = 0; i < ni; i++) {
    double psi = 2.0 * M_PI * (double)i / (double)ni;
    double ux = cos(phi[i]), uy = sin(phi[i]);
    double vx = cos(psi), vy = sin(psi);
    double fx = 0.5 + radius * vx, fy = radius * vy;
    double len = hypot(fx - sx[i], fy - sy[i]);
    if (i == 0) { /* exactly on the chord line behind the trailing edge */
      uy = 0.0;
      vy = 0.0;
      fy = 0.0;
    }
    for (int j = 0; j <= nj; j++) {
      double t = sdist[j], t2 = t * t, t3 = t2 * t;
      double h00 = 2.0 * t3 - 3.0 * t2 + 1.0, h01 = 3.0 * t2 - 2.0 * t3;
      double h10 = t3 - 2.0 * t2 + t, h11 = t3 - t2;
      double *p = m->x + 2 * (j * ni + i);
      if (j == nj) {
        p[0] = fx;
        p[1] = fy;
      } else {
        p[0] = h00 * sx[i] + h01 * fx + len * (h10 * ux + h11 * vx);
        p[1] = h00 * sy[i] + h01 * fy + len * (h10 * uy + h11 * vy);
      }
    }
  }

  /* --- cells (counter-clockwise corners) -------------------------------- */
  for (int j = 0; j < nj; j++) {
    for (int i = 0; i < ni; i++) {
      int i1 = (i + 1) % ni;
      int *c = m->cell + 4 * (j * ni + i);
      int a = j * ni + i, b = j * ni + i1;
      int cc = (j + 1) * ni + i1, d = (j + 1) * ni + i;
      c[0] = a;
      c[1] = b;
      c[2] = cc;
      c[3] = d;
      if (quad_area(m->x, c) < 0.0) { /* reverse to make it CCW */
        c[1] = d;
        c[3] = b;
      }
    }
  }

  /* --- interior edges, ring by ring -------------------------------------- */
  {
    int e = 0;
    for (int j = 0; j < nj; j++) {
      for (int i = 0; i < ni; i++) {
        int here = j * ni + i;
        int left = j * ni + (i + ni - 1) % ni;
        int n0, n1;
        /* face on spoke i between cells (i-1, j) and (i, j) */
        if (!orient_face(m, here, j * ni + i, (j + 1) * ni + i, &n0, &n1))
          goto bad_topology;
        m->edge[2 * e] = n0;
        m->edge[2 * e + 1] = n1;
        m->ecell[2 * e] = here;
        m->ecell[2 * e + 1] = left;
        e++;
        /* face on ring j between cells (i, j-1) and (i, j) */
        if (j > 0) {
          int below = (j - 1) * ni + i;
          if (!orient_face(m, here, j * ni + i, j * ni + (i + 1) % ni, &n0,
                           &n1))
            goto bad_topology;
          m->edge[2 * e] = n0;
          m->edge[2 * e + 1] = n1;
          m->ecell[2 * e] = here;
          m->ecell[2 * e + 1] = below;
          e++;
        }
      }
    }
    if (e != nedge)
      goto bad_topology;
  }

  /* --- boundary edges: wall (1) then far field (2) ---------------------- */
  for (int i = 0; i < ni; i++) {
    int i1 = (i + 1) % ni, n0, n1;
    int owner = i; /* cell (i, 0) */
    if (!orient_face(m, owner, i, i1, &n0, &n1))
      goto bad_topology;
    m->bedge[2 * i] = n0;
    m->bedge[2 * i + 1] = n1;
    m->becell[i] = owner;
    m->bound[i] = 1;

    owner = (nj - 1) * ni + i; /* cell (i, nj-1) */
    if (!orient_face(m, owner, nj * ni + i, nj * ni + i1, &n0, &n1))
      goto bad_topology;
    m->bedge[2 * (ni + i)] = n0;
    m->bedge[2 * (ni + i) + 1] = n1;
    m->becell[ni + i] = owner;
    m->bound[ni + i] = 2;
  }

  if (naca_mesh_check(m, stderr) != 0) {
    fprintf(stderr, "naca_mesh_generate: generated mesh failed checks\n");
    goto done;
  }
  status = 0;
  goto done;

bad_topology:
  fprintf(stderr, "naca_mesh_generate: internal topology error\n");

done:
  free(sx);
  free(sy);
  free(phi);
  free(tmp);
  free(sdist);
  if (status != 0)
    naca_mesh_free(m);
  return status;
}

/* ------------------------------------------------------------------------ */
/* checks                                                                    */
/* ------------------------------------------------------------------------ */

#define REPORT_LIMIT 10

static void complain(FILE *report, int *count, const char *what, int index) {
  if (report != NULL && *count < REPORT_LIMIT)
    fprintf(report, "naca_mesh_check: %s (element %d)\n", what, index);
  (*count)++;
}

int naca_mesh_check(const naca_mesh *m, FILE *report) {
  int bad = 0;
  double *acc = NULL, *cen = NULL, *perim = NULL;

  if (m->nnode <= 0 || m->ncell <= 0 || m->nedge < 0 || m->nbedge < 0) {
    complain(report, &bad, "bad set sizes", 0);
    return bad;
  }

  /* index ranges */
  for (int c = 0; c < m->ncell; c++)
    for (int k = 0; k < 4; k++)
      if (m->cell[4 * c + k] < 0 || m->cell[4 * c + k] >= m->nnode)
        complain(report, &bad, "cell corner out of range", c);
  for (int e = 0; e < m->nedge; e++) {
    for (int k = 0; k < 2; k++) {
      if (m->edge[2 * e + k] < 0 || m->edge[2 * e + k] >= m->nnode)
        complain(report, &bad, "edge node out of range", e);
      if (m->ecell[2 * e + k] < 0 || m->ecell[2 * e + k] >= m->ncell)
        complain(report, &bad, "edge cell out of range", e);
    }
  }
  for (int e = 0; e < m->nbedge; e++) {
    for (int k = 0; k < 2; k++)
      if (m->bedge[2 * e + k] < 0 || m->bedge[2 * e + k] >= m->nnode)
        complain(report, &bad, "boundary edge node out of range", e);
    if (m->becell[e] < 0 || m->becell[e] >= m->ncell)
      complain(report, &bad, "boundary edge cell out of range", e);
    if (m->bound[e] != 1 && m->bound[e] != 2)
      complain(report, &bad, "boundary flag is neither 1 nor 2", e);
  }
  if (bad)
    return bad;

  {
    size_t nc = (size_t)(unsigned)m->ncell; /* > 0, checked above */
    acc = (double *)calloc(2 * nc, sizeof(double));
    cen = (double *)calloc(2 * nc, sizeof(double));
    perim = (double *)calloc(nc, sizeof(double));
  }
  if (!acc || !cen || !perim) {
    complain(report, &bad, "out of memory in check", 0);
    goto out;
  }

  /* areas, convexity, centroids (vertex average is enough for a convex
   * quad: it lies strictly inside) */
  for (int c = 0; c < m->ncell; c++) {
    const int *q = m->cell + 4 * c;
    if (!(quad_area(m->x, q) > 0.0))
      complain(report, &bad, "cell area not positive (corners not CCW)", c);
    for (int k = 0; k < 4; k++) {
      const double *a = m->x + 2 * q[(k + 3) % 4];
      const double *b = m->x + 2 * q[k];
      const double *d = m->x + 2 * q[(k + 1) % 4];
      if (!(tri2(a, b, d) > 0.0))
        complain(report, &bad, "cell is not strictly convex", c);
      cen[2 * c] += 0.25 * b[0];
      cen[2 * c + 1] += 0.25 * b[1];
      perim[c] += hypot(d[0] - b[0], d[1] - b[1]);
    }
  }

  /* interior edges: scaled normal (dy, -dx) with d = x[n0] - x[n1] must
   * leave c0 and enter c1 */
  for (int e = 0; e < m->nedge; e++) {
    const double *p0 = m->x + 2 * m->edge[2 * e];
    const double *p1 = m->x + 2 * m->edge[2 * e + 1];
    int c0 = m->ecell[2 * e], c1 = m->ecell[2 * e + 1];
    double dx = p0[0] - p1[0], dy = p0[1] - p1[1];
    double nx = dy, ny = -dx;
    double mx = 0.5 * (p0[0] + p1[0]), my = 0.5 * (p0[1] + p1[1]);
    if (c0 == c1)
      complain(report, &bad, "edge joins a cell to itself", e);
    if ((mx - cen[2 * c0]) * nx + (my - cen[2 * c0 + 1]) * ny <= 0.0)
      complain(report, &bad, "edge normal does not point out of c0", e);
    if ((mx - cen[2 * c1]) * nx + (my - cen[2 * c1 + 1]) * ny >= 0.0)
      complain(report, &bad, "edge normal does not point into c1", e);
    acc[2 * c0] += nx;
    acc[2 * c0 + 1] += ny;
    acc[2 * c1] -= nx;
    acc[2 * c1 + 1] -= ny;
  }
  for (int e = 0; e < m->nbedge; e++) {
    const double *p0 = m->x + 2 * m->bedge[2 * e];
    const double *p1 = m->x + 2 * m->bedge[2 * e + 1];
    int c = m->becell[e];
    double dx = p0[0] - p1[0], dy = p0[1] - p1[1];
    double nx = dy, ny = -dx;
    double mx = 0.5 * (p0[0] + p1[0]), my = 0.5 * (p0[1] + p1[1]);
    if ((mx - cen[2 * c]) * nx + (my - cen[2 * c + 1]) * ny <= 0.0)
      complain(report, &bad, "boundary edge normal points into its cell", e);
    acc[2 * c] += nx;
    acc[2 * c + 1] += ny;
  }

  /* closure: a cell whose faces are all present and consistently oriented
   * has outward normals summing to zero */
  for (int c = 0; c < m->ncell; c++) {
    double r = hypot(acc[2 * c], acc[2 * c + 1]);
    if (r > 1e-9 * perim[c])
      complain(report, &bad, "cell faces do not close (missing or flipped edge)",
               c);
  }

out:
  if (report != NULL && bad > REPORT_LIMIT)
    fprintf(report, "naca_mesh_check: ... %d problems in total\n", bad);
  free(acc);
  free(cen);
  free(perim);
  return bad;
}

/* ------------------------------------------------------------------------ */
/* text file I/O                                                             */
/* ------------------------------------------------------------------------ */

int naca_mesh_read(const char *path, naca_mesh *m) {
  FILE *fp;
  int nnode, ncell, nedge, nbedge;

  memset(m, 0, sizeof(*m));
  fp = fopen(path, "r");
  if (fp == NULL) {
    fprintf(stderr, "naca_mesh_read: cannot open %s\n", path);
    return -1;
  }
  if (fscanf(fp, "%d %d %d %d", &nnode, &ncell, &nedge, &nbedge) != 4 ||
      nnode <= 0 || ncell <= 0 || nedge < 0 || nbedge < 0) {
    fprintf(stderr, "naca_mesh_read: bad header in %s\n", path);
    fclose(fp);
    return -1;
  }
  if (mesh_alloc(m, nnode, ncell, nedge, nbedge) != 0) {
    fprintf(stderr, "naca_mesh_read: out of memory\n");
    fclose(fp);
    return -1;
  }
  for (int n = 0; n < nnode; n++)
    if (fscanf(fp, "%lf %lf", &m->x[2 * n], &m->x[2 * n + 1]) != 2)
      goto short_file;
  for (int n = 0; n < ncell; n++)
    if (fscanf(fp, "%d %d %d %d", &m->cell[4 * n], &m->cell[4 * n + 1],
               &m->cell[4 * n + 2], &m->cell[4 * n + 3]) != 4)
      goto short_file;
  for (int n = 0; n < nedge; n++)
    if (fscanf(fp, "%d %d %d %d", &m->edge[2 * n], &m->edge[2 * n + 1],
               &m->ecell[2 * n], &m->ecell[2 * n + 1]) != 4)
      goto short_file;
  for (int n = 0; n < nbedge; n++)
    if (fscanf(fp, "%d %d %d %d", &m->bedge[2 * n], &m->bedge[2 * n + 1],
               &m->becell[n], &m->bound[n]) != 4)
      goto short_file;
  fclose(fp);
  return 0;

short_file:
  fprintf(stderr, "naca_mesh_read: %s is truncated or malformed\n", path);
  fclose(fp);
  naca_mesh_free(m);
  return -1;
}

int naca_mesh_write(const char *path, const naca_mesh *m) {
  FILE *fp = fopen(path, "w");
  int ok = 1;
  if (fp == NULL) {
    fprintf(stderr, "naca_mesh_write: cannot create %s\n", path);
    return -1;
  }
  ok &= fprintf(fp, "%d %d %d %d\n", m->nnode, m->ncell, m->nedge,
                m->nbedge) > 0;
  /* %.17g round-trips doubles exactly, so a mesh read back from the file is
   * bit-for-bit the mesh that was generated in memory */
  for (int n = 0; n < m->nnode && ok; n++)
    ok &= fprintf(fp, "%.17g %.17g\n", m->x[2 * n], m->x[2 * n + 1]) > 0;
  for (int n = 0; n < m->ncell && ok; n++)
    ok &= fprintf(fp, "%d %d %d %d\n", m->cell[4 * n], m->cell[4 * n + 1],
                  m->cell[4 * n + 2], m->cell[4 * n + 3]) > 0;
  for (int n = 0; n < m->nedge && ok; n++)
    ok &= fprintf(fp, "%d %d %d %d\n", m->edge[2 * n], m->edge[2 * n + 1],
                  m->ecell[2 * n], m->ecell[2 * n + 1]) > 0;
  for (int n = 0; n < m->nbedge && ok; n++)
    ok &= fprintf(fp, "%d %d %d %d\n", m->bedge[2 * n], m->bedge[2 * n + 1],
                  m->becell[n], m->bound[n]) > 0;
  if (fclose(fp) != 0)
    ok = 0;
  if (!ok) {
    fprintf(stderr, "naca_mesh_write: error writing %s\n", path);
    return -1;
  }
  return 0;
}
