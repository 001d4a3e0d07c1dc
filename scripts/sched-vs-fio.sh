#!/usr/bin/env bash
# Where the time of a write goes, slccache against fio, thread by thread: CPU time, time spent
# runnable but waiting for a CPU (the scheduler's run delay, /proc/PID/task/TID/schedstat) and
# context switches of each tool's threads, of the kernel's workers (the loop device's kworkers
# do its copies) and of the CPU hog, per write, read over the middle of each run.
#
#   sudo scripts/sched-vs-fio.sh            # 128K sequential QD32 on a loop device, beside a hog
#   ROW=qd1 LOAD=0 ROUNDS=4 sudo scripts/sched-vs-fio.sh
#   TARGET=file sudo scripts/sched-vs-fio.sh
#
# ROW: 128k (default), qd1 or qd32 (4K random writes), or 1m (1M sequential, QD8). LOAD=1
# (default) runs one busy loop per CPU beside both tools, as scripts/bench-vs-fio.sh's LOAD=1
# does. ROUNDS (3) pairs of runs of SECS (6) seconds each, alternating which tool goes first.
# fio runs at its best here (--iomem=mmaphuge, fixed buffers, registered files), with two huge
# pages per MiB it needs reserved for the run and the old reservation put back after.
#
# TARGET=loop (default) is a loop device over a file in /dev/shm; TARGET=file is a 2 GiB file
# in output/. The script makes, fills and removes either, and writes to nothing else. The
# kernel's workers counted are the kworkers (the loop device's copies, the file system's
# completions) and ksoftirqd. Needs root (losetup, huge pages) and fio.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}
row=${ROW:-128k}
rounds=${ROUNDS:-3}
secs=${SECS:-6}
load=${LOAD:-1}
target=${TARGET:-loop}

case $row in
    128k) bs=128K qd=32 pat=seqwrite rw=write ;;
    qd1) bs=4K qd=1 pat=randwrite rw=randwrite ;;
    qd32) bs=4K qd=32 pat=randwrite rw=randwrite ;;
    1m) bs=1M qd=8 pat=seqwrite rw=write ;;
    *)
        echo "unknown ROW '$row' (rows: 128k qd1 qd32 1m)" >&2
        exit 2
        ;;
esac
[[ $target == loop || $target == file ]] || { echo "unknown TARGET '$target' (loop or file)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "needs root (a loop device and huge pages)" >&2; exit 2; }
command -v fio >/dev/null || { echo "needs fio (apt-get install -y fio)" >&2; exit 2; }
[[ -x $bin ]] || { echo "no slccache binary at $bin (cargo build --release)" >&2; exit 2; }
((secs >= 4)) || { echo "SECS must be at least 4 (the reading spans the middle 2.5 s)" >&2; exit 2; }

work=$(mktemp -d)
if [[ $target == loop ]]; then
    img=/dev/shm/slccache-sched-$$.img
else
    mkdir -p "$here/output"
    img=$here/output/slccache-sched-$$.img
fi
dev=""
hogs=()
huge_before=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
    for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
    if [[ -n $dev ]]; then losetup -d "$dev" 2>/dev/null || true; fi
    rm -f "$img"
    rm -rf "$work"
    echo "$huge_before" >/proc/sys/vm/nr_hugepages
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 2G "$img"
# Filled once, so that no run pays for allocating its blocks (or tmpfs pages).
dd if=/dev/zero of="$img" bs=1M count=2048 conv=notrunc,fsync status=none
if [[ $target == loop ]]; then
    dev=$(losetup -f --show "$img")
    path=$dev
    keep=(--destroy-data --assume-written)
else
    path=$img
    keep=(--overwrite)
fi
echo $((huge_before + 16)) >/proc/sys/vm/nr_hugepages
if [[ $load == 1 ]]; then
    for ((c = 0; c < $(nproc); c++)); do
        setsid bash -c 'while :; do :; done' &
        hogs+=($!)
    done
fi

# One line per thread of the given processes: "tid comm cpu_ns wait_ns voluntary involuntary".
snap() {
    local p t cpu wait slices
    for p in "$@"; do
        for t in /proc/"$p"/task/*; do
            read -r cpu wait slices <"$t/schedstat" 2>/dev/null || continue
            echo "${t##*/} $(tr ' ' _ <"$t/comm") $cpu $wait" \
                "$(awk '/^voluntary_ctxt/{v=$2} /^nonvoluntary_ctxt/{n=$2} END{print v, n}' "$t/status")"
        done
    done
}

