/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the raw wire-protocol test tools (dstpeer, dstsec, wirefuzz):
 * messages, I/O with timeouts, and the protocol's CRC-32C and HMAC-SHA256
 * handshake computed independently of the module.
 */
#ifndef DST_TESTS_WIRE_H
#define DST_TESTS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uapi/dst.h"

_Static_assert(sizeof(struct dst_hello) == 64, "hello size");
_Static_assert(sizeof(struct dst_auth) == 72, "auth size");
_Static_assert(sizeof(struct dst_hello_reply) == 112, "hello reply size");
_Static_assert(sizeof(struct dst_request) == 40, "request size");
_Static_assert(sizeof(struct dst_reply) == 32, "reply size");

#define IO_TIMEOUT	15	/* seconds the other end gets for each answer */

extern const char *wire_prog;	/* each tool's name, for messages */
extern int io_timeout;
extern uint64_t rng_state;

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Exit 1: the other end broke the protocol or the test's expectation. */
void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Exit 2: usage or set-up error. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
double now(void);
uint64_t rnd(void);
void fill_random(void *buf, size_t len);
void set_timeouts(int fd, int sec);
/*
 * Reads up to @len bytes, stopping early only at EOF.  Returns the number
 * read (< len: EOF came first), or -1 with errno set (EAGAIN: timeout) when
 * nothing could be read.
 */
ssize_t read_full(int fd, void *buf, size_t len);
int write_full(int fd, const void *buf, size_t len);
const char *status_name(uint32_t s);
/* A header and the data after it go out at once, not after a delayed ACK. */
void tcp_nodelay(int fd);
/* A socket listening on 127.0.0.1:PORT; exits 2 if it cannot. */
int listen_loopback(const char *port);
/* A new session of its own (random, generation 1) in a client's hello. */
void hello_session(struct dst_hello *h);
/* A hello reply that lets the client in: 512/4096-byte blocks. */
void hello_ok(struct dst_hello_reply *r, uint64_t size, uint32_t max_request,
	      uint64_t features);
/*
 * A connected TCP socket with io_timeout set; fails if it cannot connect.
 * wire_on_connect, if set, is run on it first (TLS).
 */
int connect_to(const char *host, const char *port);
extern void (*wire_on_connect)(int fd);
uint64_t parse_u64(const char *s, const char *what);

/* CRC-32C as the protocol has it (iSCSI's). */
uint32_t crc32c(const void *buf, size_t len);
/* A header's checksum, its own field taken as zero. */
uint32_t crc_hdr(const void *hdr, size_t len, const uint32_t *field);

/* A secret from a file (trailing newline dropped); exits 2 if unreadable. */
size_t secret_read(const char *path, uint8_t *buf);
/* HMAC-SHA256 answer of the server (@server) or client to the challenges. */
void auth_response(const uint8_t *secret, size_t len, bool server,
		   const uint8_t *cchal, const uint8_t *schal, uint8_t *out);
/*
 * The export's half of the secret handshake after the client's hello
 * @h: its challenge and answer, then the client's answer checked; 0 if
 * the client proved the secret.
 */
int wire_serve_auth(int fd, const struct dst_hello *h, const uint8_t *secret,
		    size_t len);

#endif

/* A client connection after the hello. */
struct wire_conn {
	int fd;
	uint64_t size;
	uint32_t lbs, max_request, flags;
	uint64_t features;
	bool crc;			/* DST_FEAT_CRC32C granted */
	uint8_t cchal[DST_CHALLENGE_LEN];	/* the client's challenge */
	uint8_t schal[DST_CHALLENGE_LEN];	/* the server's, if any */
	uint8_t resp[DST_RESPONSE_LEN];	/* the client's answer sent */
	bool server_proved;		/* the server's answer verified */
	char reason[DST_REASON_LEN];	/* of a refusal */
};

/*
 * Connect and do the handshake: hello (@cchal, or random if NULL), the
 * secret's exchange when the server starts it (@secret may be NULL: then
 * no answer can be given and the connection is closed), the hello reply.
 * @replay: send this answer instead of computing one.  Returns the hello
 * reply's error (DST_OK: @c is ready), or -1 if the server closed the
 * connection without a hello reply.
 */
/* The reserved field of the client's auth message (0; tests set it). */
extern uint16_t wire_auth_reserved;
/*
 * The session and generation of the hello (0: a new session of its own,
 * generation 1) and the session proof of the auth message (NULL: none).
 */
extern uint64_t wire_session;
extern uint32_t wire_generation;
extern const uint8_t *wire_proof;
/* @v, one step down a session's hash chain (uapi DST_SESSION_SPAN). */
void session_step(uint8_t *v);
int wire_handshake(struct wire_conn *c, const char *host, const char *port,
		   const uint8_t *secret, size_t slen, uint64_t features,
		   const uint8_t *cchal, const uint8_t *replay);
/* A request header with checksums when @c->crc (of @data for a WRITE). */
void wire_req(const struct wire_conn *c, struct dst_request *q, uint8_t cmd,
	      uint64_t handle, uint64_t off, uint32_t len, const void *data);
/*
 * Read one reply (and a READ's @len bytes of data into @data); checks its
 * checksums when @c->crc.  Returns its status, or -1 if the connection
 * closed first; fails on a malformed reply.
 */
int wire_reply(const struct wire_conn *c, uint64_t handle, uint8_t cmd,
	       void *data, uint32_t len);
