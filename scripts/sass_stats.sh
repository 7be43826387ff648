#!/usr/bin/env bash
# sass_stats.sh -- what the GPU would execute, counted without a GPU: per
# kernel of the given cubins / objects, its SASS instructions, registers and
# the memory instructions (global loads, and how many of them go through the
# read-only path, .CONSTANT; stores; atomics/reductions; shared-memory
# accesses; barriers) and double-precision arithmetic. A static comparison of
# our generated code with OP2's translated code (BENCHMARKS.md, "op_seq.h
# loops on libop2_cuda"), not a timing.
#
#   scripts/sass_stats.sh FILE_OR_DIR...
#
# FILE: a cubin, an object or fatbin holding device code (nvcc -c output), or
# an entry of the library's compiled-program cache (*.bin: a header, then
# the cubin). DIR: every *.bin and *.o in it. cuobjdump and nvdisasm (PyPI,
# 13.5.37: no 13.0 build is published; both read sm_90 code) are installed
# once into target/cuda-disasm.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || {
  echo "usage: $0 FILE_OR_DIR..." >&2
  exit 2
}
VENV=$PWD/target/cuda-disasm
BIN=$VENV/lib/python3.$(python3 -c 'import sys; print(sys.version_info[1])')/site-packages/nvidia/cu13/bin
if [ ! -x "$BIN/cuobjdump" ] || [ ! -x "$BIN/nvdisasm" ]; then
  echo "sass_stats.sh: installing cuobjdump and nvdisasm from PyPI into target/cuda-disasm" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37 >&2
fi
export PATH=$BIN:$PATH
files=()
for a in "$@"; do
  if [ -d "$a" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$a" -maxdepth 1 \( -name '*.bin' -o -name '*.o' \) | sort)
  else
    files+=("$a")
  fi
done
python3 - "${files[@]}" << 'EOF'
import os, re, subprocess, sys, tempfile

def device_code(path):
    """A cache entry holds a header before the cubin: cut it off."""
    data = open(path, 'rb').read()
    if path.endswith('.bin'):
        i = data.find(b'\x7fELF')
        if i < 0:
            return None
        fd, tmp = tempfile.mkstemp(suffix='.cubin')
        os.write(fd, data[i:])
        os.close(fd)
        return tmp
    return path

print(f"{'file':20} {'kernel':44} {'instr':>5} {'reg':>4} {'LDG':>4} {'(ro)':>4} {'STG':>4} "
      f"{'atom':>4} {'shm':>4} {'bar':>4} {'fp64':>4}")
for path in sys.argv[1:]:
    code = device_code(path)
    if code is None:
        continue
    sass = subprocess.run(['cuobjdump', '-sass', code], capture_output=True, text=True).stdout
    res = subprocess.run(['cuobjdump', '--dump-resource-usage', code],
                         capture_output=True, text=True).stdout
    if code != path:
        os.unlink(code)
    regs = dict(re.findall(r'Function (\S+):\s*REG:(\d+)', res.replace('\n', ' ')))
    kernel, counts = None, {}
    for line in sass.splitlines():
        m = re.search(r'Function : (\S+)', line)
        if m:
            kernel = m.group(1)
            counts[kernel] = dict.fromkeys(['n', 'LDG', 'ro', 'STG', 'atom', 'shm', 'bar', 'fp64'], 0)
            continue
        m = re.match(r'\s+/\*[0-9a-f]{4,5}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)', line)
        if not (m and kernel):
            continue
        op, c = m.group(1), counts[kernel]
        c['n'] += 1
        if op.startswith('LDG'):
            c['LDG'] += 1
            c['ro'] += '.CONSTANT' in op
        elif op.startswith('STG'):
            c['STG'] += 1
        elif op.startswith(('ATOM', 'RED')):
            c['atom'] += 1
        elif op.startswith(('LDS', 'STS')):
            c['shm'] += 1
        elif op.startswith('BAR'):
            c['bar'] += 1
        elif op.startswith(('DFMA', 'DADD', 'DMUL')):
            c['fp64'] += 1
    for k, c in counts.items():
        print(f"{os.path.basename(path)[:20]:20} {k[:44]:44} {c['n']:5} {regs.get(k, '?'):>4} "
              f"{c['LDG']:4} {c['ro']:4} {c['STG']:4} {c['atom']:4} {c['shm']:4} {c['bar']:4} {c['fp64']:4}")
EOF
