#!/bin/bash
# Who may talk to an export, and who may control dst.  A client in a
# network namespace (10.9.0.2, fd09::2 over a veth pair) is refused by an
# export without an allow list (loopback only, said when it is made) and
# by one whose list does not hold it, before any I/O, counted and logged;
# on a read-only entry (longest prefix wins, IPv4 and IPv6, also through
# an IPv6 listener's IPv4-mapped clients) its WRITE gets EROFS from the
# server and the device is unchanged.  Status lists the entries and the
# connected clients.  Every genl command, and joining the events group, is
# refused without CAP_NET_ADMIN in the initial user namespace: as a user,
# and as root of a user namespace (kernel review S4: on 262ada2 a user
# joined "events" and read export configurations; seen failing there).  A
# user with CAP_NET_ADMIN alone may look, not change anything (review S1:
# on 262ada2 such a user exported /dev/ram0; seen failing there).  1000
# connections from outside the allow list cost no server thread, and an
# allowed client is served meanwhile (review S2: on 262ada2 each got a
# thread before the list was checked; seen failing there).  Every
# command but the looks needs CAP_SYS_ADMIN, as CONTROL.md's table says,
# which is read here together with enum dst_cmd (K2-S1: on 20f0e7d a user
# with CAP_NET_ADMIN alone added a remote leg to a running mirror, and
# could join "tls" and take handshakes with their secrets; seen failing
# there).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7300
DSTSEC=$DST_ROOT/tests/tools/dstsec
NLFUZZ=$DST_ROOT/tests/tools/nlfuzz

access_cleanup() {
	local rc=$?
	set +e
	# The veth pair goes with the namespace.
	ip netns del dstc 2>/dev/null
	(exit "$rc")
	mirror_cleanup
}

mirror_setup 2 64
load_dst
trap access_cleanup EXIT

ip netns add dstc
ip link add dstv0 type veth peer name dstv1 netns dstc
ip addr add 10.9.0.1/24 dev dstv0
ip -6 addr add fd09::1/64 dev dstv0 nodad
ip link set dstv0 up
ip -n dstc addr add 10.9.0.2/24 dev dstv1
ip -n dstc -6 addr add fd09::2/64 dev dstv1 nodad
ip -n dstc link set dstv1 up
ip -n dstc link set lo up
NS=(ip netns exec dstc)
wait_for 10 "the namespace reaches 10.9.0.1" "${NS[@]}" ping -c1 -W1 10.9.0.1
wait_for 10 "the namespace reaches fd09::1" "${NS[@]}" ping -c1 -W1 fd09::1

# --- no allow list: loopback clients only ---------------------------------
mark=$(dmesg | wc -l)
out=$(bounded 30 dstadm export e0 --device /dev/ram0 --listen 0.0.0.0:$PORT 2>&1) ||
	fail "export e0: $out"
EXPORTS+=(e0)
echo "$out"
grep -q "only loopback clients may connect" <<<"$out" || fail "dstadm did not say the export is loopback-only"
dmesg | tail -n +$((mark + 1)) | grep -q "export e0: no allow list, accepting loopback clients only" ||
	fail "the kernel log does not say the export is loopback-only"
[[ "$(export_field e0 allow)" == null ]] || fail "an allow list on e0: $(export_field e0 allow)"
expect_ok bounded 60 "$DSTSEC" client 127.0.0.1 $PORT ok
mark=$(dmesg | wc -l)
expect_ok bounded 60 "${NS[@]}" "$DSTSEC" client 10.9.0.1 $PORT denied
[[ "$(export_field e0 denied)" == 1 ]] || fail "denied counter $(export_field e0 denied), want 1"
dmesg | tail -n +$((mark + 1)) | grep -q "export e0: client 10.9.0.2:[0-9]* is not on the allow list" ||
	fail "no log line naming the refused client"
# Refusals are logged rate-limited, counted each.
burst=$SECONDS
for _ in $(seq 1 30); do
	bounded 60 "${NS[@]}" "$DSTSEC" client 10.9.0.1 $PORT denied >/dev/null || fail "denied burst"
done
lines=$(dmesg | tail -n +$((mark + 1)) | grep -c 'not on the allow list' || true)
max=$(ratelimit_max "$burst")
((lines <= max)) || fail "$lines log lines for 31 refused clients in $((SECONDS - burst)) s: not rate-limited (at most $max)"
[[ "$(export_field e0 denied)" == 31 ]] || fail "denied counter $(export_field e0 denied), want 31"
undo_export e0
log "no allow list: loopback served, 10.9.0.2 refused and counted"

