#!/usr/bin/env bash
# op2_dropin_check.sh -- the drop-in check: OP2-Common's own C/C++ and
# Fortran applications and functional tests, unchanged, built against
# op2-rs's headers and libraries AND against OP2's own libraries (built from
# the same checkout), run on the same meshes; the answers they print must
# agree.
#
#   scripts/op2_dropin_check.sh OP2_DIR     (OP2_DIR: an OP2-Common checkout, read only)
#
# Local only (not part of scripts/test.sh). Everything is built and run under
# target/op2dropin ($OUT); the sources are copied there, nothing of OP2 is
# committed. Steps:
#  1. op2-rs: `cargo build --release --workspace`, and our Fortran modules
#     (fortran/*.F90) compiled with gfortran into $OUT/rs/lib/libop2_fortran.a
#     (modules in $OUT/rs/mod).
#     OP2: op2/ and makefiles/ copied to $OUT/op2-src, `make config`
#     (OP2_COMPILER=gnu, Debian's serial and parallel HDF5, no partitioner:
#     OP2 keeps the block distribution) and `make seq openmp mpi hdf5 f_seq
#     f_openmp f_mpi f_hdf5` into $OUT/op2 (lib/, mod/). Built once: kept
#     while $OUT/op2/stamp names the checkout's commit (OP2_REBUILD=1 forces).
#  2. Meshes from op2-rs's own generators (c-examples): new_grid.dat
#     (meshgen, $NI x $NJ O-grid), FE_grid.dat (aero_meshgen, $AERO_NI x
#     $AERO_NJ), new_grid.h5 (mesh2hdf5 of new_grid.dat), FE_grid.h5
#     (aero2hdf5 of FE_grid.dat). Every run directory gets copies of all four.
#  3. translator-v2 (through scripts/op2_translator_shim.py, targets seq and
#     openmp) on each source set, as OP2's makefiles call it (C: -I of the
#     source directory and OP2's include/, MPI sources also the MPI include
#     directories; Fortran: the app's -D flags and --consts-module).
#  4. Cases: every case is one program built twice (rs: include/ + our
#     libraries; op2: OP2's include/ + OP2's libraries), with the same
#     compiler and flags, and run the same way:
#       seq      the op_seq.h source (C) / reference build (Fortran), seq library
#       omp      the op_seq.h source, openmp library, $THREADS threads (C only)
#       genseq   translator output for seq, seq library
#       genomp   translator output for openmp (-fopenmp), openmp library, $THREADS threads
#       mpi      the MPI source (-DUSE_MPI), mpi library, $RANKS ranks
#       genmpi   translator output (seq) of the MPI source, mpi library, $RANKS ranks
#       ocl      the op_seq.h source (C), ours on libop2_opencl (PoCL here: every
#                loop's device code written at run time), OP2's on its seq
#                library; the verdict says how many loops ran on the device
#       cujit    the op_seq.h source (C), ours on libop2_cuda with its device
#                simulated in host memory and OP2_RS_CUDA_ARCH=sm_90: every
#                loop's CUDA C++ written at run time and compiled by NVRTC
#                (PyPI, scripts/cuda_toolkit.sh), then run on host threads;
#                OP2's on its seq library; FAIL unless every loop compiled
#       cuemu    the op_seq.h source (C), ours on libop2_cuda on the CUDA
#                emulator (scripts/cuda_emu.sh: an emulated driver and NVRTC;
#                every loop's CUDA C++ written at run time, compiled by g++,
#                its kernels run on the host, block by block; not a GPU),
#                OP2's on its seq library; the verdict says how many loops
#                ran on the (emulated) device
#       mpiocl   the MPI source (-DUSE_MPI), ours on libop2_mpi_opencl (every
#                rank's loops on the OpenCL device, code written at run
#                time), OP2's on its mpi library, $RANKS ranks; the verdict
#                says how many loops ran on the device (rank 0's table)
#     HDF5 programs link the hdf5 library too (serial HDF5; parallel under MPI).
#  5. Answers: the lines the program prints as results (airfoil's rms history
#     and its final check, aero's residuals, jac's u max/rms, grid and edge
#     lines, the reduction counts, every passed/failed/ERROR line; rank lines
#     of MPI runs sorted). Verdicts:
#       PASS      both ran, exit status 0, answers identical ("=") -- or, where
#                 the two libraries execute in a different order (omp, ocl: OP2's
#                 op_seq.h runs sequentially, ours in threads; mpi/genmpi:
#                 different partitions), every number within one unit of its
#                 last printed digit or $TOL relative ($SP_TOL for the
#                 single-precision apps) ("~"; aero: its
#                 residual within $AERO_TOL or 1e-9 of its first residual,
#                 CG iteration counts free, as
#                 OP2's own parallel builds differ from its sequential one)
#       FAIL      OP2's build passes and ours does not compile/link, stops
#                 with a non-zero status, or prints different answers
#       SKIP-OP2  the case fails on OP2's own libraries too (translation,
#                 build, run, or the program's own check): reason given
# The table is printed at the end and written to $OUT/results.txt; the exit
# status is 1 when any case FAILs.
#
# Environment (defaults in brackets):
#   OUT          work directory [target/op2dropin]
#   OP2_TRANSLATOR_VENV  venv with translator-v2's dependencies
#                [target/op2bench/venv; created when missing, as bench_op2.sh does]
#   CASES        extended regex: only cases whose name matches [.]
#   NI, NJ       airfoil mesh [60 x 30 = 1800 cells]
#   AERO_NI, AERO_NJ  aero mesh [40 x 20]
#   THREADS      OMP_NUM_THREADS of omp/genomp runs [2]
#   RANKS        ranks of mpi/genmpi runs [2]
#   MPIRUN       [mpirun --allow-run-as-root --oversubscribe --bind-to none]
#   TOL          relative tolerance of the "~" comparison [1e-9]
#   SP_TOL       the same for the single-precision apps (*_sp) [1e-3: float
#                sums in another order; OP2's own MPI airfoil_sp differs from
#                its sequential one by 1.5e-4 after 1000 steps]
#   AERO_TOL     relative tolerance of aero's residual in the "~" comparison [0.1]
#   OCL_AERO_TOL the same for the ocl cases [0.3, as the GPU check's]
#   RUN_TIMEOUT  seconds per run [120]
#   CARGO_BUILD  0: do not run cargo [1]
#   OP2_REBUILD  1: rebuild OP2's libraries even when cached [0]
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OP2_DIR" >&2; exit 2; }
OP2=$(cd "$1" && pwd) || exit 2
if [ ! -f "$OP2/op2/src/core/op_lib_core.cpp" ] || [ ! -d "$OP2/apps" ]; then
  echo "$OP2: not an OP2-Common checkout" >&2
  exit 2
