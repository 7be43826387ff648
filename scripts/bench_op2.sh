#!/usr/bin/env bash
# bench_op2.sh -- op2-rs side by side with OP2 itself (OP-DSL/OP2-Common) on
# the same machine, mesh and compiler: OP2-Common's own example programs
# (airfoil, aero, jac1), each built against op2-rs and against OP2, as the
# hand-written op_seq.h source and as translator-v2 output.  See
# BENCHMARKS.md ("op2-rs against OP2-Common").
#
#   scripts/bench_op2.sh [MODE] [OP2_DIR]          (OP2_DIR may also come from the environment)
#
#   build    build op2-rs (cargo), OP2's libraries (its own makefiles), run
#            translator-v2, compile every configuration
#   check    build, then short runs on a small mesh; every configuration's
#            printed answers are compared with OP2's
#   time     build, then timed rounds on the large meshes, then the summary
#   summary  the tables again, from the logs of the last timed run
#   (time, all and summary end with the per-loop tables of
#   scripts/bench_loops.py: each op2-rs configuration's loops against its
#   OP2 counterpart's)
#   all      build, check, time [default]
#
# Configurations (label: source, headers + library; "gen" = translator-v2
# output; rs = op2-rs, op2 = OP2-Common):
#   seq_rs          op_seq.h source,        op2-rs include/ + libop2_seq.a
#   seq_op2         op_seq.h source,        OP2 headers + OP2 libop2_seq.a
#   genseq_op2      generated seq code,     OP2 headers + OP2 libop2_seq.a
#   genseq_rs       generated seq code,     op2-rs include/ + libop2_seq.a
#   omp_rs_tN       op_seq.h source,        op2-rs libop2_openmp.a, N threads
#   genomp_op2_tN   generated OpenMP code,  OP2 libop2_openmp.a (-fopenmp), N threads
#   genomp_rs_tN    generated OpenMP code,  op2-rs libop2_openmp.a (-fopenmp), N threads
#   mpi_rs_rN       op_seq.h MPI source,    op2-rs libop2_mpi.a, N ranks
#   mpi_op2_rN      op_seq.h MPI source,    OP2 libop2_mpi.a, N ranks
#   genmpi_op2_rN   generated seq code of the MPI source, OP2 libop2_mpi.a, N ranks
#   genmpi_rs_rN    the same generated code, op2-rs libop2_mpi.a, N ranks
#   seq_rsbase, genseq_rsbase, omp_rsbase_tN, genomp_rsbase_tN
#                   (only with RS_BASE) seq_rs, genseq_rs, omp_rs_tN,
#                   genomp_rs_tN built the same way against another op2-rs:
#                   RS_BASE_INCLUDE + the libraries in RS_BASE (before/after
#                   comparisons of op2-rs itself; the summary gives new/base)
# airfoil = apps/c/airfoil/airfoil_plain/dp/{airfoil,airfoil_mpi}.cpp;
# aero = apps/c/aero/aero_plain/{aero,aero_mpi}.cpp on a mesh written by our
# c-examples/meshgen/aero_meshgen.c; jac1 = apps/c/jac1/dp/jac.cpp (seq and
# OpenMP only; check mode only, see below).
#
# Environment (defaults in brackets):
#   OP2_DIR      OP2-Common checkout (read only: the script copies op2/ and
#                makefiles/ into target/op2bench/op2-src and builds there)
#   APPS         [airfoil aero jac]
#   THREADS      thread counts of the OpenMP configurations [2], e.g. "1 2"
#   RANKS        rank counts of the MPI configurations [2], e.g. "1 2"
#   MPI_THREADS  OMP_NUM_THREADS of every MPI rank [1]
#   MPIRUN       [mpirun --allow-run-as-root --oversubscribe --bind-to none]
#   CONFIGS      extended regex: only configurations whose label matches [.];
#                the MPI programs are built only when it selects one of them
#   NI, NJ       airfoil O-grid [1202 x 600 = 721,200 cells; 1200 x 600
#                would make airfoil compare against OP2's official mesh]
#   AERO_NI, AERO_NJ  aero O-grid [NI x NJ: 721,200 quadrilaterals]
#   AERO_SHUFFLE  a seed: aero's meshes (check and timed) numbered at random
#                (aero_meshgen --shuffle SEED: the same mesh, nodes and cells
#                permuted), both libraries on the same file; empty: the
#                generator's ring-by-ring numbering [empty]
#   ITERS        airfoil time steps per timed run [100]
#   AERO_ITERS   aero outer (Newton) iterations per timed run [3]; each runs
#                conjugate gradients to a tenth of its start residual, at
#                most 200 steps
#   ROUNDS       rounds; each runs every configuration once, in a rotated
#                order [3]
#   QUIET_WAIT   before each timed run wait up to this many seconds for an
#                idle machine (< 10% of a core busy) [0]
#   MAX_OTHER, TRIES  a run during which other processes used more than
#                MAX_OTHER cores [0.15] is "disturbed" and repeated, up to
#                TRIES runs in all [1]; the last one counts
#   CHECK_NI, CHECK_NJ, CHECK_ITERS, CHECK_AERO_ITERS  check mode: mesh
#                [200 x 100], airfoil steps [20, every step printed], aero
#                outer iterations [3]
#   AERO_LOOSE   check mode: largest relative difference of aero's printed
#                residual from OP2's that passes where the summation order
#                differs [0.1] (see compare_answers)
#   CHECK_RUN    0: compare the answers of the last check again, without
#                running anything [1]
#   MPI_PART     the partitioner the MPI sources ask for [BLOCK]: with
#                NAME they call op_partition("NAME", "KWAY", ...).  BLOCK, a
#                name neither library knows, keeps the block distribution of
#                the mesh file's numbering in both, so OP2 and op2-rs run the
#                same partition (on these O-grids, numbered ring by ring, a
#                block cut is a single ring: as short as k-way finds);
#                PTSCOTCH: PT-Scotch k-way in OP2, METIS k-way in op2-rs (it
#                answers PTSCOTCH, PARMETIS and KAHIP with its built-in
#                METIS); asis: as OP2-Common wrote them (airfoil asks for
#                PARMETIS, which OP2 here lacks, so OP2 keeps the blocks and
#                op2-rs runs METIS; aero asks for PTSCOTCH)
#   APP_CXXFLAGS flags for every application build [-O3 -std=c++17]
#   MARCH_NATIVE 1: add -march=native to the applications and build OP2's
#                libraries with it (its makefiles' default) [0]
#   EXTRA_CFLAGS flags added to every application build and to OP2's
#                libraries (its makefiles' EXTRA_CFLAGS and EXTRA_CXXFLAGS),
#                e.g. -fno-math-errno [none]
#   OP2_LIBDIR   the op2-rs libraries of the rs configurations [target/release
#                of this checkout]; RS_INCLUDE  their headers [include/ next to
#                OP2_LIBDIR's target/, i.e. OP2_LIBDIR/../../include]
#   RS_BASE      the libop2_seq.a and libop2_openmp.a of a second op2-rs, e.g.
#                /path/to/older/checkout/target/release: adds the *_rsbase
#                configurations [none]; RS_BASE_INCLUDE  their headers
#                [RS_BASE/../../include].  A worktree at the older commit,
#                built with `cargo build --release -p libop2-seq -p libop2-openmp`
#   CARGO_BUILD  0: do not run `cargo build --release` [1]; it builds this
#                checkout only (not OP2_LIBDIR elsewhere, nor RS_BASE)
#   OP2_BUILD    0: reuse OP2's libraries from an earlier build [1]
#   BUILD        0: check/time/all run the programs of the last build, build
#                nothing (OP2_DIR is then not needed) [1]
#
# What is changed in OP2-Common's example sources (in copies under
# target/op2bench/<app>/src, the same copies for every configuration, before
# translation): the iteration count reads $OP2BENCH_NITER (airfoil's 1000,
# aero's 20 stay the defaults), airfoil's history is printed every
# $OP2BENCH_PRINT steps [100], op_timing_output() is called after
# op_profile_output() (for the plan times), and the MPI partitioner (above).
# Each configuration runs in its own directory with the mesh linked in as
# new_grid.dat / FE_grid.dat; the files the programs write are deleted.
#
# Measured per run: wall = the program's own clock around its time loop
# (op_profile's "<Name> *N total", the largest rank's under OP2's MPI
# library); CPU = user+sys of the whole process (mpirun and all ranks);
# peak memory = maximum resident set (/usr/bin/time %M), summed over ranks;
# plan = the plan-time column of op_timing_output summed over the loops
# (rank 0; OP2's op_seq.h builds make no plans and print no table).
#
# jac1 is OP2's test of op_arg_idx: its 6 x 6 grid and 2 iterations are
# #defines and its edge kernel printf()s every edge, so it is built and
# checked (u grid, u max/rms, and the set of printed edge lines) but not timed.
#
# Building OP2-Common here (2026-11, Debian 12, g++ 12.2, OpenMPI 4.1.4), what
# this script does: `make config OP2_COMPILER=gnu TARGET_HOST=false` with
# parallel HDF5 from libhdf5-openmpi-dev (OP2's makefiles build libop2_mpi only
# when they find parallel HDF5) and PT-Scotch from libptscotch-dev (ParMETIS is
# not packaged in Debian 12; without a partitioner OP2 falls back to block
# distribution), then `make seq openmp mpi`.  One workaround, by flags, no
# change to OP2's files: op_mpi_part_core.cpp at b9e7a58d uses the ParMETIS
# type idx_t in its PT-Scotch wrapper, which does not compile without ParMETIS,
# so PTSCOTCH_DEF gets -Didx_t=int.  translator-v2 runs in a venv (jinja2,
# fparser, pcpp, sympy, libclang==18.1.1 from PyPI) through
# scripts/op2_translator_shim.py (declares the libclang prototypes it leaves
# undeclared); it parses against OP2's headers (with op2-rs's, op_par_loop is a
# macro and it finds no loops) and the output is compiled against either.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/bench_common.sh
. "$ROOT/scripts/bench_common.sh"

