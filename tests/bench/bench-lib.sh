#!/bin/bash
# Helpers of the benchmark scripts run in the guest by "make bench":
#   source "$DST_ROOT/tests/bench/bench-lib.sh"
# Sets RUNTIME (seconds per fio run: DST_BENCH_RUNTIME, else the kernel
# command line's dsttest.bench_runtime, else 20) and OUT (results folder).
# run_fio fills MBS and IOPS, keyed "peer.row", from DEVS[peer].
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

cmdline_runtime() {
	local w
	for w in $(</proc/cmdline); do
		[[ "$w" != dsttest.bench_runtime=* ]] || echo "${w#*=}"
	done
}
RUNTIME=${DST_BENCH_RUNTIME:-$(cmdline_runtime)}
RUNTIME=${RUNTIME:-20}
OUT=${DST_RESULTS:-/tmp}
declare -A DEVS MBS IOPS

bounded() {
	local s=$1
	shift
	timeout -k 5 "$s" "$@"
}

# run_fio TAG PEER ROW RW BS QD [FIO_OPTIONS...]: one fio run on DEVS[PEER],
# its JSON in $OUT/TAG-PEER-ROW.json.
run_fio() {
	local tag=$1 peer=$2 name=$3 rw=$4 bs=$5 qd=$6 json
	shift 6
	json=$OUT/$tag-$peer-$name.json
	if bounded $((RUNTIME + 120)) fio --name="$name" --filename="${DEVS[$peer]}" \
		--direct=1 --ioengine=libaio --rw="$rw" --bs="$bs" --iodepth="$qd" \
		--time_based --runtime="$RUNTIME" --ramp_time=2 "$@" \
		--output-format=json --output="$json" &&
		jq -e '.jobs[0].error == 0' "$json" >/dev/null; then
		MBS[$peer.$name]=$(jq '.jobs[0] | (.read.bw_bytes + .write.bw_bytes) / 1e6' "$json")
		IOPS[$peer.$name]=$(jq '.jobs[0] | .read.iops + .write.iops' "$json")
	else
		echo "bench: fio $name on $peer failed"
		MBS[$peer.$name]=fail
		IOPS[$peer.$name]=fail
	fi
	echo "bench: $peer $name: ${MBS[$peer.$name]} MB/s, ${IOPS[$peer.$name]} IOPS"
}

now() { date +%s.%N; }

# nap: 50 ms without a fork, for polls while something is timed.  Forks
# of cat, sleep, dstadm or jq 20 to 40 times a second take CPU from what
# is measured under TCG: with dst's resync they cut the application's
# share during it to about half (guest-bench-resync.sh).
exec {NAP}<> <(:)
nap() { read -r -t 0.05 -u "$NAP" || true; }

# klog_count: how many messages the kernel log holds now.
klog_count() { dmesg | wc -l; }

# klog_secs FROM START END: the seconds (to the ms) from the first kernel
# message after the first FROM that matches START to the next one that
# matches END; nothing if either is missing. The kernel's own clock, so
# what is timed does not depend on how often a script looks.
klog_secs() {
	dmesg | tail -n +"$(($1 + 1))" | sed -E 's/^\[ *([0-9]+\.[0-9]+)\] /\1 /' |
		awk -v s="$2" -v e="$3" '
			t0 == "" && $0 ~ s { t0 = $1; next }
			t0 != "" && $0 ~ e { printf "%.3f\n", $1 - t0; exit }'
}

# sys_is FILE VALUE: FILE (a sysfs attribute) reads VALUE; no fork.
sys_is() { local v; read -r v <"$1" && [[ "$v" == "$2" ]]; }

# elapsed T0 T1: seconds from T0 to T1 (both from now), two decimals.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# ratio A B: A / B with two decimals, or "-" if either is not a number.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a ~ /^[0-9.e+]+$/ && b ~ /^[0-9.e+]+$/ && b > 0) printf "%.2f", a / b
		else printf "-" }'
}

# num VALUE FORMAT: VALUE in printf FORMAT if it is a number, else as is.
num() {
	awk -v v="${1:--}" -v f="$2" 'BEGIN { if (v ~ /^[0-9.e+]+$/) printf f, v; else printf "%s", v }'
}
