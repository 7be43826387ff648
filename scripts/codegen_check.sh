#!/usr/bin/env bash
# codegen_check.sh -- what op2-codegen writes, compiled with the real device
# compilers and run: every sample loop (c-examples/airfoil's five loops and a
# synthetic loop with every other argument kind; codegen/src/samples.rs), in
# both conflict schemes (staged two-level colouring, flat atomics), as
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
# Needs target/release/libop2_seq.a (cargo build --release).
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
  if ! "$OUT/opencl_airfoil" "$OUT/src" "$tag" 200 100 10 > "$OUT/run-$tag.log" 2>&1; then
    fails=$((fails + 1))
  fi
  tail -n 1 "$OUT/run-$tag.log"
  if ! "$OUT/opencl_mixed" "$OUT/src" "$tag" > "$OUT/mixed-$tag.log" 2>&1; then
    fails=$((fails + 1))
  fi
  grep -E '^(ok|FAIL)' "$OUT/mixed-$tag.log"
done
[ $fails = 0 ]