MODE=all
for a in "$@"; do
  case $a in
    build | check | time | summary | all) MODE=$a ;;
    *)
      if [ -d "$a" ]; then OP2_DIR=$a; else
        echo "usage: $0 [build|check|time|summary|all] [OP2_DIR]" >&2
        exit 2
      fi
      ;;
  esac
done

APPS=${APPS:-airfoil aero jac}
THREADS=${THREADS:-2}
RANKS=${RANKS:-2}
MPI_THREADS=${MPI_THREADS:-1}
MPIRUN=${MPIRUN:-mpirun --allow-run-as-root --oversubscribe --bind-to none}
CONFIGS=${CONFIGS:-.}
NI=${NI:-1202}
NJ=${NJ:-600}
AERO_NI=${AERO_NI:-$NI}
AERO_NJ=${AERO_NJ:-$NJ}
ITERS=${ITERS:-100}
AERO_ITERS=${AERO_ITERS:-3}
ROUNDS=${ROUNDS:-3}
QUIET_WAIT=${QUIET_WAIT:-0}
MAX_OTHER=${MAX_OTHER:-0.15}
TRIES=${TRIES:-1}
CHECK_NI=${CHECK_NI:-200}
CHECK_NJ=${CHECK_NJ:-100}
CHECK_ITERS=${CHECK_ITERS:-20}
CHECK_AERO_ITERS=${CHECK_AERO_ITERS:-3}
AERO_LOOSE=${AERO_LOOSE:-0.1}
CHECK_RUN=${CHECK_RUN:-1}
MPI_PART=${MPI_PART:-BLOCK}
APP_CXXFLAGS=${APP_CXXFLAGS:--O3 -std=c++17}
MARCH_NATIVE=${MARCH_NATIVE:-0}
EXTRA_CFLAGS=${EXTRA_CFLAGS:-}
CARGO_BUILD=${CARGO_BUILD:-1}
OP2_BUILD=${OP2_BUILD:-1}
BUILD=${BUILD:-1}
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
RS_INCLUDE=${RS_INCLUDE:-$(dirname "$(dirname "$OP2_LIBDIR")")/include}
RS_BASE=${RS_BASE:-}
RS_BASE_INCLUDE=${RS_BASE_INCLUDE:-$(dirname "$(dirname "${RS_BASE:-.}")")/include}

OUT=$ROOT/target/op2bench
OP2SRC=$OUT/op2-src        # copy of OP2's op2/ and makefiles/
OP2B=$OUT/op2              # OP2's build directory (lib/, obj/)
OP2INC=$OP2SRC/op2/include
LOGS=$OUT/logs
mkdir -p "$OUT/bin" "$OUT/mesh" "$LOGS"

if [ "$MARCH_NATIVE" = 1 ]; then APP_CXXFLAGS="$APP_CXXFLAGS -march=native"; fi
if [ -n "$EXTRA_CFLAGS" ]; then APP_CXXFLAGS="$APP_CXXFLAGS $EXTRA_CFLAGS"; fi
RS_SYSLIBS="-lpthread -ldl -lm"
# set in build_op2 (from OP2's configuration), read back by later modes
OP2_MPI_LIBS=""

need_op2_dir() {
  if [ -z "${OP2_DIR:-}" ] || [ ! -d "$OP2_DIR/op2/src" ]; then
    echo "OP2_DIR must name an OP2-Common checkout (argument or environment)" >&2
    exit 2
  fi
  OP2_DIR=$(cd "$OP2_DIR" && pwd)
}

