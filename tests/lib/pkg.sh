#!/bin/bash
# The package test (tests/run.sh pkg): the .debs from "make deb" installed
# in a Debian bookworm guest that has Debian's kernel, its headers and
# DKMS but nothing of dst, on a disk that outlives reboots (a qcow2 over
# the cached image).  Boot 0 (the test init) adds a unit that runs
# tests/pkg/guest-pkg.sh at each later boot, under systemd; boots 1 and 2
# are its stages.  The second kernel flavour (cloud-amd64, same version)
# is downloaded once into the cache.
#   source tests/lib/pkg.sh; pkg_run OUT
# Needs ROOT, KVER and vm_run.  Output: OUT/results.txt, stageN.log,
# consoleN.log, OUT/counts.
set -euo pipefail

# shellcheck source=tests/lib/bad-kmsg.sh
source "$(dirname "${BASH_SOURCE[0]}")/bad-kmsg.sh"

# The image: the test image's packages plus headers, DKMS and systemd.
pkg_image() {
	DST_GUEST_EXTRA_PKGS="linux-headers-$KVER dkms systemd-sysv openssl" \
		"$ROOT/tests/lib/image.sh" "$KVER"
}

# The release the upgrade stage starts from: 0.2.0, as the reviews saw it
# (module dst.ko).  Built from the git history; in a checkout without it,
# this tree at a lower version stands in (said in the log).
PKG_FROM=${DST_PKG_FROM:-262ada2}

# pkg_old_debs OUT: the .debs of PKG_FROM in OUT.
pkg_old_debs() {
	local out=$1 tree
	tree=$(mktemp -d)
	if git -C "$ROOT" cat-file -e "$PKG_FROM^{commit}" 2>/dev/null; then
		echo "pkg: upgrading from $PKG_FROM ($(git -C "$ROOT" show "$PKG_FROM:VERSION"))"
		git -C "$ROOT" archive "$PKG_FROM" | tar -x -C "$tree"
		# Its make deb knows no DST_DEB_DIST: it builds into its dist/.
		"$tree/tests/lib/deb.sh" >"$out.log" 2>&1 && mkdir -p "$out" &&
			cp "$tree"/dist/*.deb "$out/"
	else
		echo "pkg: $PKG_FROM is not in this checkout: upgrading from this tree as 0~pkgtest"
		DST_DEB_DIST=$out DST_DEB_VERSION=0~pkgtest "$ROOT/tests/lib/deb.sh" >"$out.log" 2>&1
	fi || {
		tail -n 20 "$out.log"
		rm -rf "$tree"
		return 1
	}
	rm -rf "$tree" "$out"/*dbgsym*
}

# The cloud-amd64 kernel and headers of the same version, cached.
pkg_cloud_debs() {
	local out=$1 kc=${KVER%-amd64}-cloud-amd64 cache
	cache=${DST_CACHE:-/var/cache/dst-test}/debs-$kc
	if ! ls "$cache"/linux-headers-"$kc"_*.deb >/dev/null 2>&1; then
		rm -rf "$cache.tmp"
		mkdir -p "$cache.tmp"
		(cd "$cache.tmp" && apt-get download "linux-image-$kc" "linux-headers-$kc") >&2
		rm -rf "$cache"
		mv "$cache.tmp" "$cache"
	fi
	mkdir -p "$out"
	cp "$cache"/*.deb "$out/"
}

pkg_boot() { # N TIMEOUT CMDLINE...
	local n=$1 tmo=$2
	shift 2
	DST_VM_ROOT_DRIVE="file=$POUT/root.qcow2,if=virtio,format=qcow2" \
		vm_run "$PIMG" "$ROOT" "$tmo" "$POUT/console$n.log" \
		"dsttest.results=$(realpath --relative-to="$ROOT" "$POUT")" "$@" || true
}

# pkg_prepare OUT: the .debs built, the image, a new root disk over it in
# OUT; sets POUT and PIMG.  Fails if any of it does (make deb: with its
# last lines).
pkg_prepare() {
	POUT=$1
	rm -rf "$POUT"
	mkdir -p "$POUT"
	"$ROOT/tests/lib/deb.sh" >"$POUT/deb.log" 2>&1 || {
		tail -n 30 "$POUT/deb.log"
		return 1
	}
	[[ -n "${PKG_DEMO:-}" ]] || pkg_old_debs "$POUT/old" || return 1
	PIMG=$(pkg_image)
	qemu-img create -q -f qcow2 -F raw -b "$PIMG/rootfs.ext4" "$POUT/root.qcow2"
}

# make demo, after the guest demo: the packages installed and dst.service
# enabled in the Debian guest, its output shown as it comes.
pkg_demo() {
	local tailer
	echo "demo: building the packages (make deb)"
	PKG_DEMO=1 pkg_prepare "$1" || return 1
	echo "demo: booting a Debian guest with Debian's kernel, its headers and DKMS, no dst"
	pkg_boot 0 300 dsttest.mode=pkg-setup dsttest.pkgstage=demo
	: >"$POUT/stagedemo.log"
	tail -F "$POUT/stagedemo.log" 2>/dev/null &
	tailer=$!
	pkg_boot 1 1800 init=/lib/systemd/systemd
	sleep 1
	kill "$tailer" 2>/dev/null || true
	wait "$tailer" 2>/dev/null || true
	[[ -f "$POUT/stagedemo.done" ]]
}

pkg_run() {
	local passed=0 failed=0 status name n bad
	if ! pkg_prepare "$1"; then
		echo "0 1" >"$POUT/counts"
		echo "pkg: set-up failed (make deb, image or root disk)"
		return 1
	fi
	pkg_cloud_debs "$POUT/cloud"
	echo "pkg: image $PIMG"
	pkg_boot 0 300 dsttest.mode=pkg-setup
	for n in 1 2 3; do
		pkg_boot "$n" 1800 init=/lib/systemd/systemd
		if [[ ! -f "$POUT/stage$n.done" ]] ||
			grep -q "stage$n-stopped" "$POUT/results.txt" 2>/dev/null; then
			break
		fi
	done
	if [[ -f "$POUT/results.txt" ]]; then
		while read -r status name; do
			echo "$status $name"
			if [[ "$status" == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
		done <"$POUT/results.txt"
	fi
	for n in 1 2 3; do
		if [[ ! -f "$POUT/stage$n.done" ]]; then
			echo "FAIL pkg: stage $n did not finish"
			failed=$((failed + 1))
			tail -n 30 "$POUT/console$n.log" 2>/dev/null || true
		fi
		bad=$(grep -aE "$DST_BAD_KMSG" "$POUT/console$n.log" 2>/dev/null || true)
		if [[ -n "$bad" ]]; then
			echo "FAIL pkg: kernel log of boot $n: $(head -n1 <<<"$bad" | cut -c1-120)"
			failed=$((failed + 1))
		fi
	done
	if ((failed)); then
		for n in 1 2 3; do
			echo "----- stage$n.log -----"
			cat "$POUT/stage$n.log" 2>/dev/null || true
		done
	fi
	echo "$passed $failed" >"$POUT/counts"
	echo "pkg: $passed passed, $failed failed"
	((failed == 0))
}
