// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the raw wire-protocol test tools; see wire.h.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "wire.h"

int io_timeout = IO_TIMEOUT;
uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s: ", wire_prog);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fflush(stdout);
	printf("%s: FAIL: ", wire_prog);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
	exit(1);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: error: ", wire_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

void fill_random(void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rnd();
}

void set_timeouts(int fd, int sec)
{
	struct timeval tv = { .tv_sec = sec };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("setsockopt: %s", strerror(errno));
}

ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = recv(fd, (char *)buf + done, len - done, 0);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (done)
				break;
			return -1;
		}
		done += n;
	}
	return done;
}

int write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = send(fd, (const char *)buf + done, len - done, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += n;
	}
	return 0;
}

const char *status_name(uint32_t s)
{
	static const char *const names[] = {
		[DST_OK] = "OK", [DST_EIO] = "EIO", [DST_EINVAL] = "EINVAL",
		[DST_EROFS] = "EROFS", [DST_ENOSPC] = "ENOSPC",
		[DST_EOPNOTSUPP] = "EOPNOTSUPP", [DST_ENOMEM] = "ENOMEM",
		[DST_EVERSION] = "EVERSION", [DST_EPERM] = "EPERM",
		[DST_ECRC] = "ECRC", [DST_EBUSY] = "EBUSY",
	};

	if (s < sizeof(names) / sizeof(names[0]) && names[s])
		return names[s];
	return "unknown";
}

void tcp_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("setsockopt TCP_NODELAY: %s", strerror(errno));
}

int listen_loopback(const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int ls, one = 1;

	sa.sin_port = htons((uint16_t)parse_u64(port, "port"));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 8))
		die("listen on 127.0.0.1:%s: %s", port, strerror(errno));
	return ls;
}

void hello_session(struct dst_hello *h)
{
	uint64_t session = 0;

	while (!session)
		if (getrandom(&session, sizeof(session), 0) != sizeof(session))
			die("getrandom: %s", strerror(errno));
	h->session = htobe64(session);
	h->generation = htobe32(1);
}

void hello_ok(struct dst_hello_reply *r, uint64_t size, uint32_t max_request,
	      uint64_t features)
{
	memset(r, 0, sizeof(*r));
	r->magic = htobe32(DST_HELLO_MAGIC);
	r->version = htobe16(DST_PROTO_VERSION);
	r->size = htobe64(size);
	r->logical_block_size = htobe32(512);
	r->physical_block_size = htobe32(4096);
	r->max_request = htobe32(max_request);
	r->features = htobe64(features);
}

void (*wire_on_connect)(int fd);

int connect_to(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	int fd = -1, err;

	err = getaddrinfo(host, port, &hints, &ai);
	if (err)
		die("%s port %s: %s", host, port, gai_strerror(err));
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (fd < 0)
			continue;
		/* Bounds connect() too; a full accept queue retries SYNs. */
		set_timeouts(fd, 30);
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		fail("cannot connect to %s port %s: %s", host, port, strerror(errno));
	set_timeouts(fd, io_timeout);
	tcp_nodelay(fd);
	if (wire_on_connect)
		wire_on_connect(fd);
	return fd;
}

uint64_t parse_u64(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end)
		die("bad %s '%s'", what, s);
	return v;
}

uint32_t crc32c(const void *buf, size_t len)
{
	static uint32_t table[256];
	const uint8_t *p = buf;
	uint32_t crc = ~0U, c;
	int i, k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = (uint32_t)i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78U : c >> 1;
			table[i] = c;
		}
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t crc_hdr(const void *hdr, size_t len, const uint32_t *field)
{
	uint8_t copy[128];

	if (len > sizeof(copy))
		die("header too long");
	memcpy(copy, hdr, len);
	memset(copy + ((const uint8_t *)field - (const uint8_t *)hdr), 0,
	       sizeof(*field));
	return crc32c(copy, len);
}

size_t secret_read(const char *path, uint8_t *buf)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("secret %s: %s", path, strerror(errno));
	n = read(fd, buf, DST_SECRET_MAX + 1);
	close(fd);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < 1 || n > DST_SECRET_MAX)
		die("secret %s: 1 to %d bytes", path, DST_SECRET_MAX);
	return (size_t)n;
}