app_dir() {
  case $1 in
    airfoil) echo apps/c/airfoil/airfoil_plain/dp ;;
    aero) echo apps/c/aero/aero_plain ;;
    jac) echo apps/c/jac1/dp ;;
  esac
}
app_main() { case $1 in airfoil) echo airfoil ;; aero) echo aero ;; jac) echo jac ;; esac; }
app_has_mpi() { [ "$1" != jac ]; }
app_mesh_name() { case $1 in airfoil) echo new_grid.dat ;; aero) echo FE_grid.dat ;; *) echo "" ;; esac; }

# ---- configurations ----------------------------------------------------------
# "label|kind|count|program"; kind: seq, omp (count = threads), mpi (count = ranks)
configs_of() {
  local app=$1 t r
  # base: each *_rsbase next to its *_rs, so that a round runs the pair together
  local base=""
  [ -z "$RS_BASE" ] || base=1
  local -a c=("seq_rs|seq|1|${app}_seq_rs")
  [ -z "$base" ] || c+=("seq_rsbase|seq|1|${app}_seq_rsbase")
  c+=("seq_op2|seq|1|${app}_seq_op2" "genseq_op2|seq|1|${app}_genseq_op2" "genseq_rs|seq|1|${app}_genseq_rs")
  [ -z "$base" ] || c+=("genseq_rsbase|seq|1|${app}_genseq_rsbase")
  for t in $THREADS; do
    c+=("omp_rs_t$t|omp|$t|${app}_omp_rs")
    [ -z "$base" ] || c+=("omp_rsbase_t$t|omp|$t|${app}_omp_rsbase")
    c+=("genomp_op2_t$t|omp|$t|${app}_genomp_op2" "genomp_rs_t$t|omp|$t|${app}_genomp_rs")
    [ -z "$base" ] || c+=("genomp_rsbase_t$t|omp|$t|${app}_genomp_rsbase")
  done
  if app_has_mpi "$app"; then
    for r in $RANKS; do
      c+=("mpi_rs_r$r|mpi|$r|${app}_mpi_rs" "mpi_op2_r$r|mpi|$r|${app}_mpi_op2"
        "genmpi_op2_r$r|mpi|$r|${app}_genmpi_op2" "genmpi_rs_r$r|mpi|$r|${app}_genmpi_rs")
    done
  fi
  local x
  for x in "${c[@]}"; do
    if echo "${x%%|*}" | grep -Eq -- "$CONFIGS"; then echo "$x"; fi
  done
}
# wants_mpi APP: CONFIGS selects one of APP's MPI configurations (only then are
# they translated and built, and libop2_mpi.a needed)
wants_mpi() { [[ $(configs_of "$1") == *"|mpi|"* ]]; }

# ---- build -------------------------------------------------------------------
build_rs() {
  if [ "$CARGO_BUILD" = 1 ] && [ "$OP2_LIBDIR" = "$ROOT/target/release" ]; then
    echo "== op2-rs: cargo build --release"
    nice -n 10 cargo build --release 2>&1 | tail -n 1
  fi
  local l mpi=""
  for l in $APPS; do if wants_mpi "$l"; then mpi=$OP2_LIBDIR/libop2_mpi.a; fi; done
  for l in "$OP2_LIBDIR/libop2_seq.a" "$OP2_LIBDIR/libop2_openmp.a" ${mpi:+"$mpi"} \
    ${RS_BASE:+"$RS_BASE/libop2_seq.a" "$RS_BASE/libop2_openmp.a"}; do
    [ -s "$l" ] || { echo "missing $l" >&2; exit 1; }
  done
  for l in "$RS_INCLUDE" ${RS_BASE:+"$RS_BASE_INCLUDE"}; do
    [ -f "$l/op_seq.h" ] || { echo "no op_seq.h in $l" >&2; exit 1; }
  done
  echo "== op2-rs: $OP2_LIBDIR, headers $RS_INCLUDE${RS_BASE:+; base: $RS_BASE, headers $RS_BASE_INCLUDE}"
}

build_op2() {
  echo "== OP2-Common: $(git -C "$OP2_DIR" describe --always --dirty 2> /dev/null || echo "not a git checkout") at $OP2_DIR"
  rm -rf "$OP2SRC" "$OP2B"
  mkdir -p "$OP2SRC"
  cp -a "$OP2_DIR/op2" "$OP2_DIR/makefiles" "$OP2SRC/"
  rm -rf "$OP2SRC/op2/lib" "$OP2SRC/op2/obj" "$OP2SRC/makefiles/.config.mk"
  local -a conf=(OP2_COMPILER=gnu)
  if [ "$MARCH_NATIVE" != 1 ]; then conf+=(TARGET_HOST=false); fi
  if [ -n "$EXTRA_CFLAGS" ]; then conf+=("EXTRA_CFLAGS=$EXTRA_CFLAGS" "EXTRA_CXXFLAGS=$EXTRA_CFLAGS"); fi
  # Debian's parallel HDF5 and PT-Scotch live in subdirectories
  if [ -f /usr/include/hdf5/openmpi/hdf5.h ]; then
    conf+=(HDF5_PAR_INC_PATH=-I/usr/include/hdf5/openmpi
      HDF5_PAR_LIB_PATH=-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi)
  fi
  if [ -f /usr/include/scotch/ptscotch.h ]; then conf+=(PTSCOTCH_INC_PATH=-I/usr/include/scotch); fi
  conf+=("PTSCOTCH_DEF=-DHAVE_PTSCOTCH -Didx_t=int")
  echo "   make config ${conf[*]}"
  nice -n 10 make -C "$OP2SRC/op2" config "${conf[@]}" > "$OUT/op2-config.log" 2>&1
  sed 's/\x1b\[[0-9;]*m//g' "$OUT/op2-config.log" | grep -E "^\.   (C\+\+: -|Parallel:|PT-Scotch:|ParMETIS:)" |
    sed 's/^\. */   OP2 config: /'
  echo "   make seq openmp mpi (log: target/op2bench/op2-make.log)"
  nice -n 10 make -C "$OP2SRC/op2" -j"$(nproc)" OP2_BUILD_DIR="$OP2B" seq openmp mpi > "$OUT/op2-make.log" 2>&1 || {
    grep -m5 -B2 -A3 "error" "$OUT/op2-make.log" >&2
    exit 1
  }
}

# link flags of OP2's MPI library's dependencies, from its configuration
op2_mpi_libs() {
  awk -F' := ' '/^ ?(PTSCOTCH_LIB|PARMETIS_LIB|KAHIP_LIB|HDF5_PAR_LIB) :=/ { sub(/#$/, "", $2); printf "%s ", $2 }' \
    "$OP2SRC/makefiles/.config.mk"
}

setup_venv() {
  if [ ! -x "$OUT/venv/bin/python" ]; then
    echo "== translator venv (jinja2 fparser pcpp sympy libclang==18.1.1)"
    python3 -m venv "$OUT/venv"
    "$OUT/venv/bin/pip" install -q jinja2 fparser pcpp sympy libclang==18.1.1
  fi
}

