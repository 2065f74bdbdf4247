// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - TLS handshakes through the userspace agent.
 *
 * A connection with TLS on is made or accepted by the kernel as any other.
 * Its handshake is then done by the agent, "dstadm tlsd", as the kernel's
 * net/handshake (6.4 and later) has tlshd do it: the connection waits in a
 * list and a DST_CMD_TLS_REQUEST goes to the "tls" multicast group; the
 * agent asks for it with DST_CMD_TLS_ACCEPT, which installs the socket as
 * a file descriptor in the agent and tells what to do, does the handshake
 * with GnuTLS, puts the keys into the kernel's TLS layer (TLS_TX, TLS_RX)
 * and says DST_CMD_TLS_DONE.  The connection goes on with dst's own hello
 * inside TLS; the data path never leaves the kernel.
 *
 * The kernel does not trust that the agent did it: a connection without
 * the TLS layer on in both directions is refused.  One whose peer sends
 * anything but data records (an alert, a key update) fails its next
 * receive with -EIO, which ends it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/inet_connection_sock.h>
#include <net/tls.h>

#include "dst.h"

/**
 * struct dst_tls_req - a connection waiting for its handshake
 * @list:	entry in dst_tls_reqs while waited for
 * @id:		what the agent calls it
 * @sock:	the connection, with a file
 * @tls:	what to do
 * @server:	accepted, not connected
 * @peer:	the other end
 * @name:	what the peer's certificate must name, or NULL
 * @deadline:	jiffies when the kernel stops waiting
 * @accepted:	an agent has it
 * @agent:	the netlink port of that agent, the only one that may end it
 * @status:	the agent's result, 0 or a negative errno
 * @done:	completed by DST_CMD_TLS_DONE
 */
struct dst_tls_req {
	struct list_head list;
	u32 id;
	struct socket *sock;
	const struct dst_tls *tls;
	bool server;
	struct sockaddr_storage peer;
	const char *name;
	unsigned long deadline;
	bool accepted;
	u32 agent;
	int status;
	struct completion done;
};

const struct dst_tls_attrs dst_node_tls_attrs = {
	.mode = DST_NODE_A_TLS,
	.cert = DST_NODE_A_TLS_CERT,
	.key = DST_NODE_A_TLS_KEY,
	.ca = DST_NODE_A_TLS_CA,
	.name = DST_NODE_A_TLS_NAME,
	.cipher = DST_NODE_A_TLS_CIPHER,
};

const struct dst_tls_attrs dst_export_tls_attrs = {
	.mode = DST_EXPORT_A_TLS,
	.cert = DST_EXPORT_A_TLS_CERT,
	.key = DST_EXPORT_A_TLS_KEY,
	.ca = DST_EXPORT_A_TLS_CA,
	.cipher = DST_EXPORT_A_TLS_CIPHER,
};

static LIST_HEAD(dst_tls_reqs);
static DEFINE_MUTEX(dst_tls_lock);
static u32 dst_tls_next_id;

/* A copy of @tls for a node or an export; NULL for none. */
struct dst_tls *dst_tls_dup(const struct dst_tls *tls)
{
	struct dst_tls *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	t->mode = tls->mode;
	t->cipher = tls->cipher;
	if (tls->psk) {
		t->psk = kmemdup(tls->psk, tls->psk_len, GFP_KERNEL);
		t->psk_len = tls->psk_len;
		if (!t->psk)
			goto err;
	}
	t->cert = kstrdup(tls->cert, GFP_KERNEL);
	t->key = kstrdup(tls->key, GFP_KERNEL);
	t->ca = kstrdup(tls->ca, GFP_KERNEL);
	t->name = kstrdup(tls->name, GFP_KERNEL);
	if (!t->cert != !tls->cert || !t->key != !tls->key ||
	    !t->ca != !tls->ca || !t->name != !tls->name)
		goto err;
	return t;
err:
	dst_tls_free(t);
	return NULL;
}

void dst_tls_free(struct dst_tls *tls)
{
	if (!tls)
		return;
	kfree_sensitive(tls->psk);
	kfree(tls->cert);
	kfree(tls->key);
	kfree(tls->ca);
	kfree(tls->name);
	kfree(tls);
}

/*
 * Put what @tls is (NULL: nothing) for a status reply, in the attributes
 * @a; the PSK is never sent back.
 */
