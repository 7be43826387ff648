#!/usr/bin/env bash
# bench_airfoil.sh -- airfoil timings: op2-rs (libop2_seq, libop2_openmp)
# against the hand-written plain C++ references (airfoil_ref, sequential, and
# airfoil_omp_ref, OpenMP), on one large mesh file.  See BENCHMARKS.md.
#
#   scripts/bench_airfoil.sh            build, check, then time (default)
#   scripts/bench_airfoil.sh callgrind  instruction counts (valgrind), seq lib vs airfoil_ref,
#                                       also per loop: res_calc per edge, and quadvec's
#                                       quad_res (vector arguments) per cell
#   scripts/bench_airfoil.sh loops      only the per-loop instruction counts
#   scripts/bench_airfoil.sh check      only the correctness check
#   scripts/bench_airfoil.sh summary    the tables again, from the logs of the last timed run
#
# Environment (defaults):
#   NI, NJ   O-grid of the benchmark mesh [1202 x 600 = 721,200 cells]
#            (not 1200 x 600: that exact size makes OP2-Common's airfoil_seq
#             compare against its official mesh and print FAILED)
#   ITERS    time steps per timed run [100]; airfoil's own default is 1000,
#            100 is a tenth of that (a sequential 1000-step run takes 1.5-3
#            min here; short runs are more often undisturbed on a shared machine)
#   ROUNDS   rounds; each round runs every configuration once, in a rotated
#            order [5]; the summary gives, over the undisturbed runs, median/
#            min/max per configuration, and each ratio as the median of the
#            per-round ratios, the ratio of medians and of the fastest runs
#   THREADS  the larger thread count [2]
#   CHECK    1: first compare every configuration's rms history with
#            airfoil_ref on a small mesh, at full precision [1]
#   QUIET_WAIT  before each timed run wait up to this many seconds for the
#            machine to be idle (< 10% of a core busy) [0]; every run reports
#            the CPU other processes used meanwhile
#   MAX_OTHER, TRIES  a run during which other processes used more than
#            MAX_OTHER cores [0.15] is marked "disturbed" and repeated, up to
#            TRIES runs in all [1: never repeated]; the last one counts
#   CARGO_BUILD  0: skip `cargo build --release`, link the archives already
#            in OP2_LIBDIR [1]
#   OP2_LIBDIR  the op2-rs libraries linked [target/release]
#   CG_CELLS, CG_ITERS  callgrind mode: mesh size and the iteration
#            difference measured [20000, 20]
#   EXTRA_CXXFLAGS  added to every C++ compilation, e.g. "-march=native" or
#            "-fno-math-errno" [none]; TAG  output directory target/bench-TAG
#            instead of target/bench (keeps builds with other flags apart)
#   CHECK_TOL  largest relative difference the check accepts [1e-12]
#
# Build: cargo build --release; the C++ programs with -O3 (no -march=native),
# OP2 programs linked against the static archives.  Everything goes to
# target/bench/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/bench_common.sh
. "$ROOT/scripts/bench_common.sh"

NI=${NI:-1202}
NJ=${NJ:-600}
ITERS=${ITERS:-100}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-2}
CHECK=${CHECK:-1}
CG_CELLS=${CG_CELLS:-20000}
CG_ITERS=${CG_ITERS:-20}
EXTRA_CXXFLAGS=${EXTRA_CXXFLAGS:-}
TAG=${TAG:-}
CHECK_TOL=${CHECK_TOL:-1e-12}
CARGO_BUILD=${CARGO_BUILD:-1}
QUIET_WAIT=${QUIET_WAIT:-0}
MAX_OTHER=${MAX_OTHER:-0.15}
TRIES=${TRIES:-1}
MODE=${1:-time}

OUT=target/bench${TAG:+-$TAG}
OP2_LIBDIR=${OP2_LIBDIR:-target/release}
EX=c-examples
mkdir -p "$OUT/logs"

CXX=${CXX:-g++}
CC=${CC:-gcc}
CXXFLAGS="-O3 -Wall -Wextra -std=c++17${EXTRA_CXXFLAGS:+ $EXTRA_CXXFLAGS}"
CFLAGS="-O3 -Wall -Wextra -std=c99 -pedantic"
SYSLIBS="-lpthread -ldl -lm"

