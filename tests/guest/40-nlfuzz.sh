#!/bin/bash
# 10 000 random and malformed netlink requests leave the module working and
# the kernel log clean (the runner checks the log and the unload).
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

load_dst
expect_ok "$DST_ROOT/tests/tools/nlfuzz" fuzz "${DST_FUZZ_SEED:-1}" "${DST_FUZZ_COUNT:-10000}"

# Still working: a full round trip.
expect_ok dstadm create after-fuzz --alg mirror
dstadm status after-fuzz --json | jq -e '.storages[0].state == "stopped"' >/dev/null ||
	fail "status after fuzz"
for name in $(dstadm status --json | jq -r '.storages[].name'); do
	expect_ok dstadm delete "$name"
done
unload_dst
log "module survived the fuzzer"