translate() { # SRC_FILE OUT_DIR [extra -I ...]
  local src=$1 dst=$2
  shift 2
  rm -rf "$dst"
  mkdir -p "$dst"
  PYTHONDONTWRITEBYTECODE=1 "$OUT/venv/bin/python" "$ROOT/scripts/op2_translator_shim.py" "$OP2_DIR" \
    -I "$OP2INC" "$@" -t seq -t openmp "$src" -o "$dst" > "$dst.log" 2>&1 || {
    tail -n 20 "$dst.log" >&2
    exit 1
  }
  echo "   $(grep -c 'Generated loop host' "$dst.log") loop hosts -> ${dst#"$ROOT"/}"
}

# edit FILE COUNT SED-SCRIPT: apply a substitution that must match COUNT lines
edit() {
  local f=$1 want=$2 script=$3 got
  got=$(sed -n -e "$script" -e T -e = "$f" | wc -l)
  if [ "$got" != "$want" ]; then
    echo "$f: expected $want line(s) for '$script', found $got: has OP2-Common changed?" >&2
    exit 1
  fi
  sed -i "$script" "$f"
}

helper_fn='static int op2bench_int(const char *name, int dflt) { const char *s = getenv(name); return (s \&\& *s) ? atoi(s) : dflt; }'
clock_fn='static double op2bench_clock() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }'

prepare_sources() { # APP
  local app=$1 src=$OUT/$1/src main
  main=$(app_main "$app")
  rm -rf "$src"
  mkdir -p "$src"
  cp "$OP2_DIR/$(app_dir "$app")"/*.cpp "$OP2_DIR/$(app_dir "$app")"/*.h "$src/"
  local f files=("$src/$main.cpp")
  if app_has_mpi "$app"; then files+=("$src/${main}_mpi.cpp"); fi
  for f in "${files[@]}"; do
    edit "$f" 1 "s|^int main(int argc, char \*\*argv) {|#include <stdlib.h>\n#include <chrono>\n$helper_fn\n$clock_fn\n\n&|"
    edit "$f" 1 "s|^\( *\)op_profile_output();|&\n\1op_timing_output();|"
    local n0
    case $app in
      airfoil | aero)
        case $app in airfoil) n0=1000 ;; aero) n0=20 ;; esac
        edit "$f" 1 "s|^\( *\)niter = $n0;|\1niter = op2bench_int(\"OP2BENCH_NITER\", $n0);\n\1double op2bench_t0 = op2bench_clock();|"
        edit "$f" 1 "s|^\( *\)op_profile_end();|\1op_printf(\"op2bench time loop: %.6f s\\\\n\", op2bench_clock() - op2bench_t0);\n&|"
        ;;
    esac
    if [ "$app" = airfoil ]; then
      edit "$f" 1 's|if (iter % 100 == 0)|if (iter % op2bench_int("OP2BENCH_PRINT", 100) == 0)|'
    fi
    if [[ $f == *_mpi.cpp ]] && [ "$MPI_PART" != asis ]; then
      edit "$f" 1 "s|^\( *\)op_partition(\"[A-Z]*\", \"[A-Z]*\",|\1op_partition(\"$MPI_PART\", \"KWAY\",|"
    fi
  done
}

build_app() { # APP
  local app=$1 d=$OUT/$1 main
  main=$(app_main "$app")
  local src=$d/src b=$OUT/bin/$app
  echo "== $app: sources from $(app_dir "$app")"
  prepare_sources "$app"
  translate "$src/$main.cpp" "$d/gen"
  if wants_mpi "$app"; then
    local -a mpiinc=()
    local i
    for i in $(mpicxx -showme:incdirs); do mpiinc+=(-I "$i"); done
    translate "$src/${main}_mpi.cpp" "$d/genmpi" "${mpiinc[@]}"
  fi
  local cxx="nice -n 10 g++ $APP_CXXFLAGS"
  local mpicxx="nice -n 10 mpicxx $APP_CXXFLAGS"
  local gs="$d/gen/$main.cpp $d/gen/seq/op2_kernels.cpp"
  local go="$d/gen/$main.cpp $d/gen/openmp/op2_kernels.cpp"
  local gm="$d/genmpi/${main}_mpi.cpp $d/genmpi/seq/op2_kernels.cpp"
  local rsi="-I$RS_INCLUDE -I$src" op2i="-I$OP2INC -I$src" op2l="-L$OP2B/lib"
  set -x
  $cxx $rsi "$src/$main.cpp" "$OP2_LIBDIR/libop2_seq.a" $RS_SYSLIBS -o "${b}_seq_rs"
  $cxx $op2i "$src/$main.cpp" $op2l -lop2_seq -o "${b}_seq_op2"
  $cxx $op2i $gs $op2l -lop2_seq -o "${b}_genseq_op2"
  $cxx $rsi $gs "$OP2_LIBDIR/libop2_seq.a" $RS_SYSLIBS -o "${b}_genseq_rs"
  $cxx $rsi "$src/$main.cpp" "$OP2_LIBDIR/libop2_openmp.a" $RS_SYSLIBS -o "${b}_omp_rs"
  $cxx -fopenmp $op2i $go $op2l -lop2_openmp -o "${b}_genomp_op2"
  $cxx -fopenmp $rsi $go "$OP2_LIBDIR/libop2_openmp.a" $RS_SYSLIBS -o "${b}_genomp_rs"
  { set +x; } 2> /dev/null
  if [ -n "$RS_BASE" ]; then
    local basei="-I$RS_BASE_INCLUDE -I$src"
    set -x
    $cxx $basei "$src/$main.cpp" "$RS_BASE/libop2_seq.a" $RS_SYSLIBS -o "${b}_seq_rsbase"
    $cxx $basei $gs "$RS_BASE/libop2_seq.a" $RS_SYSLIBS -o "${b}_genseq_rsbase"
    $cxx $basei "$src/$main.cpp" "$RS_BASE/libop2_openmp.a" $RS_SYSLIBS -o "${b}_omp_rsbase"
    $cxx -fopenmp $basei $go "$RS_BASE/libop2_openmp.a" $RS_SYSLIBS -o "${b}_genomp_rsbase"
    { set +x; } 2> /dev/null
  fi
  if wants_mpi "$app"; then
    set -x
    $mpicxx -DUSE_MPI $rsi "$src/${main}_mpi.cpp" "$OP2_LIBDIR/libop2_mpi.a" $RS_SYSLIBS -o "${b}_mpi_rs"
    $mpicxx -DUSE_MPI $op2i "$src/${main}_mpi.cpp" $op2l -lop2_mpi $OP2_MPI_LIBS -o "${b}_mpi_op2"
    $mpicxx -DUSE_MPI $op2i $gm $op2l -lop2_mpi $OP2_MPI_LIBS -o "${b}_genmpi_op2"
    $mpicxx -DUSE_MPI $rsi $gm "$OP2_LIBDIR/libop2_mpi.a" $RS_SYSLIBS -o "${b}_genmpi_rs"
    { set +x; } 2> /dev/null
  fi
}

# rs_version LIBDIR: the commit of the checkout LIBDIR is the target/release
# of, its directory and the libraries' date
rs_version() {
  local co
  co=$(dirname "$(dirname "$1")")
  echo "$(git -C "$co" describe --always --dirty 2> /dev/null || echo unknown) ($co); libraries built $(date -r "$1/libop2_seq.a" '+%F %T')"
}

record_versions() {
  {
    echo "date: $(date -u '+%F %T UTC')"
    echo "machine: $(uname -srm); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "op2-rs: $(rs_version "$OP2_LIBDIR")"
    if [ -n "$RS_BASE" ]; then echo "op2-rs base (*_rsbase): $(rs_version "$RS_BASE")"; fi
    echo "OP2-Common: $(git -C "$OP2_DIR" rev-parse HEAD 2> /dev/null || echo unknown) $(git -C "$OP2_DIR" status --short --untracked-files=no 2> /dev/null | grep -q . && echo '(local changes)')"
    echo "compilers: $(g++ -dumpfullversion) (g++), $(mpirun --version 2> /dev/null | head -n1), $(rustc --version)"
    echo "application flags: $APP_CXXFLAGS; OP2 library flags: $(awk -F' := ' '/^ ?CXXFLAGS :=/ { sub(/#$/, "", $2); print $2 }' "$OP2SRC/makefiles/.config.mk")"
    echo "OP2 MPI link: $OP2_MPI_LIBS; MPI_PART=$MPI_PART"
  } > "$OUT/versions.txt"
}

build() {
  need_op2_dir
  build_rs
  if [ "$OP2_BUILD" = 1 ] || [ ! -s "$OP2B/lib/libop2_mpi.a" ]; then build_op2; fi
  OP2_MPI_LIBS=$(op2_mpi_libs)
  setup_venv
  local cflags="-O2 -Wall -Wextra -std=c99 -pedantic -I$ROOT/c-examples/common"
  gcc $cflags c-examples/meshgen/meshgen.c c-examples/common/naca_mesh.c -lm -o "$OUT/bin/meshgen"
  gcc $cflags c-examples/meshgen/aero_meshgen.c c-examples/common/naca_mesh.c -lm -o "$OUT/bin/aero_meshgen"
  local app
  for app in $APPS; do build_app "$app"; done
  record_versions
  local p built=""
  for p in "$OUT"/bin/*_rs "$OUT"/bin/*_rsbase "$OUT"/bin/*_op2; do if [ -e "$p" ]; then built+=" ${p##*/}"; fi; done
  echo "== built:$built"
}

