#!/usr/bin/env bash
# Peak memory against run length for the commands memory-samples.sh does not run: probe,
# sweep, recovery, fill-sweep and history. Emulated drives only (emu: presets and model runs):
# nothing is written to any device.
#
#   [SLCCACHE=path/to/slccache] [COMMANDS="probe sweep recovery fill-sweep history"]
#   [PROBE_SECONDS="60 180"] [SWEEP_SECONDS="10 60 300"] [CACHE_TB="0.5 5 20"]
#   [LONG_SAMPLES="864000 8640000"] [RUNS="20 200"] [OUT=dir] scripts/memory-experiments.sh
#
# Each run under /usr/bin/time -v, one row per command and length (samples, run length,
# maximum resident set size, CPU and wall-clock time):
#   probe       probe emu:960evo-500g --interval 10ms --duration S --no-early-stop, in real
#               time, for each S in PROBE_SECONDS; again with SLCCACHE_MAX_KEPT=4096 (the
#               hidden limit of the kept timeline, 262,144 samples by default, lowered so that
#               a few minutes straddle it: the kept timeline merges past it)
#   sweep       sweep emu:960evo-500g --qd 32 --jobs 1 --point-duration S, one point in real
#               time, for each S in SWEEP_SECONDS, and --simulate with a point of 10 h (a point
#               samples at a twentieth of its length: 20 samples however long it lasts)
#   recovery    recovery --simulate --interval 10ms --idle 1s of a model with a cache of C TB
#               (emu:960evo-500g,capacity=4xC TB,cache=C TB) for each C in CACHE_TB: the first
#               burst writes the whole cache, one 10 ms sample per 18 MB
#   fill-sweep  fill-sweep --simulate --levels 0 --idle 1s --interval 10ms of the same models
#   history     history of a drive whose store holds one simulate run of N samples (each N in
#               LONG_SAMPLES, 10 ms), and of a store holding R short runs (each R in RUNS)
# The samples column counts rows of the run's CSVs (a burst's in bursts/). Nothing is recorded
# in the user's results library. OUT (a temporary folder by default, removed at the end
# unless given) keeps the outputs.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}
commands=${COMMANDS:-"probe sweep recovery fill-sweep history"}
probe_seconds=${PROBE_SECONDS:-"60 180"}
sweep_seconds=${SWEEP_SECONDS:-"10 60 300"}
cache_tb=${CACHE_TB:-"0.5 5 20"}
long_samples=${LONG_SAMPLES:-"864000 8640000"}
runs=${RUNS:-"20 200"}
keep=${OUT:+1}
out=${OUT:-$(mktemp -d)}
[ -x "$bin" ] || { echo "no binary at $bin: cargo build --release, or give SLCCACHE" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT
# No run may touch the user's store, whatever the environment says.
export SLCCACHE_DB="$out/unused.sqlite"

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

# Data rows of the CSVs given (their header lines left out).
rows_of() { awk 'FNR > 1 {n++} END {print n + 0}' "$@"; }

row() { # command samples length rss_kB cpu_s wall_s
    printf '| %s | %s | %s | %.1f | %s | %s |\n' "$1" "$2" "$3" \
        "$(awk -v r="$4" 'BEGIN {print r / 1024}')" "$5" "$6"
}

hours() { awk -v s="$1" 'BEGIN {if (s >= 3600) printf "%.1f h", s / 3600; else if (s >= 60) printf "%.0f min", s / 60; else printf "%.0f s", s}'; }

# The run's length: the last time in a timeline CSV.
length_of() { hours "$(awk -F, 'NR > 1 {t = $1} END {print t + 0}' "$1")"; }

echo "$(date -u +'%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | samples | run length | peak RSS (MB) | CPU (s) | wall (s) |"
echo "|---|---:|---:|---:|---:|---:|"

if has probe; then
    for kept in "" 4096; do
        for s in $probe_seconds; do
            d="$out/probe-$s-${kept:-full}"
            rm -rf "$d"
            read -r rss cpu wall < <(SLCCACHE_MAX_KEPT=$kept measure "$d.time" "$bin" probe \
                emu:960evo-500g --interval 10ms --duration "${s}s" --no-early-stop --seed 1 \
                --no-record -q --out "$d")
            name=probe
            [ -z "$kept" ] || name="probe (SLCCACHE_MAX_KEPT=$kept)"
            row "$name" "$(rows_of "$d/timeline.csv")" "$(length_of "$d/timeline.csv")" \
                "$rss" "$cpu" "$wall"
        done
    done
fi

if has sweep; then
    for s in $sweep_seconds; do
        d="$out/sweep-$s"
        rm -rf "$d"
        read -r rss cpu wall < <(measure "$d.time" "$bin" sweep emu:960evo-500g --qd 32 \
            --jobs 1 --point-duration "${s}s" --seed 1 --no-record -q --out "$d")
        row "sweep (one point)" 20 "$(hours "$s")" "$rss" "$cpu" "$wall"
    done
    d="$out/sweep-sim"
    rm -rf "$d"
    read -r rss cpu wall < <(measure "$d.time" "$bin" sweep emu:960evo-500g --simulate \
        --qd 32 --jobs 1 --point-duration 10h --seed 1 --no-record -q --out "$d")
    row "sweep --simulate (one point)" 20 "10 h" "$rss" "$cpu" "$wall"
fi

for cmd in recovery fill-sweep; do
    has "$cmd" || continue
    for c in $cache_tb; do
        d="$out/$cmd-$c"
        rm -rf "$d"
        cap=$(awk -v c="$c" 'BEGIN {print 4 * c}')
        model="emu:960evo-500g,capacity=${cap}TB,cache=${c}TB"
        if [ "$cmd" = recovery ]; then
            extra=(--idle 1s)
        else
            extra=(--levels 0 --idle 1s)
        fi
        read -r rss cpu wall < <(measure "$d.time" "$bin" "$cmd" "$model" --simulate \
            --interval 10ms "${extra[@]}" --seed 1 --no-record -q --out "$d")
        longest=$(for f in "$d"/bursts/*.csv; do echo "$(rows_of "$f") $f"; done | sort -n | tail -n 1)
        row "$cmd (cache ${c} TB; longest burst ${longest%% *}, $(length_of "${longest#* }"))" \
            "$(rows_of "$d"/bursts/*.csv)" "$(hours "$(awk -F, 'FNR > 1 {t[FILENAME] = $1} END {for (f in t) s += t[f]; print s}' "$d"/bursts/*.csv)")" \
            "$rss" "$cpu" "$wall"
    done
done

if has history; then
    for n in $long_samples; do
        db="$out/history-long-$n.sqlite"
        rm -f "$db"
        secs=$(awk -v n="$n" 'BEGIN {printf "%.3f", n * 0.01}')
        "$bin" simulate 960evo-500g --duration "${secs}s" --max-bytes 10PB --no-early-stop \
            --interval 10ms --seed 1 -q --db "$db" --out "$out/history-long-$n" >/dev/null
        rm -rf "$out/history-long-$n"
        read -r rss cpu wall < <(measure "$out/history-long-$n.time" "$bin" history 960 \
            --db "$db" -q --out "$out/history-long-$n-out")
        row "history (one run)" "$n" "$(hours "$secs")" "$rss" "$cpu" "$wall"
    done
    for r in $runs; do
        db="$out/history-runs-$r.sqlite"
        rm -f "$db"
        for i in $(seq 1 "$r"); do
            "$bin" simulate 960evo-500g --max-bytes 40GB --seed "$i" -q --db "$db" \
                --out "$out/history-runs-$r-$i" >/dev/null
            rm -rf "$out/history-runs-$r-$i"
        done
        read -r rss cpu wall < <(measure "$out/history-runs-$r.time" "$bin" history 960 \
            --db "$db" -q --out "$out/history-runs-$r-out")
        row "history ($r runs)" "$r runs" "-" "$rss" "$cpu" "$wall"
    done
fi
[ -z "$keep" ] || echo "outputs in $out" >&2
