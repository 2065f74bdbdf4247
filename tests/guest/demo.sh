#!/bin/bash
# The demo, run in the guest by "make demo": each step is shown with the
# command and what it printed. One guest plays every host: exports listen
# on loopback (IPv6 and IPv4).
set -euo pipefail

# step TITLE CMD...: an empty TITLE continues the previous step.
step() {
	if [[ -n "$1" ]]; then printf '\n\033[1m# %s\033[0m\n' "$1"; fi
	shift
	printf '$ %s\n' "$*"
	"$@" || printf '(exit status %s)\n' "$?"
}

# dev NAME: the disk of the running storage NAME.
dev() { echo "/dev/dst$(dstadm status "$1" --json | jq -r '.storages[0].id')"; }

# wait_sync NAME: until every leg of the mirror NAME is in sync (5 min).
wait_sync() {
	local i
	for ((i = 0; i < 600; i++)); do
		if ! dstadm status "$1" --json |
			jq -e '.storages[0].nodes[] | select(.sync != "in-sync")' >/dev/null; then
			return 0
		fi
		sleep 0.5
	done
	echo "mirror $1 not in sync after 5 minutes"
	return 1
}

ip link set lo up
modprobe brd rd_nr=4 rd_size=65536

step "The guest runs Debian's kernel" uname -r
step "Load the dst module" modprobe dst_storage
step "Versions of dstadm, the module and the control interface" dstadm version

step "Host B exports a 64 MiB disk on IPv6 loopback" \
	dstadm export disk0 --device /dev/ram0 --listen '[::1]:7000'
step "Import it: a remote disk appears" dstadm import remote0 --remote '[::1]:7000'
step "Its size and block size" blockdev --getsize64 --getss "$(dev remote0)"
step "Done with the plain remote disk" dstadm delete remote0

umask 077
head -c 24 /dev/urandom | base64 >/tmp/demo.key
step "A shared secret in a file only root may read" ls -l /tmp/demo.key
step "An export for one address, a secret and CRC-32C on the wire" \
	dstadm export safe0 --device /dev/ram3 --listen 127.0.0.1:7002 \
	--allow 127.0.0.1 --secret-file /tmp/demo.key --integrity
step "Without the secret the export refuses the import" \
	bash -c 'dstadm import nokey --remote 127.0.0.1:7002 --integrity || true'
step "With it, both ends prove it and every message is checksummed" \
	dstadm import safe --remote 127.0.0.1:7002 --secret-file /tmp/demo.key --integrity
step "Status shows the allow list, the client and the counters, never the secret" \
	dstadm status safe0
step "Done with it" bash -c 'dstadm delete safe && dstadm unexport safe0'

step "A mirror of a local disk and the remote one, 256 KiB regions" \
	dstadm create m0 --alg mirror --chunk-size 256K
step "Leg one: local" dstadm add m0 local /dev/ram1
step "Leg two: remote" dstadm add m0 remote '[::1]:7000'
step "Start it: node1 is copied from node0 in the background" dstadm start m0
M0=$(dev m0)
step "Right after start" dstadm status m0
step "Wait until both legs are in sync" wait_sync m0
step "In sync; resynced bytes counted" dstadm status m0
step "Make a filesystem on the mirror" mkfs.ext4 -q "$M0"
mkdir -p /mnt/demo
step "Mount it" mount "$M0" /mnt/demo
step "Write a file to both legs" \
	dd if=/dev/urandom of=/mnt/demo/file bs=1M count=8 conv=fsync status=none
step "Its checksum" sha256sum /mnt/demo/file

step "A third leg, added while the mirror is mounted" dstadm add m0 local /dev/ram2
step "Wait for its resync" wait_sync m0
step "Three legs in sync" dstadm status m0
step "The seed's view of a leg's bitmap in sysfs" cat "/sys/block/${M0#/dev/}/dst/node2/chunks"

step "Host B goes away: its export stops" dstadm unexport disk0
step "Writes go on" \
	dd if=/dev/urandom of=/mnt/demo/file2 bs=1M count=4 conv=fsync status=none
step "The remote leg is out of sync, with the regions it missed" dstadm status m0
step "Remove the failed leg" dstadm remove m0 node1
step "The last leg in sync cannot go" \
	bash -c 'dstadm remove m0 node0 && dstadm remove m0 node2'

step "Unmount: an export opens its device exclusively" umount /mnt/demo
step "Any storage can be exported: the mirror becomes a node elsewhere" \
	dstadm export m0x --device "$M0" --listen 127.0.0.1:7001
step "Host C: a linear storage of the exported mirror and a local disk" \
	dstadm create big --alg linear
step "" dstadm add big remote 127.0.0.1:7001
step "" dstadm add big local /dev/ram3
step "" dstadm start big
step "Everything, as a tree per storage" dstadm status
step "As JSON" dstadm status big --json
step "Stop the tree from the top" dstadm delete big
step "" dstadm unexport m0x

step "Stop the mirror" dstadm delete m0
step "A leg on its own is a plain ext4: check it" e2fsck -fn /dev/ram2
step "Mount it read-only as a snapshot" mount -o ro,noload /dev/ram2 /mnt/demo
step "The same file" sha256sum /mnt/demo/file
umount /mnt/demo

step "A second storage with the same name is refused" \
	bash -c 'dstadm create r0 --alg linear && dstadm create r0 --alg linear'
step "An unknown algorithm is refused" dstadm create r5 --alg raid5
step "A chunk size that is not a power of two is refused" \
	dstadm create m1 --alg mirror --chunk-size 3000
step "Nothing listens on port 7999" dstadm import nobody --remote 127.0.0.1:7999
step "A user without CAP_NET_ADMIN is refused" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups dstadm status
step "" dstadm delete r0
step "Nothing left" dstadm status --json
step "Unload the module" rmmod dst_storage
printf '\nDemo finished.\n'
