#!/bin/bash
# Helpers of the multi-host tier, in its guests:
#   source "$DST_ROOT/tests/multi/lib.sh"
# Three guests, each with its own kernel and our module: A (the array host:
# runs tests/multi/NN-*.sh) and B and C (exporters: tests/multi/agent.sh).
# Each has a data disk /dev/vdb of LEG_MIB MiB (A also /dev/vdc, for a
# bitmap; B a /dev/vdc of 1 GiB, for 70-swap), files on the host that outlive a killed guest.  Two point-to-
# point links over QEMU UDP socket netdevs bound to 127.0.0.1, nothing
# else: A-B 10.0.1.0/24 and A-C 10.0.2.0/24.  The host (tests/lib/multi.sh)
# does what a guest cannot do itself: requests through files in $DST_CTL.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

LEG_MIB=128
PORT=7000
ADDR_B=10.0.1.2
ADDR_C=10.0.2.3
# A's ends of the two links: the only client each export allows.
ADDR_A_B=10.0.1.1
ADDR_A_C=10.0.2.1
MAC_A_C=52:54:00:00:02:01
C_OPTS=()
# Options of every remote node A adds (multi_tls on: TLS with the key).
NODE_OPTS=()
TLS_KEY=/tmp/multi-tls.key
# shellcheck disable=SC2034 # used by the tests that source this
# Set by the runner from the kernel command line.
DST_ROLE=${DST_ROLE:?}
DST_CTL=${DST_CTL:?}

# link_of MAC: the name of the interface with MAC.
link_of() {
	local ifc
	ifc=$(ip -o link | awk -v m="$1" 'index($0, m) { sub(":", "", $2); print $2 }')
	[[ -n "$ifc" ]] || fail "no interface with MAC $1"
	echo "$ifc"
}

# link_up MAC CIDR: address and bring up the interface with MAC.
link_up() {
	local ifc
	ifc=$(link_of "$1")
	ip addr replace "$2" dev "$ifc"
	ip link set "$ifc" up
}

# net_up: the links of this guest, by its role.
net_up() {
	ip link set lo up
	case "$DST_ROLE" in
	A)
		link_up 52:54:00:00:01:01 "$ADDR_A_B/24"
		link_up "$MAC_A_C" "$ADDR_A_C/24"
		;;
	B) link_up 52:54:00:00:01:02 "$ADDR_B/24" ;;
	C) link_up 52:54:00:00:02:03 "$ADDR_C/24" ;;
	*) fail "unknown role '$DST_ROLE'" ;;
	esac
}

# put FILE TEXT: write FILE whole or not at all (the others poll for it).
put() {
	echo "$2" >"$1.tmp"
	mv "$1.tmp" "$1"
}

# host REQUEST: ask the host, and wait until it is done.  Requests:
# "kill B|C" (SIGKILL of the whole guest), "boot B|C" (boot it again and
# wait for its agent), "link B|C off|on" (the guest's cable, QEMU
# set_link), "crash A TESTS" (SIGKILL of A, then boot A again to run TESTS:
# never returns).
LINKS_CUT=()
host() {
	local id l
	local -a keep=()
	id=req.$(date +%s%N).$RANDOM
	log "host: $*"
	put "$DST_CTL/$id" "$*"
	wait_for 600 "the host to do '$*'" test -e "$DST_CTL/$id.done"
	if [[ "$1" == link ]]; then
		for l in "${LINKS_CUT[@]}"; do [[ "$l" == "$2" ]] || keep+=("$l"); done
		[[ "$3" == on ]] || keep+=("$2")
		LINKS_CUT=("${keep[@]}")
	fi
}

# multi_cleanup: mirror_cleanup, after the cables a failed test left out
# are put back, so that the next test finds its peers (run it from an EXIT
# trap).
multi_cleanup() {
	local rc=$? l
	set +e
	for l in "${LINKS_CUT[@]}"; do (host link "$l" on) || echo "cleanup: link $l not back"; done
	LINKS_CUT=()
	if [[ -e "$DST_CTL/tls" ]]; then (multi_tls off) || echo "cleanup: TLS not off"; fi
	(exit "$rc")
	mirror_cleanup
}

# tls_agent: dstadm tlsd runs in this guest (started once, kept; it
# follows the module as each test loads it again) and has joined.
tls_agent() {
	if ! pgrep -f "dstadm tlsd" >/dev/null; then
		dstadm tlsd >/dev/null 2>>/tmp/tlsd.log &
		disown
	fi
	wait_for 20 "the TLS agent" tls_agent_ready
}
tls_agent_ready() { grep -E "ready|went away" /tmp/tlsd.log 2>/dev/null | tail -n1 | grep -q ready; }

# export_leg: B's or C's export of /dev/vdb to A, with TLS (PSK, the key
# of $DST_CTL/tls) while that file exists: after a reboot too.
export_leg() {
	local -a opts=()
	if [[ -e "$DST_CTL/tls" ]]; then
		(umask 077 && cp "$DST_CTL/tls" "$TLS_KEY")
		tls_agent
		opts=(--secret-file "$TLS_KEY" --tls)
	fi
	case "$DST_ROLE" in
	B) do_export leg /dev/vdb "$ADDR_B:$PORT" --allow "$ADDR_A_B" "${opts[@]}" ;;
	C) do_export leg /dev/vdb "$ADDR_C:$PORT" --allow "$ADDR_A_C" "${opts[@]}" ;;
	esac
}

