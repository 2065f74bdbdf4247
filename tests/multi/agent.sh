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
case "$DST_ROLE" in
B) do_export leg /dev/vdb "$ADDR_B:$PORT" --allow "$ADDR_A_B" ;;
C) do_export leg /dev/vdb "$ADDR_C:$PORT" --allow "$ADDR_A_C" ;;
esac
put "$DST_CTL/$DST_ROLE.ready" "$(cut -d' ' -f1 /proc/uptime)"
log "ready"

until [[ -e "$DST_CTL/stop" ]]; do
	for f in "$DST_CTL/$DST_ROLE".cmd.*; do
		[[ -e "$f" && "$f" != *.tmp ]] || continue
		id=${f##*.cmd.}
		rc=0
		bash -c "$(<"$f")" >"$DST_CTL/$DST_ROLE.out.$id" 2>&1 || rc=$?
		rm -f "$f"
		put "$DST_CTL/$DST_ROLE.rc.$id" "$rc"
	done
	sleep 0.2
done
log "stopping"