void auth_response(const uint8_t *secret, size_t len, bool server,
		   const uint8_t *cchal, const uint8_t *schal, uint8_t *out)
{
	static const char slabel[] = DST_AUTH_SERVER, clabel[] = DST_AUTH_CLIENT;
	uint8_t msg[sizeof(slabel) + 2 * DST_CHALLENGE_LEN];
	unsigned int outlen = DST_RESPONSE_LEN;

	memcpy(msg, server ? slabel : clabel, sizeof(slabel));
	memcpy(msg + sizeof(slabel), cchal, DST_CHALLENGE_LEN);
	memcpy(msg + sizeof(slabel) + DST_CHALLENGE_LEN, schal, DST_CHALLENGE_LEN);
	if (!HMAC(EVP_sha256(), secret, (int)len, msg, sizeof(msg), out, &outlen) ||
	    outlen != DST_RESPONSE_LEN)
		die("HMAC-SHA256 failed");
}

int wire_serve_auth(int fd, const struct dst_hello *h, const uint8_t *secret,
		    size_t len)
{
	struct dst_auth a = {
		.magic = htobe32(DST_AUTH_MAGIC),
		.version = htobe16(DST_PROTO_VERSION),
	};
	uint8_t want[DST_RESPONSE_LEN];

	fill_random(a.challenge, DST_CHALLENGE_LEN);
	auth_response(secret, len, true, h->challenge, a.challenge, a.response);
	auth_response(secret, len, false, h->challenge, a.challenge, want);
	if (write_full(fd, &a, sizeof(a)) ||
	    read_full(fd, &a, sizeof(a)) != (ssize_t)sizeof(a) ||
	    be32toh(a.magic) != DST_AUTH_MAGIC ||
	    memcmp(a.response, want, sizeof(want)))
		return -1;
	return 0;
}

uint16_t wire_auth_reserved;
uint64_t wire_session;
uint32_t wire_generation;
const uint8_t *wire_proof;

void session_step(uint8_t *v)
{
	static const char label[] = DST_SESSION_LABEL;
	uint8_t msg[sizeof(label) + DST_CHALLENGE_LEN];

	memcpy(msg, label, sizeof(label));
	memcpy(msg + sizeof(label), v, DST_CHALLENGE_LEN);
	SHA256(msg, sizeof(msg), v);
}

int wire_handshake(struct wire_conn *c, const char *host, const char *port,
		   const uint8_t *secret, size_t slen, uint64_t features,
		   const uint8_t *cchal, const uint8_t *replay)
{
	struct dst_hello h = {
		.magic = htobe32(DST_HELLO_MAGIC),
		.version = htobe16(DST_PROTO_VERSION),
		.flags = htobe16(secret || replay ? DST_HELLO_AUTH : 0),
		.features = htobe64(features),
	};
	union {
		uint32_t magic;
		struct dst_auth a;
		struct dst_hello_reply r;
	} m;
	uint8_t want[DST_RESPONSE_LEN];
	ssize_t n;

	memset(c, 0, sizeof(*c));
	if (cchal)
		memcpy(h.challenge, cchal, DST_CHALLENGE_LEN);
	else
		fill_random(h.challenge, DST_CHALLENGE_LEN);
	memcpy(c->cchal, h.challenge, DST_CHALLENGE_LEN);
	hello_session(&h);
	if (wire_session) {
		h.session = htobe64(wire_session);
		h.generation = htobe32(wire_generation);
	}
	c->fd = connect_to(host, port);
	if (write_full(c->fd, &h, sizeof(h)))
		fail("sending the hello: %s", strerror(errno));
	n = read_full(c->fd, &m.magic, sizeof(m.magic));
	if (n != sizeof(m.magic))
		return -1;
	if (be32toh(m.magic) == DST_AUTH_MAGIC) {
		if (read_full(c->fd, (uint8_t *)&m + 4, sizeof(m.a) - 4) !=
		    (ssize_t)(sizeof(m.a) - 4))
			return -1;
		if (be16toh(m.a.version) != DST_PROTO_VERSION || m.a.reserved)
			fail("bad auth message from the server");
		memcpy(c->schal, m.a.challenge, DST_CHALLENGE_LEN);
		if (secret) {
			auth_response(secret, slen, true, c->cchal, c->schal, want);
			c->server_proved = !memcmp(want, m.a.response, sizeof(want));
		}
		if (!secret && !replay) {
			close(c->fd);
			return -1;
		}
		memset(&m.a, 0, sizeof(m.a));
		m.a.magic = htobe32(DST_AUTH_MAGIC);
		m.a.version = htobe16(DST_PROTO_VERSION);
		m.a.reserved = htobe16(wire_auth_reserved);
		if (wire_proof)
			memcpy(m.a.challenge, wire_proof, DST_CHALLENGE_LEN);
		if (replay)
			memcpy(m.a.response, replay, DST_RESPONSE_LEN);
		else
			auth_response(secret, slen, false, c->cchal, c->schal,
				      m.a.response);
		memcpy(c->resp, m.a.response, DST_RESPONSE_LEN);
		if (write_full(c->fd, &m.a, sizeof(m.a)))
			return -1;
		n = read_full(c->fd, &m.magic, sizeof(m.magic));
		if (n != sizeof(m.magic))
			return -1;
	}
	if (read_full(c->fd, (uint8_t *)&m + 4, sizeof(m.r) - 4) !=
	    (ssize_t)(sizeof(m.r) - 4))
		return -1;
	if (be32toh(m.r.magic) != DST_HELLO_MAGIC ||
	    be16toh(m.r.version) != DST_PROTO_VERSION)
		fail("hello reply magic %#x version %u", be32toh(m.r.magic),
		     be16toh(m.r.version));
	if (m.r.error) {
		memcpy(c->reason, m.r.reason, sizeof(c->reason));
		c->reason[sizeof(c->reason) - 1] = '\0';
		return be16toh(m.r.error);
	}
	c->size = be64toh(m.r.size);
	c->lbs = be32toh(m.r.logical_block_size);
	c->max_request = be32toh(m.r.max_request);
	c->flags = be32toh(m.r.flags);
	c->features = be64toh(m.r.features);
	if (c->features & ~features)
		fail("granted features %#llx not asked for",
		     (unsigned long long)c->features);
	c->crc = c->features & DST_FEAT_CRC32C;
	return DST_OK;
}

