#!/usr/bin/env bash
# Run every test of op2-rs: format and lint checks, the Rust unit/property
# tests, and the integration tests that compile C/C++ programs against
# include/ and the libraries in target/release.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "ensure tools (scripts/install_prereqs.sh: OpenMPI, libclang, HDF5, PT-Scotch, gfortran, cmake, pkg-config)"
scripts/install_prereqs.sh

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

step "device code generator (op2-codegen): every sample loop, both schemes, compiled as OpenCL C 1.2 on PoCL and as CUDA C++ by NVRTC for sm_90; airfoil's loops run on PoCL against plain C++ loops; the CUDA C++ of every loop c-examples run on libop2_opencl compiled by NVRTC"
scripts/codegen_check.sh

step "GPU check bundle (scripts/gpu_bundle.sh without OP2-Common): built under its size limit with every program linked; its check.sh, run here, stops each program at the no-driver line and ends with 'no GPU'; an over-size bundle is refused"
scripts/gpu_bundle_test.sh

step "op2rs tool (tools/op2rs): every VTK file it writes read back by meshio (PyPI, in target/op2rs_venv) against h5py's reading of the same HDF5 mesh"
scripts/op2rs_check.sh

step "all tests passed"
