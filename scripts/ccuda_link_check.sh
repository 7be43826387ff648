#!/usr/bin/env bash
# shellcheck disable=SC2054 # commas inside -Xcompiler / -Wl, options are meant
# ccuda_link_check.sh -- OP2's airfoil translated for OP2's `c_cuda` target
# (run-time-compiled CUDA) against op2-rs's include/, compiled, linked with
# libop2_cuda, and run to the no-device stop; plus the JIT form of every
# kernel compiled with NVRTC (no GPU needed).
#
#   scripts/ccuda_link_check.sh OP2_COMMON_DIR
#
# OP2_COMMON_DIR: an OP2-Common work tree (a git checkout: the translator runs
# `git describe`). Nothing of it is written or committed here; the app and the
# generated code go to target/ccuda-link-check/.
#
# 1. Own headers: a file including extern/incbin.h, op_f2c_prelude.h and
#    op_f2c_helpers.h compiles with nvcc warning-free (-Werror); the prelude
#    also with g++.
# 2. Translate apps/c/airfoil/airfoil_plain/dp/airfoil.cpp with translator-v2
#    (-t c_cuda -I include/). Python: $OP2_TRANSLATOR_PYTHON, else
#    target/op2bench/venv/bin/python, else a venv made in the output folder
#    (jinja2 fparser pcpp sympy libclang==18.1.1 from PyPI).
# 3. Compile: op2_kernels.cu with nvcc (-arch=sm_90 -std=c++17 -O3
#    --expt-relaxed-constexpr -DOP2_CUDA), airfoil.cpp with g++. Warnings of
#    the generated code are not errors.
# 4. Symbols: what the objects need beyond the C/C++ runtime and the static
#    CUDA runtime (must all come from libop2_cuda); no driver-API (cu*) or
#    NVRTC symbol may be among them (the helpers dlopen those).
# 5. Link with target/release/libop2_cuda.a (or $OP2_LIBDIR), then with
#    libop2_cuda.so, and the same with libop2_mpi_cuda (mpicxx; run as one
#    process) when built, each plus -lcudart_static -lpthread -ldl -lrt -lm (no
#    -lcuda, no -lnvrtc); no undefined or duplicate symbols. Run: without a
#    driver the program must exit 1 with one stderr line "OP2 error in op_init:
#    no CUDA driver ..."; with one it must get past op_init (airfoil then needs
#    new_grid.dat in the run folder: set AIRFOIL_GRID to its path).
# 6. JIT: each kernel's source (the raw string in the generated file) with its
#    parameters baked in, compiled by NVRTC for sm_90 through
#    tests/cuda/ccuda_jit_check.cpp (which uses the helpers' own functions).
#
# Uses $CUDA_HOME/bin/nvcc if set, otherwise scripts/cuda_toolkit.sh.
# Exit status: 0 if every step passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OP2=${1:-}
if [ -z "$OP2" ] || [ ! -d "$OP2/translator-v2" ]; then
  echo "usage: $0 OP2_COMMON_DIR" >&2
  exit 2
fi
OP2=$(cd "$OP2" && pwd)

