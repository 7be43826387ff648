#!/usr/bin/env bash
# gpu_bundle.sh -- build, on a machine without a GPU, one folder holding
# everything the GPU check needs: target/gpu-bundle/ (under $MAX_MIB MiB),
# run there by its check.sh (scripts/gpu_check.sh, copied in) with nothing
# but what a GPU machine has (bash, coreutils, awk, the NVIDIA driver;
# compute-sanitizer when the CUDA toolkit is installed).
#
#   scripts/gpu_bundle.sh [OP2_DIR]
#   target/gpu-bundle/check.sh RESULTS_DIR        (on the GPU machine)
#
# What goes in:
#   lib/      libop2_cuda.so and libop2_mpi_cuda.so (stripped); the programs
#             find them through their rpath $ORIGIN/../lib
#   bin/      meshgen, aero_meshgen (c-examples: the meshes are made on the
#             GPU machine, never carried); tests/cuda's generated-style
#             programs t1..t4 on libop2_cuda and t5 (MPI) on libop2_mpi_cuda
#             ex_airfoil_jit: c-examples' airfoil (op_seq.h, unchanged) on
#             libop2_cuda, its loops written and compiled at run time;
#             big_offsets: tests/c/big_offsets (a dat whose offsets pass
#             2^31 - 1, checking itself; its cubins are those of 64-bit
#             offsets)
#             device_args, device_args_atomics: tests/c/device_args (every
#             argument kind, answers checked by the program) the same way,
#             with two-level colouring and with atomics
#             two_maps, two_maps_global: tests/c/two_maps (one dat through
#             two maps, and one row twice in an element, checking itself),
#             staged and unstaged colouring
#             wide_ints, wide_ints_atomics: tests/c/wide_ints (OP2's 64-bit
#             and unsigned integer types and bools, checking itself),
#             colouring and atomics (64-bit atomicAdd)
#   src/NAME/ the kernels' headers of each jit program (OP2_RS_KERNEL_PATH
#             there: the library reads a kernel's source to write its loop)
#   cache/    every jit program's loops compiled here for $CUDA_ARCH by
#             NVRTC (PyPI) through the library's own path (a run on a device
#             simulated in host memory), so the GPU machine needs no NVRTC
#             (libnvrtc is 110 MB): the library finds them by the generated
#             text, the architecture and the options
#   programs.txt  one line per program: NAME KIND APP [ARGS], KIND = rs (our
#             library, translated code), jit (our library, op_seq.h code),
#             op2 (OP2's own CUDA library, the control) or mpi
#   manifest.txt  commits, compilers, flags, meshes, sizes, what was left out
# With OP2_DIR (an OP2-Common checkout, read only; nothing of it is
# committed, and the bundle holds only programs built from it):
#   bin/airfoil_{aos,soa,color}_{rs,op2}, bin/aero_aos_{rs,op2}: OP2's
#             apps/c/airfoil/airfoil_plain/dp/airfoil.cpp and
#             apps/c/aero/aero_plain/aero.cpp translated by translator-v2 for
#             the `cuda` target (aos: its default configuration, atomics;
#             soa: -soa; color: two-level colouring,
#             -c '{".*": {"atomics": false, "color2": true}}'), op2_kernels.cu
#             compiled with nvcc -arch=$CUDA_ARCH; the same generated text
#             compiled once against include/ and linked with our
#             libop2_cuda.so, once against OP2's include/ and linked with
#             OP2's libop2_cuda.a, built here from the same checkout by its
#             own makefiles with the same nvcc;
#             bin/airfoil_jit, bin/aero_jit: the same op_seq.h sources, not
#             translated, built against include/ and linked with our
#             libop2_cuda.so (loops written at run time; cache/ as above);
#             bin/airfoil_jit_global, bin/aero_jit_global (two-level
#             colouring without staging), bin/airfoil_jit_atomics,
#             bin/aero_jit_atomics (atomics instead of colouring) and
#             bin/airfoil_jit_soa_atomics (atomics, SoA device copies),
#             bin/{airfoil,aero}_jit_fma and _jit_atomics_fma (fused
#             multiply-adds, NVRTC --fmad=true): the same programs, their
#             loops compiled for those options
#   ref/      the reference answers: the printed lines of the same sources
#             (op_seq.h, unchanged but for the edits below) on our
#             libop2_seq.a, run here on the meshes check.sh makes (same
#             generator, same arguments; check.sh compares their checksums)
# Edits to the OP2-Common sources (copies, before translation): the
# iteration count reads $OP2CHECK_NITER (defaults 1000 and 20 stay), the
# time loop's wall time is printed ("op2check time loop: S s"), and
# op_timing_output() follows op_profile_output().
#
# MPI: the airfoil_mpi program is not in the bundle. libop2_mpi_cuda.so needs
# OpenMPI 4 (libmpi.so.40) and parallel HDF5 at run time; their closure here
# (Debian 12) is 27 MB of shared libraries plus 17 MB of OpenMPI and PMIx
# plugins and mpirun/orted, which Debian's OpenMPI finds through paths fixed
# at its build; it would not fit next to the rest under the size limit and
# could not be tested here. t5 (a one-loop MPI halo test) goes in as it is
# small: check.sh runs it only where the GPU machine's own loader resolves
# libmpi.so.40 and libhdf5_openmpi.so.103, and says SKIP otherwise.
#
# Environment (defaults in brackets): OUT [target/gpu-bundle], WORK
# [target/gpu-bundle-build], OP2_LIBDIR [target/release], CUDA_ARCH [sm_90],
# NI NJ [1202 600: 721,200 cells], AERO_NI AERO_NJ [602 300], MAX_MIB [48],
# CARGO_BUILD [1], OP2_TRANSLATOR_VENV [target/op2bench/venv], REF [1: run
# the references; 0 keeps ref/ of an earlier bundle build in WORK].
# Exit status 0 when everything asked for was built and the bundle fits.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

