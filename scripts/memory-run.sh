#!/usr/bin/env bash
# Does a long probe's memory grow with the number of writes?
#
#   [SECS=600] [EVERY=30] [INTERVAL=1s] [SIZE=2GiB] [TARGET=loop|instant] [OUT=dir] \
#   scripts/memory-run.sh
#
# Runs `slccache probe --pattern randwrite --bs 4k --qd 32` for SECS seconds and reads the
# probe's resident memory (VmRSS) and its peak so far (VmHWM) from /proc every EVERY seconds,
# next to the writes completed by then (from the timeline the probe is writing). Prints one
# row per reading and, at the end, the growth of the peak between the first reading after the
# warm-up (the first minute, or the first reading when the run is shorter) and the last.
# INTERVAL is the probe's sampling interval: the probe keeps one timeline row per interval,
# so a shorter one tells memory that grows with the rows apart from memory that grows with
# the writes.
#
# TARGET=loop (the default; needs root): a loop device over a SIZE file on /dev/shm (tmpfs),
# removed at the end, also on Ctrl-C. TARGET=instant: the emulated drive that completes every
# write at once (`emu:instant`), so the writer runs at its own ceiling: the most writes per
# second this machine allows, and no root needed.
# SUMMARY=path/to/memory.csv (with the SECS, TARGET and INTERVAL of that run) only prints its
# table.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}
secs=${SECS:-600}
every=${EVERY:-30}
interval=${INTERVAL:-1s}
size=${SIZE:-2GiB}
target=${TARGET:-loop}
out=${OUT:-$here/output/memory-run-$(date +%Y%m%d-%H%M%S)}

summary() { # memory.csv target secs interval
python3 - "$@" <<'EOF'
import csv, sys
every_row = [r for r in csv.DictReader(open(sys.argv[1]))]
# Readings taken while the probe still wrote; the ones after its duration are the report and
# charts being made, given apart.
rows = [r for r in every_row if int(r["t_s"]) < int(sys.argv[3])]
if not rows:
    sys.exit("no readings (the probe ended before the first one)")
warm = next((r for r in rows if int(r["t_s"]) >= 60), rows[0])
last = rows[-1]
print(f"4K random write, QD32, target {sys.argv[2]}, {sys.argv[3]} s, interval {sys.argv[4]}; a reading every "
      f"{int(rows[1]['t_s']) - int(rows[0]['t_s']) if len(rows) > 1 else 0} s")
print()
print("| t (s) | writes | RSS (MB) | peak RSS (MB) |")
print("|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['t_s']} | {int(r['writes']):,} | {int(r['rss_kb']) / 1000:.1f} "
          f"| {int(r['peak_kb']) / 1000:.1f} |")
dw = int(last["writes"]) - int(warm["writes"])
dp = int(last["peak_kb"]) - int(warm["peak_kb"])
print()
dt = int(last["t_s"]) - int(warm["t_s"])
print(f"from t = {warm['t_s']} s to {last['t_s']} s: {dw:,} more writes, peak RSS "
      f"{dp / 1000:+.1f} MB ({dp * 1000 / max(dw, 1):.4f} bytes per write, "
      f"{dp / max(dt, 1):.2f} kB per second)")
after = every_row[len(rows):]
if after:
    print(f"peak RSS at the end, while the report and charts were made: "
          f"{max(int(r['peak_kb']) for r in after) / 1000:.1f} MB")
EOF
}

if [[ -n ${SUMMARY:-} ]]; then
    summary "$SUMMARY" "$target" "$secs" "$interval"
    exit 0
fi

[[ -x $bin ]] || (cd "$here" && cargo build --release --quiet)
mkdir -p "$out"

loopdev=""
shmfile=""
probe=""
cleanup() {
    if [[ -n $probe ]]; then kill -INT "$probe" 2>/dev/null || true; wait "$probe" 2>/dev/null || true; fi
    if [[ -n $loopdev ]]; then losetup -d "$loopdev" 2>/dev/null || true; fi
    if [[ -n $shmfile ]]; then rm -f "$shmfile"; fi
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

extra=()
case $target in
    loop)
        [[ $(id -u) == 0 ]] || { echo "TARGET=loop needs root (or use TARGET=instant)" >&2; exit 2; }
        s=${size%B}
        bytes=$(numfmt --from=iec "${s%i}")
        shmfile=/dev/shm/slccache-memory-$$.img
        truncate -s "$bytes" "$shmfile"
        loopdev=$(losetup -f --show "$shmfile")
        path=$loopdev
        extra=(--destroy-data)
        ;;
    instant) path=emu:instant ;;
    *)
        echo "unknown TARGET '$target' (loop or instant)" >&2
        exit 2
        ;;
esac

setsid -w "$bin" probe "$path" "${extra[@]}" --pattern randwrite --bs 4k --qd 32 \
    --duration "${secs}s" --max-bytes 1PB --interval "$interval" --no-early-stop --quiet --out "$out/probe" \
    >/dev/null &
probe=$!

kb() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$probe/status" 2>/dev/null || true; }
writes() { # writes completed so far: the last bytes_total of the timeline, over 4 KiB
    local last
    last=$(tail -n 1 "$out/probe/timeline.csv" 2>/dev/null | cut -d, -f4)
    [[ $last =~ ^[0-9]+$ ]] && echo $((last / 4096)) || echo 0
}

echo "t_s,writes,rss_kb,peak_kb" >"$out/memory.csv"
start=$(date +%s)
while kill -0 "$probe" 2>/dev/null; do
    sleep "$every"
    rss=$(kb VmRSS)
    peak=$(kb VmHWM)
    [[ -n $rss ]] || break
    t=$(($(date +%s) - start))
    echo "$t,$(writes),$rss,$peak" | tee -a "$out/memory.csv" >&2
done
wait "$probe" || true
probe=""

summary "$out/memory.csv" "$target" "$secs" "$interval"
echo "outputs: $out" >&2