fi

OUT=${OUT:-$ROOT/target/op2dropin}
VENV=${OP2_TRANSLATOR_VENV:-$ROOT/target/op2bench/venv}
CASES=${CASES:-.}
NI=${NI:-60}
NJ=${NJ:-30}
AERO_NI=${AERO_NI:-40}
AERO_NJ=${AERO_NJ:-20}
THREADS=${THREADS:-2}
RANKS=${RANKS:-2}
read -r -a MPIRUN <<< "${MPIRUN:-mpirun --allow-run-as-root --oversubscribe --bind-to none}"
TOL=${TOL:-1e-9}
SP_TOL=${SP_TOL:-1e-3}
AERO_TOL=${AERO_TOL:-0.1}
OCL_AERO_TOL=${OCL_AERO_TOL:-0.3}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
CARGO_BUILD=${CARGO_BUILD:-1}
OP2_REBUILD=${OP2_REBUILD:-0}

OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
H5SER=/usr/lib/x86_64-linux-gnu/hdf5/serial
H5PAR=/usr/lib/x86_64-linux-gnu/hdf5/openmpi
H5SER_LIBS=(-L"$H5SER/lib" "-Wl,-rpath,$H5SER/lib" -lhdf5 -lz)
H5PAR_LIBS=(-L"$H5PAR/lib" "-Wl,-rpath,$H5PAR/lib" -lhdf5 -lz)
# application flags, the same for both libraries (OP2's apps are not ours to
# make warning-free: -w)
CXXFLAGS=(-std=c++17 -O1 -w)
FFLAGS=(-O1 -w -ffixed-line-length-none -ffree-line-length-none -fcray-pointer)
SYSLIBS=(-lpthread -ldl -lm)

# OpenMP threads sleep while they wait: on a shared 2-core machine spinning
# threads slow every run down many times (answers do not depend on it)
export OMP_WAIT_POLICY=passive

mkdir -p "$OUT"/{log,bin,obj,gen,run,mesh,src}
LOG=$OUT/log

# ---- results -----------------------------------------------------------------
declare -a ROWS=()
NFAIL=0
CASE_START=$SECONDS
verdict() { # verdict CASE RESULT NOTE
  ROWS+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")")
  [ "$2" = FAIL ] && NFAIL=$((NFAIL + 1))
  printf '== %-34s %-8s %s (%d s)\n' "$1" "$2" "$3" "$((SECONDS - CASE_START))"
}
first_error() { # the first line of a log that names an error, shortened
  { grep -m1 -E 'error|undefined reference|multiple definition|Error|ERROR|No such' "$1" ||
    grep -v '^ *$' "$1" | tail -n 1; } | sed "s|$OUT/||g; s|$ROOT/||g" | cut -c1-110
}

