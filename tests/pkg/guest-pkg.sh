#!/bin/bash
# The package test, in a Debian guest booted with systemd (see
# tests/lib/pkg.sh), one stage per boot, each ending with a power off:
#   1: apt install the .debs (DKMS builds the module), modprobe, dkms
#      status; /etc/dst.conf with a mirror of two loop devices and its
#      export; systemctl enable --now dst; data written
#   2: after the reboot the mirror and export are back by themselves and
#      the data reads back; debian/tests/mirror-export (the autopkgtest)
#      passes; a second kernel flavour (cloud-amd64) gets the module from
#      DKMS; apt purge leaves nothing of dst behind
# Results: PASS/FAIL lines in $RESULTS/results.txt, a log per stage.
set -uo pipefail

SHARE=/mnt/dst
STATE=/var/lib/dst-pkgtest/stage
# The results folder on the share, as the set-up boot was told.
RESULTS=$(cat /var/lib/dst-pkgtest/results 2>/dev/null || echo "$SHARE/tests/out/pkg")
# shellcheck source=tests/lib/bad-kmsg.sh
source "$SHARE/tests/lib/bad-kmsg.sh"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

stage=$(cat "$STATE" 2>/dev/null || echo 1)
exec >>"$RESULTS/stage$stage.log" 2>&1
echo "=== stage $stage, kernel $(uname -r), uptime $(cut -d' ' -f1 /proc/uptime)"

failed=0
# stop: the rest of this stage cannot run; power off.
stop() {
	echo "!!! stopping stage $stage"
	echo "FAIL pkg:stage$stage-stopped" >>"$RESULTS/results.txt"
	touch "$RESULTS/stage$stage.done"
	echo 9 >"$STATE"
	sync
	systemctl poweroff
	exit 1
}
check() { # NAME CMD...: one result line
	local name=$1
	shift
	if "$@"; then
		echo "PASS pkg:$name" >>"$RESULTS/results.txt"
	else
		echo "FAIL pkg:$name" >>"$RESULTS/results.txt"
		echo "!!! $name failed"
		failed=1
	fi
}

leg_sha() { dd if="$1" bs=1M count=16 iflag=direct status=none | sha256sum | cut -c1-64; }
mirror_in_sync() {
	dstadm status --json | jq -e '[.storages[] | select(.name == "pm") | .nodes[].sync] | length == 2 and all(. == "in-sync")' >/dev/null
}
wait_until() { # SECONDS CMD...
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 1
	done
}

install_debs() {
	rm -rf /root/debs
	mkdir -p /root/debs
	cp "$SHARE"/dist/dst-dkms_*.deb "$SHARE"/dist/dstadm_*.deb /root/debs/ &&
		(cd /root/debs && apt-get install -y ./dst-dkms_*.deb ./dstadm_*.deb)
}
dkms_installed() { dkms status | grep -q "^dst/.*$(uname -r).*installed"; }
modprobe_dst() { modprobe dst && [[ "$(modinfo -F filename dst)" == */updates/dkms/dst.ko* ]]; }

