#!/usr/bin/env bash
# check.sh -- the GPU check of op2-rs's CUDA libraries, run from the bundle
# that scripts/gpu_bundle.sh builds (this file is copied into it as check.sh).
# Needs nothing but bash, coreutils, awk and, for the device runs, the NVIDIA
# driver; compute-sanitizer is used when found (PATH, $CUDA_HOME/bin,
# /usr/local/cuda*/bin).
#
#   check.sh RESULTS_DIR
#
# Without a GPU (no device in `nvidia-smi -L`): every program is started once
# (in a folder with a small mesh) and each of ours must stop cleanly: a
# non-zero status and one line on stderr naming the missing CUDA driver or
# device; OP2's control programs must stop with a non-zero status. The last
# line says "no GPU"; the status is 0 when every program stopped so.
#
# With a GPU:
#  1. versions: GPU, driver, CUDA (driver's), nvcc and compute-sanitizer
#  2. meshes made here by the bundle's generators; checksums against the
#     meshes the references were computed on
#  3. tests/cuda programs (t1..t4; t5 when an MPI runtime resolves): "PASS"
#  4. airfoil, three configurations (aos = atomics, soa, color = two-level
#     colouring) x (rs = our libop2_cuda, op2 = OP2's CUDA library), three
#     rounds, rs and op2 alternating; every run's printed answers compared
#     with the reference (op_seq.h on libop2_seq, same mesh); aero once each
#  5. transfers (ours, OP2_RS_DEVICE_STATS=1): every dat placed on the device
#     once at declaration with the bytes the mesh predicts, no dat uploaded
#     again (nothing writes a dat on the host after the declarations), exactly
#     the dats the program reads on the host brought back (airfoil: p_q, once,
#     although op_print_dat_to_txtfile, op_print_dat_to_binfile and
#     op_fetch_data_idx all read it; aero: none); plan upload and SoA
#     transposition time as a share of the run
#  6. compute-sanitizer memcheck on a short run of every program of ours
#  7. timing: the time loop per iteration, median of the rounds, ours / OP2's;
#     at the end, per loop (op_timing_output's times, medians of the
#     rounds): each translated configuration on our library against OP2's,
#     and each application's best op_seq.h program (8) against OP2's best
#     configuration, so that a miss names the loops it comes from
#  8. op_seq.h programs on our libop2_cuda (kind jit: unchanged sources, each
#     loop's code written by the library and compiled by NVRTC; the bundle's
#     cache/ holds the cubins compiled where the bundle was built, so no
#     NVRTC is needed here): answers against the reference, every loop on
#     the GPU (no "runs on the host" line, every loop "device" in the table
#     after op_timing_output), transfers as predicted, memcheck, and time
#     against OP2's translated code on OP2's library (target: the best of an
#     application's op_seq.h programs within 1.2x of the fastest of OP2's
#     configurations). A program's name says how its loops run: *_jit
#     two-level colouring staged (our default), *_global the same colouring
#     unstaged, *_atomics atomics, *_soa* SoA device copies (OP_AUTO_SOA=1),
#     *_fma* fused multiply-adds (OP2_RS_FMA=1, as OP2's code is compiled;
#     no memcheck: the memory accesses of the program without _fma);
#     the bundle's cubins were compiled so; round 1 runs them with
#     OP2_RS_DEVICE_TIMES=1, and at the end each application's best
#     program (and its best that waits for each loop) has a table of the
#     device's time of each loop's kernels (events) against
#     op_timing_output's time in the same run: what a loop spends on the
#     host around its kernels, where a miss of the target would come
#     from if not from the kernels; *_async: loops without a
#     reduction do not wait for their kernels (OP2_RS_DEVICE_ASYNC=1; OP2's
#     code waits after every loop), the same kernels, so no memcheck. device_args and device_args_atomics
#     (app selfcheck: tests/c/device_args, every argument kind, colouring
#     and atomics) check their own answers against plain C++ loops: their
#     PASSED line as the reference's, every loop on the GPU, memcheck;
#     two_maps and two_maps_global (app selfcheck too: tests/c/two_maps,
#     one dat through two maps and a row twice in one element, staged and
#     unstaged colouring) the same; wide_ints and wide_ints_atomics
#     (tests/c/wide_ints: OP2's 64-bit and unsigned integer types) the same;
#     big_offsets (tests/c/big_offsets, app bigoffsets, run last, after
#     the timing rounds) the same with a dat whose offsets pass 2^31 - 1
#     (67.2M cells of 32 ints, 8.6 GB on the host and on the device: its
#     loops need 64-bit offsets; no memcheck)
# Order: 3, round 1 of 4 and 8 with 5, 6, rounds 2..3, 7: a spent time
# budget cuts timing rounds first. A program that times out (RUN_TIMEOUT
# [90] s; memcheck runs MEMCHECK_TIMEOUT [120] s) is not started again.
# Time: a lent GPU machine gives a session 15 minutes of device time in
# all, its start (a minute or two) included, so one call of this check must
# leave room for a second: no run starts after BUDGET_S [240] seconds, and
# every run is stopped at DEADLINE_S [BUDGET_S + 60] (its timeout is cut to
# what is left; a run so stopped is a SKIP "cut at the deadline", not a
# FAIL), so the check ends by about DEADLINE_S plus the tables. A second
# call can take what the first skipped: MEMCHECK=0 leaves memcheck out,
# ONLY=REGEX runs only the programs whose names match (an rs program
# brings its OP2 control along), ROUNDS=N.
# Answers are compared to the printed digit, except where noted:
#   airfoil  rms (printed to 6 digits) identical; "max err" (16 digits)
#            within MAXERR_TOL relative [1e-9]; the cell it is at is
#            reported, not compared. Device code differs from the host
#            reference in the last bits of each step: nvcc contracts a*b+c
#            into fused multiply-adds, block reductions and atomics add in
#            another order. airfoil's steps damp such differences: the same
#            source on libop2_seq built with FMA contraction (g++
#            -march=haswell -ffp-contract=fast) prints the same 10 rms
#            values, max err within 8e-13 relative, but at another cell in
#            5 of 10 lines (the O-grid is symmetric: cells tie to rounding).
#   aero     outer iteration numbers identical; each residual within
#            AERO_LOOSE [0.3] relative, and their geometric mean ratio to
#            the reference's within AERO_MEAN [0.03] of 1. Each outer step
#            runs 200 conjugate-gradient steps (its cap: on this mesh CG
#            never reaches its stopping test) and CG amplifies last-bit
#            differences: the same source on libop2_seq built with FMA
#            contraction (g++ -march=haswell -ffp-contract=fast, as nvcc
#            contracts) differs from the reference by up to 15.4% in one
#            residual (outer step 12) and by 0.8% in the geometric mean
#            (BENCHMARKS.md, "GPU check"); the tolerances are about twice
#            that. A wrong kernel moves every residual, and the mean.
#            A residual below AERO_FLOOR [1e-9] times the reference's
#            first is round-off (on small meshes Newton converges and the
#            last steps print 1e-13..1e-17, differing by factors): its step
#            number is compared, its value reported, not compared. On the
#            bundle's mesh the smallest is 6e-3 times the first.
# Writes RESULTS_DIR/summary.txt (also printed), RESULTS_DIR/logs/, and
# RESULTS_DIR/timing.txt, transfers.txt (meshes and run folders go to a
# scratch folder under $TMPDIR, removed at the end). What was skipped is
# listed.
# Exit status: 0 when every check that ran passed.
set -u
B=$(cd "$(dirname "$0")" && pwd)
R=${1:-}
if [ -z "$R" ]; then
  echo "usage: $0 RESULTS_DIR" >&2
  exit 2
