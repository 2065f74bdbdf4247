#!/bin/bash
# Last test of the debug tier: a round of every kind of object (storages,
# nodes local and remote, an export with an allow list and a secret, a
# mirror with a bitmap), all removed again, and the module still loaded:
# kmemleak must then find no object allocated through dst that nothing
# references (the runner scans after every test as well).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

K=/sys/kernel/debug/kmemleak
[[ -w $K ]] || fail "no $K: not the debug kernel, or kmemleak is off"
mirror_setup 2 64
load_dst
trap mirror_cleanup EXIT
umask 077
echo leak-test-secret >/tmp/leak.key
do_export e0 /dev/ram0 127.0.0.1:7450 --allow 127.0.0.0/8
make_storage m0 mirror --bitmap /tmp/m0.bitmap -- /dev/ram1 127.0.0.1:7450 -- --assume-clean
drop_storage m0
undo_export e0
do_export e1 /dev/ram0 127.0.0.1:7451 --secret-file /tmp/leak.key
do_import r0 127.0.0.1:7451 --secret-file /tmp/leak.key --integrity
undo_import r0
undo_export e1
nothing_left
# Objects must be unreferenced for a while before kmemleak reports them.
sleep 6
echo scan >"$K"
n=$(awk '/^unreferenced object/ { if (blk ~ /\[dst\]/) n++; blk = $0; next }
	{ blk = blk "\n" $0 } END { if (blk ~ /\[dst\]/) n++; print n + 0 }' "$K")
total=$(grep -c '^unreferenced object' "$K" || true)
log "kmemleak: $total unreferenced object(s) in all, $n allocated through dst"
if ((n > 0)); then
	cat "$K"
	fail "kmemleak: $n object(s) leaked through dst"
fi
