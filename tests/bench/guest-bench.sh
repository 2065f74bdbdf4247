#!/bin/bash
# Benchmark, not a test: fio on a raw brd, on dst (a brd exported and
# imported over TCP loopback) and on nbd (nbd-server exporting a brd, the
# kernel nbd client via nbd-client on 127.0.0.1), each also with TLS 1.3
# and X.509 certificates made here (dsttls: dstadm tlsd's handshake, the
# kernel's TLS layer; nbdtls: nbd-server and nbd-client 3.24 with GnuTLS,
# whose client relays the kernel's socket through TLS in userspace), side
# by side in one guest.  Both negotiate GnuTLS's first TLS 1.3 cipher,
# AES-256-GCM.  Rows: sequential 1 MiB read and write at QD 8, random 4 KiB
# read and write at QD 32. Prints a table with MB/s and IOPS per peer and
# the ratios dst/nbd, dst/brd, dst+TLS/nbd+TLS and dst+TLS/dst (the cost
# of TLS).
# Settings: kernel command line dsttest.bench_runtime=SECONDS (default 20)
# or env DST_BENCH_RUNTIME; DST_BENCH_PEERS (default "brd dst dsttls nbd
# nbdtls").
# Output: $DST_RESULTS/bench.txt (the table), bench-*.json (fio output).
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

PEERS=${DST_BENCH_PEERS:-brd dst dsttls nbd nbdtls}
DST_PORT=7300
NBD_PORT=10809
TLS=/tmp/bench-tls
ROWS=("seq-read read 1M 8" "seq-write write 1M 8" "rand-read randread 4k 32" "rand-write randwrite 4k 32")
NBD_PID=
NBD_TLS_PID=
TLSD_PID=
DST_EXPORTED=
DST_TLS_EXPORTED=

cleanup() {
	set +e
	local d p
	for d in nbd nbdtls; do
		if [[ -n "${DEVS[$d]:-}" ]]; then bounded 30 nbd-client -d "${DEVS[$d]}"; fi
	done
	for p in "$NBD_PID" "$NBD_TLS_PID"; do
		if [[ -n "$p" ]]; then
			kill "$p"
			wait "$p"
		fi
	done
	for d in dst dsttls; do
		if [[ -n "${DEVS[$d]:-}" ]]; then
			bounded 60 dstadm stop "bench-$d"
			bounded 30 dstadm delete "bench-$d"
		fi
	done
	if [[ -n "$DST_EXPORTED" ]]; then bounded 60 dstadm unexport bench; fi
	if [[ -n "$DST_TLS_EXPORTED" ]]; then bounded 60 dstadm unexport bench-tls; fi
	if [[ -n "$TLSD_PID" ]]; then
		kill "$TLSD_PID"
		wait "$TLSD_PID"
	fi
	dst_loaded && rmmod dst_storage
	grep -q '^nbd ' /proc/modules && rmmod nbd
	grep -q '^brd ' /proc/modules && rmmod brd
}
trap cleanup EXIT

ip link set lo up
if grep -q '^brd ' /proc/modules; then rmmod brd; fi
# ram0: raw, ram1: exported by dst, ram2: by nbd-server, ram3: by dst with
# TLS, ram4: by nbd-server with TLS. Filled first so that no run pays for
# brd's page allocation.
modprobe brd rd_nr=5 rd_size=262144
for i in 0 1 2 3 4; do
	bounded 120 dd if=/dev/zero of=/dev/ram$i bs=1M count=256 oflag=direct status=none
done

# A CA and a certificate for 127.0.0.1 (and localhost), with its key,
# used by both ends of dst+TLS and nbd+TLS.
make_certs() {
	[[ -s $TLS/srv.pem ]] && return 0
	mkdir -p $TLS
	printf 'cn = "bench CA"\nca\ncert_signing_key\nexpiration_days = 30\n' >$TLS/ca.tmpl
	printf 'cn = "localhost"\ndns_name = "localhost"\nip_address = "127.0.0.1"\ntls_www_server\ntls_www_client\nexpiration_days = 30\n' >$TLS/srv.tmpl
	certtool --generate-privkey --key-type=ecdsa --outfile $TLS/ca.key 2>/dev/null &&
		certtool --generate-self-signed --load-privkey $TLS/ca.key \
			--template $TLS/ca.tmpl --outfile $TLS/ca.pem 2>/dev/null &&
		certtool --generate-privkey --key-type=ecdsa --outfile $TLS/srv.key 2>/dev/null &&
		certtool --generate-certificate --load-privkey $TLS/srv.key \
			--load-ca-certificate $TLS/ca.pem --load-ca-privkey $TLS/ca.key \
			--template $TLS/srv.tmpl --outfile $TLS/srv.pem 2>/dev/null
}

