/*
 * op2-rs: the prelude of OP2's `c_cuda` target. Code generated for C/C++ apps
 * includes it in op2_kernels.cu, and the JIT (op_f2c_helpers.h) passes it to
 * NVRTC as <op_f2c_prelude.h> ahead of each kernel's source, followed by
 * `namespace f2c = op::f2c;`. So it must compile with nvcc, NVRTC (no system
 * headers there) and a host C++ compiler.
 *
 * Provided: op::f2c::round32 (the SoA stride rounding the generated host stubs
 * use). OP2's prelude also carries Fortran support (Ptr/Span array views and
 * Fortran intrinsics) for its Fortran `c_cuda` target; op2-rs does not
 * provide those.
 */
#ifndef OP2_RS_OP_F2C_PRELUDE_H
#define OP2_RS_OP_F2C_PRELUDE_H

#if defined(__CUDACC__)
#define OP2_RS_F2C_HD __host__ __device__
#else
#define OP2_RS_F2C_HD
#endif

namespace op {
namespace f2c {

/* x rounded up to a multiple of 32. */
OP2_RS_F2C_HD constexpr int round32(int x) { return (x + 31) & ~31; }
OP2_RS_F2C_HD constexpr decltype(sizeof(0)) round32(decltype(sizeof(0)) x) {
  return (x + 31) & ~static_cast<decltype(sizeof(0))>(31);
}

} // namespace f2c
} // namespace op

#endif /* OP2_RS_OP_F2C_PRELUDE_H */
