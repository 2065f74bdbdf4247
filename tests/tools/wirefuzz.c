// SPDX-License-Identifier: GPL-2.0
/*
 * wirefuzz: a structure-aware fuzzer of the dst wire protocol.  Messages
 * are built field by field, mostly valid so that a connection lives long
 * enough to reach deep states, with one field at a time set to a value
 * from a list of edge cases or to random bits.  A fixed seed gives the
 * same run.  Runs in the test guest; the kernel log is checked there.
 *
 *   wirefuzz client HOST PORT N SEED
 *	Sends N messages (hellos and requests) to an in-kernel export,
 *	connecting again whenever it closes the connection.  Fails if a
 *	request known to be invalid is answered DST_OK, or if the export
 *	stops answering valid requests.
 *
 *   wirefuzz server PORT SIZE N SEED [RATE]
 *	An export of SIZE bytes on 127.0.0.1:PORT for the in-kernel client:
 *	sends N messages (hello replies and replies), taking connection after
 *	connection, with about 1 in 8 hello replies and 1 in RATE replies
 *	(default 1024) mutated; each mutation costs a reconnect of at least
 *	0.1 s.  Exits 0 after N messages.
 *
 * Both print how many messages were sent and how many were mutated.
 * With --tls-psk FILE first, each connection is TLS 1.3 with the key in
 * FILE (one trailing newline dropped), as dstadm tlsd does it, and the
 * client proves it as the secret: the messages are fuzzed inside TLS.
 * (The server has no secret, so it cannot serve a client with TLS.)
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

#include "ktls.h"
#include "wire.h"

#define MAXREQ		(1U << 20)
#define BLK		4096

const char *wire_prog = "wirefuzz";

/* --tls-psk: the key (secret_read() reads a byte more), size 0 for none. */
static uint8_t psk[DST_SECRET_MAX + 1];
static struct ktls_params tls = { .mode = DST_TLS_PSK, .psk = { psk, 0 } };

static void tls_on(int fd)
{
	char why[256];
	int err;

	if (!tls.psk.size)
		return;
	err = ktls_handshake(fd, &tls, why, sizeof(why));
	if (err)
		fail("TLS with the %s: %s", tls.server ? "client" : "export", why);
}

static void tls_load(const char *path)
{
	tls.psk.size = secret_read(path, psk);
	wire_on_connect = tls_on;
}

static uint64_t sent, mutated;

/* An edge case for a field of @bits bits, or random bits. */
static uint64_t edge(unsigned int bits, uint64_t size)
{
	static const uint64_t v[] = { 0, 1, 511, 512, 513, 4095, 4096, MAXREQ,
				      MAXREQ + 512, 0x7fffffff, 0x80000000,
				      0xffffffff, ~0ULL, ~0ULL - 511 };
	uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;

	switch (rnd() % 4) {
	case 0:
		return v[rnd() % (sizeof(v) / sizeof(v[0]))] & mask;
	case 1:
		return (size + (rnd() % 3 - 1) * 512) & mask;
	case 2:
		return (size - (rnd() % 3) * 512 - 1) & mask;
	default:
		return rnd() & mask;
	}
}

/* ------------------------------------------------------------------------
 * Client side.
 */

struct cli {
	const char *host, *port;
	struct wire_conn c;
	bool up;
	uint64_t handle;
	uint8_t *buf;
};

/* A hello with one field mutated, or junk; the connection is then done. */
static void fuzz_hello(struct cli *f)
{
	struct dst_hello h = {
		.magic = htobe32(DST_HELLO_MAGIC),
		.version = htobe16(DST_PROTO_VERSION),
		.features = htobe64(rnd()),
	};
	uint8_t junk[256];
	int fd;

	fill_random(h.challenge, sizeof(h.challenge));
	hello_session(&h);
	switch (rnd() % 8) {
	case 0:
		h.magic = htobe32((uint32_t)edge(32, 0));
		break;
	case 1:
		h.version = htobe16((uint16_t)edge(16, 0));
		break;
	case 2:
		h.flags = htobe16((uint16_t)rnd());
		break;
	case 3:
		h.features = htobe64(edge(64, 0));
		break;
	case 4:
		h.session = htobe64(edge(64, 0));
		break;
	case 5:
		h.generation = htobe32((uint32_t)edge(32, 0));
		h.reserved = htobe32((uint32_t)edge(32, 0));
		break;
	default:
		break;
	}
	fd = connect_to(f->host, f->port);
	set_timeouts(fd, 2);
	if (rnd() % 3 == 0) {
		fill_random(junk, sizeof(junk));
		(void)!write_full(fd, junk, 1 + rnd() % sizeof(junk));
	} else {
		(void)!write_full(fd, &h, rnd() % 4 ? sizeof(h) : rnd() % sizeof(h));
	}
	shutdown(fd, SHUT_WR);
	(void)!read_full(fd, junk, sizeof(junk));
	close(fd);
	sent++;
	mutated++;
}

