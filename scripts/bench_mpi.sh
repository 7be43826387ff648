#!/usr/bin/env bash
# bench_mpi.sh -- airfoil_mpi (libop2_mpi) on a large mesh: 1 rank x 1 thread,
# 1 rank x 2 threads, 2 ranks x 1 thread; and the partition quality (edge cut
# of the cell graph, imbalance) and partitioning time of every partitioner.
# See BENCHMARKS.md.
#
# Environment (defaults): NI NJ mesh [1202 x 600 = 721,200 cells], ITERS [50],
# ROUNDS [3] (the table reports the median per configuration).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NI=${NI:-1202}; NJ=${NJ:-600}; ITERS=${ITERS:-50}; ROUNDS=${ROUNDS:-3}
OUT=target/bench-mpi; mkdir -p "$OUT"
MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
OP2_LIBDIR=${OP2_LIBDIR:-target/release}

cargo build --release -p libop2-mpi >/dev/null
make -s -C c-examples build/meshgen build/naca_mesh.o >/dev/null
mpicxx -std=c++17 -O3 -DOMPI_SKIP_MPICXX -Iinclude -Ic-examples/common -Ic-examples/airfoil \
  c-examples/airfoil/airfoil_mpi.cpp c-examples/build/naca_mesh.o "$OP2_LIBDIR/libop2_mpi.a" \
  -lpthread -ldl -lm -o "$OUT/airfoil_mpi"
MESH="$OUT/grid_${NI}x${NJ}.dat"
[ -f "$MESH" ] || c-examples/build/meshgen --ni "$NI" --nj "$NJ" -o "$MESH" >/dev/null

runtime() { grep -E 'Max total runtime|runtime' "$1" | tail -1 | grep -oE '[0-9]+\.[0-9]+' | tail -1; }

echo "mesh $NI x $NJ cells, $ITERS iterations, median of $ROUNDS rounds"
declare -A times
for round in $(seq "$ROUNDS"); do
  for cfg in "1 1" "1 2" "2 1"; do
    set -- $cfg
    log="$OUT/run_${1}x${2}_$round.txt"
    OMP_NUM_THREADS=$2 $MPIRUN -np "$1" "$OUT/airfoil_mpi" "$MESH" --iters="$ITERS" --part=PARMETIS > "$log"
    times["$1x$2"]+="$(runtime "$log") "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-22s %10s\n' "ranks x threads" "seconds"
for k in 1x1 1x2 2x1; do printf '%-22s %10s\n' "$k" "$(echo "${times[$k]}" | median)"; done
t11=$(echo "${times[1x1]}" | median); t12=$(echo "${times[1x2]}" | median); t21=$(echo "${times[2x1]}" | median)
awk -v a="$t11" -v b="$t12" -v c="$t21" 'BEGIN { printf "speed-up 1x2 vs 1x1: %.2f\nspeed-up 2x1 vs 1x1: %.2f\n", a/b, a/c }'
echo
echo "timing table of one 2x1 run (MPI time = halo exchanges + reductions):"
sed -n '/count   plan time/,/Total plan time/p' "$OUT/run_2x1_1.txt"
echo
echo "partition quality, 2 ranks (cells graph through pecell):"
for p in PARMETIS GEOM INERTIAL RANDOM EXTERNAL; do
  $MPIRUN -np 2 "$OUT/airfoil_mpi" "$MESH" --iters=1 --part=$p --diags=1 2>/dev/null | grep 'edge cut' | sed "s/^/$p: /"
done
