/*
 * op2-rs: op_par_loop for applications written against OP2's op_seq.h.
 *
 * Unlike OP2's header-only reference loop, the loop runs in the op2-rs library
 * linked (sequentially with -lop2_seq), so the same source gets the library's
 * execution engine without a source-to-source translator.
 *
 * C++: op_par_loop(kernel, "name", set, args...) instantiates a trampoline that
 *      runs the kernel, inlined, over ranges of elements; the kernel must be
 *      named by a function (as in every OP2 application), and the number and
 *      element types of its parameters are checked against the args.
 * C:   the same spelling passes the kernel and the args to op2_par_loop_c;
 *      the library calls the kernel once per element (at most 64 parameters).
 */
#ifndef __OP_SEQ_H
#define __OP_SEQ_H

#include "op_lib_cpp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs a kernel over elements [start, end) (op2_arg_view: op2_rs_generated.h). */
typedef void (*op2_range_fn)(const op2_arg_view *views, int start, int end);

void op2_par_loop_range(op2_range_fn range, const int *param_types, const char *name, op_set set,
                        int nargs, const op_arg *args);

#ifdef __cplusplus
}
#endif

/* The layout the library builds (core/src/invoke.rs ArgView; tests/tests/abi.rs
   compares it with Rust's). */
#if defined(__cplusplus)
#define OP2_RS_LAYOUT(cond, what) static_assert(cond, what)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define OP2_RS_LAYOUT(cond, what) _Static_assert(cond, what)
#endif
#ifdef OP2_RS_LAYOUT
OP2_RS_LAYOUT(sizeof(op2_arg_view) == 48, "op2_arg_view: size");
OP2_RS_LAYOUT(offsetof(op2_arg_view, data) == 0, "op2_arg_view: data");
OP2_RS_LAYOUT(offsetof(op2_arg_view, map) == 8, "op2_arg_view: map");
OP2_RS_LAYOUT(offsetof(op2_arg_view, map_dim) == 16, "op2_arg_view: map_dim");
OP2_RS_LAYOUT(offsetof(op2_arg_view, idx) == 20, "op2_arg_view: idx");
OP2_RS_LAYOUT(offsetof(op2_arg_view, elem_bytes) == 24, "op2_arg_view: elem_bytes");
OP2_RS_LAYOUT(offsetof(op2_arg_view, kind) == 28, "op2_arg_view: kind");
OP2_RS_LAYOUT(offsetof(op2_arg_view, map_slot) == 32, "op2_arg_view: map_slot");
OP2_RS_LAYOUT(offsetof(op2_arg_view, access) == 36, "op2_arg_view: access");
OP2_RS_LAYOUT(offsetof(op2_arg_view, flags) == 40, "op2_arg_view: flags");
OP2_RS_LAYOUT(sizeof(op2_view_kind) == 4, "op2_view_kind: size");
#undef OP2_RS_LAYOUT
#endif

/* OP2's op_seq.h stride helper. */
#if defined(__GNUC__)
__attribute__((unused))
#endif
static int op2_stride = 1;
#define OP2_STRIDE(arr, idx) arr[idx]

#ifdef __cplusplus

#include <tuple>
#include <utility>
#include <vector>

