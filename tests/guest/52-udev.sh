#!/bin/bash
# The udev rule shipped in dstadm/60-dst.rules makes /dev/dst/NAME for a
# running storage and removes it when the storage stops.
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

cleanup() {
	set +e
	dstadm delete udev0 2>/dev/null
	dstadm unexport udev0 2>/dev/null
	udevadm control --exit 2>/dev/null
	rm -f /etc/udev/rules.d/60-dst.rules
	rmmod brd 2>/dev/null
}
trap cleanup EXIT

ip link set lo up
modprobe brd rd_nr=1 rd_size=16384
cp "$DST_ROOT/dstadm/60-dst.rules" /etc/udev/rules.d/
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 30

load_dst
expect_ok dstadm export udev0 --device /dev/ram0 --listen 127.0.0.1:7600
dev=$(dstadm import udev0 --remote 127.0.0.1:7600)
udevadm settle -t 30
[[ -L /dev/dst/udev0 ]] || fail "/dev/dst/udev0 missing"
[[ "$(readlink -f /dev/dst/udev0)" == "$dev" ]] || fail "/dev/dst/udev0 points to $(readlink -f /dev/dst/udev0), not $dev"
log "/dev/dst/udev0 -> $(readlink /dev/dst/udev0)"

expect_ok dstadm stop udev0
udevadm settle -t 30
[[ ! -e /dev/dst/udev0 ]] || fail "/dev/dst/udev0 still there after stop"
expect_ok dstadm delete udev0
expect_ok dstadm unexport udev0
unload_dst
log "udev link made and removed"