# --- allow entries: read-write, read-only, longest prefix, IPv6 -----------
before=$(dev_sha /dev/ram0 64)
do_export e0 /dev/ram0 "[::]:$PORT" --allow 10.9.0.0/24 --allow 10.9.0.2/32,ro \
	--allow fd09::/64,ro --allow 127.0.0.1
want='["10.9.0.0/24","10.9.0.2/32","fd09::/64","127.0.0.1/32"]'
got=$(status_json | jq -c '.exports[] | select(.name == "e0") | [.allow[].prefix]')
[[ "$got" == "$want" ]] || fail "allow list in status: $got, want $want"
got=$(status_json | jq -c '.exports[] | select(.name == "e0") | [.allow[].read_only]')
[[ "$got" == '[false,true,true,false]' ]] || fail "read-only flags in status: $got"
grep -q "allow: 10.9.0.2/32 read-only" <<<"$(bounded 30 dstadm status e0)" || fail "text status lacks the allow list"
# 10.9.0.2 is in 10.9.0.0/24 (rw) but /32 (ro) is longer: read-only.
expect_ok bounded 60 "${NS[@]}" "$DSTPEER" client 10.9.0.1 $PORT write-ro 4096
expect_ok bounded 60 "${NS[@]}" "$DSTPEER" client fd09::1 $PORT write-ro 8192
[[ "$(dev_sha /dev/ram0 64)" == "$before" ]] || fail "a read-only client changed the device"
# 127.0.0.1 (an IPv4-mapped client of the IPv6 listener) may write.
expect_ok bounded 60 "$DSTSEC" client 127.0.0.1 $PORT ok 65536
# ::1 is on no entry.
expect_ok bounded 60 "$DSTSEC" client ::1 $PORT denied
# A connected client shows in the status, with its address.
do_import r0 "127.0.0.1:$PORT" --timeout 20
got=$(status_json | jq -r '.exports[] | select(.name == "e0") | .client_list[0].address')
[[ "$got" == *127.0.0.1* ]] || fail "client list: '$got'"
[[ "$(export_field e0 clients)" == 1 ]] || fail "clients $(export_field e0 clients), want 1"
undo_import r0
undo_export e0
do_export e1 /dev/ram1 10.9.0.1:$PORT --allow 10.9.0.0/24
expect_ok bounded 60 "${NS[@]}" "$DSTSEC" client 10.9.0.1 $PORT ok 4096
undo_export e1
log "allow list: longest prefix, read-only enforced by the server, IPv4 and IPv6"

# --- bad --allow arguments -------------------------------------------------
for bad in x 10.0.0.0/33 fd00::/129 10.0.0.0/ 10.0.0.0/08 "10.0.0.1,rx" ""; do
	expect_error 2 "invalid --allow" dstadm export e9 --device /dev/ram1 \
		--listen 127.0.0.1:$PORT --allow "$bad"
done
args=()
for i in $(seq 0 64); do args+=(--allow "10.0.$i.0/24"); done
expect_error 2 "more than 64 --allow entries" dstadm export e9 --device /dev/ram1 \
	--listen 127.0.0.1:$PORT "${args[@]}"
log "bad --allow arguments refused"

# --- the control channel needs CAP_NET_ADMIN ------------------------------
expect_ok as_user "$NLFUZZ" perm
expect_ok unshare --user --map-root-user "$NLFUZZ" perm
expect_ok as_user unshare --user --map-root-user "$NLFUZZ" perm
nothing_left
log "every command refused without CAP_NET_ADMIN (user, root of a user namespace)"

# --- CAP_NET_ADMIN alone only looks ---------------------------------------
# as_netadmin CMD...: CMD as the user, with CAP_NET_ADMIN and nothing else.
as_netadmin() {
	setpriv --reuid="$DST_USER" --regid="$DST_USER" --init-groups \
		--inh-caps=-all,+net_admin --ambient-caps=+net_admin "$@"
}
expect_ok as_netadmin grep -q '^CapEff:.*00001000$' /proc/self/status
# Every command of enum dst_cmd has a row in CONTROL.md's table, and gets
# EPERM as the table says: a new command is tried without editing this.
mapfile -t cmds < <(sed -n '/^enum dst_cmd {/,/^};/p' "$DST_ROOT/src/uapi/dst.h" |
	sed -n 's/^\t\(DST_CMD_[A-Z_]*\),.*/\1/p')