if [ -z "${CUDA_HOME:-}" ] || [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
  eval "$(scripts/cuda_toolkit.sh env)" || { echo "ccuda_link_check: no CUDA toolkit" >&2; exit 2; }
fi
NVCC="$CUDA_HOME/bin/nvcc"
CUDA_LIB="$CUDA_HOME/lib"
[ -d "$CUDA_HOME/lib64" ] && CUDA_LIB="$CUDA_HOME/lib64"
CXX=${CXX:-g++}
OUT=$ROOT/target/ccuda-link-check
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
mkdir -p "$OUT"

NVFLAGS=(-arch=sm_90 -std=c++17 -O3 --expt-relaxed-constexpr -DOP2_CUDA -I "$ROOT/include")
STRICT=(-Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror)
CXXFLAGS=(-std=c++17 -O2 -I "$ROOT/include")
LINK_CUDA=(-L "$CUDA_LIB" -lcudart_static -lpthread -ldl -lrt -lm)

fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
pass() { echo "ok   $*"; }
run_step() { # description, command...
  local what=$1; shift
  local log; log=$(mktemp)
  if "$@" >"$log" 2>&1; then pass "$what"; else fail "$what"; tail -30 "$log" | sed 's/^/     /'; fi
  rm -f "$log"
}

# ---- 1. own headers ------------------------------------------------------------
echo "== headers"
cat >"$OUT/hdr.cu" <<'EOF'
#define INCBIN_STYLE INCBIN_STYLE_SNAKE
#define INCBIN_PREFIX
#include <extern/incbin.h>
#define OP_F2C_PRELUDE op2_rs_hdr_prelude
#define OP_F2C_PRELUDE_DATA op2_rs_hdr_prelude_data
INCTXT(OP_F2C_PRELUDE, "op_f2c_prelude.h");
#include <op_f2c_prelude.h>
#include <op_f2c_helpers.h>
static __constant__ double c_d;
double c_h = 1.0;
extern "C" __global__ void hdr_kernel(double *x, int n) {
  if (threadIdx.x < n) x[threadIdx.x] = c_d + op::f2c::round32(n);
}
void hdr_launch(double *x, int n) {
  static op::f2c::KernelInfo info("hdr_kernel", (const void *)hdr_kernel, "");
  static uint64_t h = 0;
  info.add_param("c_d", &c_h, &c_d, &h);
  auto cfg = info.get_launch_config(nullptr, n);
  auto *k = info.get_kernel();
  void *args[] = {&x, &n};
  info.invoke(k, 1, std::get<1>(cfg), args, args);
}
EOF
run_step "nvcc: incbin.h + op_f2c_prelude.h + op_f2c_helpers.h (-Werror)" \
  "$NVCC" "${NVFLAGS[@]}" "${STRICT[@]}" -c "$OUT/hdr.cu" -o "$OUT/hdr.o"
printf '#include "op_f2c_prelude.h"\nstatic_assert(op::f2c::round32(33) == 64, "");\n' >"$OUT/prelude.cpp"
run_step "$CXX: op_f2c_prelude.h (-Werror)" "$CXX" -std=c++17 -Wall -Wextra -Werror \
  -I "$ROOT/include" -c "$OUT/prelude.cpp" -o "$OUT/prelude.o"

# ---- 2. translate airfoil ------------------------------------------------------
echo "== translate"
PY=${OP2_TRANSLATOR_PYTHON:-}
[ -z "$PY" ] && [ -x "$ROOT/target/op2bench/venv/bin/python" ] && PY=$ROOT/target/op2bench/venv/bin/python
if [ -z "$PY" ]; then
  if [ ! -x "$OUT/venv/bin/python" ]; then
    python3 -m venv "$OUT/venv" && "$OUT/venv/bin/pip" install -q jinja2 fparser pcpp sympy libclang==18.1.1
  fi
  PY=$OUT/venv/bin/python
fi
APP=$OUT/airfoil
rm -rf "$APP"
mkdir -p "$APP/gen"
cp "$OP2"/apps/c/airfoil/airfoil_plain/dp/*.cpp "$OP2"/apps/c/airfoil/airfoil_plain/dp/*.h "$APP/"
run_step "translate airfoil (c_cuda)" env PYTHONDONTWRITEBYTECODE=1 "$PY" "$ROOT/scripts/op2_translator_shim.py" \
  "$OP2" -I "$ROOT/include" -t c_cuda "$APP/airfoil.cpp" -o "$APP/gen"
GEN=$APP/gen
if [ ! -e "$GEN/c_cuda/op2_kernels.cu" ] || ! ls "$GEN"/c_cuda/*_kernel.h >/dev/null 2>&1; then
  fail "translator produced no c_cuda loops"
  echo "== $fails failure(s)"; exit 1
fi
echo "   $(ls "$GEN"/c_cuda/*_kernel.h | wc -l) loops"

# ---- 3. compile ----------------------------------------------------------------
echo "== compile"
run_step "nvcc op2_kernels.cu" "$NVCC" "${NVFLAGS[@]}" -I "$GEN/c_cuda" -c "$GEN/c_cuda/op2_kernels.cu" -o "$APP/kernels.o"
run_step "$CXX airfoil.cpp" "$CXX" "${CXXFLAGS[@]}" -I "$APP" -c "$GEN/airfoil.cpp" -o "$APP/airfoil.o"

# ---- 4. symbols ----------------------------------------------------------------
echo "== symbols"
if [ -e "$APP/kernels.o" ] && [ -e "$APP/airfoil.o" ]; then
  {
    for f in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1; do
      nm -D --defined-only "$($CXX -print-file-name=$f)" 2>/dev/null
    done | awk '{print $NF}' | sed 's/@.*//'
    nm --defined-only "$CUDA_LIB/libcudart_static.a" 2>/dev/null | awk 'NF == 3 {print $3}'
    printf '%s\n' _GLOBAL_OFFSET_TABLE_ __dso_handle atexit
  } | sort -u >"$APP/system.syms"
  nm -u "$APP/kernels.o" "$APP/airfoil.o" | awk 'NF >= 2 {print $NF}' | sed 's/@.*//' | sort -u >"$APP/undef"
  nm --defined-only -g "$APP/kernels.o" "$APP/airfoil.o" | awk 'NF == 3 {print $3}' | sort -u >"$APP/def"
  comm -23 "$APP/undef" "$APP/def" | comm -23 - "$APP/system.syms" >"$APP/needed"
  echo "-- from the library ($(wc -l <"$APP/needed")):"
  column -c 100 "$APP/needed" 2>/dev/null || cat "$APP/needed"
  if grep -Eq '^(cu[A-Z]|nvrtc)' "$APP/needed"; then
    fail "driver-API / NVRTC symbols needed at link time: $(grep -E '^(cu[A-Z]|nvrtc)' "$APP/needed" | tr '\n' ' ')"
  else
    pass "no driver-API or NVRTC symbol needed at link time"
  fi
fi