# ---- running -----------------------------------------------------------------
mesh_file() { # APP NI NJ -> path (written if missing)
  local app=$1 ni=$2 nj=$3 f
  case $app in
    airfoil) f=$OUT/mesh/new_grid_${ni}x$nj.dat ;;
    aero) f=$OUT/mesh/FE_grid_${ni}x$nj${AERO_SHUFFLE:+_shuffle$AERO_SHUFFLE}.dat ;;
    *) return 0 ;;
  esac
  if [ ! -s "$f" ]; then
    case $app in
      airfoil) "$OUT/bin/meshgen" -o "$f" --ni "$ni" --nj "$nj" | sed 's/^/   /' >&2 ;;
      aero) "$OUT/bin/aero_meshgen" -o "$f" --ni "$ni" --nj "$nj" ${AERO_SHUFFLE:+--shuffle "$AERO_SHUFFLE"} | sed 's/^/   /' >&2 ;;
    esac
  fi
  echo "$f"
}

# run_config APP CONFIG MESH NITER PRINT LOGBASE: stdout to LOGBASE.txt,
# "wall user sys maxrss_kb" of the process to LOGBASE.time, peak memory (KB,
# summed over ranks) to LOGBASE.mem, exit status to LOGBASE.rc
run_config() {
  local app=$1 cfg=$2 mesh=$3 niter=$4 print=$5 log=$6
  local label kind count prog
  IFS='|' read -r label kind count prog <<< "$cfg"
  local dir=$OUT/run/$app/$label
  rm -rf "$dir"
  mkdir -p "$dir"
  if [ -n "$mesh" ]; then ln -s "$mesh" "$dir/$(app_mesh_name "$app")"; fi
  local -a envs=(OP2BENCH_NITER="$niter" OP2BENCH_PRINT="$print")
  local rc=0
  rm -f "$log".*
  case $kind in
    seq)
      (cd "$dir" && env -u OMP_NUM_THREADS "${envs[@]}" /usr/bin/time -f "%e %U %S %M" -o "$log.time" \
        "$OUT/bin/$prog" > "$log.txt" 2> "$log.err") || rc=$?
      ;;
    omp)
      (cd "$dir" && env OMP_NUM_THREADS="$count" "${envs[@]}" /usr/bin/time -f "%e %U %S %M" -o "$log.time" \
        "$OUT/bin/$prog" > "$log.txt" 2> "$log.err") || rc=$?
      ;;
    mpi)
      # every rank under its own /usr/bin/time for its peak memory
      # shellcheck disable=SC2016
      (cd "$dir" && env OMP_NUM_THREADS="$MPI_THREADS" "${envs[@]}" /usr/bin/time -f "%e %U %S %M" -o "$log.time" \
        $MPIRUN -np "$count" -x OMP_NUM_THREADS -x OP2BENCH_NITER -x OP2BENCH_PRINT \
        sh -c 'exec /usr/bin/time -f "%M" -o "$0.rank$OMPI_COMM_WORLD_RANK" "$@"' "$log" "$OUT/bin/$prog" \
        > "$log.txt" 2> "$log.err") || rc=$?
      ;;
  esac
  echo "$rc" > "$log.rc"
  if [ "$kind" = mpi ]; then
    cat "$log".rank* 2> /dev/null | awk '{ s += $1 } END { print s + 0 }' > "$log.mem"
    rm -f "$log".rank*
  else
    awk '{ print $4 }' "$log.time" > "$log.mem" 2> /dev/null || echo 0 > "$log.mem"
  fi
  rm -rf "$dir"
  return 0
}