void wire_req(const struct wire_conn *c, struct dst_request *q, uint8_t cmd,
	      uint64_t handle, uint64_t off, uint32_t len, const void *data)
{
	memset(q, 0, sizeof(*q));
	q->magic = htobe32(DST_REQ_MAGIC);
	q->version = DST_PROTO_VERSION;
	q->cmd = cmd;
	q->handle = htobe64(handle);
	q->offset = htobe64(off);
	q->length = htobe32(len);
	if (!c->crc)
		return;
	if (cmd == DST_REQ_WRITE)
		q->data_crc = htobe32(crc32c(data, len));
	q->hdr_crc = htobe32(crc_hdr(q, sizeof(*q), &q->hdr_crc));
}

int wire_reply(const struct wire_conn *c, uint64_t handle, uint8_t cmd,
	       void *data, uint32_t len)
{
	struct dst_reply r;
	uint32_t st;

	if (read_full(c->fd, &r, sizeof(r)) != sizeof(r))
		return -1;
	if (c->crc && be32toh(r.hdr_crc) != crc_hdr(&r, sizeof(r), &r.hdr_crc))
		fail("reply header checksum %#x, computed %#x", be32toh(r.hdr_crc),
		     crc_hdr(&r, sizeof(r), &r.hdr_crc));
	if (be32toh(r.magic) != DST_REP_MAGIC || r.version != DST_PROTO_VERSION ||
	    r.reserved || be64toh(r.handle) != handle || r.cmd != cmd ||
	    (!c->crc && (r.hdr_crc || r.data_crc)))
		fail("bad reply: magic %#x version %u cmd %u handle %llu",
		     be32toh(r.magic), r.version, r.cmd,
		     (unsigned long long)be64toh(r.handle));
	st = be32toh(r.status);
	if (cmd == DST_REQ_READ && st == DST_OK) {
		if (be32toh(r.length) != len)
			fail("READ of %u bytes answered with %u", len, be32toh(r.length));
		if (read_full(c->fd, data, len) != (ssize_t)len)
			return -1;
		if (c->crc && be32toh(r.data_crc) != crc32c(data, len))
			fail("READ data checksum %#x, computed %#x", be32toh(r.data_crc),
			     crc32c(data, len));
	} else if (r.length || r.data_crc) {
		fail("reply with unexpected data (status %s)", status_name(st));
	}
	return (int)st;
}
