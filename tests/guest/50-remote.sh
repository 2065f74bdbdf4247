#!/bin/bash
# Export brd devices over TCP loopback (IPv4 and IPv6) and import them:
# the imported disk has the brd's geometry; data written through /dev/dstN
# reads back identically through dst and on the brd; fio verify under a
# mixed random load; two imports of one export and two exports at once.
set -euo pipefail
# shellcheck source=tests/guest/remote-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/remote-lib.sh"

FIO_RUNTIME=${DST_FIO_RUNTIME:-30}

remote_setup
trap remote_cleanup EXIT

do_export e0 /dev/ram0 127.0.0.1:7001 --shared
do_export e1 /dev/ram1 '[::1]:7002'
do_import r0 127.0.0.1:7001
d0=$DEV
do_import r1 '[::1]:7002'
d1=$DEV
[[ "$d0" != "$d1" ]] || fail "both imports got $d0"
status_json

# Geometry: size, logical and physical block size as the exported brd.
for pair in "$d0 /dev/ram0" "$d1 /dev/ram1"; do
	read -r d b <<<"$pair"
	for opt in --getsize64 --getss --getpbsz; do
		got=$(blockdev "$opt" "$d")
		want=$(blockdev "$opt" "$b")
		[[ "$got" == "$want" ]] || fail "blockdev $opt $d = $got, $b has $want"
	done
	[[ "$(blockdev --getro "$d")" == 0 ]] || fail "$d is read-only"
	log "$d: $(blockdev --getsize64 "$d") bytes, logical $(blockdev --getss "$d"), physical $(blockdev --getpbsz "$d")"
done
size=$(blockdev --getsize64 /dev/ram0)
mib=$((size >> 20))
for n in r0 r1; do
	[[ "$(node_field "$n" state)" == connected ]] || fail "node of $n is not connected"
done
for e in e0 e1; do
	[[ "$(export_field "$e" clients)" == 1 ]] || fail "export $e does not have 1 client"
done

# 64 MiB of random data through each import, both at once, plus the last
# MiB of each device; read back through dst and directly from the brd.
head -c 64M /dev/urandom >/tmp/rand0
head -c 64M /dev/urandom >/tmp/rand1
head -c 1M /dev/urandom >/tmp/tail0
sum0=$(file_sha /tmp/rand0)
sum1=$(file_sha /tmp/rand1)
tsum=$(file_sha /tmp/tail0)
bounded 180 dd if=/tmp/rand0 of="$d0" bs=1M oflag=direct status=none &
p0=$!
bounded 180 dd if=/tmp/rand1 of="$d1" bs=1M oflag=direct status=none &
p1=$!
wait "$p0" || fail "dd to $d0 failed"
wait "$p1" || fail "dd to $d1 failed"
expect_ok bounded 60 dd if=/tmp/tail0 of="$d0" bs=1M seek=$((mib - 1)) oflag=direct status=none
[[ "$(dev_sha "$d0" 64)" == "$sum0" ]] || fail "$d0 reads back other data"
[[ "$(dev_sha /dev/ram0 64)" == "$sum0" ]] || fail "/dev/ram0 holds other data than written through $d0"
[[ "$(dev_sha "$d1" 64)" == "$sum1" ]] || fail "$d1 reads back other data"
[[ "$(dev_sha /dev/ram1 64)" == "$sum1" ]] || fail "/dev/ram1 holds other data than written through $d1"
[[ "$(dev_sha "$d0" 1 $((mib - 1)))" == "$tsum" ]] || fail "last MiB of $d0 differs"
[[ "$(dev_sha /dev/ram0 1 $((mib - 1)))" == "$tsum" ]] || fail "last MiB of /dev/ram0 differs"
log "64 MiB on each of two exports (IPv4, IPv6) written at once: identical through dst and on brd"
# A write past the end of the device fails (the block layer refuses it
# before dst; a raw client past the end is 55-hostile's "beyond").
expect_fail bounded 30 dd if=/dev/zero of="$d0" bs=1M seek="$mib" count=1 oflag=direct status=none

wb=$(node_field r0 write_bytes)
rb=$(node_field r0 read_bytes)
log "r0 counters: write_bytes $wb read_bytes $rb"
((wb >= 65 << 20)) || fail "r0 write_bytes $wb < 65 MiB"
((rb >= 65 << 20)) || fail "r0 read_bytes $rb < 65 MiB"

# Two imports of one (shared) export at once; each sees what the other wrote.
do_import r2 127.0.0.1:7001
d2=$DEV
wait_for 10 "export e0 with 2 clients" field_is export_field e0 clients 2
head -c 8M /dev/urandom >/tmp/rand2
sum2=$(file_sha /tmp/rand2)
expect_ok bounded 60 dd if=/tmp/rand2 of="$d2" bs=1M seek=100 oflag=direct status=none
[[ "$(dev_sha "$d0" 8 100)" == "$sum2" ]] || fail "$d0 does not see what $d2 wrote"
[[ "$(dev_sha /dev/ram0 8 100)" == "$sum2" ]] || fail "/dev/ram0 lacks what $d2 wrote"
expect_ok bounded 60 dd if=/tmp/rand0 of="$d0" bs=1M seek=120 count=8 oflag=direct status=none
[[ "$(dev_sha "$d2" 8 120)" == "$(head -c 8M /tmp/rand0 | sha256sum | cut -c1-64)" ]] ||
	fail "$d2 does not see what $d0 wrote"
undo_import r2
wait_for 15 "export e0 back to 1 client" field_is export_field e0 clients 1
log "two imports of one export: ok"

# fio verify, mixed block sizes, random read/write, queue depth 32.
fio_verify() {
	local dev=$1 runtime=$2 out=$3 rc=0
	bounded $((runtime + 120)) fio --name=verify --filename="$dev" --direct=1 \
		--ioengine=libaio --rw=randrw --bssplit=4k/50:64k/30:1m/20 --iodepth=32 \
		--size=128M --time_based --runtime="$runtime" --verify=crc32c \
		--verify_backlog=512 --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
		--output-format=json --output="$out" || rc=$?
	jq -c '.jobs[0] | {error, read_mb: (.read.io_bytes / 1048576 | floor),
		write_mb: (.write.io_bytes / 1048576 | floor), read_iops: (.read.iops | floor),
		write_iops: (.write.iops | floor)}' "$out" 2>/dev/null || cat "$out"
	((rc == 0)) && jq -e '.jobs[0].error == 0 and .jobs[0].write.io_bytes > 0' "$out" >/dev/null
}
if ! fio_verify "$d0" "$FIO_RUNTIME" /tmp/fio-dst.json; then
	log "fio verify through $d0 failed; the same job on /dev/ram1 for comparison:"
	if fio_verify /dev/ram1 10 /tmp/fio-brd.json; then
		fail "fio verify fails through dst but passes on brd"
	fi
	fail "fio verify failed (on brd too: check the job)"
fi
[[ "$(node_field r0 state)" == connected ]] || fail "r0 not connected after fio"
[[ "$(node_field r0 inflight)" == 0 ]] || fail "r0 has requests in flight while idle"
log "fio verify ${FIO_RUNTIME}s: no errors"

undo_import r0
undo_import r1
undo_export e0
undo_export e1
nothing_left
log "remote export/import ok"
