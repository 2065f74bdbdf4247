// SPDX-License-Identifier: GPL-2.0
/*
 * dstsec: the security of the wire protocol seen from a raw peer: allow
 * lists, the shared-secret handshake and CRC-32C.  Runs in the test guest.
 * Exit 0: the other end did what the protocol says; 1: it did not
 * (printed); 2: usage or set-up error.
 *
 *   dstsec [--secret FILE] [--crc] client HOST PORT CASE [ARG]
 *	ok [OFFSET]	handshake, WRITE 4 KiB, READ it back and compare; with
 *			--crc every checksum of the server is checked
 *	denied		the hello gets DST_EPERM (not on the allow list)
 *	refused		the handshake fails: DST_EPERM or the connection
 *			closed, never a hello reply that lets I/O in (no or
 *			wrong secret); with --secret the server's answer
 *			must not verify
 *	auth-reserved	with the right --secret, an answer whose reserved
 *			field is not 0: the handshake fails as for "refused"
 *	replay		with the right --secret: a good session, then a new
 *			one that sends the same challenge and replays the
 *			recorded answer: the server's challenge must be new
 *			and the answer refused
 *	flip N		with --crc: N WRITEs of 4 KiB, each with one random
 *			bit of its header or data flipped after the
 *			checksums: a data flip gets DST_ECRC and the
 *			connection goes on, a header flip closes it; never
 *			DST_OK
 *
 *   dstsec server PORT SIZE flip
 *	A CRC-32C export of SIZE bytes on 127.0.0.1:PORT for the in-kernel
 *	client, taking connection after connection until it is killed: it
 *	checks the client's checksums and answers everything correctly,
 *	except that each reply to a READ in the upper half of the export has
 *	one random bit flipped after its checksums (1 in 4 in the header,
 *	else in the data).
 */
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "wire.h"

#define BLK		4096
#define SRV_MAXREQ	(1U << 20)

const char *wire_prog = "dstsec";

static uint8_t secret[DST_SECRET_MAX];
static size_t secret_len;
static bool want_crc;

static uint64_t features(void)
{
	return DST_FEAT_FLUSH | (want_crc ? DST_FEAT_CRC32C : 0);
}

static void connect_ok(struct wire_conn *c, const char *host, const char *port)
{
	int err = wire_handshake(c, host, port, secret_len ? secret : NULL,
				 secret_len, features(), NULL, NULL);

	if (err < 0)
		fail("the server closed the connection in the handshake");
	if (err)
		fail("refused: %s: %s", status_name(err), c->reason);
	if (secret_len && (!c->server_proved || !(c->flags & DST_EXPORT_AUTH)))
		fail("the server did not prove the secret");
	if (want_crc && !c->crc)
		fail("crc32c not granted");
}

static void client_ok(const char *host, const char *port, const char *arg)
{
	uint8_t out[BLK], in[BLK];
	struct dst_request q;
	struct wire_conn c;
	uint64_t off;
	int st;

	connect_ok(&c, host, port);
	off = arg ? parse_u64(arg, "offset") : 0;
	fill_random(out, sizeof(out));
	wire_req(&c, &q, DST_REQ_WRITE, 1, off, BLK, out);
	if (write_full(c.fd, &q, sizeof(q)) || write_full(c.fd, out, BLK))
		fail("send: %s", strerror(errno));
	st = wire_reply(&c, 1, DST_REQ_WRITE, NULL, 0);
	if (st != DST_OK)
		fail("WRITE: %s", st < 0 ? "connection closed" : status_name(st));
	wire_req(&c, &q, DST_REQ_READ, 2, off, BLK, NULL);
	if (write_full(c.fd, &q, sizeof(q)))
		fail("send: %s", strerror(errno));
	st = wire_reply(&c, 2, DST_REQ_READ, in, BLK);
	if (st != DST_OK)
		fail("READ: %s", st < 0 ? "connection closed" : status_name(st));
	if (memcmp(in, out, BLK))
		fail("READ did not return what was written");
	say("ok: secret %s, crc32c %s, wrote and read back 4 KiB at %llu",
	    c.flags & DST_EXPORT_AUTH ? "proved" : "none", c.crc ? "on" : "off",
	    (unsigned long long)off);
	close(c.fd);
}

static void client_refused(const char *host, const char *port, int want)
{
	struct wire_conn c;
	int err;

	err = wire_handshake(&c, host, port, secret_len ? secret : NULL,
			     secret_len, features(), NULL, NULL);
	if (err == DST_OK)
		fail("the server let the client in");
	if (want != -1 && err != want)
		fail("expected %s, got %s", status_name(want),
		     err < 0 ? "the connection closed" : status_name(err));
	if (secret_len && c.server_proved && !wire_auth_reserved)
		fail("the server's answer verified with a wrong secret");
	say("refused: %s%s%s", err < 0 ? "connection closed" : status_name(err),
	    err > 0 ? ": " : "", err > 0 ? c.reason : "");
	close(c.fd);
}