[[ "${cmds[0]}" == DST_CMD_UNSPEC && "${cmds[-1]}" == DST_CMD_TLS_DONE ]] ||
	fail "enum dst_cmd not read: ${cmds[*]}"
tried=0
for i in "${!cmds[@]}"; do
	name=${cmds[$i]#DST_CMD_}
	[[ "$name" == UNSPEC ]] && continue
	row=$(grep -E "^  \| \`$name\` \| " "$DST_ROOT/docs/CONTROL.md") ||
		fail "CONTROL.md's privilege table has no row for $name"
	case "$row" in
	*"multicast only"*) continue ;;
	*CAP_SYS_ADMIN*) want=1 ;;
	*CAP_NET_ADMIN*) want=not1 ;;
	*) fail "CONTROL.md: no capability for $name: $row" ;;
	esac
	got=$(as_netadmin "$NLFUZZ" try "$i") || fail "nlfuzz try $i ($name)"
	if [[ "$want" == 1 ]]; then
		[[ "$got" == 1 ]] || fail "$name with CAP_NET_ADMIN alone: errno $got, want EPERM"
	else
		[[ "$got" != 1 ]] || fail "$name with CAP_NET_ADMIN: EPERM, the table says it may"
	fi
	tried=$((tried + 1))
done
((tried >= 16)) || fail "only $tried commands tried"
[[ "$(as_netadmin "$NLFUZZ" join events)" == 0 ]] || fail "CAP_NET_ADMIN cannot join events"
[[ "$(as_netadmin "$NLFUZZ" join tls)" == 1 ]] || fail "CAP_NET_ADMIN joined tls"
log "$tried commands tried with CAP_NET_ADMIN alone, each as CONTROL.md's table says"
# What the user of the review (K2-S1) did: looks work, nothing moves data.
expect_ok as_netadmin dstadm status
expect_error 1 "needs CAP_SYS_ADMIN" as_netadmin dstadm create na --alg mirror
expect_error 1 "needs CAP_SYS_ADMIN" as_netadmin dstadm export leak --device /dev/ram0 \
	--listen 127.0.0.1:$PORT
do_export ek /dev/ram1 "127.0.0.1:$PORT"
make_storage mk mirror -- /dev/ram0 -- --assume-clean
expect_error 1 "needs CAP_SYS_ADMIN" as_netadmin dstadm add mk remote "127.0.0.1:$PORT"
expect_error 1 "needs CAP_SYS_ADMIN" as_netadmin dstadm add mk local /dev/ram1
expect_error 1 "needs CAP_SYS_ADMIN" as_netadmin dstadm verify mk --repair
expect_error 1 "needs CAP_SYS_ADMIN" as_netadmin dstadm stop mk
[[ "$(storage_field mk nodes | jq length)" == 1 ]] || fail "a node was added to mk"
[[ "$(export_field ek clients)" == 0 ]] || fail "ek got a client"
expect_ok bounded 30 dstadm stop mk
expect_ok bounded 30 dstadm delete mk
STORAGES=()
undo_export ek
nothing_left
log "CAP_NET_ADMIN alone: status works; create, export, add (remote too), verify, stop refused"

# --- connections from outside the allow list cost nothing -------------------
do_export ef /dev/ram1 "[::]:$PORT" --allow ::1
denied0=$(export_field ef denied)
python3 - "$PORT" >/tmp/flood.log 2>&1 <<'PY' &
import resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
conns = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for _ in range(1000)]
print("connected", len(conns), flush=True)
time.sleep(8)
PY
flood=$!
BG_PIDS+=("$flood")
wait_for 120 "1000 connections made" grep -q connected /tmp/flood.log
threads=$(pgrep -c '^dst-srv/' || true)
log "1000 connections from outside the allow list: $threads server threads"
((threads <= 2)) || fail "$threads server threads for connections the allow list refuses"
do_import rf "[::1]:$PORT" --timeout 20
head -c 1M /dev/urandom >/tmp/rf.data
expect_ok bounded 60 dd if=/tmp/rf.data of="$DEV" bs=1M oflag=direct status=none
[[ "$(dev_sha "$DEV" 1)" == "$(file_sha /tmp/rf.data)" ]] || fail "the allowed client reads back other data"
wait "$flood" || fail "the flood failed: $(cat /tmp/flood.log)"
BG_PIDS=()
denied_at_least() { (($(export_field ef denied) >= $1)); }
wait_for 30 "1000 more denied" denied_at_least $((denied0 + 1000))
undo_import rf
undo_export ef
nothing_left
log "refused before any thread: 1000 connections outside the allow list, allowed client served"
