#!/usr/bin/env bash
# op2_hdf5_check.sh -- op2-rs's libop2_hdf5 against OP2's own HDF5 library.
#
#   scripts/op2_hdf5_check.sh OP2_DIR       (OP2_DIR: an OP2-Common checkout, read only)
#
# Local only (not part of scripts/test.sh). Everything is built under
# target/op2hdf5; nothing of OP2 is copied into the repository.
#
# 1. OP2's sequential library (op2/Makefile's OP2_SEQ objects: core/op_lib_core,
#    core/op_rt_support, core/SafeLong, core/op_dummy_singlenode,
#    sequential/op_seq, externlib/op_profile) and its HDF5 library (OP2_HDF5:
#    externlib/op_util, externlib/op_hdf5, which #includes op_hdf5_common.cpp),
#    compiled with g++ -std=c++17 -O2 against Debian's serial HDF5 into
#    libop2_seq.a / libop2_hdf5.a; op2-rs's libop2_hdf5.a / libop2_seq.a by
#    `cargo build --release -p libop2-hdf5 -p libop2-seq`.
# 2. tests/hdf5_op2/writer.cpp and reader.cpp (op2-rs's programs, OP2's public
#    API only) built against each library. Each writer writes its file (sets,
#    a map and dats "double", "float", "int", "long", "long long",
#    "double:soa" with '/' groups; constants; op_fetch_data_hdf5_file[_path]);
#    each reader reads both libraries' files and checks every value.
#    h5dump of the two files (exact values; h5dump shows strings up to their
#    first NUL, so the garbage OP2 leaves after the NUL of the map's 10-byte
#    `type` attribute does not count) must be identical; INFO rows give the
#    count of differing bytes.
# 3. OP2's airfoil_hdf5 (apps/c/airfoil/airfoil_hdf5/dp/airfoil.cpp, op_seq.h)
#    built against op2-rs's include/ + libraries and against OP2's, both run
#    on one new_grid.h5 written by op2-rs's c-examples/hdf5/mesh2hdf5: the rms
#    lines must be identical, and so must the new_grid_out.h5 / file_name.h5
#    they write (h5dump, exact values: file_name.h5 is p_q after 1000 steps).
#
# Environment: HDF5_DIR (Debian's serial HDF5 prefix by default), CXX (g++),
# MESH_CELLS (cells of the airfoil mesh, 20000), OP2_LIBDIR (op2-rs's
# libraries, target/release).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OP2_DIR" >&2; exit 2; }
OP2=$(cd "$1" && pwd) || exit 2
[ -f "$OP2/op2/src/externlib/op_hdf5.cpp" ] || { echo "$OP2: not an OP2-Common checkout" >&2; exit 2; }
CXX=${CXX:-g++}
HDF5_DIR=${HDF5_DIR:-/usr/lib/x86_64-linux-gnu/hdf5/serial}
MESH_CELLS=${MESH_CELLS:-20000}
OP2_LIBDIR=${OP2_LIBDIR:-$ROOT/target/release}
T=$ROOT/target/op2hdf5
HDF5_INC=(-I"$HDF5_DIR/include")
HDF5_LIB=(-L"$HDF5_DIR/lib" -Wl,-rpath,"$HDF5_DIR/lib" -lhdf5)
mkdir -p "$T/op2/obj" "$T/op2/lib" "$T/bin" "$T/log"

declare -a RESULTS=()
FAILED=0
result() { # result NAME PASS|FAIL|SKIP [detail]
  RESULTS+=("$(printf '%-44s %-5s %s' "$1" "$2" "${3:-}")")
  [ "$2" = FAIL ] && FAILED=1
  printf '== %-44s %s %s\n' "$1" "$2" "${3:-}"
}
step() { # step NAME LOG cmd... : PASS when cmd succeeds (output in LOG)
  local name=$1 log=$T/log/$2; shift 2
  if "$@" >"$log" 2>&1; then result "$name" PASS; return 0; fi
  result "$name" FAIL "(see ${log#"$ROOT"/})"; return 1
}
in_dir() { local d=$1; shift; (cd "$d" && "$@"); }

