/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dstadm: a TLS 1.3 handshake, then the kernel's TLS layer (ktls.c).
 */
#ifndef DSTADM_KTLS_H
#define DSTADM_KTLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gnutls/gnutls.h>

/* What to do on a connection. */
struct ktls_params {
	bool server;			/* accepted, not connected */
	uint32_t mode;			/* enum dst_tls_mode: PSK or X.509 */
	gnutls_datum_t psk;		/* PSK: the key */
	const char *cert, *key;		/* X.509: own PEM files, or NULL */
	const char *ca;			/* X.509: CA of the peer, or NULL */
	const char *name;		/* X.509: the peer's name, or NULL */
	uint32_t cipher;		/* enum dst_tls_cipher: ANY or the one */
	unsigned int timeout;		/* ms, 0: GnuTLS's default */
};

/*
 * The TLS 1.3 handshake of @p on the connected socket @fd, then TCP_ULP
 * "tls" with the session's keys for both directions: 0, or a positive
 * errno (EACCES the peer did not authenticate, ENOPROTOOPT no cipher in
 * common, ECONNRESET it closed, ETIMEDOUT, ENOENT a file, EPERM or
 * ECONNREFUSED the export refused this client before TLS, with a dst hello
 * reply in the clear, EPROTO anything else) and why in @why.
 */
int ktls_handshake(int fd, const struct ktls_params *p, char *why, size_t wlen);

#endif /* DSTADM_KTLS_H */
