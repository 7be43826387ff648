#!/usr/bin/env bash
# cuda_link_check.sh -- build the CUDA test programs of tests/cuda (code in the
# form OP2's translator-v2 gives its `cuda` target) against include/, and check
# them against libop2_cuda / libop2_mpi_cuda.
#
#   scripts/cuda_link_check.sh
#
# 1. Headers: each of op_gpu_shims.h, op_cuda_rt_support.h, op_cuda_reduction.h
#    compiles on its own with nvcc, and op_cuda_rt_support.h with g++.
# 2. Compile (one job at a time): every tests/cuda/*_kernels.cu with nvcc, every
#    host .cpp with g++ (mpicxx for t5_mpi_*), warnings as errors.
# 3. Symbols the objects need from the library: undefined symbols of each
#    program's objects, less what the objects define themselves and what the
#    C/C++ runtime, libm, MPI and the static CUDA runtime define. Also listed:
#    what the objects define that the library must NOT define
#    (op_decl_const_char belongs to the generated kernels file).
# 4. When target/release/libop2_cuda.a (or $OP2_LIBDIR/...) (libop2_mpi_cuda.a for MPI) exists: link,
#    report undefined / multiply defined symbols, and run each program. With a
#    GPU a program must print "PASS <name>" and exit 0; without one it must exit
#    non-zero with one line on stderr saying "no CUDA driver" or "no CUDA device".
#
# Uses $CUDA_HOME/bin/nvcc if set, otherwise scripts/cuda_toolkit.sh (which
# installs nvcc 13.0 from PyPI on first use). Output in target/cuda-link-check/.
# Exit status: 0 if every step that ran passed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

if [ -z "${CUDA_HOME:-}" ] || [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
  eval "$(scripts/cuda_toolkit.sh env)" || { echo "cuda_link_check: no CUDA toolkit" >&2; exit 2; }
fi
NVCC="$CUDA_HOME/bin/nvcc"
CUDA_LIB="$CUDA_HOME/lib"
[ -d "$CUDA_HOME/lib64" ] && CUDA_LIB="$CUDA_HOME/lib64"
CXX=${CXX:-g++}
MPICXX=${MPICXX:-mpicxx}
OUT=$ROOT/target/cuda-link-check
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
mkdir -p "$OUT"

NVFLAGS=(-arch=sm_90 -std=c++17 -O3 --expt-relaxed-constexpr -DOP2_CUDA -I "$ROOT/include"
  -I "$ROOT/tests/cuda" -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror)
CXXFLAGS=(-std=c++17 -O2 -Wall -Wextra -Werror -DOP2_CUDA -I "$ROOT/include"
  -I "$CUDA_HOME/include")
LINK_CUDA=(-L "$CUDA_LIB" -lcudart_static -lpthread -ldl -lrt -lm)

fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
pass() { echo "ok   $*"; }

run_step() { # description, command...
  local what=$1; shift
  local log; log=$(mktemp)
  if "$@" >"$log" 2>&1; then pass "$what"; else fail "$what"; sed 's/^/     /' "$log"; fi
  rm -f "$log"
}

# ---- 1. headers on their own ------------------------------------------------
echo "== headers"
for h in op_gpu_shims.h op_cuda_rt_support.h op_cuda_reduction.h; do
  printf '#include "%s"\n' "$h" >"$OUT/hdr_${h%.h}.cu"
  run_step "nvcc: $h alone" "$NVCC" "${NVFLAGS[@]}" -c "$OUT/hdr_${h%.h}.cu" -o "$OUT/hdr_${h%.h}.o"
done
printf '#include "op_cuda_rt_support.h"\n#include "op_lib_cpp.h"\n' >"$OUT/hdr_host.cpp"
run_step "$CXX: op_cuda_rt_support.h + op_lib_cpp.h" "$CXX" "${CXXFLAGS[@]}" -c "$OUT/hdr_host.cpp" -o "$OUT/hdr_host.o"

# ---- 2. compile the test programs ---------------------------------------------
echo "== compile"
tests=()
for k in tests/cuda/t*_kernels.cu; do
  t=$(basename "$k" _kernels.cu)
  tests+=("$t")
  run_step "nvcc $k" "$NVCC" "${NVFLAGS[@]}" -c "$k" -o "$OUT/${t}_kernels.o"
  cxx=$CXX
  case $t in *mpi*) cxx=$MPICXX ;; esac
  run_step "$cxx tests/cuda/$t.cpp" "$cxx" "${CXXFLAGS[@]}" -c "tests/cuda/$t.cpp" -o "$OUT/$t.o"
done

