#!/usr/bin/env bash
# bench_seq_omp.sh -- is libop2_openmp on 2 threads ever slower than
# libop2_seq?  The same unchanged op_seq.h source linked against both
# libraries, alternating runs, paired ratios.  See BENCHMARKS.md
# ("libop2_openmp against libop2_seq, every application").
#
#   scripts/bench_seq_omp.sh
#
# Programs (each linked against libop2_seq.a and libop2_openmp.a):
#   airfoil  c-examples/airfoil/airfoil.cpp on the built-in mesh
#            (--cells=$AIRFOIL_CELLS --iters=$AIRFOIL_ITERS)
#   jac      c-examples/jac/jac.cpp (--n=$JAC_N --iters=$JAC_ITERS):
#            $JAC_N^2 nodes, about 5 $JAC_N^2 matrix entries
#   jac1     OP2-Common's apps/c/jac1/dp/jac.cpp, the binaries
#            target/op2bench/bin/jac_{seq,omp}_rs of scripts/bench_op2.sh
#            (skipped when they are missing).  Its 6 x 6 grid and 2
#            iterations are fixed, so it is timed as a whole process,
#            JAC1_REPS runs back to back per measurement.
# OP2-Common's airfoil and aero (seq_rs against omp_rs_t2) are timed by
# scripts/bench_op2.sh.
#
# Wall time: the program's own clock around its time loop ("Max total
# runtime"), jac1: the whole processes.  Each round runs both libraries of
# every program, in an order that alternates between rounds; the ratio is
# the median over rounds of omp/seq within the round.
#
# Environment: ROUNDS [7], THREADS [2], AIRFOIL_CELLS [721200],
# AIRFOIL_ITERS [30], JAC_N [1000], JAC_ITERS [200], JAC1_REPS [50],
# CARGO_BUILD [1], QUIET_WAIT [0] (seconds to wait for an idle machine
# before each run).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/bench_common.sh
. "$ROOT/scripts/bench_common.sh"

ROUNDS=${ROUNDS:-7}
THREADS=${THREADS:-2}
AIRFOIL_CELLS=${AIRFOIL_CELLS:-721200}
AIRFOIL_ITERS=${AIRFOIL_ITERS:-30}
JAC_N=${JAC_N:-1000}
JAC_ITERS=${JAC_ITERS:-200}
JAC1_REPS=${JAC1_REPS:-50}
CARGO_BUILD=${CARGO_BUILD:-1}
QUIET_WAIT=${QUIET_WAIT:-0}

OUT=target/bench-seq-omp
OP2_LIBDIR=${OP2_LIBDIR:-target/release}
EX=c-examples
CXX=${CXX:-g++}
CC=${CC:-gcc}
CXXFLAGS="-O3 -Wall -Wextra -std=c++17"
SYSLIBS="-lpthread -ldl -lm"
mkdir -p "$OUT/logs"

echo "== build"
if [ "$CARGO_BUILD" = 1 ]; then cargo build --release 2>&1 | tail -n 1; fi
$CC -O3 -Wall -Wextra -std=c99 -I$EX/common -c $EX/common/naca_mesh.c -o $OUT/naca_mesh.o
for lib in seq openmp; do
  $CXX $CXXFLAGS -Iinclude -I$EX/common -I$EX/airfoil $EX/airfoil/airfoil.cpp \
    $OUT/naca_mesh.o $OP2_LIBDIR/libop2_$lib.a $SYSLIBS -o $OUT/airfoil_$lib
  $CXX $CXXFLAGS -Iinclude -I$EX/jac $EX/jac/jac.cpp $OP2_LIBDIR/libop2_$lib.a $SYSLIBS -o $OUT/jac_$lib
done

JAC1_BIN=target/op2bench/bin
PROGRAMS="airfoil jac"
if [ -x $JAC1_BIN/jac_seq_rs ] && [ -x $JAC1_BIN/jac_omp_rs ]; then
  PROGRAMS="$PROGRAMS jac1"
else
  echo "   ($JAC1_BIN/jac_{seq,omp}_rs missing: run scripts/bench_op2.sh build first; jac1 skipped)"
fi

now() { date +%s.%N; }

# time_one PROGRAM LIB LOG: prints the wall seconds of one measurement
time_one() {
  local prog=$1 lib=$2 log=$3 threads=1
  [ "$lib" = openmp ] && threads=$THREADS
  case $prog in
    airfoil)
      OMP_NUM_THREADS=$threads $OUT/airfoil_$lib --cells="$AIRFOIL_CELLS" --iters="$AIRFOIL_ITERS" > "$log"
      awk '/Max total runtime/ { print $NF }' "$log" ;;
    jac)
      OMP_NUM_THREADS=$threads $OUT/jac_$lib --n="$JAC_N" --iters="$JAC_ITERS" > "$log"
      awk '/Max total runtime/ { print $NF }' "$log" ;;
    jac1)
      local bin=$JAC1_BIN/jac_seq_rs t0 t1 k
      [ "$lib" = openmp ] && bin=$JAC1_BIN/jac_omp_rs
      t0=$(now)
      for ((k = 0; k < JAC1_REPS; ++k)); do OMP_NUM_THREADS=$threads $bin > "$log"; done
      t1=$(now)
      awk -v a="$t0" -v b="$t1" -v n="$JAC1_REPS" 'BEGIN { printf "%.6f\n", (b - a) / n }' ;;
  esac
}

echo "== $ROUNDS rounds; libop2_openmp with OMP_NUM_THREADS=$THREADS; $(nproc) cores"
declare -A T
for ((r = 1; r <= ROUNDS; ++r)); do
  order="seq openmp"
  [ $((r % 2)) = 0 ] && order="openmp seq"
  line="   round $r:"
  for prog in $PROGRAMS; do
    for lib in $order; do
      wait_quiet
      T[$prog,$lib,$r]=$(time_one "$prog" "$lib" "$OUT/logs/${prog}_${lib}_r$r.txt")
      line="$line $prog/$lib ${T[$prog,$lib,$r]}"
    done
  done
  echo "$line"
done

echo "== median wall seconds and the paired ratio openmp($THREADS threads) / seq (median over rounds [range])"
printf '   %-8s %12s %12s %26s\n' program seq openmp "openmp / seq"
for prog in $PROGRAMS; do
  s=$(for ((r = 1; r <= ROUNDS; ++r)); do echo "${T[$prog,seq,$r]}"; done | median)
  o=$(for ((r = 1; r <= ROUNDS; ++r)); do echo "${T[$prog,openmp,$r]}"; done | median)
  ratios=$(for ((r = 1; r <= ROUNDS; ++r)); do
    awk -v a="${T[$prog,openmp,$r]}" -v b="${T[$prog,seq,$r]}" 'BEGIN { printf "%.4f\n", a / b }'
  done)
  rm=$(echo "$ratios" | median)
  lo=$(echo "$ratios" | sort -g | head -n 1)
  hi=$(echo "$ratios" | sort -g | tail -n 1)
  printf '   %-8s %12s %12s %10.3f [%s-%s]\n' "$prog" "$s" "$o" "$rm" "$lo" "$hi"
done