static void client_replay(const char *host, const char *port)
{
	struct wire_conn one, two;
	int err;

	if (!secret_len)
		die("replay needs --secret");
	connect_ok(&one, host, port);
	close(one.fd);
	err = wire_handshake(&two, host, port, NULL, 0, features(), one.cchal,
			     one.resp);
	if (!memcmp(one.schal, two.schal, DST_CHALLENGE_LEN))
		fail("the server sent the same challenge twice");
	if (err == DST_OK)
		fail("the replayed answer was accepted");
	say("replay: new server challenge, replayed answer refused (%s%s%s)",
	    err < 0 ? "connection closed" : status_name(err), err > 0 ? ": " : "",
	    err > 0 ? two.reason : "");
	close(two.fd);
}

/* Whether the connection is closed within io_timeout, nothing OK before. */
static bool closed_without_ok(int fd)
{
	struct dst_reply r;
	ssize_t n = read_full(fd, &r, sizeof(r));

	if (n == 0 || (n < 0 && errno == ECONNRESET))
		return true;
	if (n == (ssize_t)sizeof(r) && be32toh(r.status) == DST_OK)
		fail("a corrupted request was answered with DST_OK");
	if (n < 0)
		fail("the server neither answered nor closed: %s", strerror(errno));
	return closed_without_ok(fd);
}

static void client_flip(const char *host, const char *port, const char *arg)
{
	uint64_t n, i, hdr = 0, data = 0, handle = 1, off;
	uint8_t buf[sizeof(struct dst_request) + BLK];
	struct dst_request *q = (void *)buf;
	struct wire_conn c;
	unsigned int bit;
	int st;

	if (!want_crc || !arg)
		die("flip needs --crc and a count");
	n = parse_u64(arg, "count");
	connect_ok(&c, host, port);
	for (i = 0; i < n; i++) {
		off = rnd() % (c.size / BLK) * BLK;
		fill_random(buf + sizeof(*q), BLK);
		wire_req(&c, q, DST_REQ_WRITE, handle, off, BLK, buf + sizeof(*q));
		bit = rnd() % 4 ? sizeof(*q) * 8 + rnd() % (BLK * 8) :
				  rnd() % (sizeof(*q) * 8);
		buf[bit / 8] ^= 1 << (bit % 8);
		/* The server may close on the header before the data is sent. */
		if (write_full(c.fd, buf, sizeof(buf)) && bit >= sizeof(*q) * 8)
			fail("send: %s", strerror(errno));
		if (bit >= sizeof(*q) * 8) {
			st = wire_reply(&c, handle++, DST_REQ_WRITE, NULL, 0);
			if (st != DST_ECRC)
				fail("trial %llu: a flipped data bit %u got %s",
				     (unsigned long long)i, bit,
				     st < 0 ? "the connection closed" : status_name(st));
			data++;
			continue;
		}
		if (!closed_without_ok(c.fd))
			fail("trial %llu: header bit %u flipped, connection not closed",
			     (unsigned long long)i, bit);
		hdr++;
		close(c.fd);
		connect_ok(&c, host, port);
	}
	close(c.fd);
	say("flip: %llu trials, all detected: %llu data flips got ECRC, %llu header flips closed the connection",
	    (unsigned long long)n, (unsigned long long)data, (unsigned long long)hdr);
}

static int cmd_client(int argc, char **argv)
{
	const char *host, *port, *c, *arg;

	if (argc < 3)
		die("usage: dstsec [--secret FILE] [--crc] client HOST PORT CASE [ARG]");
	host = argv[0];
	port = argv[1];
	c = argv[2];
	arg = argc > 3 ? argv[3] : NULL;
	rng_state ^= (uint64_t)getpid() << 20;
	if (!strcmp(c, "ok"))
		client_ok(host, port, arg);
	else if (!strcmp(c, "denied"))
		client_refused(host, port, DST_EPERM);
	else if (!strcmp(c, "refused"))
		client_refused(host, port, -1);
	else if (!strcmp(c, "auth-reserved")) {
		if (!secret_len)
			die("auth-reserved needs --secret");
		wire_auth_reserved = 1;
		client_refused(host, port, -1);
	} else if (!strcmp(c, "replay"))
		client_replay(host, port);
	else if (!strcmp(c, "flip"))
		client_flip(host, port, arg);
	else
		die("unknown client case '%s'", c);
	return 0;
}

/* ------------------------------------------------------------------------
 * Server side: an export for the in-kernel client that corrupts replies.
 */

struct srv {
	uint8_t *store;
	uint64_t size;
	uint8_t *buf;
};

