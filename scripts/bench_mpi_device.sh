#!/usr/bin/env bash
# bench_mpi_device.sh -- c-examples' airfoil_mpi over MPI ranks with every
# loop on the OpenCL device (libop2_mpi_opencl) against the host library
# (libop2_mpi, threads), the same source and object, rounds alternating.
# Prints per run the wall time, the program's "Max total runtime" and rank
# 0's device-to-host figures from the transfer report (OP2_RS_DEVICE_STATS),
# and checks every run's rms history against the first host run's.
#
#   scripts/bench_mpi_device.sh
#
# Environment [defaults]: CELLS [200000], ITERS [50], PART [PARMETIS: our
# k-way; RANDOM makes most cells halo cells], NP [2], ROUNDS [2],
# OP2_LIBDIR [target/release, built first by cargo], BEFORE [unset: a
# second libop2_mpi_opencl.a, e.g. one kept from an older commit, run as
# "before" in each round], OUT [target/bench-mpi-device].
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CELLS=${CELLS:-200000}
ITERS=${ITERS:-50}
PART=${PART:-PARMETIS}
NP=${NP:-2}
ROUNDS=${ROUNDS:-2}
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
OUT=${OUT:-$ROOT/target/bench-mpi-device}
mkdir -p "$OUT/cache"
rm -f "$OUT"/*.rms "$OUT"/*.log

if [ "$OP2_LIBDIR" = "$ROOT/target/release" ]; then
  cargo build --release -q -p libop2-mpi -p libop2-mpi-opencl
fi
FLAGS=(-O3 -ffp-contract=off -DOMPI_SKIP_MPICXX -I"$ROOT/include"
  -I"$ROOT/c-examples/common" -I"$ROOT/c-examples/airfoil")
gcc -std=c99 -O2 -c "$ROOT/c-examples/common/naca_mesh.c" -o "$OUT/naca_mesh.o"
build() { # NAME ARCHIVE
  mpicxx "${FLAGS[@]}" "$ROOT/c-examples/airfoil/airfoil_mpi.cpp" "$OUT/naca_mesh.o" "$2" \
    -lpthread -ldl -lm -o "$OUT/$1"
}
build host "$OP2_LIBDIR/libop2_mpi.a"
build device "$OP2_LIBDIR/libop2_mpi_opencl.a"
KINDS=(device host)
if [ -n "${BEFORE:-}" ]; then
  build before "$BEFORE"
  KINDS=(before device host)
fi

run() { # KIND ROUND
  local tag=$1.$2 t0 t1
  t0=$(date +%s.%N)
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$NP" -x OMP_NUM_THREADS=1 \
    -x OP2_RS_CACHE_DIR="$OUT/cache" -x OP2_RS_KERNEL_PATH="$ROOT/c-examples/airfoil" \
    -x OP2_RS_DEVICE_STATS=1 "$OUT/$1" --cells="$CELLS" --iters="$ITERS" --part="$PART" \
    --rms="$OUT/$tag.rms" > "$OUT/$tag.log" 2>&1
  t1=$(date +%s.%N)
  local moved
  moved=$(grep -m1 'device transfers:' "$OUT/$tag.log" | tr ' ' '\n' |
    grep -E '^(dat_downloads|halo_downloads)(_bytes)?=' | tr '\n' ' ' || true)
  printf '%-7s round %s  wall %6.2f s  %s  %s\n' "$1" "$2" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    "$(grep -m1 'Max total runtime' "$OUT/$tag.log" | tr -s ' ')" "${moved:--}"
}

echo "airfoil_mpi, $CELLS cells, $ITERS steps, $NP ranks, --part=$PART ($(date -u +%FT%TZ), $(git rev-parse --short HEAD))"
for r in $(seq 1 "$ROUNDS"); do
  for k in "${KINDS[@]}"; do run "$k" "$r"; done
done
# every run's rms history against the first host run's (relative difference)
for f in "$OUT"/*.rms; do
  awk -v ref="$OUT/host.1.rms" -v f="$(basename "$f")" '
    BEGIN { while ((getline l < ref) > 0) { split(l, a, " "); want[a[1]] = a[2] } }
    { d = $2 - want[$1]; if (d < 0) d = -d; r = want[$1] != 0 ? d / (want[$1] < 0 ? -want[$1] : want[$1]) : d
      if (r > max) max = r; n++ }
    END { printf "%-16s %d rms lines, max relative difference to host.1: %.2g\n", f, n, max }' "$f"
done