# multi_tls on|off (on A): B's and C's exports with TLS or without, now
# and when they boot again; A's remote nodes (NODE_OPTS, do_import's
# options through TLS_OPTS) likewise.
TLS_OPTS=()
multi_tls() {
	local r
	if [[ "$1" == on ]]; then
		put "$DST_CTL/tls" "multi-tls-$RANDOM$RANDOM"
		(umask 077 && cp "$DST_CTL/tls" "$TLS_KEY")
		tls_agent
		TLS_OPTS=(--secret-file "$TLS_KEY" --tls)
	else
		rm -f "$DST_CTL/tls"
		TLS_OPTS=()
	fi
	NODE_OPTS=("${TLS_OPTS[@]}")
	for r in B C; do
		on "$r" "source $DST_ROOT/tests/multi/lib.sh && undo_export leg && export_leg" ||
			fail "$r did not export again with TLS $1"
	done
	log "TLS $1 for B's and C's exports"
}

# on ROLE CMD: run the bash command CMD on guest ROLE and print its output;
# returns its exit status.
on() {
	local role=$1 id rc
	shift
	id=$(date +%s%N).$RANDOM
	put "$DST_CTL/$role.cmd.$id" "$*"
	: >"$DST_CTL/$role.kick"
	wait_for 600 "$role to run '$*'" test -e "$DST_CTL/$role.rc.$id"
	cat "$DST_CTL/$role.out.$id"
	rc=$(<"$DST_CTL/$role.rc.$id")
	rm -f "$DST_CTL/$role".*."$id"
	return "$rc"
}

# leg_sha: sha256 of this guest's data disk, read with O_DIRECT.
leg_sha() { dev_sha /dev/vdb "$LEG_MIB"; }

# remote_leg_sha ROLE
remote_leg_sha() {
	on "$1" "dd if=/dev/vdb bs=1M count=$LEG_MIB iflag=direct status=none | sha256sum | cut -c1-64"
}

# MIB_SUMS: a command that prints the md5 of each MiB of /dev/vdb.
MIB_SUMS="for ((m = 0; m < $LEG_MIB; m++)); do
	dd if=/dev/vdb bs=1M count=1 skip=\$m iflag=direct status=none | md5sum | cut -c1-32
done"

# mib_diff ROLE: the MiB of ROLE's data disk that differ from A's.
mib_diff() {
	local m=0 a b
	local -a out=()
	while read -r a <&3 && read -r b <&4; do
		[[ "$a" == "$b" ]] || out+=("$m")
		m=$((m + 1))
	done 3< <(eval "$MIB_SUMS") 4< <(on "$1" "$MIB_SUMS")
	echo "${out[*]}"
}

# three_identical: A's, B's and C's data disks, each read on its own host;
# where they differ, which MiB and the module's log lines of each.
three_identical() {
	local a b c r
	a=$(leg_sha)
	b=$(remote_leg_sha B) || fail "sha256 on B failed"
	c=$(remote_leg_sha C) || fail "sha256 on C failed"
	if ! [[ "$a" == "$b" && "$a" == "$c" ]]; then
		for r in B C; do
			echo "MiB of $r that differ from A's: $(mib_diff "$r")"
			echo "----- $r: dmesg | grep dst -----"
			on "$r" "dmesg | grep dst_storage | tail -n 40" || true
		done
		echo "----- A: dmesg | grep dst -----"
		dmesg | grep dst_storage | tail -n 60
		fail "legs differ: A $a, B $b, C $c"
	fi
	log "the legs on A, B and C are identical ($a)"
}

# mirror_abc NAME [CREATE_OPTIONS...] -- [START_OPTIONS...]: a mirror of
# A's /dev/vdb and the exports of B and C, remote nodes that give up on a
# request after 5 s and retry every 1 s at most, C's with the options of
# the array C_OPTS if set; sets DEV.
mirror_abc() {
	local name=$1 n=0 node out
	local -a create=() opts
	shift
	while (($#)) && [[ "$1" != -- ]]; do
		create+=("$1")
		shift
	done
	(($#)) && shift
	expect_ok bounded 30 dstadm create "$name" --alg mirror "${create[@]}"
	STORAGES+=("$name")
	out=$(bounded 30 dstadm add "$name" local /dev/vdb) || fail "add local /dev/vdb"
	[[ "$out" == node0 ]] || fail "add printed $out"
	for node in "$ADDR_B:$PORT" "$ADDR_C:$PORT"; do
		n=$((n + 1))
		opts=()
		[[ "$node" == "$ADDR_C:$PORT" ]] && opts=("${C_OPTS[@]}")
		opts+=("${NODE_OPTS[@]}")
		# After a crash of A, the export may hold A's old connection as
		# its writer until TCP gives up on it (one writer at a time):
		# try again, as dst.service does, for up to 2 minutes.
		for ((try = 1; ; try++)); do
			out=$(bounded 60 dstadm add "$name" remote "$node" --timeout 5 \
				--reconnect-max 1 "${opts[@]}" 2>/tmp/mirror_abc.err) && break
			cat /tmp/mirror_abc.err >&2
			if ! grep -q "another client writes" /tmp/mirror_abc.err ||
				((try >= 24)); then
				fail "add remote $node"
			fi
			sleep 5
		done
		[[ "$out" == "node$n" ]] || fail "add printed $out"
	done
	expect_ok bounded 60 dstadm start "$name" "$@"
	DEV=$(storage_dev "$name")
	wait_for 10 "$DEV to appear" test -b "$DEV"
	log "mirror $name of A:/dev/vdb, B and C: $DEV"
}
