#!/bin/bash
# The package test, in a Debian guest booted with systemd (see
# tests/lib/pkg.sh), one stage per boot, each ending with a power off:
#   1: apt install the .debs of the last release (old/, module dst.ko);
#      /etc/dst.conf with a mirror of two loop devices, a linear storage
#      and an export; systemctl enable --now dst; ext4 on the mirror from
#      fstab (_netdev); then, with writes running on that file system and
#      through an import of the export, apt install the .debs of this
#      tree: the writes go on without an error, nothing is stopped, the
#      old module serves on, DKMS built the new one (dst_storage.ko) and
#      removed the old; dstadm says the versions differ
#   2: the new module runs; the mirror, the export and the fstab mount
#      are back by themselves, the data reads back; an export and an
#      import with TLS (PSK) are added to /etc/dst.conf and applied with
#      systemctl reload dst, dst-tlsd.service doing the handshakes; a
#      disk of the linear storage is made missing for the next boot
#   3: the linear storage is not up (not even in part) and dst.service
#      says so, all the rest is up and mounted with its data (the second
#      reboot), status --check exits 4 naming it; the TLS import is back
#      over TLS with its data; the disk back,
#      dst.service's retry brings it up, status --check exits 0;
#      dst-monitor.service logs the state; the mirror-export autopkgtest
#      passes; a second kernel flavour (cloud-amd64) gets the module from
#      DKMS, and the dkms-build autopkgtest finds it built for both
#      kernels; apt purge leaves nothing of dst behind
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

install_debs() { # FOLDER
	rm -rf /root/debs
	mkdir -p /root/debs
	cp "$1"/dst-dkms_*.deb "$1"/dstadm_*.deb /root/debs/ &&
		(cd /root/debs && apt-get install -y ./dst-dkms_*.deb ./dstadm_*.deb)
}
deb_version() { dpkg-deb -f "$(ls "$1"/dstadm_*.deb)" Version; }
dkms_installed() { dkms status | grep -q "^dst/$1.*$(uname -r).*installed"; }
# The module's name is ours alone: modprobe loads our DKMS module and
# nothing else (Debian's kernel has a bt8xx DVB driver named dst).
modprobe_dst() {
	local plan
	# --show-depends: what it would insmod, also once it is loaded.
	plan=$(modprobe --show-depends dst_storage) && echo "$plan" &&
		[[ "$(tail -n1 <<<"$plan")" == "insmod /lib/modules/$(uname -r)/updates/dkms/dst_storage.ko"* ]] &&
		! grep -q "bt8xx\|/dst.ko" <<<"$plan"
}

setup_conf() {
	mkdir -p /var/lib/dst-pkgtest /mnt/pm
	truncate -s 64M /var/lib/dst-pkgtest/leg0.img /var/lib/dst-pkgtest/leg1.img \
		/var/lib/dst-pkgtest/exp.img /var/lib/dst-pkgtest/lin0.img /var/lib/dst-pkgtest/lin1.img
	# The disks are loop devices: attach them before dst.service at boot.
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
ExecStart=/sbin/losetup /dev/loop2 /var/lib/dst-pkgtest/exp.img
ExecStart=/sbin/losetup /dev/loop3 /var/lib/dst-pkgtest/lin0.img
ExecStart=/sbin/losetup /dev/loop4 /var/lib/dst-pkgtest/lin1.img
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
storage pl {
	alg linear
	node local /dev/loop3
	node local /dev/loop4
}
export pmx {
	device /dev/loop2
	listen 127.0.0.1:7900
}
CONF
	dstadm check-config
}
# ext4 on the mirror, mounted from fstab as the docs say (_netdev).
setup_fstab() {
	mkfs.ext4 -q /dev/dst/pm &&
		echo "/dev/dst/pm /mnt/pm ext4 _netdev 0 2" >>/etc/fstab &&
		systemctl daemon-reload && mount /mnt/pm &&
		dd if=/dev/urandom of=/mnt/pm/data bs=1M count=8 status=none &&
		sync /mnt/pm/data && sha256sum /mnt/pm/data >/var/lib/dst-pkgtest/data.sha
}
export_listening() { dstadm status --json | jq -e '.exports[] | select(.name == "pmx")' >/dev/null; }
storage_running() { [[ "$(dstadm status --json | jq -r --arg n "$1" '.storages[] | select(.name == $n) | .state')" == running ]]; }
fs_back() {
	mountpoint -q /mnt/pm && (cd /mnt/pm && sha256sum -c --quiet /var/lib/dst-pkgtest/data.sha) &&
		(cd /mnt/pm && sha256sum -c --quiet /var/lib/dst-pkgtest/io.sha)
}

