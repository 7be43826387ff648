/*
 * op2-rs: OP2's MPI declarations (libop2_mpi). Applications compare ranks with
 * MPI_ROOT, which OP2 redefines to 0.
 */
#ifndef __OP_MPI_CORE_H
#define __OP_MPI_CORE_H

#ifndef OP_MPI_CORE_NOMPI
#include <mpi.h>
#endif

#include "op_lib_core.h"

#undef MPI_ROOT
#define MPI_ROOT 0

#ifdef __cplusplus
extern "C" {
#endif

/* This process's rank in the library's communicator. */
void op_rank(int *rank);
void op_mpi_rank(int *rank);
int op_mpi_size(void);
void op_barrier(void);

#ifdef __cplusplus
}
#endif

#endif /* __OP_MPI_CORE_H */