OP2_DIR=${1:-${OP2_DIR:-}}
OUT=${OUT:-$ROOT/target/gpu-bundle}
WORK=${WORK:-$ROOT/target/gpu-bundle-build}
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
CUDA_ARCH=${CUDA_ARCH:-sm_90}
NI=${NI:-1202}
NJ=${NJ:-600}
AERO_NI=${AERO_NI:-602}
AERO_NJ=${AERO_NJ:-300}
MAX_MIB=${MAX_MIB:-48}
VENV=${OP2_TRANSLATOR_VENV:-$ROOT/target/op2bench/venv}
INC=$ROOT/include

say() { printf '== %s\n' "$*"; }
die() {
  printf 'gpu_bundle: %s\n' "$*" >&2
  exit 1
}

if [ -n "$OP2_DIR" ]; then
  [ -f "$OP2_DIR/translator-v2/op2-translator/__main__.py" ] ||
    die "$OP2_DIR is not an OP2-Common checkout with translator-v2"
  # translator-v2 stamps its output with `git describe` of its own tree
  # and stops when that fails (an exported tree, not a clone)
  git -C "$OP2_DIR/translator-v2" describe --always > /dev/null 2>&1 ||
    die "$OP2_DIR is not a git work tree (translator-v2 runs git describe there): clone OP2-Common, or git init and commit the exported tree"
  OP2_DIR=$(cd "$OP2_DIR" && pwd)
fi

if [ "${CARGO_BUILD:-1}" = 1 ]; then
  say "cargo build --release (libop2-cuda, libop2-mpi-cuda, libop2-seq)"
  cargo build --release -q -p libop2-cuda -p libop2-mpi-cuda -p libop2-seq
fi
if [ -z "${CUDA_HOME:-}" ] || [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
  eval "$(scripts/cuda_toolkit.sh env)"
fi
NVCC=$CUDA_HOME/bin/nvcc
CUDA_LIB=$CUDA_HOME/lib
[ -d "$CUDA_HOME/lib64" ] && CUDA_LIB=$CUDA_HOME/lib64

rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/ref" "$WORK/obj"
# absolute from here on: the programs' libraries are checked by path
OUT=$(cd "$OUT" && pwd)
WORK=$(cd "$WORK" && pwd)
: > "$OUT/programs.txt"
MANIFEST=$OUT/manifest.txt
{
  echo "op2-rs GPU check bundle"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm)"
  echo "op2-rs commit: $(git rev-parse --short HEAD 2> /dev/null || echo unknown)$(git diff --quiet HEAD 2> /dev/null || echo ' (with uncommitted changes)')"
  echo "nvcc: $("$NVCC" --version | tail -n 1); arch $CUDA_ARCH"
  echo "host compiler: $(g++ --version | head -n 1)"
} > "$MANIFEST"

