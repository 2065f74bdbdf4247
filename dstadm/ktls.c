// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: a TLS 1.3 handshake with GnuTLS on a connected socket, then the
 * session's keys into the kernel's TLS layer, as tlshd does: what the
 * agent (tlsd.c) does for each connection of the module, and what the
 * test tools do to speak TLS to it.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <linux/tls.h>

#include "ktls.h"
#include "uapi/dst.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif

/* TLS 1.3 only, no tickets; the ciphers as tls_priority() adds them. */
#define TLS_PRIORITY "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:"
/* With a PSK: with (EC)DHE, for forward secrecy, as NVMe/TCP's. */
#define TLS_PRIORITY_PSK ":-KX-ALL:+ECDHE-PSK:+DHE-PSK"

/*
 * The GnuTLS priority string of @p: the cipher asked for, or all that the
 * kernel's TLS layer has, in enum dst_tls_cipher's order.
 */
static const char *tls_priority(const struct ktls_params *p, char *buf, size_t size)
{
	static const char *const ciphers[__DST_TLS_CIPHER_MAX] = {
		[DST_TLS_CIPHER_ANY] = "+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305",
		[DST_TLS_CIPHER_AES_128_GCM] = "+AES-128-GCM",
		[DST_TLS_CIPHER_AES_256_GCM] = "+AES-256-GCM",
		[DST_TLS_CIPHER_CHACHA20_POLY1305] = "+CHACHA20-POLY1305",
	};

	if (p->cipher >= __DST_TLS_CIPHER_MAX)
		return NULL;
	snprintf(buf, size, "%s%s%s", TLS_PRIORITY, ciphers[p->cipher],
		 p->mode == DST_TLS_PSK ? TLS_PRIORITY_PSK : "");
	return buf;
}

/* The errno the module gets for a GnuTLS error of the handshake. */
static int tls_errno(gnutls_session_t s, uint32_t mode, int ret)
{
	/* GnuTLS's word for a PSK binder that does not check: a wrong key. */
	if (mode == DST_TLS_PSK &&
	    (ret == GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER ||
	     (ret == GNUTLS_E_FATAL_ALERT_RECEIVED &&
	      gnutls_alert_get(s) == GNUTLS_A_ILLEGAL_PARAMETER)))
		return EACCES;
	switch (ret) {
	case GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR:
	case GNUTLS_E_CERTIFICATE_ERROR:
	case GNUTLS_E_NO_CERTIFICATE_FOUND:
	case GNUTLS_E_DECRYPTION_FAILED:
	case GNUTLS_E_INSUFFICIENT_CREDENTIALS:
	case GNUTLS_E_KEYFILE_ERROR:
		return EACCES;
	case GNUTLS_E_NO_CIPHER_SUITES:
	case GNUTLS_E_UNKNOWN_CIPHER_SUITE:
	case GNUTLS_E_NO_COMMON_KEY_SHARE:
		return ENOPROTOOPT;
	case GNUTLS_E_FATAL_ALERT_RECEIVED:
		switch (gnutls_alert_get(s)) {
		case GNUTLS_A_DECRYPT_ERROR:
		case GNUTLS_A_BAD_CERTIFICATE:
		case GNUTLS_A_UNKNOWN_CA:
		case GNUTLS_A_CERTIFICATE_EXPIRED:
		case GNUTLS_A_CERTIFICATE_REVOKED:
		case GNUTLS_A_CERTIFICATE_UNKNOWN:
		case GNUTLS_A_ACCESS_DENIED:
		case GNUTLS_A_UNKNOWN_PSK_IDENTITY:
		case GNUTLS_A_CERTIFICATE_REQUIRED:
			return EACCES;
		case GNUTLS_A_HANDSHAKE_FAILURE:
		case GNUTLS_A_INSUFFICIENT_SECURITY:
			return ENOPROTOOPT;
		default:
			return EPROTO;
		}
	case GNUTLS_E_PREMATURE_TERMINATION:
	case GNUTLS_E_PUSH_ERROR:
	case GNUTLS_E_PULL_ERROR:
		return ECONNRESET;
	case GNUTLS_E_TIMEDOUT:
		return ETIMEDOUT;
	default:
		return EPROTO;
	}
}

