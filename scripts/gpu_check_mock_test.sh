#!/usr/bin/env bash
# gpu_check_mock_test.sh -- the GPU path of the bundle's check.sh
# (scripts/gpu_check.sh), exercised here without a GPU: a bundle whose
# programs are shell scripts that print what a run prints (answers, the
# library's transfer report, the time loop), next to a mock nvidia-smi and
# compute-sanitizer. The GPU machine is lent for minutes; a check.sh that
# misreads a run would waste them, so every verdict it gives is checked:
#   airfoil_aos_rs    answers as the reference, transfers as predicted -> ok
#   airfoil_soa_rs    "max err" off by 1e-12 relative (within tolerance),
#                     but the transfer report has a second download -> FAIL
#   airfoil_color_rs  one rms printed differently -> FAIL
#   aero_aos_rs       other inner iteration counts, residuals 20% off both
#                     ways (geometric mean as the reference's), the last
#                     two (round-off level, 1e-16) 5x off, not compared -> ok
#   aero_soa_rs       every residual 5% high (each within tolerance, the
#                     geometric mean not) -> FAIL
#   *_op2             as the reference (the control)
#   t1_mock           prints PASS -> ok; memcheck of t1 reports an error -> FAIL
#   airfoil_jit       (op_seq.h on our library) answers and transfers as
#                     predicted, every loop "device" -> ok; 1.1 s against
#                     OP2's best configuration's 1.0 s -> 1.100, within 1.2
#   aero_jit          one loop fell back to the host -> FAIL
#   airfoil_jit_soa_atomics  runs only with OP2_RS_CONFLICTS=atomics and
#                     OP_AUTO_SOA=1 (what its name asks check.sh for), 0.9 s:
#                     the best of airfoil's op_seq.h programs -> 0.900
#   aero_jit_global   runs only with OP2_RS_CONFLICTS=colour2-global, 1.5x
#                     OP2's time: aero's best stays aero_jit -> 1.000 (one
#                     loop on the host, as every mock aero program -> FAIL)
#   aero_jit_atomics_fma  runs only with OP2_RS_CONFLICTS=atomics and
#                     OP2_RS_FMA=1, 1.25x OP2's time; no memcheck (the
#                     memory accesses of aero_jit_atomics)
#   airfoil_jit_atomics_async  runs only with OP2_RS_CONFLICTS=atomics and
#                     OP2_RS_DEVICE_ASYNC=1, 0.85 s -> 0.850, airfoil's
#                     best; no memcheck (the kernels of airfoil_jit_atomics);
#                     its per-loop times are the host's (kernels queued), so
#                     airfoil's per-loop table is airfoil_jit_soa_atomics'
#                     (the best program that waits for each loop)
#   device_args       (a program checking itself) PASSED, every loop on the
#                     GPU, its table printed twice (as after
#                     op_timing_output and at op_exit) -> ok, 3 loops;
#                     device_args_atomics prints a wrong value and FAILED
#                     -> FAIL, and its table lists a loop on the host with
#                     no fallback line -> FAIL
#   device times      jit programs run with OP2_RS_DEVICE_TIMES=1 in round 1
#                     only, their device time 0.8 of op_timing_output's:
#                     the per-loop device tables of each app's best program
#                     (airfoil_jit_atomics_async, aero_jit) and its best
#                     that waits (airfoil_jit_soa_atomics)
#   big_offsets       (app bigoffsets) run with its 67,200,000 cells and no
#                     OP2_RS_WIDE_OFFSETS: PASSED, both loops on the GPU -> ok;
#                     after the timing rounds, no memcheck
# and the timing table (ours / OP2's medians) must give 0.500 for aos.
# A second run, with every program hanging (MOCK_SLEEP), DEADLINE_S=4,
# ONLY='^airfoil_jit$' and MEMCHECK=0: airfoil_jit is cut at the deadline
# (a SKIP, not a FAIL), nothing starts after it, no other program runs,
# status 0, well inside 20 s.
#
#   scripts/gpu_check_mock_test.sh BUNDLE_WITH_MESHGEN
# shellcheck disable=SC2016 # awk programs in single quotes
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=${1:?usage: $0 BUNDLE (a bundle built by gpu_bundle.sh, for its mesh generators)}
T=target/gpu-check-mock
rm -rf "$T"
mkdir -p "$T/bundle/bin" "$T/bundle/ref" "$T/path"
T=$(cd "$T" && pwd)
B=$T/bundle
cp scripts/gpu_check.sh "$B/check.sh"
cp "$SRC/bin/meshgen" "$SRC/bin/aero_meshgen" "$B/bin/"
cat > "$B/manifest.txt" << 'EOF'
op2-rs GPU check bundle (mock)
built: now
op2-rs commit: mock
nvcc: mock
airfoil mesh: meshgen --ni 60 --nj 30
aero mesh: aero_meshgen --ni 30 --nj 16
EOF
"$B/bin/meshgen" -o "$T/m1" --ni 60 --nj 30 > /dev/null
"$B/bin/aero_meshgen" -o "$T/m2" --ni 30 --nj 16 > /dev/null
md5sum < "$T/m1" | awk '{print $1}' > "$B/ref/airfoil.mesh.md5"
md5sum < "$T/m2" | awk '{print $1}' > "$B/ref/aero.mesh.md5"