# ---- libraries ---------------------------------------------------------------
say "libraries (stripped) -> lib/"
for l in op2_cuda op2_mpi_cuda; do
  [ -s "$OP2_LIBDIR/lib$l.so" ] || die "$OP2_LIBDIR/lib$l.so is missing (cargo build --release -p lib${l//_/-})"
  strip -o "$OUT/lib/lib$l.so" "$OP2_LIBDIR/lib$l.so"
done

# shellcheck disable=SC2016 # $ORIGIN is for the dynamic loader
RPATH='-Wl,-rpath,$ORIGIN/../lib'
LINK_CUDA=(-L "$CUDA_LIB" -lcudart_static -lpthread -ldl -lrt -lm)
NVFLAGS=(-arch="$CUDA_ARCH" -std=c++17 -O3 --expt-relaxed-constexpr -DOP2_CUDA)

program() { # NAME KIND APP [ARGS...]: record a program of the bundle
  echo "$*" >> "$OUT/programs.txt"
}

# name_env NAME: the environment a jit program's name asks for, the same rule
# as check.sh's jit_env: a name with an _atomics part runs with
# OP2_RS_CONFLICTS=atomics, one with a _global part with colour2-global
# (two-level colouring, no staging), one with a _soa part with OP_AUTO_SOA=1
# (device copies in SoA), one with an _fma part with OP2_RS_FMA=1 (NVRTC
# --fmad=true); the generated code, and so the cached cubins, differ. A name ending in _async also runs with OP2_RS_DEVICE_ASYNC=1
# (loops without a reduction leave their kernels queued: the same code).
name_env() {
  case $1 in *_atomics | *_atomics_*) printf ' OP2_RS_CONFLICTS=atomics' ;; *_global | *_global_*) printf ' OP2_RS_CONFLICTS=colour2-global' ;; esac
  case $1 in *_soa | *_soa_*) printf ' OP_AUTO_SOA=1' ;; esac
  case $1 in *_fma | *_fma_*) printf ' OP2_RS_FMA=1' ;; esac
  case $1 in *_async) printf ' OP2_RS_DEVICE_ASYNC=1' ;; esac
  return 0
}

