/* op2-rs: OP2's MPI library header (include it before op_seq.h in MPI applications). */
#ifndef __OP_LIB_MPI_H
#define __OP_LIB_MPI_H

#include "op_lib_core.h"
#include "op_mpi_core.h"
#include "op_hdf5.h"

#endif /* __OP_LIB_MPI_H */
