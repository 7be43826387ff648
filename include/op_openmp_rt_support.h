/* op2-rs: OpenMP run-time support (plans are declared in op_rt_support.h). */
#ifndef __OP_OPENMP_RT_SUPPORT_H
#define __OP_OPENMP_RT_SUPPORT_H
#include "op_rt_support.h"
#endif
