#!/usr/bin/env bash
# bench_renumber.sh -- what op_renumber gains on airfoil: the 721,200-cell
# O-grid with the generator's numbering, the same mesh numbered at random
# (--shuffle), and the shuffled mesh reordered by op_renumber(pecell)
# (--shuffle --renumber), with libop2_seq and libop2_openmp.  See
# BENCHMARKS.md, "op_renumber".
#
# Environment (defaults): NI, NJ O-grid [1202 x 600]; ITERS time steps [50];
# ROUNDS [3]: each round runs every configuration once, in a rotated order;
# THREADS for libop2_openmp [2]; SEED of the shuffle [7]; CARGO_BUILD [1].
# Prints each run's "Max total runtime" (the time-marching loop only; the
# one-off cost of op_renumber is printed separately) and, per library, the
# median over rounds and each configuration's ratio to the generator's
# numbering, as the median of the per-round ratios.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NI=${NI:-1202}
NJ=${NJ:-600}
ITERS=${ITERS:-50}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
SEED=${SEED:-7}
CARGO_BUILD=${CARGO_BUILD:-1}
OP2_LIBDIR=${OP2_LIBDIR:-target/release}
OUT=target/bench-renumber
mkdir -p "$OUT/logs"

if [ "$CARGO_BUILD" = 1 ]; then
  cargo build --release -p libop2-seq -p libop2-openmp
fi
CXXFLAGS="-O3 -Wall -Wextra -std=c++17"
gcc -O3 -Wall -Wextra -std=c99 -pedantic -c c-examples/common/naca_mesh.c -o "$OUT/naca_mesh.o"
for lib in seq openmp; do
  g++ $CXXFLAGS -Iinclude -Ic-examples/common -Ic-examples/airfoil \
    c-examples/airfoil/airfoil.cpp "$OUT/naca_mesh.o" \
    "$OP2_LIBDIR/libop2_$lib.a" -lpthread -ldl -lm -o "$OUT/airfoil_$lib"
done

declare -A ARGS=(
  [original]=""
  [shuffled]="--shuffle=$SEED"
  [renumbered]="--shuffle=$SEED --renumber"
)
CONFIGS=(original shuffled renumbered)
LIBS=(seq openmp)
: >"$OUT/times.txt"
for round in $(seq 1 "$ROUNDS"); do
  n=${#CONFIGS[@]}
  for k in $(seq 0 $((n - 1))); do
    cfg=${CONFIGS[$(((k + round) % n))]}
    for lib in "${LIBS[@]}"; do
      log="$OUT/logs/$lib-$cfg-$round.log"
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=$THREADS "$OUT/airfoil_$lib" --ni="$NI" --nj="$NJ" \
        --iters="$ITERS" ${ARGS[$cfg]} >"$log"
      t=$(awk '/Max total runtime/ {print $NF}' "$log")
      r=$(awk '/op_renumber took/ {print $3}' "$log")
      echo "$round $lib $cfg $t ${r:--}" | tee -a "$OUT/times.txt"
    done
  done
done

python3 - "$OUT/times.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
t = {(int(r[0]), r[1], r[2]): float(r[3]) for r in rows}
ren = [float(r[4]) for r in rows if r[4] != "-"]
rounds = sorted({k[0] for k in t})
for lib in ("seq", "openmp"):
    print(f"{lib}:")
    for cfg in ("original", "shuffled", "renumbered"):
        med = statistics.median(t[(r, lib, cfg)] for r in rounds)
        ratio = statistics.median(t[(r, lib, cfg)] / t[(r, lib, "original")] for r in rounds)
        print(f"  {cfg:10s} median {med:8.3f} s   x{ratio:.3f} of original")
    gain = statistics.median(t[(r, lib, "shuffled")] / t[(r, lib, "renumbered")] for r in rounds)
    print(f"  shuffled / renumbered: {gain:.2f}")
if ren:
    print(f"op_renumber itself: median {statistics.median(ren):.3f} s")
PY