# Writes that run through the upgrade: files on the ext4 of the mirror,
# fsync'd, and blocks through an import of the export; each loop stops
# at its first error, or when told to.  They pause between rounds, to
# leave the two CPUs of the guest to DKMS's build.
IO=/var/lib/dst-pkgtest/io
io_start() {
	local dev
	dev=$(dstadm import pmi --remote 127.0.0.1:7900 | grep -o '/dev/dst[0-9]*') || return 1
	echo "$dev" >$IO.dev
	dd if=/dev/urandom of=$IO.blocks bs=1M count=16 status=none
	rm -f $IO.stop
	(
		i=0
		until [[ -e $IO.stop ]]; do
			dd if=/dev/urandom of=/mnt/pm/io.$((i % 4)) bs=64k count=16 conv=fsync status=none || exit 1
			i=$((i + 1))
			sleep 0.5
		done
		echo "$i" >$IO.fs-count
	) &
	echo $! >$IO.fs-pid
	(
		i=0
		until [[ -e $IO.stop ]]; do
			dd if=$IO.blocks of="$dev" bs=1M oflag=direct status=none || exit 1
			i=$((i + 1))
			sleep 0.5
		done
		echo "$i" >$IO.dev-count
	) &
	echo $! >$IO.dev-pid
	sleep 5
}
io_ok() {
	local rc=0 dev
	touch $IO.stop
	wait "$(cat $IO.fs-pid)" || rc=1
	wait "$(cat $IO.dev-pid)" || rc=1
	echo "writes: $(cat $IO.fs-count 2>/dev/null) file rounds, $(cat $IO.dev-count 2>/dev/null) device rounds, rc $rc"
	((rc == 0)) || return 1
	dev=$(cat $IO.dev)
	(cd /mnt/pm && sync && sha256sum io.* >/var/lib/dst-pkgtest/io.sha)
	[[ "$(dd if="$dev" bs=1M count=16 iflag=direct status=none | sha256sum)" == "$(sha256sum <$IO.blocks)" ]] &&
		[[ "$(dd if=/dev/loop2 bs=1M count=16 iflag=direct status=none | sha256sum)" == "$(sha256sum <$IO.blocks)" ]] &&
		dstadm delete pmi
}
upgrade() {
	echo "--- upgrade from $(deb_version "$RESULTS/old") to $(deb_version "$SHARE/dist")"
	install_debs "$SHARE/dist"
}
kept_running() {
	systemctl is-active --quiet dst && storage_running pm && storage_running pl && export_listening &&
		[[ "$(cat /sys/module/dst/version)" == "$(deb_version "$RESULTS/old")" ]]
}
new_module_built() {
	dkms status
	dkms_installed "$(deb_version "$SHARE/dist")" && ! dkms status | grep -q "^dst/$(deb_version "$RESULTS/old")" &&
		[[ -z "$(find /lib/modules -path '*/updates/dkms/dst.ko*')" ]]
}
skew_said() { dstadm version 2>&1 | tee /dev/stderr | grep -q "note: the loaded dst module is $(deb_version "$RESULTS/old")"; }
new_module_runs() {
	[[ ! -e /sys/module/dst && "$(cat /sys/module/dst_storage/version)" == "$(deb_version "$SHARE/dist")" ]]
}
# TLS from /etc/dst.conf: an export and an import of it with a PSK, the
# export's disk a loop device attached at boot like the others.
tls_conf() {
	cat >>/etc/dst.conf <<'CONF'
export ptx {
	device /dev/loop5
	listen 127.0.0.1:7901
	secret-file /etc/dst/tls.key
	tls
}
CONF
	dstadm check-config && systemctl reload dst &&
		cat >>/etc/dst.conf <<'CONF'
storage pt {
	alg linear
	node remote 127.0.0.1:7901 secret-file /etc/dst/tls.key tls
}
CONF
	dstadm check-config && systemctl reload dst
}
tls_node_psk() { [[ "$(dstadm status pt --json | jq -r '.storages[0].nodes[0].tls')" == psk ]]; }
tls_setup() {
	truncate -s 32M /var/lib/dst-pkgtest/tls.img &&
		sed -i 's|^ExecStart=/sbin/losetup /dev/loop3 .*|&\nExecStart=/sbin/losetup /dev/loop5 /var/lib/dst-pkgtest/tls.img|' \
			/etc/systemd/system/dst-pkgtest-loops.service &&
		systemctl daemon-reload && losetup /dev/loop5 /var/lib/dst-pkgtest/tls.img &&
		(umask 077 && head -c 32 /dev/urandom | base64 >/etc/dst/tls.key) &&
		systemctl is-active --quiet dst-tlsd && tls_conf &&
		wait_until 60 storage_running pt && tls_node_psk &&
		dd if=/dev/urandom of=/var/lib/dst-pkgtest/tls.data bs=1M count=4 status=none &&
		dd if=/var/lib/dst-pkgtest/tls.data of="$(dstadm status pt --json | jq -r '.storages[0].device')" \
			bs=1M oflag=direct conv=fsync status=none
}
tls_back() {
	local dev
	storage_running pt && tls_node_psk && systemctl is-active --quiet dst-tlsd &&
		dev=$(dstadm status pt --json | jq -r '.storages[0].device') &&
		[[ "$(dd if="$dev" bs=1M count=4 iflag=direct status=none | sha256sum)" == \
			"$(sha256sum </var/lib/dst-pkgtest/tls.data)" ]]
}
missing_disk_next_boot() {
	sed -i '/loop4/d' /etc/systemd/system/dst-pkgtest-loops.service
}
linear_not_up() {
	! systemctl is-active --quiet dst &&
		journalctl -b -u dst --no-pager | tee /dev/stderr | grep -q "not up: pl" &&
		! dstadm status --json | jq -e '.storages[] | select(.name == "pl")' >/dev/null
}
# status --check, as a monitoring system runs it: its exit status.
check_says() { # RC LINE
	local out rc=0
	out=$(dstadm status --check) || rc=$?
	echo "$out (exit $rc)"
	[[ "$rc" == "$1" ]] && grep -qx "$2" <<<"$out"
}
# The disk comes back: dst.service, which tries up again every 30 s while
# it fails, brings the linear storage up by itself.
dst_all_up() { systemctl is-active --quiet dst && storage_running pl; }
disk_back() {
	losetup /dev/loop4 /var/lib/dst-pkgtest/lin1.img && wait_until 120 dst_all_up
}
# dst-monitor.service, enabled: the state of everything in the journal.
monitor_unit() {
	systemctl enable --now dst-monitor &&
		wait_until 60 sh -c 'journalctl -b -u dst-monitor --no-pager | grep -q "storage pm node1: exists connected in-sync"'
}
cloud_kernel() {
	local k
	rm -rf /root/cloud
	# INITRD=No: the kernel's initramfs hook builds none (a whole
	# initramfs, compressed under TCG, for a kernel never booted here);
	# DKMS's hooks run all the same.
	cp -r "$RESULTS/cloud" /root/cloud &&
		(cd /root/cloud && INITRD=No apt-get install -y ./*.deb) || return 1
	k=$(find /lib/modules -mindepth 1 -maxdepth 1 -name "*-cloud-amd64" -printf "%f\n" | head -n1)
	[[ -n "$k" ]] && dkms status | grep -q "^dst/.*$k.*installed" &&
		[[ -f /lib/modules/$k/updates/dkms/dst_storage.ko || -f /lib/modules/$k/updates/dkms/dst_storage.ko.xz ]]
}
purge() {
	umount /mnt/pm && sed -i '\|/dev/dst/pm|d' /etc/fstab &&
		systemctl disable --now dst-monitor &&
		systemctl stop dst && systemctl disable dst-pkgtest-loops.service &&
		rm -f /etc/dst/tls.key && apt-get purge -y dstadm dst-dkms
}
nothing_left() {
	local left
	left=$(find /lib/modules -path '*/updates/dkms/dst*.ko*'; ls -d /usr/src/dst-* /var/lib/dkms/dst \
		/etc/dst.conf /etc/dst /lib/systemd/system/dst.service /usr/sbin/dstadm 2>/dev/null)
	[[ -z "$left" ]] || { echo "left behind: $left"; return 1; }
	! dpkg -l dstadm dst-dkms 2>/dev/null | grep -q '^[ir]'
}
kernel_log_clean() { ! journalctl -k -b --no-pager | grep -E "$DST_BAD_KMSG"; }

case "$stage" in
1)
	check apt-install-old install_debs "$RESULTS/old" || stop
	check dkms-status-old dkms_installed "$(deb_version "$RESULTS/old")"
	check dst-conf setup_conf || stop
	check enable-now systemctl enable --now dst || stop
	check mirror-in-sync wait_until 300 mirror_in_sync
	check fstab-mount setup_fstab || stop
	check io-start io_start || stop
	check upgrade upgrade
	check upgrade-kept-running kept_running
	check upgrade-io io_ok
	check new-module-built new_module_built
	check version-skew-said skew_said
	check kernel-log-1 kernel_log_clean
	echo 2 >"$STATE"
	;;