# ---- 1. libraries -------------------------------------------------------------
build_rs() {
  if [ "$CARGO_BUILD" = 1 ]; then
    echo "== op2-rs: cargo build --release --workspace (log: ${LOG#"$ROOT"/}/cargo.log)"
    (cd "$ROOT" && nice -n 10 cargo build --release --workspace) > "$LOG/cargo.log" 2>&1 || {
      tail -n 5 "$LOG/cargo.log" >&2
      return 1
    }
  fi
  local m
  rm -rf "$OUT/rs"
  mkdir -p "$OUT/rs/mod" "$OUT/rs/lib"
  # declarations first: the other modules use it
  for m in op2_for_declarations op2_for_reference op2_for_rt_support op2_for_hdf5_declarations; do
    gfortran "${FFLAGS[@]}" -J"$OUT/rs/mod" -c "$ROOT/fortran/$m.F90" -o "$OUT/rs/lib/$m.o" || return 1
  done
  ar rcs "$OUT/rs/lib/libop2_fortran.a" "$OUT/rs/lib"/*.o
}

op2_rev() { git -C "$OP2" rev-parse HEAD 2> /dev/null || echo unknown; }

build_op2() {
  local stamp=$OUT/op2/stamp lib
  if [ "$OP2_REBUILD" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(op2_rev)" ]; then
    echo "== OP2: libraries of $(op2_rev) cached in ${OUT#"$ROOT"/}/op2"
    return 0
  fi
  echo "== OP2: make config + make (log: ${LOG#"$ROOT"/}/op2-make.log; a few minutes on 2 cores)"
  rm -rf "$OUT/op2-src" "$OUT/op2"
  mkdir -p "$OUT/op2-src"
  # OP2's `make config` writes into makefiles/: a copy, never the checkout
  cp -a "$OP2/op2" "$OP2/makefiles" "$OUT/op2-src/" || return 1
  rm -rf "$OUT/op2-src/op2/lib" "$OUT/op2-src/op2/obj" "$OUT/op2-src/makefiles/.config.mk"
  nice -n 10 make -C "$OUT/op2-src/op2" config OP2_COMPILER=gnu TARGET_HOST=false \
    HDF5_SEQ_INSTALL_PATH="$H5SER" HDF5_PAR_INSTALL_PATH="$H5PAR" > "$LOG/op2-config.log" 2>&1 || return 1
  nice -n 10 make -C "$OUT/op2-src/op2" -j2 OP2_BUILD_DIR="$OUT/op2" \
    seq openmp mpi hdf5 f_seq f_openmp f_mpi f_hdf5 > "$LOG/op2-make.log" 2>&1 || return 1
  for lib in seq openmp mpi hdf5 for_seq for_openmp for_mpi for_hdf5; do
    [ -s "$OUT/op2/lib/libop2_$lib.a" ] || { echo "OP2: libop2_$lib.a missing" >&2; return 1; }
  done
  op2_rev > "$stamp"
}

setup_venv() {
  [ -x "$VENV/bin/python" ] && return 0
  echo "== translator venv (jinja2 fparser pcpp sympy libclang==18.1.1) in $VENV"
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q jinja2 fparser pcpp sympy libclang==18.1.1
}

# ---- 2. meshes ------------------------------------------------------------------
make_meshes() {
  local b=$ROOT/c-examples/build m=$OUT/mesh
  make -C "$ROOT/c-examples" -j1 build/meshgen build/aero_meshgen build/mesh2hdf5 build/aero2hdf5 \
    > "$LOG/meshtools.log" 2>&1 || return 1
  rm -f "$m"/*
  "$b/meshgen" --ni "$NI" --nj "$NJ" -o "$m/new_grid.dat" > /dev/null &&
    "$b/aero_meshgen" --ni "$AERO_NI" --nj "$AERO_NJ" -o "$m/FE_grid.dat" > /dev/null &&
    "$b/mesh2hdf5" "$m/new_grid.dat" -o "$m/new_grid.h5" > /dev/null &&
    "$b/aero2hdf5" "$m/FE_grid.dat" -o "$m/FE_grid.h5" > /dev/null || return 1
  echo "== meshes: new_grid.dat/.h5 ($(head -n 1 "$m/new_grid.dat")), FE_grid.dat/.h5 ($(head -n 1 "$m/FE_grid.dat"))"
}

# ---- 3. translation -------------------------------------------------------------
mpi_incs() { local i; for i in $(mpicxx -showme:incdirs); do printf -- '-I\n%s\n' "$i"; done; }

# translate KEY SRCDIR "SOURCES" [translator flags...]: $OUT/gen/KEY, once per run
declare -A TRANSLATED=()
translate() {
  local key=$1 dir=$2 srcs=$3
  shift 3
  if [ -n "${TRANSLATED[$key]:-}" ]; then return "${TRANSLATED[$key]}"; fi
  local g=$OUT/gen/$key rc=0
  rm -rf "$g"
  mkdir -p "$g"
  # shellcheck disable=SC2086 # SOURCES is a word list
  (cd "$dir" && PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" "$ROOT/scripts/op2_translator_shim.py" "$OP2" \
    "$@" -t seq -t openmp $srcs -o "$g") > "$LOG/translate.$key.log" 2>&1 || rc=1
  TRANSLATED[$key]=$rc
  return $rc
}

# ---- 4. build -------------------------------------------------------------------
# link_flags LIBSIDE LANG KIND HDF5: the libraries, as each project links them
link_flags() {
  local side=$1 lang=$2 kind=$3 h5=$4 clib
  case $kind in seq | genseq | ocl | cujit | cuemu) clib=seq ;; omp | genomp) clib=openmp ;; *) clib=mpi ;; esac
  if [ "$side" = rs ]; then
    [ "$lang" = f ] && printf '%s\n' "$OUT/rs/lib/libop2_fortran.a"
    [ "$h5" = 1 ] && [ "$clib" != mpi ] && printf '%s\n' "$OP2_LIBDIR/libop2_hdf5.a"
    # ocl: the op_seq.h source on libop2_opencl against OP2's seq library
    if [ "$kind" = ocl ]; then
      printf '%s\n' "$OP2_LIBDIR/libop2_opencl.a" "${SYSLIBS[@]}"
    elif [ "$kind" = mpiocl ]; then
      printf '%s\n' "$OP2_LIBDIR/libop2_mpi_opencl.a" "${SYSLIBS[@]}"
    elif [ "$kind" = cujit ] || [ "$kind" = cuemu ]; then
      printf '%s\n' "$OP2_LIBDIR/libop2_cuda.a" "${SYSLIBS[@]}"
    else
      printf '%s\n' "$OP2_LIBDIR/libop2_$clib.a" "${SYSLIBS[@]}"
    fi
  else
    printf '%s\n' "-L$OUT/op2/lib"
    if [ "$lang" = f ]; then
      [ "$h5" = 1 ] && [ "$clib" != mpi ] && printf '%s\n' -lop2_for_hdf5
      printf '%s\n' "-lop2_for_$clib" -lstdc++
    else
      [ "$h5" = 1 ] && [ "$clib" != mpi ] && printf '%s\n' -lop2_hdf5
      printf '%s\n' "-lop2_$clib"
    fi
    printf '%s\n' "${SYSLIBS[@]}"
  fi
  if [ "$clib" = mpi ]; then
    # OP2's MPI library always holds its HDF5 code; ours only needs it when used
    if [ "$side" = op2 ] || [ "$h5" = 1 ]; then printf '%s\n' "${H5PAR_LIBS[@]}"; fi
  elif [ "$h5" = 1 ]; then
    printf '%s\n' "${H5SER_LIBS[@]}"
  fi
}

# build_one CASE SIDE: compiles the case's program for one side into $OUT/bin/CASE.SIDE
build_one() {
  local side=$1 exe=$OUT/bin/$C_ID.$1 obj=$OUT/obj/$C_ID.$1
  local -a cmd srcs inc links
  rm -rf "$exe" "$obj"
  mkdir -p "$obj"
  mapfile -t links < <(link_flags "$side" "$C_LANG" "$C_KIND" "$C_H5")
  local gen=$OUT/gen/$C_GEN s t
  case $C_KIND in genomp) t=openmp ;; *) t=seq ;; esac
  if [ "$C_LANG" = c ]; then
    if [ "$side" = rs ]; then inc=(-I"$ROOT/include"); else inc=(-I"$OP2/op2/include"); fi
    case $C_KIND in
      seq | omp | mpi | mpiocl | ocl | cujit | cuemu) for s in $C_SRCS; do srcs+=("$C_DIR/$s"); done ;;
      *) for s in $C_SRCS; do srcs+=("$gen/$s"); done; srcs+=("$gen/$t/op2_kernels.cpp") ;;
    esac
    case $C_KIND in
      mpi | genmpi | mpiocl) cmd=(mpicxx -DUSE_MPI) ;;
      omp | genomp) cmd=(g++ -fopenmp) ;; # (omp: OP2's openmp library needs libgomp)
      *) cmd=(g++) ;;
    esac
    cmd+=("${CXXFLAGS[@]}" -I"$C_DIR" "${inc[@]}")
  else
    if [ "$side" = rs ]; then inc=(-I"$OUT/rs/mod"); else inc=(-I"$OUT/op2/mod"); fi
    case $C_KIND in
      seq | mpi) for s in $C_SRCS; do srcs+=("$C_DIR/$s"); done ;;
      *)
        srcs+=("$gen/$t/op2_consts.F90")
        for s in "$gen/$t"/*_kernel.F90; do srcs+=("$s"); done
        srcs+=("$gen/$t/op2_kernels.F90")
        for s in $C_SRCS; do srcs+=("$gen/$s"); done
        ;;
    esac
    case $C_KIND in
      mpi | genmpi) cmd=(mpif90 -DUSE_MPI) ;;
      genomp) cmd=(gfortran -fopenmp) ;;
      *) cmd=(gfortran) ;;
    esac
    # shellcheck disable=SC2206 # the app's -D flags are a word list
    cmd+=("${FFLAGS[@]}" -DOP_PART_SIZE_1=128 $C_DEFS -J"$obj" "${inc[@]}")
  fi
  (cd "$obj" && nice -n 10 "${cmd[@]}" "${srcs[@]}" "${links[@]}" -o "$exe") > "$LOG/build.$C_ID.$side.log" 2>&1
}

# ---- 5. run and answers -----------------------------------------------------------
run_one() { # run_one SIDE -> $OUT/run/CASE.SIDE/{out,rc}
  local side=$1 d=$OUT/run/$C_ID.$1 rc=0
  rm -rf "$d"
  mkdir -p "$d"
  cp "$OUT/mesh"/* "$d/"
  case $C_KIND in
    mpi | genmpi)
      (cd "$d" && OMP_NUM_THREADS=1 timeout "$RUN_TIMEOUT" "${MPIRUN[@]}" -np "$RANKS" -x OMP_NUM_THREADS \
        "$OUT/bin/$C_ID.$side" > out 2>&1) || rc=$?
      ;;
    mpiocl)
      # libop2_mpi_opencl: its cache in $OUT, where each loop ran printed at op_exit
      (cd "$d" && OMP_NUM_THREADS=1 OP2_RS_DEVICE_STATS=1 OP2_RS_CACHE_DIR="$OUT/opencl-cache" \
        timeout "$RUN_TIMEOUT" "${MPIRUN[@]}" -np "$RANKS" -x OMP_NUM_THREADS -x OP2_RS_DEVICE_STATS \
        -x OP2_RS_CACHE_DIR "$OUT/bin/$C_ID.$side" > out 2>&1) || rc=$?
      ;;
    omp | genomp)
      (cd "$d" && OMP_NUM_THREADS=$THREADS timeout "$RUN_TIMEOUT" "$OUT/bin/$C_ID.$side" > out 2>&1) || rc=$?
      ;;
    ocl)
      # libop2_opencl: its cache in $OUT, where each loop ran printed at op_exit
      (cd "$d" && OP2_RS_DEVICE_STATS=1 OP2_RS_CACHE_DIR="$OUT/opencl-cache" timeout "$RUN_TIMEOUT" \
        "$OUT/bin/$C_ID.$side" > out 2>&1) || rc=$?
      ;;
    cujit)
      # libop2_cuda on the simulated device, compiling for sm_90 with NVRTC
      [ -n "${CUDA_HOME:-}" ] || eval "$("$ROOT/scripts/cuda_toolkit.sh" env)"
      (cd "$d" && OP2_RS_DEVICE=host OP2_RS_CUDA_ARCH=sm_90 OP2_RS_CACHE_DIR="$OUT/cuda-cache" \
        LD_LIBRARY_PATH="$CUDA_HOME/lib" OP2_RS_DEVICE_STATS=1 OMP_NUM_THREADS=$THREADS \
        timeout "$RUN_TIMEOUT" "$OUT/bin/$C_ID.$side" > out 2>&1) || rc=$?
      ;;
    cuemu)
      # libop2_cuda on the CUDA emulator: its own cache, where each loop ran at op_exit
      (cd "$d" && LD_LIBRARY_PATH="$("$ROOT/scripts/cuda_emu.sh")" OP2_RS_CACHE_DIR="$OUT/cuemu-cache" \
        OP2_RS_DEVICE_STATS=1 timeout "$RUN_TIMEOUT" "$OUT/bin/$C_ID.$side" > out 2>&1) || rc=$?
      ;;
    *) (cd "$d" && OMP_NUM_THREADS=1 timeout "$RUN_TIMEOUT" "$OUT/bin/$C_ID.$side" > out 2>&1) || rc=$? ;;
  esac
  echo "$rc" > "$d/rc"
  answers "$d/out" > "$d/answers"
}

# the answer lines of a program's output; sorted when the order is not the
# program's (MPI ranks print concurrently; jac's edge kernel prints in
# execution order)
answers() {
  local sorted=0 solution_rows=""
  # under MPI the solution rows are compared as a multiset (below): a
  # pattern that matches nothing keeps them out of the line-by-line answers
  case $C_KIND in mpi | genmpi | mpiocl) sorted=1; solution_rows="^never" ;; esac
  {
    grep -E -v '^edge [0-9]+, nodes' "$1" | grep -E \
      -e '^ *[0-9]+ +([-+]?[0-9.]+[eE][-+]?[0-9]+|-?nan)(, max err:.*| +max err:.*)? *$' \
      -e '^[0-9]+ [0-9]+ [-+0-9.eE]+ *$' \
      -e 'u max/rms|Results check' -e "^( *-?[0-9]+\\.[0-9]{4})+ *\$$solution_rows" \
      -e 'number of (edges|cells)|[Rr]eduction: (cell|edge) count' \
      -e 'Test problem|[Pp]assed|PASSED|[Ff]ailed|FAILED|ERROR|Failure|Mismatch|Global number|^min: ' |
      if [ $sorted = 1 ]; then sort; else cat; fi
    # (under MPI the edge kernel prints rank-local element and node numbers,
    # which depend on the partition: not answers there)
    if [ $sorted = 0 ]; then grep -E '^edge [0-9]+, nodes' "$1" | sort; fi
    # under MPI each rank prints the solution values it owns ("solution on
    # rank N" rows): which rank holds which depends on the partition, so the
    # answer is the multiset of values, one per line (a rank's heading can
    # land at the end of another's row: ranks write to one stream)
    if [ $sorted = 1 ]; then
      sed 's/solution on rank/\n&/g' "$1" | grep -E '^( *-?[0-9]+\.[0-9]{4})+ *$' | tr -s ' ' '\n' | grep . |
        sort -g | sed 's/^/value /'
    fi
  } | sed 's/[[:space:]]*$//'
}

# the answers' own verdict: a line of OP2's output that says the program's
# own check failed (the apps' comparisons with OP2's standard mesh are not
# checks on our meshes: they print the same on both sides and are compared)
own_failure() {
  grep -E -m1 'ERROR|Failure|Mismatch|Node check failed|[Cc]heck FAILED| Test FAILED|Reduction application FAILED|reduction Failed|^ *[0-9]+ +-?nan( |$)' "$1"
}

# compare_tolerant REF TEST AERO TOL: exit 0 when every line has the same
# words and every number is within one unit of its last printed digit or TOL
# relative; prints the largest relative difference
compare_tolerant() {
  awk -v tol="$4" -v atol="$AERO_TOL" -v aero="$3" '
    function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eEdD][-+]?[0-9]+)?$/ }
    function ulp(s,   m, e, d) {   # one unit in the last printed digit of s
      m = s; e = 0
      if (match(s, /[eEdD][-+]?[0-9]+$/)) { e = substr(s, RSTART + 1) + 0; m = substr(s, 1, RSTART - 1) }
      d = index(m, ".") ? length(m) - index(m, ".") : 0
      return 10 ^ (e - d)
    }
    function absv(x) { return x < 0 ? -x : x }
    FNR == NR {
      r[FNR] = $0; nr = FNR
      if (aero && $0 ~ /^[0-9]+ [0-9]+ [-+0-9.eE]+$/ && absv($3 + 0) > amax) amax = absv($3 + 0)
      next
    }
    {
      n = FNR
      if ($0 == r[FNR]) next
      na = split(r[FNR], a, /[ ,;:]+/); nb = split($0, b, /[ ,;:]+/)
      if (na != nb) { bad = 1; why = "line " FNR; next }
      isaero = aero && $0 ~ /^[0-9]+ [0-9]+ [-+0-9.eE]+$/
      for (i = 1; i <= na; ++i) {
        if (a[i] == b[i]) continue
        if (!isnum(a[i]) || !isnum(b[i])) { bad = 1; why = "line " FNR; break }
        if (a[i] !~ /[.eE]/) {       # integers: element numbers (after "at") and aero CG counts may differ
          if (a[i - 1] == "at" || (isaero && i == 2)) continue
          bad = 1; why = "line " FNR; break
        }
        x = a[i] + 0; y = b[i] + 0; d = absv(x - y)
        rel = d / (x != 0 ? absv(x) : 1); if (rel > worst) worst = rel
        # aero: relative, or below 1e-9 of its first residual (the round-off
        # floor it converges to, where the digits are noise in every build)
        lim = isaero ? atol * absv(x) : tol * absv(x)
        if (isaero && lim < 1e-9 * amax) lim = 1e-9 * amax
        u = ulp(a[i]); if (ulp(b[i]) > u) u = ulp(b[i])
        if (d > lim && d > u * 1.000001) { bad = 1; why = "line " FNR; break }
      }
    }
    END {
      if (n != nr) { bad = 1; why = "line count " nr " vs " n }
      printf "max rel diff %.1e%s", worst, bad ? "; first difference: " why : ""
      exit bad
    }' "$1" "$2"
}

judge() { # judge: the verdict of the current case from both sides' builds and runs
  local o=$OUT/run/$C_ID.op2 r=$OUT/run/$C_ID.rs f
  if [ "$OP2_BUILT" != 0 ]; then
    verdict "$C_ID" SKIP-OP2 "OP2 build fails: $(first_error "$LOG/build.$C_ID.op2.log")"
    return
  fi
  if [ "$(cat "$o/rc")" != 0 ] || [ ! -s "$o/answers" ]; then
    verdict "$C_ID" SKIP-OP2 "OP2 run: status $(cat "$o/rc"), $(wc -l < "$o/answers") answer lines: $(first_error "$o/out")"
    return
  fi
  if f=$(own_failure "$o/out"); then
    verdict "$C_ID" SKIP-OP2 "OP2's run fails its own check: $(echo "$f" | cut -c1-90)"
    return
  fi
  if [ "$RS_BUILT" != 0 ]; then
    verdict "$C_ID" FAIL "build: $(first_error "$LOG/build.$C_ID.rs.log")"
    return
  fi
  if [ "$(cat "$r/rc")" != 0 ]; then
    verdict "$C_ID" FAIL "run: status $(cat "$r/rc"): $(first_error "$r/out")"
    return
  fi
  if f=$(own_failure "$r/out"); then
    verdict "$C_ID" FAIL "own check: $(echo "$f" | cut -c1-90)"
    return
  fi
  local n where=""
  n=$(wc -l < "$o/answers")
  # ocl, mpiocl: how many loops ran on the device (the table printed at op_exit,
  # to its blank line: a table of device times may follow)
  if [ "$C_KIND" = ocl ] || [ "$C_KIND" = mpiocl ] || [ "$C_KIND" = cuemu ]; then
    where=" [device: $(awk '/where each loop ran/{t=1;next} /^ *$/{t=0} t&&/^  [A-Za-z_]/{n++; if($2=="device")d++} END{printf "%d of %d loops", d, n}' "$r/out")]"
  fi
  # cujit: how many loops NVRTC compiled (each then runs on the host)
  if [ "$C_KIND" = cujit ]; then
    local nl nc
    nl=$(awk '/where each loop ran/{t=1;next} /^ *$/{t=0} t&&/^  [A-Za-z_]/{n++} END{print n+0}' "$r/out")
    nc=$(grep -c '^ op2-rs: loop .* runs on the host: compiled for sm_90 by NVRTC' "$r/out" || true)
    where=" [NVRTC: $nc of $nl loops compiled for sm_90]"
    if [ "$nc" = 0 ] || [ "$nc" != "$nl" ]; then
      verdict "$C_ID" FAIL "not every loop compiled:$where $(grep -m1 'runs on the host:' "$r/out" | grep -v 'compiled for' | cut -c1-120)"
      return
    fi
  fi
  if cmp -s "$o/answers" "$r/answers"; then
    verdict "$C_ID" PASS "= $n answer lines identical$where"
    return
  fi
  local strict=1 aero=0 tol=$TOL note
  case $C_KIND in omp | mpi | genmpi | mpiocl | ocl | cujit | cuemu) strict=0 ;; esac
  # ocl: the device sums CG's dot products per work-group in a tree; aero's
  # residuals drift further from the sequential ones than on host threads
  # (about 10% once they are 1e-7 of the first; each loop alone on the
  # device stays within 1%), as OP2's own CUDA build does
  local AERO_TOL=$AERO_TOL
  case $C_KIND in ocl | mpiocl | cuemu) AERO_TOL=$OCL_AERO_TOL ;; esac
  case $C_ID in *aero*) aero=1 ;; esac
  case $C_ID in *_sp.*) tol=$SP_TOL ;; esac
  if [ $strict = 0 ] && note=$(compare_tolerant "$o/answers" "$r/answers" "$aero" "$tol"); then
    verdict "$C_ID" PASS "~ $n answer lines, order differs: $note$where"
  else
    [ $strict = 1 ] && note=$(compare_tolerant "$o/answers" "$r/answers" "$aero" "$tol")
    verdict "$C_ID" FAIL "answers differ ($(diff "$o/answers" "$r/answers" | grep -c '^[<>]') lines; $note)"
  fi
}

# run_case ID LANG DIR "SOURCES" KIND HDF5 GENKEY "DEFS": build both sides, run, judge
run_case() {
  C_ID=$1 C_LANG=$2 C_DIR=$3 C_SRCS=$4 C_KIND=$5 C_H5=$6 C_GEN=$7 C_DEFS=${8:-}
  echo "$C_ID" | grep -Eq -- "$CASES" || return 0
  CASE_START=$SECONDS
  case $C_KIND in
    gen*)
      if [ "${TRANSLATED[$C_GEN]:-1}" != 0 ]; then
        verdict "$C_ID" SKIP-OP2 "translator-v2 fails: $(first_error "$LOG/translate.$C_GEN.log")"
        return
      fi
      ;;
  esac
  build_one op2 &
  local p=$!
  build_one rs
  RS_BUILT=$?
  wait "$p"
  OP2_BUILT=$?
  [ "$OP2_BUILT" = 0 ] && run_one op2
  [ "$RS_BUILT" = 0 ] && [ "$OP2_BUILT" = 0 ] && run_one rs
  judge
}

# ---- the cases ----------------------------------------------------------------------
S=$OUT/src
# c_app NAME RELDIR SOURCE MPI_SOURCE HDF5 KINDS: a C/C++ app (MPI_SOURCE "-": the
# mpi kinds compile SOURCE with -DUSE_MPI, as OP2's makefiles do for HDF5 apps
# and the functional tests; "" : no MPI kinds)
c_app() {
  local name=$1 rel=$2 src=$3 msrc=$4 h5=$5 kinds=$6 k key mkey
  key=${rel//\//_}.${src%.*}
  mkey=$key
  [ "$msrc" != "-" ] && [ -n "$msrc" ] && mkey=${rel//\//_}.${msrc%.*}
  for k in $kinds; do
    echo "$name.$k" | grep -Eq -- "$CASES" || continue
    case $k in
      genseq | genomp) translate "$key" "$S/$rel" "$src" -I . -I "$OP2/op2/include" ;;
      genmpi) mapfile -t MI < <(mpi_incs)
        if [ "$mkey" = "$key" ]; then
          translate "$key" "$S/$rel" "$src" -I . -I "$OP2/op2/include"
        else
          translate "$mkey" "$S/$rel" "$msrc" -I . -I "$OP2/op2/include" "${MI[@]}"
        fi ;;
    esac
    case $k in
      mpi | genmpi | mpiocl) run_case "$name.$k" c "$S/$rel" "$([ "$msrc" = "-" ] && echo "$src" || echo "$msrc")" "$k" "$h5" "$mkey" ;;
      *) run_case "$name.$k" c "$S/$rel" "$src" "$k" "$h5" "$key" ;;
    esac
  done
}

# f_app NAME RELDIR "SOURCES" "DEFS" "TRANSLATOR FLAGS" HDF5 KINDS: a Fortran app
f_app() {
  local name=$1 rel=$2 files=$3 defs=$4 tflags=$5 h5=$6 kinds=$7 k key
  key=f.${name}
  for k in $kinds; do
    echo "$name.$k" | grep -Eq -- "$CASES" || continue
    case $k in
      gen*)
        local -a tf=()
        # shellcheck disable=SC2206 # word lists
        tf=($defs $tflags)
        translate "$key" "$S/$rel" "$files" "${tf[@]}"
        ;;
    esac
    run_case "$name.$k" f "$S/$rel" "$files" "$k" "$h5" "$key" "$defs"
  done
}

all_cases() {
  local FA=apps/c/airfoil T=tests/functional t
  # C/C++ applications
  c_app airfoil_dp "$FA/airfoil_plain/dp" airfoil.cpp airfoil_mpi.cpp 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app airfoil_sp "$FA/airfoil_plain/sp" airfoil.cpp airfoil_mpi.cpp 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app airfoil_tempdats "$FA/airfoil_tempdats/dp" airfoil.cpp airfoil_mpi.cpp 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app airfoil_hdf5_dp "$FA/airfoil_hdf5/dp" airfoil.cpp - 1 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app airfoil_hdf5_sp "$FA/airfoil_hdf5/sp" airfoil.cpp - 1 "seq genseq ocl cujit cuemu"
  # (steps 1 and 2 declare the mesh and run no loop: nothing for NVRTC)
  for t in 1 2; do
    c_app "tutorial_step$t" "$FA/airfoil_tutorial/step$t" "airfoil_step$t.cpp" "" 0 "seq ocl cuemu"
  done
  for t in 3 4 5; do
    c_app "tutorial_step$t" "$FA/airfoil_tutorial/step$t" "airfoil_step$t.cpp" "" 0 "seq ocl cujit cuemu"
  done
  c_app tutorial_step6 "$FA/airfoil_tutorial/step6" airfoil_step6.cpp "" 1 "seq ocl cujit cuemu"
  c_app tutorial_step7 "$FA/airfoil_tutorial/step7" airfoil_step7.cpp "" 1 "seq ocl cujit cuemu"
  c_app tutorial_final "$FA/airfoil_tutorial/final" airfoil.cpp - 1 "seq genseq genomp mpi ocl cujit cuemu"
  c_app aero "apps/c/aero/aero_plain" aero.cpp aero_mpi.cpp 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app aero_hdf5 "apps/c/aero/aero_hdf5" aero.cpp - 1 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app jac1_dp apps/c/jac1/dp jac.cpp jac_mpi.cpp 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app jac1_sp apps/c/jac1/sp jac.cpp jac_mpi.cpp 0 "seq genseq mpi mpiocl ocl cujit cuemu"
  c_app jac1_longint apps/c/jac1/longint "" jac_mpi.cpp 0 "mpi genmpi"
  c_app jac2 apps/c/jac2 jac.cpp jac_mpi.cpp 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app reduction apps/c/reduction reduction.cpp reduction_mpi.cpp 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  c_app min_direct apps/c/min min_direct.cpp "" 0 "seq genseq genomp ocl cujit cuemu"
  c_app min_indirect apps/c/min min_indirect.cpp "" 0 "seq genseq genomp ocl cujit cuemu"
  # C++ functional tests (MPI: the same source with -DUSE_MPI, as their makefiles)
  for t in const:const_tests dat_reductions:reduc_tests gbl:gbl_tests idx:idx_tests strides:stride_tests; do
    c_app "func_${t%%:*}" "$T/${t%%:*}" "${t#*:}.cpp" - 0 "seq omp genseq genomp mpi genmpi mpiocl ocl cujit cuemu"
  done
  # Fortran applications: reference build (seq) and translator output
  local FF=apps/fortran
  f_app f_airfoil_plain "$FF/airfoil" "airfoil_constants.F90 airfoil_kernels.F90 airfoil.F90" -DPLAIN \
    "--consts-module airfoil_constants.F90" 0 "seq genseq genomp"
  f_app f_airfoil_arg_ptrs "$FF/airfoil" "airfoil_constants.F90 airfoil_kernels.F90 airfoil.F90" -DARG_PTRS \
    "--consts-module airfoil_constants.F90" 0 "seq genseq genomp"
  f_app f_airfoil_hdf5 "$FF/airfoil" "airfoil_constants.F90 airfoil_kernels.F90 airfoil.F90" -DHDF5 \
    "--consts-module airfoil_constants.F90" 1 "seq genseq genomp"
  f_app f_jac1 "$FF/jac1" jac.F90 "" "" 0 "seq genseq genomp"
  f_app f_reduction "$FF/reduction" reduction.F90 "" "" 0 "seq genseq genomp"
  f_app f_reduction_hdf5 "$FF/reduction" reduction.F90 -DHDF5 "" 1 "seq genseq genomp"
  f_app f_jac1_long "$FF/jac1_long" jac1_mpi.F90 "" "" 0 "mpi"
  # Fortran functional tests
  f_app f_func_const "$T/const_fortran" "const_constants.F90 const_kernels.F90 const_tests.F90" "" \
    "--consts-module const_constants.F90" 0 "seq genseq genomp mpi"
  for t in dat_reductions:reduc gbl:gbl idx:idx strides:stride; do
    f_app "f_func_${t%%:*}" "$T/${t%%:*}_fortran" "${t#*:}_kernels.F90 ${t#*:}_tests.F90" "" "" 0 \
      "seq genseq genomp mpi"
  done
}

# ---- main -----------------------------------------------------------------------------
echo "== OP2-Common $(op2_rev) at $OP2; work directory ${OUT#"$ROOT"/}"
build_rs || { echo "op2-rs libraries do not build (see ${LOG#"$ROOT"/}/cargo.log)" >&2; exit 1; }
build_op2 || { echo "OP2's libraries do not build (see ${LOG#"$ROOT"/}/op2-make.log)" >&2; exit 1; }
setup_venv || exit 1
make_meshes || { echo "mesh generators failed (see ${LOG#"$ROOT"/}/meshtools.log)" >&2; exit 1; }
# the sources, copied (translator-v2 writes nothing next to them, but the apps'
# relative includes such as ../utility.h keep working)
rm -rf "$S"
mkdir -p "$S/tests"
cp -a "$OP2/apps" "$S/" && cp -a "$OP2/tests/functional" "$S/tests/" || exit 1
START=$SECONDS
all_cases
echo
{
  echo "op2_dropin_check: OP2-Common $(op2_rev); op2-rs $(git -C "$ROOT" describe --always --dirty 2> /dev/null)"
  echo "meshes: airfoil $NI x $NJ, aero $AERO_NI x $AERO_NJ; $THREADS threads, $RANKS ranks; $((SECONDS - START)) s"
  printf '%-34s %-8s %s\n' CASE RESULT NOTE
  printf '%s\n' "${ROWS[@]}"
  printf '%s PASS, %s FAIL, %s SKIP-OP2\n' "$(printf '%s\n' "${ROWS[@]}" | awk '$2 == "PASS"' | wc -l)" \
    "$NFAIL" "$(printf '%s\n' "${ROWS[@]}" | awk '$2 == "SKIP-OP2"' | wc -l)"
} | tee "$OUT/results.txt"
echo "(table: ${OUT#"$ROOT"/}/results.txt; logs: ${LOG#"$ROOT"/}; runs: ${OUT#"$ROOT"/}/run/CASE.{op2,rs})"
[ "$NFAIL" = 0 ]
