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
 *	session		with the right --secret: the session rule.  A
 *			connection of a session with its proof (generation
 *			1); generation 3 with its proof fences it; then, while
 *			that one is open, generation 5 with the proof seen on
 *			it, with none, and generation 4 with a random one are
 *			refused (DST_EPERM), and it still serves; generation
 *			4 with its proof is let in
 *	hijack SESSION GENERATION PROOF
 *			with the right --secret: a hello with another client's
 *			session (hex), a generation and a proof (64 hex
 *			digits, or 0 for none) must get DST_EPERM
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

/* WRITE 4 KiB at @off and read it back over @c; fails if it cannot. */
static void write_read(struct wire_conn *c, uint64_t off, const char *what)
{
	uint8_t out[BLK], in[BLK];
	struct dst_request q;
	int st;

	fill_random(out, sizeof(out));
	wire_req(c, &q, DST_REQ_WRITE, 1, off, BLK, out);
	if (write_full(c->fd, &q, sizeof(q)) || write_full(c->fd, out, BLK))
		fail("%s: send: %s", what, strerror(errno));
	st = wire_reply(c, 1, DST_REQ_WRITE, NULL, 0);
	if (st == DST_OK) {
		wire_req(c, &q, DST_REQ_READ, 2, off, BLK, NULL);
		if (write_full(c->fd, &q, sizeof(q)))
			fail("%s: send: %s", what, strerror(errno));
		st = wire_reply(c, 2, DST_REQ_READ, in, BLK);
	}
	if (st != DST_OK)
		fail("%s: %s", what, st < 0 ? "connection closed" : status_name(st));
	if (memcmp(in, out, BLK))
		fail("%s: READ did not return what was written", what);
}

/* Whether the server closed @fd (a fenced connection), not just silent. */
static bool closed(int fd)
{
	uint8_t b;
	ssize_t n = read_full(fd, &b, 1);

	return !n || (n < 0 && errno == ECONNRESET);
}

/* A connection of session @id at @gen with @proof; the hello's status. */
static int session_conn(struct wire_conn *c, const char *host, const char *port,
			uint64_t id, uint32_t gen, const uint8_t *proof)
{
	wire_session = id;
	wire_generation = gen;
	wire_proof = proof;
	return wire_handshake(c, host, port, secret, secret_len, features(),
			      NULL, NULL);
}

/* A connection that must be refused with DST_EPERM. */
static void session_refused(const char *host, const char *port, uint64_t id,
			    uint32_t gen, const uint8_t *proof, const char *what)
{
	struct wire_conn c;
	int err = session_conn(&c, host, port, id, gen, proof);

	if (err != DST_EPERM)
		fail("%s: %s, want DST_EPERM", what,
		     err < 0 ? "connection closed" :
		     err ? status_name(err) : "let in");
	say("%s: refused: %s", what, c.reason);
	close(c.fd);
}

static void client_session(const char *host, const char *port)
{
	static uint8_t chain[DST_SESSION_SPAN + 1][DST_CHALLENGE_LEN];
	uint8_t zero[DST_CHALLENGE_LEN] = {}, junk[DST_CHALLENGE_LEN];
	struct wire_conn one, three, four;
	uint64_t id = rnd() | 1;
	int i, err;

	if (!secret_len)
		die("session needs --secret");
	fill_random(chain[0], DST_CHALLENGE_LEN);
	for (i = 1; i <= DST_SESSION_SPAN; i++) {
		memcpy(chain[i], chain[i - 1], DST_CHALLENGE_LEN);
		session_step(chain[i]);
	}
#define PROOF(g) chain[DST_SESSION_SPAN - (g)]
	err = session_conn(&one, host, port, id, 1, PROOF(1));
	if (err)
		fail("generation 1: %s", err < 0 ? "connection closed" : status_name(err));
	err = session_conn(&three, host, port, id, 3, PROOF(3));
	if (err)
		fail("generation 3 with its proof: %s",
		     err < 0 ? "connection closed" : status_name(err));
	if (!closed(one.fd))
		fail("generation 1 not fenced");
	close(one.fd);
	session_refused(host, port, id, 5, PROOF(3), "generation 5, proof seen on 3");
	session_refused(host, port, id, 5, zero, "generation 5, no proof");
	fill_random(junk, sizeof(junk));
	session_refused(host, port, id, 4, junk, "generation 4, a random proof");
	session_refused(host, port, id, 3 + DST_SESSION_SPAN + 1, PROOF(3),
			"a generation beyond the chain");
	write_read(&three, 0, "generation 3 after the refusals");
	err = session_conn(&four, host, port, id, 4, PROOF(4));
	if (err)
		fail("generation 4 with its proof: %s",
		     err < 0 ? "connection closed" : status_name(err));
	if (!closed(three.fd))
		fail("generation 3 not fenced");
	write_read(&four, BLK, "generation 4");
#undef PROOF
	say("session: proofs taken in chain order, a seen, missing, random or too distant one refused; the open connection kept serving");
	close(three.fd);
	close(four.fd);
}

static void client_hijack(const char *host, const char *port, char **args)
{
	uint8_t proof[DST_CHALLENGE_LEN] = {};
	uint64_t id;
	unsigned int i;

	if (!secret_len)
		die("hijack needs --secret");
	id = strtoull(args[0], NULL, 16);
	if (!id)
		die("bad session '%s'", args[0]);
	if (strcmp(args[2], "0")) {
		if (strlen(args[2]) != 2 * DST_CHALLENGE_LEN)
			die("a proof is %d hex digits", 2 * DST_CHALLENGE_LEN);
		for (i = 0; i < DST_CHALLENGE_LEN; i++)
			if (sscanf(args[2] + 2 * i, "%2hhx", &proof[i]) != 1)
				die("bad proof '%s'", args[2]);
	}
	session_refused(host, port, id, parse_u64(args[1], "generation"), proof,
			"hijack");
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
	else if (!strcmp(c, "session"))
		client_session(host, port);
	else if (!strcmp(c, "hijack") && argc == 6)
		client_hijack(host, port, argv + 3);
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
