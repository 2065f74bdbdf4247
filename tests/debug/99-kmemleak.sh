#!/bin/bash
# Last test of the debug tier: a round of every kind of object (storages,
# nodes local and remote, an export with an allow list and a secret, a
# mirror with a bitmap), all removed again: kmemleak must then find no
# object allocated through dst that nothing references, with the module
# loaded and once it is unloaded (the runner scans after every test and
# after the last one as well).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

[[ -w $DST_KMEMLEAK ]] || fail "no $DST_KMEMLEAK: not the debug kernel, or kmemleak is off"
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
leaks=$(kmemleak_dst)
n=$(tail -n1 <<<"$leaks")
log "kmemleak: $n object(s) allocated through dst unreferenced, the module loaded"
((n == 0)) || fail "kmemleak: $n object(s) leaked through dst: $leaks"
# What module_exit leaves: the module unloaded, its frames then bare
# addresses in the range noted at its load (tests/guest/kmemleak.sh).
dst_note_text
unload_dst
# Twice: a scan right after the unload may still find a pointer to the
# object on a stack or in a register (seen with a module that leaked in
# module_exit: found only by a second scan).
sleep 6
leaks=$(kmemleak_dst)
n=$(tail -n1 <<<"$leaks")
if ((n == 0)); then
	sleep 2
	leaks=$(kmemleak_dst)
	n=$(tail -n1 <<<"$leaks")
fi
log "kmemleak: $n object(s) allocated through dst unreferenced, the module unloaded"
((n == 0)) || fail "kmemleak: $n object(s) leaked through dst by its unload: $leaks"