/* Serve one connection; returns when the client goes. */
static void srv_conn(struct srv *s, int fd)
{
	struct dst_hello_reply hr;
	struct dst_request q;
	struct dst_reply *r;
	struct dst_hello h;
	uint32_t len, bit;
	uint64_t off;
	size_t total;

	if (read_full(fd, &h, sizeof(h)) != sizeof(h))
		return;
	if (be32toh(h.magic) != DST_HELLO_MAGIC ||
	    be16toh(h.version) != DST_PROTO_VERSION || h.flags ||
	    !(be64toh(h.features) & DST_FEAT_CRC32C))
		fail("the client's hello is not a crc32c hello without a secret");
	hello_ok(&hr, s->size, SRV_MAXREQ, be64toh(h.features) &
		 (DST_FEAT_FLUSH | DST_FEAT_FUA | DST_FEAT_CRC32C));
	if (write_full(fd, &hr, sizeof(hr)))
		return;
	r = (struct dst_reply *)s->buf;
	for (;;) {
		if (read_full(fd, &q, sizeof(q)) != sizeof(q))
			return;
		off = be64toh(q.offset);
		len = be32toh(q.length);
		if (be32toh(q.hdr_crc) != crc_hdr(&q, sizeof(q), &q.hdr_crc))
			fail("request header checksum %#x, computed %#x",
			     be32toh(q.hdr_crc), crc_hdr(&q, sizeof(q), &q.hdr_crc));
		if (be32toh(q.magic) != DST_REQ_MAGIC || len > SRV_MAXREQ ||
		    off > s->size || len > s->size - off)
			fail("bad request: cmd %u offset %llu length %u", q.cmd,
			     (unsigned long long)off, len);
		if (q.cmd == DST_REQ_DISCONNECT)
			return;
		memset(r, 0, sizeof(*r));
		r->magic = htobe32(DST_REP_MAGIC);
		r->version = DST_PROTO_VERSION;
		r->cmd = q.cmd;
		r->handle = q.handle;
		total = sizeof(*r);
		if (q.cmd == DST_REQ_WRITE) {
			if (read_full(fd, s->buf + sizeof(*r), len) != len)
				return;
			if (be32toh(q.data_crc) != crc32c(s->buf + sizeof(*r), len))
				fail("WRITE data checksum %#x, computed %#x",
				     be32toh(q.data_crc),
				     crc32c(s->buf + sizeof(*r), len));
			memcpy(s->store + off, s->buf + sizeof(*r), len);
		} else if (q.cmd == DST_REQ_READ) {
			memcpy(s->buf + sizeof(*r), s->store + off, len);
			r->length = htobe32(len);
			r->data_crc = htobe32(crc32c(s->buf + sizeof(*r), len));
			total += len;
		}
		r->hdr_crc = htobe32(crc_hdr(r, sizeof(*r), &r->hdr_crc));
		if (q.cmd == DST_REQ_READ && off >= s->size / 2) {
			bit = rnd() % 4 ? sizeof(*r) * 8 + rnd() % (len * 8) :
					  rnd() % (sizeof(*r) * 8);
			s->buf[bit / 8] ^= 1 << (bit % 8);
		}
		if (write_full(fd, s->buf, total))
			return;
	}
}

static int cmd_server(int argc, char **argv)
{
	struct srv s = { 0 };
	int ls, fd;

	if (argc < 3 || strcmp(argv[2], "flip"))
		die("usage: dstsec server PORT SIZE flip");
	s.size = parse_u64(argv[1], "size");
	if (!s.size || s.size % BLK || s.size > (1ULL << 30))
		die("size must be a multiple of %u, at most 1 GiB", BLK);
	s.store = calloc(1, s.size);
	s.buf = malloc(sizeof(struct dst_reply) + SRV_MAXREQ);
	if (!s.store || !s.buf)
		die("out of memory");
	ls = listen_loopback(argv[0]);
	say("serving %llu bytes on 127.0.0.1:%s, READ replies of the upper half corrupted",
	    (unsigned long long)s.size, argv[0]);
	for (;;) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			die("accept: %s", strerror(errno));
		tcp_nodelay(fd);
		srv_conn(&s, fd);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--secret") && i + 1 < argc)
			secret_len = secret_read(argv[++i], secret);
		else if (!strcmp(argv[i], "--crc"))
			want_crc = true;
		else
			die("unknown option '%s'", argv[i]);
	}
	if (i < argc && !strcmp(argv[i], "client"))
		return cmd_client(argc - i - 1, argv + i + 1);
	if (i < argc && !strcmp(argv[i], "server"))
		return cmd_server(argc - i - 1, argv + i + 1);
	die("usage: dstsec [--secret FILE] [--crc] client HOST PORT CASE [ARG] | dstsec server PORT SIZE flip");
}