static void cli_connect(struct cli *f)
{
	/* An export with TLS and PSK has the key as its secret too. */
	int err = wire_handshake(&f->c, f->host, f->port,
				 tls.psk.size ? psk : NULL, tls.psk.size,
				 rnd() % 2 ? DST_FEAT_CRC32C | DST_FEAT_FLUSH |
				 DST_FEAT_DISCARD | DST_FEAT_WRITE_ZEROES : rnd(),
				 NULL, NULL);

	if (err)
		fail("the export refused a valid hello (%d): %s", err, f->c.reason);
	if (f->c.size < BLK || f->c.lbs < 512)
		fail("unusable export: size %llu, block size %u",
		     (unsigned long long)f->c.size, f->c.lbs);
	set_timeouts(f->c.fd, IO_TIMEOUT);
	f->up = true;
	sent++;
}

/* A valid request of a random kind inside the export. */
static void valid_req(struct cli *f, struct dst_request *q, uint32_t *dlen)
{
	static const uint8_t cmds[] = { DST_REQ_READ, DST_REQ_READ, DST_REQ_WRITE,
					DST_REQ_WRITE, DST_REQ_FLUSH, DST_REQ_DISCARD,
					DST_REQ_WRITE_ZEROES };
	uint8_t cmd = cmds[rnd() % sizeof(cmds)];
	uint64_t blocks = f->c.size / f->c.lbs, off;
	uint32_t len = (uint32_t)(1 + rnd() % 16) * f->c.lbs;

	if (len > f->c.max_request)
		len = f->c.lbs;
	off = rnd() % (blocks - len / f->c.lbs + 1) * f->c.lbs;
	if (cmd == DST_REQ_FLUSH)
		off = len = 0;
	*dlen = cmd == DST_REQ_WRITE ? len : 0;
	if (*dlen)
		fill_random(f->buf, *dlen);
	wire_req(&f->c, q, cmd, ++f->handle, off, len, f->buf);
	if (cmd == DST_REQ_WRITE && rnd() % 2)
		q->flags = htobe16((uint16_t)(rnd() % 4));
	if (f->c.crc && q->flags)
		q->hdr_crc = htobe32(crc_hdr(q, sizeof(*q), &q->hdr_crc));
}

/* One field of @q set to an edge case or random bits: likely invalid. */
static void mutate_req(struct cli *f, struct dst_request *q, uint32_t *dlen)
{
	switch (rnd() % 9) {
	case 0:
		q->magic = htobe32((uint32_t)edge(32, 0));
		break;
	case 1:
		q->version = (uint8_t)rnd();
		break;
	case 2:
		q->cmd = (uint8_t)rnd();
		break;
	case 3:
		q->flags = htobe16((uint16_t)rnd());
		break;
	case 4:
		q->offset = htobe64(edge(64, f->c.size));
		break;
	case 5:
		q->length = htobe32((uint32_t)edge(32, f->c.size));
		break;
	case 6:
		q->reserved = htobe32((uint32_t)rnd());
		break;
	case 7:
		q->data_crc = htobe32((uint32_t)rnd());
		break;
	default:
		q->hdr_crc = htobe32((uint32_t)rnd());
		break;
	}
	/* Checksums follow the mutation half of the time, to reach the checks. */
	if (f->c.crc && rnd() % 2)
		q->hdr_crc = htobe32(crc_hdr(q, sizeof(*q), &q->hdr_crc));
	/* The data it claims, up to a limit, or none. */
	*dlen = q->cmd == DST_REQ_WRITE && be32toh(q->length) <= MAXREQ && rnd() % 2 ?
		be32toh(q->length) : 0;
}

