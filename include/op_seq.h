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
 *
 * The C++ trampoline (namespace op2_rs below) is specialised per call site:
 * op_par_loop also hands it the text of its arguments, and the trampoline
 * reads from it at compile time what a code generator would (which args go
 * through the same map, map columns, dims, access modes). Every such fact is
 * checked against the library's views (op2_arg_view) at run time; a loop
 * whose views disagree runs through a generic path instead. Loops whose
 * arguments are all plain double/float/int data also get a SIMD path: blocks
 * of OP2_RS_SIMD_LANES elements are staged through local arrays and the kernel
 * runs over them in a loop the compiler can vectorise.
 *
 * Configuration (define before including):
 *   OP2_RS_SIMD        which loops take SIMD blocks:
 *                      0: none;
 *                      1: loops of direct dats and globals only (nothing to
 *                         gather);
 *                      2: also loops that read dats through maps (gathered
 *                         into the block's arrays);
 *                      3: also loops that increment dats through maps
 *                         (increments summed per element from -0.0, added
 *                         back in element order: the scalar path's bits
 *                         unless a kernel increments the same value twice).
 *                      Default: 3 with AVX-512; else 2 when math functions
 *                      need not set errno (-fno-math-errno, -ffast-math);
 *                      else 1. Without AVX-512, staging increments costs
 *                      more than the narrower vectors win (airfoil's
 *                      res_calc: 1.3x slower with SSE2, 1.9x with AVX2;
 *                      1.25x faster with AVX-512). See BENCHMARKS.md.
 *   OP2_RS_SIMD_GATHER_ONLY
 *                      1: at levels 2 and 3, loops that read through maps
 *                      but increment nothing through them (airfoil's
 *                      adt_calc) take SIMD blocks; 0: they stay scalar, and
 *                      only loops that also increment through maps gather.
 *                      Default: 0 where the default level is 3 (AVX-512)
 *                      while math functions may set errno, else 1: with
 *                      errno a call such as sqrt keeps the compiler from
 *                      vectorising the lanes, so gathering only costs time
 *                      (airfoil's adt_calc: about 10% slower), and the
 *                      kernels of such loops are where those calls tend to
 *                      be. An OP2_RS_SIMD given on the command line gathers
 *                      as its level says unless this is given too.
 *   OP2_RS_SIMD_LANES  elements per SIMD block (default 16: in airfoil's
 *                      res_calc 16 and 24 beat 8, 32 and 64 by 5-25%)
 *   OP2_RS_SIMD_SUMS   1: in SIMD blocks a global OP_INC is summed per lane
 *                      and the lanes' sums added in lane order at the end of
 *                      the range: no chain of dependent additions, but the
 *                      last bits can differ from the in-order sum of the
 *                      scalar path (airfoil's update: 1.2-1.3x faster).
 *                      Results stay the same for every thread count. 0: in
 *                      order, the scalar path's bits. Default: 1 when the
 *                      compiler may reassociate (-ffast-math,
 *                      -fassociative-math), else 0.
 *   OP2_RS_PREFETCH    how many blocks of OP2_RS_SIMD_LANES elements ahead
 *                      the scalar path and the SIMD blocks that gather
 *                      prefetch a loop's direct dats (default 2; 0: none).
 *                      The hardware's prefetchers lose these streams among
 *                      a loop's map accesses, and at times even in a scalar
 *                      direct loop: on an AMD Zen 5, aero's spMV (p_K, 16
 *                      doubles per cell) ran 1.4-2x faster with it, scalar
 *                      and SIMD alike, and airfoil's update (scalar: it has
 *                      op_arg_idx and op_arg_info) no longer ran 2x slower
 *                      in some runs. SIMD blocks of direct dats only are
 *                      left to the hardware (prefetching made aero's
 *                      updateUR 1.2x slower there). Never changes a result.
 *   OP2_RS_SIDE_BY_SIDE
 *                      1 (default): a loop of direct dats and globals with a
 *                      reduction (OP_INC, OP_MIN, OP_MAX global) that moves
 *                      at most 32 bytes of dats per element runs the SIMD
 *                      blocks of up to 4 plan blocks side by side (the
 *                      library hands them over together): each block's
 *                      in-order sum is a chain of dependent additions, and
 *                      the chains of different blocks overlap (aero's dotR
 *                      2x faster, dotPV 1.07-1.17x: then bound by memory).
 *                      Each block's sum keeps its element order, so results
 *                      do not change; 0: one block at a time.
 *   OP2_RS_COUNT_PATHS (tests) count in op2_rs::path_count[4] the ranges run
 *                      by the generic path, the ranges run by the specialised
 *                      path, the SIMD blocks among them, and the ranges run
 *                      side by side
 *
 * Results of the SIMD blocks: the scalar path's bits, except (a) at level 3
 * where a kernel increments one value twice (its increments are summed
 * before they reach the dat), (b) with OP2_RS_SIMD_SUMS=1, and (c) where the
 * compiler contracts multiplications and additions into FMAs (C++'s default
 * -ffp-contract=fast on an instruction set with FMA, e.g. -march=native):
 * it contracts the vectorised lanes differently from scalar code, e.g. a
 * global sum vectorised in order keeps its products apart from its
 * additions. -ffp-contract=off makes (c) bitwise. In every case the result
 * is the same for any number of threads.
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
/* The same, with the kernel's name and the call site's source file: a
   device library (libop2_opencl) finds the kernel's source from them. */
void op2_par_loop_range_src(op2_range_fn range, const int *param_types, const char *kernel_name,
                            const char *file, const char *name, op_set set, int nargs,
                            const op_arg *args);
/* Runs a kernel over nranges (2 to OP2_MAX_RANGES) independent ranges [bounds[2k],
   bounds[2k + 1]), range k with the views views[k * nargs ...]. */
typedef void (*op2_ranges_fn)(const op2_arg_view *views, int nranges, const int *bounds);
/* op2_par_loop_range_src with the trampoline for several ranges (NULL: none). */
void op2_par_loop_ranges_src(op2_range_fn range, op2_ranges_fn ranges, const int *param_types,
                             const char *kernel_name, const char *file, const char *name,
                             op_set set, int nargs, const op_arg *args);

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

/* How op_par_loop is spelled to the compiler. OP2_RS_PLAIN_PAR_LOOP 0 (the
   default): a macro around the op_par_loop function template below, which
   specialises the trampoline per call site. 1: op_par_loop is only the plain
   function template, running the kernel through the library's generic path
   (correct, slower). The plain form is chosen automatically when the source
   is parsed by libclang with no compiler resource headers: that is how OP2's
   code generator (translator-v2) reads applications, and it recognises an
   OP_ID argument by the location of its macro expansion, which a macro
   around the whole call would hide (direct arguments would be taken for
   indirect ones through a map named OP_ID). No compiler build looks like
   this: clang always has its own <__stddef_max_align_t.h>. */
#ifndef OP2_RS_PLAIN_PAR_LOOP
#if defined(__cplusplus) && defined(__clang__) && defined(__has_include)
#if !__has_include(<__stddef_max_align_t.h>)
#define OP2_RS_PLAIN_PAR_LOOP 1
#endif
#endif
#endif
#ifndef OP2_RS_PLAIN_PAR_LOOP
#define OP2_RS_PLAIN_PAR_LOOP 0
#endif

#ifdef __cplusplus

#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__NO_MATH_ERRNO__) || defined(__FAST_MATH__)
#define OP2_RS_NO_ERRNO_ 1
#else
#define OP2_RS_NO_ERRNO_ 0
#endif
#ifndef OP2_RS_SIMD
#if defined(__AVX512F__)
#define OP2_RS_SIMD 3
#if !OP2_RS_NO_ERRNO_ && !defined(OP2_RS_SIMD_GATHER_ONLY)
#define OP2_RS_SIMD_GATHER_ONLY 0
#endif
#elif OP2_RS_NO_ERRNO_
#define OP2_RS_SIMD 2
#else
#define OP2_RS_SIMD 1
#endif
#endif
#ifndef OP2_RS_SIMD_GATHER_ONLY
#define OP2_RS_SIMD_GATHER_ONLY 1
#endif
#undef OP2_RS_NO_ERRNO_
#ifndef OP2_RS_SIMD_LANES
#define OP2_RS_SIMD_LANES 16
#endif
#ifndef OP2_RS_PREFETCH
#define OP2_RS_PREFETCH 2
#endif
#ifndef OP2_RS_SIDE_BY_SIDE
#define OP2_RS_SIDE_BY_SIDE 1
#endif
#ifndef OP2_RS_SIMD_SUMS
#if defined(__ASSOCIATIVE_MATH__)
#define OP2_RS_SIMD_SUMS 1
#else
#define OP2_RS_SIMD_SUMS 0
#endif
#endif

#if defined(__GNUC__)
#define OP2_RS_INLINE inline __attribute__((always_inline))
#define OP2_RS_NOINLINE __attribute__((noinline))
#define OP2_RS_RESTRICT __restrict__
/* Hides a value from the optimiser (no instruction): keeps gather/scatter
   loops scalar, which is cheaper than vectorising them with emulated gathers. */
#define OP2_RS_OPAQUE(x) __asm__("" : "+r"(x))
#define OP2_RS_PREFETCH_LINE(p, w) __builtin_prefetch((p), (w))
#else
#define OP2_RS_INLINE inline
#define OP2_RS_NOINLINE
#define OP2_RS_RESTRICT
#define OP2_RS_OPAQUE(x) (void)0
#define OP2_RS_PREFETCH_LINE(p, w) (void)0
#endif

#ifdef OP2_RS_COUNT_PATHS
#include <atomic>
namespace op2_rs {
inline std::atomic<long> path_count[4];
}
#define OP2_RS_COUNT_N(i, k) (void)::op2_rs::path_count[i].fetch_add(k, std::memory_order_relaxed)
#else
#define OP2_RS_COUNT_N(i, k) (void)0
#endif
#define OP2_RS_COUNT(i) OP2_RS_COUNT_N(i, 1)

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

namespace detail {

/* ---- what the text of op_par_loop's arguments says, at compile time ------- */

constexpr int kUnknown = -1;

/* One argument as far as its text tells. kind: an op2_view_kind, or kUnknown
   (then nothing else is used). */
struct arg_desc {
  int kind = kUnknown;
  int idx = 0;        /* map column (Indirect, IdxMapped) or -K (Vector) */
  int dim = 0;        /* 0: not a literal */
  int acc = kUnknown; /* OP_READ ... OP_WORK, or kUnknown */
  int mslot = -1;     /* first argument with the same map expression */
  int dslot = -1;     /* first argument with the same dat expression */
};

template <std::size_t N> struct loop_desc {
  arg_desc a[N];
};

struct text {
  const char *p;
  int n;
};

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

constexpr int length(const char *s) {
  int n = 0;
  while (s[n] != 0)
    ++n;
  return n;
}

constexpr text trim(text t) {
  while (t.n > 0 && is_space(t.p[0])) {
    ++t.p;
    --t.n;
  }
  while (t.n > 0 && is_space(t.p[t.n - 1]))
    --t.n;
  return t;
}

/* The same characters, white space aside. */
constexpr bool same(text a, text b) {
  int i = 0, j = 0;
  for (;;) {
    while (i < a.n && is_space(a.p[i]))
      ++i;
    while (j < b.n && is_space(b.p[j]))
      ++j;
    if (i == a.n || j == b.n)
      return i == a.n && j == b.n;
    if (a.p[i] != b.p[j])
      return false;
    ++i;
    ++j;
  }
}

constexpr bool same(text a, const char *b) { return same(a, text{b, length(b)}); }

/* Splits t at the commas outside brackets and literals; returns the number of
   parts, or -1 (more than max parts, or unbalanced). */
constexpr int split(text t, text *out, int max) {
  int depth = 0, count = 0, begin = 0;
  for (int i = 0; i <= t.n; ++i) {
    if (i == t.n || (t.p[i] == ',' && depth == 0)) {
      if (count == max)
        return -1;
      out[count++] = trim(text{t.p + begin, i - begin});
      begin = i + 1;
      continue;
    }
    const char c = t.p[i];
    if (c == '"' || c == '\'') {
      for (++i; i < t.n && t.p[i] != c; ++i)
        if (t.p[i] == '\\')
          ++i;
      if (i >= t.n)
        return -1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0)
        return -1;
    }
  }
  return depth == 0 ? count : -1;
}

/* A decimal literal such as 4, -1 or (2). */
constexpr bool integer(text t, int &value) {
  t = trim(t);
  while (t.n >= 2 && t.p[0] == '(' && t.p[t.n - 1] == ')')
    t = trim(text{t.p + 1, t.n - 2});
  bool neg = false;
  if (t.n > 0 && (t.p[0] == '-' || t.p[0] == '+')) {
    neg = t.p[0] == '-';
    t = trim(text{t.p + 1, t.n - 1});
  }
  if (t.n == 0 || t.n > 9 || (t.n > 1 && t.p[0] == '0'))
    return false;
  int v = 0;
  for (int i = 0; i < t.n; ++i) {
    if (t.p[i] < '0' || t.p[i] > '9')
      return false;
    v = 10 * v + (t.p[i] - '0');
  }
  value = neg ? -v : v;
  return true;
}

constexpr bool ident_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* `name(args)` or `name<...>(args)`: the name and the argument texts. */
constexpr bool call(text t, text &name, text *args, int max, int &nargs) {
  t = trim(t);
  int i = 0;
  if (t.n >= 2 && t.p[0] == ':' && t.p[1] == ':')
    i = 2;
  const int b = i;
  while (i < t.n && ident_char(t.p[i]))
    ++i;
  if (i == b)
    return false;
  name = text{t.p + b, i - b};
  while (i < t.n && is_space(t.p[i]))
    ++i;
  if (i < t.n && t.p[i] == '<') {
    int depth = 0;
    for (; i < t.n; ++i) {
      if (t.p[i] == '<')
        ++depth;
      else if (t.p[i] == '>' && --depth == 0)
        break;
    }
    if (i == t.n)
      return false;
    ++i;
    while (i < t.n && is_space(t.p[i]))
      ++i;
  }
  if (i >= t.n || t.p[i] != '(' || t.p[t.n - 1] != ')')
    return false;
  nargs = split(text{t.p + i + 1, t.n - i - 2}, args, max);
  return nargs >= 0;
}

/* The arguments of op_par_loop(kernel, name, set, args...): `s` is the text
   of name, set, args... (macros expanded), `op_id` that of OP_ID. */
template <std::size_t N> constexpr loop_desc<N> parse_loop(const char *s, const char *op_id) {
  loop_desc<N> d{};
  text parts[N + 2] = {};
  if (split(text{s, length(s)}, parts, (int)N + 2) != (int)N + 2)
    return d;
  text maps[N] = {}, dats[N] = {};
  for (std::size_t i = 0; i < N; ++i) {
    arg_desc a{};
    text fn{nullptr, 0};
    text f[8] = {};
    int nf = 0, idx = 0, dim = 0, acc = 0;
    if (call(parts[i + 2], fn, f, 8, nf)) {
      if (same(fn, "op_arg_dat") && nf == 6) {
        const bool has_idx = integer(f[1], idx);
        if (same(f[2], op_id)) {
          a.kind = OP2_VIEW_KIND_DIRECT;
        } else if (has_idx && idx >= 0) {
          a.kind = OP2_VIEW_KIND_INDIRECT;
          a.idx = idx;
          maps[i] = f[2];
        } else if (has_idx && idx < -1) {
          a.kind = OP2_VIEW_KIND_VECTOR;
          a.idx = idx;
          maps[i] = f[2];
        }
        if (a.kind != kUnknown)
          dats[i] = f[0];
        if (integer(f[3], dim) && dim > 0)
          a.dim = dim;
        if (integer(f[5], acc) && acc >= OP_READ && acc <= OP_WORK)
          a.acc = acc;
      } else if (same(fn, "op_arg_gbl") && nf == 4) {
        a.kind = OP2_VIEW_KIND_GLOBAL;
        if (integer(f[1], dim) && dim > 0)
          a.dim = dim;
        if (integer(f[3], acc) && acc >= OP_READ && acc <= OP_WORK)
          a.acc = acc;
      } else if (same(fn, "op_arg_idx") && nf == 2) {
        if (same(f[1], op_id)) {
          a.kind = OP2_VIEW_KIND_IDX_DIRECT;
        } else if (integer(f[0], idx) && idx >= 0) {
          a.kind = OP2_VIEW_KIND_IDX_MAPPED;
          a.idx = idx;
          maps[i] = f[1];
        }
      }
    }
    for (std::size_t j = 0; j <= i && maps[i].p != nullptr; ++j)
      if (maps[j].p != nullptr && same(maps[j], maps[i])) {
        a.mslot = (int)j;
        break;
      }
    for (std::size_t j = 0; j <= i && dats[i].p != nullptr; ++j)
      if (dats[j].p != nullptr && same(dats[j], dats[i])) {
        a.dslot = (int)j;
        break;
      }
    d.a[i] = a;
  }
  return d;
}

/* The description of a call site's arguments (Text: the type op_par_loop
   makes, with a static text() of the argument list). */
template <class Text, std::size_t N> struct parsed {
  static constexpr loop_desc<N> value = parse_loop<N>(Text::text(), Text::op_id());
};

/* Nothing known: the generic path, for views that contradict the text. */
struct unknown_text {};
template <std::size_t N> struct parsed<unknown_text, N> {
  static constexpr loop_desc<N> value{};
};

/* ---- per-argument code ------------------------------------------------------ */

template <typename T> using value_t = typename std::remove_cv<T>::type;

constexpr bool has_map(int kind) {
  return kind == OP2_VIEW_KIND_INDIRECT || kind == OP2_VIEW_KIND_VECTOR ||
         kind == OP2_VIEW_KIND_IDX_MAPPED;
}
constexpr bool is_dat(int kind) {
  return kind == OP2_VIEW_KIND_DIRECT || kind == OP2_VIEW_KIND_INDIRECT ||
         kind == OP2_VIEW_KIND_VECTOR;
}

/* Globals of at most this many values known from the text are kept in a local
   copy for a whole range (OP2_VIEW_LOCAL): reductions stay in registers, and
   read-only values need not be reloaded after the kernel's stores. */
constexpr int kLocalMax = 16;

template <class Info, std::size_t I> struct desc_of {
  static constexpr arg_desc d = Info::value.a[I];
  static constexpr bool known = d.kind != kUnknown;
  static constexpr bool owns_row = has_map(d.kind) && d.mslot == (int)I;
  static constexpr bool owns_base = is_dat(d.kind) && d.dslot == (int)I;
  static constexpr bool local = d.kind == OP2_VIEW_KIND_GLOBAL && d.dim > 0 && d.dim <= kLocalMax &&
                                d.acc >= OP_READ && d.acc <= OP_MAX;
};

/* The shared per-range cursors: one map row per distinct map (owned by the
   first argument through it), one base pointer per distinct dat. */
template <std::size_t N> struct cursors {
  char *base[N];
  const int *row[N];
  long mdim[N];
};

template <class Info> constexpr std::size_t count_of = sizeof(Info::value.a) / sizeof(arg_desc);

/* Per-argument state and pointer of argument I for element n. The primary
   template: an argument the text says nothing about (or everything, for the
   generic path), formed from its view at run time. */
template <class Info, std::size_t I, typename T, int Kind = desc_of<Info, I>::d.kind>
struct arg {
  enum mode { simple, idx_direct, idx_mapped, vector, null };
  mode m = null;
  char *data = nullptr;
  const int *map = nullptr;
  long md = 0, dn = 0, eb = 0;
  int col = 0;
  int n_idx = 0;
  /* vector arguments: pointers of the current element */
  static constexpr bool pp = std::is_pointer<T>::value;
  using ptr_t = typename std::conditional<pp, value_t<T>, char>::type;
  ptr_t small[pp ? 64 : 1];
  ptr_t *vec = nullptr;

  void init(const op2_arg_view *v, cursors<count_of<Info>> &, long) {
    static const int zero = 0;
    const op2_arg_view &w = v[I];
    data = (char *)w.data;
    eb = w.elem_bytes;
    col = w.idx;
    switch (w.kind) {
    case OP2_VIEW_KIND_DIRECT:
      m = simple, map = &zero, md = 0, dn = 1;
      break;
    case OP2_VIEW_KIND_INDIRECT:
      m = simple, map = w.map + w.idx, md = w.map_dim, dn = 0;
      break;
    case OP2_VIEW_KIND_GLOBAL:
      m = simple, map = &zero, md = 0, dn = 0, eb = 0;
      break;
    case OP2_VIEW_KIND_IDX_DIRECT:
      m = idx_direct;
      break;
    case OP2_VIEW_KIND_IDX_MAPPED:
      m = idx_mapped, map = w.map, md = w.map_dim;
      break;
    case OP2_VIEW_KIND_VECTOR:
      if (pp) {
        m = vector, map = w.map, md = w.map_dim;
        if (-w.idx <= 64) {
          vec = small;
        } else {
          /* wider than any real element: one buffer per thread, grown once */
          static thread_local std::vector<ptr_t> big;
          if (big.size() < (size_t)-w.idx)
            big.resize((size_t)-w.idx);
          vec = big.data();
        }
      }
      break;
    default:
      m = null;
    }
  }
  OP2_RS_INLINE T *at(const cursors<count_of<Info>> &, long n) {
    switch (m) {
    case simple:
      return (T *)(data + eb * (n * dn + map[n * md]));
    case idx_direct:
      n_idx = (int)n;
      return (T *)&n_idx;
    case idx_mapped:
      return (T *)(map + n * md + col);
    case vector:
      if constexpr (pp) {
        for (int k = 0; k < -col; ++k)
          vec[k] = (ptr_t)(data + eb * (long)map[n * md + k]);
        return (T *)vec;
      }
      return nullptr;
    default:
      return nullptr;
    }
  }
  void finish(const op2_arg_view *) {}
};

/* A dat, directly: base + n * dim. */
template <class Info, std::size_t I, typename T> struct arg<Info, I, T, OP2_VIEW_KIND_DIRECT> {
  using D = desc_of<Info, I>;
  long eb = 0;
  void init(const op2_arg_view *v, cursors<count_of<Info>> &, long) { eb = v[I].elem_bytes; }
  OP2_RS_INLINE T *at(const cursors<count_of<Info>> &c, long n) {
    if constexpr (D::d.dim > 0)
      return (T *)c.base[D::d.dslot] + n * D::d.dim;
    else
      return (T *)(c.base[D::d.dslot] + n * eb);
  }
  void finish(const op2_arg_view *) {}
};

/* A dat through map column IDX: base + row[IDX] * dim. */
template <class Info, std::size_t I, typename T> struct arg<Info, I, T, OP2_VIEW_KIND_INDIRECT> {
  using D = desc_of<Info, I>;
  long eb = 0;
  void init(const op2_arg_view *v, cursors<count_of<Info>> &, long) { eb = v[I].elem_bytes; }
  OP2_RS_INLINE T *at(const cursors<count_of<Info>> &c, long) {
    const long e = c.row[D::d.mslot][D::d.idx];
    if constexpr (D::d.dim > 0)
      return (T *)c.base[D::d.dslot] + e * D::d.dim;
    else
      return (T *)(c.base[D::d.dslot] + e * eb);
  }
  void finish(const op2_arg_view *) {}
};

/* The pointers a vector argument hands the kernel for one element: a
   temporary of the kernel call's full expression (which the compiler keeps
   in registers more readily than an array that lives across elements). P is
   the pointer type without cv-qualifiers, so that the array can be filled
   whatever the kernel's spelling (T**, const T**, T* const*, const T* const*);
   P* converts to the kernel's parameter type. */
template <typename P, int K> struct ptr_array {
  P p[K];
};
template <typename T> OP2_RS_INLINE T *as_param(T *p) { return p; }
template <typename P, int K> OP2_RS_INLINE P *as_param(ptr_array<P, K> &&v) { return v.p; }

/* A vector argument (parameter U**, or with const at either level: T is
   then U* or U* const): the -IDX pointers of the element's row. */
template <class Info, std::size_t I, typename T> struct arg<Info, I, T, OP2_VIEW_KIND_VECTOR> {
  using D = desc_of<Info, I>;
  static constexpr int K = -D::d.idx;
  long eb = 0;
  void init(const op2_arg_view *v, cursors<count_of<Info>> &, long) { eb = v[I].elem_bytes; }
  OP2_RS_INLINE auto at(const cursors<count_of<Info>> &c, long) {
    if constexpr (std::is_pointer<T>::value) {
      using P = value_t<T>;
      using U = typename std::remove_pointer<P>::type;
      ptr_array<P, K> a;
      const int *r = c.row[D::d.mslot];
      for (int k = 0; k < K; ++k) {
        if constexpr (D::d.dim > 0)
          a.p[k] = (P)((U *)c.base[D::d.dslot] + (long)r[k] * D::d.dim);
        else
          a.p[k] = (P)(c.base[D::d.dslot] + (long)r[k] * eb);
      }
      return a;
    } else {
      return (T *)nullptr; /* excluded by the library's parameter check */
    }
  }
  void finish(const op2_arg_view *) {}
};

/* A global: in a local copy for the range (OP2_VIEW_LOCAL, verified), else
   the pointer itself. */
template <class Info, std::size_t I, typename T> struct arg<Info, I, T, OP2_VIEW_KIND_GLOBAL> {
  using D = desc_of<Info, I>;
  static constexpr int L = D::local ? D::d.dim : 1;
  value_t<T> val[L];
  T *p = nullptr;
  void init(const op2_arg_view *v, cursors<count_of<Info>> &, long) {
    p = (T *)v[I].data;
    if constexpr (D::local)
      std::memcpy((void *)val, (const void *)p, sizeof val);
  }
  OP2_RS_INLINE T *at(const cursors<count_of<Info>> &, long) {
    if constexpr (D::local)
      return val;
    else
      return p;
  }
  void finish(const op2_arg_view *) {
    if constexpr (D::local && D::d.acc != OP_READ)
      std::memcpy((void *)p, (const void *)val, sizeof val);
  }
};

/* op_arg_idx(-1, OP_ID): the element index. */
template <class Info, std::size_t I, typename T> struct arg<Info, I, T, OP2_VIEW_KIND_IDX_DIRECT> {
  int val = 0;
  void init(const op2_arg_view *, cursors<count_of<Info>> &, long) {}
  OP2_RS_INLINE T *at(const cursors<count_of<Info>> &, long n) {
    val = (int)n;
    return (T *)&val;
  }
  void finish(const op2_arg_view *) {}
};

/* op_arg_idx(IDX, map): a pointer to the map entry. */
template <class Info, std::size_t I, typename T> struct arg<Info, I, T, OP2_VIEW_KIND_IDX_MAPPED> {
  using D = desc_of<Info, I>;
  void init(const op2_arg_view *, cursors<count_of<Info>> &, long) {}
  OP2_RS_INLINE T *at(const cursors<count_of<Info>> &c, long) {
    return (T *)(c.row[D::d.mslot] + D::d.idx);
  }
  void finish(const op2_arg_view *) {}
};

/* Do the views agree with what the text said about argument I? */
template <class Info, std::size_t I, typename T> inline bool agrees(const op2_arg_view *v) {
  using D = desc_of<Info, I>;
  constexpr arg_desc d = D::d;
  if constexpr (!D::known) {
    return true;
  } else {
    const op2_arg_view &w = v[I];
    if (w.kind != d.kind)
      return false;
    if constexpr (has_map(d.kind))
      if (w.idx != d.idx || w.map_slot != v[d.mslot].map_slot)
        return false;
    if constexpr (is_dat(d.kind))
      if (w.data != v[d.dslot].data)
        return false;
    if constexpr (d.dim > 0 && (is_dat(d.kind) || d.kind == OP2_VIEW_KIND_GLOBAL)) {
      using E = value_t<typename std::conditional<d.kind == OP2_VIEW_KIND_VECTOR,
                                                  typename std::remove_pointer<T>::type, T>::type>;
      if (w.elem_bytes != d.dim * (int)sizeof(E))
        return false;
    }
    if constexpr (d.acc != kUnknown)
      if (w.access != d.acc)
        return false;
    if constexpr (D::local)
      if ((w.flags & OP2_VIEW_LOCAL) == 0)
        return false;
    return true;
  }
}

template <class Info, typename... T, std::size_t... I>
inline bool all_agree(const op2_arg_view *v, std::index_sequence<I...>) {
  return (agrees<Info, I, T>(v) && ...);
}

template <class Info, std::size_t... I>
OP2_RS_INLINE void init_cursors(cursors<sizeof...(I)> &c, const op2_arg_view *v, long start,
                                std::index_sequence<I...>) {
  ((c.base[I] = desc_of<Info, I>::owns_base ? (char *)v[I].data : nullptr), ...);
  ((c.mdim[I] = desc_of<Info, I>::owns_row ? (long)v[I].map_dim : 0), ...);
  ((c.row[I] = desc_of<Info, I>::owns_row ? v[I].map + start * c.mdim[I] : nullptr), ...);
}

template <class Info, std::size_t... I>
OP2_RS_INLINE void advance(cursors<sizeof...(I)> &c, long by, std::index_sequence<I...>) {
  ((desc_of<Info, I>::owns_row ? (void)(c.row[I] += by * c.mdim[I]) : (void)0), ...);
}

/* ---- the SIMD path ------------------------------------------------------------ */

constexpr int kLanes = OP2_RS_SIMD_LANES;

template <typename T> constexpr bool simd_type() {
  using E = value_t<T>;
  return std::is_same<E, double>::value || std::is_same<E, float>::value ||
         std::is_same<E, int>::value;
}

/* How argument I takes part in a SIMD block. */
template <class Info, std::size_t I, typename T> struct lane_role {
  using D = desc_of<Info, I>;
  static constexpr arg_desc d = D::d;
  static constexpr bool vec = d.kind == OP2_VIEW_KIND_VECTOR;
  using E = value_t<typename std::conditional<vec, typename std::remove_pointer<T>::type, T>::type>;
  static constexpr int K = vec ? -d.idx : 1;
  static constexpr bool staged = d.kind == OP2_VIEW_KIND_INDIRECT || vec;
  static constexpr bool inc = staged && d.acc == OP_INC;
  /* a global OP_INC summed per lane over the range (OP2_RS_SIMD_SUMS) */
  static constexpr bool lane_sum =
      OP2_RS_SIMD_SUMS && d.kind == OP2_VIEW_KIND_GLOBAL && d.acc == OP_INC && d.dim > 0;
  /* values staged per element */
  static constexpr int width = staged ? K * d.dim : lane_sum ? d.dim : 0;
  static constexpr bool ok =
      d.dim > 0 && d.acc != kUnknown &&
      ((d.kind == OP2_VIEW_KIND_DIRECT && simd_type<T>() && d.acc <= OP_INC) ||
       (staged && (vec ? std::is_pointer<T>::value : simd_type<T>()) && simd_type<E>() &&
        ((d.acc == OP_READ && OP2_RS_SIMD >= 2) || (d.acc == OP_INC && OP2_RS_SIMD >= 3))) ||
       (d.kind == OP2_VIEW_KIND_GLOBAL && D::local && simd_type<T>() &&
        (d.acc == OP_READ || d.acc == OP_INC || d.acc == OP_MIN || d.acc == OP_MAX)));
};

/* Local arrays per block at most (bytes). */
constexpr std::size_t kStageBytes = 48 * 1024;

template <class Info, typename... T, std::size_t... I>
constexpr bool simd_applies(std::index_sequence<I...>) {
  constexpr bool gathers = (lane_role<Info, I, T>::staged || ...);
  constexpr bool increments = (lane_role<Info, I, T>::inc || ...);
  return OP2_RS_SIMD >= 1 && (lane_role<Info, I, T>::ok && ...) &&
         (!gathers || increments || OP2_RS_SIMD_GATHER_ONLY) &&
         ((std::size_t)kLanes * (0 + ... + (lane_role<Info, I, T>::width *
                                            sizeof(typename lane_role<Info, I, T>::E)))) <=
             kStageBytes;
}

/* Where staged increments start: -0.0 is the identity of floating-point
   addition (t + -0.0 == t for every t, while t + +0.0 turns t == -0.0 into
   +0.0), so a value incremented once per element gets the scalar path's bits. */
template <typename E> constexpr E sum_identity() {
  if constexpr (std::is_floating_point<E>::value)
    return (E)-0.0;
  else
    return (E)0;
}

/* Staged data of argument I for the SIMD blocks of a range: none (Mode 0),
   a dat's values per block (1), or a global's sums per lane (2). */
template <class Info, std::size_t I, typename T>
constexpr int stage_mode = lane_role<Info, I, T>::staged ? 1 : lane_role<Info, I, T>::lane_sum ? 2 : 0;

template <class Info, std::size_t I, typename T, int Mode = stage_mode<Info, I, T>> struct stage {
  OP2_RS_INLINE void start() {}
  OP2_RS_INLINE void gather(const cursors<count_of<Info>> &, int) {}
  OP2_RS_INLINE void zero() {}
  OP2_RS_INLINE void scatter(const cursors<count_of<Info>> &, int) {}
  template <typename A> OP2_RS_INLINE void fold(A &) {}
};

/* A global OP_INC: lane l sums the increments of elements l, l + kLanes, ...
   of the range, so that the lanes' kernel calls carry no dependence from one
   to the next (an in-order sum is a chain of additions the compiler cannot
   vectorise); the lanes' sums are added to the range's total in lane order
   when the SIMD blocks are done. The result is the same for any thread count
   (a range is a plan block), but can differ from the scalar path's in-order
   sum in the last bits. */
template <class Info, std::size_t I, typename T> struct stage<Info, I, T, 2> {
  using R = lane_role<Info, I, T>;
  using E = typename R::E;
  static constexpr int Dim = R::d.dim;
  alignas(64) E buf[kLanes * Dim];

  OP2_RS_INLINE void start() {
    for (int i = 0; i < kLanes * Dim; ++i)
      buf[i] = sum_identity<E>();
  }
  OP2_RS_INLINE void gather(const cursors<count_of<Info>> &, int) {}
  OP2_RS_INLINE void zero() {}
  OP2_RS_INLINE void scatter(const cursors<count_of<Info>> &, int) {}
  template <typename A> OP2_RS_INLINE void fold(A &a) {
    for (int l = 0; l < kLanes; ++l)
      for (int k = 0; k < Dim; ++k)
        a.val[k] += buf[l * Dim + k];
  }
};

template <class Info, std::size_t I, typename T> struct stage<Info, I, T, 1> {
  using R = lane_role<Info, I, T>;
  using E = typename R::E;
  static constexpr int W = R::width;
  static constexpr int Dim = R::d.dim;
  alignas(64) E buf[kLanes * W];

  OP2_RS_INLINE void start() {}
  template <typename A> OP2_RS_INLINE void fold(A &) {}
  OP2_RS_INLINE const int *row(const cursors<count_of<Info>> &c, int l) const {
    return c.row[R::d.mslot] + l * c.mdim[R::d.mslot];
  }
  OP2_RS_INLINE void gather(const cursors<count_of<Info>> &c, int l) {
    if constexpr (!R::inc) {
      const int *r = row(c, l);
      const E *base = (const E *)c.base[R::d.dslot];
      for (int k = 0; k < R::K; ++k) {
        long e = r[R::vec ? k : R::d.idx];
        OP2_RS_OPAQUE(e);
        std::memcpy(buf + (l * R::K + k) * Dim, base + e * Dim, Dim * sizeof(E));
      }
    }
  }
  OP2_RS_INLINE void zero() {
    if constexpr (R::inc)
      for (int i = 0; i < kLanes * W; ++i)
        buf[i] = sum_identity<E>();
  }
  OP2_RS_INLINE void scatter(const cursors<count_of<Info>> &c, int l) {
    if constexpr (R::inc) {
      const int *r = row(c, l);
      E *base = (E *)c.base[R::d.dslot];
      for (int k = 0; k < R::K; ++k) {
        long e = r[R::vec ? k : R::d.idx];
        OP2_RS_OPAQUE(e);
        E *t = base + e * Dim;
        /* a copy the compiler knows apart from t: the loop below becomes
           vector loads, adds and stores */
        E inc[Dim];
        std::memcpy(inc, buf + (l * R::K + k) * Dim, sizeof inc);
        E sum[Dim];
        for (int j = 0; j < Dim; ++j)
          sum[j] = t[j] + inc[j];
        std::memcpy(t, sum, sizeof sum);
      }
    }
  }
};

/* The block pointer of argument I handed to the lane loop. */
template <class Info, std::size_t I, typename T, typename A, typename S>
OP2_RS_INLINE auto block_ptr(const cursors<count_of<Info>> &c, A &a, S &s, long n0) {
  using R = lane_role<Info, I, T>;
  if constexpr (R::staged || R::lane_sum)
    return (typename R::E *)s.buf;
  else if constexpr (R::d.kind == OP2_VIEW_KIND_DIRECT)
    return (typename R::E *)c.base[R::d.dslot] + n0 * R::d.dim;
  else
    return (typename R::E *)a.val;
}

/* The kernel's parameter for lane l, from the block pointer p. */
template <class Info, std::size_t I, typename T> struct lane_arg {
  using R = lane_role<Info, I, T>;
  struct ptrs {
    value_t<T> p[R::K];
  };
  template <typename P> static OP2_RS_INLINE auto get(P *p, int l) {
    if constexpr (R::vec) {
      ptrs v{};
      for (int k = 0; k < R::K; ++k)
        v.p[k] = (value_t<T>)(p + (l * R::K + k) * R::d.dim);
      return v;
    } else if constexpr (R::d.kind == OP2_VIEW_KIND_GLOBAL && !R::lane_sum) {
      return (T *)p;
    } else {
      return (T *)(p + l * R::d.dim);
    }
  }
  template <typename V> static OP2_RS_INLINE T *param(V &&v) {
    if constexpr (R::vec)
      return (T *)v.p;
    else
      return v;
  }
};

/* A global inside the lane loop: a copy local to the loop, so that the
   compiler sees a plain variable (a reduction it can vectorise, in order);
   other arguments: the block pointer. */
template <class Info, std::size_t I, typename T, typename P,
          bool Global = lane_role<Info, I, T>::d.kind == OP2_VIEW_KIND_GLOBAL &&
                        !lane_role<Info, I, T>::lane_sum>
struct lane_local {
  OP2_RS_INLINE explicit lane_local(P *) {}
  OP2_RS_INLINE P *ptr(P *p) { return p; }
  OP2_RS_INLINE void store(P *) {}
};
template <class Info, std::size_t I, typename T, typename P>
struct lane_local<Info, I, T, P, true> {
  static constexpr arg_desc d = lane_role<Info, I, T>::d;
  P val[d.dim];
  OP2_RS_INLINE explicit lane_local(P *p) {
    for (int k = 0; k < d.dim; ++k)
      val[k] = p[k];
  }
  OP2_RS_INLINE P *ptr(P *) { return val; }
  OP2_RS_INLINE void store(P *p) {
    if constexpr (d.acc != OP_READ)
      for (int k = 0; k < d.dim; ++k)
        p[k] = val[k];
  }
};

/* The kernel over the lanes of a block. The pointers do not overlap (the
   library's OP2_VIEW_EXCLUSIVE and OP2_VIEW_LOCAL flags, checked), which
   __restrict__ tells the compiler so that it can vectorise. Not inlined: GCC
   keeps __restrict__ of parameters for the vectoriser only in the function
   itself (one call per block). */
template <auto Kernel, class Info, typename... T, typename... P, std::size_t... I>
OP2_RS_NOINLINE void lanes(std::index_sequence<I...>, P *OP2_RS_RESTRICT... p) {
  std::tuple<lane_local<Info, I, T, P>...> g{lane_local<Info, I, T, P>(p)...};
  for (int l = 0; l < kLanes; ++l)
    Kernel(lane_arg<Info, I, T>::param(lane_arg<Info, I, T>::get(std::get<I>(g).ptr(p), l))...);
  (std::get<I>(g).store(p), ...);
}

/* Argument I's pointer for block b of a run of blocks with nothing staged: a
   direct dat moves on by b blocks of values; a global (its local copy, or
   its sums per lane) stays where it is. */
template <class Info, std::size_t I, typename T, typename P>
OP2_RS_INLINE P *block_at(P *p, long b) {
  using R = lane_role<Info, I, T>;
  if constexpr (R::d.kind == OP2_VIEW_KIND_DIRECT)
    return p + b * (long)kLanes * R::d.dim;
  else
    return p;
}

/* The kernel over nb consecutive blocks, for loops with nothing to gather or
   scatter (direct dats and globals): the same calls in the same order as nb
   calls of lanes(), but in one function, so that a global's local copy (a
   reduction's running value) stays in a register from block to block rather
   than going through memory once per block, which put a store and a load on
   the critical path of an in-order sum (aero's dotPV/dotR, issue 26), and so
   that no call and return separates blocks of a streaming loop. */
template <auto Kernel, class Info, typename... T, typename... P, std::size_t... I>
OP2_RS_NOINLINE void lane_blocks(std::index_sequence<I...>, long nb, P *OP2_RS_RESTRICT... p) {
  std::tuple<lane_local<Info, I, T, P>...> g{lane_local<Info, I, T, P>(p)...};
  for (long b = 0; b < nb; ++b)
    for (int l = 0; l < kLanes; ++l)
      Kernel(lane_arg<Info, I, T>::param(
          lane_arg<Info, I, T>::get(block_at<Info, I, T>(std::get<I>(g).ptr(p), b), l))...);
  (std::get<I>(g).store(p), ...);
}

template <class Info, typename... T, std::size_t... I>
constexpr bool stages_any(std::index_sequence<I...>) {
  return (lane_role<Info, I, T>::staged || ...);
}

template <class Info, std::size_t... I>
inline bool simd_views_ok(const op2_arg_view *v, std::index_sequence<I...>) {
  return ((!is_dat(desc_of<Info, I>::d.kind) || (v[I].flags & OP2_VIEW_EXCLUSIVE) != 0) && ...);
}

/* ---- blocks side by side ----------------------------------------------------- */

/* A loop whose SIMD blocks run several plan blocks side by side: only direct
   dats and globals in local copies, at least one of them a reduction
   (OP_INC, OP_MIN, OP_MAX). A reduction in element order is a chain of
   dependent additions (or comparisons), one per element, which no vector
   unit shortens; the chains of different blocks are independent (each block
   has its own slot, combined in block order by the library), so running
   up to 4 blocks. SIMD blocks alternately lets the core overlap their
   chains: aero's dotPV and dotR (issue 26). Every block's sum is still in
   its own element order. */
template <class Info, std::size_t I, typename T> constexpr bool side_by_side_arg() {
  using R = lane_role<Info, I, T>;
  return R::d.kind == OP2_VIEW_KIND_DIRECT ||
         (R::d.kind == OP2_VIEW_KIND_GLOBAL && R::D::local && !R::lane_sum);
}
template <class Info, std::size_t I> constexpr bool reduces() {
  constexpr arg_desc d = desc_of<Info, I>::d;
  return d.kind == OP2_VIEW_KIND_GLOBAL && (d.acc == OP_INC || d.acc == OP_MIN || d.acc == OP_MAX);
}
/* Bytes of direct dats an element moves (written ones twice: read for
   ownership, written back). */
template <class Info, std::size_t I, typename T> constexpr long stream_bytes() {
  using R = lane_role<Info, I, T>;
  if constexpr (R::d.kind == OP2_VIEW_KIND_DIRECT)
    return (long)R::d.dim * (long)sizeof(typename R::E) * (R::d.acc == OP_READ ? 1 : 2);
  else
    return 0;
}
/* Loops that move more than this per element are bound by memory, not by
   their reduction's chain (about one dependent addition per element: some 3
   cycles, in which a core streams about 16-32 bytes); side by side they
   only stream more arrays at once (airfoil's update, 168 bytes: 10-30%
   slower; aero's dotR and dotPV, 8 and 16 bytes: faster). */
constexpr long kSideBySideBytes = 32;
template <class Info, typename... T, std::size_t... I>
constexpr bool side_by_side(std::index_sequence<I...> is) {
  return OP2_RS_SIDE_BY_SIDE && simd_applies<Info, T...>(is) &&
         (side_by_side_arg<Info, I, T>() && ...) && (reduces<Info, I>() || ...) &&
         (0 + ... + stream_bytes<Info, I, T>()) <= kSideBySideBytes;
}

/* Argument I's lane pointer for element n: a direct dat's values from the
   base p; a global: its local copy (as ptr() gives it). */
template <class Info, std::size_t I, typename T, typename P>
OP2_RS_INLINE P *elem_at(P *p, long n) {
  using R = lane_role<Info, I, T>;
  if constexpr (R::d.kind == OP2_VIEW_KIND_DIRECT)
    return p + n * R::d.dim;
  else
    return p;
}

/* The local copies of one range's globals (the views of that range). */
template <class Info, typename... T, typename... P, std::size_t... I>
OP2_RS_INLINE std::tuple<lane_local<Info, I, T, P>...> locals_of(std::index_sequence<I...>,
                                                                 const op2_arg_view *v, P *...) {
  return std::tuple<lane_local<Info, I, T, P>...>{lane_local<Info, I, T, P>((P *)v[I].data)...};
}
template <class Info, typename... T, typename G, typename... P, std::size_t... I>
OP2_RS_INLINE void store_locals(std::index_sequence<I...>, G &g, const op2_arg_view *v, P *...) {
  (std::get<I>(g).store((P *)v[I].data), ...);
}

/* One SIMD block of one range: the lanes of elements n .. n + kLanes. */
template <auto Kernel, class Info, typename... T, typename G, typename... P, std::size_t... I>
OP2_RS_INLINE void lanes_at(std::index_sequence<I...>, G &g, long n, P *... p) {
  for (int l = 0; l < kLanes; ++l)
    Kernel(lane_arg<Info, I, T>::param(
        lane_arg<Info, I, T>::get(elem_at<Info, I, T>(std::get<I>(g).ptr(p), n), l))...);
}

/* nb SIMD blocks of each of the ranges Ks (starting at elements start[k];
   range k's views at v + k * N), the ranges' blocks taken in turn. Each
   range's calls are those lane_blocks makes for it, in the same order;
   p: the direct dats' bases (the same in every range's views). */
template <auto Kernel, class Info, typename... T, typename... P, std::size_t... I,
          std::size_t... Ks>
OP2_RS_NOINLINE void lane_ranges(std::index_sequence<I...> is, std::index_sequence<Ks...>, long nb,
                                 const op2_arg_view *v, const long *start,
                                 P *OP2_RS_RESTRICT... p) {
  constexpr std::size_t N = sizeof...(I);
  using G = std::tuple<lane_local<Info, I, T, P>...>;
  G g[] = {locals_of<Info, T...>(is, v + Ks * N, (P *)nullptr...)...};
  for (long b = 0; b < nb; ++b)
    (lanes_at<Kernel, Info, T...>(is, g[Ks], start[Ks] + b * kLanes, p...), ...);
  (store_locals<Info, T...>(is, g[Ks], v + Ks * N, (P *)nullptr...), ...);
}

/* Whether ranges 0 .. n can run side by side: each range's views agree with
   the text and allow SIMD blocks, the direct dats are the same in every
   range, and the ranges are of one length, a whole number of SIMD blocks
   (plan blocks are; the last block of a set is shorter and runs alone). */
template <class Info, typename... T, std::size_t... I>
inline bool ranges_fit(const op2_arg_view *v, int n, const int *bounds, std::index_sequence<I...> is) {
  constexpr std::size_t N = sizeof...(I);
  const long len = (long)bounds[1] - bounds[0];
  if (n < 2 || n > OP2_MAX_RANGES || len < kLanes || len % kLanes != 0)
    return false;
  for (int k = 0; k < n; ++k) {
    const op2_arg_view *w = v + k * N;
    if ((long)bounds[2 * k + 1] - bounds[2 * k] != len || !all_agree<Info, T...>(w, is) ||
        !simd_views_ok<Info>(w, is))
      return false;
    if (((desc_of<Info, I>::d.kind == OP2_VIEW_KIND_DIRECT && w[I].data != v[I].data) || ...))
      return false;
  }
  return true;
}

template <auto Kernel, class Info, std::size_t K, typename... T, std::size_t... I>
OP2_RS_INLINE void run_side_by_side(const op2_arg_view *v, const int *bounds,
                                    std::index_sequence<I...> is) {
  long start[K];
  for (std::size_t k = 0; k < K; ++k)
    start[k] = bounds[2 * k];
  const long nb = ((long)bounds[1] - bounds[0]) / kLanes;
  OP2_RS_COUNT_N(1, K);
  OP2_RS_COUNT_N(2, nb * (long)K);
  OP2_RS_COUNT_N(3, K);
  lane_ranges<Kernel, Info, T...>(is, std::make_index_sequence<K>{}, nb, v, start,
                                  (typename lane_role<Info, I, T>::E *)v[I].data...);
}

/* ---- prefetching ------------------------------------------------------------- */

constexpr long kPrefetchAhead = (long)OP2_RS_PREFETCH * kLanes;

/* Whether argument I is a direct dat whose values per element are known. */
template <class Info, std::size_t I> constexpr bool streams() {
  using D = desc_of<Info, I>;
  return D::d.kind == OP2_VIEW_KIND_DIRECT && D::owns_base && D::d.dim > 0;
}

/* Loops whose scalar path and gathering SIMD blocks prefetch: those with a
   direct dat (OP2_RS_PREFETCH above). */
template <class Info, std::size_t... I> constexpr bool prefetches(std::index_sequence<I...>) {
  return OP2_RS_PREFETCH > 0 && (streams<Info, I>() || ...);
}

/* Argument I's cache lines of elements [n, n + kLanes), for writing unless
   the loop only reads it. The caller keeps n + kLanes <= the range's end, so
   every address is inside the dat. */
template <class Info, std::size_t I, typename T>
OP2_RS_INLINE void prefetch_block(const cursors<count_of<Info>> &c, long n) {
  if constexpr (streams<Info, I>()) {
    using D = desc_of<Info, I>;
    constexpr long bytes = (long)kLanes * D::d.dim * (long)sizeof(value_t<T>);
    const char *p = (const char *)((const value_t<T> *)c.base[D::d.dslot] + n * D::d.dim);
    for (long o = 0; o < bytes; o += 64)
      OP2_RS_PREFETCH_LINE(p + o, D::d.acc == OP_READ ? 0 : 1);
  }
}

template <class Info, typename... T, std::size_t... I>
OP2_RS_INLINE void prefetch_ahead(const cursors<count_of<Info>> &c, long n, long end,
                                  std::index_sequence<I...>) {
  if constexpr (prefetches<Info>(std::index_sequence<I...>{}))
    if (n + kPrefetchAhead + kLanes <= end)
      (prefetch_block<Info, I, T>(c, n + kPrefetchAhead), ...);
}

/* ---- ranges ------------------------------------------------------------------ */

/* The SIMD blocks of elements [n, end) (at least one); returns where the
   scalar remainder starts. */
template <auto Kernel, class Info, typename... T, typename A, std::size_t... I>
OP2_RS_INLINE long simd_blocks(cursors<sizeof...(I)> &c, A &a, long n, long end,
                               std::index_sequence<I...> is) {
  std::tuple<stage<Info, I, T>...> s;
  (std::get<I>(s).start(), ...);
  if constexpr (!stages_any<Info, T...>(is)) {
    const long nb = (end - n) / kLanes;
    OP2_RS_COUNT_N(2, nb);
    lane_blocks<Kernel, Info, T...>(
        is, nb, block_ptr<Info, I, T>(c, std::get<I>(a), std::get<I>(s), n)...);
    n += nb * kLanes;
    advance<Info>(c, nb * kLanes, is);
  } else {
    for (; n + kLanes <= end; n += kLanes) {
      prefetch_ahead<Info, T...>(c, n, end, is);
      for (int l = 0; l < kLanes; ++l)
        (std::get<I>(s).gather(c, l), ...);
      (std::get<I>(s).zero(), ...);
      OP2_RS_COUNT(2);
      lanes<Kernel, Info, T...>(is, block_ptr<Info, I, T>(c, std::get<I>(a), std::get<I>(s), n)...);
      for (int l = 0; l < kLanes; ++l)
        (std::get<I>(s).scatter(c, l), ...);
      advance<Info>(c, kLanes, is);
    }
  }
  (std::get<I>(s).fold(std::get<I>(a)), ...);
  return n;
}

template <auto Kernel, class Info, bool Simd, typename... T, std::size_t... I>
OP2_RS_INLINE void run(const op2_arg_view *v, long start, long end, std::index_sequence<I...> is) {
  cursors<sizeof...(I)> c;
  init_cursors<Info>(c, v, start, is);
  std::tuple<arg<Info, I, T>...> a;
  (std::get<I>(a).init(v, c, start), ...);
  long n = start;
  if constexpr (Simd)
    if (end - start >= kLanes && simd_views_ok<Info>(v, is))
      n = simd_blocks<Kernel, Info, T...>(c, a, n, end, is);
  /* loops that prefetch: in blocks of kLanes elements, one prefetch each */
  if constexpr (prefetches<Info>(is))
    for (; n + kLanes <= end;) {
      prefetch_ahead<Info, T...>(c, n, end, is);
      for (int l = 0; l < kLanes; ++l, ++n) {
        Kernel(as_param(std::get<I>(a).at(c, n))...);
        advance<Info>(c, 1, is);
      }
    }
  for (; n < end; ++n) {
    Kernel(as_param(std::get<I>(a).at(c, n))...);
    advance<Info>(c, 1, is);
  }
  (std::get<I>(a).finish(v), ...);
}

template <auto Kernel, class Text, typename... T>
void trampoline(const op2_arg_view *views, int start, int end) {
  constexpr std::size_t N = sizeof...(T);
  using Info = parsed<Text, N>;
  using is = std::index_sequence_for<T...>;
  if (all_agree<Info, T...>(views, is{})) {
    OP2_RS_COUNT(1);
    constexpr bool simd = simd_applies<Info, T...>(is{});
    run<Kernel, Info, simd, T...>(views, start, end, is{});
  } else {
    OP2_RS_COUNT(0);
    run<Kernel, parsed<unknown_text, N>, false, T...>(views, start, end, is{});
  }
}

/* Several independent ranges (op2_ranges_fn): side by side where the loop
   and the ranges allow it, else one after the other. */
template <auto Kernel, class Text, typename... T>
void trampoline_ranges(const op2_arg_view *views, int nranges, const int *bounds) {
  constexpr std::size_t N = sizeof...(T);
  using Info = parsed<Text, N>;
  using is = std::index_sequence_for<T...>;
  static_assert(OP2_MAX_RANGES == 4, "trampoline_ranges: runs 2 to 4 ranges side by side");
  if constexpr (side_by_side<Info, T...>(is{})) {
    if (ranges_fit<Info, T...>(views, nranges, bounds, is{})) {
      if (nranges == 4)
        run_side_by_side<Kernel, Info, 4, T...>(views, bounds, is{});
      else if (nranges == 3)
        run_side_by_side<Kernel, Info, 3, T...>(views, bounds, is{});
      else
        run_side_by_side<Kernel, Info, 2, T...>(views, bounds, is{});
      return;
    }
  }
  for (int k = 0; k < nranges; ++k)
    trampoline<Kernel, Text, T...>(views + k * N, bounds[2 * k], bounds[2 * k + 1]);
}

/* The ranges trampoline for loops that run blocks side by side, else NULL
   (the library then runs one block per call). */
template <auto Kernel, class Text, typename... T> constexpr op2_ranges_fn ranges_fn() {
  using Info = parsed<Text, sizeof...(T)>;
  if constexpr (side_by_side<Info, T...>(std::index_sequence_for<T...>{}))
    return &trampoline_ranges<Kernel, Text, T...>;
  else
    return nullptr;
}

} // namespace detail

