#!/usr/bin/env bash
# A real, kernel-made cliff on a machine without a spare SSD.
#
# Creates a sparse backing file and a loop device (direct I/O), puts `slccache probe` in a
# cgroup-v1 blkio child whose write limit is BEFORE bytes/s, and lowers the limit to AFTER
# bytes/s once CACHE bytes have been written to the device (sectors written, from
# /sys/block/loopN/stat; the cgroup's own io_service_bytes counts each write twice here).
# The probe should then find a cliff near CACHE bytes. Everything it made is removed at exit.
# tests/probe/fault_cliff.rs runs the same experiment, smaller, as an integration test.
#
# Usage: scripts/loop-cliff.sh [CACHE_BYTES] [BEFORE_BPS] [AFTER_BPS] [SIZE_BYTES] [-- probe flags]
#   defaults: 1 GiB cache, 400 MB/s before, 100 MB/s after, 3 GiB loop device.
# On kernel 6.18 here the measured rates come out at about half the configured limits (the
# throttle accounts each loop-device write twice); the cliff position is exact either way.
# Needs root, cgroup v1 blkio (/sys/fs/cgroup/blkio), losetup. Output: output/loop-cliff-*/.
set -euo pipefail

CACHE=${1:-$((1 << 30))}
BEFORE=${2:-400000000}
AFTER=${3:-100000000}
SIZE=${4:-$((3 << 30))}
shift $(($# < 4 ? $# : 4))
[ "${1:-}" = "--" ] && shift
EXTRA=("$@")

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ "$(id -u)" = 0 ] || { echo "loop-cliff: needs root (loop devices and cgroups)" >&2; exit 2; }
CG_ROOT=/sys/fs/cgroup/blkio
[ -w "$CG_ROOT/blkio.throttle.write_bps_device" ] || {
  echo "loop-cliff: cgroup v1 blkio throttling not available at $CG_ROOT" >&2; exit 2; }

cargo build --release --quiet
BIN="$root/target/release/slccache"

work=$(mktemp -d /tmp/slccache-loopcliff.XXXXXX)
backing="$work/backing.img"
loopdev=""
cg="$CG_ROOT/slccache-loopcliff-$$"
probe_pid=""

cleanup() {
  set +e
  [ -n "$probe_pid" ] && kill "$probe_pid" 2>/dev/null && wait "$probe_pid" 2>/dev/null
  if [ -d "$cg" ]; then
    # move anything left back to the root group, then remove ours
    while read -r p; do echo "$p" > "$CG_ROOT/cgroup.procs"; done < "$cg/cgroup.procs"
    rmdir "$cg"
  fi
  [ -n "$loopdev" ] && losetup -d "$loopdev"
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

truncate -s "$SIZE" "$backing"
loopdev=$(losetup -f --show --direct-io=on "$backing")
majmin=$(lsblk -dno MAJ:MIN "$loopdev" | tr -d ' ')
mkdir "$cg"
echo "$majmin $BEFORE" > "$cg/blkio.throttle.write_bps_device"
echo "loop-cliff: $loopdev ($majmin), limit $BEFORE B/s until $CACHE bytes, then $AFTER B/s"

stat="/sys/block/$(basename "$loopdev")/stat"
written() {
  # field 7: sectors written, in 512-byte units whatever the device's block size
  awk -v base="$base" '{ printf "%.0f\n", $7 * 512 - base }' "$stat"
}
base=0
base=$(written)
out="output/loop-cliff-$(date +%Y%m%d-%H%M%S)"
# Start the probe inside the cgroup: a subshell moves itself in, then execs the probe.
(
  echo $BASHPID > "$cg/cgroup.procs"
  exec "$BIN" probe "$loopdev" --no-record --destroy-data --pattern seqwrite --bs 1M --qd 16 \
    --interval 500ms --out "$out" --quiet "${EXTRA[@]}"
) &
probe_pid=$!

switched=0
while kill -0 "$probe_pid" 2>/dev/null; do
  if [ "$switched" = 0 ] && [ "$(written)" -ge "$CACHE" ] 2>/dev/null; then
    echo "$majmin $AFTER" > "$cg/blkio.throttle.write_bps_device"
    echo "loop-cliff: cliff made after $(written) bytes"
    switched=1
  fi
  sleep 0.02
done
set +e
wait "$probe_pid"
rc=$?
probe_pid=""
echo "loop-cliff: probe exited $rc; outputs in $out"
exit "$rc"
