#!/bin/bash
# Benchmark, not a test: fio on a raw brd, on dst (a brd exported and
# imported over TCP loopback) and on nbd (nbd-server exporting a brd, the
# kernel nbd client via nbd-client on 127.0.0.1), and each of dst and nbd
# also with TLS 1.3 and X.509 certificates made here, with the same record
# cipher on both: dsttls and nbdtls with AES-128-GCM, dstchacha and
# nbdchacha with ChaCha20-Poly1305 (dst: dstadm tlsd's handshake, the
# kernel's TLS layer, the export's --tls-cipher; nbd: nbd-server and
# nbd-client 3.24 with GnuTLS, which speak TLS 1.2 (their default
# priority, kept), the server's tlsprio allowing the one cipher, the
# client relaying the kernel's socket through TLS in userspace), side by
# side in one guest.  Rows: sequential 1 MiB read and
# write at QD 8, random 4 KiB read and write at QD 32. Prints a table with
# MB/s and IOPS per peer and the ratios dst/nbd, dst/brd, dst+TLS/nbd+TLS
# for each cipher and dst+TLS/dst (the cost of TLS, AES-128-GCM).
# Settings: kernel command line dsttest.bench_runtime=SECONDS (default 20)
# or env DST_BENCH_RUNTIME; DST_BENCH_PEERS (default "brd dst dsttls
# dstchacha nbd nbdtls nbdchacha").
# Output: $DST_RESULTS/bench.txt (the table), bench-*.json (fio output).
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

PEERS=${DST_BENCH_PEERS:-brd dst dsttls dstchacha nbd nbdtls nbdchacha}
DST_PORT=7300
NBD_PORT=10809
TLS=/tmp/bench-tls
ROWS=("seq-read read 1M 8" "seq-write write 1M 8" "rand-read randread 4k 32" "rand-write randwrite 4k 32")
# The brd each peer uses, and its port (dst: DST_PORT + n, nbd: NBD_PORT + n).
declare -A RAM=([brd]=0 [dst]=1 [nbd]=2 [dsttls]=3 [nbdtls]=4 [dstchacha]=5 [nbdchacha]=6)
declare -A NBDDEV=([nbd]=nbd0 [nbdtls]=nbd1 [nbdchacha]=nbd2)
declare -A CIPHER=([dsttls]=aes-128-gcm [dstchacha]=chacha20-poly1305
	[nbdtls]=AES-128-GCM [nbdchacha]=CHACHA20-POLY1305)
NBD_PIDS=()
DST_EXPORTS=()
TLSD_PID=

cleanup() {
	set +e
	local d p
	for d in nbd nbdtls nbdchacha; do
		if [[ -n "${DEVS[$d]:-}" ]]; then bounded 30 nbd-client -d "${DEVS[$d]}"; fi
	done
	for p in "${NBD_PIDS[@]}"; do
		kill "$p"
		wait "$p"
	done
	for d in dst dsttls dstchacha; do
		if [[ -n "${DEVS[$d]:-}" ]]; then
			bounded 60 dstadm stop "bench-$d"
			bounded 30 dstadm delete "bench-$d"
		fi
	done
	for d in "${DST_EXPORTS[@]}"; do bounded 60 dstadm unexport "$d"; done
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
# One brd per peer (RAM), filled first so that no run pays for brd's page
# allocation.
modprobe brd rd_nr=7 rd_size=262144
for i in 0 1 2 3 4 5 6; do
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

# nbd_peer NAME CLIENT_OPTIONS [SERVER_LINES...]: nbd-server with
# SERVER_LINES in [generic] serving NAME's brd, and the kernel client on
# NAME's nbd device with CLIENT_OPTIONS (words).
nbd_peer() {
	local name=$1 opts=$2 conf=/tmp/$1.conf port=$((NBD_PORT + RAM[$1]))
	local nbd=${NBDDEV[$1]}
	shift 2
	if ! command -v nbd-server >/dev/null || ! command -v nbd-client >/dev/null; then
		echo "bench: nbd-server/nbd-client not installed"
		return 1
	fi
	grep -q '^nbd ' /proc/modules || modprobe nbd nbds_max=3 || return 1
	{
		printf '[generic]\nlistenaddr = 127.0.0.1\nport = %s\n' "$port"
		(($# == 0)) || printf '%s\n' "$@"
		printf '[bench]\nexportname = /dev/ram%s\n' "${RAM[$name]}"
	} >"$conf"
	nbd-server -C "$conf" -d >"/tmp/$name-server.log" 2>&1 &
	NBD_PIDS+=($!)
	sleep 1
	DEVS[$name]=/dev/$nbd
	# shellcheck disable=SC2086 # the client's options, word by word
	bounded 60 nbd-client -N bench -b 512 $opts 127.0.0.1 "$port" "/dev/$nbd"
}

# dst_peer NAME [EXPORT_OPTIONS...]: NAME's brd exported as e-NAME with
# EXPORT_OPTIONS (TLS, if any), imported as bench-NAME with the export's
# TLS files.
dst_peer() {
	local name=$1 port=$((DST_PORT + RAM[$1])) out tls=()
	shift
	dst_loaded || modprobe dst_storage || return 1
	bounded 30 dstadm export "e-$name" --device "/dev/ram${RAM[$name]}" \
		--listen 127.0.0.1:$port "$@" || return 1
	DST_EXPORTS+=("e-$name")
	(($# == 0)) || tls=(--tls-ca "$TLS/ca.pem" --tls-cert "$TLS/srv.pem" --tls-key "$TLS/srv.key")
	out=$(bounded 60 dstadm import "bench-$name" --remote 127.0.0.1:$port "${tls[@]}") ||
		return 1
	DEVS[$name]=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1)
}

setup_peer() {
	case "$1" in
	brd) DEVS[brd]=/dev/ram0 ;;
	dst) dst_peer dst || return 1 ;;
	dsttls | dstchacha)
		make_certs || return 1
		if [[ -z "$TLSD_PID" ]]; then
			dst_loaded || modprobe dst_storage || return 1
			dstadm tlsd 2>/tmp/bench-tlsd.log &
			TLSD_PID=$!
			sleep 1
		fi
		# The export allows one cipher; the module checks both ends use it.
		dst_peer "$1" --tls-cert $TLS/srv.pem --tls-key $TLS/srv.key \
			--tls-ca $TLS/ca.pem --tls-cipher "${CIPHER[$1]}" || return 1
		;;
	nbd) nbd_peer nbd "" || return 1 ;;
	nbdtls | nbdchacha)
		make_certs || return 1
		nbd_peer "$1" \
			"-certfile $TLS/srv.pem -keyfile $TLS/srv.key -cacertfile $TLS/ca.pem -tlshostname 127.0.0.1" \
			"certfile = $TLS/srv.pem" "keyfile = $TLS/srv.key" \
			"cacertfile = $TLS/ca.pem" "force_tls = true" \
			"tlsprio = NORMAL:-VERS-TLS-ALL:+VERS-TLS1.2:-CIPHER-ALL:+${CIPHER[$1]}:%SERVER_PRECEDENCE" || return 1
		;;
	esac
	[[ -b "${DEVS[$1]:-}" ]] || return 1
	echo "bench: $1 is ${DEVS[$1]} ($(blockdev --getsize64 "${DEVS[$1]}") bytes)"
}

