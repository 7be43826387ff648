#!/usr/bin/env bash
# Install (on Debian/Ubuntu, through apt) what the libraries beyond
# libop2_seq/libop2_openmp/libop2_cuda and the tests need, when missing:
#   OpenMPI + libclang          libop2_mpi, libop2_mpi_cuda (mpi-sys runs bindgen)
#   serial HDF5                 libop2_hdf5 (HDF5_DIR, see .cargo/config.toml)
#   OpenMPI HDF5                OP2's HDF5 API inside libop2_mpi
#   hdf5-tools, gfortran, cmake, pkg-config   tests, Fortran modules, the CMake package
#   g++                         the C++ examples (Debian's gcc package has no C++ compiler)
#   PoCL (OpenCL on the CPU), the ICD loader and OpenCL headers
#                               op2-backend-opencl's tests, scripts/codegen_check.sh
# With package names as arguments it installs just those (c-examples/Makefile
# asks for g++ this way). Prints what it installs; does nothing when
# everything is there.
set -euo pipefail
missing=""
if [ $# -gt 0 ]; then missing=" $*"; fi
if [ $# -eq 0 ]; then
command -v g++ >/dev/null || missing="$missing g++"
for t in cmake pkg-config gfortran; do command -v "$t" >/dev/null || missing="$missing $t"; done
command -v mpicxx >/dev/null || missing="$missing libopenmpi-dev openmpi-bin"
ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 || missing="$missing libclang-dev"
command -v h5dump >/dev/null || missing="$missing hdf5-tools"
ls /usr/lib/*/hdf5/serial/libhdf5.so >/dev/null 2>&1 || missing="$missing libhdf5-dev"
ls /usr/lib/*/hdf5/openmpi/libhdf5.so >/dev/null 2>&1 || missing="$missing libhdf5-openmpi-dev"
# PT-Scotch, loaded at run time by libop2_mpi for OP2's k-way names (the
# -dev package gives the unversioned libptscotch.so it looks for)
ls /usr/lib/*/libptscotch.so >/dev/null 2>&1 || missing="$missing libptscotch-dev"
ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || missing="$missing pocl-opencl-icd"
ls /usr/lib/*/libOpenCL.so >/dev/null 2>&1 || missing="$missing ocl-icd-opencl-dev"
[ -e /usr/include/CL/cl.h ] || missing="$missing opencl-headers"
fi
if [ -z "$missing" ]; then
    echo "install_prereqs: everything is installed"
    exit 0
fi
echo "install_prereqs: installing$missing"
command -v apt-get >/dev/null || {
    echo "install_prereqs: no apt-get here; install the equivalents of:$missing" >&2
    exit 1
}
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
