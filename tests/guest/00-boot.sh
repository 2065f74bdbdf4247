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
	# The name is ours alone (Debian's kernel has a bt8xx DVB driver named
	# dst): no module of the kernel has it, and modprobe loads ours and
	# nothing else.
	local file want plan
	want=/lib/modules/$(uname -r)/updates/dst_storage.ko
	[[ -z "$(find "/lib/modules/$(uname -r)/kernel" -name 'dst_storage.ko*' -o -name 'dst-storage.ko*')" ]] ||
		fail "the kernel has a module named dst_storage"
	file=$(modinfo -F filename dst_storage)
	[[ "$file" == "$want" ]] || fail "modprobe dst_storage resolves to $file, not $want"
	plan=$(modprobe -n -v dst_storage)
	if [[ "$(tail -n1 <<<"$plan" | xargs)" != "insmod $want" ]] || grep -q /dst.ko <<<"$plan"; then
		fail "modprobe -n -v dst_storage would do: $plan"
	fi
	file=$(modinfo -F filename "$(modprobe -R net-pf-16-proto-16-family-dst)")
	[[ "$file" == "$want" ]] || fail "the dst genl family alias resolves to $file, not $want"
	cmp -s "$file" "$DST_KO" || fail "$file differs from $DST_KO"
}

check_load_unload() {
	load_dst
	dst_loaded || fail "dst not in /proc/modules after modprobe"
	log "loaded: $(grep '^dst_storage ' /proc/modules)"
	[[ -z "$(modinfo -F srcversion dst_storage)" ]] ||
		[[ "$(cat /sys/module/dst_storage/srcversion 2>/dev/null)" == "$(modinfo -F srcversion dst_storage)" ]] ||
		fail "loaded dst has another srcversion than $DST_KO"
	unload_dst
	! dst_loaded || fail "dst still loaded after rmmod"
}

check_kernel
check_module_file
check_load_unload
log "ok"