2)
	check new-module-runs new_module_runs
	check modprobe-unique modprobe_dst
	check service-active systemctl is-active --quiet dst || stop
	check mirror-back wait_until 300 mirror_in_sync
	check export-back export_listening
	check fstab-data-back-1 fs_back
	check started-clean test "$(dstadm status pm --json | jq -r '.storages[0].started')" = clean
	check tls-conf tls_setup
	check kernel-log-2 kernel_log_clean
	missing_disk_next_boot
	echo 3 >"$STATE"
	;;
3)
	check missing-disk-linear-not-up linear_not_up
	check missing-disk-status-check check_says 4 "pl: failed: configured in /etc/dst.conf, not there"
	check missing-disk-rest-up wait_until 60 mirror_in_sync
	check missing-disk-export-up export_listening
	check fstab-data-back-2 fs_back
	check tls-back wait_until 120 tls_back
	check disk-back-restart disk_back
	check status-check-ok check_says 0 "ok: 3 storage(s) healthy"
	check monitor-service monitor_unit
	check autopkgtest-mirror-export "$SHARE/debian/tests/mirror-export"
	check second-kernel cloud_kernel
	check autopkgtest-dkms-build "$SHARE/debian/tests/dkms-build"
	check kernel-log-3 kernel_log_clean
	check purge purge
	check nothing-left nothing_left
	echo 4 >"$STATE"
	;;
demo)
	# make demo: the packaged flow, each command shown with its output.
	show() {
		echo
		echo "# $*"
		"$@"
	}
	install_debs "$SHARE/dist" >/dev/null 2>&1 || stop
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
