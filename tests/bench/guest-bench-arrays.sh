#!/bin/bash
# Benchmark, not a test: arrays against their kernel peers, side by side in
# one guest on brd devices of the same size, all filled first.
#   mirror: dst mirror of 2 legs (--assume-clean) vs md raid1 of 2 devices
#           (--bitmap=internal --assume-clean)
#   mirror+bitmap: the same dst mirror with --bitmap on a brd of its own
#           (write-intent, as md's internal bitmap) vs the same md
#   linear: dst linear of 2 devices vs a 2-segment dm-linear
# Rows: sequential 1 MiB write and read at QD 8, random 4 KiB read and
# write at QD 32, O_DIRECT, libaio. Prints MB/s and IOPS per peer, the
# ratios dst/md and dst/dm, and the targets of issue 4 next to them.
# Settings: as tests/bench/guest-bench.sh (runtime from the kernel command
# line dsttest.bench_runtime or DST_BENCH_RUNTIME).
# Output: $DST_RESULTS/bench-arrays.txt, bench-arrays-*.json (fio output).
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

MIB=128
# name rw bs qd mirror-target linear-target
ROWS=(
	"seq-write write 1M 8 1.00 0.97"
	"seq-read read 1M 8 - 0.97"
	"rand-read randread 4k 32 1.00 0.97"
	"rand-write randwrite 4k 32 1.00 0.97"
)
PEERS=(mirror mirrorbm md linear dm)
export DM_DISABLE_UDEV=1

cleanup() {
	set +e
	for s in bmirror bmirrorbm blinear; do
		bounded 60 dstadm delete "$s" 2>/dev/null
	done
	[[ -b /dev/md0 ]] && mdadm --stop /dev/md0 >/dev/null 2>&1
	dmsetup remove blinear 2>/dev/null
	dst_loaded && rmmod dst_storage
	grep -q '^brd ' /proc/modules && rmmod brd
}
trap cleanup EXIT

if grep -q '^brd ' /proc/modules; then rmmod brd; fi
# ram0-1: dst mirror, ram2-3: md raid1, ram4-5: dst linear, ram6-7: dm-linear
modprobe brd rd_nr=11 rd_size=$((MIB * 1024))
for i in 0 1 2 3 4 5 6 7 8 9 10; do
	bounded 120 dd if=/dev/zero of=/dev/ram$i bs=1M count=$MIB oflag=direct status=none
done
modprobe dst_storage

setup_peer() {
	local out sectors
	case "$1" in
	mirror)
		bounded 30 dstadm create bmirror --alg mirror &&
			bounded 30 dstadm add bmirror local /dev/ram0 >/dev/null &&
			bounded 30 dstadm add bmirror local /dev/ram1 >/dev/null &&
			bounded 30 dstadm start bmirror --assume-clean || return 1
		out=$(dstadm status bmirror --json | jq -r '.storages[0].device')
		DEVS[mirror]=$out
		;;
	mirrorbm)
		bounded 30 dstadm create bmirrorbm --alg mirror --bitmap /dev/ram10 &&
			bounded 30 dstadm add bmirrorbm local /dev/ram8 >/dev/null &&
			bounded 30 dstadm add bmirrorbm local /dev/ram9 >/dev/null &&
			bounded 30 dstadm start bmirrorbm --assume-clean || return 1
		DEVS[mirrorbm]=$(dstadm status bmirrorbm --json | jq -r '.storages[0].device')
		;;
	md)
		command -v mdadm >/dev/null || { echo "bench: mdadm not installed"; return 1; }
		bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 \
			--metadata=1.2 --bitmap=internal --assume-clean /dev/ram2 /dev/ram3 \
			>/tmp/mdadm.log 2>&1 || { cat /tmp/mdadm.log; return 1; }
		DEVS[md]=/dev/md0
		;;
	linear)
		bounded 30 dstadm create blinear --alg linear &&
			bounded 30 dstadm add blinear local /dev/ram4 >/dev/null &&
			bounded 30 dstadm add blinear local /dev/ram5 >/dev/null &&
			bounded 30 dstadm start blinear || return 1
		DEVS[linear]=$(dstadm status blinear --json | jq -r '.storages[0].device')
		;;
	dm)
		sectors=$(blockdev --getsz /dev/ram6)
		printf '0 %s linear /dev/ram6 0\n%s %s linear /dev/ram7 0\n' \
			"$sectors" "$sectors" "$sectors" | dmsetup create blinear || return 1
		DEVS[dm]=/dev/mapper/blinear
		;;
	esac
	[[ -b "${DEVS[$1]:-}" ]] || return 1
	echo "bench: $1 is ${DEVS[$1]} ($(blockdev --getsize64 "${DEVS[$1]}") bytes)"
}