/* What the export must do with a request. */
enum verdict {
	SERVE,		/* answer it */
	CLOSE,		/* close the connection, answering nothing OK */
	ECRC,		/* a WRITE whose data checksum is wrong: DST_ECRC */
};

/* What the export must do with @q, as sent with @dlen bytes of data. */
static enum verdict req_verdict(const struct cli *f, const struct dst_request *q,
				uint32_t dlen)
{
	uint64_t off = be64toh(q->offset);
	uint32_t len = be32toh(q->length);
	uint16_t flags = be16toh(q->flags);

	if (f->c.crc && be32toh(q->hdr_crc) != crc_hdr(q, sizeof(*q), &q->hdr_crc))
		return CLOSE;
	if (be32toh(q->magic) != DST_REQ_MAGIC || q->version != DST_PROTO_VERSION ||
	    q->reserved || (!f->c.crc && (q->hdr_crc || q->data_crc)) ||
	    (q->data_crc && q->cmd != DST_REQ_WRITE) ||
	    (flags & ~(DST_REQ_FUA | DST_REQ_PREFLUSH)) ||
	    (flags && q->cmd != DST_REQ_WRITE))
		return CLOSE;
	if (q->cmd == DST_REQ_FLUSH)
		return !off && !len ? SERVE : CLOSE;
	if (q->cmd < DST_REQ_READ || q->cmd > DST_REQ_WRITE_ZEROES)
		return CLOSE;
	if ((q->cmd == DST_REQ_READ || q->cmd == DST_REQ_WRITE) &&
	    (len > f->c.max_request || (q->cmd == DST_REQ_WRITE && dlen != len)))
		return CLOSE;
	if (!len || (off | len) % f->c.lbs || off > f->c.size || len > f->c.size - off)
		return CLOSE;
	if (f->c.crc && q->cmd == DST_REQ_WRITE &&
	    be32toh(q->data_crc) != crc32c(f->buf, dlen))
		return ECRC;
	return SERVE;
}

static void cli_drop(struct cli *f)
{
	close(f->c.fd);
	f->up = false;
}

static void fuzz_client(const char *host, const char *port, uint64_t n)
{
	struct cli f = { .host = host, .port = port };
	uint64_t served = 0, closed = 0;
	struct dst_request q;
	enum verdict v;
	uint32_t dlen;
	int st;

	f.buf = malloc(MAXREQ);
	if (!f.buf)
		die("out of memory");
	while (sent < n) {
		if (!f.up) {
			if (rnd() % 16 == 0) {
				fuzz_hello(&f);
				continue;
			}
			cli_connect(&f);
		}
		valid_req(&f, &q, &dlen);
		if (rnd() % 16 == 0) {
			mutate_req(&f, &q, &dlen);
			mutated++;
		}
		v = req_verdict(&f, &q, dlen);
		sent++;
		if (write_full(f.c.fd, &q, sizeof(q)) ||
		    (dlen && write_full(f.c.fd, f.buf, dlen))) {
			if (v != CLOSE)
				fail("the export closed the connection on a valid request");
			cli_drop(&f);
			closed++;
			continue;
		}
		if (v == CLOSE) {
			/*
			 * Nothing may be answered OK; the export closes.  It
			 * may be waiting for data the header promised: the
			 * end of the stream tells it there is none.
			 */
			uint8_t junk[BLK];
			struct dst_reply r;
			ssize_t got;

			shutdown(f.c.fd, SHUT_WR);

			got = read_full(f.c.fd, &r, sizeof(r));
			if (got == (ssize_t)sizeof(r) && be32toh(r.status) == DST_OK &&
			    be64toh(r.handle) == f.handle)
				fail("an invalid request (cmd %u offset %llu length %u) was answered OK",
				     q.cmd, (unsigned long long)be64toh(q.offset),
				     be32toh(q.length));
			while (got > 0)
				got = read_full(f.c.fd, junk, sizeof(junk));
			cli_drop(&f);
			closed++;
			continue;
		}
		st = wire_reply(&f.c, f.handle, q.cmd, f.buf, be32toh(q.length));
		if (st < 0)
			fail("the export closed the connection on a valid request (cmd %u)",
			     q.cmd);
		if (v == ECRC) {
			if (st != DST_ECRC)
				fail("a WRITE with a wrong data checksum got %s",
				     status_name(st));
			continue;
		}
		if (st != DST_OK && st != DST_EOPNOTSUPP)
			fail("a valid request (cmd %u) got %s", q.cmd, status_name(st));
		served++;
		if (q.cmd == DST_REQ_READ && rnd() % 64 == 0) {
			/* Now and then a clean goodbye. */
			wire_req(&f.c, &q, DST_REQ_DISCONNECT, ++f.handle, 0, 0, NULL);
			(void)!write_full(f.c.fd, &q, sizeof(q));
			sent++;
			cli_drop(&f);
		}
	}
	if (f.up)
		cli_drop(&f);
	free(f.buf);
	say("client: %llu messages sent, %llu mutated, %llu valid requests served, %llu connections closed by the export",
	    (unsigned long long)sent, (unsigned long long)mutated,
	    (unsigned long long)served, (unsigned long long)closed);
}

