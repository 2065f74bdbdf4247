#!/bin/bash
# The multi-host tier on the host (tests/run.sh multi): boots guests B and
# C (exporters) and then A (the array host, runs tests/multi/NN-*.sh), on
# two point-to-point links made of QEMU UDP socket netdevs bound to
# 127.0.0.1, and serves their requests (tests/multi/lib.sh): SIGKILL of a
# guest, boot again, cable cut (HMP set_link), crash of A (with a power
# cut of its disks).
#   source tests/lib/multi.sh; multi_run OUT PATTERN
# Needs KVER, IMG, ROOT (tests/run.sh) and vm_run (tests/lib/vm.sh).
# Output: OUT/{A,B,C}.N/ per boot (results.txt, NAME.log, console.log),
# OUT/counts, and the results on stdout.  Env: DST_MULTI_TIMEOUT (whole
# tier, default 1800 s), DST_GUEST_ENV (settings of the tests, as for the
# guest tier, e.g. DST_LINK_CYCLES=10).
set -euo pipefail

MULTI_DISK_MIB=128
# B's second disk (/dev/vdc): the swap space of A in 70-swap.
MULTI_SWAP_MIB=1024
# shellcheck source=tests/lib/bad-kmsg.sh
source "$(dirname "${BASH_SOURCE[0]}")/bad-kmsg.sh"
declare -A MULTI_PID MULTI_BOOTS

# UDP ports: A's end and the peer's end of each link.
multi_ports() {
	local base=$((20000 + ($$ % 5000) * 4))
	P_AB=$base P_BA=$((base + 1)) P_AC=$((base + 2)) P_CA=$((base + 3))
}

multi_nic() { # ID LOCAL_PORT PEER_PORT MAC
	echo "-netdev socket,id=$1,udp=127.0.0.1:$3,localaddr=127.0.0.1:$2" \
		"-device virtio-net-pci,netdev=$1,mac=$4"
}

multi_disk() { echo "-drive file=$MOUT/disks/$1.img,if=virtio,format=raw,cache=writeback"; }

# multi_logged_disk NAME: A's disk NAME on QEMU's blklogwrites, which logs
# every write and flush in dm-log-writes' format (disks/NAME.log, a new log
# from this boot on, what the disk held then kept as disks/NAME.base), for
# a power cut when A crashes (multi_power_cut).  The log's own flushes are
# left out: the host does not lose its page cache.
multi_logged_disk() {
	local d=$MOUT/disks/$1
	cp --sparse=always "$d.img" "$d.base"
	: >"$d.log"
	echo "-drive if=virtio,cache=writeback,driver=blklogwrites,file.driver=file,file.filename=$d.img,log.driver=file,log.filename=$d.log,log.cache.no-flush=on"
}

# multi_power_cut: after A's QEMU was killed, each of its disks made what
# a disk that loses every write it was not told to flush would hold:
# its image at boot with the writes of its log up to the last flush (FUA
# writes after it too: tests/tools/lwreplay -c).  What lwreplay said goes
# to ctl/A.power-cut for the test (a line FAIL if a replay failed); the
# disks as the SIGKILL left them are kept as NAME.killed, the logs as
# NAME.log.cut.
multi_power_cut() {
	local name d out
	for name in A-leg A-bitmap; do
		d=$MOUT/disks/$name
		cp --sparse=always "$d.base" "$d.cut"
		if out=$("$ROOT/tests/tools/lwreplay" -c "$d.log" "$d.cut" 2>&1); then
			mv "$d.img" "$d.killed"
			mv "$d.cut" "$d.img"
			mv "$d.log" "$d.log.cut"
		else
			out="FAIL $name: $out"
		fi
		echo "multi: power cut: $out"
		echo "$out" >>"$MOUT/ctl/A.power-cut.tmp"
	done
	mv "$MOUT/ctl/A.power-cut.tmp" "$MOUT/ctl/A.power-cut"
}