# ---- 5. link and run -----------------------------------------------------------
echo "== link and run"
check_run() { # binary
  local out err rc nerr dir
  out=$(mktemp); err=$(mktemp); dir=$APP/run
  mkdir -p "$dir"
  [ -n "${AIRFOIL_GRID:-}" ] && ln -sf "$AIRFOIL_GRID" "$dir/new_grid.dat"
  (cd "$dir" && timeout 600 "$1") >"$out" 2>"$err"; rc=$?
  nerr=$(wc -l <"$err")
  if [ $rc -eq 1 ] && [ "$nerr" -eq 1 ] && grep -q '^OP2 error in op_init: no CUDA driver' "$err"; then
    pass "run $(basename "$1"): clean no-device stop (status 1): $(cat "$err")"
  elif [ $rc -eq 0 ]; then
    pass "run $(basename "$1"): status 0 (device present)"; tail -5 "$out" | sed 's/^/     /'
  else
    fail "run $(basename "$1"): status $rc, $nerr stderr line(s)"
    tail -10 "$out" | sed 's/^/     stdout: /'; tail -10 "$err" | sed 's/^/     stderr: /'
  fi
  rm -f "$out" "$err"
}
link_and_run() { # library, linker
  local lib=$1 cxx=$2 kind libargs exe log
  [ -e "$OP2_LIBDIR/lib$lib.a" ] || { echo "skip lib$lib: $OP2_LIBDIR/lib$lib.a not built"; return; }
  command -v "$cxx" >/dev/null || { echo "skip lib$lib: no $cxx"; return; }
  for kind in static shared; do
    if [ $kind = static ]; then libargs=("$OP2_LIBDIR/lib$lib.a"); else
      libargs=(-L "$OP2_LIBDIR" -Wl,-rpath,"$OP2_LIBDIR" -l"$lib"); fi
    exe=$APP/airfoil_c_cuda_${lib}_$kind; log=$(mktemp)
    if "$cxx" "$APP/airfoil.o" "$APP/kernels.o" "${libargs[@]}" "${LINK_CUDA[@]}" -o "$exe" >"$log" 2>&1; then
      pass "link airfoil (c_cuda) against lib$lib ($kind)"
      check_run "$exe"
    else
      fail "link airfoil (c_cuda) against lib$lib ($kind)"
      grep -Eo "(undefined reference to|multiple definition of) \`[^']*'" "$log" | sort -u | sed 's/^/     /'
      grep -Ev "undefined reference|multiple definition" "$log" | tail -5 | sed 's/^/     /'
    fi
    rm -f "$log"
  done
}
if [ -e "$APP/kernels.o" ] && [ -e "$APP/airfoil.o" ]; then
  link_and_run op2_cuda "$CXX"
  link_and_run op2_mpi_cuda "${MPICXX:-mpicxx}" # one process: an MPI singleton
fi

# ---- 6. JIT sources through NVRTC ------------------------------------------------
echo "== JIT (NVRTC, sm_90)"
run_step "$CXX tests/cuda/ccuda_jit_check.cpp" "$CXX" -std=c++17 -O1 -Wall -Wextra -Werror \
  -I "$ROOT/include" -I "$CUDA_HOME/include" tests/cuda/ccuda_jit_check.cpp -ldl -o "$OUT/ccuda_jit_check"
# The parameter list of one loop: TYPE:NAME[:N]=VALUE for ccuda_jit_check.
jit_params() { # kernel header
  local h=$1 name c decl
  for name in $(grep -o 'info\.add_param("[A-Za-z0-9_]*"' "$h" | sed 's/.*("//; s/"$//'); do
    case $name in
      op2_const_*_d)
        c=${name#op2_const_}; c=${c%_d}
        decl=$(grep -E "^extern [a-z ]+ $c(\[[0-9]+\])?;" "$GEN/c_cuda/op2_kernels.cu" | head -1)
        local ty; ty=$(echo "$decl" | sed -E 's/^extern ([a-z ]+) [A-Za-z0-9_]+.*/\1/')
        local n; n=$(echo "$decl" | sed -nE 's/.*\[([0-9]+)\];/\1/p')
        echo "$ty:$name${n:+:$n}=1" ;;
      *_stride_d) echo "int:$name=1024" ;;
      *) echo "unsupported:$name=0" ;;
    esac
  done
}
if [ -x "$OUT/ccuda_jit_check" ]; then
  for h in "$GEN"/c_cuda/*_kernel.h; do
    kname=$(grep -o 'KernelInfo info("[A-Za-z0-9_]*"' "$h" | sed 's/.*("//; s/"$//')
    awk '/_src\[\] = R"_op2_k\(/ {f = 1; next} /^\)_op2_k";/ {f = 0} f' "$h" >"$h.src"
    mapfile -t params < <(jit_params "$h")
    run_step "NVRTC $kname" env LD_LIBRARY_PATH="$CUDA_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$OUT/ccuda_jit_check" sm_90 "$kname" "$h.src" "${params[@]}"
  done
fi

echo "== $fails failure(s)"
[ $fails -eq 0 ]