/* ------------------------------------------------------------------------
 * Server side.
 */

struct srv {
	uint64_t size, n, conns, rate;
	uint8_t *store;
	uint8_t *buf;
};

static void send_or_drop(int fd, const void *p, size_t len, bool *up)
{
	if (*up && write_full(fd, p, len))
		*up = false;
}

/*
 * A hello reply, mutated 1 in 8 but on the first connection, which makes
 * what the client's disk is; whether the connection may go on.
 */
static bool srv_hello(struct srv *s, int fd, const struct dst_hello *h)
{
	struct dst_hello_reply r;
	bool up = true, mut = s->conns > 1 && rnd() % 8 == 0;
	bool auth = tls.psk.size && (be16toh(h->flags) & DST_HELLO_AUTH);

	/* With TLS and PSK the key is the secret: prove it, as an export does. */
	if (auth && wire_serve_auth(fd, h, psk, tls.psk.size))
		return false;
	hello_ok(&r, s->size, MAXREQ, be64toh(h->features) &
		 (DST_FEAT_FLUSH | DST_FEAT_FUA | DST_FEAT_DISCARD | DST_FEAT_WRITE_ZEROES));
	if (auth)
		r.flags = htobe32(DST_EXPORT_AUTH);
	if (mut) {
		switch (rnd() % 9) {
		case 0:
			r.magic = htobe32((uint32_t)edge(32, 0));
			break;
		case 1:
			r.version = htobe16((uint16_t)edge(16, 0));
			break;
		case 2:
			r.error = htobe16((uint16_t)edge(16, 0));
			fill_random(r.reason, sizeof(r.reason));
			break;
		case 3:
			r.size = htobe64(edge(64, s->size));
			break;
		case 4:
			r.logical_block_size = htobe32((uint32_t)edge(32, 0));
			break;
		case 5:
			r.physical_block_size = htobe32((uint32_t)edge(32, 0));
			break;
		case 6:
			r.max_request = htobe32((uint32_t)edge(32, 0));
			break;
		case 7:
			r.flags = htobe32((uint32_t)rnd());
			r.features = htobe64(rnd());
			break;
		default:
			fill_random(&r, sizeof(r));
			break;
		}
		mutated++;
	}
	sent++;
	send_or_drop(fd, &r, mut && rnd() % 4 == 0 ? rnd() % sizeof(r) : sizeof(r), &up);
	return up;
}

