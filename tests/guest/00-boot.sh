#!/bin/bash
# The guest runs the expected kernel and the dst module matches and loads.
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

check_kernel() {
	local running
	running=$(uname -r)
	[[ -n "${DST_KVER:-}" ]] || fail "dsttest.kver= missing on the kernel command line"
	[[ "$running" == "$DST_KVER" ]] || fail "guest runs $running, expected $DST_KVER"
	log "kernel $running"
}

check_module_file() {
	local vermagic
	[[ -f "$DST_KO" ]] || fail "module $DST_KO does not exist"
	vermagic=$(modinfo -F vermagic "$DST_KO")
	[[ "$vermagic" == "$DST_KVER "* ]] || fail "vermagic '$vermagic' does not match $DST_KVER"
	log "vermagic $vermagic"
	# Debian's kernel has an unrelated bt8xx DVB driver also named dst.
	local file want
	file=$(modinfo -F filename dst)
	want=/lib/modules/$(uname -r)/updates/dst.ko
	[[ "$file" == "$want" ]] || fail "modprobe dst resolves to $file, not $want"
	cmp -s "$file" "$DST_KO" || fail "$file differs from $DST_KO"
}

check_load_unload() {
	load_dst
	dst_loaded || fail "dst not in /proc/modules after modprobe"
	log "loaded: $(grep '^dst ' /proc/modules)"
	[[ -z "$(modinfo -F srcversion dst)" ]] ||
		[[ "$(cat /sys/module/dst/srcversion 2>/dev/null)" == "$(modinfo -F srcversion dst)" ]] ||
		fail "loaded dst has another srcversion than $DST_KO"
	unload_dst
	! dst_loaded || fail "dst still loaded after rmmod"
}

check_kernel
check_module_file
check_load_unload
log "ok"
