#!/usr/bin/env bash
# Partition quality and cost of op_partition("PTSCOTCH", "KWAY", edges,
# pecell, p_x) with op2-rs's libop2_mpi and with OP2's own (built with
# PT-Scotch by scripts/bench_op2.sh build), on the same HDF5 airfoil meshes,
# measured by the same application (c-examples/mpi/partition_quality.cpp:
# OP2's public API only; it counts the cut edges with an op_par_loop).
#
#   CARGO_BUILD=0 [RANKS="2 3 4"] [RUNS=3] scripts/bench_partition_quality.sh [CELLS...]
#
# Needs OP2's libop2_mpi and headers from an earlier
# `scripts/bench_op2.sh build OP2_DIR` (target/op2bench/op2 and op2-src);
# without them only op2-rs's rows are printed. Meshes are shared with
# scripts/bench_partition_memory.sh (target/partmem/mesh_CELLS.h5).
#
# One table row per (mesh, ranks, library): edge cut of the cell graph,
# imbalance (largest rank's cells / mean), halo cells summed over ranks,
# op_partition's wall time (largest rank), peak RSS per rank (max, MiB);
# each the median of RUNS runs, with [min-max] where the runs differ
# (PT-Scotch as Debian builds it is not deterministic unless asked).
# Rows: op2-rs (PT-Scotch, deterministic context), op2-rs with
# OP2_PTSCOTCH_LIB=none (METIS on rank 0), OP2 (PT-Scotch, Debian's build).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CELLS=("$@")
[ ${#CELLS[@]} -gt 0 ] || CELLS=(720000 2880000 11520000)
if [ "${CARGO_BUILD:-1}" != 0 ]; then
  cargo build --release -p libop2-mpi -p libop2-seq -p libop2-hdf5 >&2
fi
W=$ROOT/target/partmem
Q=$ROOT/target/partquality
mkdir -p "$W" "$Q"
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
C=$ROOT/c-examples
SER=/usr/lib/x86_64-linux-gnu/hdf5/serial
PAR=/usr/lib/x86_64-linux-gnu/hdf5/openmpi
OP2B=$ROOT/target/op2bench/op2
OP2INC=$ROOT/target/op2bench/op2-src/op2/include
if [ ! -x "$W/mesh2hdf5" ]; then
  gcc -std=c99 -O2 -c "$C/common/naca_mesh.c" -o "$W/naca_mesh.o"
  g++ -std=c++17 -O2 -I"$ROOT/include" -I"$C/common" -I"$C/airfoil" \
    "$C/hdf5/mesh2hdf5.cpp" "$W/naca_mesh.o" "$OP2_LIBDIR/libop2_hdf5.a" "$OP2_LIBDIR/libop2_seq.a" \
    -L"$SER/lib" -Wl,-rpath,"$SER/lib" -lhdf5 -lpthread -ldl -lm -o "$W/mesh2hdf5"
fi
PROG="$C/mpi/partition_quality.cpp"
mpicxx -DOMPI_SKIP_MPICXX -std=c++17 -O2 -Wall -Wextra -I"$ROOT/include" "$PROG" \
  "$OP2_LIBDIR/libop2_mpi.a" -L"$PAR/lib" -Wl,-rpath,"$PAR/lib" -lhdf5 -lpthread -ldl -lm -o "$Q/pq_rs"
LIBS=(rs rs_metis)
if [ -f "$OP2B/lib/libop2_mpi.a" ] && [ -d "$OP2INC" ]; then
  # OP2's headers warn under -Wextra; its library needs its HDF5 and PT-Scotch
  mpicxx -DOMPI_SKIP_MPICXX -std=c++17 -O2 -I"$OP2INC" "$PROG" "$OP2B/lib/libop2_mpi.a" \
    -L"$PAR/lib" -Wl,-rpath,"$PAR/lib" -lhdf5 -ldl -lm -lz -lptscotch -lscotch -lptscotcherr \
    -o "$Q/pq_op2"
  LIBS+=(op2)
else
  echo "(no OP2 build in target/op2bench: op2-rs rows only)" >&2
fi

# run LIB NP MESH: prints "edge_cut imbalance halo partition_s peak_mib"
run() {
  local lib=$1 np=$2 mesh=$3 prog=$Q/pq_${1%_metis} env=()
  [ "$lib" != rs_metis ] || env=(OP2_PTSCOTCH_LIB=none)
  rm -f "$Q"/peak.*
  env "${env[@]}" mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
    sh -c '/usr/bin/time -f "%M" -o "$0/peak.$OMPI_COMM_WORLD_RANK" "$1" "$2"' "$Q" "$prog" "$mesh" \
    > "$Q/run_$lib.log" 2>&1 || {
    tail -5 "$Q/run_$lib.log" >&2
    return 1
  }
  local peak
  peak=$(cat "$Q"/peak.* | sort -n | tail -1)
  awk -v p="$peak" '/^quality:/ {printf "%s %s %s %s %.0f\n", $7, $9, $11, $13, p/1024}' "$Q/run_$lib.log"
}

name() { case $1 in rs) echo "op2-rs, PT-Scotch" ;; rs_metis) echo "op2-rs, METIS on rank 0" ;; op2) echo "OP2, PT-Scotch" ;; esac; }

# median of RUNS values with [min-max] when they differ
summ() {
  sort -g | awk '{v[NR] = $1} END {m = v[int((NR + 1) / 2)]; if (v[1] == v[NR]) print m; else printf "%s [%s-%s]\n", m, v[1], v[NR]}'
}

printf '| cells | ranks | library, partitioner | edge cut | imbalance | halo cells | op_partition (s) | peak RSS per rank (MiB) |\n'
printf '|---:|---:|---|---:|---:|---:|---:|---:|\n'
for cells in "${CELLS[@]}"; do
  mesh="$W/mesh_$cells.h5"
  [ -f "$mesh" ] || "$W/mesh2hdf5" --cells="$cells" -o "$mesh" > /dev/null
  for np in ${RANKS:-2 3 4}; do
    for lib in "${LIBS[@]}"; do
      : > "$Q/rows"
      for _ in $(seq "${RUNS:-3}"); do run "$lib" "$np" "$mesh" >> "$Q/rows"; done
      cols=()
      for k in 1 2 3 4 5; do cols+=("$(awk -v k=$k '{print $k}' "$Q/rows" | summ)"); done
      printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$cells" "$np" "$(name "$lib")" "${cols[@]}"
    done
  done
done
