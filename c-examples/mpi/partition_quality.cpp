// partition_quality.cpp -- partition quality of op_partition as an
// application sees it, with nothing but OP2's public API, so the same source
// measures op2-rs's libop2_mpi and OP2's own (scripts/bench_partition_quality.sh
// builds it against both).
//
// Every rank reads its block of an OP2-layout HDF5 airfoil mesh
// (op_decl_*_hdf5), op_partition(LIB, ROUTINE, edges, pecell, p_x) distributes
// it, and then two loops measure the result:
//   - a direct loop over cells writes each cell's rank into a dat;
//   - an indirect loop over edges reads that dat through both pecell entries
//     and counts the edges whose cells lie on different ranks (OP_INC global:
//     each edge counts once, on the rank that owns it).
// That count is the edge cut of the cell graph through pecell (the graph both
// libraries partition for KWAY). Imbalance is the largest rank's share of
// cells over the mean; the halo is the cells each rank holds besides its own
// (op_set's exec_size + nonexec_size, summed over ranks).
//
//   mpirun -np N partition_quality FILE.h5 [LIB [ROUTINE [DIAGS]]]   (PTSCOTCH KWAY 0)
//
// Prints one line on rank 0:
//   quality: ranks N cells C edge_cut E imbalance I halo_cells H partition_s T
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

// op_seq.h first: OP2's own op_hdf5.h needs the types it declares
#include "op_seq.h"
#include "op_lib_mpi.h"
#include "op_hdf5.h"

static void rank_of(int *part, const int *rank) { *part = *rank; }

static void count_cut(const int *a, const int *b, int *cut) {
  if (*a != *b) *cut += 1;
}

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "new_grid.h5";
  const char *lib = argc > 2 ? argv[2] : "PTSCOTCH";
  const char *routine = argc > 3 ? argv[3] : "KWAY";

  int diags = argc > 4 ? atoi(argv[4]) : 0;
  op_init(argc, argv, diags);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  op_set nodes = op_decl_set_hdf5(file, "nodes");
  op_set edges = op_decl_set_hdf5(file, "edges");
  op_set cells = op_decl_set_hdf5(file, "cells");
  op_map pecell = op_decl_map_hdf5(edges, cells, 2, file, "pecell");
  op_dat p_x = op_decl_dat_hdf5(nodes, 2, "double", file, "p_x");
  // not read from the file: written by the first loop (the block's values
  // are placeholders; under MPI, OP2 takes the block over and frees it when
  // it migrates the dat, so it is not freed here)
  int *zeros = (int *)calloc(cells->size > 0 ? cells->size : 1, sizeof(int));
  op_dat p_part = op_decl_dat(cells, 1, "int", zeros, "p_part");
  // the partitioners derive the other sets through these maps
  op_map pedge = op_decl_map_hdf5(edges, nodes, 2, file, "pedge");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 4, file, "pcell");
  (void)pedge;
  (void)pcell;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  op_partition(lib, routine, edges, pecell, p_x);
  double mine = MPI_Wtime() - t0, took = 0.0;
  MPI_Reduce(&mine, &took, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  op_par_loop(rank_of, "rank_of", cells, op_arg_dat(p_part, -1, OP_ID, 1, "int", OP_WRITE),
              op_arg_gbl(&rank, 1, "int", OP_READ));
  int cut = 0;
  op_par_loop(count_cut, "count_cut", edges, op_arg_dat(p_part, 0, pecell, 1, "int", OP_READ),
              op_arg_dat(p_part, 1, pecell, 1, "int", OP_READ), op_arg_gbl(&cut, 1, "int", OP_INC));

  long own = cells->size, halo = (long)cells->exec_size + cells->nonexec_size;
  long most = 0, total = 0, halos = 0;
  MPI_Reduce(&own, &most, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&own, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&halo, &halos, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("quality: ranks %d cells %ld edge_cut %d imbalance %.4f halo_cells %ld partition_s %.3f\n",
           nranks, total, cut, (double)most * nranks / (double)total, halos, took);
  }
  op_exit();
  return 0;
}
