/*
 * pictures.c -- a program that knows nothing of OP2_RS_PARTITION_VTK or
 * OP2_RS_PLAN_CSV: a NX x NY quad grid (nodes with 2-D coordinates, cells
 * with a cell -> node map), op_partition, then an indirect increment loop
 * ("spread", cells -> nodes through pcell: a coloured plan) and a direct
 * loop ("scale", nodes).  Built against libop2_seq/libop2_openmp, and with
 * PICTURES_MPI against libop2_mpi: each process then declares its block of
 * the nodes and cells (global indices in the map).
 *
 * argv[1]: "cells" (op_partition(GEOM, cells, pcell, p_x): the picture's
 * cells are pcell's rows), "search" (op_partition(GEOM, cells, NULL, p_x):
 * the library finds pcell, cells -> nodes, itself) or "points"
 * (op_partition(GEOM, nodes, NULL, p_x): the nodes are the picture's
 * points).  Prints "sum <value>" (the sum over the nodes of the cells that
 * touch them: 4 * NC) and exits 0.  PICTURES_DIAGS in the environment is
 * op_init's diagnostics level (0 without it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PICTURES_MPI
#include <mpi.h>
#endif
#include "op_seq.h"

#define NX 30
#define NY 20
#define NN ((NX + 1) * (NY + 1))
#define NC (NX * NY)

static double x[2 * NN], w[NN];
static int cell_node[4 * NC];

static void spread(double *a, double *b, double *c, double *d) {
  *a += 1.0;
  *b += 1.0;
  *c += 1.0;
  *d += 1.0;
}
static void scale(double *v, double *s) {
  *v *= 1.0;
  *s += *v;
}

/* first element and count of block `r` of `n` over `size` processes */
static void block(int n, int size, int r, int *first, int *count) {
  *first = (int)((long long)n * r / size);
  *count = (int)((long long)n * (r + 1) / size) - *first;
}

int main(int argc, char **argv) {
  int rank = 0, size = 1, n0, nn, c0, nc, i, j;
  const int with_map = argc < 2 || strcmp(argv[1], "cells") == 0;
  const int no_map = argc > 1 && strcmp(argv[1], "search") == 0;
  const char *diags = getenv("PICTURES_DIAGS");
  double sum = 0.0;
  op_init(argc, argv, diags ? atoi(diags) : 0);
#ifdef PICTURES_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
  block(NN, size, rank, &n0, &nn);
  block(NC, size, rank, &c0, &nc);
  for (j = 0; j <= NY; j++)
    for (i = 0; i <= NX; i++) {
      int n = j * (NX + 1) + i;
      if (n >= n0 && n < n0 + nn) {
        x[2 * (n - n0)] = i;
        x[2 * (n - n0) + 1] = 0.5 * j;
        w[n - n0] = 0.0;
      }
    }
  for (j = 0; j < NY; j++)
    for (i = 0; i < NX; i++) {
      int c = j * NX + i, *row = cell_node + 4 * (c - c0);
      if (c < c0 || c >= c0 + nc)
        continue;
      row[0] = j * (NX + 1) + i;
      row[1] = row[0] + 1;
      row[2] = row[1] + NX + 1;
      row[3] = row[0] + NX + 1;
    }
  {
    op_set nodes = op_decl_set(nn, "nodes");
    op_set cells = op_decl_set(nc, "cells");
    op_map pcell = op_decl_map(cells, nodes, 4, cell_node, "pcell");
    op_dat p_x = op_decl_dat(nodes, 2, "double", x, "p_x");
    op_dat p_w = op_decl_dat(nodes, 1, "double", w, "p_w");
    if (with_map)
      op_partition("PARMETIS", "GEOM", cells, pcell, p_x);
    else if (no_map)
      op_partition("PARMETIS", "GEOM", cells, NULL, p_x);
    else
      op_partition("PARMETIS", "GEOM", nodes, NULL, p_x);
    op_par_loop(spread, "spread", cells, op_arg_dat(p_w, 0, pcell, 1, "double", OP_INC),
                op_arg_dat(p_w, 1, pcell, 1, "double", OP_INC),
                op_arg_dat(p_w, 2, pcell, 1, "double", OP_INC),
                op_arg_dat(p_w, 3, pcell, 1, "double", OP_INC));
    op_par_loop(scale, "scale", nodes, op_arg_dat(p_w, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&sum, 1, "double", OP_INC));
  }
  if (rank == 0)
    printf("sum %g\n", sum);
  op_exit();
  return 0;
}
