#!/usr/bin/env bash
# bench_device_host.sh -- the host's time per device loop call of
# libop2_cuda: c-examples' airfoil (op_seq.h, unchanged) on the CUDA
# emulator with OP2EMU_SKIP=1, so kernels take no time and what is left is
# the library's work around each launch (arguments, checks, plan look-up,
# parameters, reductions combined on the host) plus the emulated driver's
# (a few hash look-ups per call). On a GPU that time is added to every
# launch of a small kernel and decides how close op_seq.h loops come to
# OP2's translated code on a large mesh.
#
#   scripts/bench_device_host.sh [BASE_LIBDIR]
#
# For each mesh size (CELLS [200 720000]) and library (this tree's
# target/release, and BASE_LIBDIR's libop2_cuda.so when given, e.g. a
# worktree of an older commit): the time loop of ITERS_A [200] and ITERS_B
# [5200] iterations, the best of ROUNDS [3] runs each, alternating the
# libraries; the difference over ITERS_B - ITERS_A iterations is the time
# per iteration without the first iteration's plans and compiles. An
# iteration of airfoil is 9 loop calls (save_soln, then adt_calc,
# res_calc, bres_calc, update twice); update reduces a global.
# The answers are wrong (no kernel runs): this measures time only.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BASE=${1:-}
CELLS=${CELLS:-200 720000}
ITERS_A=${ITERS_A:-200}
ITERS_B=${ITERS_B:-5200}
ROUNDS=${ROUNDS:-3}
W=$ROOT/target/bench-device-host
mkdir -p "$W/cache" "$W/lib"

cargo build --release -q -p libop2-cuda
EMU=$(scripts/cuda_emu.sh)
cp target/release/libop2_cuda.so "$W/lib/"
gcc -std=c99 -O2 -Wall -Wextra -c -I c-examples/common c-examples/common/naca_mesh.c -o "$W/naca_mesh.o"
# no rpath: LD_LIBRARY_PATH picks the library under test
g++ -std=c++17 -O2 -Wall -Wextra -I include -I c-examples/common -I c-examples/airfoil \
  c-examples/airfoil/airfoil.cpp "$W/naca_mesh.o" -L "$W/lib" -lop2_cuda -lm -o "$W/airfoil"
libs=("$W/lib")
if [ -n "$BASE" ]; then
  [ -s "$BASE/libop2_cuda.so" ] || {
    echo "bench_device_host: no libop2_cuda.so in $BASE" >&2
    exit 1
  }
  mkdir -p "$W/base"
  cp "$BASE/libop2_cuda.so" "$W/base/"
  libs+=("$W/base")
fi

run() { # LIBDIR CELLS ITERS: the time loop's seconds
  (cd "$W" && LD_LIBRARY_PATH="$EMU:$1" OP2EMU_SKIP=1 OP2_RS_CACHE_DIR="$W/cache" \
    OP2_RS_KERNEL_PATH="$ROOT/c-examples/airfoil" ./airfoil --cells="$2" --iters="$3") |
    sed -n 's/^Max total runtime = //p'
}
declare -A best
for c in $CELLS; do
  for _ in $(seq "$ROUNDS"); do
    for l in "${libs[@]}"; do
      for n in "$ITERS_A" "$ITERS_B"; do
        t=$(run "$l" "$c" "$n")
        k="$l $c $n"
        best[$k]=$(awk -v a="${best[$k]:-1e9}" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
      done
    done
  done
done
printf '%-10s %-44s %14s %18s\n' cells library 'us/iteration' 'us/loop call'
for c in $CELLS; do
  for l in "${libs[@]}"; do
    a=${best["$l $c $ITERS_A"]} b=${best["$l $c $ITERS_B"]}
    name=this
    [ "$l" = "$W/base" ] && name="base ($BASE)"
    awk -v a="$a" -v b="$b" -v n=$((ITERS_B - ITERS_A)) -v c="$c" -v name="$name" \
      'BEGIN { printf "%-10s %-44s %14.1f %18.2f\n", c, substr(name, 1, 44), (b - a) / n * 1e6, (b - a) / n / 9 * 1e6 }'
  done
done
