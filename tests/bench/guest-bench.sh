#!/bin/bash
# Benchmark, not a test: fio on a raw brd, on dst (a brd exported and
# imported over TCP loopback) and on nbd (nbd-server exporting a brd, the
# kernel nbd client via nbd-client on 127.0.0.1), side by side in one
# guest. Rows: sequential 1 MiB read and write at QD 8, random 4 KiB read
# and write at QD 32. Prints a table with MB/s and IOPS per peer and the
# ratios dst/nbd and dst/brd.
# Settings: kernel command line dsttest.bench_runtime=SECONDS (default 20)
# or env DST_BENCH_RUNTIME; DST_BENCH_PEERS (default "brd dst nbd").
# Output: $DST_RESULTS/bench.txt (the table), bench-*.json (fio output).
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

PEERS=${DST_BENCH_PEERS:-brd dst nbd}
DST_PORT=7300
NBD_PORT=10809
ROWS=("seq-read read 1M 8" "seq-write write 1M 8" "rand-read randread 4k 32" "rand-write randwrite 4k 32")
NBD_PID=
DST_EXPORTED=

cleanup() {
	set +e
	if [[ -n "${DEVS[nbd]:-}" ]]; then bounded 30 nbd-client -d "${DEVS[nbd]}"; fi
	if [[ -n "$NBD_PID" ]]; then
		kill "$NBD_PID"
		wait "$NBD_PID"
	fi
	if [[ -n "${DEVS[dst]:-}" ]]; then
		bounded 60 dstadm stop bench
		bounded 30 dstadm delete bench
	fi
	if [[ -n "$DST_EXPORTED" ]]; then bounded 60 dstadm unexport bench; fi
	dst_loaded && rmmod dst_storage
	grep -q '^nbd ' /proc/modules && rmmod nbd
	grep -q '^brd ' /proc/modules && rmmod brd
}
trap cleanup EXIT

ip link set lo up
if grep -q '^brd ' /proc/modules; then rmmod brd; fi
# ram0: raw, ram1: exported by dst, ram2: exported by nbd-server. Filled
# first so that no run pays for brd's page allocation.
modprobe brd rd_nr=3 rd_size=262144
for i in 0 1 2; do
	bounded 120 dd if=/dev/zero of=/dev/ram$i bs=1M count=256 oflag=direct status=none
done

setup_peer() {
	local out
	case "$1" in
	brd) DEVS[brd]=/dev/ram0 ;;
	dst)
		dst_loaded || modprobe dst_storage || return 1
		bounded 30 dstadm export bench --device /dev/ram1 --listen 127.0.0.1:$DST_PORT || return 1
		DST_EXPORTED=1
		out=$(bounded 60 dstadm import bench --remote 127.0.0.1:$DST_PORT) || return 1
		DEVS[dst]=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1)
		;;
	nbd)
		if ! command -v nbd-server >/dev/null || ! command -v nbd-client >/dev/null; then
			echo "bench: nbd-server/nbd-client not installed"
			return 1
		fi
		modprobe nbd nbds_max=2 || return 1
		cat >/tmp/nbd.conf <<-EOF
			[generic]
			listenaddr = 127.0.0.1
			port = $NBD_PORT
			[bench]
			exportname = /dev/ram2
		EOF
		nbd-server -C /tmp/nbd.conf -d >/tmp/nbd-server.log 2>&1 &
		NBD_PID=$!
		sleep 1
		DEVS[nbd]=/dev/nbd0
		bounded 60 nbd-client -N bench -b 512 127.0.0.1 $NBD_PORT /dev/nbd0 || return 1
		;;
	esac
	[[ -b "${DEVS[$1]:-}" ]] || return 1
	echo "bench: $1 is ${DEVS[$1]} ($(blockdev --getsize64 "${DEVS[$1]}") bytes)"
}

active=()
for p in $PEERS; do
	if setup_peer "$p"; then active+=("$p"); else echo "bench: peer $p skipped"; fi
done
for row in "${ROWS[@]}"; do
	read -r name rw bs qd <<<"$row"
	for p in "${active[@]}"; do run_fio bench "$p" "$name" "$rw" "$bs" "$qd" --size=256M; done
done

{
	echo "dst bench: fio ${RUNTIME}s per run, direct I/O, libaio, kernel $(uname -r), $(nproc) CPUs"
	printf '%-11s' row
	for p in $PEERS; do printf ' %10s %10s' "$p MB/s" "$p IOPS"; done
	printf ' %8s %8s\n' dst/nbd dst/brd
	for row in "${ROWS[@]}"; do
		read -r name _ <<<"$row"
		printf '%-11s' "$name"
		for p in $PEERS; do
			printf ' %10s %10s' "$(num "${MBS[$p.$name]:-}" %.1f)" \
				"$(num "${IOPS[$p.$name]:-}" %.0f)"
		done
		printf ' %8s %8s\n' "$(ratio "${MBS[dst.$name]:-}" "${MBS[nbd.$name]:-}")" \
			"$(ratio "${MBS[dst.$name]:-}" "${MBS[brd.$name]:-}")"
	done
} | tee "$OUT/bench.txt"