fi
mkdir -p "$R/logs" || exit 2
R=$(cd "$R" && pwd)
START=$(date +%s)
BUDGET_S=${BUDGET_S:-240}
DEADLINE_S=${DEADLINE_S:-$((BUDGET_S + 60))}
ROUNDS=${ROUNDS:-3}
MEMCHECK=${MEMCHECK:-1}
ONLY=${ONLY:-.}
MAXERR_TOL=${MAXERR_TOL:-1e-9}
AERO_LOOSE=${AERO_LOOSE:-0.3}
AERO_MEAN=${AERO_MEAN:-0.03}
AERO_FLOOR=${AERO_FLOOR:-1e-9}
JIT_TARGET=${JIT_TARGET:-1.2}
SUMMARY=$R/summary.txt
: > "$SUMMARY"
FAILS=0
SKIPS=""

line() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
fail() {
  FAILS=$((FAILS + 1))
  line "FAIL $*"
}
ok() { line "ok   $*"; }
elapsed() { echo $(($(date +%s) - START)); }
over_budget() { local e; e=$(elapsed); [ "$e" -ge "$BUDGET_S" ] || [ "$e" -ge "$DEADLINE_S" ]; }
# set_limit SECONDS: LIMIT = SECONDS, or what is left before DEADLINE_S when
# that is less (at least 1 s); CUT = 1 when the deadline set it
# cut_at_deadline STATUS WHAT: status 0 (and a SKIP line) when the run that
# ended with STATUS was stopped by the deadline rather than by its own timeout
cut_at_deadline() {
  [ "$1" = 124 ] && [ "$CUT" = 1 ] || return 1
  skip "$2: cut at the deadline of $DEADLINE_S s"
}
set_limit() {
  local left=$((DEADLINE_S - $(elapsed)))
  LIMIT=$1 CUT=0
  if [ "$left" -lt "$LIMIT" ]; then
    CUT=1
    LIMIT=$((left < 1 ? 1 : left))
  fi
}
skip() {
  SKIPS="$SKIPS; $*"
  line "SKIP $*"
}
now_ns() { date +%s%N; }

programs() { # KIND [APP]: names of the bundle's programs (those ONLY matches)
  awk -v k="$1" -v a="${2:-}" -v only="$ONLY" '$2 == k && (a == "" || $3 == a) && $1 ~ only {print $1}' "$B/programs.txt"
}
# a program's arguments (programs.txt: NAME KIND APP [ARGS...]) into PROG_ARGS
PROG_ARGS=()
prog_args() {
  read -r -a PROG_ARGS <<< "$(awk -v n="$1" '$1 == n { for (i = 4; i <= NF; i++) printf "%s ", $i }' "$B/programs.txt")"
}
kind_of() { awk -v n="$1" '$1 == n {print $2}' "$B/programs.txt"; }
has() { [ -x "$B/bin/$1" ]; }

# ---- versions --------------------------------------------------------------------
line "op2-rs GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
sed -n '2,4s/^/bundle: /p' "$B/manifest.txt" | tee -a "$SUMMARY"
GPU=0
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
  GPU=1
  line "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader | head -n 1)"
  line "cuda (driver): $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)"
  nvidia-smi > "$R/logs/nvidia-smi.txt" 2>&1
fi
NVCC_BIN=""
for c in nvcc "${CUDA_HOME:-/nonexistent}/bin/nvcc" /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
  if command -v "$c" > /dev/null 2>&1; then
    NVCC_BIN=$(command -v "$c")
    break
  fi
done
[ -n "$NVCC_BIN" ] && line "nvcc: $("$NVCC_BIN" --version | tail -n 1)"
SANITIZER=""
for c in compute-sanitizer "${CUDA_HOME:-/nonexistent}/bin/compute-sanitizer" \
  /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda-*/bin/compute-sanitizer; do
  if command -v "$c" > /dev/null 2>&1; then
    SANITIZER=$(command -v "$c")
    break
  fi
done
[ -n "$SANITIZER" ] && line "compute-sanitizer: $("$SANITIZER" --version | grep -i version | head -n 1)"
# NVRTC, when this machine has a CUDA toolkit: jit programs compile there
# what the bundle's cache lacks (without it such a loop runs on the host and
# the check fails)
NVRTC_DIR=""
for d in "${CUDA_HOME:-/nonexistent}/lib64" "${CUDA_HOME:-/nonexistent}/lib" /usr/local/cuda/lib64 /usr/local/cuda-*/lib64; do
  if ls "$d"/libnvrtc.so* > /dev/null 2>&1; then
    NVRTC_DIR=$d
    break
  fi
