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
  void *dyn_shared;          // this block's dynamic shared memory
  void (*sync)(void);        // __syncthreads(): park this fiber
  // this block's copy of the shared array declared `id`-th in the program
  // (the emulated NVRTC numbers them), `bytes` long, fresh for each block
  void *(*static_shared)(int id, size_t bytes);
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
// shared arrays the emulated NVRTC did not rewrite (not one-dimensional):
// one copy for all blocks
#define __shared__ static

// Atomic read-modify-writes as the host's atomics (relaxed), so that a race
// detector sees them as atomic; floating point through compare-and-swap on
// the value's bits.
template <class T> struct op2emu_bits {
  using type = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned int>;
};
template <class T, class F> inline T op2emu_rmw(T *p, F f) {
  if constexpr (std::is_integral_v<T>) {
    T o = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &o, f(o), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return o;
  } else {
    using B = typename op2emu_bits<T>::type;
    static_assert(sizeof(B) == sizeof(T), "a 4- or 8-byte type");
    B *q = reinterpret_cast<B *>(p);
    B ob = __atomic_load_n(q, __ATOMIC_RELAXED), nb;
    for (;;) {
      T o, n;
      __builtin_memcpy(&o, &ob, sizeof o);
      n = f(o);
      __builtin_memcpy(&nb, &n, sizeof n);
      if (__atomic_compare_exchange_n(q, &ob, nb, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return o;
    }
  }
}
template <class T> inline T atomicAdd(T *p, T v) {
  return op2emu_rmw(p, [v](T o) { return o + v; });
}
template <class T> inline T atomicSub(T *p, T v) {
  return op2emu_rmw(p, [v](T o) { return o - v; });
}
template <class T> inline T atomicExch(T *p, T v) {
  return op2emu_rmw(p, [v](T) { return v; });
}
template <class T> inline T atomicMin(T *p, T v) {
  return op2emu_rmw(p, [v](T o) { return v < o ? v : o; });
}
template <class T> inline T atomicMax(T *p, T v) {
  return op2emu_rmw(p, [v](T o) { return o < v ? v : o; });
}
template <class T> inline T atomicCAS(T *p, T cmp, T v) {
  return op2emu_rmw(p, [cmp, v](T o) { return o == cmp ? v : o; });
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
