#!/usr/bin/env bash
# codegen_compile_check.sh -- compile what op2-codegen writes with the real
# device compilers: every sample loop (c-examples/airfoil's five loops and a
# synthetic loop with every other argument kind; codegen/src/samples.rs), in
# both conflict schemes (staged two-level colouring, flat atomics), as
#   OpenCL C 1.2 on the first OpenCL device (PoCL's CPU device here:
#     Debian's pocl-opencl-icd, installed when missing), kernel created;
#   CUDA C++ through NVRTC for sm_90 (-default-device; NVRTC from
#     scripts/cuda_toolkit.sh), entry found in the cubin.
# Output and logs in target/codegen-check/. Exit status 0 when all compile.
# What this does not show: that the kernels compute the right values (no
# launcher exists yet; see issue 24).
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
while read -r f entry; do
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
echo "codegen_compile_check: $n sources, $fails failed ($(clinfo -l 2> /dev/null | sed -n 's/.*Device #0: //p' | head -n 1); NVRTC $CUDA_HOME)"
[ $fails = 0 ]
