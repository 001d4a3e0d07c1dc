#!/usr/bin/env bash
# Peak memory against run length, for each command that reads or writes a whole run.
#
#   [SLCCACHE=path/to/slccache] [INTERVAL_MS=10] [SAMPLES="864000 4320000 8640000"]
#   [COMMANDS="simulate analyze compare import export"] [OUT=dir] scripts/memory-samples.sh
#
# For each sample count N in SAMPLES (by default 2.4 h, 12 h and 24 h at 10 ms), runs under
# /usr/bin/time -v:
#   simulate  slccache simulate 960evo-500g --duration (N x INTERVAL_MS) --max-bytes 10PB
#             --no-early-stop --interval INTERVAL_MS --no-record  (N rows of timeline.csv)
#   analyze   slccache analyze of that timeline.csv --no-record
#   compare   slccache compare of that run folder with itself (two runs of N samples)
#   import    slccache runs import of that folder into a store of its own (SQLite): what
#             every command that records a run does at its end
#   export    slccache runs export of that run from the store
# and prints one row per command and count: the samples, the run's length, the maximum
# resident set size, the CPU time and the wall-clock time. With flat memory the peak does not
# grow with N. Nothing is recorded in the user's results library. Run it on a quiet machine
# for figures; OUT (a temporary folder by default, removed at the end unless given) keeps the
# outputs, about 90 bytes per sample for each timeline.csv.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}
interval_ms=${INTERVAL_MS:-10}
samples=${SAMPLES:-"864000 4320000 8640000"}
commands=${COMMANDS:-"simulate analyze compare import export"}
keep=${OUT:+1}
out=${OUT:-$(mktemp -d)}
[ -x "$bin" ] || { echo "no binary at $bin: cargo build --release, or give SLCCACHE" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT

has() { [[ " $commands " == *" $1 "* ]]; }

# Runs the command after the log name under /usr/bin/time -v; prints "max_rss_kB cpu_s wall_s".
measure() {
    local log=$1; shift
    if ! /usr/bin/time -v "$@" >"$log.stdout" 2>"$log"; then
        echo "failed: $* (see $log)" >&2
        tail -n 5 "$log" >&2
        exit 1
    fi
    awk -F': ' '/Maximum resident set size/ {rss=$2}
                /User time/ {u=$2} /System time/ {s=$2}
                /Elapsed \(wall clock\)/ {n=split($2, p, ":"); w=0; for (i=1; i<=n; i++) w=w*60+p[i]}
                END {printf "%s %.1f %.1f\n", rss, u+s, w}' "$log"
}

row() { # command samples rss_kB cpu_s wall_s
    local hours
    hours=$(awk -v n="$2" -v ms="$interval_ms" 'BEGIN {printf "%.1f h", n * ms / 3.6e6}')
    printf '| %s | %s | %s | %.1f | %s | %s |\n' "$1" "$2" "$hours" \
        "$(awk -v r="$3" 'BEGIN {print r / 1024}')" "$4" "$5"
}

echo "interval ${interval_ms} ms; $(date -u +'%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | samples | run length | peak RSS (MB) | CPU (s) | wall (s) |"
echo "|---|---:|---:|---:|---:|---:|"
for n in $samples; do
    secs=$(awk -v n="$n" -v ms="$interval_ms" 'BEGIN {printf "%.3f", n * ms / 1000}')
    sim="$out/sim-$n"
    db="$out/store-$n.sqlite"
    rm -rf "$sim" "$sim-analyze" "$sim-compare" "$sim-export" "$db"
    # The run itself is always made (the others read it); its row only when asked for.
    read -r rss cpu wall < <(measure "$out/sim-$n.time" "$bin" simulate 960evo-500g \
        --duration "${secs}s" --max-bytes 10PB --no-early-stop --interval "${interval_ms}ms" \
        --seed 1 --no-record -q --out "$sim")
    rows=$(($(wc -l <"$sim/timeline.csv") - 1))
    has simulate && row simulate "$rows" "$rss" "$cpu" "$wall"
    if has analyze; then
        read -r rss cpu wall < <(measure "$out/analyze-$n.time" "$bin" analyze \
            "$sim/timeline.csv" --no-record -q --out "$sim-analyze")
        row analyze "$rows" "$rss" "$cpu" "$wall"
    fi
    if has compare; then
        read -r rss cpu wall < <(measure "$out/compare-$n.time" "$bin" compare "$sim" "$sim" \
            -q --out "$sim-compare")
        row "compare (two runs)" "$rows" "$rss" "$cpu" "$wall"
    fi
    if has import || has export; then
        read -r rss cpu wall < <(measure "$out/import-$n.time" "$bin" runs import "$sim" \
            --db "$db" -q)
        has import && row "runs import" "$rows" "$rss" "$cpu" "$wall"
    fi
    if has export; then
        read -r rss cpu wall < <(measure "$out/export-$n.time" "$bin" runs export 1 \
            --db "$db" --out "$sim-export" -q)
        row "runs export" "$rows" "$rss" "$cpu" "$wall"
    fi
    rm -rf "$sim-analyze" "$sim-compare" "$sim-export"
done
[ -z "$keep" ] || echo "outputs in $out" >&2