echo "round,tool,iops,tool_cpu_us,tool_wait_us,tool_switches_per_s,kworker_cpu_us,kworker_cpu_pct,hog_cpu_pct" >"$work/rows.csv"
for ((r = 1; r <= rounds; r++)); do
    if ((r % 2 == 1)); then order="slccache fio"; else order="fio slccache"; fi
    for tool in $order; do
        out=$work/$tool-$r
        mkdir -p "$out"
        if [[ $tool == slccache ]]; then
            setsid -w "$bin" probe "$path" --no-record "${keep[@]}" --pattern "$pat" --bs "$bs" \
                --qd "$qd" --duration "${secs}s" --max-bytes 1PB --interval 1s --quiet \
                --out "$out" >/dev/null &
        else
            fio --name=sched --iomem=mmaphuge --filename="$path" --size=2G --rw="$rw" --bs="$bs" \
                --iodepth="$qd" --ioengine=io_uring --fixedbufs=1 --registerfiles=1 --direct=1 \
                --time_based=1 --runtime="$secs" --randrepeat=0 --output-format=json \
                --output="$out/fio.json" >/dev/null &
        fi
        tool_pid=$!
        sleep 1.5
        # The tool's processes (fio runs its job in a child), the kernel's workers, the hogs.
        pids="$tool_pid $(pgrep -d ' ' -P "$tool_pid" || true) $(pgrep -d ' ' '^(kworker|ksoftirqd)' || true) ${hogs[*]}"
        # shellcheck disable=SC2086
        snap $pids >"$out/a"
        sleep 2.5
        # shellcheck disable=SC2086
        snap $pids >"$out/b"
        wait "$tool_pid"
        python3 - "$tool" "$out" "$r" 2.5 >>"$work/rows.csv" <<'EOF'
import json, sys
tool, out, r, span = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
if tool == "slccache":
    t = json.load(open(f"{out}/summary.json"))["totals"]
    iops = t["writes"] / t["duration_s"]
else:
    iops = json.load(open(f"{out}/fio.json"))["jobs"][0]["write"]["iops"]
def read(name):
    return {l.split()[0]: l.split() for l in open(f"{out}/{name}")}
a, b = read("a"), read("b")
groups = {"tool": [0, 0, 0], "kworker": [0, 0, 0], "hog": [0, 0, 0]}
for tid, v in b.items():
    if tid not in a:
        continue
    d = [int(v[i]) - int(a[tid][i]) for i in (2, 3)] + [int(v[4]) + int(v[5]) - int(a[tid][4]) - int(a[tid][5])]
    g = "kworker" if v[1].startswith(("kworker", "ksoftirqd")) else ("hog" if v[1] == "bash" else "tool")
    groups[g] = [x + y for x, y in zip(groups[g], d)]
writes = iops * span
us = lambda ns: ns / 1e3 / max(writes, 1)
pct = lambda ns: 100 * ns / 1e9 / span
t, k, h = groups["tool"], groups["kworker"], groups["hog"]
print(f"{r},{tool},{iops:.0f},{us(t[0]):.2f},{us(t[1]):.2f},{t[2] / span:.0f},{us(k[0]):.2f},{pct(k[0]):.1f},{pct(h[0]):.1f}")
EOF
        tail -1 "$work/rows.csv" >&2
    done
done

python3 - "$work/rows.csv" "$row" "$load" "$target" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"## {sys.argv[4]}, {sys.argv[2]}, {'beside a CPU hog' if sys.argv[3] == '1' else 'quiet'}: per write, over the middle 2.5 s of each run")
print()
print("| round | tool | IOPS | tool's threads: CPU µs | waiting for a CPU µs | switches/s | kernel workers: CPU µs | their share of one CPU | hogs' share |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
for x in rows:
    print(f"| {x['round']} | {x['tool']} | {int(x['iops']):,} | {x['tool_cpu_us']} | {x['tool_wait_us']} | {int(x['tool_switches_per_s']):,} | {x['kworker_cpu_us']} | {x['kworker_cpu_pct']} % | {x['hog_cpu_pct']} % |")
print()
for tool in ("slccache", "fio"):
    s = [x for x in rows if x["tool"] == tool]
    med = lambda k: statistics.median(float(x[k]) for x in s)
    print(f"- {tool}: median {med('iops'):,.0f} IOPS; its threads {med('tool_cpu_us'):.2f} µs of CPU and "
          f"{med('tool_wait_us'):.2f} µs waiting per write; the kernel's workers {med('kworker_cpu_us'):.2f} µs per write "
          f"at {med('kworker_cpu_pct'):.1f} % of one CPU")
pairs = {}
for x in rows:
    pairs.setdefault(x["round"], {})[x["tool"]] = float(x["iops"])
ratios = sorted(p["slccache"] / p["fio"] for p in pairs.values() if len(p) == 2)
if ratios:
    print(f"- slccache/fio per round: {', '.join(f'{q:.2f}' for q in ratios)} (median {statistics.median(ratios):.2f})")
EOF