# --- 1. the libraries --------------------------------------------------------
build_op2_libs() {
  local seq=(core/op_lib_core core/op_rt_support core/SafeLong core/op_dummy_singlenode
             sequential/op_seq externlib/op_profile)
  local h5=(externlib/op_util externlib/op_hdf5)
  local s o objs_seq=() objs_h5=()
  for s in "${seq[@]}" "${h5[@]}"; do
    o=$T/op2/obj/${s//\//_}.o
    if [ ! -f "$o" ] || [ "$OP2/op2/src/$s.cpp" -nt "$o" ]; then
      echo "$CXX -c op2/src/$s.cpp"
      # OP2's code, not ours: its warnings are not ours to fix (-w)
      "$CXX" -std=c++17 -O2 -w -I"$OP2/op2/include" "${HDF5_INC[@]}" \
        -c "$OP2/op2/src/$s.cpp" -o "$o" || return 1
    fi
  done
  for s in "${seq[@]}"; do objs_seq+=("$T/op2/obj/${s//\//_}.o"); done
  for s in "${h5[@]}"; do objs_h5+=("$T/op2/obj/${s//\//_}.o"); done
  rm -f "$T/op2/lib/libop2_seq.a" "$T/op2/lib/libop2_hdf5.a"
  ar rcs "$T/op2/lib/libop2_seq.a" "${objs_seq[@]}" &&
    ar rcs "$T/op2/lib/libop2_hdf5.a" "${objs_h5[@]}"
}
step "OP2 libop2_seq.a + libop2_hdf5.a (g++)" op2_libs.log build_op2_libs
OP2_OK=$?
step "op2-rs libop2_hdf5.a + libop2_seq.a (cargo)" cargo.log \
  in_dir "$ROOT" cargo build --release -j1 -p libop2-hdf5 -p libop2-seq
RS_OK=$?

# link lines: op2 = OP2's headers and libraries, rs = op2-rs's
OUR_WARN=(-Wall -Wextra -Werror)
cc_op2() { # cc_op2 OUT SRC [extra flags]: OP2's headers as system headers
  local out=$1 src=$2; shift 2
  "$CXX" -std=c++17 -O2 "$@" -isystem "$OP2/op2/include" "$src" \
    -L"$T/op2/lib" -lop2_hdf5 -lop2_seq "${HDF5_LIB[@]}" -lm -o "$out"
}
cc_rs() { # cc_rs OUT SRC [extra flags]
  local out=$1 src=$2; shift 2
  "$CXX" -std=c++17 -O2 "$@" -I"$ROOT/include" "$src" \
    "$OP2_LIBDIR/libop2_hdf5.a" "$OP2_LIBDIR/libop2_seq.a" \
    "${HDF5_LIB[@]}" -lpthread -ldl -lm -o "$out"
}

# h5dump with the file name line dropped, floating point values printed with
# 17 significant digits (exact). h5dump prints a NULLTERM string up to its
# first NUL, so the bytes OP2 leaves after the NUL of a map's 10-byte `type`
# attribute (whatever followed the literal "int" in memory) do not show; they
# are counted by bytes_differing below.
dump() {
  h5dump -m '%.17g' "$1" | sed '1d'
}
# INFO row: how many bytes two files differ in (not a check: besides the map
# `type` padding, HDF5 stores each object's modification time, and files
# written by different sequences of HDF5 calls may place objects differently)
bytes_differing() {
  local n
  if [ "$(stat -c %s "$1")" != "$(stat -c %s "$2")" ]; then
    n="sizes $(stat -c %s "$1") / $(stat -c %s "$2") bytes"
  else
    n="$(cmp -l "$1" "$2" | wc -l) of $(stat -c %s "$1") bytes differ"
  fi
  result "bytes: ${1##*/} vs ${2#"$T"/}" INFO "($n)"
}

# --- 2. writer / reader ------------------------------------------------------
SRC=$ROOT/tests/hdf5_op2
RUN=$T/run
rm -rf "$RUN"; mkdir -p "$RUN"
for lib in op2 rs; do
  ok=$OP2_OK; [ $lib = rs ] && ok=$RS_OK
  for prog in writer reader; do
    if [ "$ok" -ne 0 ]; then result "build $prog ($lib)" SKIP "(library not built)"; continue; fi
    step "build $prog ($lib)" "build_${prog}_$lib.log" \
      "cc_$lib" "$T/bin/${prog}_$lib" "$SRC/$prog.cpp" "${OUR_WARN[@]}" -I"$SRC"
  done
done
for lib in op2 rs; do
  [ -x "$T/bin/writer_$lib" ] &&
    step "write $lib.h5, ${lib}_fetch.h5 (writer $lib)" "write_$lib.log" \
      in_dir "$RUN" "$T/bin/writer_$lib" "$lib.h5" "${lib}_fetch.h5"
done
for rd in op2 rs; do
  [ -x "$T/bin/reader_$rd" ] || continue
  for f in op2 rs; do
    [ -f "$RUN/$f.h5" ] || continue
    step "reader $rd reads $f.h5" "read_${rd}_$f.log" \
      "$T/bin/reader_$rd" "$RUN/$f.h5"
    step "reader $rd reads ${f}_fetch.h5" "read_${rd}_${f}_fetch.log" \
      "$T/bin/reader_$rd" --fetch "$RUN/${f}_fetch.h5"
  done
done
for f in "" _fetch; do
  if [ -f "$RUN/op2$f.h5" ] && [ -f "$RUN/rs$f.h5" ]; then
    dump "$RUN/op2$f.h5" >"$RUN/op2$f.dump"
    dump "$RUN/rs$f.h5" >"$RUN/rs$f.dump"
    step "h5dump op2$f.h5 == rs$f.h5" "h5dump$f.diff" diff "$RUN/op2$f.dump" "$RUN/rs$f.dump"
    bytes_differing "$RUN/op2$f.h5" "$RUN/rs$f.h5"
  fi
done

# --- 3. OP2's airfoil_hdf5 ---------------------------------------------------
APP=$OP2/apps/c/airfoil/airfoil_hdf5/dp
AIR=$T/airfoil
rm -rf "$AIR"; mkdir -p "$AIR/op2" "$AIR/rs"
if [ $RS_OK -eq 0 ]; then
  step "c-examples mesh2hdf5 (make hdf5)" mesh2hdf5_build.log make -j1 -C "$ROOT/c-examples" hdf5 &&
    step "mesh2hdf5 --cells=$MESH_CELLS -> new_grid.h5" mesh2hdf5.log \
      "$ROOT/c-examples/build/mesh2hdf5" --cells="$MESH_CELLS" -o "$AIR/new_grid.h5"
  # OP2's app is OP2's code: built as its Makefile would, without our -Werror
  step "build OP2 airfoil_hdf5 (rs)" airfoil_build_rs.log \
    cc_rs "$T/bin/airfoil_hdf5_rs" "$APP/airfoil.cpp" -w
fi
if [ $OP2_OK -eq 0 ]; then
  step "build OP2 airfoil_hdf5 (op2)" airfoil_build_op2.log \
    cc_op2 "$T/bin/airfoil_hdf5_op2" "$APP/airfoil.cpp" -w
fi
# dataset names the app reads (op_decl_*_hdf5 / op_get_const_hdf5) that the mesh lacks
if [ -f "$AIR/new_grid.h5" ]; then
  h5ls -r "$AIR/new_grid.h5" | awk '{print $1}' | sed 's,^/,,' | sort >"$AIR/mesh_names.txt"
  grep -o 'op_decl_[a-z]*_hdf5([^;]*"[A-Za-z0-9_/]*")\|op_get_const_hdf5("[A-Za-z0-9_/]*"' "$APP/airfoil.cpp" |
    sed -E 's/^op_get_const_hdf5\("([^"]*)".*/\1/; s/^op_decl.*"([^"]*)"\)$/\1/' |
    grep -v '^new_grid' | sort -u >"$AIR/app_names.txt"
  comm -23 "$AIR/app_names.txt" "$AIR/mesh_names.txt" >"$AIR/missing.txt"
  # m_test and p_test are absent on purpose (the app checks for NULL)
  if grep -vqx 'm_test\|p_test' "$AIR/missing.txt"; then
    result "mesh has every dataset the app reads" FAIL "(missing: $(grep -vx 'm_test\|p_test' "$AIR/missing.txt" | tr '\n' ' '))"
  else
    result "mesh has every dataset the app reads" PASS "($(wc -l <"$AIR/app_names.txt") names; absent: $(tr '\n' ' ' <"$AIR/missing.txt"))"
  fi
fi
rms_lines() { grep -E '^ *[0-9]+ +[-+0-9.eE]+ *$' "$1"; }
for lib in op2 rs; do
  if [ -x "$T/bin/airfoil_hdf5_$lib" ] && [ -f "$AIR/new_grid.h5" ]; then
    cp "$AIR/new_grid.h5" "$AIR/$lib/"
    (cd "$AIR/$lib" && "$T/bin/airfoil_hdf5_$lib" >"$AIR/$lib/out.txt" 2>&1)
    rc=$?
    rms_lines "$AIR/$lib/out.txt" >"$AIR/$lib/rms.txt"
    if [ $rc -eq 0 ] && [ -s "$AIR/$lib/rms.txt" ]; then
      result "run airfoil_hdf5 ($lib)" PASS "($(wc -l <"$AIR/$lib/rms.txt") rms lines)"
    else
      result "run airfoil_hdf5 ($lib)" FAIL "(status $rc; see ${AIR#"$ROOT"/}/$lib/out.txt)"
    fi
  fi
done
if [ -s "$AIR/op2/rms.txt" ] && [ -s "$AIR/rs/rms.txt" ]; then
  step "airfoil_hdf5 rms lines: op2 == rs" airfoil_rms.diff diff "$AIR/op2/rms.txt" "$AIR/rs/rms.txt"
  for f in new_grid_out file_name; do
    if [ -f "$AIR/op2/$f.h5" ] && [ -f "$AIR/rs/$f.h5" ]; then
      dump "$AIR/op2/$f.h5" >"$AIR/op2/$f.dump"
      dump "$AIR/rs/$f.h5" >"$AIR/rs/$f.dump"
      step "airfoil_hdf5 h5dump $f.h5: op2 == rs" "airfoil_$f.diff" diff "$AIR/op2/$f.dump" "$AIR/rs/$f.dump"
      bytes_differing "$AIR/op2/$f.h5" "$AIR/rs/$f.h5"
    else
      result "airfoil_hdf5 $f.h5 written by both" FAIL
    fi
  done
fi

echo
printf '%-44s %s\n' CHECK RESULT
printf '%s\n' "${RESULTS[@]}"
echo "(logs: target/op2hdf5/log, files: target/op2hdf5/run, target/op2hdf5/airfoil)"
exit $FAILED
