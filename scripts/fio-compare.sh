#!/usr/bin/env bash
# Side-by-side check of slccache's timeline against fio on the same file, block size, queue
# depth and pattern (io_uring, O_DIRECT, registered buffers and files on both sides).
#
#   [ROUNDS=n] [THROTTLE=MB/s] scripts/fio-compare.sh FILE [SIZE=1GiB] [SECONDS=10] [BS=4k] [QD=32] [PATTERN=randwrite]
#
# Steps: lay the file out once (one sequential slccache pass, so neither run pays for first
# writes into unwritten extents), run `slccache probe` for SECONDS, then fio right after with
# write_bw_log + log_avg_msec=1000, and print the per-second rates side by side with the ratio
# of the medians (first and last second left out: both tools ramp up and drain there).
# ROUNDS=n repeats the pair n times (slccache, fio, slccache, fio, ...) and reports the median
# of the per-round ratios, which is what to trust on a machine shared with other work. Each
# round also prints the CPU seconds (user + system) both tools used. ORDER=alternate runs fio
# first in every second round, so that whatever the first run leaves behind (the host's
# write-back, a warmed cache) does not always favour the same tool.
# Outputs go to ${OUT:-output/fio-compare-<time>}/. Needs fio (apt-get install -y fio).
#
# On a shared, noisy machine the two runs see different neighbours. THROTTLE=200 (MB/s; root,
# cgroup v1 blkio) runs both tools in a cgroup whose writes to the file's disk are limited to
# that rate, so both should record the same flat line: this checks the timeline's accounting
# (per-second bytes, real elapsed time) rather than raw engine speed.
set -euo pipefail
TIMEFORMAT='%U %S'

file=${1:?usage: $0 FILE [SIZE] [SECONDS] [BS] [QD] [PATTERN]}
size=${2:-1GiB}
secs=${3:-10}
bs=${4:-4k}
qd=${5:-32}
pattern=${6:-randwrite}
out=${OUT:-output/fio-compare-$(date +%Y%m%d-%H%M%S)}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}

command -v fio >/dev/null || { echo "fio is not installed (apt-get install -y fio)" >&2; exit 2; }
if [[ ! -x $bin ]]; then
    (cd "$here" && cargo build --release --quiet)
fi
mkdir -p "$out"

overwrite=()
[[ -e $file ]] && overwrite=(--overwrite)

# Run a command, inside the throttling cgroup when THROTTLE is set.
cg=""
cleanup() { [[ -n $cg && -d $cg ]] && rmdir "$cg" 2>/dev/null || true; }
trap cleanup EXIT
in_cgroup() {
    if [[ -n $cg ]]; then
        sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
    else
        "$@"
    fi
}

echo "laying out $file ($size)" >&2
"$bin" probe "$file" --no-record --size "$size" "${overwrite[@]}" --pattern seqwrite --bs 1M --qd 8 \
    --quiet --out "$out/layout" >/dev/null
sync
sleep "${SETTLE:-5}" # let the layout's writes settle before the first measured run

if [[ -n ${THROTTLE:-} ]]; then # MB/s
    rate=$((THROTTLE * 1000000))
    dev=$(stat -c %d "$file")
    devnum="$((dev >> 8 & 0xfff)):$(((dev & 0xff) | (dev >> 12 & 0xfff00)))"
    cg=/sys/fs/cgroup/blkio/slccache-fio-compare-$$
    mkdir "$cg"
    echo "$devnum $rate" >"$cg/blkio.throttle.write_bps_device"
    echo "throttled to $rate bytes/s on $devnum" >&2
fi

median() { # median of lines 2..n-1 of a file (first and last second left out)
    awk 'NR > 1 { a[n++] = $1 } END { n--; if (n < 1) { print 0; exit }
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        print (n % 2) ? a[int(n / 2)] : (a[n / 2 - 1] + a[n / 2]) / 2 }' "$1"
}

bytes=$(stat -c %s "$file")
fio_rw=$pattern
[[ $pattern == seqwrite ]] && fio_rw=write
rounds=${ROUNDS:-1}
# One run of each tool for round $r, into $d.
run_slccache() {
    # CPU seconds (user, system) of the slccache process, from bash's `time`; the probe's own
    # stderr still goes to ours.
    { time in_cgroup "$bin" probe "$file" --no-record --size "$size" --overwrite --pattern "$pattern" \
        --bs "$bs" --qd "$qd" --duration "${secs}s" --max-bytes 1PB --interval 1s --quiet \
        --out "$d/slccache" >/dev/null 2>&3; } 3>&2 2>"$d/slccache.cpu"
}
run_fio() {
    in_cgroup fio --name=compare --filename="$file" --size="$bytes" --rw="$fio_rw" --bs="$bs" \
        --iodepth="$qd" --ioengine=io_uring --fixedbufs=1 --registerfiles=1 --direct=1 \
        --time_based=1 --runtime="$secs" --randrepeat=0 --write_bw_log="$d/fio" \
        --log_avg_msec=1000 --output="$d/fio.txt" >/dev/null
}
: >"$out/rounds.txt"
for ((r = 1; r <= rounds; r++)); do
    d="$out/round-$r"
    mkdir -p "$d"
    echo "round $r/$rounds: slccache and fio, $pattern bs=$bs qd=$qd for ${secs}s each" >&2
    if [[ ${ORDER:-} == alternate ]] && ((r % 2 == 0)); then
        run_fio
        run_slccache
    else
        run_slccache
        run_fio
    fi
    fiolog=$(ls "$d"/fio_bw*.log | head -1)
    # slccache: bytes_per_sec column; fio: KiB/s. Both as MB/s (10^6 bytes/s).
    awk -F, 'NR > 1 { printf "%.3f\n", $5 / 1e6 }' "$d/slccache/timeline.csv" >"$d/s.txt"
    awk -F, '{ printf "%.3f\n", $2 * 1024 / 1e6 }' "$fiolog" >"$d/f.txt"
    printf "%4s %14s %14s\n" sec "slccache MB/s" "fio MB/s"
    paste -d' ' "$d/s.txt" "$d/f.txt" | awk '{ printf "%4d %14s %14s\n", NR, $1, $2 }'
    ms=$(median "$d/s.txt")
    mf=$(median "$d/f.txt")
    awk -v r="$r" -v s="$ms" -v f="$mf" 'BEGIN { printf "round %d median MB/s: slccache %.1f, fio %.1f, ratio %.3f\n", r, s, f, (f > 0 ? s / f : 0) }' \
        | tee -a "$out/rounds.txt"
    # fio reports CPU as a percentage of its runtime: "cpu : usr=5.50%, sys=48.27%, ctx=...".
    read -r su ss <"$d/slccache.cpu"
    awk -v r="$r" -v su="$su" -v ss="$ss" -v secs="$secs" '/^ *cpu *:/ {
        gsub(/[usrsy=%,]/, " "); u = $3; s = $4
        printf "round %d CPU s: slccache %.2f user + %.2f sys, fio %.2f user + %.2f sys\n", r, su, ss, u * secs / 100, s * secs / 100 }' \
        "$d/fio.txt" | tee -a "$out/cpu.txt"
done
if ((rounds > 1)); then
    awk '{ v[n++] = $NF } END { for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        printf "median ratio slccache/fio over %d rounds: %.3f (min %.3f, max %.3f)\n", n, (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1] }' \
        "$out/rounds.txt" | tee "$out/ratio.txt"
else
    cp "$out/rounds.txt" "$out/ratio.txt"
fi
echo "outputs: $out" >&2