/* A reply to @q, mutated 1 in @s->rate; whether the connection may go on. */
static bool srv_reply(struct srv *s, int fd, const struct dst_request *q)
{
	uint64_t off = be64toh(q->offset);
	uint32_t len = be32toh(q->length);
	struct dst_reply r = { 0 };
	bool up = true, data;

	r.magic = htobe32(DST_REP_MAGIC);
	r.version = DST_PROTO_VERSION;
	r.cmd = q->cmd;
	r.handle = q->handle;
	data = q->cmd == DST_REQ_READ;
	if (data) {
		memcpy(s->buf, s->store + off, len);
		r.length = htobe32(len);
	}
	if (rnd() % s->rate == 0) {
		switch (rnd() % 8) {
		case 0:
			r.magic = htobe32((uint32_t)edge(32, 0));
			break;
		case 1:
			r.handle = htobe64(rnd() % 2 ? edge(64, 0) :
					   be64toh(q->handle) ^ (1ULL << (rnd() % 64)));
			break;
		case 2:
			r.cmd = (uint8_t)rnd();
			break;
		case 3:
			r.status = htobe32((uint32_t)edge(32, 0));
			break;
		case 4:
			r.length = htobe32((uint32_t)edge(32, len));
			data = be32toh(r.length) <= MAXREQ;
			if (data)
				fill_random(s->buf, be32toh(r.length));
			break;
		case 5:
			r.version = (uint8_t)rnd();
			r.reserved = htobe16((uint16_t)rnd());
			break;
		case 6:
			r.data_crc = htobe32((uint32_t)rnd());
			r.hdr_crc = htobe32((uint32_t)rnd());
			break;
		default:
			/* The same reply twice. */
			send_or_drop(fd, &r, sizeof(r), &up);
			if (data)
				send_or_drop(fd, s->buf, len, &up);
			break;
		}
		mutated++;
	}
	sent++;
	send_or_drop(fd, &r, sizeof(r), &up);
	if (data)
		send_or_drop(fd, s->buf, be32toh(r.length), &up);
	return up;
}

static void srv_conn(struct srv *s, int fd)
{
	struct dst_request q;
	struct dst_hello h;
	uint64_t off;
	uint32_t len;

	set_timeouts(fd, 60);
	if (read_full(fd, &h, sizeof(h)) != sizeof(h))
		return;
	if (!srv_hello(s, fd, &h))
		return;
	while (sent < s->n) {
		if (read_full(fd, &q, sizeof(q)) != sizeof(q))
			return;
		off = be64toh(q.offset);
		len = be32toh(q.length);
		if (be32toh(q.magic) != DST_REQ_MAGIC || len > MAXREQ ||
		    off > s->size || len > s->size - off)
			fail("the client sent a bad request: cmd %u offset %llu length %u",
			     q.cmd, (unsigned long long)off, len);
		if (q.cmd == DST_REQ_DISCONNECT)
			return;
		if (q.cmd == DST_REQ_WRITE) {
			if (read_full(fd, s->buf, len) != len)
				return;
			memcpy(s->store + off, s->buf, len);
		}
		if (!srv_reply(s, fd, &q))
			return;
	}
}

static void fuzz_server(const char *port, uint64_t size, uint64_t n,
			uint64_t rate)
{
	struct srv s = { .size = size, .n = n, .rate = rate ? rate : 1 };
	int ls, fd;

	s.store = calloc(1, size);
	s.buf = malloc(MAXREQ);
	if (!s.store || !s.buf)
		die("out of memory");
	ls = listen_loopback(port);
	say("server: listening on 127.0.0.1:%s, %llu messages", port,
	    (unsigned long long)n);
	while (sent < n) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			die("accept: %s", strerror(errno));
		tcp_nodelay(fd);
		tls.server = true;
		tls_on(fd);
		s.conns++;
		srv_conn(&s, fd);
		close(fd);
	}
	close(ls);
	say("server: %llu messages sent, %llu mutated, %llu connections",
	    (unsigned long long)sent, (unsigned long long)mutated,
	    (unsigned long long)s.conns);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc > 2 && !strcmp(argv[1], "--tls-psk")) {
		tls_load(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc == 6 && !strcmp(argv[1], "client")) {
		rng_state = parse_u64(argv[5], "seed") * 0x9e3779b97f4a7c15ULL + 1;
		fuzz_client(argv[2], argv[3], parse_u64(argv[4], "count"));
		return 0;
	}
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "server")) {
		rng_state = parse_u64(argv[5], "seed") * 0x9e3779b97f4a7c15ULL + 1;
		fuzz_server(argv[2], parse_u64(argv[3], "size"),
			    parse_u64(argv[4], "count"),
			    argc == 7 ? parse_u64(argv[6], "rate") : 1024);
		return 0;
	}
	die("usage: wirefuzz [--tls-psk FILE] client HOST PORT N SEED | wirefuzz [--tls-psk FILE] server PORT SIZE N SEED [RATE]");
}