# the time loop's wall-clock seconds: the "op2bench time loop" line the
# benchmark copies print (rank 0); without one, op_profile's "<Name> *N total:
# T" line (with "(average ..., max: M)", OP2's MPI library, the largest rank's M)
runtime_of() {
  awk '
    /^op2bench time loop: / { print $4; done = 1; exit }
    function secs(s) {
      if (s ~ /ms$/) return substr(s, 1, length(s) - 2) / 1e3
      if (s ~ /us$/) return substr(s, 1, length(s) - 2) / 1e6
      if (s ~ /ns$/) return substr(s, 1, length(s) - 2) / 1e9
      sub(/s$/, "", s); return s + 0
    }
    $2 ~ /^\*[0-9]+$/ && $3 == "total:" && !done {
      t = $4; sub(/[,)]$/, "", t); v = secs(t)
      for (i = 5; i <= NF; ++i) if ($i == "max:") { m = $(i + 1); sub(/[,)]$/, "", m); v = secs(m) }
      print v; done = 1
    }
    END { if (!done) print "nan" }' "$1"
}
# plan construction seconds: op_timing_output's plan-time column summed over
# the loops of its first table ("-" when there is no table)
plan_of() {
  awk '
    /count +plan time/ { intab = 1; next }
    intab && /^ *[0-9]+; +[0-9.]+;/ { v = $2; sub(/;/, "", v); s += v; rows++; next }
    intab && rows && !/^ *-+ *$/ { intab = 0; done = 1 }
    END { if (rows) printf "%.4f\n", s; else print "-" }' "$1"
}

# ---- answers -----------------------------------------------------------------
# the lines a program prints as its answers, normalised
answers() { # APP LOG
  case $1 in
    airfoil) grep -E '^ *[0-9]+ +[-0-9.e+]+, max err:|Test problem|considered' "$2" || true ;;
    aero) grep -E '^[0-9]+ [0-9]+ [-0-9.E+]+ *$|Test problem|considered' "$2" || true ;;
    jac)
      grep -E 'u max/rms|Results check|^( +-?[0-9]+\.[0-9]{4})+ *$' "$2" || true
      grep -E '^edge [0-9]+, nodes' "$2" | sort || true
      ;;
  esac
}

# compare APP REF TEST STRICT: one verdict line; exit status 0 = pass.
# "identical": every answer line byte-identical to the reference.  With
# STRICT=1 (the two programs execute the elements and reductions in the same
# order) nothing else passes.  Otherwise:
#   airfoil  the rms column identical to the printed digits and max err
#            within 1e-9 relative (errloc, an element number, differs when
#            the element order or the numbering differs: threads, partitions)
#   aero     the residual within AERO_LOOSE relative; aero's conjugate
#            gradients amplify rounding (its stopping test picks a different
#            step when the summation order changes), so inner iteration
#            counts and the residual move by percents: OP2's own OpenMP and
#            MPI builds differ from its sequential build that much (shown by
#            the check as "OP2 vs OP2")
#   jac      identical only
compare_answers() {
  local app=$1 ref=$2 test=$3 strict=$4
  if [ ! -s "$test" ]; then
    echo "NO ANSWERS"
    return 1
  fi
  if cmp -s "$ref" "$test"; then
    echo "identical ($(wc -l < "$test") lines)"
    return 0
  fi
  awk -v app="$app" -v loose="$AERO_LOOSE" -v strict="$strict" '
    function rel(a, b) { a += 0; b += 0; if (a == b) return 0; d = (a - b) / (b != 0 ? b : 1); return d < 0 ? -d : d }
    FNR == NR { r[FNR] = $0; nr = FNR; next }
    { n = FNR; t = $0; s = r[FNR]
      if (t == s) { same++; next }
      split(s, a, /[ ,]+/); split(t, b, /[ ,]+/)
      if (app == "airfoil" && t ~ /max err/) {
        # fields: "" iter rms max err: MAXERR at LOC
        if (a[2] != b[2] || a[3] != b[3]) { bad++; why = why " rms@" a[2] }
        w = rel(b[6], a[6]); if (w > wmax) wmax = w
        if (w > 1e-9) { bad++; why = why " maxerr@" a[2] }
        if (a[8] != b[8]) loc++
      } else if (app == "aero" && t ~ /^[0-9]+ [0-9]+ /) {
        if (a[1] != b[1]) { bad++; why = why " line " FNR }
        if (a[2] != b[2]) inner++
        w = rel(b[3], a[3]); if (w > wmax) wmax = w
        if (w > loose) { bad++; why = why " rms@" a[1] }
      } else if (t ~ /Test problem/) {
        # derived from the last residual: judged through it
      } else { bad++; why = why " line " FNR }
    }
    END {
      if (n != nr) { bad++; why = why " line count " nr "/" n }
      if (strict) bad++
      ok = app == "airfoil" ? "rms identical to the printed digits" : "residuals within " loose
      printf "%s: %d of %d lines identical; max rel diff %.1e", bad ? "DIFFERENT" : ok, same, n, wmax
      if (loc) printf "; errloc differs in %d", loc
      if (inner) printf "; inner iterations differ in %d", inner
      if (why != "") printf ";%s", substr(why, 1, 100)
      printf "\n"; exit bad ? 1 : 0
    }' "$ref" "$test"
}

# counterpart LABEL -> "REFERENCE STRICT": the OP2 configuration whose answers
# an op2-rs configuration must reproduce.  Same program text and same
# execution order (strict): seq_rs/seq_op2, genseq_rs/genseq_op2,
# genomp_rs/genomp_op2 (the generated code drives the loop and asks the
# library for OP2's plan).  Same program, different order: omp_rs against
# seq_op2 (op_seq.h semantics, op2-rs's own colouring and reduction order),
# mpi_rs against mpi_op2 and genmpi_rs against genmpi_op2 (different
# partitioners).  OP2's own configurations are compared with seq_op2.
# seq_rs is strict unless the applications are compiled for an instruction
# set with FMA (-march=native here): then the compiler contracts OP2's scalar
# loops and op_seq.h's vectorised SIMD blocks into FMAs differently (a
# global sum vectorised in order keeps its products apart from its
# additions), and with AVX-512 the SIMD blocks also take loops that
# increment through maps, summing a kernel's increments of one value before
# adding them to the dat (aero's spMV adds four products to each v[j]).
# aero's conjugate gradients turn such last-bit differences into other
# inner iteration counts, as they do between OP2's own seq builds.
# The flags are those of the last build (versions.txt), so that BUILD=0 runs
# judge the programs that are there.
seq_rs_strict() {
  local flags=$APP_CXXFLAGS
  if [ -f "$OUT/versions.txt" ]; then
    flags=$(sed -n 's/^application flags: \([^;]*\);.*/\1/p' "$OUT/versions.txt")
  fi
  local macros
  # shellcheck disable=SC2086 # the flags are words
  macros=$(g++ $flags -dM -E -x c++ /dev/null 2> /dev/null || true)
  if [[ $macros == *__FMA__* || $macros == *__AVX512F__* ]]; then
    echo 0
  else
    echo 1
  fi
}
counterpart() { # a *_rsbase configuration has the counterpart of its *_rs
  case ${1/_rsbase/_rs} in
    seq_rs) echo "seq_op2 $(seq_rs_strict)" ;;
    genseq_rs) echo "genseq_op2 1" ;;
    genomp_rs_t*) echo "genomp_op2_t${1##*_t} 1" ;;
    omp_rs_t*) echo "seq_op2 0" ;;
    mpi_rs_r*) echo "mpi_op2_r${1##*_r} 0" ;;
    genmpi_rs_r*) echo "genmpi_op2_r${1##*_r} 0" ;;
    *) echo "seq_op2 0" ;;
  esac
}

