#!/bin/bash
# Helpers for guest test scripts: source "$DST_ROOT/tests/guest/lib.sh".
# Tests run as root with cwd = share root (/mnt/dst); a test passes when it
# exits 0, leaves the dst module unloadable and the kernel log clean.
set -euo pipefail

DST_ROOT=${DST_ROOT:-/mnt/dst}
DST_KO=${DST_KO:-$DST_ROOT/src/dst_storage.ko}
DST_USER=${DST_USER:-dsttest}

log() { echo "[$(basename "$0" .sh)] $*"; }

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_rc RC CMD...: CMD must exit with status RC. Its stdout passes
# through; its stderr is printed (prefixed) on stderr.
expect_rc() {
	local want=$1 rc=0 err
	shift
	err=$(mktemp)
	"$@" 2>"$err" || rc=$?
	if [[ -s "$err" ]]; then sed 's/^/  stderr: /' "$err" >&2; fi
	rm -f "$err"
	if [[ "$rc" != "$want" ]]; then
		fail "'$*' exited $rc, expected $want"
	fi
}

# expect_ok CMD...: CMD must succeed.
expect_ok() {
	local rc=0 err
	err=$(mktemp)
	"$@" 2>"$err" || rc=$?
	if [[ -s "$err" ]]; then sed 's/^/  stderr: /' "$err" >&2; fi
	rm -f "$err"
	((rc == 0)) || fail "'$*' failed with status $rc"
}

# expect_fail CMD...: CMD must fail (exit non-zero).
expect_fail() {
	local rc=0 err
	err=$(mktemp)
	"$@" 2>"$err" || rc=$?
	if [[ -s "$err" ]]; then sed 's/^/  stderr: /' "$err" >&2; fi
	rm -f "$err"
	((rc != 0)) || fail "'$*' succeeded, expected failure"
	log "failed as expected ($rc): $*"
}

# expect_error RC PATTERN CMD...: CMD exits RC and says PATTERN on stderr.
expect_error() {
	local want=$1 pattern=$2 rc=0 err
	shift 2
	err=$(mktemp)
	"$@" >/dev/null 2>"$err" || rc=$?
	sed 's/^/  stderr: /' "$err" >&2
	((rc == want)) || fail "'$*' exited $rc, expected $want"
	grep -q -- "$pattern" "$err" || fail "'$*' did not say '$pattern'"
	rm -f "$err"
}

dst_loaded() { grep -q '^dst_storage ' /proc/modules; }

# kmsg_mark; STEP; grep -q PATTERN <(kmsg_new): the kernel's lines since
# the mark, so that a check of what the kernel said sees the step's lines
# only, not an earlier test's or step's (tests audit L6).  Not through a
# pipe: under pipefail, grep -q ending at its first match fails it.
kmsg_mark() {
	KMSG_MARK="dst-test: mark $SECONDS.$RANDOM$RANDOM"
	echo "$KMSG_MARK" >/dev/kmsg
}
kmsg_new() { dmesg | sed -n "/${KMSG_MARK:?kmsg_mark first}/,\$p"; }

# shellcheck source=tests/guest/kmemleak.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/kmemleak.sh"

# tests/debug/kdelay as built for the kernel the guest runs: by make tools
# for Debian's, by the debug tier for its own.
# shellcheck disable=SC2034 # used by the tests that source this
if [[ "${DST_MODE:-}" == debug ]]; then
	KDELAY=${DST_ROOT:-/mnt/dst}/tests/out/debug-build/kdelay/kdelay.ko
else
	KDELAY=${DST_ROOT:-/mnt/dst}/tests/out/kdelay/kdelay.ko
fi

# Bytes sent over loopback so far (what a remote leg's traffic costs).
lo_bytes() { cat /sys/class/net/lo/statistics/tx_bytes; }

# shellcheck disable=SC2120 # optional module parameters
load_dst() {
	dst_loaded && return 0
	modprobe dst_storage "$@" || fail "modprobe dst_storage $* failed"
	[[ "${DST_MODE:-}" != debug ]] || dst_note_text
}

unload_dst() {
	dst_loaded || return 0
	rmmod dst_storage || fail "rmmod dst_storage failed"
}

# as_user CMD...: runs CMD as the unprivileged user dsttest.
as_user() {
	setpriv --reuid="$DST_USER" --regid="$DST_USER" --init-groups \
		env HOME="/home/$DST_USER" USER="$DST_USER" LOGNAME="$DST_USER" "$@"
}
