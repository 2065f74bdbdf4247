// SPDX-License-Identifier: GPL-2.0
/*
 * dstpeer: a raw peer of the dst wire protocol (src/uapi/dst.h), well
 * behaved or hostile on request.  Runs in the test guest.
 *
 *   dstpeer client HOST PORT CASE [ARG]
 *	Talks to an export.  Exit 0: the export behaved as the protocol says;
 *	1: it did not (printed); 2: usage or setup error.
 *	ok [OFFSET]	handshake, WRITE a block, FLUSH (if granted), READ it
 *			back (also 8 pipelined READs), verify, DISCONNECT
 *	write-ro [OFFSET] read-only export: WRITE gets DST_EROFS, the
 *			connection stays open, the data is unchanged
 *	hello-only	handshake, then close without DISCONNECT
 *	bad-version	a newer hello version, and version 2's (shorter): hello
 *			reply with DST_EVERSION and a reason, then the server
 *			closes
 *	idle		connect and send nothing: the server closes after ~10 s
 *	trickle		the hello one byte a second: the server closes after
 *			~10 s, before the hello is complete
 *	many N		N connections at once, one READ each; one closed at
 *			accept (the per-address share of the handshakes) is
 *			tried again
 *	read-write [S]	a READ, S seconds later (default 2) a WRITE, both
 *			answered OK in any order, then close (the debug
 *			tier's teardown race: the READ's completion is held)
 *	checksum [OFFSET] WRITE 64 KiB + 1 block, then CHECKSUM it: one
 *			XXH64 per 4 KiB, the last over the block left,
 *			as computed here; READ-only clients may ask too
 *	old-size [S]	a client that does not take size notices: for S
 *			seconds (default 10) it READs the last block of the
 *			size it was told, ten times a second; every reply is
 *			its READ's, while the export may grow meanwhile
 *	refused cases: the server must close the connection without ever
 *	answering the bad input with success:
 *	bad-hello-magic garbage-hello bad-magic bad-req-version bad-cmd
 *	bad-reserved too-long huge-write overflow beyond crossing misaligned
 *	misaligned-len garbage truncated
 *
 *   dstpeer server PORT SIZE CASE [GOOD [SECONDS]]
 *	Listens on 127.0.0.1:PORT, serves one connection of the in-kernel
 *	client as an export of SIZE bytes (512/4096 block sizes, max_request
 *	1 MiB), answers the first GOOD requests correctly (default 0) and then
 *	misbehaves per CASE: ok wrong-handle short-reply garbage bad-status
 *	long-read silent stall-data (a READ reply header and half its data,
 *	then nothing) bad-hello eversion bad-bs huge-pbs (a physical
 *	block size of 1 GiB) bad-flags (an unknown export flag) slow-hello
 *	(the hello reply one byte a second, whatever GOOD says) flap (GOOD
 *	connections, default 50, one after the other: each gets a good hello
 *	reply and is closed at once).  Exit 0 when the client
 *	closed the connection, 1 when the client broke the protocol, 2 on a
 *	usage or setup error, 3 when SECONDS (default 60) ran out.
 */
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#define XXH_INLINE_ALL	/* header only: nothing to install in the guest */
#include <xxhash.h>

#include "wire.h"

#define SRV_LBS		512
#define SRV_PBS		4096
#define SRV_MAXREQ	(1U << 20)

const char *wire_prog = "dstpeer";

static void on_alarm(int sig);

/* ------------------------------------------------------------------------
 * Client side: talks to an export.
 */

struct peer {
	int fd;
	uint64_t size;
	uint32_t lbs, pbs, max_request, flags;
	uint64_t features;
};

static void send_hello(int fd, uint32_t magic, uint16_t version,
		       uint16_t flags, uint64_t features)
{
	struct dst_hello h = {
		.magic = htobe32(magic),
		.version = htobe16(version),
		.flags = htobe16(flags),
		.features = htobe64(features),
	};

	fill_random(h.challenge, sizeof(h.challenge));
	hello_session(&h);

	if (write_full(fd, &h, sizeof(h)))
		fail("sending the hello: %s", strerror(errno));
}

