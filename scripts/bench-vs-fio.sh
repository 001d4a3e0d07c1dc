#!/usr/bin/env bash
# slccache against fio, row by row: is the tool ever the bottleneck?
#
#   [ROUNDS=3] [SECS=10] [TARGETS="loop file"] [LOAD=0|1] [ROWS="qd1 qd32 qd32x2 128k 1m randread"] \
#   [SIZE=2GiB] [FIO_MEM="malloc mmaphuge"] [OUT=dir] [PLAN=1] scripts/bench-vs-fio.sh
#
# PLAN=1 prints the runs it would make, in order (one "target row round tool" line each), and
# stops.
#
# fio is run at its best as well as at its defaults: FIO_MEM lists its buffer kinds (fio's
# --iomem): `malloc` (its default) and `mmaphuge` (huge-page buffers, as slccache's are; the
# script reserves 2 MiB huge pages for it in /proc/sys/vm/nr_hugepages and gives the old count
# back at the end). Each row's ratio is given against each, with its spread. A third kind,
# `refill`, is fio mmaphuge with `--refill_buffers=1`: fresh random data for every write, as
# slccache writes, where fio by default writes one buffer again, slightly scrambled; with more
# than one peer and not fio's two defaults, the tools take each place in a round in turn.
# The QD1 and QD32 rows run at least 8 rounds whatever ROUNDS says: their gap is smaller than
# the spread between runs on a small VM.
#
# For each target and each row, runs fio and `slccache probe` in turn, ROUNDS rounds of SECS
# seconds each. With one peer: slccache first in odd rounds, fio first in even ones. With both
# fio kinds, fio at its defaults opens every round and slccache and fio mmaphuge take the
# second and third places in turn (odd rounds: fio, slccache, fio mmaphuge; even rounds: fio,
# fio mmaphuge, slccache), so that each of the two follows fio's slower default run as often as
# it follows the other: on a target that the virtual disk limits, a run after a slow one
# starts on a device with less backlog (docs/PERFORMANCE.md). Same block
# size, queue depth, jobs and target. fio gets ioengine=io_uring, fixedbufs, registerfiles,
# direct=1 (slccache always runs io_uring with registered buffers and files and O_DIRECT).
#
# Targets (created here, removed at the end, also on Ctrl-C):
#   loop: a loop device over a file on /dev/shm (tmpfs), SIZE bytes; needs root;
#   file: a SIZE file on the root filesystem (under output/), laid out once before the runs.
#
# Printed per row: the median over the rounds of IOPS and MB/s for both tools, the ratio
# slccache/fio of the medians, and CPU µs per I/O (a write, or a read in the read row) for
# both. CPU is the writer threads' own CPU (user + system) over the run: fio's per-job usr_cpu + sys_cpu (its JSON output), and
# slccache's per-interval cpu_pct column of timeline.csv (thread CPU clock), so neither side
# counts set-up, reports or charts.
#
# Scheduling: fio runs each job in a process of its own that calls setsid(), so where the
# kernel groups tasks by session for fairness (autogroup, /proc/sys/kernel/sched_autogroup_enabled
# = 1, the default on most desktops and on this VM) each fio job gets a CPU share of its own,
# while a program started from a shell shares its session's. The script therefore starts
# slccache with `setsid -w` too, so both writers compete for the CPU on the same terms.
#
# LOAD=1 starts one busy loop per core beside both tools (the "loaded" variant), each in a
# session of its own (like another user's work); they are stopped at the end.
# Results: $OUT/results.md (the table) and $OUT/runs.csv (every run).
# SUMMARY=path/to/runs.csv only prints the table of a run made before (or still going).
# Needs fio (installed with apt-get when missing and running as root).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}
rounds=${ROUNDS:-3}
secs=${SECS:-10}
targets=${TARGETS:-loop file}
rows=${ROWS:-qd1 qd32 qd32x2 128k 1m randread}
size=${SIZE:-2GiB}
load=${LOAD:-0}
fio_mem=${FIO_MEM:-malloc mmaphuge}
out=${OUT:-$here/output/bench-vs-fio-$(date +%Y%m%d-%H%M%S)}

