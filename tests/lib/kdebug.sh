#!/bin/bash
# Builds (unless cached) the debug kernel of `make test-debug` from Debian's
# linux-source-6.1: x86_64_defconfig, the guest's drivers, and the checkers
# (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, kmemleak, failslab and
# fail_make_request). Prints its cache directory, which holds:
#   bzImage   the kernel
#   build/    the build tree (make -C build M=... builds dst.ko against it)
#   modules/  its modules (lib/modules/KVER/...), shared into the guest
#   kver      its release string
# Cache: ${DST_CACHE:-/var/cache/dst-test}/kdebug-<sha256 of this script and
# of the linux-source version>; a change of either builds a new one.
# Takes about 30-40 minutes on 2 cores the first time.
set -euo pipefail

KDEBUG_SCRIPT=$(readlink -f "${BASH_SOURCE[0]}")
KDEBUG_DEPS=(linux-source-6.1 flex bison libelf-dev libssl-dev bc cpio xz-utils)

# The options on top of x86_64_defconfig. Built in: what the guest boots
# from (virtio, ext4, 9p), xfs (54-fs) and blk-throttle (65-fence);
# modules: what the tests load with parameters.
kdebug_fragment() {
	cat <<'EOF'
CONFIG_LOCALVERSION="-dstdebug"
CONFIG_LOCALVERSION_AUTO=n
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_MODULE_SIG=n
CONFIG_DEBUG_INFO_NONE=y
CONFIG_KALLSYMS_ALL=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_NET=y
CONFIG_NET_9P=y
CONFIG_NET_9P_VIRTIO=y
CONFIG_9P_FS=y
CONFIG_9P_FS_POSIX_ACL=y
CONFIG_EXT4_FS=y
CONFIG_XFS_FS=y
CONFIG_BLK_DEV_THROTTLING=y
CONFIG_DEVTMPFS=y
CONFIG_DEVTMPFS_MOUNT=y
CONFIG_IPV6=y
CONFIG_NET_NS=y
CONFIG_USER_NS=y
CONFIG_VETH=m
CONFIG_NF_TABLES=m
CONFIG_NF_TABLES_INET=y
CONFIG_INET_DIAG=m
CONFIG_INET_TCP_DIAG=m
CONFIG_INET_DIAG_DESTROY=y
CONFIG_NET_SCHED=y
CONFIG_NET_SCH_PRIO=m
CONFIG_NET_SCH_NETEM=m
CONFIG_NET_CLS_U32=m
CONFIG_BLK_DEV_LOOP=m
CONFIG_BLK_DEV_RAM=m
CONFIG_BLK_DEV_NBD=m
CONFIG_MD=y
CONFIG_BLK_DEV_MD=m
CONFIG_MD_RAID1=m
CONFIG_BLK_DEV_DM=m
CONFIG_DM_DELAY=m
CONFIG_DM_MIRROR=m
CONFIG_DM_LOG_WRITES=m
CONFIG_CRYPTO_HMAC=y
CONFIG_CRYPTO_SHA256=y
CONFIG_CRYPTO_CRC32C=y
CONFIG_TLS=m
CONFIG_CRYPTO_GCM=y
CONFIG_CRYPTO_AES=y
CONFIG_CRYPTO_CHACHA20POLY1305=m
CONFIG_LIBCRC32C=y
CONFIG_DRM=n
CONFIG_SOUND=n
CONFIG_USB_SUPPORT=n
CONFIG_WLAN=n
CONFIG_WIRELESS=n
CONFIG_CFG80211=n
CONFIG_AGP=n
CONFIG_ETHERNET=n
CONFIG_HIBERNATION=n
CONFIG_DEBUG_KERNEL=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF=n
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000
CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN=n
CONFIG_DEBUG_FS=y
CONFIG_DYNAMIC_DEBUG=y
CONFIG_FAULT_INJECTION=y
CONFIG_FAILSLAB=y
CONFIG_FAIL_PAGE_ALLOC=y
CONFIG_FAIL_MAKE_REQUEST=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_DETECT_HUNG_TASK=y
CONFIG_SOFTLOCKUP_DETECTOR=y
CONFIG_WQ_WATCHDOG=y
EOF
}

# The options that must have survived olddefconfig.
KDEBUG_REQUIRED=(KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK FAILSLAB
	FAIL_MAKE_REQUEST FAULT_INJECTION_DEBUG_FS 9P_FS VIRTIO_BLK EXT4_FS XFS_FS BLK_DEV_THROTTLING USER_NS
	CRYPTO_HMAC CRYPTO_SHA256 CRYPTO_CRC32C BLK_DEV_RAM MD_RAID1 DM_LOG_WRITES NF_TABLES
	NF_TABLES_INET INET_TCP_DIAG INET_DIAG_DESTROY NET_SCH_PRIO NET_SCH_NETEM
	NET_CLS_U32 DYNAMIC_DEBUG)

kdebug_hash() {
	{
		cat "$KDEBUG_SCRIPT"
		dpkg-query -W -f='${Version}' linux-source-6.1
	} | sha256sum | cut -c1-16
}

kdebug_build() {
	local dir=$1 tar=/usr/src/linux-source-6.1.tar.xz opt
	local src=$dir/src build=$dir/build jobs
	jobs=$(nproc)
	mkdir -p "$src" "$build"
	echo "kdebug: unpacking $tar" >&2
	tar -xf "$tar" -C "$src" --strip-components=1
	kdebug_fragment >"$dir/fragment.config"
	make -s -C "$src" O="$build" x86_64_defconfig >&2
	make -s -C "$src" O="$build" kvm_guest.config >&2
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" \
		"$build/.config" "$dir/fragment.config" >&2
	make -s -C "$src" O="$build" olddefconfig >&2
	for opt in "${KDEBUG_REQUIRED[@]}"; do
		grep -Eq "^CONFIG_$opt=(y|m)$" "$build/.config" ||
			{ echo "kdebug: CONFIG_$opt did not survive olddefconfig" >&2; return 1; }
	done
	echo "kdebug: building with $jobs jobs" >&2
	nice make -s -C "$src" O="$build" -j"$jobs" bzImage modules >&2
	make -s -C "$src" O="$build" INSTALL_MOD_PATH="$dir/modules" \
		INSTALL_MOD_STRIP=1 modules_install >&2
	cp "$build/arch/x86/boot/bzImage" "$dir/bzImage"
	make -s -C "$src" O="$build" kernelrelease >"$dir/kver.tmp"
	mv "$dir/kver.tmp" "$dir/kver"
}

kdebug() {
	local cache dir
	dst_deps
	dst_install "${KDEBUG_DEPS[@]}"
	cache=${DST_CACHE:-/var/cache/dst-test}
	dir=$cache/kdebug-$(kdebug_hash)
	# The build tree knows its absolute path: built in place, and complete
	# only once "kver" is written, last.
	if [[ ! -f "$dir/kver" ]]; then
		rm -rf "$dir"
		kdebug_build "$dir" || { echo "kdebug: build failed (tree in $dir)" >&2; return 1; }
	fi
	echo "$dir"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	# shellcheck source=tests/lib/deps.sh
	source "$(dirname "$KDEBUG_SCRIPT")/deps.sh"
	kdebug
fi
