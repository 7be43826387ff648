/* op2-rs: run-time support for generated code (execution plans). */
#ifndef __OP_RT_SUPPORT_H
#define __OP_RT_SUPPORT_H

#include "op_lib_core.h"

/* struct op_plan is declared in op2_rs_generated.h with OP2's field layout. */
#if defined(__cplusplus)
static_assert(sizeof(op_plan) == 280, "op_plan layout");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(op_plan) == 280, "op_plan layout");
#endif

#endif /* __OP_RT_SUPPORT_H */