# reference answers, in the apps' formats
for i in 1 2 3 4 5 6 7 8 9 10; do
  awk -v i=$i 'BEGIN { printf " %d  %10.5e, max err: %3.15E at %d\n", 100 * i, 1e-3 / i, 0.5 / i, 37 * i }'
done > "$B/ref/airfoil.out"
for i in $(seq 1 20); do
  # the last two at round-off level, as aero's on a small mesh
  awk -v i="$i" 'BEGIN { printf "%d %d %3.15E\n", i, 10 + i % 3, i < 19 ? 1e-4 / (i * i) : 1e-17 * i }'
done > "$B/ref/aero.out"

# mock programs: NAME behaviour, the transfer line computed from the mesh
# (op_timing_output's table: the loop time shared among the loops in fixed
# proportions, so every loop's ratio is the programs' ratio)
mock() { # NAME APP KIND LOOP_SECONDS ANSWER_FILTER(awk) DOWNLOADS
  local name=$1 app=$2 kind=$3 secs=$4 filter=$5 downloads=$6
  local loops="res_calc:0.5 adt_calc:0.2 update:0.2 save_soln:0.06 bres_calc:0.04"
  [ "$app" = aero ] && loops="spMV:0.6 res_calc:0.2 update:0.2"
  cat > "$B/bin/$name" << EOF
#!/usr/bin/env bash
# a run that hangs, for the deadline check below
[ -n "\${MOCK_SLEEP:-}" ] && exec sleep "\$MOCK_SLEEP"
n=\${OP2CHECK_NITER:-1000}
if [ "$app" = airfoil ]; then read -r nn nc ne nb < new_grid.dat; else read -r nn nc nbn < FE_grid.dat; fi
full=1000
[ "$app" = aero ] && full=20
[ "\$n" -ge "\$full" ] && awk '$filter' "$B/ref/$app.out"
echo "op2check time loop: $secs s"
echo "  count   plan time     MPI time(std)        time(std)           GB/s      GB/s   kernel name "
echo " -------------------------------------------------------------------------------------------"
for ls in $loops; do
  awk -v l="\${ls%%:*}" -v s="\${ls#*:}" -v t="$secs" 'BEGIN { printf " %6d;  %8.4f;  %8.4f(%8.4f);  %8.4f(%8.4f);  %8.4f;         ;   %s \n", 1000, 0, 0, 0, s * t, 0, 1, l }'
done
echo "Total plan time:   0.0000"
if [ "$kind" = jit ]; then
  if [ "$app" = aero ]; then
    echo " op2-rs: loop res_calc runs on the host: NVRTC not found (mock)"
    echo "  where each loop ran (CUDA: Mock GPU (sm_90)):"
    echo "  res_calc                 host (NVRTC not found (mock))"
    echo "  spMV                     device"
    echo "  update                   device"
  else
    echo "  where each loop ran (CUDA: Mock GPU (sm_90)):"
    for l in adt_calc bres_calc res_calc save_soln update; do printf '  %-24s device\n' "\$l"; done
  fi
  echo
  # the device's time of each loop's kernels: 0.8 of op_timing_output's
  if [ "\${OP2_RS_DEVICE_TIMES:-}" = 1 ]; then
    echo "  device time of each loop's kernels (OP2_RS_DEVICE_TIMES: mock):"
    echo "  loop                        calls      seconds    us/call"
    for ls in $loops; do
      awk -v l="\${ls%%:*}" -v s="\${ls#*:}" -v t="$secs" 'BEGIN { printf "  %-24s %8d %12.6f %10.2f\n", l, 1000, 0.8 * s * t, 0.8 * s * t * 1000 }'
    done
    echo
  fi
fi
if [ "$kind" = rs ] || [ "$kind" = jit ]; then
  if [ "$app" = airfoil ]; then
    placed=\$((nb * 4 + nn * 16 + nc * 104)) db=\$(( $downloads * nc * 32 ))
    echo "op2-rs device transfers: dats_placed=6 dats_placed_bytes=\$placed dat_uploads=0 dat_uploads_bytes=0 dat_downloads=$downloads dat_downloads_bytes=\$db halo_uploads=0 halo_uploads_bytes=0 maps=5 maps_bytes=1 plans=3 plans_bytes=9 scratch_up=2000 scratch_up_bytes=1 scratch_down=2000 scratch_down_bytes=1 plan_upload_ms=0.002 soa_transpose_ms=0.001"
  else
    placed=\$((nn * 56 + nc * 128))
    echo "op2-rs device transfers: dats_placed=7 dats_placed_bytes=\$placed dat_uploads=0 dat_uploads_bytes=0 dat_downloads=0 dat_downloads_bytes=0 halo_uploads=0 halo_uploads_bytes=0 maps=1 maps_bytes=1 plans=1 plans_bytes=9 scratch_up=1 scratch_up_bytes=1 scratch_down=1 scratch_down_bytes=1 plan_upload_ms=0.001 soa_transpose_ms=0.000"
  fi
fi
exit 0
EOF
  chmod +x "$B/bin/$name"
  echo "$name $kind $app" >> "$B/programs.txt"
}
: > "$B/programs.txt"
cat > "$B/bin/t1_mock" << 'EOF'
#!/usr/bin/env bash
echo "ok reduction"
echo "PASS t1_mock"
EOF
chmod +x "$B/bin/t1_mock"
echo "t1_mock rs test" >> "$B/programs.txt"
same='{ print }'
mock airfoil_aos_rs airfoil rs 1.0 "$same" 1
mock airfoil_aos_op2 airfoil op2 2.0 "$same" 0
mock airfoil_soa_rs airfoil rs 1.0 '{ $5 = sprintf("%.15E", $5 * (1 + 1e-12)); sub(/^/, " "); print }' 2
mock airfoil_soa_op2 airfoil op2 1.0 "$same" 0
mock airfoil_color_rs airfoil rs 1.0 'NR == 4 { $2 = "9.99999e-05," } { sub(/^/, " "); print }' 1
mock airfoil_color_op2 airfoil op2 1.0 "$same" 0
mock aero_aos_rs aero rs 0.2 '{ $2 = $2 + 1; $3 = sprintf("%.15E", $3 * (NR > 18 ? 5 : NR % 2 ? 1.2 : 1 / 1.2)); print }' 0
mock aero_aos_op2 aero op2 0.2 "$same" 0
mock aero_soa_rs aero rs 0.2 '{ $3 = sprintf("%.15E", $3 * 1.05); print }' 0
mock aero_soa_op2 aero op2 0.2 "$same" 0
mock airfoil_jit airfoil jit 1.1 "$same" 1
mock aero_jit aero jit 0.2 "$same" 0
# run only in the environment their names ask for (check.sh's jit_env)
mock airfoil_jit_soa_atomics airfoil jit 0.9 "$same" 1
sed -i '1a [ "${OP2_RS_CONFLICTS:-}" = atomics ] && [ "${OP_AUTO_SOA:-}" = 1 ] || { echo "mock: not run with atomics and SoA" >&2; exit 3; }' \
  "$B/bin/airfoil_jit_soa_atomics"
