// op2-rs CUDA emulator, device side: what CUDA C++ gives a kernel, for the
// host C++ compiler. The emulated NVRTC (libnvrtc_emu.cpp) puts this before
// each program it compiles; the emulated driver (libcuda_emu.cpp) runs every
// thread of a block as a fiber on one host thread, switching at
// __syncthreads(), so the block's threads see each other's shared-memory
// writes only across a barrier, as on a GPU. Not a GPU: no warps, no memory
// model beyond that, no timing.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio> // device printf, which NVRTC declares itself
#include <type_traits>
#include <utility>

struct op2emu_dim3 {
  unsigned int x, y, z;
};

// One block's view, shared with the driver (same layout there).
struct op2emu_ctx {
  op2emu_dim3 thread_idx, block_idx, block_dim, grid_dim;
  void *dyn_shared;          // this launch's dynamic shared memory
  void (*sync)(void);        // __syncthreads(): park this fiber
};

#ifndef OP2EMU_DRIVER
// The block being run (set by each launch trampoline; one host thread runs
// all fibers of a launch, so one pointer per module is enough).
[[maybe_unused]] static op2emu_ctx *op2emu_cur;

#define threadIdx (op2emu_cur->thread_idx)
#define blockIdx (op2emu_cur->block_idx)
#define blockDim (op2emu_cur->block_dim)
#define gridDim (op2emu_cur->grid_dim)
#define __syncthreads() (op2emu_cur->sync())
#define __threadfence() ((void)0)
#define __threadfence_block() ((void)0)
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __constant__
// function-scope shared arrays: one copy for all fibers of the block
#define __shared__ static

// Fibers of one block never run at the same time: a read-modify-write is
// atomic as written.
template <class T> inline T atomicAdd(T *p, T v) {
  T o = *p;
  *p = o + v;
  return o;
}
template <class T> inline T atomicSub(T *p, T v) {
  T o = *p;
  *p = o - v;
  return o;
}
template <class T> inline T atomicExch(T *p, T v) {
  T o = *p;
  *p = v;
  return o;
}
template <class T> inline T atomicMin(T *p, T v) {
  T o = *p;
  if (v < o) *p = v;
  return o;
}
template <class T> inline T atomicMax(T *p, T v) {
  T o = *p;
  if (o < v) *p = v;
  return o;
}
template <class T> inline T atomicCAS(T *p, T cmp, T v) {
  T o = *p;
  if (o == cmp) *p = v;
  return o;
}
inline double __longlong_as_double(long long v) {
  double d;
  __builtin_memcpy(&d, &v, 8);
  return d;
}
inline long long __double_as_longlong(double v) {
  long long d;
  __builtin_memcpy(&d, &v, 8);
  return d;
}

// CUDA's device min/max of arithmetic types
inline int min(int a, int b) { return b < a ? b : a; }
inline int max(int a, int b) { return a < b ? b : a; }
inline unsigned min(unsigned a, unsigned b) { return b < a ? b : a; }
inline unsigned max(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long min(long long a, long long b) { return b < a ? b : a; }
inline long long max(long long a, long long b) { return a < b ? b : a; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }

// The launch trampoline's call: parameter i is read from the 8 bytes
// params[i] points at, as cuLaunchKernel does.
template <class... A, std::size_t... I>
inline void op2emu_call_(void (*f)(A...), void **p, std::index_sequence<I...>) {
  f(*static_cast<std::remove_cv_t<A> *>(p[I])...);
}
template <class... A> inline void op2emu_call(void (*f)(A...), void **p) {
  op2emu_call_(f, p, std::index_sequence_for<A...>{});
}
#endif // OP2EMU_DRIVER
