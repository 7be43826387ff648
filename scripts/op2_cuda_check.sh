#!/usr/bin/env bash
# op2_cuda_check.sh -- OP2's airfoil, translated by OP2's own code generator
# (translator-v2) for the CUDA target with op2-rs's include/, built against
# op2-rs's CUDA libraries.
#
#   scripts/op2_cuda_check.sh OP2_DIR       (OP2_DIR: an OP2-Common checkout, read only)
#
# Variants (all of apps/c/airfoil/airfoil_plain/dp, translated with
# `-I include -t cuda`):
#   aos     airfoil.cpp, translator-v2's default CUDA configuration (atomics)
#   soa     airfoil.cpp with -soa (structs of arrays)
#   color   airfoil.cpp with -c '{".*": {"atomics": false, "color2": true}}'
#           (two-level colouring instead of atomics for every loop)
#   mpi     airfoil_mpi.cpp, default configuration, built with mpicxx
#
# Steps per variant, each PASS, FAIL or SKIP in the table at the end:
#   translate  translator-v2 through scripts/op2_translator_shim.py
#   nvcc       cuda/op2_kernels.cu: nvcc -arch=$CUDA_ARCH -std=c++17 -O3
#              --expt-relaxed-constexpr -DOP2_CUDA -I include
#   g++        the translated airfoil(_mpi).cpp: g++ (mpicxx) -std=c++17 -O3 -I include
#   symbols    what the two objects leave undefined, less what the C/C++
#              runtime, libm, the CUDA runtime (libcudart_static) and, for
#              mpi, the MPI libraries define: the functions and variables the
#              op2-rs CUDA library must export (listed after the table, each
#              marked with whether $OP2_LIBDIR's CPU library of the same kind
#              already defines it). When op2_kernels.cu does not compile
#              against include/ (CUDA headers not there yet), the list comes
#              from a compile against OP2's own include/ and says so.
#   link       with $OP2_LIBDIR/libop2_cuda.a (mpi: libop2_mpi_cuda.a) and
#              -lcudart_static -lpthread -ldl -lrt -lm: undefined and
#              duplicate symbols are reported; SKIP while the library does
#              not exist
#   run        in a directory holding new_grid.dat, written by op2-rs's
#              c-examples/meshgen ($NI x $NJ O-grid; never OP2's mesh
#              scripts). Without a usable GPU (no `nvidia-smi -L` device) the
#              program must stop cleanly: non-zero status and one line on
#              stderr naming the missing CUDA driver or device. With a GPU it
#              must run to the end and print the same rms lines (" iter
#              rms, max err: E at cell") as airfoil.cpp on op_seq.h and
#              libop2_seq.a on the same mesh: iteration and cell (not for
#              mpi) equal, rms and max err within a relative $REL_TOL.
#
# Environment (defaults in brackets):
#   OUT          work directory [target/op2cuda]; nothing here is committed
#   OP2_LIBDIR   op2-rs libraries [target/release]
#   INCLUDE      op2-rs headers [include]
#   OP2_TRANSLATOR_VENV  Python venv with translator-v2's dependencies
#                [target/op2bench/venv, created as scripts/bench_op2.sh does]
#   OP2_CUDA_VENV  where scripts/cuda_toolkit.sh keeps nvcc [target/cuda-toolkit]
#   CUDA_ARCH    [sm_90]
#   VARIANTS     [aos soa color mpi]
#   NI, NJ       mesh [200 x 100]
#   MPIRUN       [mpirun --allow-run-as-root --oversubscribe -np 1]
#   REL_TOL      [1e-5: rms is printed to 6 digits, this allows a change of
#                one in the last]
#   LINK_FLAGS   extra flags for the link step, e.g. -Wl,--allow-multiple-definition []
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

OP2_DIR=${1:-${OP2_DIR:-}}
if [ -z "$OP2_DIR" ] || [ ! -f "$OP2_DIR/translator-v2/op2-translator/__main__.py" ]; then
  echo "usage: $0 OP2_DIR (an OP2-Common checkout with translator-v2)" >&2
  exit 2