mock aero_jit_global aero jit 0.3 "$same" 0
sed -i '1a [ "${OP2_RS_CONFLICTS:-}" = colour2-global ] && [ -z "${OP_AUTO_SOA:-}" ] || { echo "mock: not run with colour2-global" >&2; exit 3; }' \
  "$B/bin/aero_jit_global"
mock aero_jit_atomics_fma aero jit 0.25 "$same" 0
sed -i '1a [ "${OP2_RS_CONFLICTS:-}" = atomics ] && [ "${OP2_RS_FMA:-}" = 1 ] && [ -z "${OP2_RS_DEVICE_ASYNC:-}" ] || { echo "mock: not run with atomics and fused multiply-adds" >&2; exit 3; }' \
  "$B/bin/aero_jit_atomics_fma"
mock airfoil_jit_atomics_async airfoil jit 0.85 "$same" 1
sed -i '1a [ "${OP2_RS_CONFLICTS:-}" = atomics ] && [ "${OP2_RS_DEVICE_ASYNC:-}" = 1 ] && [ -z "${OP_AUTO_SOA:-}" ] || { echo "mock: not run with atomics, queued" >&2; exit 3; }' \
  "$B/bin/airfoil_jit_atomics_async"
echo "PASSED (0 wrong values)" > "$B/ref/selfcheck.out"
for v in device_args device_args_atomics; do
  verdict='echo "PASSED (0 wrong values)"'
  table='for l in flux scratch sums; do printf "  %-24s device\\n" "$l"; done'
  if [ $v = device_args ]; then
    table="$table; echo; echo '  where each loop ran (CUDA: Mock GPU (sm_90)):'; $table"
  else
    verdict='echo "wrong: flux: increments (pass 0)"; echo "FAILED (1 wrong values)"'
    table="$table; echo '  pin                      host (mock: no reason given)'"
  fi
  cat > "$B/bin/$v" << EOF
