#!/bin/bash
# Test orchestrator.
#   tests/run.sh all [PATTERN]     what "make test" runs: install what is missing,
#                                  build, host tests, guest tests, and one last line
#                                  "N passed, N failed" over all of them
#   tests/run.sh guest [PATTERN]   build, boot the QEMU guest and run tests/guest/NN-*.sh
#                                  (PATTERN: glob(s) on test names, comma-separated;
#                                  without glob characters it matches as a substring)
#   tests/run.sh multi [PATTERN]   build, then the multi-host tier: guests A, B and C on a
#                                  sealed network, tests/multi/NN-*.sh on A
#   tests/run.sh pkg               the .debs installed in a Debian guest (tests/lib/pkg.sh)
#   tests/run.sh debug [PATTERN]   the guest tests and tests/debug on a KASAN,
#                                  lockdep, kmemleak, fault-injection kernel
#                                  (tests/lib/debug.sh; make test-debug)
#   tests/run.sh bench             build, fio on brd, dst and nbd in one guest (no pass/fail)
#   tests/run.sh image             build the guest image if needed, print its dir
# Env: KVER, DST_KO (module to test, default src/dst_storage.ko), DST_GUEST_TIMEOUT
# (whole guest run, default 2700 s), DST_TEST_TIMEOUT (per test, default 300 s),
# DST_GUEST_ENV=NAME=VALUE,... (settings of the guest tests, e.g.
# DST_WIRE_FUZZ=2000000),
# DST_CACHE, DST_KVM=1, DST_VM_LIVE=1 (show the guest console live).
# Output: tests/out/guest/{results.txt,NAME.log,console.log,dmesg.txt,counts}
# and a last line "guest: N passed, N failed"; non-zero exit if any failed;
# tests/out/multi/ likewise for the multi-host tier (tests/lib/multi.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB=$ROOT/tests/lib
# shellcheck source=tests/lib/vm.sh
source "$LIB/vm.sh"
# shellcheck source=tests/lib/multi.sh
source "$LIB/multi.sh"
# shellcheck source=tests/lib/pkg.sh
source "$LIB/pkg.sh"
# shellcheck source=tests/lib/debug.sh
source "$LIB/debug.sh"

die() {
	echo "run.sh: $*" >&2
	exit 1
}

