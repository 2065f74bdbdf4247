#!/bin/bash
# Boots the cached guest image under QEMU with a directory shared over
# virtio-9p (mount tag "dst", mounted at /mnt/dst in the guest).
#
#   source tests/lib/vm.sh
#   vm_run IMAGE_DIR SHARE_DIR TIMEOUT_S CONSOLE_LOG [CMDLINE_EXTRA...]
#
# Returns QEMU's status; 124 when the guest was still running after
# TIMEOUT_S seconds (it is killed then). The serial console goes to
# CONSOLE_LOG, and also to stdout when DST_VM_LIVE=1.
# Env: DST_KVM=1 uses KVM (broken on nested hosts), DST_VM_MEM (MiB,
# default 2048), DST_VM_SMP (default 2), DST_QEMU_EXTRA (more QEMU args),
# DST_VM_ROOT_DRIVE (the -drive of the root disk instead of a throw-away
# snapshot of the image), DST_VM_KERNEL and DST_VM_INITRD (another kernel
# than the image's; DST_VM_INITRD=none boots without an initramfs).
set -euo pipefail

vm_accel_args() {
	if [[ "${DST_KVM:-0}" == 1 ]]; then
		echo "-accel kvm -cpu host"
	else
		echo "-accel tcg,thread=multi"
	fi
}

vm_qemu_cmd() {
	local img=$1 share=$2 append=$3
	local -a accel extra initrd=(-initrd "${DST_VM_INITRD:-$img/initrd.img}")
	read -r -a accel <<<"$(vm_accel_args)"
	read -r -a extra <<<"${DST_QEMU_EXTRA:-}"
	[[ "${DST_VM_INITRD:-}" != none ]] || initrd=()
	VM_CMD=(
		qemu-system-x86_64 -machine q35 "${accel[@]}"
		-smp "${DST_VM_SMP:-2}" -m "${DST_VM_MEM:-2048}"
		-kernel "${DST_VM_KERNEL:-$img/vmlinuz}" "${initrd[@]}" -append "$append"
		-drive "${DST_VM_ROOT_DRIVE:-file=$img/rootfs.ext4,if=virtio,format=raw,snapshot=on}"
		-fsdev "local,id=dstfs,path=$share,security_model=none,multidevs=remap"
		-device "virtio-9p-pci,fsdev=dstfs,mount_tag=dst"
		-display none -monitor none -serial stdio
		-nodefaults -no-reboot -nic none "${extra[@]}"
	)
}

vm_run() {
	local img=$1 share=$2 tmo=$3 log=$4
	shift 4
	local append="root=/dev/vda rw console=ttyS0 panic=-1 log_buf_len=4M init=/sbin/dst-test-init $*"
	local rc
	[[ -f "$img/rootfs.ext4" ]] || { echo "vm: no image in $img" >&2; return 1; }
	vm_qemu_cmd "$img" "$(readlink -f "$share")" "$append"
	echo "${VM_CMD[*]}" >"$log.cmd"
	if [[ "${DST_VM_LIVE:-0}" == 1 ]]; then
		timeout --kill-after=10 "$tmo" "${VM_CMD[@]}" </dev/null 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	else
		rc=0
		timeout --kill-after=10 "$tmo" "${VM_CMD[@]}" </dev/null >"$log" 2>&1 || rc=$?
	fi
	if ((rc == 124 || rc == 137)); then
		echo "vm: guest did not finish within $tmo s (killed)" >&2
		return 124
	fi
	return "$rc"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	if (($# < 4)); then
		echo "usage: $0 IMAGE_DIR SHARE_DIR TIMEOUT_S CONSOLE_LOG [CMDLINE_EXTRA...]" >&2
		exit 2
	fi
	vm_run "$@"
fi