template <auto Kernel, typename Text, typename... T, typename... A>
void par_loop(Text, void (*)(T *...), char const *name, op_set set, A... args) {
  static_assert(sizeof...(T) == sizeof...(A),
                "op_par_loop: the kernel's number of parameters differs from the number of args");
  static_assert(sizeof...(A) > 0, "op_par_loop: a loop needs at least one argument");
  static_assert((std::is_same<A, op_arg>::value && ...), "op_par_loop: every argument must be an op_arg");
  op_arg a[] = {args...};
  static const int codes[] = {param_code<T>::value...};
  op2_par_loop_ranges_src(&detail::trampoline<Kernel, Text, T...>,
                          detail::ranges_fn<Kernel, Text, T...>(), codes, Text::kernel_name(),
                          Text::file(), name, set, (int)sizeof...(A), a);
}

/* The loop's name, carrying the text of op_par_loop's arguments as a type. */
template <class Text> struct named_loop {
  char const *name;
};
template <class Text> OP2_RS_INLINE named_loop<Text> name_with_text(Text, char const *name) {
  return named_loop<Text>{name};
}

} // namespace op2_rs

#if OP2_RS_PLAIN_PAR_LOOP

/* The plain form: one call into the library per loop, the kernel called
   through a pointer for every element. */