# ---- build -------------------------------------------------------------------
build() {
  echo "== build"
  if [ "$CARGO_BUILD" = 1 ]; then
    cargo build --release 2>&1 | tail -n 1
  else
    echo "   (CARGO_BUILD=0: using the existing $OP2_LIBDIR/libop2_{seq,openmp}.a)"
  fi
  $CC $CFLAGS -I$EX/common -c $EX/common/naca_mesh.c -o $OUT/naca_mesh.o
  $CC $CFLAGS -I$EX/common $EX/meshgen/meshgen.c $OUT/naca_mesh.o -lm -o $OUT/meshgen
  # sources with the rms history printed at full precision, for the check
  local src
  for src in airfoil airfoil_ref airfoil_omp_ref; do
    sed 's/%10\.5e/%.17e/' $EX/airfoil/$src.cpp > $OUT/${src}_fullprec.cpp
  done
  local v suffix dir
  for v in "" _fullprec; do
    if [ -z "$v" ]; then suffix=""; dir=$EX/airfoil; else suffix=$v; dir=$OUT; fi
    $CXX $CXXFLAGS -I$EX/common -I$EX/airfoil $dir/airfoil_ref$suffix.cpp \
      $OUT/naca_mesh.o -lm -o $OUT/airfoil_ref$suffix
    $CXX $CXXFLAGS -fopenmp -I$EX/common -I$EX/airfoil $dir/airfoil_omp_ref$suffix.cpp \
      $OUT/naca_mesh.o -lm -o $OUT/airfoil_omp_ref$suffix
    $CXX $CXXFLAGS -Iinclude -I$EX/common -I$EX/airfoil $dir/airfoil$suffix.cpp \
      $OUT/naca_mesh.o $OP2_LIBDIR/libop2_seq.a $SYSLIBS -o $OUT/airfoil_seq$suffix
    $CXX $CXXFLAGS -Iinclude -I$EX/common -I$EX/airfoil $dir/airfoil$suffix.cpp \
      $OUT/naca_mesh.o $OP2_LIBDIR/libop2_openmp.a $SYSLIBS -o $OUT/airfoil_openmp$suffix
  done
  # the vector-argument benchmark (quad_res takes double ** through idx -4)
  $CXX $CXXFLAGS -I$EX/quadvec $EX/quadvec/quadvec_ref.cpp -o $OUT/quadvec_ref
  $CXX $CXXFLAGS -Iinclude -I$EX/quadvec $EX/quadvec/quadvec.cpp $OP2_LIBDIR/libop2_seq.a $SYSLIBS \
    -o $OUT/quadvec_seq
  $CXX $CXXFLAGS -Iinclude -I$EX/quadvec $EX/quadvec/quadvec.cpp $OP2_LIBDIR/libop2_openmp.a $SYSLIBS \
    -o $OUT/quadvec_openmp
}

# configurations: label, thread count (empty = not threaded), program
CONFIGS=(
  "ref|  |airfoil_ref"
  "omp_ref_1|1|airfoil_omp_ref"
  "omp_ref_${THREADS}|${THREADS}|airfoil_omp_ref"
  "op2_seq|  |airfoil_seq"
  "op2_openmp_1|1|airfoil_openmp"
  "op2_openmp_${THREADS}|${THREADS}|airfoil_openmp"
)