# The table: medians per target and row over the rounds in runs.csv.
summary() { # runs.csv load rounds secs
python3 - "$@" <<'EOF'
import csv, statistics, sys
runs, load, rounds, secs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
titles = {"qd1": "4K random write, QD1", "qd32": "4K random write, QD32",
          "qd32x2": "4K random write, QD32, 2 jobs", "128k": "128K sequential write, QD32",
          "1m": "1M sequential write, QD8", "randread": "4K random read, QD32"}
data = {}
rounds_of = {}
for r in csv.DictReader(open(runs)):
    k = (r["target"], r["row"])
    rounds_of.setdefault(k, {}).setdefault(r["round"], {})[r["tool"]] = float(r["iops"])
    data.setdefault(k, {}).setdefault(r["tool"], []).append(
        (float(r["iops"]), float(r["bytes_per_sec"]), float(r["cpu_us_per_write"])))
print(f"{'loaded (one busy loop per core)' if load == '1' else 'no extra load'}; "
      f"median of {rounds} rounds of {secs} s per tool")
print()
peers = [t for t in ("fio", "fio-huge", "fio-refill") if any(t in v for v in data.values())]
names = {"fio": "fio", "fio-huge": "fio mmaphuge", "fio-refill": "fio mmaphuge refill_buffers"}
head = "| target | row | rounds | slccache IOPS |"
rule = "|---|---|---:|---:|"
for t in peers:
    head += f" {names[t]} IOPS | ratio | spread |"
    rule += "---:|---:|---|"
head += " CPU µs/I/O slccache |" + "".join(f" {names[t]} |" for t in peers)
rule += "---:|" * (1 + len(peers))
print("Ratio: slccache's median IOPS over the peer's; spread: the lowest and highest of the "
      "per-round ratios (each round runs both tools back to back).")
print()
print(head)
print(rule)
for (tgt, row), tools in data.items():
    med = {t: [statistics.median(x[i] for x in v) for i in range(3)] for t, v in tools.items()}
    s = med.get("slccache")
    if not s:
        continue
    line = f"| {tgt} | {titles.get(row, row)} | {len(tools['slccache'])} | {s[0]:,.0f} |"
    for t in peers:
        f = med.get(t)
        if not f:
            line += " - | - | - |"
            continue
        ratio = s[0] / f[0] if f[0] > 0 else float("nan")
        pairs = [p["slccache"] / p[t] for p in rounds_of[(tgt, row)].values()
                 if p.get(t, 0) > 0 and "slccache" in p]
        spread = f"{min(pairs):.2f}–{max(pairs):.2f}" if pairs else "-"
        line += f" {f[0]:,.0f} | {ratio:.2f} | {spread} |"
    line += f" {s[2]:.2f} |" + "".join(
        f" {med[t][2]:.2f} |" if t in med else " - |" for t in peers)
    print(line)
EOF
}

if [[ -n ${SUMMARY:-} ]]; then
    summary "$SUMMARY" "$load" "$rounds" "$secs"
    exit 0
fi

# A folder that already holds runs would mix them with this one's: slccache refuses to write
# into it and the table would read the old run's summary.json (seen: identical figures in a
# re-run). Refuse it before anything starts.
if [[ -d $out && -n $(ls -A "$out" 2>/dev/null) ]]; then
    echo "OUT=$out already holds results; give a new or empty folder" >&2
    exit 2
fi

# Row name -> "bs qd jobs slccache-pattern fio-rw".
row_spec() {
    case $1 in
        qd1) echo "4k 1 1 randwrite randwrite" ;;
        qd32) echo "4k 32 1 randwrite randwrite" ;;
        qd32x2) echo "4k 32 2 randwrite randwrite" ;;
        128k) echo "128k 32 1 seqwrite write" ;;
        1m) echo "1M 8 1 seqwrite write" ;;
        randread) echo "4k 32 1 randread randread" ;;
        *)
            echo "unknown row '$1' (rows: qd1 qd32 qd32x2 128k 1m randread)" >&2
            exit 2
            ;;
    esac
}
row_title() {
    case $1 in
        qd1) echo "4K random write, QD1" ;;
        qd32) echo "4K random write, QD32" ;;
        qd32x2) echo "4K random write, QD32, 2 jobs" ;;
        128k) echo "128K sequential write, QD32" ;;
        1m) echo "1M sequential write, QD8" ;;
        randread) echo "4K random read, QD32" ;;
    esac
}