done
if [ -n "$(programs jit)" ]; then
  if [ -n "$NVRTC_DIR" ]; then
    line "nvrtc: $NVRTC_DIR"
  else
    line "nvrtc: none found (op_seq.h loops use the cubins in the bundle's cache/)"
  fi
fi

mpi_resolves() { # the MPI program's libraries resolve on this machine
  ! ldd "$B/bin/$1" 2> /dev/null | grep -q 'not found'
}

# ---- meshes ----------------------------------------------------------------------
# meshes and run folders live in a scratch folder, removed at the end: the
# results folder holds only what is worth carrying back
W=$(mktemp -d "${TMPDIR:-/tmp}/op2rs-gpu-check.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
MESH=$W/mesh
mkdir -p "$MESH"
mesh_args() { sed -n "s/^$1 mesh: [a-z_]* //p" "$B/manifest.txt"; }
make_mesh() { # APP FILE GENERATOR [ARGS...]: a mesh under $MESH/APP-...
  local app=$1 file=$2 gen=$3
  shift 3
  local d=$MESH/$app-${*// /_}
  d=${d//--/}
  mkdir -p "$d"
  if [ ! -s "$d/$file" ]; then
    "$B/bin/$gen" -o "$d/$file" "$@" > /dev/null 2> "$d/gen.err" || return 1
  fi
  echo "$d/$file"
}

# run NAME DIR MESHFILE LOGBASE [ENV=VALUE...]: runs bin/NAME in DIR (mesh
# linked in), stdout/stderr to LOGBASE.out/.err; sets RC and WALL (seconds)
run_prog() {
  local name=$1 dir=$2 mesh=$3 log=$4
  shift 4
  mkdir -p "$dir"
  [ -n "$mesh" ] && ln -sf "$mesh" "$dir/$(basename "$mesh")"
  local t0 t1
  t0=$(now_ns)
  set_limit "${RUN_TIMEOUT:-90}"
  (cd "$dir" && env "$@" timeout "$LIMIT" "$B/bin/$name" "${PROG_ARGS[@]}" > "$log.out" 2> "$log.err")
  RC=$?
  t1=$(now_ns)
  WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  rm -f "$dir"/out_grid* 2> /dev/null
}

# ---- no GPU: every program must stop cleanly ----------------------------------------
if [ $GPU = 0 ]; then
  line "gpu: none (nvidia-smi lists no device): every program must stop cleanly"
  small=$(make_mesh airfoil new_grid.dat meshgen --ni 20 --nj 10) || { fail "meshgen"; small=""; }
  smallaero=$(make_mesh aero FE_grid.dat aero_meshgen --ni 20 --nj 10) || { fail "aero_meshgen"; smallaero=""; }
  n=0
  while read -r name kind app; do
    has "$name" || { fail "$name: not in the bundle"; continue; }
    if [ "$kind" = mpi ] && ! mpi_resolves "$name"; then
      skip "$name: no MPI runtime here ($(ldd "$B/bin/$name" | awk '/not found/ {print $1}' | head -n 2 | tr '\n' ' '))"
      continue
    fi
    mesh=""
    case $app in airfoil) mesh=$small ;; aero) mesh=$smallaero ;; esac
    prog_args "$name"
    run_prog "$name" "$W/run/$name" "$mesh" "$R/logs/$name.nogpu"
    PROG_ARGS=()
    n=$((n + 1))
    errs=$(grep -c . "$R/logs/$name.nogpu.err")
    msg=$(head -n 1 "$R/logs/$name.nogpu.err")
    if [ "$kind" = op2 ]; then
      # any error exit (OP2 calls exit(-1): 255), not a timeout or a signal
      if [ $RC -ne 0 ] && [ $RC -ne 124 ] && { [ $RC -lt 128 ] || [ $RC = 255 ]; }; then
        ok "$name (OP2's library): stopped, status $RC: $(grep -m1 -iE 'cuda|device|driver' "$R/logs/$name.nogpu.err" "$R/logs/$name.nogpu.out" | sed 's/^[^:]*://' | head -c 100)"
      else
        fail "$name (OP2's library): status $RC"
      fi
    elif [ $RC -ne 0 ] && [ $RC -lt 124 ] && [ "$errs" = 1 ] && echo "$msg" | grep -qE 'no CUDA (driver|device)'; then
      ok "$name: clean stop, status $RC: $msg"
    else
      fail "$name: status $RC, $errs stderr line(s), want one 'no CUDA driver/device' line: $(head -c 200 "$R/logs/$name.nogpu.err")"
    fi
  done < "$B/programs.txt"
  line "$n program(s) started, $FAILS failure(s), $(elapsed) s"
  if [ $FAILS = 0 ]; then
    line "no GPU"
    exit 0
  fi
  line "no GPU: $FAILS program(s) did not stop cleanly"
  exit 1
fi

# ---- with a GPU ----------------------------------------------------------------------
line ""
line "== meshes"
AIRFOIL_MESH=""
AERO_MESH=""
# the large meshes only where a program runs OP2's airfoil or aero
uses_app() { awk -v a="$1" '$3 == a' "$B/programs.txt" | grep -q .; }
if grep -q '^airfoil mesh' "$B/manifest.txt" && { uses_app airfoil || uses_app aero; }; then
  # shellcheck disable=SC2046 # the manifest's arguments are words
  AIRFOIL_MESH=$(make_mesh airfoil new_grid.dat meshgen $(mesh_args airfoil)) || fail "meshgen"
  # shellcheck disable=SC2046
  AERO_MESH=$(make_mesh aero FE_grid.dat aero_meshgen $(mesh_args aero)) || fail "aero_meshgen"
  for a in airfoil aero; do
    m=$AIRFOIL_MESH
    [ $a = aero ] && m=$AERO_MESH
    [ -s "$m" ] || continue
    if [ -s "$B/ref/$a.mesh.md5" ]; then
      if [ "$(md5sum < "$m" | awk '{print $1}')" = "$(cat "$B/ref/$a.mesh.md5")" ]; then
        ok "$a mesh: $(head -n 1 "$m") (nodes cells ...), same bytes as the reference's"
      else
        fail "$a mesh: differs from the mesh the reference ran on"
      fi
    else
      line "     $a mesh: $(head -n 1 "$m")"
    fi
  done
fi
SMALL=$(make_mesh airfoil new_grid.dat meshgen --ni 200 --nj 100)
SMALLAERO=$(make_mesh aero FE_grid.dat aero_meshgen --ni 100 --nj 50)

# ---- tests/cuda ------------------------------------------------------------------------
line ""
line "== tests/cuda programs (our libop2_cuda / libop2_mpi_cuda)"
for name in $(programs rs test) $(programs mpi test); do
  if awk -v n="$name" '$1 == n && $2 == "mpi"' "$B/programs.txt" | grep -q . && ! mpi_resolves "$name"; then
    skip "$name: no MPI runtime on this machine ($(ldd "$B/bin/$name" | awk '/not found/ {print $1}' | head -n 2 | tr '\n' ' '))"
    continue
  fi
  run_prog "$name" "$W/run/$name" "" "$R/logs/$name" OP2_RS_DEVICE_STATS=1
  if cut_at_deadline $RC "$name"; then
    :
  elif [ $RC = 0 ] && grep -q "^PASS $name\$" "$R/logs/$name.out" && ! grep -q '^FAIL' "$R/logs/$name.out"; then
    ok "$name: $(grep -c '^ok\|^PASS' "$R/logs/$name.out") line(s) of checks passed, $WALL s"
  else
    fail "$name: status $RC; $(grep -m2 'FAIL\|error' "$R/logs/$name.out" "$R/logs/$name.err" | tr '\n' ' ' | head -c 200)"
  fi
done

# ---- answers -------------------------------------------------------------------------
# the lines an app prints as its answers
answers() { # APP FILE
  case $1 in
    airfoil) grep -E '^ *[0-9]+ +[-0-9.e+]+, max err:' "$2" ;;
    exairfoil) grep -E '^ *[0-9]+ +[-0-9.e+]+ *$' "$2" ;;
    selfcheck | bigoffsets) grep -E '^(PASSED|FAILED|wrong:) ' "$2" ;;
    aero) grep -E '^[0-9]+ [0-9]+ [-0-9.E+]+ *$' "$2" ;;
  esac
}
# compare APP REF TEST: prints a verdict; status 0 = as the reference
compare() {
  local app=$1 ref=$2 test=$3
  answers "$app" "$ref" > "$test.ref.ans"
  answers "$app" "$test" > "$test.ans"
  awk -v app="$app" -v mtol="$MAXERR_TOL" -v mean="$AERO_MEAN" -v loose="$AERO_LOOSE" -v floor="$AERO_FLOOR" '
    function rel(a, b) { a += 0; b += 0; if (a == b) return 0; d = (a - b) / (b != 0 ? b : 1); return d < 0 ? -d : d }
    FNR == NR { r[FNR] = $0; nr = FNR; next }
    { n = FNR; split(r[FNR], a, /[ ,]+/); split($0, b, /[ ,]+/)
      if ($0 == r[FNR]) same++
      if (app == "selfcheck" || app == "bigoffsets") {
        # a program that checks itself: the same verdict as the reference
        if ($0 != r[FNR]) { bad++; why = why " " $0 }
      } else if (app == "exairfoil") {
        # c-examples airfoil: "iter rms", identical
        if (a[2] != b[2] || a[3] != b[3]) { bad++; why = why " rms@" a[2] }
      } else if (app == "airfoil") {
        # fields: "" iter rms max err: MAXERR at CELL
        if (a[2] != b[2] || a[3] != b[3]) { bad++; why = why " rms@" a[2] }
        w = rel(b[6], a[6]); if (w > wmax) wmax = w
        if (w > mtol) { bad++; why = why " maxerr@" a[2] }
        if (a[8] != b[8]) cells++
      } else {
        if (a[1] != b[1]) { bad++; why = why " line" FNR }
        if (FNR == 1) first = a[3] + 0
        if (a[2] != b[2]) inner++
        if (a[3] + 0 < floor * first && a[3] + 0 >= 0 && b[3] + 0 >= 0) { rounded++; next }
        w = rel(b[3], a[3]); if (w > wmax) wmax = w
        if (w > loose) { bad++; why = why " res@" a[1] }
        if (a[3] > 0 && b[3] > 0) { lsum += log(b[3] / a[3]); nl++ } else { bad++; why = why " res<=0@" a[1] }
      }
    }
    END {
      if (n != nr || nr == 0) { bad++; why = why " lines " n "/" nr }
      printf "%d/%d lines identical, max rel diff %.2e", same, nr, wmax
      if (nl) { g = exp(lsum / nl); printf ", geometric mean ratio %.4f", g
        if (g - 1 > mean || 1 - g > mean) { bad++; why = why " mean" } }
      if (inner) printf ", inner iterations differ in %d", inner
      if (rounded) printf ", %d residual(s) at round-off (below %g of the first) not compared", rounded, floor
      if (cells) printf ", max err at another cell in %d", cells
      if (bad) printf ", DIFFERENT:%s", substr(why, 1, 80)
      exit bad ? 1 : 0
    }' "$test.ref.ans" "$test.ans"
}