int dst_tls_fill(struct sk_buff *skb, const struct dst_tls *tls,
		 const struct dst_tls_attrs *a)
{
	if (!tls)
		return 0;
	if (nla_put_u32(skb, a->mode, tls->mode) ||
	    (tls->cert && nla_put_string(skb, a->cert, tls->cert)) ||
	    (tls->key && nla_put_string(skb, a->key, tls->key)) ||
	    (tls->ca && nla_put_string(skb, a->ca, tls->ca)) ||
	    (a->name && tls->name && nla_put_string(skb, a->name, tls->name)) ||
	    (tls->cipher && nla_put_u32(skb, a->cipher, tls->cipher)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Why a receive on a connection with TLS failed, if for TLS: NULL for
 * errors that are not the TLS layer's.
 */
const char *dst_tls_recv_error(int err)
{
	switch (err) {
	case -EBADMSG:
		return "a TLS record did not decrypt (changed on the wire?)";
	case -EIO:
		return "the peer sent a TLS record that is not data (an alert?)";
	default:
		return NULL;
	}
}

/* enum dst_tls_cipher of the kernel TLS layer's @type; 0: none of them. */
static u32 dst_tls_cipher_of(u16 type)
{
	switch (type) {
	case TLS_CIPHER_AES_GCM_128:
		return DST_TLS_CIPHER_AES_128_GCM;
	case TLS_CIPHER_AES_GCM_256:
		return DST_TLS_CIPHER_AES_256_GCM;
	case TLS_CIPHER_CHACHA20_POLY1305:
		return DST_TLS_CIPHER_CHACHA20_POLY1305;
	default:
		return 0;
	}
}

/*
 * The cipher, enum dst_tls_cipher, the kernel's TLS layer runs on @sock
 * in both directions; 0 if it is not on in both, or they differ, or it is
 * none of dst's.
 */
static u32 dst_tls_cipher(struct socket *sock)
{
	struct sock *sk = sock->sk;
	const struct inet_connection_sock *icsk = inet_csk(sk);
	const struct tls_context *ctx;
	u32 cipher = 0;

	lock_sock(sk);
	if (icsk->icsk_ulp_ops && !strcmp(icsk->icsk_ulp_ops->name, "tls")) {
		ctx = tls_get_ctx(sk);
		if (ctx && ctx->tx_conf != TLS_BASE && ctx->rx_conf != TLS_BASE &&
		    ctx->crypto_send.info.cipher_type ==
		    ctx->crypto_recv.info.cipher_type)
			cipher = dst_tls_cipher_of(ctx->crypto_send.info.cipher_type);
	}
	release_sock(sk);
	return cipher;
}

/* Why the agent's handshake failed, for the node's or the client's log. */
static const char *dst_tls_error(int err)
{
	switch (err) {
	case -EACCES:
	case -EKEYREJECTED:
		return "the TLS peer did not authenticate";
	case -EPERM:
		return "the export does not let this host in (refused before TLS)";
	case -ECONNREFUSED:
		return "the export refused the connection before TLS";
	case -ECONNRESET:
	case -ENOTCONN:
	case -EPIPE:
		return "the connection closed in the TLS handshake (does the other end use TLS?)";
	case -ETIMEDOUT:
		return "the TLS handshake took too long";
	case -ENOENT:
		return "the TLS agent cannot read a certificate, key or CA file";
	case -ENOPROTOOPT:
		return "the TLS peers have no cipher in common (--tls-cipher?)";
	case -EPROTO:
		return "the TLS handshake failed (does the other end use TLS?)";
	default:
		return "the TLS handshake failed";
	}
}

/*
 * Have the agent do the TLS handshake on @sock, which has a file (see
 * dst_sock_file()), within @timeout; with X.509 the peer's certificate
 * must name @name, if not NULL.  The cipher TLS runs (enum dst_tls_cipher,
 * > 0) when it is on; else a negative errno and *@why.
 */
int dst_tls_handshake(struct socket *sock, const struct dst_tls *tls,
		      bool server, const struct sockaddr_storage *peer,
		      const char *name, unsigned long timeout, const char **why)
{
	struct dst_tls_req req = {
		.sock = sock,
		.tls = tls,
		.server = server,
		.peer = *peer,
		.name = name,
		.deadline = jiffies + timeout,
	};
	long left;
	u32 cipher;
	int err;

	if (WARN_ON_ONCE(!sock->file))
		return -EINVAL;
	if (!dst_genl_tls_agent()) {
		*why = "no TLS handshake agent runs (dstadm tlsd, the dst-tlsd service)";
		return -ESRCH;
	}
	init_completion(&req.done);
	mutex_lock(&dst_tls_lock);
	req.id = ++dst_tls_next_id;
	list_add_tail(&req.list, &dst_tls_reqs);
	mutex_unlock(&dst_tls_lock);

	dst_genl_tls_request(req.id);
	left = wait_for_completion_killable_timeout(&req.done, timeout);

	mutex_lock(&dst_tls_lock);
	list_del(&req.list);
	err = req.status;
	if (left <= 0 && !completion_done(&req.done))
		err = left < 0 ? -EINTR : req.accepted ? -ETIMEDOUT : -ESRCH;
	mutex_unlock(&dst_tls_lock);

	if (err == -ESRCH) {
		*why = "the TLS handshake agent did not take the connection";
		return err;
	}
	if (err) {
		*why = dst_tls_error(err);
		/* As a refusal in the hello reply: not a missing capability. */
		return err == -EPERM ? -EACCES : err;
	}
	cipher = dst_tls_cipher(sock);
	if (!cipher || (tls->cipher && cipher != tls->cipher)) {
		*why = "the TLS agent did not turn kernel TLS on with the cipher asked for";
		return -EPROTO;
	}
	return cipher;
}

/*
 * DST_CMD_TLS_ACCEPT: fill @skb with the oldest connection no agent has
 * yet, for the agent at netlink port @agent.  The socket's descriptor is
 * only reserved in @g: dst_tls_grant_end() installs it once the reply
 * reached the agent, which then knows it.
 */
int dst_tls_accept(struct sk_buff *skb, u32 agent, struct dst_tls_grant *g)
{
	struct dst_tls_req *req;
	const struct dst_tls *t;
	unsigned long left;
	struct nlattr *nest;
	int fd, err = -ENOENT;

	mutex_lock(&dst_tls_lock);
	list_for_each_entry(req, &dst_tls_reqs, list) {
		if (req->accepted || completion_done(&req->done))
			continue;
		fd = get_unused_fd_flags(O_CLOEXEC);
		if (fd < 0) {
			err = fd;
			break;
		}
		t = req->tls;
		left = time_after(req->deadline, jiffies) ?
		       req->deadline - jiffies : 0;
		nest = nla_nest_start(skb, DST_A_TLS);
		if (!nest ||
		    nla_put_u32(skb, DST_TLS_A_ID, req->id) ||
		    nla_put_s32(skb, DST_TLS_A_FD, fd) ||
		    nla_put_u32(skb, DST_TLS_A_ROLE,
				req->server ? DST_TLS_SERVER : DST_TLS_CLIENT) ||
		    nla_put_u32(skb, DST_TLS_A_MODE, t->mode) ||
		    (t->psk && nla_put(skb, DST_TLS_A_PSK, t->psk_len, t->psk)) ||
		    (t->cert && nla_put_string(skb, DST_TLS_A_CERT, t->cert)) ||
		    (t->key && nla_put_string(skb, DST_TLS_A_KEY, t->key)) ||
		    (t->ca && nla_put_string(skb, DST_TLS_A_CA, t->ca)) ||
		    (req->name && nla_put_string(skb, DST_TLS_A_NAME, req->name)) ||
		    (t->cipher && nla_put_u32(skb, DST_TLS_A_CIPHER, t->cipher)) ||
		    nla_put(skb, DST_TLS_A_PEER,
			    req->peer.ss_family == AF_INET6 ?
			    sizeof(struct sockaddr_in6) :
			    sizeof(struct sockaddr_in), &req->peer) ||
		    nla_put_u32(skb, DST_TLS_A_TIMEOUT,
				jiffies_to_msecs(left))) {
			put_unused_fd(fd);
			err = -EMSGSIZE;
			break;
		}
		nla_nest_end(skb, nest);
		g->id = req->id;
		g->fd = fd;
		g->file = get_file(req->sock->file);
		req->accepted = true;
		req->agent = agent;
		err = 0;
		break;
	}
	mutex_unlock(&dst_tls_lock);
	return err;
}

/*
 * The end of a DST_CMD_TLS_ACCEPT that granted @g: give the agent its
 * descriptor if the reply was @sent, else free it and offer the handshake
 * again.
 */
void dst_tls_grant_end(struct dst_tls_grant *g, bool sent)
{
	struct dst_tls_req *req;

	if (sent) {
		fd_install(g->fd, g->file);
		return;
	}
	put_unused_fd(g->fd);
	fput(g->file);
	mutex_lock(&dst_tls_lock);
	list_for_each_entry(req, &dst_tls_reqs, list) {
		if (req->id == g->id) {
			req->accepted = false;
			break;
		}
	}
	mutex_unlock(&dst_tls_lock);
}

/*
 * DST_CMD_TLS_DONE: the agent's @status (0 or a negative errno) for @id,
 * taken only from the netlink port @agent that accepted it.
 */
int dst_tls_done(u32 id, u32 agent, int status, const char *message)
{
	struct dst_tls_req *req;
	int err = -ENOENT;

	mutex_lock(&dst_tls_lock);
	list_for_each_entry(req, &dst_tls_reqs, list) {
		if (req->id != id)
			continue;
		if (!req->accepted || completion_done(&req->done)) {
			err = -EINVAL;
			break;
		}
		if (req->agent != agent) {
			err = -EPERM;
			break;
		}
		/* The agent's words: escaped, as a peer's. */
		if (status)
			pr_warn("TLS handshake with %pISpc failed: %*pE (%d)\n",
				&req->peer, message ? (int)strlen(message) : 0,
				message, status);
		req->status = status;
		complete(&req->done);
		err = 0;
		break;
	}
	mutex_unlock(&dst_tls_lock);
	return err;
}