template <typename... T, typename... A>
inline void op_par_loop(void (*kernel)(T *...), char const *name, op_set set, A... args) {
  static_assert(sizeof...(T) == sizeof...(A),
                "op_par_loop: the kernel's number of parameters differs from the number of args");
  static_assert(sizeof...(A) > 0, "op_par_loop: a loop needs at least one argument");
  static_assert((std::is_same<A, op_arg>::value && ...), "op_par_loop: every argument must be an op_arg");
  op_arg a[] = {args...};
  op2_par_loop_c((op2_kernel_fn)kernel, name, set, (int)sizeof...(A), a);
}

#else

/* op_par_loop is a real function template, so that tools which look for calls
   named op_par_loop (OP2's code generator, translator-v2, parses the source
   with libclang) find every loop with its arguments where OP2's headers put
   them: kernel, name, set, args.... The macro below only adds what the
   trampoline needs at compile time: the kernel as a template argument and the
   text of the arguments, folded into the name argument. Both layers are
   inlined away. */
template <auto Kernel, typename Text, typename... T, typename... A>
OP2_RS_INLINE void(op_par_loop)(void (*kernel)(T *...), ::op2_rs::named_loop<Text> name,
                                op_set set, A... args) {
  ::op2_rs::par_loop<Kernel>(Text{}, kernel, name.name, set, args...);
}