namespace op2_rs {

/* Parameter type codes checked by the library (1 double ... 7 bool, +16 for T**). */
template <typename T> struct param_code { static constexpr int value = 0; };
template <> struct param_code<double> { static constexpr int value = 1; };
template <> struct param_code<float> { static constexpr int value = 2; };
template <> struct param_code<int> { static constexpr int value = 3; };
template <> struct param_code<unsigned int> { static constexpr int value = 4; };
template <> struct param_code<long long> { static constexpr int value = 5; };
template <> struct param_code<unsigned long long> { static constexpr int value = 6; };
template <> struct param_code<bool> { static constexpr int value = 7; };
template <typename T> struct param_code<const T> : param_code<T> {};
template <typename T> struct param_code<volatile T> : param_code<T> {};
template <typename T> struct param_code<T *> {
  static constexpr int value = param_code<T>::value | 16;
};

/* Per-argument state of a trampoline: the pointer a kernel parameter T* gets
   for element n. Vector arguments (T = U*, a parameter U**) keep an array of T,
   so the pointers are stored with the type the kernel reads them as. */
template <typename T, bool IsPointer = std::is_pointer<T>::value> struct arg_state {
  int slot;
  void init(const op2_arg_view &) {}
  T *get(const op2_arg_view &v, int n) {
    switch (v.kind) {
    case OP2_VIEW_KIND_DIRECT:
      return (T *)(v.data + (size_t)n * v.elem_bytes);
    case OP2_VIEW_KIND_INDIRECT:
      return (T *)(v.data + (size_t)v.map[(size_t)n * v.map_dim + v.idx] * v.elem_bytes);
    case OP2_VIEW_KIND_GLOBAL:
      return (T *)v.data;
    case OP2_VIEW_KIND_IDX_DIRECT:
      slot = n;
      return (T *)&slot;
    case OP2_VIEW_KIND_IDX_MAPPED:
      return (T *)(v.map + (size_t)n * v.map_dim + v.idx);
    default:
      return nullptr;
    }
  }
};

template <typename T> struct arg_state<T, true> {
  std::vector<T> vec;
  void init(const op2_arg_view &v) {
    if (v.kind == OP2_VIEW_KIND_VECTOR)
      vec.resize((size_t)-v.idx);
  }
  T *get(const op2_arg_view &v, int n) {
    switch (v.kind) {
    case OP2_VIEW_KIND_VECTOR:
      for (int k = 0; k < -v.idx; ++k)
        vec[k] = (T)(v.data + (size_t)v.map[(size_t)n * v.map_dim + k] * v.elem_bytes);
      return vec.data();
    case OP2_VIEW_KIND_GLOBAL:
      return (T *)v.data;
    default:
      return nullptr;
    }
  }
};

/* A direct, indirect, global or NULL argument in a
   branch-free form: the pointer for element n is
   data + elem_bytes * (n * dn + map[n * md]), where map points at a zero for
   arguments without a map. */
struct simple_arg {
  char *data;
  const int *map;
  long md, dn, eb;
};

inline simple_arg make_simple(const op2_arg_view &v) {
  static const int zero = 0;
  switch (v.kind) {
  case OP2_VIEW_KIND_DIRECT:
    return {(char *)v.data, &zero, 0, 1, v.elem_bytes};
  case OP2_VIEW_KIND_INDIRECT:
    return {(char *)v.data, v.map + v.idx, v.map_dim, 0, v.elem_bytes};
  case OP2_VIEW_KIND_GLOBAL:
    return {(char *)v.data, &zero, 0, 0, 0};
  default:
    return {nullptr, &zero, 0, 0, 0};
  }
}

template <auto Kernel, typename... T, std::size_t... I>
inline void run_range(const op2_arg_view *views, int start, int end, std::index_sequence<I...>) {
  constexpr std::size_t N = sizeof...(T);
  bool simple = true;
  for (std::size_t i = 0; i < N; ++i) {
    int k = views[i].kind;
    simple = simple && (k == OP2_VIEW_KIND_DIRECT || k == OP2_VIEW_KIND_INDIRECT ||
                        k == OP2_VIEW_KIND_GLOBAL || k == OP2_VIEW_KIND_NULL);
  }
  if (simple) {
    /* The common case: no vector or index arguments. */
    const simple_arg a[N] = {make_simple(views[I])...};
    /* Cursors: the map row and direct element of the current element. */
    const int *mp[N] = {(a[I].map + (long)start * a[I].md)...};
    char *dp[N] = {(a[I].data + (long)start * a[I].dn * a[I].eb)...};
    for (long n = start; n < end; ++n) {
      Kernel((T *)(dp[I] + a[I].eb * (long)*mp[I])...);
      ((mp[I] += a[I].md, dp[I] += a[I].dn * a[I].eb), ...);
    }
    return;
  }
  /* Local copies let the compiler keep the views in registers across kernel calls. */
  op2_arg_view v[N] = {views[I]...};
  std::tuple<arg_state<T>...> st;
  (std::get<I>(st).init(v[I]), ...);
  for (int n = start; n < end; ++n)
    Kernel(std::get<I>(st).get(v[I], n)...);
}

template <auto Kernel, typename... T>
void trampoline(const op2_arg_view *views, int start, int end) {
  run_range<Kernel, T...>(views, start, end, std::index_sequence_for<T...>{});
}

template <auto Kernel, typename... T, typename... A>
void par_loop(void (*)(T *...), char const *name, op_set set, A... args) {
  static_assert(sizeof...(T) == sizeof...(A),
                "op_par_loop: the kernel's number of parameters differs from the number of args");
  static_assert(sizeof...(A) > 0, "op_par_loop: a loop needs at least one argument");
  static_assert((std::is_same<A, op_arg>::value && ...), "op_par_loop: every argument must be an op_arg");
  op_arg a[] = {args...};
  static const int codes[] = {param_code<T>::value...};
  op2_par_loop_range(&trampoline<Kernel, T...>, codes, name, set, (int)sizeof...(A), a);
}

} // namespace op2_rs

#define op_par_loop(kernel, ...) ::op2_rs::par_loop<kernel>(kernel, __VA_ARGS__)

#else /* C */

#define op_par_loop(kernel, name, set, ...)                                                       \
  op2_par_loop_c((op2_kernel_fn)(kernel), name, set,                                             \
                 (int)(sizeof((op_arg[]){__VA_ARGS__}) / sizeof(op_arg)), (op_arg[]){__VA_ARGS__})

#endif /* __cplusplus */

#endif /* __OP_SEQ_H */