# ---- 3. symbols the library must provide / must not provide -------------------
echo "== symbols"
# Everything the system and CUDA runtimes define (dynamic symbol tables of the
# shared libraries a link pulls in, and the static CUDA runtime).
sys_defined() {
  local libs=() f
  for f in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1; do
    libs+=("$($CXX -print-file-name=$f)")
  done
  for f in $($MPICXX --showme:libdirs 2>/dev/null); do
    [ -e "$f/libmpi.so" ] && libs+=("$f/libmpi.so")
  done
  for f in "${libs[@]}"; do
    [ -e "$f" ] && nm -D --defined-only "$f" 2>/dev/null
  done | awk '{print $NF}' | sed 's/@.*//'
  nm --defined-only "$CUDA_LIB/libcudart_static.a" 2>/dev/null | awk 'NF == 3 {print $3}'
  # provided by the linker and libc_nonshared.a
  printf '%s\n' _GLOBAL_OFFSET_TABLE_ __dso_handle atexit
}
sys_defined | sort -u >"$OUT/system.syms"

: >"$OUT/needed.all"
for t in "${tests[@]}"; do
  objs=("$OUT/$t.o" "$OUT/${t}_kernels.o")
  for o in "${objs[@]}"; do [ -e "$o" ] || continue 2; done
  nm -u "${objs[@]}" | awk 'NF >= 2 {print $NF}' | sed 's/@.*//' | sort -u >"$OUT/$t.undef"
  nm --defined-only -g "${objs[@]}" | awk 'NF == 3 {print $3}' | sort -u >"$OUT/$t.def"
  comm -23 "$OUT/$t.undef" "$OUT/$t.def" | comm -23 - "$OUT/system.syms" >"$OUT/$t.needed"
  cat "$OUT/$t.needed" >>"$OUT/needed.all"
  echo "   $t needs $(wc -l <"$OUT/$t.needed") library symbols"
done
sort -u "$OUT/needed.all" -o "$OUT/needed.all"
echo "-- symbols the library must define (union over tests/cuda, $(wc -l <"$OUT/needed.all")):"
column -c 100 "$OUT/needed.all" 2>/dev/null || cat "$OUT/needed.all"
echo "-- defined by the generated kernels file, so the library must leave undefined:"
nm --defined-only -g "$OUT"/*_kernels.o 2>/dev/null | awk '$2 == "T" {print $3}' |
  grep -v '^op_par_loop_' | grep -v '^_Z' | sort -u | sed 's/^/   /'

# ---- 4. link and run ----------------------------------------------------------
check_run() { # test, binary, run command...
  local t=$1 bin=$2; shift 2
  local out err rc
  out=$(mktemp); err=$(mktemp)
  timeout 120 "$@" "$bin" >"$out" 2>"$err"; rc=$?
  local nerr; nerr=$(wc -l <"$err")
  if [ $rc -eq 0 ] && grep -q "^PASS $t\$" "$out" && ! grep -q '^FAIL' "$out"; then
    pass "run $t (device present: all checks passed)"
  elif [ $rc -ne 0 ] && [ "$nerr" -eq 1 ] && grep -Eq 'no CUDA (driver|device)' "$err" &&
       [ ! -s "$out" ]; then
    pass "run $t: clean no-device exit (status $rc): $(cat "$err")"
  else
    fail "run $t: status $rc, $nerr stderr line(s)"
    sed 's/^/     stdout: /' "$out" | tail -20
    sed 's/^/     stderr: /' "$err" | tail -20
  fi
  rm -f "$out" "$err"
}

link_and_run() { # test, linker, library name: static archive, then shared library
  local t=$1 cxx=$2 lib=$3 kind
  for kind in static shared; do
    local log libargs exe="$OUT/$t-$kind"; log=$(mktemp)
    if [ $kind = static ]; then
      libargs=("$OP2_LIBDIR/lib$lib.a")
    else
      libargs=(-L "$OP2_LIBDIR" -Wl,-rpath,"$OP2_LIBDIR" -l"$lib")
    fi
    if "$cxx" "$OUT/$t.o" "$OUT/${t}_kernels.o" "${libargs[@]}" "${LINK_CUDA[@]}" \
        -o "$exe" >"$log" 2>&1; then
      pass "link $t against lib$lib ($kind)"
      check_run "$t" "$exe" # MPI programs too: one process, MPI singleton
    else
      fail "link $t against lib$lib ($kind)"
      grep -Eo "undefined reference to \`[^']*'" "$log" | sort -u | sed 's/^/     /'
      grep -Eo "multiple definition of \`[^']*'" "$log" | sort -u | sed 's/^/     /'
      grep -Ev "undefined reference|multiple definition" "$log" | tail -5 | sed 's/^/     /'
    fi
    rm -f "$log"
  done
}

echo "== link and run"
for t in "${tests[@]}"; do
  [ -e "$OUT/$t.o" ] && [ -e "$OUT/${t}_kernels.o" ] || continue
  case $t in
    *mpi*) lib=op2_mpi_cuda; cxx=$MPICXX ;;
    *) lib=op2_cuda; cxx=$CXX ;;
  esac
  if [ -e "$OP2_LIBDIR/lib$lib.a" ]; then
    link_and_run "$t" "$cxx" "$lib"
  else
    echo "skip $t: $OP2_LIBDIR/lib$lib.a not built"
  fi
done

echo "== $fails failure(s)"
[ $fails -eq 0 ]