# jit_program NAME APP KERNEL_DIR RUN_ARGS COMPILE_ARGS CXX_ARGS...: an
# op_seq.h program on libop2_cuda (check.sh runs it with RUN_ARGS and
# name_env's environment); its kernels' headers to src/NAME; its loops
# compiled into cache/ by running it once here on a simulated device with
# COMPILE_ARGS (a small problem: the generated code does not depend on
# sizes; its mesh, if any, already in $WORK/jit_NAME)
jit_program() {
  local name=$1 app=$2 kdir=$3 args=$4 cargs=$5 d=$WORK/jit_$1
  shift 5
  mkdir -p "$OUT/src/$name" "$d"
  cp "$kdir"/*.h "$OUT/src/$name/"
  nice g++ -std=c++17 -O3 -Wall -Wextra -I "$INC" -I "$kdir" "$@" -L "$OUT/lib" -lop2_cuda "$RPATH" \
    -lm -o "$OUT/bin/$name" || die "g++ failed: $name"
  strip --strip-debug "$OUT/bin/$name"
  # shellcheck disable=SC2086 # RUN_ARGS are words
  program "$name" jit "$app" $args
  # shellcheck disable=SC2086
  (cd "$d" && env OP2_RS_DEVICE=host OP2_RS_CUDA_ARCH="$CUDA_ARCH" OP2_RS_CACHE_DIR="$OUT/cache" \
    $(name_env "$name") ${JIT_COMPILE_ENV:-} \
    OP2_RS_KERNEL_PATH="$OUT/src/$name" LD_LIBRARY_PATH="$CUDA_LIB" OP2CHECK_NITER=1 \
    "$OUT/bin/$name" $cargs > "$d/compile.out" 2>&1) || { tail -n 5 "$d/compile.out" >&2; die "$name: the compile run failed"; }
  local compiled host
  compiled=$(grep -c "runs on the host: compiled for $CUDA_ARCH by NVRTC" "$d/compile.out" || true)
  host=$(grep -c 'runs on the host:' "$d/compile.out" || true)
  if [ "$compiled" = 0 ] || [ "$host" != "$compiled" ]; then
    grep 'runs on the host:' "$d/compile.out" | grep -v "compiled for $CUDA_ARCH" | head -n 3 >&2
    die "$name: $compiled of $host loops compiled by NVRTC for $CUDA_ARCH"
  fi
  echo "$name: $compiled loops" >> "$OUT/cache.txt"
  echo "   $name: $compiled loops compiled by NVRTC for $CUDA_ARCH into cache/"
}

# ---- tests/cuda ----------------------------------------------------------------
say "tests/cuda programs -> bin/"
for k in tests/cuda/t*_kernels.cu; do
  t=$(basename "$k" _kernels.cu)
  cxx=g++ lib=op2_cuda kind=rs
  case $t in *mpi*) cxx=mpicxx lib=op2_mpi_cuda kind=mpi ;; esac
  nice "$NVCC" "${NVFLAGS[@]}" -I "$INC" -I tests/cuda -c "$k" -o "$WORK/obj/${t}_kernels.o"
  nice "$cxx" -std=c++17 -O2 -Wall -Wextra -Werror -DOP2_CUDA -I "$INC" -I "$CUDA_HOME/include" \
    -c "tests/cuda/$t.cpp" -o "$WORK/obj/$t.o"
  "$cxx" "$WORK/obj/$t.o" "$WORK/obj/${t}_kernels.o" -L "$OUT/lib" -l$lib "$RPATH" \
    "${LINK_CUDA[@]}" -o "$OUT/bin/$t"
  program "$t" "$kind" test
done

say "mesh generators -> bin/"
for g in meshgen aero_meshgen; do
  gcc -O2 -Wall -Wextra -Werror -std=c99 -pedantic -Ic-examples/common \
    "c-examples/meshgen/$g.c" c-examples/common/naca_mesh.c -lm -o "$OUT/bin/$g"
done
{
  echo "airfoil mesh: meshgen --ni $NI --nj $NJ"
  echo "aero mesh: aero_meshgen --ni $AERO_NI --nj $AERO_NJ"
} >> "$MANIFEST"

# ---- c-examples' airfoil, op_seq.h on libop2_cuda ---------------------------------
EX_ARGS=${EX_ARGS:---cells=200000 --iters=200}
say "c-examples airfoil (op_seq.h) on libop2_cuda, loops compiled by NVRTC ($("$CUDA_HOME/bin/nvcc" --version | tail -n 1 | sed 's/^Build //')) -> bin/ex_airfoil_jit, cache/"
gcc -std=c99 -O2 -Wall -Wextra -Werror -c -I c-examples/common c-examples/common/naca_mesh.c -o "$WORK/obj/naca_mesh.o"
jit_program ex_airfoil_jit exairfoil c-examples/airfoil "$EX_ARGS" "--cells=2000 --iters=1" -I c-examples/common \
  c-examples/airfoil/airfoil.cpp "$WORK/obj/naca_mesh.o"
# ---- tests/c/device_args: every argument kind, checking itself ---------------------
DA_ARGS=${DA_ARGS:-200000}
say "tests/c/device_args (op_seq.h, every argument kind) on libop2_cuda, colouring and atomics -> bin/device_args*, cache/"
jit_program device_args selfcheck tests/c/device_args "$DA_ARGS" 3000 tests/c/device_args/device_args.cpp
jit_program device_args_atomics selfcheck tests/c/device_args "$DA_ARGS" 3000 \
  tests/c/device_args/device_args.cpp
g++ -std=c++17 -O2 -I "$INC" -I tests/c/device_args tests/c/device_args/device_args.cpp \
  "$OP2_LIBDIR/libop2_seq.a" -lpthread -ldl -lm -o "$WORK/device_args_seq"
# shellcheck disable=SC2086 # DA_ARGS are words
"$WORK/device_args_seq" $DA_ARGS > "$WORK/device_args_seq.out" || die "device_args on libop2_seq failed"
grep -E '^(PASSED|FAILED|wrong:) ' "$WORK/device_args_seq.out" > "$OUT/ref/selfcheck.out"
# ---- tests/c/two_maps: one dat through two maps, a row twice in one element -------
say "tests/c/two_maps (op_seq.h, one dat through two maps) on libop2_cuda, staged and unstaged colouring -> bin/two_maps*, cache/"
jit_program two_maps selfcheck tests/c/two_maps "" "" tests/c/two_maps/two_maps.c
jit_program two_maps_global selfcheck tests/c/two_maps "" "" tests/c/two_maps/two_maps.c
# ---- tests/c/wide_ints: OP2's 64-bit and unsigned integer types ---------------------
say "tests/c/wide_ints (op_seq.h, ll/long/ull/uint/bool dats, globals, constants) on libop2_cuda, colouring and atomics -> bin/wide_ints*, cache/"
jit_program wide_ints selfcheck tests/c/wide_ints "" "" tests/c/wide_ints/wide_ints.c
jit_program wide_ints_atomics selfcheck tests/c/wide_ints "" "" tests/c/wide_ints/wide_ints.c
# ---- tests/c/big_offsets: offsets past 2^31 - 1 -----------------------------------
# run on the GPU with BO_ARGS cells (8.6 GB of ints: no other machine here
# holds the host and device copies); its loops are written with 64-bit
# offsets there, as the library decides from the sizes. Their cubins are
# compiled here on a small mesh with OP2_RS_WIDE_OFFSETS=1 (the same text:
# the code depends on the offsets' width, not on the sizes); a library that
# failed to widen them on the GPU would find no cubin and run them on the
# host, which check.sh reports as a failure.
BO_ARGS=${BO_ARGS:-67200000}
say "tests/c/big_offsets (op_seq.h, offsets past 2^31 - 1 on the GPU: $BO_ARGS cells) -> bin/big_offsets, cache/"
JIT_COMPILE_ENV=OP2_RS_WIDE_OFFSETS=1 jit_program big_offsets bigoffsets tests/c/big_offsets "$BO_ARGS" 1000 \
  tests/c/big_offsets/big_offsets.cpp
cp "$OUT/ref/selfcheck.out" "$OUT/ref/bigoffsets.out"
echo "jit programs: the generated loops' cubins in cache/ ($CUDA_ARCH, NVRTC from PyPI)" >> "$MANIFEST"

# ---- OP2-Common's applications ---------------------------------------------------
AIRFOIL=apps/c/airfoil/airfoil_plain/dp
AERO=apps/c/aero/aero_plain

# edit FILE COUNT SED-SCRIPT: a substitution that must match COUNT lines
edit() {
  local f=$1 want=$2 script=$3 got
  got=$(sed -n -e "$script" -e T -e = "$f" | wc -l)
  [ "$got" = "$want" ] || die "$f: expected $want line(s) for '$script', found $got: has OP2-Common changed?"
  sed -i "$script" "$f"
}

sources() { # APP DIR: patched copies of an app's sources in DIR
  local app=$1 d=$2 dir n0 f
  case $app in airfoil) dir=$AIRFOIL n0=1000 ;; aero) dir=$AERO n0=20 ;; esac
  rm -rf "$d"
  mkdir -p "$d"
  cp "$OP2_DIR/$dir"/*.h "$OP2_DIR/$dir/$app.cpp" "$d/"
  f=$d/$app.cpp
  edit "$f" 1 's|^int main(int argc, char \*\*argv) {|#include <stdlib.h>\n#include <sys/time.h>\nstatic int op2check_int(const char *n, int d) { const char *s = getenv(n); return (s \&\& *s) ? atoi(s) : d; }\nstatic double op2check_clock() { struct timeval t; gettimeofday(\&t, NULL); return t.tv_sec + 1e-6 * t.tv_usec; }\n\n&|'
  edit "$f" 1 "s|^\( *\)niter = $n0;|\1niter = op2check_int(\"OP2CHECK_NITER\", $n0);\n\1double op2check_t0 = op2check_clock();|"
  edit "$f" 1 's|^\( *\)op_profile_end();|\1op_printf("op2check time loop: %.6f s\\n", op2check_clock() - op2check_t0);\n&|'
  edit "$f" 1 's|^\( *\)op_profile_output();|&\n\1op_timing_output();|'
}

translator_venv() {
  [ -x "$VENV/bin/python" ] && return 0
  say "translator venv (jinja2 fparser pcpp sympy libclang==18.1.1) in ${VENV#"$ROOT"/}"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check jinja2 fparser pcpp sympy libclang==18.1.1
}

translate() { # APP CONFIG SRC_DIR GEN_DIR
  local app=$1 cfg=$2 src=$3 gen=$4
  local -a extra=()
  case $cfg in
    soa) extra=(-soa) ;;
    color) extra=(-c '{".*": {"atomics": false, "color2": true}}') ;;
  esac
  rm -rf "$gen"
  mkdir -p "$gen"
  PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" scripts/op2_translator_shim.py "$OP2_DIR" \
    -I "$INC" "${extra[@]}" -t cuda "$src/$app.cpp" -o "$gen" > "$gen.log" 2>&1 ||
    { tail -n 20 "$gen.log" >&2; die "translator-v2 failed on $app ($cfg)"; }
  local n
  n=$(grep -c 'Generated loop host' "$gen.log" || true)
  [ "$n" -gt 0 ] && [ -s "$gen/cuda/op2_kernels.cu" ] || die "translator-v2 generated no loops for $app ($cfg)"
  echo "   $app $cfg: $n loops"
}

OP2B=$WORK/op2-src
op2_cuda_library() { # OP2's own libop2_cuda.a, by its makefiles, same nvcc
  local lib=$OP2B/op2/lib/libop2_cuda.a stamp
  stamp="$(git -C "$OP2_DIR" rev-parse HEAD 2> /dev/null || echo none) $NVCC $CUDA_ARCH"
  if [ -s "$lib" ] && [ "$(cat "$OP2B/stamp" 2> /dev/null)" = "$stamp" ]; then
    say "OP2's libop2_cuda.a: up to date (${lib#"$ROOT"/})"
    return 0
  fi
  say "OP2's libop2_cuda.a: its makefiles, OP2_COMPILER=gnu TARGET_HOST=false NV_ARCH=Hopper"
  rm -rf "$OP2B"
  mkdir -p "$OP2B"
  cp -r "$OP2_DIR/op2" "$OP2_DIR/makefiles" "$OP2B/"
  # The PyPI toolkit has no libcuda stub and no libculibos: the makefiles'
  # fallback link line needs both, the library itself needs neither.
  local -a mk=(OP2_COMPILER=gnu TARGET_HOST=false CUDA_INSTALL_PATH="$CUDA_HOME" NV_ARCH=Hopper
    "CUDA_LINK=-lcudart_static -lpthread -lrt -ldl")
  (cd "$OP2B/op2" && make config "${mk[@]}" > "$WORK/op2-config.log" 2>&1 &&
    nice make -j2 cuda "${mk[@]}" > "$WORK/op2-build.log" 2>&1) ||
    { tail -n 20 "$WORK/op2-build.log" "$WORK/op2-config.log" >&2 || true; die "OP2's CUDA library did not build"; }
  [ -s "$lib" ] || die "OP2's build made no $lib"
  echo "$stamp" > "$OP2B/stamp"
}

build_variant() { # APP CONFIG
  local app=$1 cfg=$2 d=$WORK/$1_$2
  translate "$app" "$cfg" "$WORK/src/$app" "$d/gen"
  local side inc lib
  for side in rs op2; do
    inc=$INC
    [ $side = op2 ] && inc=$OP2B/op2/include
    nice "$NVCC" "${NVFLAGS[@]}" -I "$inc" -I "$d/gen/cuda" -c "$d/gen/cuda/op2_kernels.cu" \
      -o "$d/kernels_$side.o" > "$d/nvcc_$side.log" 2>&1 ||
      { tail -n 20 "$d/nvcc_$side.log" >&2; die "nvcc failed: $app $cfg for $side"; }
    nice g++ -std=c++17 -O3 -I "$inc" -I "$WORK/src/$app" -c "$d/gen/$app.cpp" -o "$d/host_$side.o" \
      > "$d/cxx_$side.log" 2>&1 || { tail -n 20 "$d/cxx_$side.log" >&2; die "g++ failed: $app $cfg for $side"; }
  done
  g++ "$d/host_rs.o" "$d/kernels_rs.o" -L "$OUT/lib" -lop2_cuda "$RPATH" "${LINK_CUDA[@]}" \
    -o "$OUT/bin/${app}_${cfg}_rs"
  g++ "$d/host_op2.o" "$d/kernels_op2.o" "$OP2B/op2/lib/libop2_cuda.a" "${LINK_CUDA[@]}" \
    -o "$OUT/bin/${app}_${cfg}_op2"
  strip --strip-debug "$OUT/bin/${app}_${cfg}_rs" "$OUT/bin/${app}_${cfg}_op2"
  program "${app}_${cfg}_rs" rs "$app"
  program "${app}_${cfg}_op2" op2 "$app"
}

reference() { # APP MESHFILE MESHGEN NI NJ: the op_seq.h source on libop2_seq.a
  local app=$1 mesh=$2 gen=$3 ni=$4 nj=$5 d=$WORK/ref_$1
  mkdir -p "$d/run"
  g++ -std=c++17 -O3 -I "$INC" -I "$WORK/src/$app" "$WORK/src/$app/$app.cpp" \
    "$OP2_LIBDIR/libop2_seq.a" -lpthread -ldl -lm -o "$d/${app}_seq"
  "$OUT/bin/$gen" -o "$d/run/$mesh" --ni "$ni" --nj "$nj" > /dev/null
  say "reference: $app on op_seq.h + libop2_seq.a, $(head -n 1 "$d/run/$mesh") ($gen $ni x $nj)"
  local t0 t1
  t0=$(date +%s)
  (cd "$d/run" && "../${app}_seq" > "$d/out.txt" 2> "$d/err.txt") ||
    { tail -n 5 "$d/err.txt" >&2; die "reference run of $app failed"; }
  t1=$(date +%s)
  echo "   $((t1 - t0)) s"
  cp "$d/out.txt" "$OUT/ref/$app.out"
  (cd "$d/run" && md5sum "$mesh") | awk '{print $1}' > "$OUT/ref/$app.mesh.md5"
  rm -f "$d/run"/out_grid*
}

if [ "${REF:-1}" = 1 ]; then
  say "reference: c-examples airfoil on libop2_seq.a ($EX_ARGS)"
  g++ -std=c++17 -O3 -I "$INC" -I c-examples/common -I c-examples/airfoil c-examples/airfoil/airfoil.cpp \
    "$WORK/obj/naca_mesh.o" "$OP2_LIBDIR/libop2_seq.a" -lpthread -ldl -lm -o "$WORK/ex_airfoil_seq"
  # shellcheck disable=SC2086
  "$WORK/ex_airfoil_seq" $EX_ARGS > "$OUT/ref/exairfoil.out" 2> "$WORK/ex_airfoil_seq.err" ||
    die "reference run of c-examples airfoil failed"
  mkdir -p "$WORK/ref-keep" && cp "$OUT/ref/exairfoil.out" "$WORK/ref-keep/"
else
  cp "$WORK/ref-keep/exairfoil.out" "$OUT/ref/" || die "REF=0 but no earlier reference in $WORK/ref-keep"
fi

if [ -n "$OP2_DIR" ]; then
  echo "OP2-Common: $OP2_DIR at $(git -C "$OP2_DIR" rev-parse --short HEAD 2> /dev/null || echo unknown)" >> "$MANIFEST"
  [ -s "$OP2_LIBDIR/libop2_seq.a" ] || die "$OP2_LIBDIR/libop2_seq.a is missing"
  translator_venv
  op2_cuda_library
  say "OP2-Common's sources (patched copies) and translator-v2 (-t cuda)"
  sources airfoil "$WORK/src/airfoil"
  sources aero "$WORK/src/aero"
  for cfg in aos soa color; do build_variant airfoil "$cfg"; done
  build_variant aero aos
  # each as its translated counterparts are configured: two-level colouring
  # staged (our default) and unstaged (OP2's "color"), atomics (OP2's
  # "aos", its translator's default) and, for airfoil, atomics with SoA
  # device copies (OP2's "soa"): which scheme wins on a GPU is what the
  # check is to find out
  say "OP2-Common's airfoil and aero (op_seq.h, not translated) on libop2_cuda -> bin/*_jit*, cache/"
  # and, with the loops' kernels left queued (OP2_RS_DEVICE_ASYNC=1, where
  # OP2's code waits after each loop), the default and atomics; and with
  # fused multiply-adds (OP2_RS_FMA=1: NVRTC --fmad=true, nvcc's default,
  # with which OP2's translated code is compiled), the default and atomics
  for name in airfoil_jit airfoil_jit_global airfoil_jit_atomics airfoil_jit_soa_atomics \
    airfoil_jit_async airfoil_jit_atomics_async airfoil_jit_fma airfoil_jit_atomics_fma; do
    mkdir -p "$WORK/jit_$name"
    "$OUT/bin/meshgen" -o "$WORK/jit_$name/new_grid.dat" --ni 20 --nj 10 > /dev/null
    jit_program "$name" airfoil "$WORK/src/airfoil" "" "" "$WORK/src/airfoil/airfoil.cpp"
  done
  for name in aero_jit aero_jit_global aero_jit_atomics aero_jit_async aero_jit_fma aero_jit_atomics_fma; do
    mkdir -p "$WORK/jit_$name"
    "$OUT/bin/aero_meshgen" -o "$WORK/jit_$name/FE_grid.dat" --ni 20 --nj 10 > /dev/null
    jit_program "$name" aero "$WORK/src/aero" "" "" "$WORK/src/aero/aero.cpp"
  done
  if [ "${REF:-1}" = 1 ]; then
    reference airfoil new_grid.dat meshgen "$NI" "$NJ"
    reference aero FE_grid.dat aero_meshgen "$AERO_NI" "$AERO_NJ"
    mkdir -p "$WORK/ref-keep" && cp "$OUT/ref"/* "$WORK/ref-keep/"
  else
    cp "$WORK/ref-keep"/* "$OUT/ref/" || die "REF=0 but no earlier references in $WORK/ref-keep"
  fi
else
  echo "OP2-Common: none given (tests/cuda programs only)" >> "$MANIFEST"
fi

cp scripts/gpu_check.sh "$OUT/check.sh"
chmod +x "$OUT/check.sh"

# ---- every program loads its libraries from the bundle ---------------------------
say "dynamic links"
bad=0
while read -r name kind _; do
  f=$OUT/bin/$name
  miss=$(env -u LD_LIBRARY_PATH ldd "$f" 2> /dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
  where=$(env -u LD_LIBRARY_PATH ldd "$f" 2> /dev/null | awk '/libop2_/ {print $3}')
  [ -n "$where" ] && where=$(readlink -f "$where")
  case $kind in
    rs | mpi | jit)
      case $where in "$OUT"/lib/*) ;; *)
        echo "   $name: libop2 resolves to '${where:-nothing}', not the bundle's lib/" >&2
        bad=1
        ;;
      esac
      ;;
  esac
  if [ -n "$miss" ] && [ "$kind" != mpi ]; then
    echo "   $name: not found: $miss" >&2
    bad=1
  fi
done < "$OUT/programs.txt"
[ $bad = 0 ] || die "a program does not find its libraries"

bytes=$(du -sb "$OUT" | awk '{print $1}')
{
  echo "programs: $(wc -l < "$OUT/programs.txt")"
  echo "size: $bytes bytes (limit $MAX_MIB MiB)"
  echo "left out: the MPI airfoil (see scripts/gpu_bundle.sh: OpenMPI + parallel HDF5 runtime, about 44 MB, does not travel)"
} >> "$MANIFEST"
say "bundle: ${OUT#"$ROOT"/}, $(wc -l < "$OUT/programs.txt") programs, $((bytes / 1024)) KiB"
du -sk "$OUT"/lib/* "$OUT"/bin/* | sort -rn | head -n 6 | sed 's/^/   /'
[ "$bytes" -le $((MAX_MIB * 1024 * 1024)) ] || die "bundle is $bytes bytes, over the $MAX_MIB MiB limit"
echo "   on a GPU machine: ${OUT#"$ROOT"/}/check.sh RESULTS_DIR (with the device tool: carry ${OUT#"$ROOT"/},"
echo "   command: timeout 330 ${OUT#"$ROOT"/}/check.sh /tmp/r; rc=\$?; cp /tmp/r/summary.txt \$OUT/; tar czf \$OUT/results.tgz -C /tmp r; exit \$rc,"
echo "   timeout_s 360: check.sh starts no run after BUDGET_S=240 s and stops every run at DEADLINE_S=300 s, so a second call fits in 15 device minutes)"
