#!/usr/bin/env bash
# gpu_check_emu_test.sh -- the bundle's check.sh (scripts/gpu_check.sh) on
# its GPU path with real programs: the bundle's op_seq.h programs (kind jit)
# run on op2-rs's CUDA emulator (scripts/cuda_emu.sh) behind an nvidia-smi
# that names it. The mock test (gpu_check_mock_test.sh) checks check.sh's
# verdicts on output we wrote; this one checks them on what the library
# really prints on a CUDA device (answers, the table of where each loop ran,
# the transfer report, the time loop), through the bundle's rpath, kernel
# folders (src/) and cache, with jit_env's environment for each name. The
# GPU machine is lent for minutes: a misreading found there costs the check.
#
#   scripts/gpu_check_emu_test.sh BUNDLE     (built by scripts/gpu_bundle.sh)
#
# What cannot run on the emulator is left out of the copy check.sh sees:
# programs compiled by nvcc (tests/cuda's t1..t5 and OP2-Common's translated
# code, kinds rs, mpi and op2: the CUDA runtime links their kernels as SASS
# for the GPU) and compute-sanitizer. The bundle's cubins are real sm_90
# code: the emulated driver refuses them as a GPU's driver refuses an image
# it cannot run, and the library compiles those loops again through the
# emulated NVRTC (the GPU machine has the cubins and needs no NVRTC).
# The sizes are the bundle's (gpu_bundle_test.sh builds a small one:
# EX_ARGS, DA_ARGS); on OP2-Common's meshes only a bundle built with small
# NI/NJ (say 122x60, aero 42x20) runs here in minutes.
# Environment: ROUNDS [1], and check.sh's (RUN_TIMEOUT, AERO_*...).
# Exit status 0 when check.sh passed every check with every program on the
# emulated device.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${1:?usage: $0 BUNDLE (a bundle built by scripts/gpu_bundle.sh)}
SRC=$(cd "$SRC" && pwd)
EMU=$(scripts/cuda_emu.sh)
T=target/gpu-check-emu
rm -rf "$T"
mkdir -p "$T/bundle" "$T/path"
T=$(cd "$T" && pwd)
B=$T/bundle
for x in bin lib src ref cache.txt manifest.txt; do
  [ -e "$SRC/$x" ] && ln -s "$SRC/$x" "$B/$x"
done
# a copy: the bundle's cubins stay as built whatever a run writes
[ -d "$SRC/cache" ] && cp -r "$SRC/cache" "$B/cache"
cp scripts/gpu_check.sh "$B/check.sh"
awk '$2 == "jit"' "$SRC/programs.txt" > "$B/programs.txt"
[ -s "$B/programs.txt" ] || {
  echo "gpu_check_emu_test: $SRC has no op_seq.h (jit) programs" >&2
  exit 1
}
cat > "$T/path/nvidia-smi" << 'EOF'
#!/usr/bin/env bash
case "$*" in
  -L) echo "GPU 0: op2-rs CUDA emulator (UUID: GPU-op2rs-emu)" ;;
  --query-gpu*) echo "op2-rs CUDA emulator (host CPU), none, 0 MiB, 9.0" ;;
  *) echo "| NVIDIA-SMI none   Driver Version: none   CUDA Version: 13.0 |" ;;
esac
EOF
chmod +x "$T/path/nvidia-smi"

set +e
# no compute-sanitizer, no CUDA toolkit: only the emulator's libraries
env -u CUDA_HOME PATH="$T/path:$PATH" LD_LIBRARY_PATH="$EMU" ROUNDS="${ROUNDS:-1}" \
  "$B/check.sh" "$T/results" > "$T/check.txt" 2>&1
rc=$?
set -e
cat "$T/check.txt"

fails=0
want() { # PATTERN (extended regex, a whole line must match)
  if ! grep -Eq "^$1\$" "$T/check.txt"; then
    echo "gpu_check_emu_test: no line matching: $1" >&2
    fails=$((fails + 1))
  fi
}
want 'gpu: op2-rs CUDA emulator \(host CPU\), none, 0 MiB, 9.0'
while read -r name _ app _; do
  want "ok   $name r1: status 0, .*answers: .*"
  # as many loops as the bundle compiled for it
  n=$(sed -n "s/^$name: \([0-9]*\) loops\$/\1/p" "$SRC/cache.txt")
  want "ok   $name: every loop on the GPU \(${n:-?} loops\)"
  case $app in airfoil | aero) want "ok   $name transfers: .*" ;; esac
  # the run went through the emulator: the bundle's cubins refused, the
  # loops compiled again by the emulated NVRTC, run by the emulated driver
  # (a name ending in _async has the kernels of the one without, which ran
  # before it and left the emulated NVRTC's images in the run's cache)
  case $name in *_async) continue ;; esac
  # big_offsets' cubins have 64-bit offsets, for the GPU's 67.2M cells; on
  # the bundle's small mesh here the library writes its loops with 32-bit
  # ones, which the emulated NVRTC compiles: no cubin of the bundle's meets
  # the driver
  [ "$app" = bigoffsets ] && continue
  grep -q 'cuModuleLoadData: not an image of the emulated NVRTC' "$T/results/logs/$name.r1.err" || {
    echo "gpu_check_emu_test: $name: the emulated driver saw none of the bundle's cubins" >&2
    fails=$((fails + 1))
  }
done < "$B/programs.txt"
# c-examples' airfoil, run in round 1 with OP2_RS_DEVICE_TIMES=1: the
# device's time of each of its 5 loops (the emulated driver's events)
# beside op_timing_output's, both read from what the library printed
want '-- ex_airfoil_jit \(seconds: calls, device, op_timing_output, host = op_timing_output - device\)'
for l in res_calc adt_calc bres_calc update save_soln; do
  want "   $l +[0-9]+ +[0-9.]+ +[0-9.]+ +-?[0-9.]+"
done
want '0 failure\(s\); .*'
[ "$rc" = 0 ] || {
  echo "gpu_check_emu_test: check.sh exited $rc" >&2
  fails=$((fails + 1))
}
[ $fails = 0 ] || exit 1
echo "gpu_check_emu_test: passed ($(wc -l < "$B/programs.txt") op_seq.h programs through check.sh on the CUDA emulator)"
