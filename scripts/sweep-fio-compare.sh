#!/usr/bin/env bash
# Checks `slccache sweep` against fio on a loop device this script creates and removes:
# 4K random write at QD1 and QD32 and 4K random read at QD32, one job, io_uring, O_DIRECT,
# registered buffers and files on both sides. The loop device sits on a tmpfs of its own
# (mounted here, unmounted at exit) with direct I/O on, so both tools measure the same
# in-memory "drive" and differences are the engines'.
#
#   [ROUNDS=7] [SECONDS_PER_POINT=4] [SIZE=512M] [NICE=-10] scripts/sweep-fio-compare.sh
#
# Each round runs both tools on every point, alternating which goes first, and prints the
# IOPS side by side with the ratio slccache / fio; at the end, the median ratio per point.
# A loop device on tmpfs is CPU-bound: on a machine shared with other work, single runs swing
# by 2x, so trust the medians of many short rounds. Both tools run at nice NICE (default -10)
# to stand out of the way of background builds.
# Needs root, losetup and fio (apt-get install -y fio). Outputs go to ${OUT:-output/sweep-fio-<time>}/.
set -euo pipefail

rounds=${ROUNDS:-7}
# (Not $SECONDS: bash sets it to the seconds since the shell started.)
secs=${SECONDS_PER_POINT:-4}
nice=${NICE:--10}
size=${SIZE:-512M}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SLCCACHE:-$here/target/release/slccache}
out=${OUT:-output/sweep-fio-$(date +%Y%m%d-%H%M%S)}

command -v fio >/dev/null || { echo "fio is not installed (apt-get install -y fio)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "needs root (tmpfs mount, loop device)" >&2; exit 2; }
[[ -x $bin ]] || (cd "$here" && cargo build --release --quiet)
mkdir -p "$out"

mnt=$(mktemp -d /tmp/slccache-sweep-fio-$$-XXXX)
dev=""
cleanup() {
    [[ -n $dev ]] && losetup -d "$dev" 2>/dev/null || true
    mountpoint -q "$mnt" && umount "$mnt" || true
    rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT
mount -t tmpfs -o size="$size" "slccache-sweep-fio-$$" "$mnt"
bytes=$(($(numfmt --from=iec "$size") - 4096 * 16))
truncate -s "$bytes" "$mnt/backing.img"
dev=$(losetup -f --show --direct-io=on "$mnt/backing.img")
echo "loop device $dev on tmpfs $mnt ($bytes bytes)" >&2

# Fill it once so that reads read data.
"$bin" probe "$dev" --no-record --pattern seqwrite --bs 1M --qd 8 --destroy-data --quiet \
    --out "$out/prefill" >/dev/null

slc() { # pattern qd -> IOPS
    local d="$out/r$r-slccache-$1-qd$2"
    nice -n "$nice" "$bin" sweep "$dev" --no-record --pattern "$1" --bs 4k --qd "$2" --jobs 1 --point-duration "${secs}s" \
        --destroy-data --assume-written --quiet --out "$d" >/dev/null
    awk -F, 'NR == 2 { print $5 }' "$d/sweep.csv"
}
fio_iops() { # pattern qd -> IOPS
    local j="$out/r$r-fio-$1-qd$2.json"
    nice -n "$nice" fio --name=p --filename="$dev" --rw="$1" --bs=4k --iodepth="$2" --numjobs=1 \
        --ioengine=io_uring --fixedbufs=1 --registerfiles=1 --direct=1 --time_based=1 \
        --runtime="$secs" --randrepeat=0 --norandommap=1 --output-format=json --output="$j" >/dev/null
    python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]; \
print(j['read']['iops'] + j['write']['iops'])" "$j"
}

points=("randwrite 1" "randwrite 32" "randread 32")
: >"$out/ratios.txt"
printf "%-6s %-10s %4s %14s %14s %7s\n" round pattern qd "slccache IOPS" "fio IOPS" ratio
for ((r = 1; r <= rounds; r++)); do
    for p in "${points[@]}"; do
        set -- $p
        if ((r % 2 == 0)); then f=$(fio_iops "$1" "$2"); s=$(slc "$1" "$2")
        else s=$(slc "$1" "$2"); f=$(fio_iops "$1" "$2"); fi
        ratio=$(awk -v s="$s" -v f="$f" 'BEGIN { printf "%.3f", (f > 0 ? s / f : 0) }')
        printf "%-6s %-10s %4s %14.0f %14.0f %7s\n" "$r" "$1" "$2" "$s" "$f" "$ratio"
        echo "$1 $2 $ratio" >>"$out/ratios.txt"
    done
done
echo "median ratio (slccache / fio) per point:"
for p in "${points[@]}"; do
    set -- $p
    awk -v a="$1" -v b="$2" '$1 == a && $2 == b { v[n++] = $3 } END {
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        m = (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
        printf "  %-10s QD%-3s %.3f %s\n", a, b, m, (m > 0.9 && m < 1.1) ? "(within 10%)" : "(OUTSIDE 10%)" }' "$out/ratios.txt"
done
