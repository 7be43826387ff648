#!/usr/bin/env bash
# Independent check of the VTK files `op2rs` writes (tools/op2rs): builds
# op2rs (cargo build --release -p op2rs), makes a Python virtual environment
# under target/ with meshio, numpy and h5py from PyPI (kept: a rerun reuses
# it), writes OP2-layout HDF5 meshes with h5py, runs `op2rs vtk` and
# `op2rs partition` on them and reads every VTK file back with meshio,
# checking points, cells and data against what h5py reads from the same
# HDF5 file (scripts/op2rs_check.py); then runs tests/c/pictures.c on
# libop2_openmp with OP2_RS_PLAN_VTK/OP2_RS_PLAN_CSV/OP2_RS_PARTITION_VTK and
# reads the library's files back the same way. Exit status 1 on any mismatch.
#
# Run from anywhere: scripts/op2rs_check.sh. Needs python3 and HDF5: Debian's
# libhdf5-dev (scripts/install_prereqs.sh) and python3-venv are installed
# through apt-get when missing.
# CARGO_TARGET_DIR is honoured; OP2RS_CHECK_VENV overrides the venv's place.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="${OP2RS_CHECK_VENV:-$target/op2rs_venv}"

# op2rs reads HDF5 through op2-hdf5-io: Debian's serial HDF5 (HDF5_DIR in
# .cargo/config.toml) unless the environment names another one.
if [ -z "${HDF5_DIR:-}" ] && ! ls /usr/lib/*/hdf5/serial/libhdf5.so >/dev/null 2>&1; then
    scripts/install_prereqs.sh libhdf5-dev
fi
echo "op2rs_check: cargo build --release -p op2rs"
cargo build --release -p op2rs
bin="$target/release/op2rs"

venv_ok() {
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import meshio, numpy, h5py" 2>/dev/null
}
if ! venv_ok; then
    echo "op2rs_check: making the Python environment $venv (meshio, numpy, h5py)"
    command -v python3 >/dev/null || { echo "op2rs_check: python3 not found" >&2; exit 1; }
    rm -rf "$venv"
    if ! python3 -m venv "$venv" 2>/dev/null; then
        rm -rf "$venv"
        ver="$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        echo "op2rs_check: python3 -m venv failed: installing python3-venv and python$ver-venv"
        command -v apt-get >/dev/null || {
            echo "op2rs_check: no apt-get here; install Python's venv module" >&2
            exit 1
        }
        sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq >/dev/null
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python$ver-venv" >/dev/null 2>&1 || true
        python3 -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q meshio numpy h5py
    venv_ok || { echo "op2rs_check: meshio/numpy/h5py do not import in $venv" >&2; exit 1; }
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/op2rs_check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" scripts/op2rs_check.py "$bin" "$work"

# What the library writes from a running program: tests/c/pictures.c on
# libop2_openmp (it builds plans) with the plan and partition pictures asked for.
echo "op2rs_check: cargo build --release -p libop2-openmp; tests/c/pictures.c"
cargo build --release -p libop2-openmp
cc -std=c99 -O2 -Wall -Iinclude tests/c/pictures.c "$target/release/libop2_openmp.a" \
    -lpthread -ldl -lm -o "$work/pictures"
mkdir "$work/pics"
(cd "$work/pics" && OP2_RS_PLAN_VTK=. OP2_RS_PLAN_CSV=. OP2_RS_PARTITION_VTK=part.vtk \
    "$work/pictures" cells >/dev/null)
"$venv/bin/python" scripts/op2rs_check.py --pictures "$work/pics"