# multi_boot ROLE [CMDLINE...]: boot the next incarnation of ROLE, in the
# background.
multi_boot() {
	local role=$1 n mode smp mem extra tmo dir
	local -a env=()
	shift
	[[ -z "${DST_GUEST_ENV:-}" ]] || env=("dsttest.env=$DST_GUEST_ENV")
	n=$((${MULTI_BOOTS[$role]:-0} + 1))
	MULTI_BOOTS[$role]=$n
	dir=$MOUT/$role.$n
	mkdir -p "$dir"
	case "$role" in
	A)
		mode=multi smp=2 mem=1536
		extra="$(multi_nic nb "$P_AB" "$P_BA" 52:54:00:00:01:01)"
		extra+=" $(multi_nic nc "$P_AC" "$P_CA" 52:54:00:00:02:01)"
		extra+=" $(multi_logged_disk A-leg) $(multi_logged_disk A-bitmap)"
		;;
	B)
		mode=agent smp=1 mem=768
		extra="$(multi_nic na "$P_BA" "$P_AB" 52:54:00:00:01:02) $(multi_disk B-leg)"
		extra+=" $(multi_disk B-swap)"
		;;
	C)
		mode=agent smp=1 mem=768
		extra="$(multi_nic na "$P_CA" "$P_AC" 52:54:00:00:02:03) $(multi_disk C-leg)"
		;;
	esac
	extra+=" -pidfile $MOUT/ctl/$role.pid -monitor unix:$MOUT/ctl/$role.mon,server=on,wait=off"
	tmo=$((MULTI_END - SECONDS))
	rm -f "$MOUT/ctl/$role.ready" "$MOUT/ctl/$role.pid"
	echo "multi: boot $role ($role.$n)"
	DST_QEMU_EXTRA=$extra DST_VM_SMP=$smp DST_VM_MEM=$mem \
		vm_run "$IMG" "$ROOT" "$tmo" "$dir/console.log" \
		"dsttest.mode=$mode" "dsttest.role=$role" "dsttest.kver=$KVER" \
		"dsttest.results=$MREL/$role.$n" "dsttest.ko=$MKO" \
		"dsttest.moddep=$MREL/stage/moddep" "dsttest.ctl=$MREL/ctl" \
		"dsttest.timeout=$tmo" "${env[@]}" "$@" >/dev/null 2>&1 &
	MULTI_PID[$role]=$!
}

# multi_ready ROLE: wait for ROLE's agent (or its end).
multi_ready() {
	local role=$1
	while [[ ! -e "$MOUT/ctl/$role.ready" ]]; do
		kill -0 "${MULTI_PID[$role]}" 2>/dev/null || return 1
		((SECONDS < MULTI_END)) || return 1
		sleep 0.5
	done
}

# multi_kill ROLE: SIGKILL of its QEMU: a crash of its OS (its disks keep
# every write it completed, flushed or not: no power cut; for A's crash,
# multi_power_cut makes it one).
multi_kill() {
	local role=$1
	if [[ -s "$MOUT/ctl/$role.pid" ]]; then
		kill -9 "$(<"$MOUT/ctl/$role.pid")" 2>/dev/null || true
	fi
	wait "${MULTI_PID[$role]}" 2>/dev/null || true
	echo "multi: killed $role"
}

# multi_hmp ROLE COMMAND: a command on ROLE's QEMU monitor.
multi_hmp() {
	python3 - "$MOUT/ctl/$1.mon" "$2" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
time.sleep(0.2)
s.recv(65536)
s.sendall((sys.argv[2] + "\n").encode())
time.sleep(0.3)
s.recv(65536)
s.close()
PY
}

# multi_serve_one FILE: do a request of A.
multi_serve_one() {
	local req=$1 what role arg tests
	read -r what role arg <"$req"
	echo "multi: request: $what $role $arg"
	case "$what.$role" in
	kill.B | kill.C) multi_kill "$role" ;;
	boot.B | boot.C)
		multi_boot "$role"
		multi_ready "$role" || echo "multi: $role did not come back"
		;;
	link.B | link.C) multi_hmp "$role" "set_link na $arg" ;;
	crash.A)
		tests=$arg
		touch "$req.done"
		multi_kill A
		multi_power_cut
		multi_boot A "dsttest.tests=$tests"
		return
		;;
	*) echo "multi: unknown request '$what $role $arg'" ;;
	esac
	touch "$req.done"
}

