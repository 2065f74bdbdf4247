#!/bin/bash
# The "dst" generic netlink family is registered with its version and its
# "events" group, announces create and delete there, rejects malformed
# requests with the right errno, and goes away with the module.
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

NLFUZZ=$DST_ROOT/tests/tools/nlfuzz
want_version=$(sed -n 's/^#define DST_GENL_VERSION[[:space:]]*//p' "$DST_ROOT/src/uapi/dst.h")

load_dst
family=$(genl ctrl get name dst) || fail "genl ctrl get name dst failed"
echo "$family"
grep -q "Name: dst\b" <<<"$family" || fail "family dst not listed"
grep -q "Version: 0x0*$want_version\b" <<<"$family" || fail "family version is not $want_version"
grep -q "name: events\b" <<<"$family" || fail "no events multicast group"

expect_ok "$NLFUZZ" events
expect_ok "$NLFUZZ" cases

unload_dst
expect_fail genl ctrl get name dst
log "family, events and malformed requests ok"
