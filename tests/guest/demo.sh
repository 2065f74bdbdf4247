#!/bin/bash
# The demo, run in the guest by "make demo": each step is shown with the
# command and what it printed.
set -euo pipefail

step() {
	printf '\n\033[1m# %s\033[0m\n' "$1"
	shift
	printf '$ %s\n' "$*"
	"$@" || printf '(exit status %s)\n' "$?"
}

ip link set lo up
modprobe brd rd_nr=1 rd_size=131072

step "The guest runs Debian's kernel" uname -r
step "Load the dst module" modprobe dst
step "Versions of dstadm, the module and the control interface" dstadm version

step "Export a 128 MiB ramdisk on IPv6 loopback" \
	dstadm export disk0 --device /dev/ram0 --listen '[::1]:7000'
step "Import it: a remote disk appears" dstadm import remote0 --remote '[::1]:7000'
step "Its size and block size" blockdev --getsize64 --getss /dev/dst0
step "Make a filesystem on it" mkfs.ext4 -q /dev/dst0
mkdir -p /mnt/demo
step "Mount it" mount /dev/dst0 /mnt/demo
step "Write a file through the network" \
	dd if=/dev/urandom of=/mnt/demo/file bs=1M count=8 conv=fsync status=none
step "Its checksum" sha256sum /mnt/demo/file
step "Show storages, nodes and exports" dstadm status
step "The state in sysfs" grep -r . /sys/block/dst0/dst/
step "Unmount" umount /mnt/demo
step "The filesystem is clean, read from the exported device itself" \
	e2fsck -fn /dev/ram0

step "A second storage with the same name is refused" dstadm create remote0 --alg linear
step "An unknown algorithm is refused" dstadm create r5 --alg raid5
step "Nothing listens on port 7999" dstadm import nobody --remote 127.0.0.1:7999
step "A user without CAP_NET_ADMIN is refused" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups dstadm status
step "As JSON" dstadm status --json

step "Stop and delete the remote disk" dstadm delete remote0
step "Stop the export" dstadm unexport disk0
step "Nothing left" dstadm status --json
step "Unload the module" rmmod dst
printf '\nDemo finished.\n'