# transfers RUN_OUT APP MESH: the library's counters against the prediction
transfers() {
  local out=$1 app=$2 mesh=$3
  local stats
  stats=$(grep -m1 '^op2-rs device transfers:' "$out") || {
    echo "no transfer report"
    return 1
  }
  echo "$stats" >> "$R/transfers.txt"
  # mesh header: airfoil "nnode ncell nedge nbedge", aero "nnode ncell nbnodes"
  read -r h1 h2 _ h4 < "$mesh"
  local placed_n placed_b down_n down_b
  case $app in
    airfoil) # p_bound int[1] on bedges, p_x double[2] on nodes, p_q p_qold p_res double[4] and p_adt double[1] on cells
      placed_n=6 placed_b=$((h4 * 4 + h1 * 16 + h2 * (32 * 3 + 8)))
      down_n=1 down_b=$((h2 * 32)) ;;
    aero) # p_x double[2], p_phim p_resm p_V p_P p_U double[1] on nodes, p_K double[16] on cells
      placed_n=7 placed_b=$((h1 * 16 + h1 * 8 * 5 + h2 * 128))
      down_n=0 down_b=0 ;;
  esac
  echo "$stats" | awk -v pn="$placed_n" -v pb="$placed_b" -v dn="$down_n" -v db="$down_b" '
    { for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) v[kv[1]] = kv[2] }
    END {
      bad = ""
      if (v["dats_placed"] != pn || v["dats_placed_bytes"] != pb) bad = bad sprintf(" placed %s/%s B (want %s/%s B)", v["dats_placed"], v["dats_placed_bytes"], pn, pb)
      if (v["dat_uploads"] != 0) bad = bad sprintf(" %s re-uploads", v["dat_uploads"])
      if (v["dat_downloads"] != dn || v["dat_downloads_bytes"] != db) bad = bad sprintf(" downloads %s/%s B (want %s/%s B)", v["dat_downloads"], v["dat_downloads_bytes"], dn, db)
      if (v["halo_uploads"] != 0) bad = bad sprintf(" %s halo uploads", v["halo_uploads"])
      printf "placed %d dats (%d B), %d re-uploads, %d downloads (%d B), %d maps, %d plans (%d B, %.1f ms), soa %.1f ms, scratch %d up/%d down",
        v["dats_placed"], v["dats_placed_bytes"], v["dat_uploads"], v["dat_downloads"], v["dat_downloads_bytes"],
        v["maps"], v["plans"], v["plans_bytes"], v["plan_upload_ms"], v["soa_transpose_ms"], v["scratch_up"], v["scratch_down"]
      if (bad != "") { printf "; NOT AS PREDICTED:%s", bad; exit 1 }
    }'
}