fi
OP2_DIR=$(cd "$OP2_DIR" && pwd)
OUT=${OUT:-$ROOT/target/op2cuda}
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
VENV=${OP2_TRANSLATOR_VENV:-$ROOT/target/op2bench/venv}
CUDA_ARCH=${CUDA_ARCH:-sm_90}
VARIANTS=${VARIANTS:-aos soa color mpi}
NI=${NI:-200}
NJ=${NJ:-100}
MPIRUN=${MPIRUN:-mpirun --allow-run-as-root --oversubscribe -np 1}
REL_TOL=${REL_TOL:-1e-5}
LINK_FLAGS=${LINK_FLAGS:-}
APP=apps/c/airfoil/airfoil_plain/dp
INC=${INCLUDE:-$ROOT/include}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

declare -A RESULT NOTE
result() { RESULT[$1.$2]=$3; [ -n "${4:-}" ] && NOTE[$1.$2]=$4; return 0; }

# ---- tools -------------------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
  echo "== translator venv (jinja2 fparser pcpp sympy libclang==18.1.1) in ${VENV#"$ROOT"/}"
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q jinja2 fparser pcpp sympy libclang==18.1.1 || exit 1
fi
eval "$(scripts/cuda_toolkit.sh env)" || exit 1
echo "== nvcc: $(nvcc --version | tail -n 1); CUDA_HOME=$CUDA_HOME"
CUDALIB=$CUDA_HOME/lib
GPU=0
if command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then GPU=1; fi
echo "== GPU: $([ $GPU = 1 ] && nvidia-smi -L | head -n 1 || echo none: runs must stop cleanly)"

# ---- mesh (op2-rs's generator) ---------------------------------------------
mkdir -p "$OUT/bin" "$OUT/mesh"
MESH=$OUT/mesh/new_grid_${NI}x$NJ.dat
if [ ! -s "$MESH" ]; then
  gcc -O2 -Wall -Wextra -std=c99 -pedantic -Ic-examples/common c-examples/meshgen/meshgen.c \
    c-examples/common/naca_mesh.c -lm -o "$OUT/bin/meshgen" || exit 1
  "$OUT/bin/meshgen" -o "$MESH" --ni "$NI" --nj "$NJ" > /dev/null || exit 1
fi
echo "== mesh: $(head -n 1 "$MESH") (nodes cells edges bedges), ${MESH#"$ROOT"/}"

# ---- symbols provided by the system: C/C++ runtime, libm, CUDA runtime, MPI --
sys_symbols() { # FILE [mpi]
  local f
  {
    for f in libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1; do
      nm -D --defined-only "$(gcc -print-file-name=$f)" 2> /dev/null
    done
    nm --defined-only "$(gcc -print-file-name=libc_nonshared.a)" 2> /dev/null
    nm --defined-only "$CUDALIB/libcudart_static.a" 2> /dev/null
    if [ "${2:-}" = mpi ]; then
      local l d
      for l in $(mpicxx -showme:libs); do
        for d in $(mpicxx -showme:libdirs); do
          [ -e "$d/lib$l.so" ] && nm -D --defined-only "$d/lib$l.so" 2> /dev/null
        done
      done
    fi
    printf '0 U _GLOBAL_OFFSET_TABLE_\n0 U __dso_handle\n'
  } | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u > "$1"
}
sys_symbols "$OUT/sys.syms"
sys_symbols "$OUT/sys-mpi.syms" mpi

# ---- per variant -------------------------------------------------------------
variant_source() { case $1 in mpi) echo airfoil_mpi ;; *) echo airfoil ;; esac; }
mpi_inc() { local i; for i in $(mpicxx -showme:incdirs); do printf -- '-I%s ' "$i"; done; }

# first error lines of a log, indented
errors_of() { grep -m "${2:-6}" -E "error|undefined reference|multiple definition" "$1" | sed 's/^/      /'; }

