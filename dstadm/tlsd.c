// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm tlsd: the TLS handshake agent.
 *
 * The module makes and accepts its connections itself; those with TLS on
 * wait for this agent, as the kernel's own net/handshake waits for tlshd.
 * The agent listens on the "tls" group, takes each waiting connection
 * with DST_CMD_TLS_ACCEPT (its socket arrives as a file descriptor), does
 * the TLS 1.3 handshake with GnuTLS in a child of its own, so that a slow
 * peer holds up no other, puts the session's keys into the kernel's TLS
 * layer (TLS_TX, TLS_RX) and says DST_CMD_TLS_DONE.  No record is ever
 * sent or read here after the handshake: the data stays in the kernel.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/tls.h>
#include <gnutls/gnutls.h>

#include "dstadm.h"
#include "nl.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif

/* What DST_CMD_TLS_ACCEPT said about a connection. */
struct tls_job {
	uint32_t id;
	int fd;
	uint32_t role;			/* enum dst_tls_role */
	uint32_t mode;			/* enum dst_tls_mode */
	gnutls_datum_t psk;
	const char *cert, *key, *ca, *name;
	char peer[INET6_ADDRSTRLEN + 8];
	uint32_t timeout;		/* ms */
};

/* Ciphers the kernel's TLS layer has, TLS 1.3 only, no tickets. */
#define TLS_PRIORITY "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:" \
	"+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305"
/* With a PSK: with (EC)DHE, for forward secrecy, as NVMe/TCP's. */
#define TLS_PRIORITY_PSK TLS_PRIORITY ":-KX-ALL:+ECDHE-PSK:+DHE-PSK"

static volatile sig_atomic_t stop;

/* Tell systemd (Type=notify) that the agent listens, as sd_notify(3). */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	static const char msg[] = "READY=1";
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    strlen(path) >= sizeof(sun.sun_path))
		return;
	strcpy(sun.sun_path, path);
	/* An abstract socket: its name starts with a NUL, not '@'. */
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, sizeof(msg) - 1, 0, (struct sockaddr *)&sun, len) < 0)
		fprintf(stderr, "%s: tlsd: cannot notify systemd: %s\n", PROG,
			strerror(errno));
	close(fd);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void peer_string(const struct nlattr *attr, char *buf, size_t size)
{
	const struct sockaddr_in6 *sin6 = mnl_attr_get_payload(attr);
	const struct sockaddr_in *sin = mnl_attr_get_payload(attr);
	char host[INET6_ADDRSTRLEN];

	if (mnl_attr_get_payload_len(attr) == sizeof(*sin) &&
	    sin->sin_family == AF_INET &&
	    inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host)))
		snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
	else if (mnl_attr_get_payload_len(attr) == sizeof(*sin6) &&
		 sin6->sin6_family == AF_INET6 &&
		 inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host)))
		snprintf(buf, size, "[%s]:%u", host, ntohs(sin6->sin6_port));
	else
		snprintf(buf, size, "?");
}

static int job_attr(const struct nlattr *attr, struct tls_job *j)
{
	switch (mnl_attr_get_type(attr)) {
	case DST_TLS_A_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -1;
		j->id = mnl_attr_get_u32(attr);
		break;
	case DST_TLS_A_FD:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -1;
		j->fd = (int)mnl_attr_get_u32(attr);
		break;
	case DST_TLS_A_ROLE:
	case DST_TLS_A_MODE:
	case DST_TLS_A_TIMEOUT:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -1;
		*(mnl_attr_get_type(attr) == DST_TLS_A_ROLE ? &j->role :
		  mnl_attr_get_type(attr) == DST_TLS_A_MODE ? &j->mode :
		  &j->timeout) = mnl_attr_get_u32(attr);
		break;
	case DST_TLS_A_PSK:
		j->psk.data = mnl_attr_get_payload(attr);
		j->psk.size = mnl_attr_get_payload_len(attr);
		break;
	case DST_TLS_A_CERT:
	case DST_TLS_A_KEY:
	case DST_TLS_A_CA:
	case DST_TLS_A_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		*(mnl_attr_get_type(attr) == DST_TLS_A_CERT ? &j->cert :
		  mnl_attr_get_type(attr) == DST_TLS_A_KEY ? &j->key :
		  mnl_attr_get_type(attr) == DST_TLS_A_CA ? &j->ca :
		  &j->name) = mnl_attr_get_str(attr);
		break;
	case DST_TLS_A_PEER:
		peer_string(attr, j->peer, sizeof(j->peer));
		break;
	}
	return 0;
}

