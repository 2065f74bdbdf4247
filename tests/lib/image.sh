#!/bin/bash
# Builds (unless cached) the guest root filesystem image for $KVER and
# prints its cache directory, which holds: rootfs.ext4 vmlinuz initrd.img kver
# Cache: ${DST_CACHE:-/var/cache/dst-test}/guest-<sha256 of this script,
# the package list and KVER>; any change of inputs gives a new image.
# Extra guest packages: DST_GUEST_EXTRA_PKGS="pkg1 pkg2" (part of the hash).
set -euo pipefail

DST_IMAGE_SCRIPT=$(readlink -f "${BASH_SOURCE[0]}")
DST_IMAGE_LIBDIR=$(dirname "$DST_IMAGE_SCRIPT")
DST_IMAGE_SIZE=${DST_IMAGE_SIZE:-3G}
DST_MIRRORS=(
	"deb http://deb.debian.org/debian bookworm main"
	"deb http://deb.debian.org/debian bookworm-updates main"
	"deb http://deb.debian.org/debian-security bookworm-security main"
)

# Packages of the guest, comma-separated, for kernel version $1.
dst_image_pkgs() {
	local kver=$1 pkgs
	pkgs=(
		"linux-image-$kver" kmod util-linux procps iproute2 fio jq
		python3 libmnl0 libjson-c5 busybox e2fsprogs coreutils nftables
		iputils-ping strace passwd mount nbd-server nbd-client udev
		dmsetup mdadm xfsprogs gnutls-bin
	)
	# shellcheck disable=SC2206 # word splitting intended
	pkgs+=(${DST_GUEST_EXTRA_PKGS:-})
	local IFS=,
	echo "${pkgs[*]}"
}

dst_image_hash() {
	local kver=$1
	{
		cat "$DST_IMAGE_SCRIPT"
		printf 'pkgs=%s\nkver=%s\nsize=%s\n' "$(dst_image_pkgs "$kver")" "$kver" "$DST_IMAGE_SIZE"
	} | sha256sum | cut -c1-16
}

# The guest's init (PID 1): mounts the project share and runs the runner
# from it, so the runner can change without rebuilding the image.
dst_write_init() {
	local tree=$1
	cat >"$tree/sbin/dst-test-init" <<'INIT'
#!/bin/bash
# PID 1 of the dst test guest (written by tests/lib/image.sh).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
mnt() { mountpoint -q "$2" || mount -t "$1" "$1" "$2" ${3:+-o "$3"}; }
mnt proc /proc
mnt sysfs /sys
mnt devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mnt devpts /dev/pts
mnt tmpfs /dev/shm
mnt tmpfs /run mode=0755
mnt tmpfs /tmp mode=1777
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -o remount,rw / 2>/dev/null
hostname dst-guest
ip link set lo up 2>/dev/null
modprobe 9pnet_virtio && modprobe 9p
mkdir -p /mnt/dst
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none dst /mnt/dst; then
	runner=/mnt/dst/tests/guest/runner.sh
	if [ -f "$runner" ]; then
		bash "$runner"
		echo "dst-test-init: runner exited with $?"
	else
		echo "dst-test-init: $runner not found"
	fi
else
	echo "dst-test-init: cannot mount the 9p share 'dst'"
fi
sync
umount /mnt/dst 2>/dev/null
echo "dst-test-init: powering off"
echo o >/proc/sysrq-trigger
sleep 30
busybox poweroff -f
INIT
	chmod 755 "$tree/sbin/dst-test-init"
}

# Small configuration of the unpacked tree.
dst_configure_tree() {
	local tree=$1
	dst_write_init "$tree"
	mkdir -p "$tree/mnt/dst"
	echo dst-guest >"$tree/etc/hostname"
	printf '127.0.0.1 localhost dst-guest\n::1 localhost\n' >"$tree/etc/hosts"
	: >"$tree/etc/fstab"
	chroot "$tree" useradd -m -s /bin/bash dsttest
	chroot "$tree" passwd -d root >/dev/null
}

# Builds the image for kernel $1 into directory $2 (which must not exist).
dst_build_image() {
	local kver=$1 out=$2 tree
	mkdir -p "$out"
	tree="$out/tree"
	echo "image: mmdebstrap bookworm (linux-image-$kver)"
	mmdebstrap --variant=apt --mode=root --include="$(dst_image_pkgs "$kver")" \
		bookworm "$tree" "${DST_MIRRORS[@]}"
	dst_configure_tree "$tree"
	cp "$tree/boot/vmlinuz-$kver" "$out/vmlinuz"
	cp "$tree/boot/initrd.img-$kver" "$out/initrd.img"
	echo "image: mke2fs $DST_IMAGE_SIZE"
	mke2fs -q -F -t ext4 -L dst-root -d "$tree" "$out/rootfs.ext4" "$DST_IMAGE_SIZE"
	rm -rf "$tree"
	echo "$kver" >"$out/kver"
	dst_image_pkgs "$kver" >"$out/packages"
}

# Prints the cache directory of an up-to-date image, building it if needed.
dst_image() {
	local kver cache dir tmp log start lock
	kver=${1:-$("$DST_IMAGE_LIBDIR/kver.sh")}
	cache=${DST_CACHE:-/var/cache/dst-test}
	dir="$cache/guest-$(dst_image_hash "$kver")"
	mkdir -p "$cache"
	# One build at a time per image; a second caller waits and reuses it.
	exec {lock}>"$dir.lock"
	flock "$lock"
	if [[ -f "$dir/rootfs.ext4" && -f "$dir/kver" ]]; then
		exec {lock}>&-
		echo "$dir"
		return 0
	fi
	tmp=$(mktemp -d "$cache/.build.XXXXXX")
	log="$cache/build-$(basename "$dir").log"
	start=$SECONDS
	echo "image: building $dir for $kver (log: $log)" >&2
	if ! dst_build_image "$kver" "$tmp/img" >"$log" 2>&1; then
		echo "image: build FAILED; last lines of $log:" >&2
		tail -n 40 "$log" >&2
		rm -rf "$tmp"
		exec {lock}>&-
		return 1
	fi
	rm -rf "$dir"
	mv "$tmp/img" "$dir"
	rmdir "$tmp"
	exec {lock}>&-
	echo "image: built in $((SECONDS - start)) s" >&2
	echo "$dir"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	dst_image "$@"
fi