loop_time() { sed -n 's/^op2check time loop: \([0-9.]*\) s$/\1/p' "$1" | head -n 1; }

# ---- applications ---------------------------------------------------------------------
APPS_PRESENT=0
[ -n "$(programs rs airfoil)$(programs jit)" ] && APPS_PRESENT=1
: > "$R/timing.txt"
: > "$R/transfers.txt"
declare -A TIMED_OUT
# timed_run NAME ROUND APP MESH [ENV=VALUE...]: one timed run of an app
# program (skipped when the budget is spent or it timed out before), its
# answers against the reference, its time in timing.txt; status 0 when it
# ran to the end (the caller then checks more in $R/logs/NAME.rROUND.out)
timed_run() {
  local name=$1 round=$2 app=$3 mesh=$4 log t what v
  shift 4
  if over_budget; then
    skip "$name round $round: time budget ($BUDGET_S s, deadline $DEADLINE_S s) spent"
    return 1
  fi
  if [ -n "${TIMED_OUT[$name]:-}" ]; then
    skip "$name round $round: timed out before"
    return 1
  fi
  log=$R/logs/$name.r$round
  prog_args "$name"
  run_prog "$name" "$W/run/$name" "$mesh" "$log" OP2_RS_DEVICE_STATS=1 "$@"
  PROG_ARGS=()
  t=$(loop_time "$log.out")
  [ -n "$t" ] || t=$(sed -n 's/^Max total runtime = \([0-9.]*\)$/\1/p' "$log.out" | head -n 1)
  what="$name r$round: status $RC, wall $WALL s, loop ${t:-?} s"
  cut_at_deadline $RC "$name round $round" && return 1
  [ $RC = 124 ] && TIMED_OUT[$name]=1
  if [ $RC != 0 ]; then
    fail "$what; $(tail -n 2 "$log.err" | tr '\n' ' ' | head -c 200)"
    return 1
  fi
  if v=$(compare "$app" "$B/ref/$app.out" "$log.out"); then
    ok "$what; answers: $v"
  else
    fail "$what; answers: $v"
  fi
  echo "$name $round $WALL ${t:-nan}" >> "$R/timing.txt"
}

# one round: every app program once, ours and OP2's alternating
app_round() { # ROUND
  local round=$1 app mesh rs base order name log v share
  for app in airfoil aero; do
    [ $app = aero ] && [ "$round" -gt 1 ] && continue
    mesh=$AIRFOIL_MESH
    [ $app = aero ] && mesh=$AERO_MESH
    for rs in $(programs rs $app); do
      base=${rs%_rs}
      # alternate which library goes first from round to round
      order="$rs ${base}_op2"
      [ $((round % 2)) = 0 ] && order="${base}_op2 $rs"
      for name in $order; do
        timed_run "$name" "$round" "$app" "$mesh" || continue
        log=$R/logs/$name.r$round
        if [ "${name%_rs}" != "$name" ] && [ "$round" = 1 ]; then
          if v=$(transfers "$log.out" "$app" "$mesh"); then
            ok "$name transfers: $v"
          else
            fail "$name transfers: $v"
          fi
          share=$(grep -m1 '^op2-rs device transfers:' "$log.out" | awk -v w="$WALL" '
            { for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) v[kv[1]] = kv[2] }
            END { printf "%.2f", 100 * (v["plan_upload_ms"] + v["soa_transpose_ms"]) / 1000 / w }')
          if [ $app = airfoil ]; then
            if awk -v s="$share" 'BEGIN { exit !(s < 5) }'; then
              ok "$name: plan upload + SoA transposition = $share% of the run (target < 5%)"
            else
              fail "$name: plan upload + SoA transposition = $share% of the run (target < 5%)"
            fi
          fi
        fi
      done
    done
    jit_round "$round" "$app" "$mesh"
  done
  if [ "$round" = 1 ]; then
    jit_round 1 exairfoil ""
    jit_round 1 selfcheck ""
  fi
}

