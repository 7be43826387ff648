/* HDF5 under MPI through find_package(OP2): a constant written and read
   back collectively, and a set dumped with op_dump_to_hdf5 and declared
   again from the file (its global size, split by OP2's block rule). */
#include "op_hdf5.h"
#include "op_lib_mpi.h"
#include "op_seq.h"

#include <cstdio>

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (rank == 0) { /* a fresh file: a constant is written once */
    std::remove("consts.h5");
    std::remove("dump.h5");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double c[3] = {1.5, -2.0, 0.25}, back[3] = {0, 0, 0};
  op_write_const_hdf5("c", 3, "double", (char *)c, "consts.h5");
  op_get_const_hdf5("c", 3, "double", (char *)back, "consts.h5");
  op_set cells = op_decl_set(rank == 0 ? 10 : 7, "cells");
  op_dump_to_hdf5("dump.h5");
  op_set again = op_decl_set_hdf5("dump.h5", "cells");
  int total = 10 + 7 * (nranks - 1);
  bool ok = back[0] == 1.5 && back[1] == -2.0 && back[2] == 0.25 &&
            op_get_size(again) == total && op_get_size(cells) == total;
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  op_exit();
  if (rank == 0)
    std::printf("%s\n", all ? "PASSED" : "FAILED");
  return all ? 0 : 1;
}
