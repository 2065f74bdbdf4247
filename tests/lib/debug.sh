#!/bin/bash
# The debug-kernel tier (make test-debug): the functional suite of
# tests/guest and the fault-injection and leak checks of tests/debug, in a
# guest booted from the kernel of tests/lib/kdebug.sh (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak, failslab, fail_make_request) on the usual
# Debian root image, with dst_storage.ko built against that kernel.
#
#   source tests/lib/debug.sh; debug_run OUT [PATTERN]
#
# Output: OUT/{results.txt,NAME.log,console.log,dmesg.txt,counts} and the
# last line "debug: N passed, N failed".  Env: DST_DEBUG_TIMEOUT (whole
# run, default 7200 s), DST_TEST_TIMEOUT (per test, default 1800 s: 59-wirefuzz
# alone takes about 1100 s on this kernel).
set -euo pipefail

# debug_module KDIR OUT: builds dst_storage.ko for the kernel in KDIR from
# a copy of src/ in OUT (the tree's own module stays the Debian kernel's),
# and the race tests' tests/debug/kdelay in OUT/kdelay.
debug_module() {
	local kdir=$1 out=$2
	rm -rf "$out"
	mkdir -p "$out"
	cp -a "$ROOT/src" "$out/src"
	cp "$ROOT/VERSION" "$out/VERSION"
	make -s -C "$out/src" clean >/dev/null 2>&1 || true
	rm -f "$out"/src/*.o "$out"/src/*.ko "$out"/src/.*.cmd
	make -s -C "$kdir/build" M="$out/src" modules >&2
	cp -a "$ROOT/tests/debug/kdelay" "$out/kdelay"
	make -s -C "$kdir/build" M="$out/kdelay" modules >&2
}

debug_run() {
	local out=$1 pattern=${2:-} kdir finished=0 start=$SECONDS rc=0
	local -a extra=()
	kdir=$("$LIB/kdebug.sh")
	build
	debug_module "$kdir" "$ROOT/tests/out/debug-build"
	prepare_guest
	KVER=$(<"$kdir/kver")
	[[ -z "$pattern" ]] || extra+=("dsttest.tests=$pattern")
	[[ -z "${DST_GUEST_ENV:-}" ]] || extra+=("dsttest.env=$DST_GUEST_ENV")
	export DST_VM_KERNEL=$kdir/bzImage DST_VM_INITRD=none
	export DST_VM_MEM=${DST_VM_MEM:-3072}
	export DST_TEST_TIMEOUT=${DST_TEST_TIMEOUT:-1800}
	export DST_QEMU_EXTRA="-fsdev local,id=kmod,path=$kdir/modules/lib/modules,security_model=none,readonly=on -device virtio-9p-pci,fsdev=kmod,mount_tag=dstkmod"
	DST_KO=$ROOT/tests/out/debug-build/src/dst_storage.ko boot_guest "$out" debug \
		"${DST_DEBUG_TIMEOUT:-7200}" "${extra[@]}" && finished=1
	echo "debug: kernel $KVER from $kdir; run took $((SECONDS - start)) s"
	report "$out" "$finished" || rc=1
	return $rc
}