/* The PSK of the server side, for the one identity dst uses. */
static int psk_server_cb(gnutls_session_t s, const char *username,
			 gnutls_datum_t *key)
{
	const gnutls_datum_t *psk = gnutls_session_get_ptr(s);

	if (strcmp(username, DST_TLS_PSK_IDENTITY))
		return -1;
	key->data = gnutls_malloc(psk->size);
	if (!key->data)
		return -1;
	memcpy(key->data, psk->data, psk->size);
	key->size = psk->size;
	return 0;
}

/* Why the peer's certificate was not accepted, as GnuTLS says it. */
static void verify_error(gnutls_session_t s, char *why, size_t wlen)
{
	gnutls_datum_t out = { NULL, 0 };
	unsigned int status;

	status = gnutls_session_get_verify_cert_status(s);
	if (gnutls_certificate_verification_status_print(status,
							 GNUTLS_CRT_X509,
							 &out, 0) < 0) {
		snprintf(why, wlen, "the peer's certificate is not valid");
		return;
	}
	snprintf(why, wlen, "the peer's certificate is not valid: %s",
		 (const char *)out.data);
	gnutls_free(out.data);
}

/*
 * What GnuTLS reads from: the socket, and the first bytes of the peer
 * kept, so that an export that refused this host before TLS, with a dst
 * hello reply in the clear, is told from a peer that does not speak TLS.
 */
struct tls_conn {
	int fd;
	size_t got;
	unsigned char head[sizeof(struct dst_hello_reply)];
};

static ssize_t tls_pull(gnutls_transport_ptr_t ptr, void *buf, size_t len)
{
	struct tls_conn *c = ptr;
	ssize_t n = recv(c->fd, buf, len, 0);
	size_t keep;

	if (n > 0 && c->got < sizeof(c->head)) {
		keep = sizeof(c->head) - c->got;
		if (keep > (size_t)n)
			keep = (size_t)n;
		memcpy(c->head + c->got, buf, keep);
		c->got += keep;
	}
	return n;
}

static int tls_pull_timeout(gnutls_transport_ptr_t ptr, unsigned int ms)
{
	struct tls_conn *c = ptr;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	return poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);
}

/*
 * Whether the export answered this client's ClientHello with a dst hello
 * reply in the clear: it refused this host before TLS (not on its allow
 * list).  Then 0 and its error, as errno, and reason in @why.
 */
static int tls_refused(struct tls_conn *c, int *err, char *why, size_t wlen)
{
	const struct dst_hello_reply *rep = (const void *)c->head;
	struct timeval tv = { .tv_sec = 1 };
	char reason[DST_REASON_LEN];
	ssize_t n;
	size_t i;

	if (c->got < sizeof(rep->magic) || be32toh(rep->magic) != DST_HELLO_MAGIC)
		return -1;
	/* The rest of it is there: the export sent it at once, and closed. */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (c->got < sizeof(c->head)) {
		n = recv(c->fd, c->head + c->got, sizeof(c->head) - c->got, 0);
		if (n <= 0)
			break;
		c->got += (size_t)n;
	}
	if (c->got < sizeof(c->head) || !rep->error) {
		snprintf(why, wlen, "the export sent a dst hello reply in the clear, not TLS");
		*err = EPROTO;
		return 0;
	}
	/* The export's words: printable, as a peer's. */
	for (i = 0; i < sizeof(reason) - 1 && rep->reason[i]; i++)
		reason[i] = isprint(rep->reason[i]) ? (char)rep->reason[i] : '?';
	reason[i] = 0;
	snprintf(why, wlen, "the export refused this host before TLS: %s", reason);
	*err = be16toh(rep->error) == DST_EPERM ? EPERM : ECONNREFUSED;
	return 0;
}