# run CONFIG SUFFIX ARGS...  (stdout of the program; with TIMEFILE set, the
# process's "wall user sys" seconds go to that file)
run_config() {
  local cfg=$1 suffix=$2
  shift 2
  local label threads prog
  IFS='|' read -r label threads prog <<< "$cfg"
  threads=${threads// /}
  local -a timer=()
  if [ -n "${TIMEFILE:-}" ]; then timer=(/usr/bin/time -f "%e %U %S" -o "$TIMEFILE"); fi
  if [ -n "$threads" ]; then
    OMP_NUM_THREADS=$threads "${timer[@]}" "$OUT/$prog$suffix" "$@"
  else
    env -u OMP_NUM_THREADS "${timer[@]}" "$OUT/$prog$suffix" "$@"
  fi
}

# ---- correctness: every configuration's rms history vs airfoil_ref ------------
check() {
  echo "== check: rms history (full precision) and q sums vs airfoil_ref, 20000 cells, 500 steps"
  local cfg label base=$OUT/logs/check_ref.txt
  run_config "${CONFIGS[0]}" _fullprec --cells=20000 --iters=500 > "$base"
  for cfg in "${CONFIGS[@]:1}"; do
    label=${cfg%%|*}
    run_config "$cfg" _fullprec --cells=20000 --iters=500 > "$OUT/logs/check_$label.txt"
    # worst relative difference over the rms lines and the four q sums
    awk -v label="$label" -v tol="$CHECK_TOL" '
      FNR == NR { if ($0 ~ /^ [0-9]+  /) r[$1] = $2; if ($1 == "q" && $2 == "sums:") for (k = 3; k <= 6; ++k) qs[k] = $k; next }
      $0 ~ /^ [0-9]+  / && ($1 in r) { d = ($2 - r[$1]) / r[$1]; if (d < 0) d = -d; if (d > w) w = d; n++ }
      $1 == "q" && $2 == "sums:" { for (k = 3; k <= 6; ++k) if (k != 5) { d = ($k - qs[k]) / qs[k]; if (d < 0) d = -d; if (d > wq) wq = d } }
      END { ok = (n == 5 && w <= tol && wq <= tol); printf "   %-14s rms lines %d, max rel diff %.2e; q sums (rho, rho u, E) max rel diff %.2e  %s\n", label, n, w, wq, ok ? "ok" : "FAIL"; exit ok ? 0 : 1 }
    ' "$base" "$OUT/logs/check_$label.txt"
  done
  echo "== check: quadvec (vector arguments) vs quadvec_ref, 200 x 200 cells, 50 iterations"
  local prog t
  "$OUT/quadvec_ref" --nx=200 --ny=200 --iters=50 > "$OUT/logs/check_quadvec_ref.txt"
  for prog in quadvec_seq:1 quadvec_openmp:1 "quadvec_openmp:$THREADS"; do
    t=${prog#*:}
    prog=${prog%:*}
    OMP_NUM_THREADS=$t "$OUT/$prog" --nx=200 --ny=200 --iters=50 > "$OUT/logs/check_${prog}_$t.txt"
    # rms lines and the u sum: worst relative difference
    awk -v label="$prog ($t)" -v tol="$CHECK_TOL" '
      FNR == NR { if ($0 ~ /^ [0-9]+  / || $1 == "u") r[$1] = $NF; next }
      ($0 ~ /^ [0-9]+  / || $1 == "u") && ($1 in r) { d = ($NF - r[$1]) / r[$1]; if (d < 0) d = -d; if (d > w) w = d; n++ }
      END { ok = (n == 11 && w <= tol); printf "   %-18s %d lines, max rel diff %.2e  %s\n", label, n, w, ok ? "ok" : "FAIL"; exit ok ? 0 : 1 }
    ' "$OUT/logs/check_quadvec_ref.txt" "$OUT/logs/check_${prog}_$t.txt"
  done
}

runtime_of() { awk '/Max total runtime/ { print $NF }' "$1"; }
# loop_cpu LABEL ROUND: user+sys of that run minus the configuration's set-up CPU
loop_cpu() { awk -v s="${SETUP_CPU[$1]}" '{ print $2 + $3 - s }' "$OUT/logs/${1}_r$2.time"; }

# ---- timed runs ---------------------------------------------------------------
timed() {
  local mesh=$OUT/mesh_${NI}x${NJ}.dat
  if [ ! -s "$mesh" ]; then
    echo "== mesh"
    "$OUT/meshgen" -o "$mesh" --ni "$NI" --nj "$NJ"
  fi
  local ncell
  ncell=$(awk 'NR == 1 { print $2; exit }' "$mesh")
  echo "== timing: $mesh ($ncell cells), $ITERS steps, $ROUNDS rounds, $(nproc) cores"
  echo "   $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $CXX $($CXX -dumpfullversion)"
  echo "   source: $(git describe --always --dirty 2> /dev/null || echo unknown); libraries built $(date -r $OP2_LIBDIR/libop2_openmp.a '+%F %T')"
  local r i n=${#CONFIGS[@]} cfg label log b0 b1
  # CPU seconds of everything but the time loop (reading the mesh, set-up),
  # from one --iters=0 run per configuration; subtracted from each timed
  # run's user+sys to give the time loop's CPU time
  declare -A SETUP_CPU
  echo "-- set-up cost (--iters=0), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  for cfg in "${CONFIGS[@]}"; do
    label=${cfg%%|*}
    TIMEFILE=$OUT/logs/${label}_r0.time run_config "$cfg" "" "$mesh" --iters=0 > "$OUT/logs/${label}_r0.txt"
    SETUP_CPU[$label]=$(awk '{ print $2 + $3 }' "$OUT/logs/${label}_r0.time")
    printf "   %-14s %9.3f s CPU\n" "$label" "${SETUP_CPU[$label]}"
  done
  for ((r = 1; r <= ROUNDS; ++r)); do
    echo "-- round $r (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
    for ((i = 0; i < n; ++i)); do
      cfg=${CONFIGS[$(((i + r - 1) % n))]}
      label=${cfg%%|*}
      log=$OUT/logs/${label}_r$r.txt
      local try=1 other
      while :; do
        wait_quiet
        b0=$(busy_seconds)
        TIMEFILE=${log%.txt}.time run_config "$cfg" "" "$mesh" --iters="$ITERS" > "$log"
        b1=$(busy_seconds)
        # CPU that other processes used meanwhile, in cores (averaged over the run)
        other=$(awk -v a="$b0" -v b="$b1" '{ o = (b - a - $2 - $3) / $1; print o < 0 ? 0 : o }' "${log%.txt}.time")
        echo "$other" > "${log%.txt}.other"
        printf "   %-14s %9.3f s   (time-loop CPU %7.3f s; other processes %.2f cores)%s\n" "$label" \
          "$(runtime_of "$log")" "$(loop_cpu "$label" "$r")" "$other" \
          "$(awk -v o="$other" -v m="$MAX_OTHER" 'BEGIN { if (o > m) print "  disturbed" }')"
        if awk -v o="$other" -v m="$MAX_OTHER" 'BEGIN { exit !(o <= m) }' || [ "$try" -ge "$TRIES" ]; then
          break
        fi
        try=$((try + 1))
      done
    done
  done

  printf "ITERS=%s\nROUNDS=%s\nNCELL=%s\n" "$ITERS" "$ROUNDS" "$ncell" > "$OUT/logs/meta"
  echo
  echo "   load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
  summary
}

# ---- summary of the logs of the last timed run ----------------------------------
summary() {
  local ITERS ROUNDS NCELL
  eval "$(cat "$OUT/logs/meta")"
  declare -A SETUP_CPU MED MIN
  local cfg label r vals cpus runs n_ok
  for cfg in "${CONFIGS[@]}"; do
    label=${cfg%%|*}
    SETUP_CPU[$label]=$(awk '{ print $2 + $3 }' "$OUT/logs/${label}_r0.time")
  done
  echo
  echo "== summary: $NCELL cells, $ITERS steps, $ROUNDS rounds"
  echo "   wall = the program's own clock around its time loop; CPU = user+sys of the process minus its set-up CPU;"
  echo "   only undisturbed runs count (other processes <= $MAX_OTHER cores meanwhile): n of them per configuration;"
  echo "   a configuration without any counts all its runs (n shown as 0)"
  printf "   %-14s %3s %10s %10s %10s %10s %10s\n" config n "wall med" "wall min" "wall max" "CPU med" "ms/step"
  for cfg in "${CONFIGS[@]}"; do
    label=${cfg%%|*}
    runs=$(for ((r = 1; r <= ROUNDS; ++r)); do
      awk -v m="$MAX_OTHER" '{ exit !($1 <= m) }' "$OUT/logs/${label}_r$r.other" && echo "$r"
    done)
    n_ok=$(echo "$runs" | grep -c . || true)
    if [ "$n_ok" = 0 ]; then runs=$(seq 1 "$ROUNDS"); fi
    vals=$(for r in $runs; do runtime_of "$OUT/logs/${label}_r$r.txt"; done)
    cpus=$(for r in $runs; do loop_cpu "$label" "$r"; done)
    MED[$label]=$(echo "$vals" | median)
    MIN[$label]=$(echo "$vals" | sort -g | head -n1)
    printf "   %-14s %3d %10.3f %10.3f %10.3f %10.3f %10.1f\n" "$label" "$n_ok" "${MED[$label]}" \
      "${MIN[$label]}" "$(echo "$vals" | sort -g | tail -n1)" "$(echo "$cpus" | median)" \
      "$(awk -v t="${MED[$label]}" -v n="$ITERS" 'BEGIN { print 1000 * t / n }')"
  done

  local T=$THREADS
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
  # A/B three ways: median of the per-round ratios (A and B ran close together
  # in time, so slow drifts of the machine cancel; rounds where either run was
  # disturbed are left out), ratio of the medians, ratio of the fastest runs
  paired() {
    local r
    for ((r = 1; r <= ROUNDS; ++r)); do
      if awk -v m="$MAX_OTHER" '{ exit !($1 <= m) }' "$OUT/logs/${1}_r$r.other" &&
        awk -v m="$MAX_OTHER" '{ exit !($1 <= m) }' "$OUT/logs/${2}_r$r.other"; then
        ratio "$(runtime_of "$OUT/logs/${1}_r$r.txt")" "$(runtime_of "$OUT/logs/${2}_r$r.txt")"
        echo
      fi
    done
  }
  r2() {
    local p
    p=$(paired "$1" "$2")
    printf "%6s %-13s %7s %7s" "$(echo "$p" | median | awk '{ printf "%.3f", $1 }')" "[$(echo "$p" | sort -g | head -n1)-$(echo "$p" | sort -g | tail -n1)]" \
      "$(ratio "${MED[$1]}" "${MED[$2]}")" "$(ratio "${MIN[$1]}" "${MIN[$2]}")"
  }
  echo
  echo "== ratios A/B: median over rounds of the per-round ratio [range], ratio of medians, ratio of fastest runs"
  printf "   %-44s %6s %-13s %7s %7s\n" "" paired "[range]" medians fastest
  echo "   $(printf "%-44s" "speed-up op2_openmp 1 thread / ${T} threads") $(r2 op2_openmp_1 "op2_openmp_$T")   target >= 1.7"
  echo "   $(printf "%-44s" "op2_openmp 1 thread / op2_seq") $(r2 op2_openmp_1 op2_seq)   target <= 1.15"
  echo "   $(printf "%-44s" "op2_seq / airfoil_ref") $(r2 op2_seq ref)   target <= 1.1"
  echo "   $(printf "%-44s" "op2_openmp ${T} / airfoil_omp_ref ${T}") $(r2 "op2_openmp_$T" "omp_ref_$T")"
  echo "   $(printf "%-44s" "op2_openmp 1 / airfoil_omp_ref 1") $(r2 op2_openmp_1 omp_ref_1)"
  echo "   $(printf "%-44s" "speed-up airfoil_omp_ref 1 / ${T} threads") $(r2 omp_ref_1 "omp_ref_$T")"
  echo "   $(printf "%-44s" "airfoil_omp_ref 1 / airfoil_ref") $(r2 omp_ref_1 ref)"

  echo
  echo "== plan construction (op_timing_output of op2_openmp; every run, undisturbed or not)"
  local log
  for cfg in "${CONFIGS[@]}"; do
    label=${cfg%%|*}
    case $label in op2_openmp_*) ;; *) continue ;; esac
    for ((r = 1; r <= ROUNDS; ++r)); do
      log=$OUT/logs/${label}_r$r.txt
      awk -v label="$label" -v r="$r" -v iters="$ITERS" '
        /Max total runtime/ { total = $NF }
        $NF == "res_calc" { gsub(";", "", $2); plan = $2 }
        /Total plan time/ { all = $NF }
        END { step = total / iters
              printf "   %-14s round %d: res_calc plan %5.1f ms, all plans %5.1f ms; one step %6.1f ms; res_calc plan = %.2f steps\n",
                     label, r, 1000 * plan, 1000 * all, 1000 * step, plan / step }' "$log"
    done
  done
  echo "   (for comparison, airfoil_omp_ref: $(grep -h -w -o 'res_calc [0-9]* blocks in [0-9]* colours' "$OUT/logs/omp_ref_1_r1.txt"), $(grep -h -o 'colouring took [0-9.]* s' "$OUT/logs/omp_ref_1_r1.txt") for both loops)"
}

# ---- instruction counts ---------------------------------------------------------
# Ir(iters = N + CG_ITERS) - Ir(iters = N): the instructions of CG_ITERS time
# steps, without mesh generation and start-up.
callgrind() {
  echo "== callgrind: instructions of $CG_ITERS time steps, $CG_CELLS cells (Ir(10+$CG_ITERS) - Ir(10)); threaded programs with OMP_NUM_THREADS=1"
  local prog it f
  declare -A IR
  for prog in airfoil_ref airfoil_seq airfoil_omp_ref airfoil_openmp; do
    for it in 10 $((10 + CG_ITERS)); do
      f=$OUT/logs/cg.$prog.$it.out
      OMP_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$f" \
        "$OUT/$prog" --cells="$CG_CELLS" --iters="$it" > /dev/null 2> "$f.log"
      IR[$prog.$it]=$(awk '/^summary:/ { print $2 }' "$f")
    done
    IR[$prog]=$((IR[$prog.$((10 + CG_ITERS))] - IR[$prog.10]))
    printf "   %-16s %12d instructions, %7.1f per cell per step\n" "$prog" "${IR[$prog]}" \
      "$(awk -v i="${IR[$prog]}" -v c="$CG_CELLS" -v n="$CG_ITERS" 'BEGIN { print i / c / n }')"
  done
  local q
  q() { awk -v a="${IR[$1]}" -v b="${IR[$2]}" 'BEGIN { printf "%.4f", a / b }'; }
  echo "   airfoil_seq / airfoil_ref                    = $(q airfoil_seq airfoil_ref)   (op2_seq vs hand-written, target <= 1.1)"
  echo "   airfoil_openmp (1 thread) / airfoil_seq      = $(q airfoil_openmp airfoil_seq)"
  echo "   airfoil_omp_ref (1 thread) / airfoil_ref     = $(q airfoil_omp_ref airfoil_ref)"
  # where the difference is: -g builds (same -O3), instructions by source
  # file, so inlined kernel bodies (*.h) separate from the loop code around
  # them (airfoil_ref.cpp's loops, op_seq.h's trampoline)
  local n=$((10 + CG_ITERS))
  build_g
  for prog in airfoil_ref_g airfoil_seq_g; do
    f=$OUT/logs/cg.$prog.$n.out
    valgrind --tool=callgrind --callgrind-out-file="$f" \
      "$OUT/$prog" --cells="$CG_CELLS" --iters="$n" > /dev/null 2> "$f.log"
    echo "   $prog, $n steps, exclusive instructions by source file (top 8):"
    callgrind_annotate --inclusive=no --show-percs=no "$f" 2> /dev/null |
      sed -n '/Ir .*file:function/,/^$/p' | sed -n '3,10p' |
      sed -e 's|/work/[^ ]*/\(c-examples\|include\)/|\1/|' -e 's/(double const\*.*$//' -e 's/^/     /' | cut -c1-120
  done
  loop_costs
}

# -O3 -g builds of airfoil_ref and airfoil (libop2_seq), for instructions by source line
build_g() {
  $CXX $CXXFLAGS -g -I$EX/common -I$EX/airfoil $EX/airfoil/airfoil_ref.cpp \
    $OUT/naca_mesh.o -lm -o $OUT/airfoil_ref_g
  $CXX $CXXFLAGS -g -Iinclude -I$EX/common -I$EX/airfoil $EX/airfoil/airfoil.cpp \
    $OUT/naca_mesh.o $OP2_LIBDIR/libop2_seq.a $SYSLIBS -o $OUT/airfoil_seq_g
}

# cg_sum FILE FN [SRC L0 L1 HDR DIR]: instructions of the functions whose
# name contains FN, from a callgrind file written with --dump-instr=yes
# --compress-strings=no --compress-pos=no. With SRC (for a loop inlined into
# main): only the instructions in the address range of the loop's code, i.e.
# of the lines L0..L1 of the file ending in SRC and of the kernel header
# ending in HDR; inside that range, also those from files outside DIR (such
# as std::vector's operator[]), not those of other lines of DIR's files.
cg_sum() {
  awk -v fnpat="$2" -v src="${3:-}" -v l0="${4:-0}" -v l1="${5:-0}" -v hdr="${6:-}" -v dir="${7:-}" '
    function hex(s, i, v) { v = 0; for (i = 3; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1; return v }
    function ends(s, t) { return t != "" && length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
    /^fl=/ { fl = substr($0, 4); cur = fl; next }
    /^(fi|fe)=/ { cur = substr($0, 4); next }
    /^fn=/ { cur = fl; infn = index(substr($0, 4), fnpat) > 0; next }
    /^calls=/ { skip = 1; next }
    /^0x/ {
      if (skip) { skip = 0; next }
      if (!infn) next
      if (src == "") { sum += $3; next }
      a = hex($1)
      mine = ends(cur, hdr) || (ends(cur, src) && $2 >= l0 && $2 <= l1)
      if (mine) { if (lo == "" || a < lo) lo = a; if (a > hi) hi = a }
      if (mine || index(cur, dir) == 0) cost[a] += $3
      next
    }
    END {
      if (src != "") for (a in cost) if (a + 0 >= lo && a + 0 <= hi) sum += cost[a]
      printf "%.0f\n", sum
    }' "$1"
}

# callgrind with costs per instruction and plain names (for cg_sum)
cg_raw() {
  local f=$1
  shift
  valgrind --tool=callgrind --dump-instr=yes --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$f" "$@" > /dev/null 2> "$f.log"
}

# Instructions per element of one loop: res_calc per edge (airfoil, -O3 -g
# builds, CG_CELLS cells, CG_ITERS steps of 2 stages) and quad_res per cell
# (quadvec, 100 x 100 cells, CG_ITERS iterations). op2: everything in the
# functions instantiated for the kernel (op_seq.h's trampoline, and its SIMD
# lane function if any); reference: the kernel header's lines and the lines
# of the loop around the call in main.
loop_costs() {
  local nedge l0 ir_ref ir_seq
  echo "== callgrind: instructions per element of one loop ($CG_ITERS steps; reference: the code of the loop in main)"
  nedge=$("$OUT/airfoil_ref" --cells="$CG_CELLS" --iters=0 | sed -n 's/.* edges \([0-9]*\), boundary.*/\1/p')
  l0=$(grep -n 'for (int e = 0; e < nedge; ++e)' $EX/airfoil/airfoil_ref.cpp | cut -d: -f1)
  for prog in airfoil_ref_g airfoil_seq_g; do
    cg_raw $OUT/logs/cg.$prog.raw.out "$OUT/$prog" --cells="$CG_CELLS" --iters="$CG_ITERS"
  done
  ir_ref=$(cg_sum $OUT/logs/cg.airfoil_ref_g.raw.out main airfoil_ref.cpp "$l0" $((l0 + 5)) res_calc.h \
    "$ROOT/$EX/airfoil/")
  ir_seq=$(cg_sum $OUT/logs/cg.airfoil_seq_g.raw.out 'res_calc(')
  awk -v a="$ir_seq" -v b="$ir_ref" -v n="$((2 * CG_ITERS * nedge))" 'BEGIN {
    printf "   res_calc per edge:  airfoil_seq %6.1f, airfoil_ref %6.1f, ratio %.3f  (target <= 1.2)\n", a / n, b / n, a / b }'
  $CXX $CXXFLAGS -g -I$EX/quadvec $EX/quadvec/quadvec_ref.cpp -o $OUT/quadvec_ref_g
  $CXX $CXXFLAGS -g -Iinclude -I$EX/quadvec $EX/quadvec/quadvec.cpp $OP2_LIBDIR/libop2_seq.a $SYSLIBS \
    -o $OUT/quadvec_seq_g
  for prog in quadvec_ref_g quadvec_seq_g; do
    cg_raw $OUT/logs/cg.$prog.raw.out "$OUT/$prog" --nx=100 --ny=100 --iters="$CG_ITERS"
  done
  l0=$(grep -n 'for (int c = 0; c < m.ncell; ++c)' $EX/quadvec/quadvec_ref.cpp | cut -d: -f1)
  ir_ref=$(cg_sum $OUT/logs/cg.quadvec_ref_g.raw.out main quadvec_ref.cpp "$l0" $((l0 + 6)) quad_res.h \
    "$ROOT/$EX/quadvec/")
  ir_seq=$(cg_sum $OUT/logs/cg.quadvec_seq_g.raw.out 'quad_res(')
  awk -v a="$ir_seq" -v b="$ir_ref" -v n="$((CG_ITERS * 10000))" 'BEGIN {
    printf "   quad_res per cell:  quadvec_seq %6.1f, quadvec_ref %6.1f, ratio %.3f\n", a / n, b / n, a / b }'
}

if [ "$MODE" != summary ]; then build; fi
case $MODE in
  time)
    if [ "$CHECK" = 1 ]; then check; fi
    timed
    ;;
  callgrind) callgrind ;;
  loops)
    build_g
    loop_costs
    ;;
  check) check ;;
  summary) summary ;;
  *)
    echo "usage: $0 [time|callgrind|loops|check|summary]" >&2
    exit 2
    ;;
esac