# ---- op_seq.h programs, loops written at run time (kind jit) -----------------------------
# the cache is copied: runs may add to it (compiled here when NVRTC is)
JIT_CACHE=$W/cache
[ -d "$B/cache" ] && cp -rL "$B/cache" "$JIT_CACHE"
# jit_env NAME: the environment of a jit program; as gpu_bundle.sh's
# name_env, a name with an _atomics part runs with atomics, one with a
# _global part with two-level colouring unstaged, one with a _soa part with
# SoA device copies (the bundle's cubins were compiled so), one with an
# _fma part with fused multiply-adds (OP2_RS_FMA=1: NVRTC --fmad=true, as
# nvcc compiles OP2's translated code), one ending in _async with its
# loops' kernels left queued (OP2_RS_DEVICE_ASYNC=1)
jit_env() {
  local opts=""
  case $1 in *_atomics | *_atomics_*) opts+=" OP2_RS_CONFLICTS=atomics" ;; *_global | *_global_*) opts+=" OP2_RS_CONFLICTS=colour2-global" ;; esac
  case $1 in *_soa | *_soa_*) opts+=" OP_AUTO_SOA=1" ;; esac
  case $1 in *_fma | *_fma_*) opts+=" OP2_RS_FMA=1" ;; esac
  case $1 in *_async) opts+=" OP2_RS_DEVICE_ASYNC=1" ;; esac
  echo "OP2_RS_CACHE_DIR=$JIT_CACHE OP2_RS_KERNEL_PATH=$B/src/$1 LD_LIBRARY_PATH=${NVRTC_DIR}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}$opts"
}
# on_gpu LOG: every loop ran on the GPU (no fallback line, and the table
# of where each loop ran lists each loop as "device"; a program prints it
# after op_timing_output and again at op_exit: loops counted once by name)
on_gpu() {
  local out=$1 host dev rows why
  rows=$(sed -n '/where each loop ran/,/^ *$/p' "$out" | awk '(NF == 2 && $2 == "device") || ($2 == "host" && $3 ~ /^[(]/) {print $1, $2}' | sort -u)
  dev=$(awk '$2 == "device"' <<< "$rows" | wc -l)
  host=$(grep -c 'runs on the host:' "$out")
  # a loop the table lists as "host" counts even without a fallback line
  rows=$(awk '$2 == "host"' <<< "$rows" | wc -l)
  [ "$rows" -gt "$host" ] && host=$rows
  if [ "$host" = 0 ] && [ "$dev" -gt 0 ]; then
    echo "every loop on the GPU ($dev loops)"
    return 0
  fi
  why=$(grep -m1 'runs on the host:' "$out") || why=$(sed -n '/where each loop ran/,/^ *$/p' "$out" | awk '$2 == "host"' | head -n 1)
  echo "$host loop(s) on the host, $dev on the GPU: $(head -c 200 <<< "$why")"
  return 1
}
jit_round() { # ROUND APP MESH
  local round=$1 app=$2 mesh=$3 name log v times=""
  # round 1 times each loop's kernels on the device too (device events,
  # two per loop call: about a microsecond of the host's on the CUDA
  # emulator, a real driver's not measured; in this round only;
  # device_table below)
  [ "$round" = 1 ] && times=OP2_RS_DEVICE_TIMES=1
  for name in $(programs jit "$app"); do
    # shellcheck disable=SC2046 # jit_env prints words
    timed_run "$name" "$round" "$app" "$mesh" $(jit_env "$name") $times || continue
    log=$R/logs/$name.r$round
    [ "$round" = 1 ] || continue
    if v=$(on_gpu "$log.out"); then ok "$name: $v"; else fail "$name: $v"; fi
    case $app in exairfoil | selfcheck | bigoffsets) continue ;; esac
    if v=$(transfers "$log.out" "$app" "$mesh"); then
      ok "$name transfers: $v"
    else
      fail "$name transfers: $v"
    fi
  done
}

# ---- compute-sanitizer ---------------------------------------------------------------
memcheck_all() {
  local name app mesh niter dir log t0 rc summary args envs
  line ""
  line "== compute-sanitizer memcheck, short runs of our programs"
  if [ -z "$SANITIZER" ]; then
    skip "memcheck: compute-sanitizer not found"
  elif [ "$MEMCHECK" = 0 ]; then
    skip "memcheck: MEMCHECK=0"
  else
    for name in $(programs rs test) $(programs rs airfoil) $(programs rs aero) $(programs jit); do
      if over_budget; then
        skip "memcheck $name: time budget ($BUDGET_S s, deadline $DEADLINE_S s) spent"
        continue
      fi
      # the same kernels as the program without _async: checked there;
      # an _fma program's kernels make the same memory accesses as those
      # of the program without _fma (only the arithmetic is contracted)
      case $name in *_async | *_fma | *_fma_*) continue ;; esac
      app=$(awk -v n="$name" '$1 == n {print $3}' "$B/programs.txt")
      # 8.6 GB under memcheck's shadow memory: its kernels' kinds of
      # argument are device_args', checked there
      [ "$app" = bigoffsets ] && continue
      mesh="" niter="" args=() envs=()
      case $app in
        airfoil) mesh=$SMALL niter=10 ;;
        aero) mesh=$SMALLAERO niter=2 ;;
        exairfoil) args=(--cells=2000 --iters=10) ;;
      esac
      # shellcheck disable=SC2207 # jit_env prints words
      [ "$(kind_of "$name")" = jit ] && envs=($(jit_env "$name"))
      dir=$W/run/memcheck-$name
      log=$R/logs/memcheck-$name
      mkdir -p "$dir"
      [ -n "$mesh" ] && ln -sf "$mesh" "$dir/$(basename "$mesh")"
      t0=$(date +%s)
      set_limit "${MEMCHECK_TIMEOUT:-120}"
      (cd "$dir" && env OP2CHECK_NITER=$niter "${envs[@]}" timeout "$LIMIT" "$SANITIZER" --tool memcheck --leak-check no \
        --error-exitcode 99 "$B/bin/$name" "${args[@]}" > "$log.out" 2> "$log.err")
      rc=$?
      cut_at_deadline $rc "memcheck $name" && continue
      summary=$(grep -h -m1 'ERROR SUMMARY' "$log.out" "$log.err" | sed 's/^=* *//')
      if [ $rc = 0 ] && echo "$summary" | grep -q 'ERROR SUMMARY: 0 errors'; then
        ok "memcheck $name: $summary ($(($(date +%s) - t0)) s)"
      else
        fail "memcheck $name: status $rc, ${summary:-no summary}; $(grep -h -m2 'Invalid\|Error' "$log.out" "$log.err" | tr '\n' ' ' | head -c 160)"
      fi
    done
  fi
}