#!/usr/bin/env bash
echo "  where each loop ran (CUDA: Mock GPU (sm_90)):"
$table
echo
$verdict
EOF
  chmod +x "$B/bin/$v"
  echo "$v jit selfcheck" >> "$B/programs.txt"
done
# big_offsets: its argument, no OP2_RS_WIDE_OFFSETS (the library decides)
cp "$B/ref/selfcheck.out" "$B/ref/bigoffsets.out"
cat > "$B/bin/big_offsets" << 'EOF'
#!/usr/bin/env bash
[ "$1" = 67200000 ] && [ -z "${OP2_RS_WIDE_OFFSETS:-}" ] || { echo "mock: not run with 67200000 cells, the offsets left to the library" >&2; exit 3; }
echo "PASSED (0 wrong values)"
echo "  where each loop ran (CUDA: Mock GPU (sm_90)):"
printf '  %-24s device\n' bump stamp
EOF
chmod +x "$B/bin/big_offsets"
echo "big_offsets jit bigoffsets 67200000" >> "$B/programs.txt"

# mock driver tools
cat > "$T/path/nvidia-smi" << 'EOF'
#!/usr/bin/env bash
case "$*" in
  -L) echo "GPU 0: Mock GPU (UUID: GPU-0)" ;;
  --query-gpu*) echo "Mock GPU, 580.00, 1000 MiB, 9.0" ;;
  *) echo "| NVIDIA-SMI 580.00   Driver Version: 580.00   CUDA Version: 13.0 |" ;;
