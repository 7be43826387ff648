#!/usr/bin/env bash
# codegen_check.sh -- what op2-codegen writes, compiled with the real device
# compilers and run: every sample loop (c-examples/airfoil's five loops and a
# synthetic loops with every other argument kind and type; codegen/src/samples.rs), in
# the three conflict schemes (staged two-level colouring, the same colouring
# unstaged, flat atomics), as
#   OpenCL C 1.2 on the first OpenCL device (PoCL's CPU device here:
#     Debian's pocl-opencl-icd, installed when missing), kernel created;
#   CUDA C++ through NVRTC for sm_90 (-default-device; NVRTC from
#     scripts/cuda_toolkit.sh), entry found in the cubin.
# Then c-examples/airfoil's five loops run on the OpenCL device, staged and
# flat, for 10 time steps on a 200 x 100 O-grid (tests/codegen/
# opencl_airfoil.cpp: parameters bound in the order the generator lists
# them, plans from op_plan_get_stage of libop2_seq.a), every loop's dats
# compared with the same kernels in plain C++ loops (differences allowed:
# 1e-11 of the dat's largest magnitude, sums 1e-11 relative; the order of
# additions differs); and the synthetic loop (vector map argument on an SoA
# dat, optional float increment present and absent, op_arg_idx, int dat,
# min/max/sum reductions) on 3,000 random edges (tests/codegen/opencl_mixed.cpp).
# Last, c-examples' programs (airfoil, jac, jac_c, reduction, quadvec) run
# on libop2_opencl with OP2_RS_DUMP_CUDA: the CUDA C++ of every loop they
# run, in both schemes, compiled by NVRTC for sm_90.
# Needs target/release/libop2_seq.a and libop2_opencl.a (cargo build --release).
# Output and logs in target/codegen-check/. Exit status 0 when all compile
# and both runs agree.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/codegen-check
mkdir -p "$OUT/src"
if [ ! -e /usr/include/CL/cl.h ] || ! ls /usr/lib/*/libOpenCL.so > /dev/null 2>&1 ||
  ! ls /etc/OpenCL/vendors/*.icd > /dev/null 2>&1; then
  scripts/install_prereqs.sh pocl-opencl-icd opencl-headers ocl-icd-opencl-dev
fi
if [ -z "${CUDA_HOME:-}" ] || [ ! -e "$CUDA_HOME/include/nvrtc.h" ]; then
  eval "$(scripts/cuda_toolkit.sh env)"
fi
gcc -std=c99 -O2 -Wall -Wextra -Werror tests/codegen/opencl_build.c -lOpenCL -o "$OUT/opencl_build"
g++ -std=c++17 -O2 -Wall -Wextra -Werror -I "$CUDA_HOME/include" tests/codegen/nvrtc_build.cpp \
  "$CUDA_HOME/lib/libnvrtc.so.13" -Wl,-rpath,"$CUDA_HOME/lib" -o "$OUT/nvrtc_build"
rm -f "$OUT"/src/*
cargo run -q -p op2-codegen --example dump -- "$OUT/src" c-examples/airfoil
fails=0 n=0
while read -r f entry _; do
  n=$((n + 1))
  case $f in
    *.cl) tool=("$OUT/opencl_build") ;;
    *.cu) tool=(env LD_LIBRARY_PATH="$CUDA_HOME/lib" "$OUT/nvrtc_build") ;;
  esac
  if "${tool[@]}" "$OUT/src/$f" "$entry" > "$OUT/src/$f.log" 2>&1; then
    tail -n 1 "$OUT/src/$f.log"
  else
    fails=$((fails + 1))
    echo "FAIL $f"
    head -n 20 "$OUT/src/$f.log" | sed 's/^/     /'
  fi
done < "$OUT/src/entries.txt"
echo "codegen_check: $n sources, $fails failed to compile ($(clinfo -l 2> /dev/null | sed -n 's/.*Device #0: //p' | head -n 1); NVRTC $CUDA_HOME)"
OP2_LIBDIR=${OP2_LIBDIR:-target/release}
gcc -std=c99 -O2 -Wall -Wextra -Werror -c -I c-examples/common c-examples/common/naca_mesh.c -o "$OUT/naca_mesh.o"
g++ -std=c++17 -O2 -Wall -Wextra -Werror -I include -I c-examples/airfoil -I c-examples/common \
  tests/codegen/opencl_airfoil.cpp "$OUT/naca_mesh.o" "$OP2_LIBDIR/libop2_seq.a" -lOpenCL -lpthread -ldl -lm \
  -o "$OUT/opencl_airfoil"
g++ -std=c++17 -O2 -Wall -Wextra -Werror -I include -I "$OUT/src" tests/codegen/opencl_mixed.cpp \
  "$OP2_LIBDIR/libop2_seq.a" -lOpenCL -lpthread -ldl -lm -o "$OUT/opencl_mixed"
for tag in colour2 atomics; do
  if "$OUT/opencl_airfoil" "$OUT/src" "$tag" 200 100 10 > "$OUT/run-$tag.log" 2>&1; then
    grep -E '^(ok|FAIL)' "$OUT/run-$tag.log"
  else
    fails=$((fails + 1))
    echo "FAIL opencl_airfoil $tag: $OUT/run-$tag.log"
    grep -v 'Initializing OP2' "$OUT/run-$tag.log" | tail -n 5 | sed 's/^/     /'
  fi
  if "$OUT/opencl_mixed" "$OUT/src" "$tag" > "$OUT/mixed-$tag.log" 2>&1; then
    grep -E '^(ok|FAIL)' "$OUT/mixed-$tag.log"
  else
    fails=$((fails + 1))
    echo "FAIL opencl_mixed $tag: $OUT/mixed-$tag.log"
    grep -v 'Initializing OP2' "$OUT/mixed-$tag.log" | tail -n 5 | sed 's/^/     /'
  fi
done

# The CUDA dialect of every loop c-examples' programs run: each program on
# libop2_opencl (its loops' code written at run time, as for the device),
# with OP2_RS_DUMP_CUDA the same loops written as CUDA C++, the three
# schemes, each with 32-bit offsets and with 64-bit ones
# (OP2_RS_WIDE_OFFSETS=1), every file compiled by NVRTC for sm_90.
EX=$PWD/$OUT/examples
make -s -C c-examples B="$EX" OP2_LIB=op2_opencl OP2_LIBDIR="$PWD/$OP2_LIBDIR" \
  "$EX/airfoil" "$EX/jac" "$EX/jac_c" "$EX/reduction" "$EX/quadvec"
for run in colour2 colour2-global atomics colour2:wide colour2-global:wide atomics:wide; do
  scheme=${run%:wide} wide=0
  [ "$run" = "$scheme" ] || wide=1
  dump=$PWD/$OUT/cuda-${run/:/-}
  rm -rf "$dump"
  export OP2_RS_CONFLICTS=$scheme OP2_RS_WIDE_OFFSETS=$wide OP2_RS_CACHE_DIR=$PWD/$OUT/opencl-cache
  # one dump directory per program: loops of different programs share names
  (cd c-examples &&
    OP2_RS_DUMP_CUDA=$dump/airfoil "$EX/airfoil" --cells=2000 --iters=2 &&
    OP2_RS_DUMP_CUDA=$dump/jac "$EX/jac" --iters=2 &&
    OP2_RS_DUMP_CUDA=$dump/jac_c OP2_RS_KERNEL_PATH=jac "$EX/jac_c" --iters=2 &&
    OP2_RS_DUMP_CUDA=$dump/reduction "$EX/reduction" &&
    OP2_RS_DUMP_CUDA=$dump/quadvec "$EX/quadvec" --nx=20 --ny=20 --iters=2) > "$OUT/examples-${run/:/-}.log" 2>&1 || {
    fails=$((fails + 1))
    echo "FAIL c-examples on libop2_opencl ($run): $OUT/examples-${run/:/-}.log"
  }
  unset OP2_RS_CONFLICTS OP2_RS_WIDE_OFFSETS OP2_RS_CACHE_DIR
  m=0 bad=0
  for prog in airfoil jac jac_c reduction quadvec; do
    while read -r f entry; do
      m=$((m + 1))
      # the offsets the code was written with
      if [ "$wide" = 1 ] && ! head -n 1 "$dump/$prog/$f" | grep -q ', 64-bit offsets$'; then
        bad=$((bad + 1))
        echo "FAIL $dump/$prog/$f: not written with 64-bit offsets"
      fi
      if ! LD_LIBRARY_PATH="$CUDA_HOME/lib" "$OUT/nvrtc_build" "$dump/$prog/$f" "$entry" > "$dump/$prog/$f.log" 2>&1; then
        bad=$((bad + 1))
        echo "FAIL $dump/$prog/$f"
        head -n 20 "$dump/$prog/$f.log" | sed 's/^/     /'
      fi
    done < <(sort -u "$dump/$prog/entries.txt")
  done
  [ "$m" = 16 ] || { fails=$((fails + 1)); echo "FAIL $m loops dumped, not 16 ($run)"; }
  fails=$((fails + bad))
  echo "codegen_check: c-examples' $m loops ($run) as CUDA C++: $((m - bad)) compile with NVRTC for sm_90"
done
[ $fails = 0 ]