translate() { # VARIANT
  local v=$1 d=$OUT/$1 src
  src=$(variant_source "$v")
  rm -rf "$d"
  mkdir -p "$d/src" "$d/gen" "$d/obj"
  cp "$OP2_DIR/$APP"/*.h "$OP2_DIR/$APP/$src.cpp" "$d/src/"
  local -a extra=()
  case $v in
    soa) extra=(-soa) ;;
    color) extra=(-c '{".*": {"atomics": false, "color2": true}}') ;;
    mpi) read -r -a extra <<< "$(mpi_inc)" ;;
  esac
  if PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" scripts/op2_translator_shim.py "$OP2_DIR" \
    -I "$INC" "${extra[@]}" -t cuda "$d/src/$src.cpp" -o "$d/gen" > "$d/translate.log" 2>&1 &&
    [ -s "$d/gen/cuda/op2_kernels.cu" ] && [ -s "$d/gen/$src.cpp" ]; then
    result "$v" translate PASS "$(grep -c 'Generated loop host' "$d/translate.log") loops"
  else
    result "$v" translate FAIL
    tail -n 5 "$d/translate.log" | sed 's/^/      /'
  fi
}

nvcc_kernels() { # VARIANT INCLUDE_DIR OBJECT LOG
  local -a mpi=()
  [ "$1" = mpi ] && read -r -a mpi <<< "$(mpi_inc)"
  nice -n 10 nvcc -arch="$CUDA_ARCH" -std=c++17 -O3 --expt-relaxed-constexpr -DOP2_CUDA \
    -I"$2" -I"$OUT/$1/gen/cuda" "${mpi[@]}" -c "$OUT/$1/gen/cuda/op2_kernels.cu" -o "$3" > "$4" 2>&1
}

compile() { # VARIANT
  local v=$1 d=$OUT/$1 src cxx=g++
  src=$(variant_source "$v")
  [ "$v" = mpi ] && cxx=mpicxx
  KOBJ[$v]=""
  if nvcc_kernels "$v" "$INC" "$d/obj/op2_kernels.o" "$d/nvcc.log"; then
    KOBJ[$v]=$d/obj/op2_kernels.o
    result "$v" nvcc PASS "$(grep -c warning "$d/nvcc.log") warnings"
  else
    result "$v" nvcc FAIL "$(grep -m1 -oE 'cannot open source file "[^"]*"|error: .*' "$d/nvcc.log" | head -c 70)"
    errors_of "$d/nvcc.log" 3
    # the symbol list from OP2's own headers, while ours lack the CUDA ones
    if nvcc_kernels "$v" "$OP2_DIR/op2/include" "$d/obj/op2_kernels.op2inc.o" "$d/nvcc.op2inc.log"; then
      KOBJ[$v]=$d/obj/op2_kernels.op2inc.o
    fi
  fi
  local -a def=()
  # (OpenMPI's C++ bindings are not used and warn with -Wextra)
  [ "$v" = mpi ] && def=(-DUSE_MPI -DOMPI_SKIP_MPICXX)
  if nice -n 10 $cxx -std=c++17 -O3 -Wall -Wextra "${def[@]}" -I"$INC" -I"$d/src" \
    -c "$d/gen/$src.cpp" -o "$d/obj/$src.o" > "$d/cxx.log" 2>&1; then
    result "$v" g++ PASS "$(grep -c 'warning:' "$d/cxx.log") warnings"
  else
    result "$v" g++ FAIL
    errors_of "$d/cxx.log" 3
  fi
}

symbols() { # VARIANT
  local v=$1 d=$OUT/$1 src objs=() o sys=$OUT/sys.syms cpu=libop2_seq.a
  src=$(variant_source "$v")
  [ "$v" = mpi ] && sys=$OUT/sys-mpi.syms && cpu=libop2_mpi.a
  [ -n "${KOBJ[$v]}" ] && objs+=("${KOBJ[$v]}")
  [ -s "$d/obj/$src.o" ] && objs+=("$d/obj/$src.o")
  if [ ${#objs[@]} -lt 2 ]; then
    result "$v" symbols FAIL "objects missing"
    return
  fi
  for o in "${objs[@]}"; do nm --defined-only "$o" | awk 'NF >= 3 { print $3 }'; done | sort -u > "$d/defined.syms"
  nm -u "${objs[@]}" | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u |
    comm -23 - "$d/defined.syms" | comm -23 - "$sys" > "$d/needed.syms"
  local have=$OUT/cpu-lib.syms
  [ -s "$OP2_LIBDIR/$cpu" ] || cpu="$cpu (absent)"
  nm --defined-only "$OP2_LIBDIR/${cpu% (absent)}" 2> /dev/null | awk 'NF >= 3 && $2 ~ /[TDBRVWu]/ { print $3 }' | sort -u > "$have"
  local n missing src_note=""
  n=$(wc -l < "$d/needed.syms")
  missing=$(comm -23 "$d/needed.syms" "$have" | wc -l)
  [ "${KOBJ[$v]}" = "$d/obj/op2_kernels.op2inc.o" ] && src_note=", kernels via OP2 headers"
  result "$v" symbols PASS "$n needed, $missing not in $cpu$src_note"
  {
    echo "== $v: symbols the op2-rs CUDA library must export ($n; [have] = $cpu defines it$src_note)"
    while read -r s; do
      local mark="      "
      grep -qxF -- "$s" "$have" && mark="[have]"
      printf '   %s %s\n' "$mark" "$(echo "$s" | c++filt)"
    done < "$d/needed.syms"
  } > "$d/needed.txt"
}

link() { # VARIANT
  local v=$1 d=$OUT/$1 src lib=libop2_cuda.a cxx=g++
  src=$(variant_source "$v")
  [ "$v" = mpi ] && lib=libop2_mpi_cuda.a && cxx=mpicxx
  if [ ! -s "$OP2_LIBDIR/$lib" ]; then
    result "$v" link SKIP "no $lib yet"
    return
  fi
  if [ "${KOBJ[$v]}" != "$d/obj/op2_kernels.o" ] || [ ! -s "$d/obj/$src.o" ]; then
    result "$v" link SKIP "objects missing"
    return
  fi
  local -a lf=()
  read -r -a lf <<< "$LINK_FLAGS"
  if nice -n 10 $cxx "$d/obj/$src.o" "$d/obj/op2_kernels.o" "$OP2_LIBDIR/$lib" -L"$CUDALIB" \
    -lcudart_static -lpthread -ldl -lrt -lm "${lf[@]}" -o "$d/$v" > "$d/link.log" 2>&1; then
    result "$v" link PASS
  else
    local und dup
    und=$(grep -oE "undefined reference to \`[^']*'" "$d/link.log" | sort -u | wc -l)
    dup=$(grep -oE "multiple definition of \`[^']*'" "$d/link.log" | sort -u | wc -l)
    result "$v" link FAIL "$und undefined, $dup duplicate"
    {
      grep -oE "undefined reference to \`[^']*'" "$d/link.log" | sort -u | sed 's/^/      /'
      grep -oE "multiple definition of \`[^']*'" "$d/link.log" | sort -u | sed 's/^/      /'
    } | head -n 40
  fi
}

# rms lines: "iter rms maxerr cell"
rms_lines() { awk '$3 == "max" && $4 == "err:" { sub(/,$/, "", $2); print $1, $2, $5, $7 }' "$1"; }

REF=""
reference() { # the rms lines of airfoil.cpp on op_seq.h and libop2_seq.a
  [ -n "$REF" ] && return 0
  local r=$OUT/ref
  mkdir -p "$r"
  cp "$OP2_DIR/$APP"/*.h "$OP2_DIR/$APP/airfoil.cpp" "$r/"
  nice -n 10 g++ -std=c++17 -O3 -I"$INC" -I"$r" "$r/airfoil.cpp" "$OP2_LIBDIR/libop2_seq.a" \
    -lpthread -ldl -lm -o "$r/airfoil_seq" > "$r/build.log" 2>&1 || return 1
  ln -sf "$MESH" "$r/new_grid.dat"
  (cd "$r" && ./airfoil_seq > out.txt 2> err.txt) || return 1
  rms_lines "$r/out.txt" > "$r/rms.txt"
  [ -s "$r/rms.txt" ] && REF=$r/rms.txt
}

run() { # VARIANT
  local v=$1 d=$OUT/$1 status
  if [ "${RESULT[$v.link]:-}" != PASS ]; then
    result "$v" run SKIP "not linked"
    return
  fi
  mkdir -p "$d/run"
  ln -sf "$MESH" "$d/run/new_grid.dat"
  local -a cmd=("$d/$v")
  # shellcheck disable=SC2206
  [ "$v" = mpi ] && cmd=($MPIRUN "$d/$v")
  (cd "$d/run" && timeout 600 "${cmd[@]}" > out.txt 2> err.txt)
  status=$?
  if [ $GPU = 0 ]; then
    # the program's stderr: under mpirun, less mpirun's own report (blocks
    # between lines of dashes); one line from each rank, all the same
    awk -v mpi="$([ "$v" = mpi ] && echo 1)" '
      mpi && /^-+$/ { inside = !inside; next }
      !(mpi && inside) && NF' "$d/run/err.txt" | sort -u > "$d/run/err.program.txt"
    local lines
    lines=$(wc -l < "$d/run/err.program.txt")
    if [ $status -ne 0 ] && [ "$lines" = 1 ] && grep -qiE "driver|device" "$d/run/err.program.txt"; then
      result "$v" run PASS "clean stop: $(head -c 90 "$d/run/err.program.txt")"
    else
      result "$v" run FAIL "status $status, $lines stderr lines (want a clean no-device stop)"
      head -n 5 "$d/run/err.program.txt" | sed 's/^/      /'
    fi
    return
  fi
  if [ $status -ne 0 ]; then
    result "$v" run FAIL "status $status"
    tail -n 5 "$d/run/err.txt" | sed 's/^/      /'
    return
  fi
  if ! reference; then
    result "$v" run FAIL "no reference run (libop2_seq.a)"
    return
  fi
  rms_lines "$d/run/out.txt" > "$d/run/rms.txt"
  local cmp
  # the cell of the largest change is compared where the numbering is the
  # mesh file's (not under MPI, where op_partition may renumber)
  local cells=1
  [ "$v" = mpi ] && cells=0
  cmp=$(paste -d' ' "$REF" "$d/run/rms.txt" | awk -v cells=$cells '
    function rel(a, b) { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); return m > 0 ? d / m : d }
    NF != 8 || $1 != $5 || (cells && $4 != $8) { bad++; next }
    { r = rel($2, $6); if (r > worst) worst = r; r = rel($3, $7); if (r > worst) worst = r; n++ }
    END { printf "%d %d %.3g", n, bad, worst + 0 }')
  local n bad worst want
  read -r n bad worst <<< "$cmp"
  want=$(wc -l < "$REF")
  if [ "$n" = "$want" ] && [ "$(wc -l < "$d/run/rms.txt")" = "$want" ] && [ "$bad" = 0 ] &&
    awk -v w="$worst" -v t="$REL_TOL" 'BEGIN { exit !(w <= t) }'; then
    result "$v" run PASS "$n rms lines as libop2_seq, max rel diff $worst"
  else
    result "$v" run FAIL "$n/$want rms lines match, $bad differ in iter/cell, max rel diff $worst"
  fi
}

declare -A KOBJ
for v in $VARIANTS; do
  echo "== $v"
  translate "$v"
  if [ "${RESULT[$v.translate]}" = PASS ]; then
    compile "$v"
    symbols "$v"
    link "$v"
    run "$v"
  fi
done

# ---- report ------------------------------------------------------------------
echo
for v in $VARIANTS; do [ -s "$OUT/$v/needed.txt" ] && cat "$OUT/$v/needed.txt"; done
echo
STEPS="translate nvcc g++ symbols link run"
printf '%-7s' variant
for s in $STEPS; do printf ' %-9s' "$s"; done
echo
fails=0
for v in $VARIANTS; do
  printf '%-7s' "$v"
  for s in $STEPS; do
    r=${RESULT[$v.$s]:-SKIP}
    [ "$r" = FAIL ] && fails=$((fails + 1))
    printf ' %-9s' "$r"
  done
  echo
done
echo
for v in $VARIANTS; do
  for s in $STEPS; do
    [ -n "${NOTE[$v.$s]:-}" ] && printf '  %-6s %-9s %s\n' "$v" "$s" "${NOTE[$v.$s]}"
  done
done
echo
echo "$fails step(s) failed; logs and objects under ${OUT#"$ROOT"/}"
[ "$fails" = 0 ]
