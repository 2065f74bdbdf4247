#!/bin/bash
# /etc/dst.conf at work: check-config and dump read it; up creates, fills
# and starts what it describes in dependency order (a linear storage on
# the mirror's /dev/dst/m after the mirror, the export of the linear one
# last), whatever the order in the file, and a second up changes nothing;
# showconf prints what runs as a file from which up makes it again;
# data written through the top lands on the mirror's legs; down removes
# it all in the reverse order; up NAME and down NAME act on NAME and what
# it needs; adjust (and --dry-run) swaps a mirror leg and moves an export
# as the file says, then has nothing left to do, and refuses to change a
# running linear storage's nodes; an invalid file is refused with file,
# line and column, and nothing of it is applied.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

CONF=/tmp/dst-test.conf
cleanup() {
	set +e
	dstadm down -c "$CONF" >/dev/null 2>&1
	udevadm control --exit 2>/dev/null
	rm -f /etc/udev/rules.d/60-dst.rules
	mirror_cleanup
}
trap cleanup EXIT

mirror_setup 4 32
cp "$DST_ROOT/dstadm/60-dst.rules" /etc/udev/rules.d/
/lib/systemd/systemd-udevd --daemon
udevadm settle -t 30
rm -f /tmp/dst-m.bitmap
cat >"$CONF" <<'CONF'
# The top first: up puts it in order.
storage l {
	alg linear
	node local /dev/dst/m	# the mirror below
	node local /dev/ram2
}

storage m {
	alg mirror
	chunk-size 1M
	bitmap /tmp/dst-m.bitmap
	node local /dev/ram0
	node local /dev/ram1
}

export lx {
	device /dev/dst/l
	listen 127.0.0.1:7700
}
CONF

expect_ok dstadm check-config "$CONF"
grep -q "^	node local /dev/dst/m$" <<<"$(dstadm dump -c "$CONF")" || fail "dump lacks the node /dev/dst/m"
out=$(bounded 120 dstadm up -c "$CONF") || fail "up failed: $out"
echo "$out"
order=$(tr '\n' ' ' <<<"$out")
[[ "$order" == "m: created with 2 node(s) m: started l: created with 2 node(s) l: started lx: exported on 127.0.0.1:7700 " ]] ||
	fail "up did not go in dependency order: $order"
[[ "$(storage_field m state)" == running && "$(storage_field l state)" == running ]] ||
	fail "m and l are not running"
[[ "$(export_field lx device)" == /dev/dst/l ]] || fail "lx does not serve /dev/dst/l"
[[ "$(storage_field m bitmap)" == /tmp/dst-m.bitmap ]] || fail "m has not its bitmap"
out=$(bounded 60 dstadm up -c "$CONF") || fail "second up failed"
[[ -z "$out" ]] || fail "a second up changed something: $out"
wait_in_sync m

# showconf: what runs, as a file that check-config takes and from which
# up makes the same storages and export again.
shape() {
	status_json | jq -c '[.storages[] | [.name, .algorithm, .chunk_size, .bitmap, [.nodes[].path]]],
		[.exports[] | [.name, .device, .listen, .read_only]]'
}
before=$(shape)
expect_ok bounded 30 dstadm showconf
bounded 30 dstadm showconf >/tmp/show.conf
cat /tmp/show.conf
expect_ok dstadm check-config /tmp/show.conf
expect_ok bounded 120 dstadm down -c "$CONF"
expect_ok bounded 120 dstadm up -c /tmp/show.conf
[[ "$(shape)" == "$before" ]] || fail "up of showconf's file made $(shape), not $before"
[[ "$(storage_field m started)" == clean ]] || fail "m did not start clean again"

# Through the top to the legs.
expect_ok dd if=/dev/urandom of=/tmp/data bs=1M count=8 status=none
expect_ok dd if=/tmp/data of=/dev/dst/l bs=1M oflag=direct status=none
want_sha=$(file_sha /tmp/data)
for leg in /dev/ram0 /dev/ram1; do
	[[ "$(dev_sha "$leg" 8)" == "$want_sha" ]] || fail "$leg lacks the data written through l"
