/* op2-rs: OP2's user-level C declarations. */
#ifndef __OP_LIB_C_H
#define __OP_LIB_C_H

#include "op_lib_core.h"

/* The identity map (direct access) and the map of a global argument. */
#define OP_ID (op_map) NULL
#define OP_GBL (op_map) NULL

#endif /* __OP_LIB_C_H */

#include "op_rt_support.h"
#include "op_hdf5.h"
