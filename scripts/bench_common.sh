# bench_common.sh -- helpers shared by the benchmark scripts (sourced, not run).
# shellcheck shell=bash
# The caller sets QUIET_WAIT (seconds wait_quiet may wait).

# busy CPU time of the whole machine so far, in seconds (all cores)
busy_seconds() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { print ($2 + $3 + $4 + $7 + $8 + $9) / hz; exit }' /proc/stat; }

# wait (at most QUIET_WAIT seconds) until the machine is idle: less than 10%
# of one core busy over 2 s
wait_quiet() {
  local waited=0 b0 b1
  while [ "$waited" -lt "${QUIET_WAIT:-0}" ]; do
    b0=$(busy_seconds)
    sleep 2
    b1=$(busy_seconds)
    awk -v a="$b0" -v b="$b1" 'BEGIN { exit !((b - a) / 2 < 0.1) }' && return 0
    sleep 8
    waited=$((waited + 10))
  done
}

# median of the numbers on stdin, one per line ("nan" when there are none)
median() { sort -g | awk 'NF { v[++n] = $1 } END { if (n) print (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; else print "nan" }'; }