esac
EOF
cat > "$T/path/compute-sanitizer" << 'EOF'
#!/usr/bin/env bash
[ "$1" = --version ] && { echo "Compute Sanitizer Version 0000 (mock)"; exit 0; }
prog=${*: -1}
"$prog" > /dev/null
case $prog in
  */t1_mock) echo "========= Invalid __global__ read of size 8"; echo "========= ERROR SUMMARY: 1 error"; exit 99 ;;
esac
echo "========= ERROR SUMMARY: 0 errors"
EOF
chmod +x "$T/path/nvidia-smi" "$T/path/compute-sanitizer"

set +e
# from an empty folder: check.sh writes nothing where it is started
rm -rf "$T/cwd" && mkdir -p "$T/cwd"
(cd "$T/cwd" && PATH=$T/path:$PATH "$B/check.sh" "$T/results") > "$T/check.txt" 2>&1
rc=$?
set -e
cat "$T/check.txt"

fails=0
want() { # PATTERN (extended regex, a whole line must match)
  if ! grep -Eq "^$1\$" "$T/check.txt"; then
    echo "gpu_check_mock_test: no line matching: $1" >&2
    fails=$((fails + 1))
  fi
}
want 'gpu: Mock GPU, 580.00, 1000 MiB, 9.0'
want 'cuda \(driver\): 13.0'
want 'ok   airfoil mesh: .*same bytes as the reference.s'
want 'ok   t1_mock: .*'
want 'ok   airfoil_aos_rs r1: status 0, .*answers: 10/10 lines identical, max rel diff 0.00e\+00'
want 'ok   airfoil_aos_rs transfers: placed 6 dats .* 0 re-uploads, 1 downloads .*'
want 'ok   airfoil_aos_rs: plan upload \+ SoA transposition = .*% of the run \(target < 5%\)'
want 'ok   airfoil_soa_rs r1: .*answers: 0/10 lines identical, max rel diff 1.0.e-12'
want 'FAIL airfoil_soa_rs transfers: .*NOT AS PREDICTED: downloads 2/.*'
want 'FAIL airfoil_color_rs r[123]: .*DIFFERENT: rms@400'
want 'ok   aero_aos_rs r1: .*max rel diff 2.00e-01, geometric mean ratio 1.0000, inner iterations differ in 20, 2 residual\(s\) at round-off \(below 1e-09 of the first\) not compared'
want 'ok   aero_aos_rs transfers: placed 7 dats .*'
want 'FAIL aero_soa_rs r1: .*geometric mean ratio 1.0500, .*DIFFERENT: mean'
want 'FAIL memcheck t1_mock: status 99, ERROR SUMMARY: 1 error; .*Invalid __global__ read.*'
want 'ok   memcheck airfoil_aos_rs: ERROR SUMMARY: 0 errors .*'
want 'airfoil_aos +1.000 \(1.000 1.000 1.000\) +2.000 \(2.000 2.000 2.000\) +0.500'
want 'ok   airfoil_aos: ours / OP2.s = 0.500 \(target <= 1\)'
want 'ok   airfoil_jit r1: status 0, .*answers: 10/10 lines identical, max rel diff 0.00e\+00'
want 'ok   airfoil_jit: every loop on the GPU \(5 loops\)'
want 'ok   airfoil_jit transfers: placed 6 dats .* 0 re-uploads, 1 downloads .*'
want 'FAIL aero_jit: 1 loop\(s\) on the host, 2 on the GPU:  op2-rs: loop res_calc runs on the host: NVRTC not found \(mock\)'
want 'ok   memcheck airfoil_jit: ERROR SUMMARY: 0 errors .*'
want 'ok   device_args r1: status 0, .*answers: 1/1 lines identical, max rel diff 0.00e\+00'
want 'ok   device_args: every loop on the GPU \(3 loops\)'
want 'ok   big_offsets r1: status 0, .*answers: 1/1 lines identical, max rel diff 0.00e\+00'
want 'ok   big_offsets: every loop on the GPU \(2 loops\)'
want 'FAIL device_args_atomics r1: status 0, .*DIFFERENT: wrong: flux: increments \(pass 0\).*'
want 'FAIL device_args_atomics: 1 loop\(s\) on the host, 3 on the GPU:   pin +host \(mock: no reason given\)'
want 'ok   airfoil_jit_soa_atomics r1: status 0, .*answers: 10/10 lines identical, max rel diff 0.00e\+00'
want 'ok   memcheck airfoil_jit_soa_atomics: ERROR SUMMARY: 0 errors .*'
want 'airfoil_jit +1.100 +airfoil_(soa|color)_op2 +1.000 +1.100'
want 'airfoil_jit_soa_atomics +0.900 +airfoil_(soa|color)_op2 +1.000 +0.900'
want 'ok   airfoil_jit_atomics_async r1: status 0, .*answers: 10/10 lines identical, max rel diff 0.00e\+00'
want 'airfoil_jit_atomics_async +0.850 +airfoil_(soa|color)_op2 +1.000 +0.850'
want 'ok   airfoil: op_seq.h on libop2_cuda \(airfoil_jit_atomics_async, the best of 3\) / OP2.s translated code = 0.850 \(target <= 1.2\)'
want 'ok   aero: op_seq.h on libop2_cuda \(aero_jit, the best of 3\) / OP2.s translated code = 1.000 \(target <= 1.2\)'
want 'aero_jit_global +15.000 +aero_(aos|soa)_op2 +10.000 +1.500'
want 'ok   aero_jit_global r1: status 0, .*'
want 'ok   aero_jit_atomics_fma r1: status 0, .*'
want 'aero_jit_atomics_fma +12.500 +aero_(aos|soa)_op2 +10.000 +1.250'
# the per-loop tables: the translated pairs and each app's best op_seq.h
# program that waits for each loop against OP2's best configuration
want '-- airfoil_aos_rs / airfoil_aos_op2 \(seconds\)'
want '   res_calc +0.5000 +1.0000 +0.500'
want '   bres_calc +0.0400 +0.0800 +0.500'
want '   sum +1.0000 +2.0000 +0.500'
want '-- aero_aos_rs / aero_aos_op2 \(seconds\)'
want '   spMV +0.1200 +0.1200 +1.000'
want '-- airfoil_jit_soa_atomics / airfoil_(soa|color)_op2 \(seconds\)'
want '   adt_calc +0.1800 +0.2000 +0.900'
# the device's time of each loop (round 1, OP2_RS_DEVICE_TIMES=1): each
# app's best op_seq.h program (here an _async one) and its best that waits
want '-- airfoil_jit_atomics_async \(seconds: calls, device, op_timing_output, host = op_timing_output - device\)'
want '   res_calc +1000 +0.3400 +0.4250 +0.0850'
want '-- airfoil_jit_soa_atomics \(seconds: calls, device, op_timing_output, host = op_timing_output - device\)'
want '   bres_calc +1000 +0.0288 +0.0360 +0.0072'
want '   sum +0.7200 +0.9000 +0.1800'
want '-- aero_jit \(seconds: calls, device, op_timing_output, host = op_timing_output - device\)'
want '[0-9]+ failure\(s\); .*'
if [ -n "$(ls -A "$T/cwd")" ]; then
  echo "gpu_check_mock_test: check.sh wrote into the folder it was started in: $(ls -A "$T/cwd" | tr '\n' ' ')" >&2
  fails=$((fails + 1))