done

# adjust: node1 of m becomes /dev/ram3, lx moves to port 7701.
sed -i 's|node local /dev/ram1|node local /dev/ram3|; s|127.0.0.1:7700|127.0.0.1:7701|' "$CONF"
out=$(bounded 60 dstadm adjust --dry-run -c "$CONF") || fail "adjust --dry-run failed: $out"
want="m: add local /dev/ram3|m: remove node1|lx: unexport, to export it again as configured|lx: export on 127.0.0.1:7701|"
[[ "$(tr '\n' '|' <<<"$out")" == "$want" ]] || fail "adjust --dry-run printed: $out"
[[ "$(leg_field m 1 path)" == /dev/ram1 && "$(export_field lx listen)" == 127.0.0.1:7700 ]] ||
	fail "adjust --dry-run changed something"
out=$(bounded 120 dstadm adjust -c "$CONF") || fail "adjust failed: $out"
echo "$out"
[[ "$(status_json | jq -r '.storages[] | select(.name == "m") | [.nodes[].path] | join(" ")')" == "/dev/ram0 /dev/ram3" ]] ||
	fail "m's legs are not /dev/ram0 /dev/ram3 after adjust"
[[ "$(export_field lx listen)" == 127.0.0.1:7701 ]] || fail "lx did not move to port 7701"
wait_in_sync m
[[ "$(dev_sha /dev/ram3 8)" == "$want_sha" ]] || fail "the new leg lacks the data"
out=$(bounded 60 dstadm adjust -c "$CONF") || fail "a second adjust failed"
[[ -z "$out" ]] || fail "a second adjust changed something: $out"
sed -i 's|node local /dev/ram2|node local /dev/ram1|' "$CONF"
out=$(bounded 60 dstadm adjust -c "$CONF" 2>&1) && fail "adjust changed a running linear storage's nodes"
[[ "$out" == *"its nodes change only while stopped"* ]] || fail "no reason for the linear storage: $out"
sed -i 's|node local /dev/ram1|node local /dev/ram2|' "$CONF"

out=$(bounded 120 dstadm down -c "$CONF") || fail "down failed: $out"
order=$(tr '\n' ' ' <<<"$out")
[[ "$order" == "lx: unexported l: stopped and deleted m: stopped and deleted " ]] ||
	fail "down did not go in reverse order: $order"
[[ "$(status_json | jq '(.storages | length) + (.exports | length)')" == 0 ]] ||
	fail "down left something"

# One storage, then an export and what it needs; the mirror now starts
# clean from its bitmap.
out=$(bounded 60 dstadm up m -c "$CONF") || fail "up m failed"
[[ "$(status_json | jq -r '[.storages[].name] | join(" ")')" == m ]] || fail "up m made more than m"
[[ "$(storage_field m started)" == clean ]] || fail "m did not start clean from its bitmap"
out=$(bounded 60 dstadm up lx -c "$CONF") || fail "up lx failed"
[[ "$out" == *"l: started"*"lx: exported"* ]] || fail "up lx did not make l and lx: $out"
out=$(bounded 60 dstadm down l -c "$CONF") || fail "down l failed"
[[ "$(status_json | jq -r '[.storages[].name] | join(" ")')" == m ]] || fail "down l left other than m"
[[ "$(status_json | jq '.exports | length')" == 0 ]] || fail "down l left lx"
expect_ok bounded 60 dstadm down -c "$CONF"

# A disk that is there but empty (a loop device with no file, a reader
# with no card) is as missing: not a node of size 0.
empty=$(losetup -f)
expect_ok dstadm create e --alg linear
expect_error 1 "the device is empty (0 bytes)" dstadm add e local "$empty"
expect_ok dstadm delete e