/* Put the session's keys for one direction into the kernel's TLS layer. */
static int ktls_set(gnutls_session_t s, int fd, bool rx)
{
	gnutls_datum_t mac, iv, key;
	unsigned char seq[8];
	union {
		struct tls12_crypto_info_aes_gcm_128 g128;
		struct tls12_crypto_info_aes_gcm_256 g256;
		struct tls12_crypto_info_chacha20_poly1305 cc;
	} ci;
	socklen_t len;
	int ret;

	if (gnutls_record_get_state(s, rx, &mac, &iv, &key, seq) < 0)
		return -1;
	memset(&ci, 0, sizeof(ci));
	switch (gnutls_cipher_get(s)) {
	case GNUTLS_CIPHER_AES_128_GCM:
		ci.g128.info.version = TLS_1_3_VERSION;
		ci.g128.info.cipher_type = TLS_CIPHER_AES_GCM_128;
		memcpy(ci.g128.salt, iv.data, TLS_CIPHER_AES_GCM_128_SALT_SIZE);
		memcpy(ci.g128.iv, iv.data + TLS_CIPHER_AES_GCM_128_SALT_SIZE,
		       TLS_CIPHER_AES_GCM_128_IV_SIZE);
		memcpy(ci.g128.key, key.data, TLS_CIPHER_AES_GCM_128_KEY_SIZE);
		memcpy(ci.g128.rec_seq, seq, sizeof(seq));
		len = sizeof(ci.g128);
		break;
	case GNUTLS_CIPHER_AES_256_GCM:
		ci.g256.info.version = TLS_1_3_VERSION;
		ci.g256.info.cipher_type = TLS_CIPHER_AES_GCM_256;
		memcpy(ci.g256.salt, iv.data, TLS_CIPHER_AES_GCM_256_SALT_SIZE);
		memcpy(ci.g256.iv, iv.data + TLS_CIPHER_AES_GCM_256_SALT_SIZE,
		       TLS_CIPHER_AES_GCM_256_IV_SIZE);
		memcpy(ci.g256.key, key.data, TLS_CIPHER_AES_GCM_256_KEY_SIZE);
		memcpy(ci.g256.rec_seq, seq, sizeof(seq));
		len = sizeof(ci.g256);
		break;
	case GNUTLS_CIPHER_CHACHA20_POLY1305:
		ci.cc.info.version = TLS_1_3_VERSION;
		ci.cc.info.cipher_type = TLS_CIPHER_CHACHA20_POLY1305;
		memcpy(ci.cc.iv, iv.data, TLS_CIPHER_CHACHA20_POLY1305_IV_SIZE);
		memcpy(ci.cc.key, key.data, TLS_CIPHER_CHACHA20_POLY1305_KEY_SIZE);
		memcpy(ci.cc.rec_seq, seq, sizeof(seq));
		len = sizeof(ci.cc);
		break;
	default:
		errno = EOPNOTSUPP;
		return -1;
	}
	ret = setsockopt(fd, SOL_TLS, rx ? TLS_RX : TLS_TX, &ci, len);
	explicit_bzero(&ci, sizeof(ci));
	return ret;
}

