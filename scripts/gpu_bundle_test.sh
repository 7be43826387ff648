#!/usr/bin/env bash
# gpu_bundle_test.sh -- the part of the GPU check that runs without a GPU
# (called by scripts/test.sh):
#  1. scripts/gpu_bundle.sh without OP2_DIR builds the bundle (tests/cuda
#     programs, mesh generators, our CUDA libraries, c-examples' airfoil
#     tests/c/device_args and tests/c/two_maps with their loops compiled by NVRTC into the
#     bundle's cache); it fails when a
#     program does not link, does not find its libraries through its rpath,
#     or the bundle is over the size limit;
#  2. the bundle's check.sh runs here: every program must stop cleanly at the
#     no-driver line, the last line must be "no GPU" and the status 0;
#  3. the size limit is enforced: the same bundle with MAX_MIB=1 is refused
#     with a message naming the limit;
#  4. check.sh's GPU path on mock programs (scripts/gpu_check_mock_test.sh):
#     every verdict it must give, pass and fail;
#  5. check.sh's GPU path on the bundle's real op_seq.h programs run on the
#     CUDA emulator (scripts/gpu_check_emu_test.sh): every check passes.
# The op_seq.h programs' sizes are small here (EX_ARGS, DA_ARGS: the
# references are computed at these sizes, and the emulator runs them in
# seconds); a bundle for a GPU keeps gpu_bundle.sh's defaults.
# The bundle goes to target/gpu-bundle-test (target/gpu-bundle is left to
# full builds with OP2_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
T=target/gpu-bundle-test
rm -rf "$T"
mkdir -p "$T"

export EX_ARGS='--cells=2000 --iters=100' DA_ARGS=3000 BO_ARGS=5000
OUT=$T/bundle WORK=$T/work CARGO_BUILD=${CARGO_BUILD:-0} scripts/gpu_bundle.sh
cubins=$(grep -l $'\x7fELF' "$T/bundle/cache"/*.bin 2> /dev/null | wc -l)
# ex_airfoil_jit 5; device_args 6 (flux with its optional argument on and
# off); device_args_atomics 2 more (flux's two: its direct loops are the
# same code in both schemes, pin, writing through a map that reaches each
# node once, is flat in both, and count, OP_RW through shared rows, is
# staged in both); two_maps 4 (gather, reads only, flat), two_maps_global 3
# more (gather's flat code is the same); wide_ints 5 (spread staged, hash,
# gather, stamp and flags flat), wide_ints_atomics 1 more (spread's atomics);
# big_offsets 2 (its loops with 64-bit offsets)
for l in 'ex_airfoil_jit: 5 loops' 'device_args: 5 loops' 'device_args_atomics: 5 loops' 'two_maps: 4 loops' 'two_maps_global: 4 loops' 'wide_ints: 5 loops' 'wide_ints_atomics: 5 loops' 'big_offsets: 2 loops'; do
  grep -qx "$l" "$T/bundle/cache.txt" || {
    echo "gpu_bundle_test: cache.txt lacks '$l'" >&2
    exit 1
  }
done
if [ "$cubins" != 28 ]; then
  echo "gpu_bundle_test: want 28 cubins in the bundle's cache, found $cubins" >&2
  exit 1
fi

set +e
"$T/bundle/check.sh" "$T/results" > "$T/check.txt" 2>&1
rc=$?
set -e
cat "$T/check.txt"
last=$(tail -n 1 "$T/check.txt")
if [ $rc != 0 ] || [ "$last" != "no GPU" ]; then
  echo "gpu_bundle_test: check.sh without a GPU: status $rc, last line '$last' (want 0 and 'no GPU')" >&2
  exit 1
fi
n=$(grep -c '^ok .*clean stop' "$T/check.txt" || true)
want=$(wc -l < "$T/bundle/programs.txt")
skipped=$(grep -c '^SKIP' "$T/check.txt" || true)
if [ $((n + skipped)) != "$want" ] || [ "$n" = 0 ]; then
  echo "gpu_bundle_test: $n clean stops and $skipped skips for $want programs" >&2
  exit 1
fi

set +e
OUT=$T/small WORK=$T/work CARGO_BUILD=0 MAX_MIB=1 scripts/gpu_bundle.sh > "$T/small.txt" 2>&1
rc=$?
set -e
if [ $rc = 0 ] || ! grep -q 'over the 1 MiB limit' "$T/small.txt"; then
  echo "gpu_bundle_test: a bundle over MAX_MIB=1 was not refused (status $rc):" >&2
  tail -n 3 "$T/small.txt" >&2
  exit 1
fi
echo "gpu_bundle_test: $(tail -n 1 "$T/small.txt")"
scripts/gpu_check_mock_test.sh "$T/bundle" > "$T/mock.txt" 2>&1 || {
  cat "$T/mock.txt"
  exit 1
}
tail -n 1 "$T/mock.txt"
scripts/gpu_check_emu_test.sh "$T/bundle" > "$T/emu.txt" 2>&1 || {
  cat "$T/emu.txt"
  exit 1
}
tail -n 1 "$T/emu.txt"
echo "gpu_bundle_test: passed ($n programs stopped cleanly, bundle $(du -sk "$T/bundle" | cut -f1) KiB)"