# A disk missing at boot (ecosystem review D3, D4): up brings up all the
# rest, never a linear storage short of a node (not even on a second up),
# a mirror short of a leg only with start-degraded, and names what is not
# up; down goes on past a storage in use.
cat >/tmp/miss.conf <<'CONF'
storage big {
	alg linear
	node local /dev/ram2
	node local /dev/nosuch-disk
}
storage top {
	alg linear
	node local /dev/dst/big
}
export bigx {
	device /dev/dst/big
	listen 127.0.0.1:7702
}
storage d {
	alg mirror
	node local /dev/ram3
	node local /dev/nosuch-leg
}
storage m {
	alg mirror
	node local /dev/ram0
	node local /dev/ram1
}
CONF
expect_ok dstadm check-config /tmp/miss.conf
for run in 1 2; do
	out=$(bounded 120 dstadm up -c /tmp/miss.conf 2>&1) && fail "up $run took a missing disk: $out"
	echo "$out"
	[[ "$out" == *"dstadm: not up: big, top, d, bigx"* ]] || fail "up $run did not name all that is not up: $out"
	[[ "$(storage_field m state)" == running ]] || fail "up $run did not bring up m alongside"
	status_json | jq -e '[.storages[].name] | index("big") == null and index("top") == null' >/dev/null ||
		fail "up $run left big or top behind: $(status_json | jq -c '[.storages[] | [.name, .state]]')"
	[[ "$(storage_field d state)" == stopped ]] || fail "up $run started d without a leg"
	[[ "$(status_json | jq '.exports | length')" == 0 ]] || fail "up $run exported bigx"
done
[[ "$out" == *"storage 'big': 1 of its 2 nodes missing: not started (a linear storage starts only whole)"* &&
	"$out" == *"storage 'd': 1 of its 2 legs missing: not started (start-degraded is not set)"* ]] ||
	fail "up did not say why: $out"
sed -i 's|^\talg mirror$|&\n\tstart-degraded|' /tmp/miss.conf
expect_ok dstadm check-config /tmp/miss.conf
out=$(bounded 120 dstadm up -c /tmp/miss.conf 2>&1) && fail "up took a missing disk: $out"
[[ "$out" == *"warning: storage 'd' starts degraded, 1 of its 2 legs missing (start-degraded)"* &&
	"$out" == *"dstadm: not up: big, top, bigx"* ]] || fail "up with start-degraded: $out"
[[ "$(storage_field d state)" == running ]] || fail "d did not start degraded"
exec 4</dev/dst/m
out=$(bounded 120 dstadm down -c /tmp/miss.conf 2>&1) && fail "down deleted a storage in use: $out"
exec 4<&-
[[ "$out" == *"d: stopped and deleted"* && "$out" == *"dstadm: still up: m"* ]] ||
	fail "down did not go on past m in use: $out"
expect_ok bounded 60 dstadm down -c /tmp/miss.conf
[[ "$(status_json | jq '(.storages | length) + (.exports | length)')" == 0 ]] ||
	fail "down left something"

# Invalid: nothing applied, the place named.
cp "$CONF" /tmp/bad.conf
printf 'storage z {\n\talg linear\n\tnode local /dev/ram2 extra\n}\n' >>/tmp/bad.conf
out=$(bounded 60 dstadm up -c /tmp/bad.conf 2>&1) && fail "up took an invalid config"
[[ "$out" == *"/tmp/bad.conf:22:23: expected end of line after a local node, found 'extra'"* ]] ||
	fail "no file:line:column in: $out"
[[ "$(status_json | jq '(.storages | length) + (.exports | length)')" == 0 ]] ||
	fail "an invalid config was partly applied"
expect_rc 1 dstadm check-config /tmp/bad.conf
expect_rc 1 dstadm up nosuch -c "$CONF"
expect_rc 1 dstadm check-config /nonexistent.conf
nothing_left
