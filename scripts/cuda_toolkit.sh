#!/usr/bin/env bash
# A CUDA 13.0 compiler from PyPI (no GPU, driver or system package needed),
# installed once into a virtual environment under target/.
#
#   scripts/cuda_toolkit.sh            install if missing, print the toolkit root
#   eval "$(scripts/cuda_toolkit.sh env)"   ... and export CUDA_HOME and PATH
#
# The release is pinned to the 13.0 series (the GPU machines run a CUDA 13.0
# driver, which loads PTX and cubins of this release). The wheels ship lib/,
# while nvcc.profile looks in lib64/: a symlink bridges the two, and a
# libcudart.so symlink lets -lcudart find the versioned shared runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${OP2_CUDA_VENV:-$PWD/target/cuda-toolkit}
PY=python3

if ! command -v $PY >/dev/null || ! $PY -c 'import ensurepip' >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >/dev/null
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
fi
CU="$VENV/lib/python3.$($PY -c 'import sys; print(sys.version_info[1])')/site-packages/nvidia/cu13"

if [ ! -x "$CU/bin/nvcc" ]; then
    echo "cuda_toolkit.sh: installing nvcc 13.0 from PyPI into ${VENV#"$PWD"/}" >&2
    if ! $PY -m venv "$VENV" >/dev/null 2>&1; then
        sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq >/dev/null
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
        $PY -m venv "$VENV"
    fi
    "$VENV/bin/pip" install -q --disable-pip-version-check \
        nvidia-cuda-nvcc==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85 \
        nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 >&2
fi
[ -e "$CU/lib64" ] || ln -s lib "$CU/lib64"
[ -e "$CU/lib/libcudart.so" ] || ln -s libcudart.so.13 "$CU/lib/libcudart.so"

case "${1:-root}" in
    root) echo "$CU" ;;
    env) printf 'export CUDA_HOME=%q\nexport PATH=%q:"$PATH"\n' "$CU" "$CU/bin" ;;
    *) echo "usage: $0 [root|env]" >&2; exit 2 ;;
esac
