#!/usr/bin/env bash
# cuda_emu.sh -- build op2-rs's CUDA emulator (tests/cuda-emu) and print the
# directory holding it: libcuda.so.1 (a CUDA driver that runs kernels on the
# host, one block after another, each block's threads as fibers switching
# at __syncthreads(); device memory is guarded host memory) and
# libnvrtc.so.13 (an NVRTC that compiles the CUDA C++ op2-rs writes with
# g++ into the images that driver loads). With that directory first on
# LD_LIBRARY_PATH, a program linked with libop2_cuda or libop2_mpi_cuda
# finds one emulated GPU (compute capability 9.0) and runs its op_seq.h
# loops through the library's whole CUDA path: generation, compilation,
# cache, module load, constants, launches, dynamic shared memory,
# reductions, transfers, the halo row gather.
#
#   scripts/cuda_emu.sh                          build when stale, print the directory
#   LD_LIBRARY_PATH=$(scripts/cuda_emu.sh) ./airfoil      (linked with -lop2_cuda)
#
# It checks what a GPU would not report as plainly: transfers outside an
# allocation, writes outside an allocation or past the dynamic shared
# memory a launch asked for, barriers not reached by a whole block. It is
# not a GPU: no warps, no concurrency between threads, no timing; what runs
# on one is said in BENCHMARKS.md. Options: OP2EMU_ORDER=reverse,
# OP2EMU_FAIL=KERNEL, OP2EMU_STATS=1, OP2EMU_TSAN=1 (a race checker for
# programs built with -fsanitize=thread), OP2EMU_CXX (tests/cuda-emu/*.cpp
# say what they do).
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD/tests/cuda-emu
LIB=${OP2EMU_LIB:-$PWD/target/cuda-emu/lib}
mkdir -p "$LIB"
FLAGS=(-std=c++17 -O2 -fPIC -shared -Wall -Wextra -Werror)

# build OUT SOURCE [FLAGS...]: when OUT is older than its sources; written
# under a temporary name first (tests may build concurrently)
build() {
  local out=$1 src=$2
  shift 2
  if [ -e "$LIB/$out" ] && [ "$LIB/$out" -nt "$src" ] && [ "$LIB/$out" -nt "$SRC/prelude.h" ] &&
    [ "$LIB/$out" -nt "$0" ]; then
    return
  fi
  g++ "${FLAGS[@]}" "$@" "$src" -o "$LIB/$out.$$" -ldl
  mv -f "$LIB/$out.$$" "$LIB/$out"
}
build libcuda.so.1 "$SRC/libcuda_emu.cpp"
build libnvrtc.so.13 "$SRC/libnvrtc_emu.cpp" "-DOP2EMU_PRELUDE=\"$SRC/prelude.h\""
ln -sfn libcuda.so.1 "$LIB/libcuda.so"
ln -sfn libnvrtc.so.13 "$LIB/libnvrtc.so"
echo "$LIB"
