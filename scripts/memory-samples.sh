#!/usr/bin/env bash
# Does memory stay flat as a run's sample count grows?
#
#   [SLCCACHE=path/to/slccache] [HOURS="83 333"] [OUT=dir] scripts/memory-samples.sh
#
# For each number of hours in HOURS (83 h and 333 h at 1 s intervals: about 300k and 1.2M
# samples), runs
#   slccache simulate 960evo-500g --duration Nh --max-bytes 10PB --no-early-stop --interval 1s
# and then `slccache analyze` of the timeline.csv it wrote, each under /usr/bin/time -v, and
# prints one row per run: the command, the samples (rows of timeline.csv), the maximum
# resident set size and the CPU time. Past timeline::bounded::MAX_KEPT (262,144) samples the
# kept timeline is merged, so with flat memory the two counts give about the same peak.
# Nothing is recorded in the results library (--no-record). Run it on a quiet machine for
# figures; OUT (a temporary folder by default) keeps the outputs.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}
hours=${HOURS:-"83 333"}
out=${OUT:-$(mktemp -d)}
[ -x "$bin" ] || { echo "no binary at $bin: cargo build --release, or give SLCCACHE" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$out"

# Runs the command after `--` under /usr/bin/time -v; prints "max_rss_kB cpu_s".
measure() {
    local log=$1; shift
    /usr/bin/time -v "$@" >"$log.stdout" 2>"$log"
    awk -F': ' '/Maximum resident set size/ {rss=$2}
                /User time/ {u=$2} /System time/ {s=$2}
                END {printf "%s %.1f\n", rss, u+s}' "$log"
}

printf '%-9s %6s %10s %12s %8s\n' command hours samples max_rss_MB cpu_s
for h in $hours; do
    sim="$out/sim-${h}h"
    rm -rf "$sim" "$sim-analyze"
    read -r rss cpu < <(measure "$out/sim-${h}h.time" "$bin" simulate 960evo-500g \
        --duration "${h}h" --max-bytes 10PB --no-early-stop --interval 1s --seed 1 \
        --no-record -q --out "$sim")
    n=$(($(wc -l <"$sim/timeline.csv") - 1))
    printf '%-9s %6s %10s %12.1f %8s\n' simulate "$h" "$n" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')" "$cpu"
    read -r rss cpu < <(measure "$out/analyze-${h}h.time" "$bin" analyze "$sim/timeline.csv" \
        --no-record -q --out "$sim-analyze")
    printf '%-9s %6s %10s %12.1f %8s\n' analyze "$h" "$n" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')" "$cpu"
done
echo "outputs in $out"