static int accept_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tls_job *j = data;
	const struct nlattr *attr, *a;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != DST_A_TLS)
			continue;
		mnl_attr_for_each_nested(a, attr)
			if (job_attr(a, j) < 0)
				return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* Tell the module how the handshake of @id ended: 0 or a positive errno. */
static void tls_done(uint32_t id, int status, const char *why)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct dst_nl nl;

	if (dst_nl_open(&nl) < 0)
		return;
	nlh = dst_nl_msg(&nl, DST_CMD_TLS_DONE, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, DST_A_TLS);
	mnl_attr_put_u32(nlh, DST_TLS_A_ID, id);
	mnl_attr_put_u32(nlh, DST_TLS_A_STATUS, (uint32_t)status);
	if (why)
		mnl_attr_put_strz(nlh, DST_TLS_A_MESSAGE, why);
	mnl_attr_nest_end(nlh, nest);
	if (dst_nl_request(&nl, nlh, NULL, NULL) < 0)
		dst_nl_perror(&nl, "handshake %u: tell the module", id);
	dst_nl_close(&nl);
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

/*
 * The handshake of @j; 0 with the kernel's TLS layer on, else a positive
 * errno and why in @why.
 */
static int handshake(const struct tls_job *j, char *why, size_t wlen)
{
	bool server = j->role == DST_TLS_SERVER;
	gnutls_certificate_credentials_t cert = NULL;
	gnutls_psk_server_credentials_t psks = NULL;
	gnutls_psk_client_credentials_t pskc = NULL;
	gnutls_session_t s = NULL;
	int ret, err = EPROTO;
	const char *what;

	ret = gnutls_init(&s, (server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
			  GNUTLS_NO_TICKETS);
	if (ret < 0) {
		what = "set up a session";
		goto fail;
	}
	if (j->mode == DST_TLS_PSK) {
		what = "set up the PSK";
		if (!j->psk.size) {
			ret = GNUTLS_E_INSUFFICIENT_CREDENTIALS;
			goto fail;
		}
		if (server) {
			ret = gnutls_psk_allocate_server_credentials(&psks);
			if (ret < 0)
				goto fail;
			gnutls_session_set_ptr(s, (void *)&j->psk);
			gnutls_psk_set_server_credentials_function(psks, psk_server_cb);
			ret = gnutls_credentials_set(s, GNUTLS_CRD_PSK, psks);
		} else {
			ret = gnutls_psk_allocate_client_credentials(&pskc);
			if (ret < 0)
				goto fail;
			ret = gnutls_psk_set_client_credentials(pskc, DST_TLS_PSK_IDENTITY,
								&j->psk, GNUTLS_PSK_KEY_RAW);
			if (ret >= 0)
				ret = gnutls_credentials_set(s, GNUTLS_CRD_PSK, pskc);
		}
		if (ret >= 0)
			ret = gnutls_priority_set_direct(s, TLS_PRIORITY_PSK, NULL);
		if (ret < 0)
			goto fail;
	} else {
		ret = gnutls_certificate_allocate_credentials(&cert);
		what = "set up the credentials";
		if (ret < 0)
			goto fail;
		if (j->cert && j->key) {
			what = "load the certificate and key";
			ret = gnutls_certificate_set_x509_key_file(cert, j->cert, j->key,
								   GNUTLS_X509_FMT_PEM);
			if (ret < 0) {
				err = ENOENT;
				goto fail;
			}
		}
		if (j->ca) {
			what = "load the CA";
			ret = gnutls_certificate_set_x509_trust_file(cert, j->ca,
								     GNUTLS_X509_FMT_PEM);
			if (ret <= 0) {
				ret = ret ?: GNUTLS_E_NO_CERTIFICATE_FOUND;
				err = ENOENT;
				goto fail;
			}
		}
		what = "set up the session";
		ret = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cert) ?:
		      gnutls_priority_set_direct(s, TLS_PRIORITY, NULL);
		if (ret < 0)
			goto fail;
		if (server && j->ca) {
			/* Clients must show a certificate the CA signed. */
			gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
			gnutls_session_set_verify_cert(s, NULL, 0);
		} else if (!server) {
			gnutls_session_set_verify_cert(s, j->name, 0);
			if (j->name && !strchr(j->name, ':') &&
			    strspn(j->name, "0123456789.") != strlen(j->name))
				gnutls_server_name_set(s, GNUTLS_NAME_DNS, j->name,
						       strlen(j->name));
		}
	}

	gnutls_transport_set_int(s, j->fd);
	gnutls_handshake_set_timeout(s, j->timeout ?: GNUTLS_DEFAULT_HANDSHAKE_TIMEOUT);
	what = "handshake";
	do {
		ret = gnutls_handshake(s);
	} while (ret < 0 && !gnutls_error_is_fatal(ret));
	if (ret < 0) {
		err = tls_errno(s, j->mode, ret);
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
	if (setsockopt(j->fd, SOL_TCP, TCP_ULP, "tls", sizeof("tls")) < 0 ||
	    ktls_set(s, j->fd, false) < 0 || ktls_set(s, j->fd, true) < 0) {
		err = errno;
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

/* In a child: the handshake of @j, then DONE. */
static void run_job(const struct tls_job *j)
{
	char why[256] = "";
	int err;

	err = handshake(j, why, sizeof(why));
	close(j->fd);
	if (err)
		fprintf(stderr, "%s: tlsd: %s with %s: %s\n", PROG,
			j->role == DST_TLS_SERVER ? "client" : "export",
			j->peer, why);
	tls_done(j->id, err, err ? why : NULL);
}

/*
 * Take the waiting connections, each into a child of its own; 0 when
 * none waits any more, -1 on an error of the module's.
 */
static int take_all(struct dst_nl *nl)
{
	struct nlmsghdr *nlh;
	struct tls_job j;
	pid_t pid;

	for (;;) {
		memset(&j, 0, sizeof(j));
		j.fd = -1;
		nlh = dst_nl_msg(nl, DST_CMD_TLS_ACCEPT, NLM_F_ACK);
		if (dst_nl_request(nl, nlh, accept_cb, &j) < 0) {
			if (errno == ENOENT)
				return 0;
			dst_nl_perror(nl, "take a connection");
			return -1;
		}
		if (j.fd < 0 || !j.id) {
			fprintf(stderr, "%s: tlsd: the module sent no socket\n", PROG);
			if (j.fd >= 0)
				close(j.fd);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			run_job(&j);
			explicit_bzero(nl->buf, sizeof(nl->buf));
			_exit(0);
		}
		if (pid < 0) {
			fprintf(stderr, "%s: tlsd: fork: %s\n", PROG, strerror(errno));
			tls_done(j.id, EAGAIN, "the agent cannot fork");
		}
		close(j.fd);
		explicit_bzero(nl->buf, sizeof(nl->buf));
	}
}

int cmd_tlsd(int argc, char *argv[])
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct dst_nl nl, mon;
	struct pollfd pfd;
	int c, ret = EXIT_FAIL;

	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "tlsd")) != -1) {
		if (c == 'h') {
			print_command_help(stdout, find_command("tlsd"));
			return EXIT_OK;
		}
		return bad_option("tlsd", c, argv);
	}
	if (optind < argc)
		return usage_error("tlsd", "unexpected argument '%s'", argv[optind]);

	if (dst_nl_open(&mon) < 0)
		return EXIT_FAIL;
	if (dst_nl_open(&nl) < 0) {
		dst_nl_close(&mon);
		return EXIT_FAIL;
	}
	if (!mon.tls_group) {
		fprintf(stderr, "%s: tlsd: the dst module has no TLS (its version is older)\n",
			PROG);
		goto out;
	}
	if (mnl_socket_setsockopt(mon.sock, NETLINK_ADD_MEMBERSHIP,
				  &mon.tls_group, sizeof(mon.tls_group)) < 0) {
		fprintf(stderr, "%s: tlsd: join the tls group: %s\n", PROG,
			strerror(errno));
		goto out;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Children are not waited for one by one. */
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (gnutls_global_init() < 0) {
		fprintf(stderr, "%s: tlsd: cannot start GnuTLS\n", PROG);
		goto out;
	}
	fprintf(stderr, "%s: tlsd: ready for TLS handshakes\n", PROG);
	notify_ready();

	pfd.fd = mnl_socket_get_fd(mon.sock);
	pfd.events = POLLIN;
	/*
	 * Joined first: a connection that waits before is taken now; one
	 * whose request was lost (a full socket buffer) within a second.
	 */
	while (!stop) {
		if (take_all(&nl) < 0)
			break;
		if (poll(&pfd, 1, 1000) > 0 &&
		    mnl_socket_recvfrom(mon.sock, mon.buf, sizeof(mon.buf)) < 0 &&
		    errno != ENOBUFS && errno != EINTR) {
			fprintf(stderr, "%s: tlsd: %s\n", PROG, strerror(errno));
			break;
		}
	}
	ret = stop ? EXIT_OK : EXIT_FAIL;
	gnutls_global_deinit();
out:
	dst_nl_close(&nl);
	dst_nl_close(&mon);
	return ret;
}
