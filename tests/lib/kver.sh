#!/bin/bash
# Prints the kernel version the module is built and tested against:
# $KVER if set, else the newest 6.1.*-amd64 with both headers
# (/lib/modules/X/build) and a kernel image (/boot/vmlinuz-X).
set -euo pipefail

dst_kver() {
	if [[ -n "${KVER:-}" ]]; then
		echo "$KVER"
		return 0
	fi
	local d v best=""
	for d in /lib/modules/6.1.*-amd64; do
		v=${d##*/}
		[[ -d "$d/build" && -f "/boot/vmlinuz-$v" ]] || continue
		best+="$v"$'\n'
	done
	best=$(printf '%s' "$best" | sort -V | tail -n1)
	if [[ -z "$best" ]]; then
		echo "kver: no 6.1.*-amd64 kernel with headers and /boot/vmlinuz found" >&2
		return 1
	fi
	echo "$best"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	dst_kver
fi