# Rounds of a row: ROUNDS, and at least 8 for the QD1 and QD32 rows.
rounds_for() { # row
    if [[ $1 == qd1 || $1 == qd32 ]] && ((rounds < 8)); then echo 8; else echo "$rounds"; fi
}
# The tools of round $1, in the order they run (see the top of the script).
order_for() { # round
    local peers="fio"
    [[ " $fio_mem " == *" mmaphuge "* ]] && peers="fio fio-huge"
    [[ " $fio_mem " != *" malloc "* ]] && peers="fio-huge"
    if [[ " $fio_mem " == *" refill "* ]]; then
        peers=""
        [[ " $fio_mem " == *" malloc "* ]] && peers="fio"
        [[ " $fio_mem " == *" mmaphuge "* ]] && peers="$peers fio-huge"
        peers="${peers# } fio-refill"
        peers=${peers# }
    fi
    if [[ $peers == *" "* && $peers != "fio fio-huge" ]]; then
        # Each tool in each place in turn: the list turned by one place a round.
        local -a all=(slccache $peers)
        local n=${#all[@]} k=$((($1 - 1) % ${#all[@]})) i out=""
        for ((i = 0; i < n; i++)); do out+="${all[$(((i + k) % n))]} "; done
        echo "${out% }"
    elif [[ $peers == "fio fio-huge" ]]; then
        if (($1 % 2 == 1)); then echo "fio slccache fio-huge"; else echo "fio fio-huge slccache"; fi
    elif (($1 % 2 == 1)); then
        echo "slccache $peers"
    else
        echo "$peers slccache"
    fi
}
# PLAN=1: print the runs, one line each ("target row round tool"), and stop.
if [[ ${PLAN:-0} == 1 ]]; then
    for tgt in $targets; do
        [[ $tgt == loop || $tgt == file ]] || { echo "unknown target '$tgt' (targets: loop file)" >&2; exit 2; }
        for row in $rows; do
            row_spec "$row" >/dev/null
            for ((r = 1; r <= $(rounds_for "$row"); r++)); do
                for tool in $(order_for "$r"); do echo "$tgt $row $r $tool"; done
            done
        done
    done
    exit 0
fi

if ! command -v fio >/dev/null; then
    if [[ $(id -u) == 0 ]]; then
        apt-get install -y fio >/dev/null || { apt-get update >/dev/null && apt-get install -y fio >/dev/null; }
    else
        echo "fio is not installed (apt-get install -y fio)" >&2
        exit 2
    fi
fi
[[ -x $bin ]] || (cd "$here" && cargo build --release --quiet)
mkdir -p "$out"

loopdev=""
shmfile=""
rootfile=""
hogs=()
drop_target() {
    if [[ -n $loopdev ]]; then losetup -d "$loopdev" 2>/dev/null || true; fi
    if [[ -n $shmfile ]]; then rm -f "$shmfile"; fi
    if [[ -n $rootfile ]]; then rm -f "$rootfile"; fi
    loopdev="" shmfile="" rootfile=""
    return 0
}
hugepages_before=""
cleanup() {
    for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
    hogs=()
    drop_target
    if [[ -n $hugepages_before ]]; then
        echo "$hugepages_before" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
        hugepages_before=""
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bytes=$(numfmt --from=iec "${size%B}" 2>/dev/null || echo $((2 << 30)))

setup_target() { # sets $tpath to the path of target $1 (and the globals cleanup needs)
    case $1 in
        loop)
            [[ $(id -u) == 0 ]] || { echo "the loop target needs root" >&2; exit 2; }
            shmfile=/dev/shm/slccache-bench-$$.img
            truncate -s "$bytes" "$shmfile"
            # tmpfs: fill it once so that no run pays for allocating pages.
            dd if=/dev/zero of="$shmfile" bs=1M count=$((bytes >> 20)) conv=notrunc status=none
            loopdev=$(losetup -f --show "$shmfile")
            tpath=$loopdev
            ;;
        file)
            rootfile=$here/output/bench-vs-fio-$$.img
            "$bin" probe "$rootfile" --no-record --size "$bytes" --pattern seqwrite --bs 1M --qd 8 --quiet \
                --out "$out/layout" >/dev/null
            sync
            tpath=$rootfile
            ;;
        *)
            echo "unknown target '$1' (targets: loop file)" >&2
            exit 2
            ;;
    esac
}

# fio's huge-page buffers: 2 MiB pages for its largest row (1M x QD8 = 8 MiB per job), with room.
if [[ " $fio_mem " == *" mmaphuge "* || " $fio_mem " == *" refill "* ]]; then
    if [[ $(id -u) != 0 ]]; then
        echo "FIO_MEM=mmaphuge needs root (to reserve huge pages); running fio with malloc only" >&2
        fio_mem=malloc
    else
        hugepages_before=$(cat /proc/sys/vm/nr_hugepages)
        want=$((hugepages_before + 64))
        echo "$want" >/proc/sys/vm/nr_hugepages
        got=$(cat /proc/sys/vm/nr_hugepages)
        if ((got < hugepages_before + 16)); then
            echo "could reserve only $((got - hugepages_before)) huge pages; fio mmaphuge left out" >&2
            fio_mem=malloc
        fi
    fi
fi

if [[ $load == 1 ]]; then
    for ((c = 0; c < $(nproc); c++)); do
        setsid bash -c 'while :; do :; done' &
        hogs+=($!)
    done
    echo "CPU hog: ${#hogs[@]} busy loops (pids ${hogs[*]})" >&2
fi

