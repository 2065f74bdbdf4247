#!/bin/bash
# Install the host packages needed to build dst and run its guest tests.
# Idempotent: only calls apt-get when a package is missing.
# Usage: tests/lib/deps.sh            (or source it and call dst_deps)
set -euo pipefail

DST_DEPS=(
	qemu-system-x86 qemu-utils mmdebstrap e2fsprogs
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	libmnl-dev libjson-c-dev libgnutls28-dev libcmocka-dev libssl-dev libxxhash-dev pkg-config gcc make
	jq python3 valgrind shellcheck man-db xz-utils kmod perl
	clang debhelper dh-dkms lintian dpkg-dev bash-completion
)

# Prints the packages from "$@" that are not installed.
dst_missing_pkgs() {
	local p status
	for p in "$@"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[[ "$status" == installed ]] || echo "$p"
	done
}

# Installs the packages of "$@" that are missing.
dst_install() {
	local missing
	mapfile -t missing < <(dst_missing_pkgs "$@")
	((${#missing[@]} == 0)) && return 0
	echo "deps: installing ${missing[*]}" >&2
	if [[ $(id -u) -ne 0 ]]; then
		echo "deps: need root to install packages" >&2
		return 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

dst_deps() {
	dst_install "${DST_DEPS[@]}"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	dst_deps
fi