static void print_hello_reply(const struct dst_hello_reply *r)
{
	say("hello reply: magic %#x version %u error %u (%s) size %llu lbs %u pbs %u max_request %u flags %#x features %#llx reason '%.*s'",
	    be32toh(r->magic), be16toh(r->version), be16toh(r->error),
	    status_name(be16toh(r->error)), (unsigned long long)be64toh(r->size),
	    be32toh(r->logical_block_size), be32toh(r->physical_block_size),
	    be32toh(r->max_request), be32toh(r->flags),
	    (unsigned long long)be64toh(r->features), DST_REASON_LEN,
	    (const char *)r->reason);
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* Connects and completes a good handshake; fails on anything unexpected. */
static void handshake(struct peer *p, const char *host, const char *port,
		      uint64_t want, bool quiet)
{
	struct dst_hello_reply r;
	ssize_t n;

	p->fd = connect_to(host, port);
	send_hello(p->fd, DST_HELLO_MAGIC, DST_PROTO_VERSION, 0, want);
	n = read_full(p->fd, &r, sizeof(r));
	if (n < 0)
		fail("no hello reply: %s", strerror(errno));
	if ((size_t)n < sizeof(r))
		fail("connection closed after %zd bytes of the hello reply", n);
	if (!quiet)
		print_hello_reply(&r);
	p->size = be64toh(r.size);
	p->lbs = be32toh(r.logical_block_size);
	p->pbs = be32toh(r.physical_block_size);
	p->max_request = be32toh(r.max_request);
	p->flags = be32toh(r.flags);
	p->features = be64toh(r.features);
	if (be32toh(r.magic) != DST_HELLO_MAGIC)
		fail("hello reply magic %#x", be32toh(r.magic));
	if (be16toh(r.version) != DST_PROTO_VERSION)
		fail("hello reply version %u", be16toh(r.version));
	if (be16toh(r.error) != DST_OK)
		fail("hello refused: %s", status_name(be16toh(r.error)));
	if (!is_pow2(p->lbs) || p->lbs < 512 || p->lbs > 65536)
		fail("logical block size %u", p->lbs);
	if (!is_pow2(p->pbs) || p->pbs < p->lbs)
		fail("physical block size %u (logical %u)", p->pbs, p->lbs);
	if (p->max_request < p->lbs || p->max_request % p->lbs)
		fail("max_request %u (logical block size %u)", p->max_request, p->lbs);
	if (p->size % p->lbs)
		fail("size %llu is not a multiple of %u",
		     (unsigned long long)p->size, p->lbs);
	if (p->features & ~want)
		fail("granted features %#llx not wanted (%#llx)",
		     (unsigned long long)p->features, (unsigned long long)want);
	if (p->flags & ~DST_EXPORT_READ_ONLY)
		fail("unknown export flags %#x", p->flags);
	if (!r.instance)
		fail("hello reply without the export's instance");
}

static struct dst_request mkreq(uint8_t cmd, uint64_t handle, uint64_t off,
				uint32_t len)
{
	struct dst_request q = {
		.magic = htobe32(DST_REQ_MAGIC),
		.version = DST_PROTO_VERSION,
		.cmd = cmd,
		.handle = htobe64(handle),
		.offset = htobe64(off),
		.length = htobe32(len),
	};
	return q;
}

static void send_req(int fd, const struct dst_request *q, const void *data,
		     size_t len)
{
	if (write_full(fd, q, sizeof(*q)) || (len && write_full(fd, data, len)))
		fail("sending a request: %s", strerror(errno));
}

/* Reads one reply header; fails on EOF, timeout or a malformed header. */
static void recv_reply(int fd, struct dst_reply *r, const char *what)
{
	ssize_t n = read_full(fd, r, sizeof(*r));

	if (n < 0)
		fail("%s: no reply: %s", what, strerror(errno));
	if ((size_t)n < sizeof(*r))
		fail("%s: connection closed after %zd bytes of a reply", what, n);
	if (be32toh(r->magic) != DST_REP_MAGIC || r->version != DST_PROTO_VERSION ||
	    r->reserved || r->hdr_crc || r->data_crc)
		fail("%s: bad reply header: magic %#x version %u reserved %u", what,
		     be32toh(r->magic), r->version, be16toh(r->reserved));
}

/* One request, one reply with the same handle and cmd; returns its status. */
static uint32_t call(struct peer *p, uint8_t cmd, uint64_t handle, uint64_t off,
		     uint32_t len, const void *wdata, void *rdata, const char *what)
{
	struct dst_request q = mkreq(cmd, handle, off, len);
	struct dst_reply r;
	uint32_t st, rlen;

	send_req(p->fd, &q, wdata, cmd == DST_REQ_WRITE ? len : 0);
	recv_reply(p->fd, &r, what);
	st = be32toh(r.status);
	rlen = be32toh(r.length);
	if (be64toh(r.handle) != handle || r.cmd != cmd)
		fail("%s: reply for handle %llu cmd %u, expected %llu cmd %u", what,
		     (unsigned long long)be64toh(r.handle), r.cmd,
		     (unsigned long long)handle, cmd);
	if (cmd == DST_REQ_READ && st == DST_OK) {
		if (rlen != len)
			fail("%s: READ of %u bytes answered with %u", what, len, rlen);
		if (read_full(p->fd, rdata, len) != (ssize_t)len)
			fail("%s: READ data incomplete", what);
	} else if (rlen) {
		fail("%s: %s reply (%s) claims %u bytes of data", what,
		     cmd == DST_REQ_READ ? "READ" : "non-READ", status_name(st), rlen);
	}
	return st;
}

/*
 * After DISCONNECT or bad input: the server must close the connection
 * within io_timeout.  Any reply with status OK fails; with @allow_error
 * an error reply before the close is tolerated (printed).
 */
static void expect_closed(int fd, const char *what, bool allow_error)
{
	uint8_t hdr[sizeof(struct dst_reply)], buf[4096];
	size_t got = 0, extra = 0;
	double t0 = now();
	ssize_t n;

	for (;;) {
		if (got < sizeof(hdr))
			n = recv(fd, hdr + got, sizeof(hdr) - got, 0);
		else
			n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			say("%s: server closed the connection (%s) after %.1f s, %zu bytes received",
			    what, n ? "reset" : "EOF", now() - t0, got + extra);
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			fail("%s: the server did not close the connection within %d s",
			     what, io_timeout);
		if (n < 0)
			fail("%s: recv: %s", what, strerror(errno));
		if (got >= sizeof(hdr)) {
			extra += n;
			continue;
		}
		got += n;
		if (got == sizeof(hdr)) {
			struct dst_reply r;

			memcpy(&r, hdr, sizeof(r));
			say("%s: server sent a reply: magic %#x cmd %u status %u (%s) length %u handle %llu",
			    what, be32toh(r.magic), r.cmd, be32toh(r.status),
			    status_name(be32toh(r.status)), be32toh(r.length),
			    (unsigned long long)be64toh(r.handle));
			if (be32toh(r.status) == DST_OK)
				fail("%s: the server acknowledged it with success", what);
			if (!allow_error)
				fail("%s: the server replied instead of closing", what);
		}
	}
	if (got && got < sizeof(hdr) && !allow_error)
		fail("%s: %zu stray bytes before the close", what, got);
	close(fd);
}

/*
 * One WRITE of up to 1 MiB of random data just below @end, then 32 READs of
 * random sizes and offsets inside it sent back to back: every reply must
 * carry its own handle, length and data, whatever order they come in.
 */
static void pipelined_mix(struct peer *p, uint64_t end, uint32_t lbs_min)
{
	uint32_t span = p->max_request < (1U << 20) ? p->max_request : (1U << 20);
	uint32_t offs[32], lens[32], st, i, seen = 0;
	uint8_t *data, *rbuf;
	uint64_t base;

	span = span / lbs_min * lbs_min;
	if (end < span)
		return;
	base = end - span;
	data = malloc(span);
	rbuf = malloc(span);
	if (!data || !rbuf)
		die("out of memory");
	fill_random(data, span);
	st = call(p, DST_REQ_WRITE, 50, base, span, data, NULL, "big WRITE");
	if (st != DST_OK)
		fail("WRITE of %u bytes: status %u (%s)", span, st, status_name(st));
	for (i = 0; i < 32; i++) {
		struct dst_request q;

		lens[i] = (1 + rnd() % (span / p->lbs)) * p->lbs;
		offs[i] = rnd() % ((span - lens[i]) / p->lbs + 1) * p->lbs;
		q = mkreq(DST_REQ_READ, 200 + i, base + offs[i], lens[i]);
		send_req(p->fd, &q, NULL, 0);
	}
	for (i = 0; i < 32; i++) {
		struct dst_reply r;
		uint64_t h;

		recv_reply(p->fd, &r, "mixed pipelined READ");
		h = be64toh(r.handle) - 200;
		if (h >= 32 || (seen & (1U << h)))
			fail("mixed pipelined READ: unexpected handle %llu",
			     (unsigned long long)be64toh(r.handle));
		seen |= 1U << h;
		if (be32toh(r.status) != DST_OK || be32toh(r.length) != lens[h])
			fail("mixed pipelined READ %llu: status %u length %u, expected %u",
			     (unsigned long long)h, be32toh(r.status), be32toh(r.length), lens[h]);
		if (read_full(p->fd, rbuf, lens[h]) != (ssize_t)lens[h])
			fail("mixed pipelined READ: data incomplete");
		if (memcmp(rbuf, data + offs[h], lens[h]))
			fail("mixed pipelined READ %llu (%u bytes at +%u): data differs",
			     (unsigned long long)h, lens[h], offs[h]);
	}
	say("32 pipelined READs of random sizes in %u bytes just written: ok", span);
	free(data);
	free(rbuf);
}

static void client_ok(const char *host, const char *port, const char *arg)
{
	struct peer p;
	uint8_t *wbuf, *rbuf;
	uint64_t off;
	uint32_t len, st;
	unsigned int i, seen = 0;

	handshake(&p, host, port, DST_FEAT_FLUSH | DST_FEAT_FUA, false);
	len = p.lbs > 4096 ? p.lbs : 4096;
	if (p.size < len)
		fail("export of %llu bytes is too small", (unsigned long long)p.size);
	off = arg ? parse_u64(arg, "offset") : (p.size - len) / len * len;
	if (off % p.lbs || off + len > p.size)
		die("offset %llu not usable", (unsigned long long)off);
	wbuf = malloc(len);
	rbuf = malloc(len);
	if (!wbuf || !rbuf)
		die("out of memory");
	rng_state ^= (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	fill_random(wbuf, len);

	if (p.flags & DST_EXPORT_READ_ONLY)
		fail("export is read-only; case ok needs a writable one");
	st = call(&p, DST_REQ_WRITE, 1, off, len, wbuf, NULL, "WRITE");
	if (st != DST_OK)
		fail("WRITE of %u at %llu: status %u (%s)", len,
		     (unsigned long long)off, st, status_name(st));
	if (p.features & DST_FEAT_FLUSH) {
		st = call(&p, DST_REQ_FLUSH, 2, 0, 0, NULL, NULL, "FLUSH");
		if (st != DST_OK)
			fail("FLUSH: status %u (%s)", st, status_name(st));
	}
	st = call(&p, DST_REQ_READ, 3, off, len, NULL, rbuf, "READ");
	if (st != DST_OK)
		fail("READ: status %u (%s)", st, status_name(st));
	if (memcmp(wbuf, rbuf, len))
		fail("read back data differs from what was written");

	/* 8 READs in a row; replies may come in any order. */
	for (i = 0; i < 8; i++) {
		struct dst_request q = mkreq(DST_REQ_READ, 100 + i, off, len);

		send_req(p.fd, &q, NULL, 0);
	}
	for (i = 0; i < 8; i++) {
		struct dst_reply r;
		uint64_t h;

		recv_reply(p.fd, &r, "pipelined READ");
		h = be64toh(r.handle);
		if (h < 100 || h >= 108 || (seen & (1U << (h - 100))))
			fail("pipelined READ: unexpected handle %llu", (unsigned long long)h);
		seen |= 1U << (h - 100);
		if (r.cmd != DST_REQ_READ || be32toh(r.status) != DST_OK ||
		    be32toh(r.length) != len)
			fail("pipelined READ: cmd %u status %u length %u", r.cmd,
			     be32toh(r.status), be32toh(r.length));
		if (read_full(p.fd, rbuf, len) != (ssize_t)len)
			fail("pipelined READ: data incomplete");
		if (memcmp(wbuf, rbuf, len))
			fail("pipelined READ: data differs");
	}

	pipelined_mix(&p, off, len);
	{
		struct dst_request q = mkreq(DST_REQ_DISCONNECT, 9, 0, 0);

		send_req(p.fd, &q, NULL, 0);
		expect_closed(p.fd, "DISCONNECT", false);
	}
	say("ok: wrote, flushed and read back %u bytes at offset %llu; 8 pipelined READs; DISCONNECT closed",
	    len, (unsigned long long)off);
	free(wbuf);
	free(rbuf);
}

static void client_read_write(const char *host, const char *port, const char *arg)
{
	struct dst_request q;
	struct dst_reply r;
	unsigned int i, seen = 0;
	struct peer p;
	uint8_t *buf;
	uint32_t len;
	uint64_t h;

	io_timeout = 30;
	handshake(&p, host, port, 0, false);
	len = p.lbs > 4096 ? p.lbs : 4096;
	if (p.size < 2 * len)
		fail("export of %llu bytes is too small", (unsigned long long)p.size);
	buf = malloc(len);
	if (!buf)
		die("out of memory");
	fill_random(buf, len);
	q = mkreq(DST_REQ_READ, 1, 0, len);
	send_req(p.fd, &q, NULL, 0);
	sleep(arg ? parse_u64(arg, "seconds") : 2);
	q = mkreq(DST_REQ_WRITE, 2, len, len);
	send_req(p.fd, &q, buf, len);
	for (i = 0; i < 2; i++) {
		recv_reply(p.fd, &r, "read-write");
		h = be64toh(r.handle);
		if ((h != 1 && h != 2) || (seen & h))
			fail("read-write: unexpected handle %llu", (unsigned long long)h);
		seen |= h;
		if (be32toh(r.status) != DST_OK)
			fail("read-write: handle %llu: status %s", (unsigned long long)h,
			     status_name(be32toh(r.status)));
		if (h == 1 && (be32toh(r.length) != len ||
			       read_full(p.fd, buf, len) != (ssize_t)len))
			fail("read-write: READ data incomplete");
	}
	close(p.fd);
	say("read-write: READ and WRITE answered, closed");
	free(buf);
}

static void client_write_ro(const char *host, const char *port, const char *arg)
{
	struct peer p;
	uint8_t *orig, *wbuf, *rbuf;
	uint64_t off;
	uint32_t len, st;

	handshake(&p, host, port, 0, false);
	if (!(p.flags & DST_EXPORT_READ_ONLY))
		fail("hello reply flags %#x lack DST_EXPORT_READ_ONLY", p.flags);
	len = p.lbs > 4096 ? p.lbs : 4096;
	off = arg ? parse_u64(arg, "offset") : 0;
	if (off % p.lbs || off + len > p.size)
		die("offset %llu not usable", (unsigned long long)off);
	orig = malloc(len);
	wbuf = malloc(len);
	rbuf = malloc(len);
	if (!orig || !wbuf || !rbuf)
		die("out of memory");
	rng_state ^= (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	fill_random(wbuf, len);

	st = call(&p, DST_REQ_READ, 1, off, len, NULL, orig, "READ");
	if (st != DST_OK)
		fail("READ: status %u (%s)", st, status_name(st));
	st = call(&p, DST_REQ_WRITE, 2, off, len, wbuf, NULL, "WRITE");
	say("WRITE to the read-only export: status %u (%s)", st, status_name(st));
	if (st != DST_EROFS)
		fail("WRITE to a read-only export: status %u (%s), expected EROFS",
		     st, status_name(st));
	/* The connection stays usable. */
	st = call(&p, DST_REQ_READ, 3, off, len, NULL, rbuf, "READ after WRITE");
	if (st != DST_OK)
		fail("READ after the refused WRITE: status %u (%s)", st, status_name(st));
	if (memcmp(orig, rbuf, len))
		fail("data changed by a WRITE refused with EROFS");
	{
		struct dst_request q = mkreq(DST_REQ_DISCONNECT, 4, 0, 0);

		send_req(p.fd, &q, NULL, 0);
		expect_closed(p.fd, "DISCONNECT", false);
	}
	say("write-ro: WRITE got EROFS, data unchanged, connection stayed open");
	free(orig);
	free(wbuf);
	free(rbuf);
}

/*
 * A hello of version @version, @len bytes long (an older client's is
 * shorter): refused with DST_EVERSION and a reason.
 */
static void client_bad_version(const char *host, const char *port,
			       uint16_t version, size_t len)
{
	struct dst_hello h = {
		.magic = htobe32(DST_HELLO_MAGIC),
		.version = htobe16(version),
	};
	struct dst_hello_reply r;
	int fd = connect_to(host, port);
	ssize_t n;

	fill_random(h.challenge, sizeof(h.challenge));
	if (write_full(fd, &h, len))
		fail("sending the hello: %s", strerror(errno));
	n = read_full(fd, &r, sizeof(r));
	if (n < 0)
		fail("no hello reply to version %u: %s", version,
		     strerror(errno));
	if ((size_t)n < sizeof(r))
		fail("connection closed after %zd bytes, expected a hello reply with DST_EVERSION",
		     n);
	print_hello_reply(&r);
	if (be32toh(r.magic) != DST_HELLO_MAGIC)
		fail("hello reply magic %#x", be32toh(r.magic));
	if (be16toh(r.error) != DST_EVERSION)
		fail("hello reply error %u (%s), expected DST_EVERSION",
		     be16toh(r.error), status_name(be16toh(r.error)));
	if (!r.reason[0] || !memchr(r.reason, 0, sizeof(r.reason)))
		fail("no NUL-terminated reason in the refusal");
	say("version %u: refused with reason '%s'", version, (const char *)r.reason);
	expect_closed(fd, "after DST_EVERSION", false);
}

/* A hello the server must refuse: an error hello reply or just a close. */
static void client_bad_hello(const char *host, const char *port, const void *h,
			     size_t len, const char *what)
{
	struct dst_hello_reply r;
	int fd = connect_to(host, port);
	ssize_t n;

	if (write_full(fd, h, len))
		fail("%s: send: %s", what, strerror(errno));
	n = read_full(fd, &r, sizeof(r));
	if (n < 0 && errno == ECONNRESET)
		n = 0;
	if (n < 0)
		fail("%s: the server neither answered nor closed within %d s: %s",
		     what, io_timeout, strerror(errno));
	if (n == 0) {
		say("%s: server closed the connection without a hello reply", what);
		close(fd);
		return;
	}
	if ((size_t)n < sizeof(r))
		fail("%s: %zd bytes, then the connection closed", what, n);
	print_hello_reply(&r);
	if (be16toh(r.error) == DST_OK)
		fail("%s: the server accepted the hello", what);
	expect_closed(fd, what, false);
}

static void client_idle(const char *host, const char *port)
{
	int fd;
	double t0, dt;
	char c;
	ssize_t n;

	io_timeout = 25;
	fd = connect_to(host, port);
	t0 = now();
	n = recv(fd, &c, 1, 0);
	dt = now() - t0;
	if (n > 0)
		fail("idle: the server sent data first");
	if (n < 0 && errno != ECONNRESET)
		fail("idle: not closed after %.1f s: %s", dt, strerror(errno));
	say("idle: server closed the connection after %.1f s", dt);
	if (dt < 9 || dt > 20)
		fail("idle: closed after %.1f s, expected about 10 s", dt);
	close(fd);
}

/*
 * The hello one byte a second: each byte is in time for a receive timeout,
 * the whole is not; the server must close within its handshake deadline
 * (10 s), long before the 48 bytes are sent.
 */
static void client_trickle(const char *host, const char *port)
{
	struct dst_hello h = {
		.magic = htobe32(DST_HELLO_MAGIC),
		.version = htobe16(DST_PROTO_VERSION),
	};
	const uint8_t *b = (const uint8_t *)&h;
	double t0, dt;
	size_t i;
	int fd;

	hello_session(&h);
	io_timeout = 25;
	fd = connect_to(host, port);
	t0 = now();
	for (i = 0; i < sizeof(h); i++) {
		if (send(fd, b + i, 1, MSG_NOSIGNAL) != 1)
			break;
		sleep(1);
	}
	dt = now() - t0;
	if (i == sizeof(h))
		fail("trickle: the whole hello was taken, one byte a second for %.0f s", dt);
	say("trickle: server closed the connection after %zu bytes, %.1f s", i, dt);
	if (dt > 16)
		fail("trickle: closed after %.1f s, expected about 10 s", dt);
	close(fd);
}

static void client_many(const char *host, const char *port, const char *arg)
{
	unsigned int n, i, retried = 0;
	struct peer *p;
	uint8_t *buf;
	double t0 = now();

	if (!arg)
		die("many needs a count");
	n = parse_u64(arg, "count");
	if (!n || n > 900)
		die("count %u out of range", n);
	p = calloc(n, sizeof(*p));
	if (!p)
		die("out of memory");
	/* Every connection is open before the first handshake is read. */
	for (i = 0; i < n; i++) {
		p[i].fd = connect_to(host, port);
		send_hello(p[i].fd, DST_HELLO_MAGIC, DST_PROTO_VERSION, 0, 0);
	}
	say("many: %u connections open, hellos sent (%.1f s)", n, now() - t0);
	for (i = 0; i < n; i++) {
		struct dst_hello_reply r;
		ssize_t got;

		/*
		 * Closed at accept, by the per-address share of the
		 * handshake slots (docs/PROTOCOL.md): tried again, as a
		 * client does, once some others are through.
		 */
		while ((got = read_full(p[i].fd, &r, sizeof(r))) == 0 ||
		       (got < 0 && errno == ECONNRESET)) {
			if (++retried > 20 * n)
				fail("many: connection %u: closed at accept again and again", i);
			close(p[i].fd);
			usleep(20000);
			p[i].fd = connect_to(host, port);
			send_hello(p[i].fd, DST_HELLO_MAGIC, DST_PROTO_VERSION, 0, 0);
		}
		if (got != sizeof(r))
			fail("many: connection %u: no complete hello reply: %s", i,
			     got < 0 ? strerror(errno) : "short");
		if (be32toh(r.magic) != DST_HELLO_MAGIC || be16toh(r.error) != DST_OK)
			fail("many: connection %u: hello refused (error %u)", i,
			     be16toh(r.error));
		p[i].size = be64toh(r.size);
		p[i].lbs = be32toh(r.logical_block_size);
	}
	buf = malloc(65536);
	if (!buf)
		die("out of memory");
	for (i = 0; i < n; i++) {
		uint64_t blocks = p[i].size / p[i].lbs;
		struct dst_request q = mkreq(DST_REQ_READ, i, (i % blocks) * p[i].lbs,
					     p[i].lbs);

		send_req(p[i].fd, &q, NULL, 0);
	}
	for (i = 0; i < n; i++) {
		struct dst_reply r;

		recv_reply(p[i].fd, &r, "many: READ");
		if (be64toh(r.handle) != i || be32toh(r.status) != DST_OK ||
		    be32toh(r.length) != p[i].lbs)
			fail("many: connection %u: handle %llu status %u length %u", i,
			     (unsigned long long)be64toh(r.handle), be32toh(r.status),
			     be32toh(r.length));
		if (read_full(p[i].fd, buf, p[i].lbs) != (ssize_t)p[i].lbs)
			fail("many: connection %u: READ data incomplete", i);
	}
	for (i = 0; i < n; i++) {
		struct dst_request q = mkreq(DST_REQ_DISCONNECT, n + i, 0, 0);

		send_req(p[i].fd, &q, NULL, 0);
	}
	for (i = 0; i < n; i++) {
		char c;
		ssize_t r = recv(p[i].fd, &c, 1, 0);

		if (r > 0 || (r < 0 && errno != ECONNRESET))
			fail("many: connection %u not closed after DISCONNECT", i);
		close(p[i].fd);
	}
	say("many: %u connections: handshake, READ, DISCONNECT ok in %.1f s (%u closed at accept, tried again)",
	    n, now() - t0, retried);
	free(buf);
	free(p);
}

/* Cases that send a bad request after a good handshake. */
static void client_refused(const char *host, const char *port, const char *c)
{
	struct peer p;
	struct dst_request q;
	uint32_t blk;

	handshake(&p, host, port, 0, false);
	blk = p.lbs;
	q = mkreq(DST_REQ_READ, 7, 0, blk);
	if (!strcmp(c, "bad-magic")) {
		q.magic = htobe32(0x12345678);
	} else if (!strcmp(c, "bad-req-version")) {
		q.version = DST_PROTO_VERSION + 1;
	} else if (!strcmp(c, "bad-cmd")) {
		q.cmd = 99;
	} else if (!strcmp(c, "bad-reserved")) {
		q.reserved = htobe32(1);
	} else if (!strcmp(c, "too-long")) {
		q.length = htobe32(p.max_request + blk);
	} else if (!strcmp(c, "huge-write")) {
		q.cmd = DST_REQ_WRITE;
		q.length = htobe32(0xffffffffU / blk * blk);
	} else if (!strcmp(c, "overflow")) {
		q.offset = htobe64(UINT64_MAX / blk * blk);
		q.length = htobe32(2 * blk);
	} else if (!strcmp(c, "beyond")) {
		q.offset = htobe64(p.size + blk);
	} else if (!strcmp(c, "crossing")) {
		q.offset = htobe64(p.size - blk);
		q.length = htobe32(2 * blk);
	} else if (!strcmp(c, "misaligned")) {
		q.offset = htobe64(blk / 2);
	} else if (!strcmp(c, "misaligned-len")) {
		q.length = htobe32(blk + blk / 2);
	} else if (!strcmp(c, "garbage")) {
		uint8_t junk[4096];

		rng_state ^= (uint64_t)getpid();
		fill_random(junk, sizeof(junk));
		say("garbage: sending %zu random bytes after the hello", sizeof(junk));
		if (write_full(p.fd, junk, sizeof(junk)) && errno != ECONNRESET &&
		    errno != EPIPE)
			fail("garbage: send: %s", strerror(errno));
		expect_closed(p.fd, c, false);
		return;
	} else if (!strcmp(c, "truncated")) {
		say("truncated: sending 16 of 32 header bytes, then shutting down the write side");
		if (write_full(p.fd, &q, sizeof(q) / 2))
			fail("truncated: send: %s", strerror(errno));
		shutdown(p.fd, SHUT_WR);
		expect_closed(p.fd, c, false);
		return;
	} else {
		die("unknown client case '%s'", c);
	}
	say("%s: sending magic %#x version %u cmd %u reserved %u offset %llu length %u",
	    c, be32toh(q.magic), q.version, q.cmd, be32toh(q.reserved),
	    (unsigned long long)be64toh(q.offset), be32toh(q.length));
	if (write_full(p.fd, &q, sizeof(q)))
		fail("%s: send: %s", c, strerror(errno));
	if (!strcmp(c, "huge-write")) {
		/* Some data; the server must not wait for (or buffer) 4 GiB. */
		static uint8_t zero[65536];
		int i;

		for (i = 0; i < 16; i++)
			if (write_full(p.fd, zero, sizeof(zero)))
				break;
	}
	expect_closed(p.fd, c, false);
}

static void client_checksum(const char *host, const char *port, const char *arg)
{
	enum { N = 17 };	/* 16 full blocks and a short one */
	uint32_t len, st, rlen, i;
	uint8_t data[16 * 4096 + 4096];
	uint64_t sums[N], want;
	struct dst_request q;
	struct dst_reply r;
	struct peer p;
	uint64_t off;

	handshake(&p, host, port, DST_FEAT_FLUSH | DST_FEAT_CHECKSUM, false);
	if (!(p.features & DST_FEAT_CHECKSUM))
		fail("CHECKSUM not granted");
	len = 16 * 4096 + p.lbs;
	off = arg ? parse_u64(arg, "offset") : 0;
	if (p.lbs > 4096 || off % 4096 || off + len > p.size)
		die("offset %llu not usable", (unsigned long long)off);
	rng_state ^= (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	fill_random(data, len);
	st = call(&p, DST_REQ_WRITE, 1, off, len, data, NULL, "WRITE");
	if (st != DST_OK)
		fail("WRITE: status %u (%s)", st, status_name(st));

	q = mkreq(DST_REQ_CHECKSUM, 2, off, len);
	send_req(p.fd, &q, NULL, 0);
	recv_reply(p.fd, &r, "CHECKSUM");
	st = be32toh(r.status);
	rlen = be32toh(r.length);
	if (be64toh(r.handle) != 2 || r.cmd != DST_REQ_CHECKSUM || st != DST_OK)
		fail("CHECKSUM reply: handle %llu cmd %u status %u (%s)",
		     (unsigned long long)be64toh(r.handle), r.cmd, st, status_name(st));
	if (rlen != sizeof(sums))
		fail("CHECKSUM of %u bytes answered with %u bytes, not %zu", len,
		     rlen, sizeof(sums));
	if (read_full(p.fd, sums, sizeof(sums)) != (ssize_t)sizeof(sums))
		fail("CHECKSUM data incomplete");
	for (i = 0; i < N; i++) {
		want = XXH64(data + i * 4096, i < N - 1 ? 4096 : p.lbs, 0);
		if (be64toh(sums[i]) != want)
			fail("sum %u is %#llx, XXH64 of the block is %#llx", i,
			     (unsigned long long)be64toh(sums[i]),
			     (unsigned long long)want);
	}
	close(p.fd);
	say("checksum: %u sums of %u bytes at %llu match", N, len,
	    (unsigned long long)off);
}

static void client_old_size(const char *host, const char *port, const char *arg)
{
	double end = now() + (arg ? parse_u64(arg, "seconds") : 10);
	unsigned int n = 0;
	uint8_t buf[65536];
	struct peer p;
	uint32_t st;

	handshake(&p, host, port, DST_FEAT_FLUSH | DST_FEAT_FUA, false);
	if (p.lbs > sizeof(buf))
		die("block size %u", p.lbs);
	while (now() < end) {
		st = call(&p, DST_REQ_READ, ++n, p.size - p.lbs, p.lbs, NULL, buf,
			  "READ at the end");
		if (st != DST_OK)
			fail("READ of the last block: status %u (%s)", st,
			     status_name(st));
		usleep(100000);
	}
	close(p.fd);
	say("old-size: %u READs of the last of its %llu bytes, each answered, nothing else",
	    n, (unsigned long long)p.size);
}

static int cmd_client(int argc, char **argv)
{
	const char *host, *port, *c, *arg;

	if (argc < 3)
		die("usage: dstpeer client HOST PORT CASE [ARG]");
	host = argv[0];
	port = argv[1];
	c = argv[2];
	arg = argc > 3 ? argv[3] : NULL;
	say("client %s port %s case %s%s%s", host, port, c, arg ? " " : "", arg ?: "");
	signal(SIGALRM, on_alarm);
	alarm(120);
	if (!strcmp(c, "ok")) {
		client_ok(host, port, arg);
	} else if (!strcmp(c, "write-ro")) {
		client_write_ro(host, port, arg);
	} else if (!strcmp(c, "hello-only")) {
		struct peer p;

		handshake(&p, host, port, 0, false);
		close(p.fd);
		say("hello-only: handshake ok, closed without DISCONNECT");
	} else if (!strcmp(c, "bad-version")) {
		client_bad_version(host, port, DST_PROTO_VERSION + 1,
				   sizeof(struct dst_hello));
		/* Version 2's hello had no session: 48 bytes. */
		client_bad_version(host, port, 2, DST_HELLO_COMMON_LEN);
	} else if (!strcmp(c, "bad-hello-magic")) {
		struct dst_hello h = {
			.magic = htobe32(0x48545344),
			.version = htobe16(DST_PROTO_VERSION),
		};

		client_bad_hello(host, port, &h, sizeof(h), c);
	} else if (!strcmp(c, "garbage-hello")) {
		uint8_t junk[512];

		rng_state ^= (uint64_t)getpid();
		fill_random(junk, sizeof(junk));
		client_bad_hello(host, port, junk, sizeof(junk), c);
	} else if (!strcmp(c, "idle")) {
		client_idle(host, port);
	} else if (!strcmp(c, "trickle")) {
		client_trickle(host, port);
	} else if (!strcmp(c, "many")) {
		client_many(host, port, arg);
	} else if (!strcmp(c, "read-write")) {
		client_read_write(host, port, arg);
	} else if (!strcmp(c, "checksum")) {
		client_checksum(host, port, arg);
	} else if (!strcmp(c, "old-size")) {
		client_old_size(host, port, arg);
	} else {
		client_refused(host, port, c);
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Server side: a fake export for the in-kernel client.
 */

static void on_alarm(int sig)
{
	static const char msg[] = "dstpeer: time limit reached, exiting\n";
	ssize_t n;

	(void)sig;
	n = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)n;
	_exit(3);
}

enum srv_case {
	S_OK, S_WRONG_HANDLE, S_SHORT_REPLY, S_GARBAGE, S_BAD_STATUS,
	S_LONG_READ, S_SILENT, S_STALL_DATA, S_BAD_HELLO, S_EVERSION, S_BAD_BS,
	S_SLOW_HELLO, S_HUGE_PBS, S_BAD_FLAGS, S_FLAP,
};

static const char *const srv_cases[] = {
	[S_OK] = "ok", [S_WRONG_HANDLE] = "wrong-handle",
	[S_SHORT_REPLY] = "short-reply", [S_GARBAGE] = "garbage",
	[S_BAD_STATUS] = "bad-status", [S_LONG_READ] = "long-read",
	[S_SILENT] = "silent", [S_STALL_DATA] = "stall-data",
	[S_BAD_HELLO] = "bad-hello", [S_EVERSION] = "eversion",
	[S_BAD_BS] = "bad-bs", [S_SLOW_HELLO] = "slow-hello",
	[S_HUGE_PBS] = "huge-pbs", [S_BAD_FLAGS] = "bad-flags",
	[S_FLAP] = "flap",
};

static bool misbehaved;

static void srv_send(int fd, const void *buf, size_t len)
{
	if (write_full(fd, buf, len)) {
		say("client went away while sending (%s)", strerror(errno));
		exit(0);
	}
}

/* Reads exactly @len bytes or exits: 0 if the client closed cleanly first. */
static void srv_recv(int fd, void *buf, size_t len, const char *what)
{
	ssize_t n = read_full(fd, buf, len);

	if (n == 0 || (n < 0 && errno == ECONNRESET)) {
		say("client closed the connection");
		exit(0);
	}
	if (n < 0)
		die("recv: %s", strerror(errno));
	if ((size_t)n < len) {
		/* After a bad reply the client may drop the connection anywhere. */
		say("%sclient closed in the middle of %s (%zd of %zu bytes)",
		    misbehaved ? "" : "FAIL: ", what, n, len);
		exit(misbehaved ? 0 : 1);
	}
}

/* Waits for the client to close the connection (bounded by the alarm). */
static void __attribute__((noreturn)) srv_drain(int fd)
{
	uint8_t buf[65536];
	size_t total = 0;
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recv: %s", strerror(errno));
		total += n;
	}
	say("client closed the connection (%zu more bytes received)", total);
	exit(0);
}

/* flap: @n connections, each closed right after a good hello reply. */
static int srv_flap(int ls, uint64_t size, uint64_t n)
{
	struct dst_hello_reply hr = {
		.magic = htobe32(DST_HELLO_MAGIC),
		.version = htobe16(DST_PROTO_VERSION),
		.size = htobe64(size),
		.logical_block_size = htobe32(SRV_LBS),
		.physical_block_size = htobe32(SRV_PBS),
		.max_request = htobe32(SRV_MAXREQ),
	};
	struct dst_hello h;
	uint64_t i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			die("accept: %s", strerror(errno));
		if (read_full(fd, &h, sizeof(h)) == (ssize_t)sizeof(h))
			write_full(fd, &hr, sizeof(hr));
		close(fd);
	}
	say("%llu connections closed after their hello reply",
	    (unsigned long long)n);
	return 0;
}

static int cmd_server(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint64_t size, good = 0, nreq = 0, secs = 60;
	unsigned int c, one = 1, printed = 0;
	struct dst_hello h;
	struct dst_hello_reply hr;
	uint8_t *store, *buf;
	int ls, fd;

	if (argc < 3)
		die("usage: dstpeer server PORT SIZE CASE [GOOD [SECONDS]]");
	sa.sin_port = htons(parse_u64(argv[0], "port"));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	size = parse_u64(argv[1], "size");
	if (!size || size % SRV_PBS || size > (1ULL << 31))
		die("size must be a multiple of %u, at most 2 GiB", SRV_PBS);
	for (c = 0; c < sizeof(srv_cases) / sizeof(srv_cases[0]); c++)
		if (!strcmp(argv[2], srv_cases[c]))
			break;
	if (c == sizeof(srv_cases) / sizeof(srv_cases[0]))
		die("unknown server case '%s'", argv[2]);
	if (argc > 3)
		good = parse_u64(argv[3], "count of good replies");
	if (argc > 4)
		secs = parse_u64(argv[4], "seconds");
	store = calloc(1, size);
	buf = malloc(SRV_MAXREQ + 65536);
	if (!store || !buf)
		die("out of memory");
	signal(SIGALRM, on_alarm);
	alarm(secs);

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 8))
		die("listen on 127.0.0.1:%s: %s", argv[0], strerror(errno));
	say("server case %s, size %llu, %llu good replies first, %llu s limit; listening on 127.0.0.1:%s",
	    srv_cases[c], (unsigned long long)size, (unsigned long long)good,
	    (unsigned long long)secs, argv[0]);
	if (c == S_FLAP)
		return srv_flap(ls, size, good ?: 50);
	fd = accept(ls, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	close(ls);
	say("client connected");

	srv_recv(fd, &h, sizeof(h), "the hello");
	say("client hello: magic %#x version %u flags %#x features %#llx",
	    be32toh(h.magic), be16toh(h.version), be16toh(h.flags),
	    (unsigned long long)be64toh(h.features));
	if (be32toh(h.magic) != DST_HELLO_MAGIC || be16toh(h.version) != DST_PROTO_VERSION ||
	    h.flags) {
		say("FAIL: the client sent a bad hello");
		return 1;
	}
	memset(&hr, 0, sizeof(hr));
	hr.magic = htobe32(c == S_BAD_HELLO ? 0x0badbad0 : DST_HELLO_MAGIC);
	hr.version = htobe16(DST_PROTO_VERSION);
	hr.size = htobe64(size);
	hr.logical_block_size = htobe32(c == S_BAD_BS ? 3000 : SRV_LBS);
	hr.physical_block_size = htobe32(c == S_HUGE_PBS ? 1U << 30 : SRV_PBS);
	if (c == S_BAD_FLAGS)
		hr.flags = htobe32(1U << 31);
	hr.max_request = htobe32(SRV_MAXREQ);
	hr.features = htobe64(be64toh(h.features) & (DST_FEAT_FLUSH | DST_FEAT_FUA));
	if (c == S_EVERSION) {
		hr.error = htobe16(DST_EVERSION);
		snprintf((char *)hr.reason, sizeof(hr.reason),
			 "dstpeer serves no version for you");
	}
	if (c == S_SLOW_HELLO) {
		const uint8_t *b = (const uint8_t *)&hr;
		size_t i;

		say("sending the hello reply one byte a second");
		for (i = 0; i < sizeof(hr); i++) {
			srv_send(fd, b + i, 1);
			sleep(1);
		}
		say("FAIL: the client took a hello reply that took %zu s", sizeof(hr));
		return 1;
	}
	srv_send(fd, &hr, sizeof(hr));
	if (c == S_BAD_HELLO || c == S_EVERSION || c == S_BAD_BS ||
	    c == S_HUGE_PBS || c == S_BAD_FLAGS) {
		say("sent a %s hello reply; waiting for the client to close", srv_cases[c]);
		srv_drain(fd);
	}

	for (;;) {
		struct dst_request q;
		struct dst_reply r;
		uint64_t off, handle;
		uint32_t len;
		bool misbehave;

		srv_recv(fd, &q, sizeof(q), "a request header");
		off = be64toh(q.offset);
		len = be32toh(q.length);
		handle = be64toh(q.handle);
		nreq++;
		if (printed < 20 || q.cmd == DST_REQ_DISCONNECT) {
			printed++;
			say("request %llu: cmd %u flags %#x handle %llu offset %llu length %u",
			    (unsigned long long)nreq, q.cmd, be16toh(q.flags),
			    (unsigned long long)handle, (unsigned long long)off, len);
		}
		if (be32toh(q.magic) != DST_REQ_MAGIC || q.version != DST_PROTO_VERSION ||
		    q.reserved || q.hdr_crc || q.data_crc || q.cmd < DST_REQ_READ || q.cmd > DST_REQ_DISCONNECT ||
		    off % SRV_LBS || len % SRV_LBS || len > SRV_MAXREQ ||
		    off > size || len > size - off ||
		    ((q.cmd == DST_REQ_FLUSH || q.cmd == DST_REQ_DISCONNECT) && (off || len))) {
			say("FAIL: the client sent an invalid request: magic %#x version %u cmd %u reserved %u offset %llu length %u",
			    be32toh(q.magic), q.version, q.cmd, be32toh(q.reserved),
			    (unsigned long long)off, len);
			return 1;
		}
		if (q.cmd == DST_REQ_WRITE)
			srv_recv(fd, buf, len, "WRITE data");
		if (q.cmd == DST_REQ_DISCONNECT) {
			say("DISCONNECT after %llu requests; closing", (unsigned long long)nreq);
			close(fd);
			return 0;
		}
		misbehave = c != S_OK && nreq > good;
		misbehaved |= misbehave;
		if (misbehave && nreq == good + 1)
			say("misbehaving (%s) from request %llu on", srv_cases[c],
			    (unsigned long long)nreq);

		memset(&r, 0, sizeof(r));
		r.magic = htobe32(DST_REP_MAGIC);
		r.version = DST_PROTO_VERSION;
		r.cmd = q.cmd;
		r.handle = q.handle;
		switch (q.cmd) {
		case DST_REQ_READ:
			memcpy(buf, store + off, len);
			r.length = htobe32(len);
			break;
		case DST_REQ_WRITE:
			if (!misbehave)
				memcpy(store + off, buf, len);
			break;
		case DST_REQ_DISCARD:
		case DST_REQ_WRITE_ZEROES:
			if (!misbehave)
				memset(store + off, 0, len);
			break;
		}
		if (!misbehave) {
			srv_send(fd, &r, sizeof(r));
			if (q.cmd == DST_REQ_READ)
				srv_send(fd, buf, len);
			continue;
		}
		switch (c) {
		case S_WRONG_HANDLE:
			r.handle = htobe64(handle ^ 0x5a5a00005a5a0000ULL);
			srv_send(fd, &r, sizeof(r));
			if (q.cmd == DST_REQ_READ)
				srv_send(fd, buf, len);
			break;
		case S_SHORT_REPLY:
			srv_send(fd, &r, sizeof(r) / 2);
			say("sent half a reply header; closing");
			close(fd);
			return 0;
		case S_GARBAGE:
			fill_random(buf, 4096);
			srv_send(fd, buf, 4096);
			break;
		case S_BAD_STATUS:
			r.status = htobe32(12345);
			r.length = 0;
			srv_send(fd, &r, sizeof(r));
			break;
		case S_LONG_READ:
			len = q.cmd == DST_REQ_READ ? len + 4096 : 4096;
			r.length = htobe32(len);
			memset(buf, 0xa5, len);
			srv_send(fd, &r, sizeof(r));
			srv_send(fd, buf, len);
			break;
		case S_SILENT:
			break;
		case S_STALL_DATA:
			srv_send(fd, &r, sizeof(r));
			if (q.cmd != DST_REQ_READ)
				break;
			srv_send(fd, buf, len / 2);
			say("sent a READ reply header and %u of %u data bytes; stalling", len / 2, len);
			srv_drain(fd);
		default:
			break;
		}
	}
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && !strcmp(argv[1], "client"))
		return cmd_client(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "server"))
		return cmd_server(argc - 2, argv + 2);
	die("usage: dstpeer client HOST PORT CASE [ARG] | dstpeer server PORT SIZE CASE [GOOD [SECONDS]]");
}
