#!/bin/bash
# Agent of guests B and C in the multi-host tier: exports /dev/vdb on its
# link to A, says it is ready, and runs the commands A sends (see "on" in
# lib.sh) until the host says stop.  Run as a test by the runner, so the
# kernel log of the guest is checked at the end.
set -euo pipefail
# shellcheck source=tests/multi/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/multi/lib.sh"
trap mirror_cleanup EXIT

net_up
load_dst
export_leg
put "$DST_CTL/$DST_ROLE.ready" "$(cut -d' ' -f1 /proc/uptime)"
log "ready"

# Polled cheaply: under TCG a fork of sleep and a listing of the 9p
# directory five times a second kept a third of a host CPU busy in each
# idle agent, taken from A's tests.  "on" puts its command, then
# ROLE.kick; the kick is removed before the listing, so a command put
# after a listing always leaves a kick for the next round.  read -t on a
# pipe nobody writes is a sleep without a fork.
exec {idle}<> <(:)
kick=$DST_CTL/$DST_ROLE.kick
until [[ -e "$DST_CTL/stop" ]]; do
	if [[ -e "$kick" ]]; then
		rm -f "$kick"
		for f in "$DST_CTL/$DST_ROLE".cmd.*; do
			[[ -e "$f" && "$f" != *.tmp ]] || continue
			id=${f##*.cmd.}
			rc=0
			bash -c "$(<"$f")" >"$DST_CTL/$DST_ROLE.out.$id" 2>&1 || rc=$?
			rm -f "$f"
			put "$DST_CTL/$DST_ROLE.rc.$id" "$rc"
		done
	fi
	read -r -t 0.2 -u "$idle" || true
done
log "stopping"
