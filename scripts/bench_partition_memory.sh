#!/usr/bin/env bash
# Peak memory per rank of an MPI airfoil that reads its mesh blocks from an
# OP2-layout HDF5 file (c-examples/hdf5/airfoil_hdf5_mpi.cpp: op_decl_*_hdf5,
# op_partition("PARMETIS", "KWAY", ...), a few iterations), on 1-4 ranks and
# several mesh sizes, with the distributed partitioning (default) and the
# replicated one (OP2_PARTITION=replicated) side by side.
#
#   CARGO_BUILD=0 [MODES=distributed] scripts/bench_partition_memory.sh [CELLS...]
#
# Prints one table row per (mesh, ranks, mode): max and mean over ranks of
# the peak resident set (VmHWM, MiB), the per-rank maximum as a share of the
# 1-rank peak, op_partition's time and edge cut. Needs mpicxx and the
# parallel and serial HDF5 libraries (scripts/install_prereqs.sh). Work files
# go to target/partmem (meshes of 11M cells take about 1 GB each).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CELLS=("$@")
[ ${#CELLS[@]} -gt 0 ] || CELLS=(720000 2880000 11520000)
ITERS=${ITERS:-2}
if [ "${CARGO_BUILD:-1}" != 0 ]; then
  cargo build --release -p libop2-mpi -p libop2-seq -p libop2-hdf5 >&2
fi
W=target/partmem
mkdir -p "$W"
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
C=$ROOT/c-examples
SER=/usr/lib/x86_64-linux-gnu/hdf5/serial
PAR=/usr/lib/x86_64-linux-gnu/hdf5/openmpi
if [ ! -x "$W/mesh2hdf5" ]; then
  gcc -std=c99 -O2 -c "$C/common/naca_mesh.c" -o "$W/naca_mesh.o"
  g++ -std=c++17 -O2 -I"$ROOT/include" -I"$C/common" -I"$C/airfoil" \
    "$C/hdf5/mesh2hdf5.cpp" "$W/naca_mesh.o" "$OP2_LIBDIR/libop2_hdf5.a" "$OP2_LIBDIR/libop2_seq.a" \
    -L"$SER/lib" -Wl,-rpath,"$SER/lib" -lhdf5 -lpthread -ldl -lm -o "$W/mesh2hdf5"
fi
mpicxx -DOMPI_SKIP_MPICXX -std=c++17 -O2 -I"$ROOT/include" -I"$C/common" -I"$C/airfoil" \
  "$C/hdf5/airfoil_hdf5_mpi.cpp" "$W/naca_mesh.o" "$OP2_LIBDIR/libop2_mpi.a" \
  -L"$PAR/lib" -Wl,-rpath,"$PAR/lib" -lhdf5 -lpthread -ldl -lm -o "$W/airfoil_hdf5_mpi"
printf '| cells | ranks | partitioning | peak RSS per rank, max (MiB) | mean (MiB) | max / 1-rank peak | op_partition (s) | edge cut |\n'
printf '|---:|---:|---|---:|---:|---:|---:|---:|\n'
for cells in "${CELLS[@]}"; do
  mesh="$W/mesh_$cells.h5"
  [ -f "$mesh" ] || "$W/mesh2hdf5" --cells="$cells" -o "$mesh" >/dev/null
  for mode in ${MODES:-distributed replicated}; do
    one=""
    for np in 1 2 3 4; do
      log="$W/run_${cells}_${mode}_$np.log"
      OP2_PARTITION=$mode mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
        /usr/bin/time -f "PEAK %M" "$W/airfoil_hdf5_mpi" "$mesh" --iters="$ITERS" --diags=1 >"$log" 2>&1
      peaks=$(grep -o 'PEAK [0-9]*' "$log" | awk '{print $2}')
      max=$(echo "$peaks" | sort -n | tail -1)
      mean=$(echo "$peaks" | awk '{s+=$1; n++} END {printf "%.0f", s/n}')
      [ -n "$one" ] || one=$max
      ptime=$(grep -o 'partitioning time [0-9.]*' "$log" | awk '{print $3}' | head -1)
      cut=$(grep -o 'edge cut [0-9]*' "$log" | awk '{print $3}' | head -1)
      awk -v c="$cells" -v n="$np" -v m="$mode" -v x="$max" -v a="$mean" -v o="$one" \
        -v t="${ptime:--}" -v e="${cut:--}" \
        'BEGIN {printf "| %s | %s | %s | %.0f | %.0f | %.2f | %s | %s |\n", c, n, m, x/1024, a/1024, x/o, t, e}'
    done
  done
done
