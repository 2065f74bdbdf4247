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

# The family goes with the module, and a request to it loads the module
# again through its alias net-pf-16-proto-16-family-dst, as with nbd.
unload_dst
! dst_loaded || fail "still loaded"
expect_ok genl ctrl get name dst
dst_loaded || fail "a request to the family did not load the module"
unload_dst
log "family, events, autoload and malformed requests ok"
