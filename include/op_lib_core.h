/*
 * op2-rs: OP2 core declarations (types, constants, structs, core functions).
 * The structs, constants and prototypes come from op2_rs_generated.h, which
 * cbindgen generates from the Rust C ABI; this header adds what C cannot get
 * from Rust: typedefs, macros and the variadic op_printf.
 */
#ifndef __OP_LIB_CORE_H
#define __OP_LIB_CORE_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#ifdef __cplusplus
#include <cstddef>
#include <iostream>
#include <limits>
#include <stdexcept>
#endif

#if !defined(__PGI)
typedef unsigned int uint;
#endif
typedef long long ll;
typedef unsigned long long ull;

#include "op2_rs_generated.h"

typedef struct op_dat_entry_core op_dat_entry;

#ifndef OP2_ALIGNMENT
#define OP2_ALIGNMENT 64
#endif

#ifndef MIN
#define MIN(a, b) ((a < b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a > b) ? (a) : (b))
#endif
#define ROUND_UP(bytes) (((bytes) + 15) & ~15)
#define ROUND_UP_64(bytes) (((bytes) + 63) & ~63)

/* Zero values used by generated code as `x = ZERO_double;` (note the semicolon). */
#define ZERO_double 0.0;
#define ZERO_float 0.0f;
#define ZERO_int 0;
#define ZERO_uint 0;
#define ZERO_ll 0;
#define ZERO_ull 0;
#define ZERO_bool 0;

#ifdef __cplusplus
extern "C" {
#endif

/* printf on the root process only. */
void op_printf(const char *format, ...);

/* C kernels, type-erased for op2_par_loop_c (void (*)(void) matches any function type). */
typedef void (*op2_kernel_fn)(void);

#ifdef __cplusplus
}
constexpr size_t round32(size_t size) { return ((size - 1) / 32 + 1) * 32; }
#endif

/* The layout this library was built with (x86_64 / aarch64 LP64). */
#if defined(__cplusplus)
static_assert(sizeof(op_set_core) == 32, "op_set_core layout");
static_assert(sizeof(op_map_core) == 72, "op_map_core layout");
static_assert(sizeof(op_dat_core) == 96, "op_dat_core layout");
static_assert(sizeof(op_arg) == 96, "op_arg layout");
static_assert(sizeof(op_kernel) == 56, "op_kernel layout");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(op_set_core) == 32, "op_set_core layout");
_Static_assert(sizeof(op_map_core) == 72, "op_map_core layout");
_Static_assert(sizeof(op_dat_core) == 96, "op_dat_core layout");
_Static_assert(sizeof(op_arg) == 96, "op_arg layout");
_Static_assert(sizeof(op_kernel) == 56, "op_kernel layout");
#endif

#endif /* __OP_LIB_CORE_H */