# One slccache run; prints "iops bytes_per_sec cpu_us_per_write".
run_slccache() { # target bs qd jobs pattern dir
    local t=$1 bs=$2 qd=$3 jobs=$4 pat=$5 d=$6 extra=()
    # Reads of the loop device: it was filled by dd when it was made.
    [[ -b $t ]] && extra=(--destroy-data --assume-written)
    [[ -f $t ]] && extra=(--overwrite)
    # --max-bytes: fio is time_based over the span; slccache stops after one pass otherwise.
    setsid -w "$bin" probe "$t" --no-record "${extra[@]}" --pattern "$pat" --bs "$bs" --qd "$qd" --jobs "$jobs" \
        --duration "${secs}s" --max-bytes 1PB --interval 1s --quiet --out "$d" >/dev/null ||
        { echo "slccache probe failed (see above); stopping" >&2; return 1; }
    python3 - "$d" "$jobs" <<'EOF'
import csv, json, sys
d, jobs = sys.argv[1], int(sys.argv[2])
s = json.load(open(f"{d}/summary.json"))["totals"]
cpu_s = 0.0
with open(f"{d}/timeline.csv") as f:
    for r in csv.DictReader(f):
        if r.get("cpu_pct"):
            cpu_s += float(r["cpu_pct"]) / 100 * float(r["interval_s"]) * jobs
# I/Os: writes and reads (a read row has only reads).
w, t = s["writes"] + s.get("reads", 0), s["duration_s"]
b = s["bytes"] + s.get("read_bytes", 0)
print(f"{w / t:.1f} {b / t:.1f} {1e6 * cpu_s / max(w, 1):.3f}")
EOF
}

# One fio run; prints "iops bytes_per_sec cpu_us_per_write".
run_fio() { # target bs qd jobs rw dir iomem [extra fio option]
    local t=$1 bs=$2 qd=$3 jobs=$4 rw=$5 d=$6 mem=$7 extra=${8:-}
    mkdir -p "$d"
    # shellcheck disable=SC2086 # the extra option is one word or none
    fio --name=bench --iomem="$mem" --filename="$t" --size="$bytes" --rw="$rw" --bs="$bs" --iodepth="$qd" $extra \
        --numjobs="$jobs" --group_reporting=1 --ioengine=io_uring --fixedbufs=1 \
        --registerfiles=1 --direct=1 --time_based=1 --runtime="$secs" --randrepeat=0 \
        --output-format=json --output="$d/fio.json" >/dev/null ||
        { echo "fio failed (see above); stopping" >&2; return 1; }
    python3 - "$d/fio.json" "$jobs" "$secs" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
jobs, secs = int(sys.argv[2]), float(sys.argv[3])
# The row's direction: the one that did I/O (a row is all writes or all reads).
w = j["write"] if j["write"]["total_ios"] > 0 else j["read"]
runtime_s = j["job_runtime"] / 1000 if j.get("job_runtime") else secs * jobs
# usr_cpu/sys_cpu: percent of the job runtime (summed over the jobs with group_reporting).
cpu_s = (j["usr_cpu"] + j["sys_cpu"]) / 100 * runtime_s
ios = w["total_ios"]
print(f"{w['iops']:.1f} {w['bw_bytes']:.1f} {1e6 * cpu_s / max(ios, 1):.3f}")
EOF
}

echo "target,row,round,tool,iops,bytes_per_sec,cpu_us_per_write" >"$out/runs.csv"
for tgt in $targets; do
    setup_target "$tgt"
    path=$tpath
    echo "target $tgt: $path" >&2
    for row in $rows; do
        read -r bs qd jobs pat rw <<<"$(row_spec "$row")"
        n=$(rounds_for "$row")
        for ((r = 1; r <= n; r++)); do
            d=$out/$tgt/$row/round-$r
            for tool in $(order_for "$r"); do
                case $tool in
                    slccache) res=$(run_slccache "$path" "$bs" "$qd" "$jobs" "$pat" "$d/slccache") ;;
                    fio) res=$(run_fio "$path" "$bs" "$qd" "$jobs" "$rw" "$d/fio" malloc) ;;
                    fio-huge) res=$(run_fio "$path" "$bs" "$qd" "$jobs" "$rw" "$d/fio-huge" mmaphuge) ;;
                    fio-refill) res=$(run_fio "$path" "$bs" "$qd" "$jobs" "$rw" "$d/fio-refill" mmaphuge --refill_buffers=1) ;;
                esac
                echo "$tgt,$row,$r,$tool,${res// /,}" >>"$out/runs.csv"
                echo "  $tgt $row round $r $tool: $res" >&2
            done
        done
    done
    drop_target
done

summary "$out/runs.csv" "$load" "$rounds" "$secs" >"$out/results.md"
cat "$out/results.md"
echo "outputs: $out" >&2