setup_conf() {
	mkdir -p /var/lib/dst-pkgtest
	truncate -s 64M /var/lib/dst-pkgtest/leg0.img /var/lib/dst-pkgtest/leg1.img
	# The legs are loop devices: attach them before dst.service at boot.
	cat >/etc/systemd/system/dst-pkgtest-loops.service <<'UNIT'
[Unit]
Description=loop devices for the dst package test
DefaultDependencies=no
Before=dst.service
After=local-fs.target
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/sbin/losetup /dev/loop0 /var/lib/dst-pkgtest/leg0.img
ExecStart=/sbin/losetup /dev/loop1 /var/lib/dst-pkgtest/leg1.img
[Install]
RequiredBy=dst.service
UNIT
	systemctl daemon-reload && systemctl enable --now dst-pkgtest-loops.service || return 1
	cat >/etc/dst.conf <<'CONF'
# written by the package test
storage pm {
	alg mirror
	chunk-size 1M
	bitmap /var/lib/dst-pkgtest/pm.bitmap
	node local /dev/loop0
	node local /dev/loop1
}
export pmx {
	device /dev/dst/pm
	listen 127.0.0.1:7900
}
CONF
	dstadm check-config
}
export_listening() { dstadm status --json | jq -e '.exports[] | select(.name == "pmx")' >/dev/null; }
write_data() {
	dd if=/dev/urandom of=/var/lib/dst-pkgtest/data bs=1M count=16 status=none &&
		dd if=/var/lib/dst-pkgtest/data of=/dev/dst/pm bs=1M oflag=direct status=none && sync
}
data_back() {
	local want
	want=$(sha256sum </var/lib/dst-pkgtest/data | cut -c1-64)
	[[ "$(leg_sha /dev/dst/pm)" == "$want" && "$(leg_sha /dev/loop0)" == "$want" &&
		"$(leg_sha /dev/loop1)" == "$want" ]]
}
cloud_kernel() {
	local k
	rm -rf /root/cloud
	cp -r "$RESULTS/cloud" /root/cloud &&
		(cd /root/cloud && apt-get install -y ./*.deb) || return 1
	k=$(find /lib/modules -mindepth 1 -maxdepth 1 -name "*-cloud-amd64" -printf "%f\n" | head -n1)
	[[ -n "$k" ]] && dkms status | grep -q "^dst/.*$k.*installed" &&
		[[ -f /lib/modules/$k/updates/dkms/dst.ko || -f /lib/modules/$k/updates/dkms/dst.ko.xz ]]
}
purge() {
	systemctl stop dst && systemctl disable dst-pkgtest-loops.service &&
		apt-get purge -y dstadm dst-dkms
}
nothing_left() {
	local left
	left=$(find /lib/modules -path '*/updates/dkms/dst.ko*'; ls -d /usr/src/dst-* /var/lib/dkms/dst \
		/etc/dst.conf /lib/systemd/system/dst.service /usr/sbin/dstadm 2>/dev/null)
	[[ -z "$left" ]] || { echo "left behind: $left"; return 1; }
	! dpkg -l dstadm dst-dkms 2>/dev/null | grep -q '^[ir]'
}
kernel_log_clean() { ! journalctl -k -b --no-pager | grep -E "$DST_BAD_KMSG"; }

case "$stage" in
1)
	check apt-install install_debs || stop
	check dkms-status dkms_installed
	check modprobe modprobe_dst || stop
	check dst-conf setup_conf || stop
	check enable-now systemctl enable --now dst || stop
	check mirror-in-sync wait_until 300 mirror_in_sync
	check export-listening export_listening
	check data-written write_data
	check kernel-log-1 kernel_log_clean
	echo 2 >"$STATE"
	;;
2)
	check service-active systemctl is-active --quiet dst || stop
	check mirror-back wait_until 300 mirror_in_sync
	check export-back export_listening
	check data-back data_back
	check started-clean test "$(dstadm status pm --json | jq -r '.storages[0].started')" = clean
	check debian-tests "$SHARE/debian/tests/mirror-export"
	check second-kernel cloud_kernel
	check kernel-log-2 kernel_log_clean
	check purge purge
	check nothing-left nothing_left
	echo 3 >"$STATE"
	;;
demo)
	# make demo: the packaged flow, each command shown with its output.
	show() {
		echo
		echo "# $*"
		"$@"
	}
	install_debs >/dev/null 2>&1 || stop
	echo "# apt install ./dst-dkms_*.deb ./dstadm_*.deb: done"
	show dkms status
	setup_conf >/dev/null || stop
	show cat /etc/dst.conf
	show dstadm check-config
	show systemctl enable --now dst
	wait_until 300 mirror_in_sync
	show dstadm status
	show systemctl --no-pager status dst
	echo 9 >"$STATE"
	;;
*)
	echo "nothing to do in stage $stage"
	;;
esac
dstadm status 2>/dev/null || true
echo "=== stage $stage done (failed=$failed)"
touch "$RESULTS/stage$stage.done"
sync
systemctl poweroff