int ktls_handshake(int fd, const struct ktls_params *p, char *why, size_t wlen)
{
	bool server = p->server;
	gnutls_certificate_credentials_t cert = NULL;
	gnutls_psk_server_credentials_t psks = NULL;
	gnutls_psk_client_credentials_t pskc = NULL;
	gnutls_session_t s = NULL;
	struct tls_conn conn = { .fd = fd };
	int ret, err = EPROTO;
	const char *what;
	char prio[128], byte;

	if (!tls_priority(p, prio, sizeof(prio))) {
		snprintf(why, wlen, "unknown cipher %u", p->cipher);
		return EPROTO;
	}
	ret = gnutls_init(&s, (server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
			  GNUTLS_NO_TICKETS);
	if (ret < 0) {
		what = "set up a session";
		goto fail;
	}
	if (p->mode == DST_TLS_PSK) {
		what = "set up the PSK";
		if (!p->psk.size) {
			ret = GNUTLS_E_INSUFFICIENT_CREDENTIALS;
			goto fail;
		}
		if (server) {
			ret = gnutls_psk_allocate_server_credentials(&psks);
			if (ret < 0)
				goto fail;
			gnutls_session_set_ptr(s, (void *)&p->psk);
			gnutls_psk_set_server_credentials_function(psks, psk_server_cb);
			ret = gnutls_credentials_set(s, GNUTLS_CRD_PSK, psks);
		} else {
			ret = gnutls_psk_allocate_client_credentials(&pskc);
			if (ret < 0)
				goto fail;
			ret = gnutls_psk_set_client_credentials(pskc, DST_TLS_PSK_IDENTITY,
								&p->psk, GNUTLS_PSK_KEY_RAW);
			if (ret >= 0)
				ret = gnutls_credentials_set(s, GNUTLS_CRD_PSK, pskc);
		}
		if (ret >= 0)
			ret = gnutls_priority_set_direct(s, prio, NULL);
		if (ret < 0)
			goto fail;
	} else {
		ret = gnutls_certificate_allocate_credentials(&cert);
		what = "set up the credentials";
		if (ret < 0)
			goto fail;
		if (p->cert && p->key) {
			what = "load the certificate and key";
			ret = gnutls_certificate_set_x509_key_file(cert, p->cert, p->key,
								   GNUTLS_X509_FMT_PEM);
			if (ret < 0) {
				err = ENOENT;
				goto fail;
			}
		}
		if (p->ca) {
			what = "load the CA";
			ret = gnutls_certificate_set_x509_trust_file(cert, p->ca,
								     GNUTLS_X509_FMT_PEM);
			if (ret <= 0) {
				ret = ret ?: GNUTLS_E_NO_CERTIFICATE_FOUND;
				err = ENOENT;
				goto fail;
			}
		}
		what = "set up the session";
		ret = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cert) ?:
		      gnutls_priority_set_direct(s, prio, NULL);
		if (ret < 0)
			goto fail;
		if (server && p->ca) {
			/*
			 * Clients must show a certificate the CA signed, with
			 * the allow list's name for them if it has one.
			 */
			gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
			gnutls_session_set_verify_cert(s, p->name, 0);
		} else if (!server) {
			gnutls_session_set_verify_cert(s, p->name, 0);
			if (p->name && !strchr(p->name, ':') &&
			    strspn(p->name, "0123456789.") != strlen(p->name))
				gnutls_server_name_set(s, GNUTLS_NAME_DNS, p->name,
						       strlen(p->name));
		}
	}

	/* Sent to the socket as set_int() would, read through tls_pull(). */
	gnutls_transport_set_ptr2(s, &conn, (gnutls_transport_ptr_t)(intptr_t)fd);
	gnutls_transport_set_pull_function(s, tls_pull);
	gnutls_transport_set_pull_timeout_function(s, tls_pull_timeout);
	gnutls_handshake_set_timeout(s, p->timeout ?: GNUTLS_DEFAULT_HANDSHAKE_TIMEOUT);
	what = "handshake";
	do {
		ret = gnutls_handshake(s);
	} while (ret < 0 && !gnutls_error_is_fatal(ret));
	if (ret < 0) {
		if (!server && !tls_refused(&conn, &err, why, wlen))
			goto out;
		err = tls_errno(s, p->mode, ret);
		/* The peer learns why: a wrong key is not a lost connection. */
		if (ret != GNUTLS_E_FATAL_ALERT_RECEIVED)
			gnutls_alert_send_appropriate(s, ret);
		goto fail;
	}
	/* What came with the handshake would be lost to the kernel. */
	if (gnutls_record_check_pending(s)) {
		snprintf(why, wlen, "data came with the handshake");
		err = EPROTO;
		goto out;
	}
	if (setsockopt(fd, SOL_TCP, TCP_ULP, "tls", sizeof("tls")) < 0 ||
	    ktls_set(s, fd, false) < 0 || ktls_set(s, fd, true) < 0) {
		err = errno;
		/*
		 * In TLS 1.3 a server checks the client's certificate after
		 * the client's handshake is done: its refusal is an alert,
		 * then the end of the connection.
		 */
		if (err == ENOTCONN) {
			ret = gnutls_record_recv(s, &byte, 1);
			if (ret == GNUTLS_E_FATAL_ALERT_RECEIVED) {
				what = "after the handshake";
				err = tls_errno(s, p->mode, ret);
				goto fail;
			}
		}
		snprintf(why, wlen, "cannot turn kernel TLS on (%s): is the tls module there?",
			 strerror(err));
		goto out;
	}
	err = 0;
	goto out;

fail:
	if (ret == GNUTLS_E_FATAL_ALERT_RECEIVED)
		snprintf(why, wlen, "%s: the peer sent the alert \"%s\"", what,
			 gnutls_alert_get_name(gnutls_alert_get(s)));
	else if (ret == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR)
		verify_error(s, why, wlen);
	else
		snprintf(why, wlen, "%s: %s", what, gnutls_strerror(ret));
out:
	if (s)
		gnutls_deinit(s);
	if (cert)
		gnutls_certificate_free_credentials(cert);
	if (psks)
		gnutls_psk_free_server_credentials(psks);
	if (pskc)
		gnutls_psk_free_client_credentials(pskc);
	return err;
}