check() {
  local app cfg label mesh niter print fails=0
  echo "== check: $CHECK_NI x $CHECK_NJ mesh; airfoil $CHECK_ITERS steps, aero $CHECK_AERO_ITERS outer iterations, jac as written"
  mkdir -p "$LOGS/check"
  for app in $APPS; do
    mesh=$(mesh_file "$app" "$CHECK_NI" "$CHECK_NJ")
    case $app in
      airfoil) niter=$CHECK_ITERS print=1 ;;
      aero) niter=$CHECK_AERO_ITERS print=1 ;;
      *) niter="" print="" ;;
    esac
    local -a cfgs
    mapfile -t cfgs < <(configs_of "$app")
    for cfg in "${cfgs[@]}"; do
      label=${cfg%%|*}
      [ "$CHECK_RUN" = 1 ] && run_config "$app" "$cfg" "$mesh" "$niter" "$print" "$LOGS/check/$app.$label"
      answers "$app" "$LOGS/check/$app.$label.txt" > "$LOGS/check/$app.$label.ans"
    done
    echo "-- $app: op2-rs configurations against their OP2 counterpart (strict = same execution order,"
    echo "   must be identical); OP2's own against seq_op2, for the spread (not judged)"
    local ref strict verdict rc
    for cfg in "${cfgs[@]}"; do
      label=${cfg%%|*}
      rc=$(cat "$LOGS/check/$app.$label.rc")
      if [ "$rc" != 0 ]; then
        printf "   %-16s FAILED: exit status %s; %s\n" "$label" "$rc" "$(grep -v '^ *$' "$LOGS/check/$app.$label.err" | tail -n 1)"
        fails=$((fails + 1))
        continue
      fi
      read -r ref strict <<< "$(counterpart "$label")"
      if [ ! -s "$LOGS/check/$app.$ref.ans" ]; then
        printf "   %-16s (no answers from %s to compare with)\n" "$label" "$ref"
        continue
      fi
      if [[ $label == *_rs* ]]; then
        verdict=$(compare_answers "$app" "$LOGS/check/$app.$ref.ans" "$LOGS/check/$app.$label.ans" "$strict") ||
          fails=$((fails + 1))
      else
        verdict="$(compare_answers "$app" "$LOGS/check/$app.$ref.ans" "$LOGS/check/$app.$label.ans" 0 || true) (not judged)"
      fi
      printf "   %-16s vs %-14s %-6s %s\n" "$label" "$ref" "$([ "$strict" = 1 ] && echo strict || echo "")" "$verdict"
    done
  done
  if [ "$fails" = 0 ]; then echo "== check: all op2-rs configurations pass"; else echo "== check: $fails FAILED"; fi
  return "$fails"
}

# ---- timed runs ----------------------------------------------------------------

timed() {
  local app
  rm -rf "$LOGS/time"
  mkdir -p "$LOGS/time"
  {
    echo "ROUNDS=$ROUNDS"
    echo "ITERS=$ITERS"
    echo "AERO_ITERS=$AERO_ITERS"
    echo "TAPPS=\"$(for a in $APPS; do [ "$a" != jac ] && printf '%s ' "$a"; done)\""
    echo "MAX_OTHER=$MAX_OTHER"
  } > "$LOGS/time/meta"
  cp "$OUT/versions.txt" "$LOGS/time/" 2> /dev/null || true
  for app in $APPS; do
    [ "$app" = jac ] && continue
    local mesh niter
    case $app in
      airfoil)
        mesh=$(mesh_file airfoil "$NI" "$NJ")
        niter=$ITERS
        ;;
      aero)
        mesh=$(mesh_file aero "$AERO_NI" "$AERO_NJ")
        niter=$AERO_ITERS
        ;;
    esac
    echo "$app|$(head -n1 "$mesh")" >> "$LOGS/time/meshes"
    local -a cfgs
    mapfile -t cfgs < <(configs_of "$app")
    local n=${#cfgs[@]} r i cfg label log b0 b1 other try
    echo "== timing $app: $(head -n1 "$mesh") ($(basename "$mesh")), $niter iterations, $ROUNDS rounds, $n configurations"
    for ((r = 1; r <= ROUNDS; ++r)); do
      echo "-- $app round $r (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
      for ((i = 0; i < n; ++i)); do
        cfg=${cfgs[$(((i + r - 1) % n))]}
        label=${cfg%%|*}
        log=$LOGS/time/$app.${label}_r$r
        try=1
        while :; do
          wait_quiet
          b0=$(busy_seconds)
          run_config "$app" "$cfg" "$mesh" "$niter" 100 "$log"
          b1=$(busy_seconds)
          other=$(awk -v a="$b0" -v b="$b1" '{ o = (b - a - $2 - $3) / $1; print o < 0 ? 0 : o }' "$log.time" 2> /dev/null || echo 9)
          echo "$other" > "$log.other"
          printf "   %-16s %9.3f s  plan %7s s  CPU %8.2f s  %7.0f MB  (other processes %.2f cores)%s%s\n" "$label" \
            "$(runtime_of "$log.txt")" "$(plan_of "$log.txt")" "$(awk '{ print $2 + $3 }' "$log.time" 2> /dev/null || echo 0)" \
            "$(awk '{ print $1 / 1024 }' "$log.mem")" "$other" \
            "$(awk -v o="$other" -v m="$MAX_OTHER" 'BEGIN { if (o > m) print "  disturbed" }')" \
            "$([ "$(cat "$log.rc")" = 0 ] || echo "  EXIT STATUS $(cat "$log.rc")")"
          if awk -v o="$other" -v m="$MAX_OTHER" 'BEGIN { exit !(o <= m) }' || [ "$try" -ge "$TRIES" ]; then break; fi
          try=$((try + 1))
        done
      done
    done
  done
  echo
  echo "   load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
  summary
}