fi
if grep -q -- '-- airfoil_jit_atomics_async /' "$T/check.txt"; then
  echo "gpu_check_mock_test: a per-loop table of a program ending in _async (its loop times are the host's)" >&2
  fails=$((fails + 1))
fi
# device events in round 1 only (they cost the host a little)
if ! grep -q "device time of each loop's kernels" "$T/results/logs/airfoil_jit.r1.out" ||
  grep -q "device time of each loop's kernels" "$T/results/logs/airfoil_jit.r2.out"; then
  echo "gpu_check_mock_test: OP2_RS_DEVICE_TIMES=1 not in round 1 only" >&2
  fails=$((fails + 1))
fi
if grep -q 'memcheck big_offsets' "$T/check.txt"; then
  echo "gpu_check_mock_test: memcheck ran big_offsets (8.6 GB)" >&2
  fails=$((fails + 1))
fi
# big_offsets runs after the timing rounds
if [ "$(grep -n -m1 'big_offsets r1' "$T/check.txt" | cut -d: -f1)" -lt "$(grep -n -m1 'rounds 2\.\.' "$T/check.txt" | cut -d: -f1)" ]; then
  echo "gpu_check_mock_test: big_offsets ran before the timing rounds" >&2
  fails=$((fails + 1))
fi
if grep -q 'memcheck aero_jit_atomics_fma' "$T/check.txt"; then
  echo "gpu_check_mock_test: memcheck ran a program with an _fma part" >&2
  fails=$((fails + 1))
