#!/bin/bash
# The module loads and unloads 20 times, says one line per load and nothing
# else, and reports the version of the tree it was built from.
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

version=$(cat "$DST_ROOT/VERSION")
before=$(mktemp)
dmesg >"$before"

for i in $(seq 1 20); do
	load_dst
	[[ "$(cat /sys/module/dst_storage/version)" == "$version" ]] ||
		fail "load $i: /sys/module/dst_storage/version is not $version"
	[[ -d /sys/module/dst_storage ]] || fail "load $i: /sys/module/dst_storage missing"
	unload_dst
	! dst_loaded || fail "unload $i: still loaded"
done

# Only the lines the 20 loads were expected to print; the taint notes of an
# out-of-tree, unsigned module appear once per boot at most.
new=$(dmesg | tail -n +"$(($(wc -l <"$before") + 1))")
noise=$(grep -v -e "dst_storage: version $version loaded" \
	-e 'loading out-of-tree module taints kernel' \
	-e 'module verification failed' <<<"$new" || true)
[[ -z "$noise" ]] || fail "unexpected kernel log lines: $noise"
loads=$(grep -c "dst_storage: version $version loaded" <<<"$new" || true)
((loads == 20)) || fail "expected 20 load lines, got $loads"
log "20 load/unload cycles, kernel log clean"