# ---- summary -------------------------------------------------------------------
summary() {
  local T=$LOGS/time
  [ -f "$T/meta" ] || { echo "no timed run in $T" >&2; exit 1; }
  local ROUNDS ITERS AERO_ITERS TAPPS MAX_OTHER
  # shellcheck disable=SC1091
  . "$T/meta"
  echo
  [ -f "$T/versions.txt" ] && sed 's/^/   /' "$T/versions.txt"
  local app
  for app in $TAPPS; do
    local niter=$ITERS unit="ms/step"
    [ "$app" = aero ] && niter=$AERO_ITERS unit="s/outer"
    local -a labels
    mapfile -t labels < <(for f in "$T/$app".*_r1.txt; do if [ -e "$f" ]; then basename "$f" _r1.txt | sed "s/^$app\.//"; fi; done)
    [ "${#labels[@]}" -gt 0 ] || continue
    local cfgorder=() c
    mapfile -t cfgorder < <(configs_of "$app" | cut -d'|' -f1)
    local ordered=()
    for c in "${cfgorder[@]}" "${labels[@]}"; do
      if [[ " ${labels[*]} " == *" $c "* ]] && [[ " ${ordered[*]} " != *" $c "* ]]; then ordered+=("$c"); fi
    done
    echo
    echo "== $app: $(grep "^$app|" "$T/meshes" | cut -d'|' -f2) (nodes cells ...), $niter iterations, $ROUNDS rounds"
    echo "   wall = the program's time-loop clock; only undisturbed runs (other processes <= $MAX_OTHER cores) count,"
    echo "   n of them; a configuration with none counts all its runs (n = 0). plan: op_timing_output, median."
    printf "   %-16s %2s %9s %9s %9s %9s %9s %8s %8s  %s\n" config n "wall med" "wall min" "wall max" "$unit" "CPU med" "plan s" "peak MB" answers
    declare -A MED MIN
    local label runs n_ok vals r
    for label in "${ordered[@]}"; do
      runs=$(for ((r = 1; r <= ROUNDS; ++r)); do
        if [ -f "$T/$app.${label}_r$r.other" ] && awk -v m="$MAX_OTHER" '{ exit !($1 <= m) }' "$T/$app.${label}_r$r.other"; then
          echo "$r"
        fi
      done)
      n_ok=$(echo "$runs" | grep -c . || true)
      [ "$n_ok" = 0 ] && runs=$(seq 1 "$ROUNDS")
      vals=$(for r in $runs; do if [ -f "$T/$app.${label}_r$r.txt" ]; then runtime_of "$T/$app.${label}_r$r.txt"; fi; done)
      MED[$label]=$(echo "$vals" | median)
      MIN[$label]=$(echo "$vals" | sort -g | head -n1)
      local ans="-" chk=$LOGS/check/$app.$label.ans ref strict
      read -r ref strict <<< "$(counterpart "$label")"
      if [ -f "$chk" ] && [ -f "$LOGS/check/$app.$ref.ans" ]; then
        ans="$(compare_answers "$app" "$LOGS/check/$app.$ref.ans" "$chk" "$strict" | cut -d';' -f1 || true) (vs $ref)"
      fi
      printf "   %-16s %2d %9.3f %9.3f %9.3f %9.2f %9.2f %8s %8.0f  %s\n" "$label" "$n_ok" "${MED[$label]}" "${MIN[$label]}" \
        "$(echo "$vals" | sort -g | tail -n1)" \
        "$(awk -v t="${MED[$label]}" -v n="$niter" -v a="$app" 'BEGIN { print (a == "aero" ? 1 : 1000) * t / n }')" \
        "$(for r in $runs; do awk '{ print $2 + $3 }' "$T/$app.${label}_r$r.time"; done | median)" \
        "$(for r in $runs; do plan_of "$T/$app.${label}_r$r.txt"; done | grep -v '^-$' | median | sed 's/^nan$/-/')" \
        "$(for r in $runs; do awk '{ print $1 / 1024 }' "$T/$app.${label}_r$r.mem"; done | median)" "$ans"
    done
    # A/B: median over rounds of the per-round ratio (both runs undisturbed)
    # [range], ratio of medians, ratio of fastest runs
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "nan" }'; }
    paired() {
      for ((r = 1; r <= ROUNDS; ++r)); do
        local fa=$T/$app.${1}_r$r fb=$T/$app.${2}_r$r
        if [ -f "$fa.other" ] && [ -f "$fb.other" ] && awk -v m="$MAX_OTHER" '{ exit !($1 <= m) }' "$fa.other" &&
          awk -v m="$MAX_OTHER" '{ exit !($1 <= m) }' "$fb.other"; then
          ratio "$(runtime_of "$fa.txt")" "$(runtime_of "$fb.txt")"
          echo
        fi
      done
    }
    pair() {
      [ -n "${MED[$1]:-}" ] && [ -n "${MED[$2]:-}" ] || return 0
      local p
      p=$(paired "$1" "$2")
      printf "   %-44s %6s %-15s %7s %7s\n" "$1 / $2" "$(echo "$p" | median | awk '{ printf ($1 == "nan" ? "-" : "%.3f"), $1 }')" \
        "[$(echo "$p" | sort -g | head -n1)-$(echo "$p" | sort -g | tail -n1)]" \
        "$(ratio "${MED[$1]}" "${MED[$2]}")" "$(ratio "${MIN[$1]}" "${MIN[$2]}")"
    }
    echo
    echo "   ratios A/B (< 1: A faster)                    paired [range]         medians fastest"
    pair seq_rs seq_op2
    pair genseq_rs genseq_op2
    pair seq_rs genseq_op2
    local t
    for t in $(printf '%s\n' "${ordered[@]}" | sed -n 's/^genomp_op2_t//p'); do
      pair "omp_rs_t$t" "genomp_op2_t$t"
      pair "genomp_rs_t$t" "genomp_op2_t$t"
    done
    for t in $(printf '%s\n' "${ordered[@]}" | sed -n 's/^genmpi_op2_r//p'); do
      pair "mpi_rs_r$t" "genmpi_op2_r$t"
      pair "genmpi_rs_r$t" "genmpi_op2_r$t"
      pair "mpi_rs_r$t" "mpi_op2_r$t"
    done
    # this op2-rs against RS_BASE's: new/base
    pair seq_rs seq_rsbase
    pair genseq_rs genseq_rsbase
    for t in $(printf '%s\n' "${ordered[@]}" | sed -nE 's/^(gen)?omp_rsbase_t//p' | sort -un); do
      pair "omp_rs_t$t" "omp_rsbase_t$t"
      pair "genomp_rs_t$t" "genomp_rsbase_t$t"
    done
    unset MED MIN
  done
}

maybe_build() {
  if [ "$BUILD" = 1 ]; then
    build
  elif [ ! -x "$OUT/bin/airfoil_seq_rs" ]; then
    echo "BUILD=0 but nothing is built in $OUT/bin" >&2
    exit 1
  fi
}

case $MODE in
  build) build ;;
  check)
    if [ "$CHECK_RUN" = 1 ]; then maybe_build; fi
    check
    ;;
  time)
    maybe_build
    timed
    ;;
  all)
    maybe_build
    check || true
    timed
    ;;
  summary) summary ;;
esac

# where the time goes, loop by loop (op_timing_output of the timed runs)
case $MODE in
  time | all | summary)
    if command -v python3 > /dev/null && [ -d "$OUT/logs/time" ]; then
      echo
      echo "== per loop (scripts/bench_loops.py --logs ${OUT#"$ROOT"/}/logs/time)"
      python3 "$ROOT/scripts/bench_loops.py" --logs "$OUT/logs/time" || true
    fi
    ;;
esac