fi
if grep -q 'memcheck airfoil_jit_atomics_async' "$T/check.txt"; then
  echo "gpu_check_mock_test: memcheck ran a program ending in _async" >&2
  fails=$((fails + 1))
fi
n=$(grep -c '^FAIL' "$T/check.txt" || true)
# soa transfers, color x 3 rounds, aero_soa, memcheck t1, aero_jit,
# aero_jit_global and aero_jit_atomics_fma on the host (the mock's aero
# runs one loop there), device_args_atomics' answers and its loop on the
# host
[ "$n" = 11 ] || {
  echo "gpu_check_mock_test: $n FAIL lines, want 11" >&2
  fails=$((fails + 1))
}
[ $rc != 0 ] || {
  echo "gpu_check_mock_test: check.sh exited 0 although checks failed" >&2
  fails=$((fails + 1))
}
[ -s "$T/results/summary.txt" ] && [ -s "$T/results/timing.txt" ] || {
  echo "gpu_check_mock_test: summary.txt or timing.txt missing" >&2
  fails=$((fails + 1))
}

# the deadline: a program that hangs is stopped when DEADLINE_S is reached
# and reported as cut, not failed; nothing starts after it; ONLY and
# MEMCHECK=0 (a second call's knobs) leave the rest out
set +e
t0=$(date +%s)
(cd "$T/cwd" && PATH=$T/path:$PATH MOCK_SLEEP=60 BUDGET_S=30 DEADLINE_S=4 ONLY='^airfoil_jit$' MEMCHECK=0 \
  "$B/check.sh" "$T/results-deadline") > "$T/check-deadline.txt" 2>&1
rc=$?
took=$(($(date +%s) - t0))
set -e
cat "$T/check-deadline.txt"
want_d() { # PATTERN: a whole line of the deadline run
  grep -Eq "^$1\$" "$T/check-deadline.txt" || {
    echo "gpu_check_mock_test: deadline run: no line matching: $1" >&2
    fails=$((fails + 1))
  }
}
want_d 'SKIP airfoil_jit round 1: cut at the deadline of 4 s'
want_d 'SKIP airfoil_jit round 2: time budget \(30 s, deadline 4 s\) spent'
want_d 'SKIP memcheck: MEMCHECK=0'
want_d '0 failure\(s\); .*'
if grep -Eq '^(ok|FAIL|SKIP) +(airfoil_(aos|soa|color)|t1_mock|device_args|aero_|airfoil_jit_)' "$T/check-deadline.txt"; then
  echo "gpu_check_mock_test: deadline run: ONLY='^airfoil_jit\$' ran other programs" >&2
  fails=$((fails + 1))
fi
[ $rc = 0 ] || {
  echo "gpu_check_mock_test: deadline run: status $rc, want 0 (a cut run is no failure)" >&2
  fails=$((fails + 1))
}
[ $took -lt 20 ] || {
  echo "gpu_check_mock_test: deadline run took $took s with DEADLINE_S=4" >&2
  fails=$((fails + 1))
}
[ $fails = 0 ] || exit 1
echo "gpu_check_mock_test: passed (check.sh's verdicts on mock runs as expected; a hanging run cut at the deadline)"
