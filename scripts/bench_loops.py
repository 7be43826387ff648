#!/usr/bin/env python3
"""bench_loops.py -- where the time goes, loop by loop: the per-loop times
of op_timing_output in the logs of scripts/bench_op2.sh's timed runs, as
medians over the rounds, each op2-rs configuration beside the OP2
configuration it is compared with (bench_op2.sh's pairing).

    scripts/bench_loops.py [--logs DIR] [--app APP] [--markdown]

DIR defaults to target/op2bench/logs/time (bench_op2.sh `time` or `all`
writes <app>.<config>_r<round>.txt there); APP defaults to every app found.
For each op2-rs configuration whose counterpart ran too (omp_rs_tN and
genomp_rs_tN against genomp_op2_tN, seq_rs and genseq_rs against
genseq_op2 / seq_op2, mpi_*_rs_rN against mpi_*_op2_rN), one table: loop,
our median seconds, theirs, ours/theirs, sorted by their time; the last
row is the sum over loops. A loop missing on one side shows "-".
Exit status 1 when no logs are found.
"""
import argparse
import glob
import os
import re
import statistics
import sys


def timing_table(path):
    """{kernel name: seconds} from op_timing_output's table in a log."""
    out = {}
    inside = False
    with open(path, errors="replace") as f:
        for line in f:
            if re.search(r"count\s+plan time", line):
                inside = True
                continue
            if not inside:
                continue
            if line.startswith("Total") or (line.strip() and ";" not in line and not line.strip().startswith("-")):
                if out:
                    break
                continue
            if ";" in line:
                parts = [p.strip() for p in line.split(";")]
                try:
                    out[parts[-1]] = float(parts[3].split("(")[0])
                except (IndexError, ValueError):
                    continue
    return out


def counterpart(cfg, present):
    """The OP2 configuration an op2-rs configuration is compared with."""
    m = re.match(r"(gen)?omp_rs(base)?_t(\d+)$", cfg)
    if m:
        return f"genomp_op2_t{m.group(3)}"
    if cfg in ("genseq_rs", "genseq_rsbase"):
        return "genseq_op2"
    if cfg in ("seq_rs", "seq_rsbase"):
        return "seq_op2"
    m = re.match(r"(gen)?mpi_rs_r(\d+)$", cfg)
    if m:
        return f"{m.group(1) or ''}mpi_op2_r{m.group(2)}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--logs", default="target/op2bench/logs/time")
    ap.add_argument("--app", default=None)
    ap.add_argument("--markdown", action="store_true", help="tables as Markdown")
    a = ap.parse_args()
    runs = {}
    for path in glob.glob(os.path.join(a.logs, "*_r*.txt")):
        m = re.match(r"([a-z0-9]+)\.(.+)_r(\d+)\.txt$", os.path.basename(path))
        if not m or (a.app and m.group(1) != a.app):
            continue
        t = timing_table(path)
        if t:
            runs.setdefault((m.group(1), m.group(2)), []).append(t)
    if not runs:
        print(f"bench_loops: no timing tables under {a.logs}", file=sys.stderr)
        return 1
    for app in sorted({k[0] for k in runs}):
        cfgs = sorted(c for (p, c) in runs if p == app)
        for cfg in cfgs:
            other = counterpart(cfg, cfgs)
            if other is None or (app, other) not in runs:
                continue
            med = {}
            for c in (cfg, other):
                names = {n for t in runs[(app, c)] for n in t}
                med[c] = {n: statistics.median([t[n] for t in runs[(app, c)] if n in t]) for n in names}
            names = sorted(set(med[cfg]) | set(med[other]), key=lambda n: -med[other].get(n, 0.0))
            rows = []
            for n in names:
                x, y = med[cfg].get(n), med[other].get(n)
                r = f"{x / y:.2f}" if x is not None and y else "-"
                rows.append((n, "-" if x is None else f"{x:.3f}", "-" if y is None else f"{y:.3f}", r))
            sx, sy = sum(med[cfg].values()), sum(med[other].values())
            rows.append(("sum", f"{sx:.3f}", f"{sy:.3f}", f"{sx / sy:.2f}" if sy else "-"))
            nr = (len(runs[(app, cfg)]), len(runs[(app, other)]))
            title = f"{app}: {cfg} against {other} (medians of {nr[0]} and {nr[1]} runs, seconds)"
            head = ("loop", cfg, other, "ratio")
            if a.markdown:
                print(f"\n{title}\n")
                print("| " + " | ".join(head) + " |")
                print("|" + "---|" * len(head))
                for r in rows:
                    print("| " + " | ".join(r) + " |")
            else:
                print(f"\n{title}")
                w = max(len(r[0]) for r in rows + [head])
                print(f"  {head[0]:<{w}}  {head[1]:>14}  {head[2]:>14}  {head[3]:>6}")
                for r in rows:
                    print(f"  {r[0]:<{w}}  {r[1]:>14}  {r[2]:>14}  {r[3]:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