APPS_OK=0
if [ $APPS_PRESENT = 1 ]; then
  APPS_OK=1
  line ""
  if [ -s "$AIRFOIL_MESH" ]; then
    line "== airfoil on $(head -n 1 "$AIRFOIL_MESH" | awk '{print $2}') cells, 1000 iterations; aero on $(head -n 1 "$AERO_MESH" | awk '{print $2}') cells; answers against op_seq.h + libop2_seq; round 1"
  else
    line "== op_seq.h programs on libop2_cuda; answers against op_seq.h + libop2_seq; round 1"
  fi
  app_round 1
fi
memcheck_all
if [ $APPS_OK = 1 ] && [ "$ROUNDS" -gt 1 ]; then
  line ""
  line "== airfoil, rounds 2..$ROUNDS (timing; answers checked again)"
  for round in $(seq 2 "$ROUNDS"); do app_round "$round"; done
fi
# offsets past 2^31 - 1 last: 8.6 GB each way must not cut the timing rounds
if [ -n "$(programs jit bigoffsets)" ]; then
  line ""
  line "== a dat whose offsets pass 2^31 - 1 (tests/c/big_offsets; its PASSED line as the reference's, every loop on the GPU)"
  jit_round 1 bigoffsets ""
fi

# ---- timing ------------------------------------------------------------------------------
# the pairs "A B" whose loops are compared at the end (loop_table)
LOOP_PAIRS=()
# loop_table A B: where the time goes, loop by loop: op_timing_output's time
# column in the logs of programs A and B (every timed round), the median
# per loop, sorted by B's time; rows "loop A B A/B", then the sums. Nothing
# when either has no table.
loop_table() {
  local a=$1 b=$2 rows
  rows=$(awk -v a="$a" '
    function med(x, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
      return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2 }
    FNR == 1 { prog = FILENAME; sub(/.*\//, "", prog); sub(/\.r[0-9]+\.out$/, "", prog); side = prog == a ? "a" : "b"; inside = 0; done = 0 }
    done { next }
    /count +plan time/ { inside = 1; n = 0; next }
    !inside { next }
    /;/ { k = split($0, f, ";"); nm = f[k]; gsub(/[ \t]/, "", nm); t = f[4]; sub(/\(.*/, "", t)
      if (nm == "" || t !~ /[0-9]/) next
      c[side, nm]++; v[side, nm, c[side, nm]] = t + 0; names[nm] = 1; n++; next }
    /[^ \t]/ { if (n) done = 1 }
    END { for (nm in names) { if (!c["a", nm] || !c["b", nm]) continue
        for (s = 1; s <= 2; s++) { sd = s == 1 ? "a" : "b"; delete x; for (i = 1; i <= c[sd, nm]; i++) x[i] = v[sd, nm, i]; m[s] = med(x, c[sd, nm]) }
        printf "%s %.4f %.4f\n", nm, m[1], m[2] } }' "$R/logs/$a".r[0-9]*.out "$R/logs/$b".r[0-9]*.out 2> /dev/null | sort -k3,3gr)
  [ -n "$rows" ] || return 0
  line "-- $a / $b (seconds)"
  while read -r nm ta tb; do
    line "$(awk -v n="$nm" -v a="$ta" -v b="$tb" 'BEGIN { printf "   %-20s %10.4f %10.4f %8s\n", n, a, b, (b > 0 ? sprintf("%.3f", a / b) : "-") }')"
  done <<< "$rows"
  line "$(awk '{ a += $2; b += $3 } END { printf "   %-20s %10.4f %10.4f %8s\n", "sum", a, b, (b > 0 ? sprintf("%.3f", a / b) : "-") }' <<< "$rows")"
}
# device_table NAME: an op_seq.h program's loops in its round 1 (run with
# OP2_RS_DEVICE_TIMES=1): the device's time of each loop's kernels (from
# events, the library's last table) against op_timing_output's time in the
# same run; their difference is the time the loop spent on the host
# around its kernels (arguments, plan, launches, the wait, reductions),
# where the device may idle. Rows "loop calls device table host", then the
# sums. Nothing when the run printed no such table.
device_table() {
  local name=$1 out=$R/logs/$1.r1.out rows
  [ -s "$out" ] || return 0
  rows=$(awk '
    /count +plan time/ { inside = 1; got = 0; next }
    inside && /;/ { k = split($0, f, ";"); nm = f[k]; gsub(/[ \t]/, "", nm); t = f[4]; sub(/\(.*/, "", t)
      if (nm != "" && t ~ /[0-9]/ && !(nm in tab)) tab[nm] = t + 0; got++; next }
    inside && /[^ \t-]/ && got { inside = 0 }
    /device time of each loop.s kernels/ { dev = 1; delete d; delete c; nd = 0; next }
    dev && $1 == "loop" && $2 == "calls" { next }
    dev && NF == 0 { dev = 0; next }
    dev && NF >= 4 && $2 ~ /^[0-9]+$/ { if (!($1 in d)) order[++nd] = $1; d[$1] = $3; c[$1] = $2; next }
    dev { dev = 0 }
    END { for (i = 1; i <= nd; i++) { nm = order[i]; if (nm in tab) printf "%s %d %.4f %.4f\n", nm, c[nm], d[nm], tab[nm] } }' "$out" | sort -k4,4gr)
  [ -n "$rows" ] || return 0
  line "-- $name (seconds: calls, device, op_timing_output, host = op_timing_output - device)"
  while read -r nm n td tt; do
    line "$(awk -v m="$nm" -v n="$n" -v d="$td" -v t="$tt" 'BEGIN { printf "   %-20s %8d %10.4f %10.4f %10.4f\n", m, n, d, t, t - d }')"
  done <<< "$rows"
  line "$(awk '{ d += $3; t += $4 } END { printf "   %-20s %8s %10.4f %10.4f %10.4f\n", "sum", "", d, t, t - d }' <<< "$rows")"
}
# the op_seq.h programs whose device_table is printed at the end
DEVICE_TABLES=()

if [ -s "$R/timing.txt" ] && [ -n "$(programs rs airfoil)$(programs rs aero)" ]; then
  line ""
  line "== timing: the time loop per iteration (ms), median of the rounds; ours / OP2's (same generated code)"
  line "$(printf '%-16s %24s %24s %8s' program 'ours (runs)' "OP2's (runs)" ratio)"
  for rs in $(programs rs airfoil) $(programs rs aero); do
    base=${rs%_rs}
    app=$(awk -v n="$rs" '$1 == n {print $3}' "$B/programs.txt")
    iters=1000
    [ "$app" = aero ] && iters=20
    row=$(awk -v a="$rs" -v b="${base}_op2" -v n="$iters" '
      function med(x, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
        return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2 }
      $4 != "nan" && $1 == a { ra[++na] = 1000 * $4 / n; la = la sprintf(" %.3f", 1000 * $4 / n) }
      $4 != "nan" && $1 == b { rb[++nb] = 1000 * $4 / n; lb = lb sprintf(" %.3f", 1000 * $4 / n) }
      END { if (!na || !nb) { print "-"; exit }
        ma = med(ra, na); mb = med(rb, nb)
        printf "%-16s %8.3f (%s) %8.3f (%s) %8.3f\n", substr(a, 1, length(a) - 3), ma, substr(la, 2), mb, substr(lb, 2), ma / mb }' "$R/timing.txt")
    [ "$row" = - ] && continue
    line "$row"
    LOOP_PAIRS+=("$rs ${base}_op2")
    if [ "$app" = airfoil ]; then
      ratio=$(echo "$row" | awk '{print $NF}')
      if awk -v r="$ratio" 'BEGIN { exit !(r <= 1.0) }'; then
        ok "$base: ours / OP2's = $ratio (target <= 1)"
      else
        line "MISS $base: ours / OP2's = $ratio (target <= 1; a performance target, not a failure of the check)"
      fi
    fi
  done
fi

# op_seq.h programs against the faster of OP2's translated configurations;
# the target holds for an application when its best op_seq.h configuration
# (colouring, atomics, SoA: the bundle's *_jit* programs) is within it
if [ -s "$R/timing.txt" ] && [ -n "$(programs jit airfoil)$(programs jit aero)" ] && [ -n "$(programs op2)" ]; then
  line ""
  line "== timing: op_seq.h on our libop2_cuda (loops written at run time) / OP2's translated CUDA on OP2's library, median ms per iteration"
  for app in airfoil aero; do
    iters=1000
    [ "$app" = aero ] && iters=20
    best_jit="" best_ratio="" best_op2=""
    # the per-loop table wants a program that waits for each loop: an
    # _async one's per-loop times are the host's (kernels left queued)
    wait_jit="" wait_ratio="" wait_op2=""
    for jit in $(programs jit "$app"); do
      row=$(awk -v j="$jit" -v ops="$(programs op2 "$app" | tr '\n' ' ')" -v n="$iters" '
        function med(x, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
          return k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2 }
        BEGIN { m = split(ops, names, " "); for (i = 1; i <= m; i++) want[names[i]] = 1 }
        $4 == "nan" { next }
        $1 == j { a[++na] = 1000 * $4 / n }
        ($1 in want) { c[$1]++; v[$1, c[$1]] = 1000 * $4 / n }
        END { if (!na) { print "-"; exit }
          best = ""; for (p in c) { delete x; for (i = 1; i <= c[p]; i++) x[i] = v[p, i]; mm = med(x, c[p]); if (best == "" || mm < bm) { best = p; bm = mm } }
          if (best == "") { print "-"; exit }
          ma = med(a, na)
          printf "%-24s %8.3f  %-18s %8.3f %8.3f\n", j, ma, best, bm, ma / bm }' "$R/timing.txt")
      [ "$row" = - ] && continue
      line "$row"
      ratio=$(echo "$row" | awk '{print $NF}')
      if [ -z "$best_ratio" ] || awk -v r="$ratio" -v b="$best_ratio" 'BEGIN { exit !(r < b) }'; then
        best_jit=$jit best_ratio=$ratio best_op2=$(echo "$row" | awk '{print $3}')
      fi
      case $jit in *_async) continue ;; esac
      if [ -z "$wait_ratio" ] || awk -v r="$ratio" -v b="$wait_ratio" 'BEGIN { exit !(r < b) }'; then
        wait_jit=$jit wait_ratio=$ratio wait_op2=$(echo "$row" | awk '{print $3}')
      fi
    done
    [ -n "$best_jit" ] || continue
    [ -n "$wait_jit" ] && LOOP_PAIRS+=("$wait_jit $wait_op2")
    DEVICE_TABLES+=("$best_jit")
    [ -n "$wait_jit" ] && [ "$wait_jit" != "$best_jit" ] && DEVICE_TABLES+=("$wait_jit")
    if awk -v r="$best_ratio" -v t="$JIT_TARGET" 'BEGIN { exit !(r <= t) }'; then
      ok "$app: op_seq.h on libop2_cuda ($best_jit, the best of $(programs jit "$app" | wc -l)) / OP2's translated code = $best_ratio (target <= $JIT_TARGET)"
    else
      line "MISS $app: op_seq.h on libop2_cuda ($best_jit, the best of $(programs jit "$app" | wc -l)) / OP2's translated code = $best_ratio (target <= $JIT_TARGET; a performance target, not a failure of the check)"
    fi
  done
fi

if [ ${#LOOP_PAIRS[@]} -gt 0 ]; then
  line ""
  line "== per loop: op_timing_output's time, median of the timed rounds; ours / OP2's (translated: the same code on both libraries; op_seq.h: each application's best program that waits for each loop, not an _async one, against OP2's best configuration)"
  for pair in "${LOOP_PAIRS[@]}"; do
    # shellcheck disable=SC2086 # two words
    loop_table $pair
  done
fi

# and c-examples' airfoil on libop2_cuda
for name in $(programs jit exairfoil); do DEVICE_TABLES+=("$name"); done
if [ ${#DEVICE_TABLES[@]} -gt 0 ]; then
  line ""
  line "== per loop on the device: each application's best op_seq.h program and its best that waits for each loop, and c-examples' airfoil, round 1 (OP2_RS_DEVICE_TIMES=1): the device's time of each loop's kernels (events) and op_timing_output's in the same run"
  for name in "${DEVICE_TABLES[@]}"; do device_table "$name"; done
fi

line ""
line "$FAILS failure(s); $(elapsed) s; logs in $R/logs${SKIPS:+; skipped:$SKIPS}"
[ $FAILS = 0 ]
