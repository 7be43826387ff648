#!/usr/bin/env bash
# Run every test of op2-rs: format and lint checks, the Rust unit/property
# tests, and the integration tests that compile C/C++ programs against
# include/ and the libraries in target/release.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "ensure tools (cmake, pkg-config, gfortran, OpenMPI, libclang: the package, Fortran and MPI builds need them)"
missing=""
for t in cmake pkg-config gfortran; do command -v "$t" >/dev/null || missing="$missing $t"; done
command -v mpicxx >/dev/null || missing="$missing libopenmpi-dev openmpi-bin"
ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 || missing="$missing libclang-dev"
# HDF5: Debian's serial flavour (libop2_hdf5), the parallel (OpenMPI) one
# (HDF5 in libop2_mpi), h5dump/h5diff
command -v h5dump >/dev/null || missing="$missing hdf5-tools"
ls /usr/lib/*/hdf5/serial/libhdf5.so >/dev/null 2>&1 || missing="$missing libhdf5-dev"
ls /usr/lib/*/hdf5/openmpi/libhdf5.so >/dev/null 2>&1 || missing="$missing libhdf5-openmpi-dev"
if [ -n "$missing" ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >/dev/null
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "build the OP2 libraries (release)"
cargo build --release --workspace

step "cargo clippy (all targets, warnings are errors; no function over 80 lines: clippy.toml)"
cargo clippy --workspace --all-targets -- -D warnings -W clippy::too_many_lines

step "tests"
cargo test --workspace

step "CUDA: nvcc 13.0 from PyPI (scripts/cuda_toolkit.sh); generated-style programs (tests/cuda) compiled, linked against libop2_cuda / libop2_mpi_cuda (static and shared), run to the no-device stop"
scripts/cuda_link_check.sh

step "all tests passed"