for p in "${PEERS[@]}"; do
	setup_peer "$p" || echo "bench: peer $p skipped"
done
# Interleaved per row, so that drift of the host hits every peer alike.
for row in "${ROWS[@]}"; do
	read -r name rw bs qd _ <<<"$row"
	for p in "${PEERS[@]}"; do
		[[ -z "${DEVS[$p]:-}" ]] || run_fio bench-arrays "$p" "$name" "$rw" "$bs" "$qd"
	done
done

{
	echo "dst arrays bench: fio ${RUNTIME}s per run, direct I/O, libaio, ${MIB} MiB brd each, kernel $(uname -r), $(nproc) CPUs"
	printf '%-11s %11s %9s %11s %9s %9s %7s\n' row "mirror MB/s" IOPS "md MB/s" IOPS mirror/md target
	for row in "${ROWS[@]}"; do
		read -r name _ _ _ mt _ <<<"$row"
		printf '%-11s %11s %9s %11s %9s %9s %7s\n' "$name" \
			"$(num "${MBS[mirror.$name]:-}" %.1f)" "$(num "${IOPS[mirror.$name]:-}" %.0f)" \
			"$(num "${MBS[md.$name]:-}" %.1f)" "$(num "${IOPS[md.$name]:-}" %.0f)" \
			"$(ratio "${MBS[mirror.$name]:-}" "${MBS[md.$name]:-}")" "${mt/#[0-9]/>=&}"
	done
	printf '%-11s %11s %9s %11s %9s %9s\n' row "+bitmap MB/s" IOPS "md MB/s" IOPS bitmap/md
	for row in "${ROWS[@]}"; do
		read -r name _ _ _ _ _ <<<"$row"
		printf '%-11s %11s %9s %11s %9s %9s\n' "$name" \
			"$(num "${MBS[mirrorbm.$name]:-}" %.1f)" "$(num "${IOPS[mirrorbm.$name]:-}" %.0f)" \
			"$(num "${MBS[md.$name]:-}" %.1f)" "$(num "${IOPS[md.$name]:-}" %.0f)" \
			"$(ratio "${MBS[mirrorbm.$name]:-}" "${MBS[md.$name]:-}")"
	done
	printf '%-11s %11s %9s %11s %9s %9s %7s\n' row "linear MB/s" IOPS "dm MB/s" IOPS linear/dm target
	for row in "${ROWS[@]}"; do
		read -r name _ _ _ _ lt <<<"$row"
		printf '%-11s %11s %9s %11s %9s %9s %7s\n' "$name" \
			"$(num "${MBS[linear.$name]:-}" %.1f)" "$(num "${IOPS[linear.$name]:-}" %.0f)" \
			"$(num "${MBS[dm.$name]:-}" %.1f)" "$(num "${IOPS[dm.$name]:-}" %.0f)" \
			"$(ratio "${MBS[linear.$name]:-}" "${MBS[dm.$name]:-}")" "${lt/#[0-9]/>=&}"
	done
} | tee "$OUT/bench-arrays.txt"