# The record ciphers' own speed on this guest's CPU, one vCPU each, which
# bounds the TLS rows: the kernel's (what dst's TLS records use; tcrypt's
# AEAD speed test, 8 KiB, 128-bit key for AES-GCM) and GnuTLS's (what
# nbd's processes use; gnutls-cli --benchmark-ciphers, 16 KiB), and
# whether the CPU has AES instructions.
crypto_rates() {
	local aes=no
	grep -qw aes /proc/cpuinfo && aes=yes
	echo "record ciphers on this CPU (MB/s, one vCPU; AES instructions: $aes):"
	modprobe tcrypt mode=211 sec=1 2>/dev/null || true
	modprobe tcrypt mode=213 sec=1 2>/dev/null || true
	dmesg --notime | awk '
		/testing speed of (gcm\(aes\)|rfc7539esp\(chacha20,poly1305\)) / {
			alg = $4 " " $5; dir = $6; next
		}
		/testing speed of / { alg = ""; next }
		alg != "" && /8192 byte blocks/ &&
		(alg !~ /^gcm/ || /128 bit key/) && match($0, /in [0-9]+ seconds \([0-9]+ bytes/) {
			split(substr($0, RSTART, RLENGTH), f, /[ (]+/)
			rate[alg] = rate[alg] sprintf(" %s %.1f", dir, f[4] / f[2] / 1e6)
		}
		END { for (a in rate) printf "  kernel %s:%s (8 KiB)\n", a, rate[a] }'
	bounded 300 gnutls-cli --benchmark-ciphers 2>&1 |
		awk '($1 == "AES-128-GCM" || $1 == "CHACHA20-POLY1305") && !seen[$1]++ {
			printf "  GnuTLS %s: %s (16 KiB)\n", $1, $2 }'
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
	printf ' %8s %8s %15s %21s %12s\n' dst/nbd dst/brd dsttls/nbdtls dstchacha/nbdchacha dsttls/dst
	for row in "${ROWS[@]}"; do
		read -r name _ <<<"$row"
		printf '%-11s' "$name"
		for p in $PEERS; do
			printf ' %10s %10s' "$(num "${MBS[$p.$name]:-}" %.1f)" \
				"$(num "${IOPS[$p.$name]:-}" %.0f)"
		done
		printf ' %8s %8s %15s %21s %12s\n' "$(ratio "${MBS[dst.$name]:-}" "${MBS[nbd.$name]:-}")" \
			"$(ratio "${MBS[dst.$name]:-}" "${MBS[brd.$name]:-}")" \
			"$(ratio "${MBS[dsttls.$name]:-}" "${MBS[nbdtls.$name]:-}")" \
			"$(ratio "${MBS[dstchacha.$name]:-}" "${MBS[nbdchacha.$name]:-}")" \
			"$(ratio "${MBS[dsttls.$name]:-}" "${MBS[dst.$name]:-}")"
	done
	[[ " $PEERS " != *tls* && " $PEERS " != *chacha* ]] || crypto_rates
} | tee "$OUT/bench.txt"