# multi_serve: requests until A's last incarnation ends.
multi_serve() {
	local req
	while ((SECONDS < MULTI_END)); do
		for req in "$MOUT"/ctl/req.*; do
			[[ -e "$req" && "$req" != *.tmp && "$req" != *.done ]] || continue
			[[ -e "$req.done" ]] || multi_serve_one "$req"
		done
		kill -0 "${MULTI_PID[A]}" 2>/dev/null || return 0
		sleep 0.3
	done
	echo "multi: out of time after $((SECONDS - MULTI_START)) s"
	return 1
}

# multi_report: results of every incarnation that ended on its own (A's
# crashed one has none for the test it was in), the console of every one
# checked for kernel errors; OUT/counts.
multi_report() {
	local role n dir passed=0 failed=0 status name reason last bad
	for role in A B C; do
		last=${MULTI_BOOTS[$role]:-0}
		for ((n = 1; n <= last; n++)); do
			dir=$MOUT/$role.$n
			bad=$(grep -aE "$DST_BAD_KMSG" "$dir/console.log" 2>/dev/null | grep -av '^dst-runner:' || true)
			if [[ -n "$bad" ]]; then
				echo "FAIL $role.$n kernel log: $(head -n1 <<<"$bad" | cut -c1-120)"
				failed=$((failed + 1))
			fi
			if [[ -f "$dir/results.txt" ]]; then
				while read -r status name reason; do
					echo "$status $role:$name${reason:+ $reason}"
					if [[ "$status" == PASS ]]; then
						passed=$((passed + 1))
					else
						failed=$((failed + 1))
						echo "----- $role.$n/$name.log -----"
						cat "$dir/$name.log" 2>/dev/null || true
						echo "----- end of $role.$n/$name.log -----"
					fi
				done <"$dir/results.txt"
			fi
			# Only the last incarnation of each has to finish.
			if ((n == last)) && [[ ! -f "$dir/done" ]]; then
				echo "FAIL $role.$n did not finish"
				failed=$((failed + 1))
				echo "----- last lines of $role.$n/console.log -----"
				tail -n 30 "$dir/console.log" 2>/dev/null || true
				echo "----- end of console.log -----"
			fi
		done
	done
	echo "$passed $failed" >"$MOUT/counts"
	echo "multi: $passed passed, $failed failed"
	((failed == 0))
}

# multi_run OUT KO [PATTERN]: the whole tier; KO is the staged module
# (relative to ROOT), OUT/stage/moddep its module index.
multi_run() {
	local d
	MOUT=$1 MKO=$2
	MREL=$(realpath --relative-to="$ROOT" "$MOUT")
	MULTI_START=$SECONDS
	MULTI_END=$((SECONDS + ${DST_MULTI_TIMEOUT:-1800}))
	multi_ports
	mkdir -p "$MOUT/ctl" "$MOUT/disks"
	for d in A-leg A-bitmap B-leg C-leg; do
		truncate -s "${MULTI_DISK_MIB}M" "$MOUT/disks/$d.img"
	done
	truncate -s "${MULTI_SWAP_MIB}M" "$MOUT/disks/B-swap.img"
	multi_boot B
	multi_boot C
	multi_ready B && multi_ready C || echo "multi: B or C did not get ready"
	echo "multi: B and C ready after $((SECONDS - MULTI_START)) s"
	multi_boot A ${3:+"dsttest.tests=$3"}
	multi_serve || true
	touch "$MOUT/ctl/stop"
	for d in B C; do
		while kill -0 "${MULTI_PID[$d]}" 2>/dev/null && ((SECONDS < MULTI_END + 120)); do
			sleep 0.5
		done
		multi_kill "$d" >/dev/null
	done
	echo "multi: took $((SECONDS - MULTI_START)) s"
	multi_report
}