# Prints the module path relative to the share root; a module outside the
# tree is copied into the results dir first.
stage_module() {
	local ko=$1 out=$2 rel
	if [[ ! -f "$ko" ]]; then
		echo "run.sh: warning: module $ko not found" >&2
		realpath -m --relative-to="$ROOT" "$ko"
		return 0
	fi
	rel=$(realpath --relative-to="$ROOT" "$ko")
	if [[ "$rel" == ../* ]]; then
		cp "$ko" "$out/dst_storage.ko"
		rel=$(realpath --relative-to="$ROOT" "$out/dst_storage.ko")
	fi
	echo "$rel"
}

# Runs depmod on the host (fast; under TCG a guest depmod -a takes ~18 s)
# for the kernel's own modules plus the module to test, into OUT/moddep.
# The guest uses it only if its modules.order matches; else it runs depmod.
stage_moddep() {
	local out=$1 ko=$2 kver=$3 b m
	m=/lib/modules/$kver
	[[ -f "$ko" && -d "$m/kernel" && -f "$m/modules.order" ]] || return 0
	b=$(mktemp -d)
	mkdir -p "$b$m/updates"
	ln -s "$m/kernel" "$b$m/kernel"
	cp "$m"/modules.{order,builtin,builtin.modinfo} "$b$m/"
	cp "$ko" "$b$m/updates/dst_storage.ko"
	if depmod -b "$b" "$kver"; then
		mkdir -p "$out/moddep"
		cp "$b$m"/modules.* "$out/moddep/"
	else
		echo "run.sh: warning: host depmod failed; the guest will run depmod" >&2
	fi
	rm -rf "$b"
}

# Prints the results, the logs of failed tests and the summary line;
# writes OUT/counts ("passed failed"). Fails if any test failed.
report() {
	local out=$1 finished=$2 passed=0 failed=0 status name reason bad
	if [[ -f "$out/results.txt" ]]; then
		while read -r status name reason; do
			echo "$status $name${reason:+ $reason}"
			case "$status" in
			PASS) passed=$((passed + 1)) ;;
			*)
				failed=$((failed + 1))
				echo "----- $name.log -----"
				cat "$out/$name.log" 2>/dev/null || true
				echo "----- end of $name.log -----"
				;;
			esac
		done <"$out/results.txt"
	fi
	# The runner checks the kernel log of each test; this, the whole boot
	# (the module's install, the time between tests, the shutdown).
	bad=$(grep -aE '^\[ *[0-9]+\.[0-9]+\] ' "$out/console.log" 2>/dev/null |
		grep -aE "$DST_BAD_KMSG" | grep -avF "$DST_KMSG_NOT_BAD" || true)
	if [[ -n "$bad" ]]; then
		echo "FAIL kernel log of the guest: $(head -n1 <<<"$bad" | cut -c1-160)"
		failed=$((failed + 1))
	fi
	# A pattern that matched nothing ran nothing: not a pass.
	if ((passed + failed == 0)) && [[ "$finished" == 1 ]]; then
		echo "FAIL no test ran"
		failed=1
	fi
	if [[ "$finished" != 1 ]]; then
		echo "FAIL guest did not finish"
		failed=$((failed + 1))
		echo "----- last lines of console.log -----"
		tail -n 40 "$out/console.log" 2>/dev/null || true
		echo "----- end of console.log -----"
	fi
	echo "$passed $failed" >"$out/counts"
	echo "guest: $passed passed, $failed failed"
	((failed == 0))
}

# prepare_guest OUT: deps, kernel version, image. Sets KVER and IMG.
prepare_guest() {
	"$LIB/deps.sh"
	KVER=$("$LIB/kver.sh")
	IMG=$("$LIB/image.sh" "$KVER")
}

# boot_guest OUT MODE TIMEOUT [CMDLINE_EXTRA...]: stages the module and
# boots the guest; returns 0 when the guest wrote OUT/done.
boot_guest() {
	local out=$1 mode=$2 tmo=$3 ko rel_out rc=0
	shift 3
	rm -rf "$out"
	mkdir -p "$out"
	ko=$(stage_module "${DST_KO:-$ROOT/src/dst_storage.ko}" "$out")
	stage_moddep "$out" "$ROOT/$ko" "$KVER"
	rel_out=$(realpath --relative-to="$ROOT" "$out")
	echo "guest: kernel $KVER, image $IMG, module $ko, timeout $tmo s"
	vm_run "$IMG" "$ROOT" "$tmo" "$out/console.log" \
		"dsttest.mode=$mode" "dsttest.kver=$KVER" "dsttest.results=$rel_out" \
		"dsttest.ko=$ko" "dsttest.moddep=$rel_out/moddep" "dsttest.timeout=${DST_TEST_TIMEOUT:-450}" "$@" || rc=$?
	((rc == 0)) || echo "guest: qemu exited with status $rc" >&2
	[[ -f "$out/done" ]]
}

# build: the packages it needs, then the module, dstadm and the test tools.
build() {
	"$LIB/deps.sh"
	KVER=$("$LIB/kver.sh")
	make -s -C "$ROOT" KVER="$KVER" all tools
}

# Every host and guest test; the last line counts them all.
cmd_all() {
	local pattern=${1:-} hp=0 hf=0 gp=0 gf=0 mp=0 mf=0 pp=0 pf=0 rc=0 pkg_pid
	rm -f "$ROOT"/tests/out/{host,guest,multi,pkg}/counts
	build
	"$ROOT/tests/host.sh" || rc=1
	# The package test runs alongside the guest tier, on one vCPU and at a
	# lower priority: the guest tier keeps about one of two cores busy
	# and comes first (run as a peer, with two vCPUs, the package test
	# slowed it by half).  Its output follows the guest tier's.
	if [[ -z "$pattern" ]]; then
		mkdir -p "$ROOT/tests/out"
		DST_VM_SMP=1 nice -n 10 "$ROOT/tests/run.sh" pkg >"$ROOT/tests/out/pkg.txt" 2>&1 &
		pkg_pid=$!
	fi
	cmd_guest "$pattern" || rc=1
	if [[ -z "$pattern" ]]; then
		wait "$pkg_pid" || rc=1
		cat "$ROOT/tests/out/pkg.txt"
		read -r pp pf <"$ROOT/tests/out/pkg/counts" || pf=1
		cmd_multi || rc=1
		read -r mp mf <"$ROOT/tests/out/multi/counts" || mf=1
	fi
	read -r hp hf <"$ROOT/tests/out/host/counts" || hf=1
	read -r gp gf <"$ROOT/tests/out/guest/counts" || gf=1
	echo "$((hp + gp + mp + pp)) passed, $((hf + gf + mf + pf)) failed"
	return $rc
}

cmd_guest() {
	local pattern=${1:-} out=$ROOT/tests/out/guest finished=0 start=$SECONDS
	local -a extra=()
	[[ "$pattern" != *" "* ]] || die "pattern must not contain spaces: '$pattern'"
	[[ -z "$pattern" ]] || extra+=("dsttest.tests=$pattern")
	[[ -z "${DST_GUEST_ENV:-}" ]] || extra+=("dsttest.env=$DST_GUEST_ENV")
	prepare_guest
	boot_guest "$out" test "${DST_GUEST_TIMEOUT:-3300}" "${extra[@]}" && finished=1
	echo "guest: run took $((SECONDS - start)) s"
	report "$out" "$finished"
}

# The package test: tests/lib/pkg.sh.
cmd_pkg() {
	"$LIB/deps.sh"
	KVER=$("$LIB/kver.sh")
	local start=$SECONDS rc=0
	pkg_run "$ROOT/tests/out/pkg" || rc=$?
	echo "pkg: took $((SECONDS - start)) s"
	return $rc
}

# The multi-host tier: tests/lib/multi.sh.
cmd_multi() {
	local pattern=${1:-} out=$ROOT/tests/out/multi ko
	prepare_guest
	rm -rf "$out"
	mkdir -p "$out/stage"
	ko=$(stage_module "${DST_KO:-$ROOT/src/dst_storage.ko}" "$out/stage")
	stage_moddep "$out/stage" "$ROOT/$ko" "$KVER"
	multi_run "$out" "$ko" "$pattern"
}

# Benchmark, not a test, in one guest: fio on brd, dst over loopback and nbd
# side by side (tests/bench/guest-bench.sh), then arrays against md and dm
# (tests/bench/guest-bench-arrays.sh), then the resync of a leg that missed
# writes against md (tests/bench/guest-bench-resync.sh), then verify,
# checksum resync and write-behind against md (guest-bench-data.sh). Prints the tables,
# which are also in tests/out/bench/bench*.txt. Env: DST_BENCH_RUNTIME (s
# per run, default 20), DST_BENCH=all|remote|arrays|resync|data (default all).
cmd_bench() {
	local out=$ROOT/tests/out/bench runtime=${DST_BENCH_RUNTIME:-20} finished=0 t
	local which=${DST_BENCH:-all}
	[[ "$which" =~ ^(all|remote|arrays|resync|data)$ ]] ||
		die "DST_BENCH must be all, remote, arrays, resync or data"
	# Per script: at most 28 fio runs of runtime + 2 s ramp (the remote
	# one: about 700 s with 20 s runs), and set-up.
	export DST_TEST_TIMEOUT=${DST_TEST_TIMEOUT:-$((runtime * 40 + 300))}
	# Eleven 128 MiB ram disks filled in the arrays bench.
	export DST_VM_MEM=${DST_VM_MEM:-3072}
	prepare_guest
	boot_guest "$out" bench "${DST_GUEST_TIMEOUT:-$((DST_TEST_TIMEOUT * 2 + 300))}" \
		"dsttest.bench_runtime=$runtime" "dsttest.bench=$which" && finished=1
	for t in bench bench-arrays bench-resync bench-data; do
		if [[ -s "$out/$t.txt" ]]; then
			cat "$out/$t.txt"
			echo
		fi
	done
	if ! ls "$out"/bench*.txt >/dev/null 2>&1; then
		echo "bench: no table; last lines of bench.log:"
		tail -n 40 "$out/bench.log" 2>/dev/null || tail -n 40 "$out/console.log"
	fi
	((finished == 1)) || die "bench: guest did not finish"
	ls "$out"/bench*.txt >/dev/null 2>&1
}

main() {
	case "${1:-}" in
	all)
		shift
		cmd_all "$@"
		;;
	guest)
		shift
		build
		cmd_guest "$@"
		;;
	multi)
		shift
		build
		cmd_multi "$@"
		;;
	pkg)
		cmd_pkg
		;;
	debug)
		shift
		"$LIB/deps.sh"
		debug_run "$ROOT/tests/out/debug" "$@"
		;;
	bench)
		shift
		build
		cmd_bench "$@"
		;;
	image)
		"$LIB/deps.sh"
		"$LIB/image.sh" "$("$LIB/kver.sh")"
		;;
	*)
		echo "usage: $0 all [PATTERN] | guest [PATTERN] | multi [PATTERN] | pkg | debug [PATTERN] | bench | image" >&2
		exit 2
		;;
	esac
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	main "$@"
fi
