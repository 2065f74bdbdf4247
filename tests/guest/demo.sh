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

step "The guest runs Debian's kernel" uname -r
step "Load the dst module" modprobe dst
step "Versions of dstadm, the module and the control interface" dstadm version
step "Create a mirror" dstadm create r0 --alg mirror
step "Create a linear storage" dstadm create big --alg linear
step "Show the storages" dstadm status
step "The same as JSON" dstadm status --json
step "A second storage with the same name is refused" dstadm create r0 --alg linear
step "An unknown algorithm is refused" dstadm create r5 --alg raid5
step "A user without CAP_NET_ADMIN is refused" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups dstadm status
step "Delete the mirror" dstadm delete r0
step "Delete the linear storage" dstadm delete big
step "Nothing left" dstadm status --json
step "Unload the module" rmmod dst
printf '\nDemo finished.\n'
