#!/bin/bash
# Guest test runner: started by /sbin/dst-test-init (PID 1) from the 9p
# share mounted at /mnt/dst. Parameters come from the kernel command line:
#   dsttest.mode=test|debug|demo|bench|multi|agent|pkg-setup   dsttest.kver=KVER
#   dsttest.tests=GLOB[,GLOB]  dsttest.results=DIR  dsttest.ko=PATH
#   dsttest.timeout=SECONDS  dsttest.role=A|B|C  dsttest.ctl=DIR
# multi: the tests of tests/multi on host A of the multi-host tier; agent:
# tests/multi/agent.sh on host B or C (see tests/multi/lib.sh); debug: the
# tests of tests/guest and then tests/debug on the debug kernel, whose
# modules come on the 9p share "dstkmod" (tests/lib/debug.sh).
# (DIR and PATH relative to the share root unless absolute.) The prefix is
# "dsttest." and not "dst." on purpose: modprobe passes every "dst.X=Y" of
# the kernel command line to the dst module as a module parameter.
set -euo pipefail

DST_ROOT=/mnt/dst
# shellcheck source=tests/lib/bad-kmsg.sh
source "$DST_ROOT/tests/lib/bad-kmsg.sh"
# shellcheck source=tests/guest/kmemleak.sh
source "$DST_ROOT/tests/guest/kmemleak.sh"

say() { echo "dst-runner: $*"; }
trap 'say "error: line $LINENO: $BASH_COMMAND exited $?"' ERR

# Value of kernel command line parameter dsttest.$1, or $2.
cmdline_param() {
	local w
	for w in $(</proc/cmdline); do
		if [[ "$w" == "dsttest.$1="* ]]; then
			echo "${w#*=}"
			return 0
		fi
	done
	echo "${2:-}"
}