#define OP2_RS_STR_(...) #__VA_ARGS__
#define OP2_RS_STR(...) OP2_RS_STR_(__VA_ARGS__)

/* The text of the arguments (macros expanded) travels as a type. */
#define op_par_loop(kernel, name, ...)                                                            \
  op_par_loop<kernel>(kernel,                                                                     \
                      ::op2_rs::name_with_text(                                                   \
                          [] {                                                                    \
                            struct op2_rs_args {                                                  \
                              static constexpr const char *text() {                               \
                                return OP2_RS_STR(name, __VA_ARGS__);                             \
                              }                                                                   \
                              static constexpr const char *op_id() { return OP2_RS_STR(OP_ID); }  \
                              static constexpr const char *kernel_name() { return #kernel; }      \
                              static constexpr const char *file() { return __FILE__; }            \
                            };                                                                    \
                            return op2_rs_args{};                                                 \
                          }(),                                                                    \
                          name),                                                                  \
                      __VA_ARGS__)

#endif /* OP2_RS_PLAIN_PAR_LOOP */

#else /* C */

#define op_par_loop(kernel, name, set, ...)                                                       \
  op2_par_loop_c_src((op2_kernel_fn)(kernel), #kernel, __FILE__, name, set,                     \
                     (int)(sizeof((op_arg[]){__VA_ARGS__}) / sizeof(op_arg)),                     \
                     (op_arg[]){__VA_ARGS__})

#endif /* __cplusplus */

#endif /* __OP_SEQ_H */