# nbd_peer NAME DEVICE PORT NBD CLIENT_OPTIONS [SERVER_LINES...]:
# nbd-server with SERVER_LINES in [generic], and the kernel client on
# /dev/NBD with CLIENT_OPTIONS (words); sets NBD_STARTED to the server's pid.
nbd_peer() {
	local name=$1 dev=$2 port=$3 nbd=$4 opts=$5 conf=/tmp/$1.conf
	shift 5
	if ! command -v nbd-server >/dev/null || ! command -v nbd-client >/dev/null; then
		echo "bench: nbd-server/nbd-client not installed"
		return 1
	fi
	grep -q '^nbd ' /proc/modules || modprobe nbd nbds_max=2 || return 1
	{
		printf '[generic]\nlistenaddr = 127.0.0.1\nport = %s\n' "$port"
		(($# == 0)) || printf '%s\n' "$@"
		printf '[bench]\nexportname = %s\n' "$dev"
	} >"$conf"
	nbd-server -C "$conf" -d >"/tmp/$name-server.log" 2>&1 &
	NBD_STARTED=$!
	sleep 1
	DEVS[$name]=/dev/$nbd
	# shellcheck disable=SC2086 # the client's options, word by word
	bounded 60 nbd-client -N bench -b 512 $opts 127.0.0.1 "$port" "/dev/$nbd"
}

setup_peer() {
	local out
	case "$1" in
	brd) DEVS[brd]=/dev/ram0 ;;
	dst)
		dst_loaded || modprobe dst_storage || return 1
		bounded 30 dstadm export bench --device /dev/ram1 --listen 127.0.0.1:$DST_PORT || return 1
		DST_EXPORTED=1
		out=$(bounded 60 dstadm import bench-dst --remote 127.0.0.1:$DST_PORT) || return 1
		DEVS[dst]=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1)
		;;
	dsttls)
		dst_loaded || modprobe dst_storage || return 1
		make_certs || return 1
		dstadm tlsd 2>/tmp/bench-tlsd.log &
		TLSD_PID=$!
		sleep 1
		bounded 30 dstadm export bench-tls --device /dev/ram3 \
			--listen 127.0.0.1:$((DST_PORT + 1)) --tls-cert $TLS/srv.pem \
			--tls-key $TLS/srv.key --tls-ca $TLS/ca.pem || return 1
		DST_TLS_EXPORTED=1
		out=$(bounded 60 dstadm import bench-dsttls --remote 127.0.0.1:$((DST_PORT + 1)) \
			--tls-ca $TLS/ca.pem --tls-cert $TLS/srv.pem --tls-key $TLS/srv.key) || return 1
		DEVS[dsttls]=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1)
		;;
	nbd)
		NBD_STARTED=
		nbd_peer nbd /dev/ram2 $NBD_PORT nbd0 ""
		NBD_PID=$NBD_STARTED
		[[ -n "$NBD_PID" ]] || return 1
		;;
	nbdtls)
		make_certs || return 1
		NBD_STARTED=
		nbd_peer nbdtls /dev/ram4 $((NBD_PORT + 1)) nbd1 \
			"-certfile $TLS/srv.pem -keyfile $TLS/srv.key -cacertfile $TLS/ca.pem -tlshostname 127.0.0.1" \
			"certfile = $TLS/srv.pem" "keyfile = $TLS/srv.key" \
			"cacertfile = $TLS/ca.pem" "force_tls = true"
		NBD_TLS_PID=$NBD_STARTED
		[[ -n "$NBD_TLS_PID" ]] || return 1
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
	printf ' %8s %8s %15s %12s\n' dst/nbd dst/brd dsttls/nbdtls dsttls/dst
	for row in "${ROWS[@]}"; do
		read -r name _ <<<"$row"
		printf '%-11s' "$name"
		for p in $PEERS; do
			printf ' %10s %10s' "$(num "${MBS[$p.$name]:-}" %.1f)" \
				"$(num "${IOPS[$p.$name]:-}" %.0f)"
		done
		printf ' %8s %8s %15s %12s\n' "$(ratio "${MBS[dst.$name]:-}" "${MBS[nbd.$name]:-}")" \
			"$(ratio "${MBS[dst.$name]:-}" "${MBS[brd.$name]:-}")" \
			"$(ratio "${MBS[dsttls.$name]:-}" "${MBS[nbdtls.$name]:-}")" \
			"$(ratio "${MBS[dsttls.$name]:-}" "${MBS[dst.$name]:-}")"
	done
} | tee "$OUT/bench.txt"