abs_path() {
	if [[ "$1" == /* ]]; then echo "$1"; else echo "$DST_ROOT/$1"; fi
}

# dsttest.env=NAME=VALUE[,NAME=VALUE]: settings of the tests (tests/run.sh
# passes DST_GUEST_ENV), only DST_* names and plain values.
load_env() {
	local kv
	local -a pairs
	IFS=, read -r -a pairs <<<"$1"
	for kv in "${pairs[@]}"; do
		if [[ "$kv" =~ ^(DST_[A-Z0-9_]+)=([A-Za-z0-9._:/-]*)$ ]]; then
			export "${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"
			say "setting ${BASH_REMATCH[1]}=${BASH_REMATCH[2]}"
		else
			say "ignoring dsttest.env entry '$kv'"
		fi
	done
}

load_params() {
	DST_MODE=$(cmdline_param mode test)
	DST_KVER=$(cmdline_param kver)
	DST_TESTS=$(cmdline_param tests)
	DST_TEST_TIMEOUT=$(cmdline_param timeout 300)
	DST_RESULTS=$(abs_path "$(cmdline_param results tests/out/guest)")
	DST_KO=$(abs_path "$(cmdline_param ko src/dst_storage.ko)")
	DST_MODDEP=$(abs_path "$(cmdline_param moddep tests/out/guest/moddep)")
	DST_ROLE=$(cmdline_param role)
	DST_CTL=$(abs_path "$(cmdline_param ctl tests/out/multi/ctl)")
	DST_TEST_DIR=$DST_ROOT/tests/guest
	[[ "$DST_MODE" != multi ]] || DST_TEST_DIR=$DST_ROOT/tests/multi
	DST_EXTRA_TEST_DIR=
	[[ "$DST_MODE" != debug ]] || DST_EXTRA_TEST_DIR=$DST_ROOT/tests/debug
	PATH=$DST_ROOT/dstadm:$DST_ROOT/tests/guest/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export DST_ROOT DST_MODE DST_KVER DST_TESTS DST_TEST_TIMEOUT DST_RESULTS DST_KO PATH
	export DST_ROLE DST_CTL DST_TEST_DIR DST_EXTRA_TEST_DIR
	load_env "$(cmdline_param env)"
	mkdir -p "$DST_RESULTS"
}

# Module index: the one the host made (dsttest.moddep) if it was made for
# the same set of kernel modules, else a (slow) depmod -a in the guest.
update_moddep() {
	local m=$1
	if [[ -f "$DST_MODDEP/modules.dep.bin" ]] &&
		cmp -s "$DST_MODDEP/modules.order" "$m/modules.order" &&
		cmp -s "$DST_MODDEP/modules.builtin" "$m/modules.builtin"; then
		cp "$DST_MODDEP"/modules.* "$m/"
		say "module index from the host"
	else
		say "running depmod -a"
		depmod -a
	fi
}

# Installs dst_storage.ko into updates/, which takes precedence over the kernel's
# own (unrelated) bt8xx DVB driver also named dst.
install_module() {
	local m found
	m=/lib/modules/$(uname -r)
	if [[ ! -f "$DST_KO" ]]; then
		say "note: module $DST_KO not found; not installed"
		return 0
	fi
	mkdir -p "$m/updates"
	cp "$DST_KO" "$m/updates/dst_storage.ko"
	update_moddep "$m"
	found=$(modinfo -F filename dst_storage 2>/dev/null || true)
	if [[ "$found" != "$m/updates/dst_storage.ko" ]]; then
		say "note: modprobe dst_storage would load '$found', not updates/dst_storage.ko"
	fi
	say "installed $DST_KO as $m/updates/dst_storage.ko"
}

# The debug kernel's modules, from the share "dstkmod", into /lib/modules
# of this throw-away root.
install_kernel_modules() {
	mkdir -p /mnt/kmod
	mount -t 9p -o trans=virtio,version=9p2000.L,ro dstkmod /mnt/kmod ||
		{ say "error: no share dstkmod with the kernel's modules"; return 1; }
	rm -rf "/lib/modules/$(uname -r)"
	cp -a "/mnt/kmod/$(uname -r)" /lib/modules/
	umount /mnt/kmod
	say "modules of $(uname -r) installed from the share"
}

ensure_user() {
	id dsttest >/dev/null 2>&1 || useradd -m -s /bin/bash dsttest
}

# All records of the kernel log buffer, raw ("prio,seq,usec,flags;msg").
# dd ends with EAGAIN at the end of the buffer: that is not an error.
kmsg_dump() {
	dd if=/dev/kmsg iflag=nonblock bs=16384 status=none 2>/dev/null || true
}

# Sequence number of the newest kernel log record.
kmsg_seq() {
	kmsg_dump |
		awk -F'[,;]' '/^[0-9]+,[0-9]+,/ { s = $2 } END { print s + 0 }'
}

# Kernel log records newer than sequence number $1, as "[ts] message".
kmsg_since() {
	kmsg_dump |
		awk -v from="$1" '
			/^[0-9]+,[0-9]+,/ {
				split($0, h, ","); keep = (h[2] + 0 > from)
				msg = substr($0, index($0, ";") + 1)
				if (keep) printf "[%12.6f] %s\n", h[3] / 1e6, msg
				next
			}'
}

dst_loaded() { grep -q '^dst_storage ' /proc/modules; }

# Selects tests: all NN-*.sh, or those matching any comma-separated glob of
# DST_TESTS (a pattern without glob characters matches as a substring).
select_tests() {
	local t name pat
	local -a pats
	IFS=, read -r -a pats <<<"$DST_TESTS"
	for t in "$DST_TEST_DIR"/[0-9][0-9]-*.sh ${DST_EXTRA_TEST_DIR:+"$DST_EXTRA_TEST_DIR"/[0-9][0-9]-*.sh}; do
		[[ -f "$t" ]] || continue
		name=$(basename "$t" .sh)
		if ((${#pats[@]} == 0)); then
			echo "$t"
			continue
		fi
		for pat in "${pats[@]}"; do
			[[ "$pat" == *[*?[]* ]] || pat="*$pat*"
			# shellcheck disable=SC2053 # glob match intended
			if [[ "$name" == $pat || "$name.sh" == $pat ]]; then
				echo "$t"
				break
			fi
		done
	done
}

# Shortly before a test's timeout, writes what its processes are doing
# (user and kernel stacks of tasks newer than the runner) to the log.
watchdog() {
	local log=$1 delay=$2 p s
	sleep "$delay" &
	s=$!
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	wait "$s"
	{
		echo "runner: test still running after ${delay}s; processes:"
		ps -N --pid 2 --ppid 2 -o pid,ppid,stat,wchan:32,args
		for p in /proc/[0-9]*; do
			p=${p#/proc/}
			((p > $$ && p != BASHPID)) || continue
			[[ -r /proc/$p/stack ]] || continue
			echo "--- kernel stack of $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
			cat "/proc/$p/stack" 2>/dev/null
		done
	} >>"$log" 2>&1
	echo w >/proc/sysrq-trigger
}

# Debug kernel: kmemleak's objects leaked through dst, after a test.
kmemleak_test() {
	[[ "$DST_MODE" == debug ]] || { echo 0; return 0; }
	kmemleak_dst
}

# Runs one test; appends "PASS name" or "FAIL name reason" to results.txt.
run_test() {
	local t=$1 name log mark rc=0 reason="" bad start wd leaks
	name=$(basename "$t" .sh)
	log=$DST_RESULTS/$name.log
	mark=$(kmsg_seq)
	echo "dst-test: start $name" >/dev/kmsg
	say "running $name"
	start=$SECONDS
	watchdog "$log" $((DST_TEST_TIMEOUT > 10 ? DST_TEST_TIMEOUT - 5 : DST_TEST_TIMEOUT)) &
	wd=$!
	(cd "$DST_ROOT" && timeout -k 10 "$DST_TEST_TIMEOUT" bash "$t") </dev/null >"$log" 2>&1 || rc=$?
	kill "$wd" 2>/dev/null || true
	wait "$wd" 2>/dev/null || true
	echo "dst-test: end $name rc=$rc" >/dev/kmsg
	if ((rc == 124 || rc == 137)); then
		reason="timeout after ${DST_TEST_TIMEOUT}s"
	elif ((rc != 0)); then
		reason="exit status $rc"
	fi
	leaks=$(kmemleak_test)
	if [[ "$(tail -n1 <<<"$leaks")" != 0 ]]; then
		{
			echo "runner: kmemleak found objects leaked through dst:"
			echo "$leaks"
		} >>"$log"
		reason=${reason:-"kmemleak: $(tail -n1 <<<"$leaks") object(s) leaked through dst"}
	fi
	if dst_loaded; then
		if ! rmmod dst_storage >>"$log" 2>&1; then
			echo "runner: rmmod dst_storage failed after the test" >>"$log"
			reason=${reason:-"rmmod dst_storage failed"}
		fi
	fi
	bad=$(kmsg_since "$mark" | grep -E "$DST_BAD_KMSG" || true)
	if [[ -n "$bad" ]]; then
		{
			echo "runner: kernel log during the test has errors:"
			kmsg_since "$mark"
		} >>"$log"
		reason=${reason:-"kernel log: $(head -n1 <<<"$bad" | cut -c1-120)"}
	fi
	if [[ -z "$reason" ]]; then
		echo "PASS $name" >>"$DST_RESULTS/results.txt"
	else
		echo "FAIL $name $reason" >>"$DST_RESULTS/results.txt"
	fi
	say "$(tail -n1 "$DST_RESULTS/results.txt") ($((SECONDS - start)) s)"
}

# Debug kernel, after the last test: the module unloaded, objects past
# kmemleak's minimum age, what the last unloads left (module_exit's
# leaks) is a failure of its own.
kmemleak_final() {
	local leaks
	sleep 6
	leaks=$(kmemleak_test)
	[[ "$(tail -n1 <<<"$leaks")" != 0 ]] || return 0
	{
		echo "runner: kmemleak found objects leaked through dst after the last test:"
		echo "$leaks"
	} >"$DST_RESULTS/kmemleak-final.log"
	echo "FAIL kmemleak-final $(tail -n1 <<<"$leaks") object(s) leaked through dst" >>"$DST_RESULTS/results.txt"
}

run_tests() {
	local t
	local -a tests
	mapfile -t tests < <(select_tests)
	: >"$DST_RESULTS/results.txt"
	echo "first_test_uptime $(cut -d' ' -f1 /proc/uptime)" >"$DST_RESULTS/timing.txt"
	say "${#tests[@]} test(s) selected by pattern '${DST_TESTS:-all}'"
	for t in "${tests[@]}"; do
		run_test "$t"
	done
	[[ "$DST_MODE" != debug ]] || kmemleak_final
	echo "end_uptime $(cut -d' ' -f1 /proc/uptime)" >>"$DST_RESULTS/timing.txt"
}

run_demo() {
	say "demo mode"
	bash "$DST_ROOT/tests/guest/demo.sh" 2>&1 | tee "$DST_RESULTS/demo.log" || true
}

# Benchmark mode (tests/run.sh bench): not a test, no pass/fail.
# dsttest.bench=all|remote|arrays|resync|data picks the scripts.
run_bench() {
	local which script
	which=$(cmdline_param bench all)
	say "bench mode ($which)"
	: >"$DST_RESULTS/bench.log"
	for script in guest-bench guest-bench-arrays guest-bench-resync guest-bench-data; do
		case "$which.$script" in
		all.* | remote.guest-bench | arrays.guest-bench-arrays | resync.guest-bench-resync) ;;
		data.guest-bench-data) ;;
		*) continue ;;
		esac
		timeout -k 10 "$DST_TEST_TIMEOUT" bash "$DST_ROOT/tests/bench/$script.sh" 2>&1 |
			tee -a "$DST_RESULTS/bench.log" || true
	done
}

# The first boot of the package test (tests/lib/pkg.sh): a unit that runs
# tests/pkg/guest-pkg.sh from the share at each later boot, under systemd.
run_pkg_setup() {
	say "package test set-up"
	cat >/etc/systemd/system/dst-pkgtest.service <<'UNIT'
[Unit]
Description=dst package test, one stage per boot
After=dst.service systemd-udevd.service local-fs.target
[Service]
Type=oneshot
TimeoutStartSec=2400
ExecStartPre=/bin/sh -c 'modprobe 9pnet_virtio; modprobe 9p; mkdir -p /mnt/dst; mountpoint -q /mnt/dst || mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none dst /mnt/dst'
ExecStart=/bin/bash /mnt/dst/tests/pkg/guest-pkg.sh
[Install]
WantedBy=multi-user.target
UNIT
	ln -sf /etc/systemd/system/dst-pkgtest.service \
		/etc/systemd/system/multi-user.target.wants/dst-pkgtest.service
	# A getty on the console gets in the way of a oneshot unit's output.
	ln -sf /dev/null /etc/systemd/system/serial-getty@ttyS0.service
	mkdir -p /var/lib/dst-pkgtest
	cmdline_param pkgstage 1 >/var/lib/dst-pkgtest/stage
	echo "$DST_RESULTS" >/var/lib/dst-pkgtest/results
}

finish() {
	dmesg >"$DST_RESULTS/dmesg.txt" 2>&1 || true
	touch "$DST_RESULTS/done"
	sync
	say "done"
}

# Without an initramfs (the debug kernel) nobody made these links.
dev_links() {
	[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
	[[ -e /dev/stdin ]] || ln -s /proc/self/fd/0 /dev/stdin
	[[ -e /dev/stdout ]] || ln -s /proc/self/fd/1 /dev/stdout
	[[ -e /dev/stderr ]] || ln -s /proc/self/fd/2 /dev/stderr
}

main() {
	dev_links
	load_params
	say "kernel $(uname -r), mode $DST_MODE, uptime $(cut -d' ' -f1 /proc/uptime) s"
	if [[ "$DST_MODE" == pkg-setup ]]; then
		# The packages bring the module: none from the tree here.
		run_pkg_setup
		finish
		return
	fi
	[[ "$DST_MODE" != debug ]] || install_kernel_modules
	install_module
	ensure_user
	case "$DST_MODE" in
	demo) run_demo ;;
	bench) run_bench ;;
	agent)
		: >"$DST_RESULTS/results.txt"
		run_test "$DST_ROOT/tests/multi/agent.sh"
		;;
	*) run_tests ;;
	esac
	finish
}

main "$@"
