// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the export server's side of a connection.
 *
 * One receive thread per client reads the hello and then the requests,
 * checks every field before acting, and turns each request into a bio on
 * the export's device.  Bios complete into a list that a work item sends
 * back as replies, in completion order.  A write is acknowledged only
 * after its bio completed.  Anything invalid closes the connection with
 * one rate-limited log line; other clients go on.  A client that vanished
 * is let go after TCP keepalive probes go unanswered.
 *
 * Before the hello is answered, the client must be on the export's allow
 * list and, when the export has a secret, pass the handshake of auth.c.
 * With CRC32C, a request whose header checksum is wrong closes the
 * connection (nothing in it can be trusted); a write whose data checksum
 * is wrong is not written and gets DST_ECRC.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "dst.h"
#include "export.h"

#define DST_SERVER_DEPTH	128	/* requests in flight per client */
#define DST_HELLO_TIMEOUT	(10 * HZ)	/* the whole handshake */
#define DST_CHUNK		SZ_64K	/* largest page of a request's data */
#define DST_PROBE_TIME		(2 * HZ)	/* for a writer to show it is gone */

struct dst_client {
	struct list_head list;
	struct dst_export *exp;
	struct socket *sock;
	struct sockaddr_storage peer;
	struct dst_deadline *hello_deadline;
	u64 session;
	u32 generation;
	u8 proof[DST_CHALLENGE_LEN];	/* of its session, or all zero */
	bool fenced;
	bool ready;
	bool resize;
	bool ping;
	u64 size;
	bool read_only;
	bool auth;
	bool crc;
	u32 tls;			/* enum dst_tls_cipher; 0: no TLS */
	bool handshake;			/* one of exp->handshakes */
	const char *cert_name;		/* in the allow list, or NULL */
	struct task_struct *rx;
	struct work_struct tx_work;
	spinlock_t lock;		/* done */
	struct list_head done;
	atomic_t inflight;
	wait_queue_head_t wait;
};

struct dst_sreq {
	struct list_head list;
	struct dst_client *c;
	struct bio *bio;
	struct bvec_iter data;		/* the bio's data, kept for the reply */
	__be64 *sums;			/* CHECKSUM: the answer */
	u64 handle;
	u32 status;
	u32 length;
	u8 cmd;
};

static struct workqueue_struct *dst_server_wq;

static void dst_free_bio(struct bio *bio)
{
	struct bio_vec *bv;
	int i;

	bio_for_each_bvec_all(bv, bio, i)
		put_page(bv->bv_page);
	bio_put(bio);
}

/* A request of @c is done (or was never started). */
static void dst_client_put(struct dst_client *c)
{
	atomic_dec(&c->inflight);
	wake_up(&c->wait);
}

static void dst_sreq_free(struct dst_sreq *sreq)
{
	struct dst_client *c = sreq->c;

	if (sreq->bio)
		dst_free_bio(sreq->bio);
	kfree(sreq->sums);
	kfree(sreq);
	dst_client_put(c);
}

/*
 * Whether @c's client closed or reset its connection (or this end shut
 * it down).  TCP still hands over what was queued before, but a client
 * that gave up on a connection wants nothing of it executed: it fails
 * or sends again what it did not see answered, maybe in a newer session.
 */
static bool dst_client_dead(struct dst_client *c)
{
	struct sock *sk = c->sock->sk;

	return READ_ONCE(sk->sk_state) != TCP_ESTABLISHED ||
	       READ_ONCE(sk->sk_err);
}

/* Whether no more requests of @c may start. */
static bool dst_client_stopped(struct dst_client *c)
{
	return READ_ONCE(c->fenced) || dst_client_dead(c);
}

/*
 * Queue the reply of @sreq; any context.  The work is queued under the
 * lock: once the tx work has taken @sreq off the list (and may let the
 * client be freed), this function no longer touches the client.
 */
static void dst_sreq_done(struct dst_sreq *sreq)
{
	struct dst_client *c = sreq->c;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	list_add_tail(&sreq->list, &c->done);
	queue_work(dst_server_wq, &c->tx_work);
	spin_unlock_irqrestore(&c->lock, flags);
}

static void dst_sreq_endio(struct bio *bio)
{
	struct dst_sreq *sreq = bio->bi_private;

	sreq->status = dst_errno_to_status(blk_status_to_errno(bio->bi_status));
	dst_sreq_done(sreq);
}

/* Tell the client the export's new size; @more: a reply follows at once. */
static int dst_send_size(struct dst_client *c, u64 size, bool more)
{
	__be64 data = cpu_to_be64(size);
	struct dst_reply rep = {
		.magic = cpu_to_be32(DST_REP_MAGIC),
		.version = DST_PROTO_VERSION,
		.cmd = DST_NOTE_SIZE,
		.length = cpu_to_be32(sizeof(data)),
	};

	if (c->crc) {
		rep.data_crc = cpu_to_be32(dst_crc_buf(&data, sizeof(data)));
		rep.hdr_crc = cpu_to_be32(dst_crc_hdr(&rep, sizeof(rep),
						      &rep.hdr_crc));
	}
	return dst_sock_send(c->sock, &rep, sizeof(rep), true) ?:
	       dst_sock_send(c->sock, &data, sizeof(data), more);
}

/* The reply of a CHECKSUM that read its range: the sums of its blocks. */
static int dst_send_sums(struct dst_client *c, struct dst_sreq *sreq,
			 struct dst_reply *rep, bool more)
{
	u32 len = dst_csum_count(sreq->length) * DST_CSUM_SIZE;

	dst_digest_bio(sreq->bio, sreq->data, sreq->sums);
	rep->length = cpu_to_be32(len);
	if (c->crc) {
		rep->data_crc = cpu_to_be32(dst_crc_buf(sreq->sums, len));
		rep->hdr_crc = cpu_to_be32(dst_crc_hdr(rep, sizeof(*rep),
						       &rep->hdr_crc));
	}
	return dst_sock_send(c->sock, rep, sizeof(*rep), true) ?:
	       dst_sock_send(c->sock, sreq->sums, len, more);
}

/* Send the reply of @sreq; @more: another reply follows at once. */
static int dst_send_reply(struct dst_client *c, struct dst_sreq *sreq,
			  bool more)
{
	bool data = sreq->cmd == DST_REQ_READ && sreq->status == DST_OK;
	struct dst_reply rep = {
		.magic = cpu_to_be32(DST_REP_MAGIC),
		.version = DST_PROTO_VERSION,
		.cmd = sreq->cmd,
		.status = cpu_to_be32(sreq->status),
		.length = cpu_to_be32(data ? sreq->length : 0),
		.handle = cpu_to_be64(sreq->handle),
	};
	int err;

	if (sreq->cmd == DST_REQ_CHECKSUM && sreq->status == DST_OK)
		return dst_send_sums(c, sreq, &rep, more);

	/* Completion has advanced the bio: send what it read. */
	if (data)
		sreq->bio->bi_iter = sreq->data;
	if (c->crc) {
		if (data)
			rep.data_crc = cpu_to_be32(dst_crc_bio(sreq->bio,
							       sreq->data));
		rep.hdr_crc = cpu_to_be32(dst_crc_hdr(&rep, sizeof(rep),
						      &rep.hdr_crc));
	}
	err = dst_sock_send(c->sock, &rep, sizeof(rep), data || more);
	if (!err && data)
		err = dst_sock_send_bio(c->sock, sreq->bio, true, more);
	return err;
}

static void dst_client_tx(struct work_struct *work)
{
	struct dst_client *c = container_of(work, struct dst_client, tx_work);
	struct dst_sreq *sreq;
	unsigned long flags;
	LIST_HEAD(batch);
	u64 size;

	spin_lock_irqsave(&c->lock, flags);
	list_splice_init(&c->done, &batch);
	spin_unlock_irqrestore(&c->lock, flags);

	/* The export grew since the client was told its size, or it is probed. */
	size = READ_ONCE(c->exp->size);
	if (c->resize && READ_ONCE(c->ready) &&
	    (size != c->size || READ_ONCE(c->ping))) {
		WRITE_ONCE(c->ping, false);
		c->size = size;
		if (dst_send_size(c, size, !list_empty(&batch)))
			kernel_sock_shutdown(c->sock, SHUT_RDWR);
	}

	while (!list_empty(&batch)) {
		sreq = list_first_entry(&batch, struct dst_sreq, list);
		list_del(&sreq->list);
		if (dst_send_reply(c, sreq, !list_empty(&batch)))
			kernel_sock_shutdown(c->sock, SHUT_RDWR);
		dst_sreq_free(sreq);
	}
}

static void dst_client_refuse(struct dst_client *c, const char *why)
{
	if (c->hello_deadline && READ_ONCE(c->hello_deadline->expired))
		why = "no complete handshake in time";
	atomic64_inc(&c->exp->refused);
	pr_warn_ratelimited("export %s: client %pISpc: %s, closing the connection\n",
			    c->exp->name, &c->peer, why);
}

/* Check every field of a request header; NULL or what is wrong. */
static const char *dst_check_request(struct dst_client *c,
				     struct dst_request *req)
{
	struct dst_export *exp = c->exp;
	u64 off = be64_to_cpu(req->offset);
	u32 len = be32_to_cpu(req->length);
	u16 flags = be16_to_cpu(req->flags);

	if (c->crc && be32_to_cpu(req->hdr_crc) !=
		      dst_crc_hdr(req, sizeof(*req), &req->hdr_crc)) {
		atomic64_inc(&exp->crc_errors);
		return "request header checksum mismatch";
	}
	if (be32_to_cpu(req->magic) != DST_REQ_MAGIC)
		return "bad request magic";
	if (req->version != DST_PROTO_VERSION)
		return "bad protocol version in a request";
	if (req->reserved || (!c->crc && (req->hdr_crc || req->data_crc)))
		return "reserved field not zero";
	if (req->data_crc && req->cmd != DST_REQ_WRITE)
		return "data checksum on a request without data";
	if (flags & ~(DST_REQ_FUA | DST_REQ_PREFLUSH))
		return "unknown request flags";
	if (flags && req->cmd != DST_REQ_WRITE)
		return "flags on a request that takes none";

	switch (req->cmd) {
	case DST_REQ_FLUSH:
	case DST_REQ_DISCONNECT:
		return off || len ? "offset or length on a flush or disconnect" : NULL;
	case DST_REQ_READ:
	case DST_REQ_WRITE:
	case DST_REQ_CHECKSUM:
		if (len > exp->max_request)
			return "length beyond the request limit";
		fallthrough;
	case DST_REQ_DISCARD:
	case DST_REQ_WRITE_ZEROES:
		break;
	default:
		return "unknown command";
	}
	if (!len)
		return "zero length";
	if ((off | len) & (exp->logical_block_size - 1))
		return "offset or length not aligned to the block size";
	if (off > U64_MAX - len)
		return "offset + length overflows";
	if (off + len > READ_ONCE(exp->size))
		return "beyond the end of the export";
	return NULL;
}

/*
 * A bio for @len bytes of data in pages of its own: compound pages of up to
 * DST_CHUNK bytes where memory allows, so that few segments move the data.
 */
static struct bio *dst_alloc_data_bio(struct dst_export *exp, u32 len,
				      blk_opf_t opf)
{
	unsigned int order = get_order(min_t(u32, len, DST_CHUNK)), n;
	struct page *page;
	struct bio *bio;

	bio = bio_alloc(exp->bdev, DIV_ROUND_UP(len, PAGE_SIZE), opf, GFP_NOIO);
	while (len) {
		page = NULL;
		while (order && !page) {
			page = alloc_pages(GFP_NOIO | __GFP_COMP | __GFP_NOWARN |
					   __GFP_NORETRY, order);
			if (!page)
				order--;
		}
		if (!page)
			page = alloc_page(GFP_NOIO);
		if (!page)
			goto err;
		n = min_t(u32, len, PAGE_SIZE << order);
		__bio_add_page(bio, page, n, 0);
		len -= n;
	}
	return bio;
err:
	dst_free_bio(bio);
	return NULL;
}

static blk_opf_t dst_request_opf(struct dst_export *exp,
				 const struct dst_request *req)
{
	u16 flags = be16_to_cpu(req->flags);
	blk_opf_t opf = 0;

	switch (req->cmd) {
	case DST_REQ_READ:
	case DST_REQ_CHECKSUM:
		return REQ_OP_READ;
	case DST_REQ_WRITE:
		if (flags & DST_REQ_FUA)
			opf |= REQ_FUA;
		if (flags & DST_REQ_PREFLUSH)
			opf |= REQ_PREFLUSH;
		return REQ_OP_WRITE | opf;
	case DST_REQ_FLUSH:
		return REQ_OP_WRITE | REQ_PREFLUSH;
	case DST_REQ_DISCARD:
		return REQ_OP_DISCARD;
	default:
		return REQ_OP_WRITE_ZEROES;
	}
}

/*
 * Act on a valid request, counted in @c->inflight by the caller.  Returns
 * a negative errno when the connection cannot go on (the write data could
 * not be read, or the client gave up on the connection meanwhile).
 */
static int dst_client_handle(struct dst_client *c, const struct dst_request *req)
{
	struct dst_export *exp = c->exp;
	u32 len = be32_to_cpu(req->length);
	struct dst_sreq *sreq;
	struct bio *bio;
	int err;

	sreq = kzalloc(sizeof(*sreq), GFP_NOIO);
	if (!sreq) {
		dst_client_put(c);
		return -ENOMEM;
	}
	sreq->c = c;
	sreq->cmd = req->cmd;
	sreq->handle = be64_to_cpu(req->handle);
	sreq->length = len;

	if (req->cmd == DST_REQ_CHECKSUM) {
		sreq->sums = kmalloc_array(dst_csum_count(len), DST_CSUM_SIZE,
					   GFP_NOIO);
		if (!sreq->sums) {
			dst_sreq_free(sreq);
			return -ENOMEM;
		}
	}
	if (req->cmd == DST_REQ_READ || req->cmd == DST_REQ_WRITE ||
	    req->cmd == DST_REQ_CHECKSUM)
		bio = dst_alloc_data_bio(exp, len, dst_request_opf(exp, req));
	else
		bio = bio_alloc(exp->bdev, 0, dst_request_opf(exp, req), GFP_NOIO);
	if (!bio) {
		dst_sreq_free(sreq);
		return -ENOMEM;
	}
	sreq->bio = bio;

	if (req->cmd == DST_REQ_WRITE) {
		err = dst_sock_recv_bio(c->sock, bio);
		if (err) {
			dst_sreq_free(sreq);
			return err;
		}
		if (c->crc && be32_to_cpu(req->data_crc) !=
			      dst_crc_bio(bio, bio->bi_iter)) {
			atomic64_inc(&exp->crc_errors);
			pr_warn_ratelimited("export %s: client %pISpc: write data checksum mismatch, not written\n",
					    exp->name, &c->peer);
			sreq->status = DST_ECRC;
			dst_sreq_done(sreq);
			return 0;
		}
	}

	if ((c->read_only && req->cmd != DST_REQ_READ &&
	     req->cmd != DST_REQ_FLUSH && req->cmd != DST_REQ_CHECKSUM) ||
	    (req->cmd == DST_REQ_DISCARD && !(exp->features & DST_FEAT_DISCARD)) ||
	    (req->cmd == DST_REQ_WRITE_ZEROES &&
	     !(exp->features & DST_FEAT_WRITE_ZEROES))) {
		sreq->status = c->read_only ? DST_EROFS : DST_EOPNOTSUPP;
		dst_sreq_done(sreq);
		return 0;
	}

	/* Its data may have taken long: the client may have given up. */
	if (dst_client_stopped(c)) {
		dst_sreq_free(sreq);
		return -ECONNRESET;
	}
	bio->bi_iter.bi_sector = be64_to_cpu(req->offset) >> SECTOR_SHIFT;
	if (req->cmd == DST_REQ_DISCARD || req->cmd == DST_REQ_WRITE_ZEROES)
		bio->bi_iter.bi_size = len;
	bio->bi_private = sreq;
	bio->bi_end_io = dst_sreq_endio;
	sreq->data = bio->bi_iter;
	submit_bio(bio);
	return 0;
}

/* Send a hello reply that refuses the client with @status and @reason. */
static void dst_client_deny(struct dst_client *c, u16 status,
			    const char *reason)
{
	struct dst_hello_reply rep = {
		.magic = cpu_to_be32(DST_HELLO_MAGIC),
		.version = cpu_to_be16(DST_PROTO_VERSION),
		.error = cpu_to_be16(status),
	};

	strscpy(rep.reason, reason, sizeof(rep.reason));
	dst_sock_send(c->sock, &rep, sizeof(rep), false);
}

/* A client not on the allow list: told so, counted, logged. */
static void dst_client_denied(struct dst_client *c)
{
	atomic64_inc(&c->exp->denied);
	pr_warn_ratelimited("export %s: client %pISpc is not on the allow list, closing the connection\n",
			    c->exp->name, &c->peer);
	c->sock->sk->sk_sndtimeo = 0;
	dst_client_deny(c, DST_EPERM, "not on the export's allow list");
}

/* The handshake with the secret; false when the client failed it. */
static bool dst_client_auth(struct dst_client *c, const struct dst_hello *hello)
{
	struct dst_export *exp = c->exp;
	struct dst_auth a = {
		.magic = cpu_to_be32(DST_AUTH_MAGIC),
		.version = cpu_to_be16(DST_PROTO_VERSION),
	};
	u8 schal[DST_CHALLENGE_LEN];
	const char *why;

	dst_auth_challenge(schal);
	memcpy(a.challenge, schal, sizeof(schal));
	if (dst_auth_response(exp->auth, true, hello->challenge, schal,
			      a.response) ||
	    dst_sock_send(c->sock, &a, sizeof(a), false)) {
		why = "handshake failed";
		goto refuse;
	}
	if (dst_sock_recv(c->sock, &a, sizeof(a))) {
		why = "no answer to the challenge";
		goto refuse;
	}
	if (be32_to_cpu(a.magic) != DST_AUTH_MAGIC ||
	    be16_to_cpu(a.version) != DST_PROTO_VERSION || a.reserved ||
	    !dst_auth_check(exp->auth, false, hello->challenge, schal,
			    a.response)) {
		why = "wrong answer to the challenge";
		dst_client_deny(c, DST_EPERM, "authentication failed");
		goto refuse;
	}
	memcpy(c->proof, a.challenge, sizeof(c->proof));
	return true;
refuse:
	atomic64_inc(&exp->auth_failed);
	pr_warn_ratelimited("export %s: client %pISpc: %s, closing the connection\n",
			    exp->name, &c->peer, why);
	return false;
}

/* Whether @a and @b are connections of one host (any port). */
static bool dst_client_same_host(const struct dst_client *a,
				 const struct dst_client *b)
{
	const struct sockaddr_in6 *a6 = (const void *)&a->peer;
	const struct sockaddr_in6 *b6 = (const void *)&b->peer;
	const struct sockaddr_in *a4 = (const void *)&a->peer;
	const struct sockaddr_in *b4 = (const void *)&b->peer;

	if (a->peer.ss_family != b->peer.ss_family)
		return false;
	if (a->peer.ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
	       a6->sin6_scope_id == b6->sin6_scope_id;
}

/*
 * Whether @o must be gone before @c is answered; lock held.  An older
 * connection of @c's session: its client gave up on it.  A connection of
 * another session that is fenced, or that its client closed or reset:
 * what it still holds must not reach the device after what @c sends.
 * Unless the export is shared, the sessions that write to it are one
 * writer after another, whichever host: any such connection; on a shared
 * export, where other hosts' connections are their own affair, only
 * those of @c's host (a restarted node of a cluster).
 */
static bool dst_client_fences(struct dst_client *c, struct dst_client *o)
{
	lockdep_assert_held(&c->exp->lock);

	if (o == c || !o->session)
		return false;
	if (o->session == c->session)
		return o->generation < c->generation;
	if (c->exp->shared && !dst_client_same_host(c, o))
		return false;
	return o->fenced || dst_client_dead(o);
}

/*
 * Whether a connection that @c waits for is still there; those not
 * fenced yet are fenced now (one that @c found alive may have died
 * since, maybe while waiting for its own elders).  @why: set when a
 * newer connection of @c's session is open.
 */
static bool dst_client_waits(struct dst_client *c, const char **why)
{
	struct dst_export *exp = c->exp;
	bool waits = false, fenced = false;
	struct dst_client *o;

	mutex_lock(&exp->lock);
	list_for_each_entry(o, &exp->clients, list) {
		if (o != c && o->session == c->session &&
		    o->generation >= c->generation) {
			*why = "a newer connection of this client is open";
			break;
		}
		if (!dst_client_fences(c, o))
			continue;
		waits = true;
		if (!o->fenced) {
			WRITE_ONCE(o->fenced, true);
			kernel_sock_shutdown(o->sock, SHUT_RDWR);
			fenced = true;
		}
	}
	mutex_unlock(&exp->lock);
	/* One of them may be waiting to fence its own elders. */
	if (fenced)
		wake_up(&exp->wait);
	return waits;
}

/*
 * The client of another session that may write to @c's export while @c
 * would, if any; lock held.
 */
static struct dst_client *dst_client_writer(struct dst_client *c, u64 session)
{
	struct dst_export *exp = c->exp;
	struct dst_client *o;

	lockdep_assert_held(&exp->lock);

	list_for_each_entry(o, &exp->clients, list)
		if (!exp->shared && !c->read_only && !o->read_only &&
		    o->session && o->session != session && !o->fenced &&
		    !dst_client_dead(o))
			return o;
	return NULL;
}

/*
 * Whether @c, claiming @session at @generation, shows the proof of that
 * session (uapi DST_SESSION_SPAN): its proof leads to the one of the
 * session's newest older connection that showed one; lock held.  The
 * session id alone is no proof: a client that saw it could otherwise
 * fence that session's connections and write as that session.
 */
static bool dst_client_proves(struct dst_client *c, u64 session,
			      u32 generation)
{
	struct dst_client *o, *elder = NULL;

	lockdep_assert_held(&c->exp->lock);

	list_for_each_entry(o, &c->exp->clients, list)
		if (o != c && o->session == session &&
		    o->generation < generation &&
		    memchr_inv(o->proof, 0, sizeof(o->proof)) &&
		    (!elder || o->generation > elder->generation))
			elder = o;
	return !elder ||
	       dst_session_proves(c->proof, generation - elder->generation,
				  elder->proof);
}

/*
 * Put @c in its session, if it proves it.  One writer at a time: unless
 * the export is shared, a client that may write is refused while a client
 * of another session may write, so that two hosts never write to the
 * device unknown to each other (two mirrors with one leg would diverge
 * silently).  A connection that is not answered yet counts, so two
 * newcomers cannot both pass; one its client closed or reset (a leg just
 * removed) does not: it is fenced and waited for (dst_client_fence()).
 * 0, or the status of the refusal with @reason.
 */
static u16 dst_client_join(struct dst_client *c, u64 session, u32 generation,
			   char *reason)
{
	struct dst_export *exp = c->exp;
	struct dst_client *writer;
	unsigned int clients;

	mutex_lock(&exp->lock);
	if (!dst_client_proves(c, session, generation)) {
		mutex_unlock(&exp->lock);
		atomic64_inc(&exp->auth_failed);
		pr_warn_ratelimited("export %s: client %pISpc: wrong proof of its session, closing the connection\n",
				    exp->name, &c->peer);
		strscpy(reason, "wrong proof of the session", DST_REASON_LEN);
		return DST_EPERM;
	}
	writer = dst_client_writer(c, session);
	/*
	 * The writer's host may have restarted, its connection here not
	 * closed yet (keepalive takes about 50 s): anything sent on it
	 * then draws a reset.  It is sent its size again, which a live
	 * client takes as nothing new, and given a moment to go.
	 */
	if (writer && writer->ready && writer->resize) {
		WRITE_ONCE(writer->ping, true);
		queue_work(dst_server_wq, &writer->tx_work);
		clients = exp->nr_clients;
		mutex_unlock(&exp->lock);
		wait_event_timeout(exp->wait,
				   READ_ONCE(exp->nr_clients) != clients,
				   DST_PROBE_TIME);
		mutex_lock(&exp->lock);
		writer = dst_client_writer(c, session);
	}
	if (writer) {
		snprintf(reason, DST_REASON_LEN, "in use by %pISpc",
			 &writer->peer);
		pr_warn_ratelimited("export %s: client %pISpc: refused, %pISpc writes to it (not shared)\n",
				    exp->name, &c->peer, &writer->peer);
	} else {
		c->session = session;
		c->generation = generation;
	}
	mutex_unlock(&exp->lock);
	return writer ? DST_EBUSY : 0;
}

/*
 * Before @c is answered, the connections it must not overtake are fenced
 * (dst_client_fences()): the older ones of its session (a client that
 * connected again gave up on them) and those of other sessions that their
 * clients closed or reset (a leg removed and added again, a storage made
 * again, a host restarted).  Each stops reading requests (what it had not
 * started is dropped) and is gone once the requests it started are done,
 * so that none of them can reach the device after what the client sends
 * from now on (it sends again what it did not see answered).  NULL, or
 * why this connection is refused.
 */
static const char *dst_client_fence(struct dst_client *c)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	long timeout = DST_HELLO_TIMEOUT;
	struct dst_export *exp = c->exp;
	const char *why = NULL;

	/* wait_woken(): the check takes a mutex, so it runs awake. */
	add_wait_queue(&exp->wait, &wait);
	for (;;) {
		if (READ_ONCE(c->fenced)) {
			why = "a newer connection of this client is open";
			break;
		}
		/* Its client gave up on it too: none waits for it then. */
		if (dst_client_dead(c)) {
			why = "connection closed during the handshake";
			break;
		}
		if (!dst_client_waits(c, &why) || why)
			break;
		if (!timeout) {
			why = "an older connection is still busy";
			break;
		}
		timeout = wait_woken(&wait, TASK_UNINTERRUPTIBLE, timeout);
	}
	remove_wait_queue(&exp->wait, &wait);
	return why;
}

/*
 * Read the hello, check the client against the secret and the integrity
 * the export wants, and answer; nonzero to close.
 */
static int dst_client_hello(struct dst_client *c)
{
	struct dst_export *exp = c->exp;
	struct dst_hello_reply rep = {
		.magic = cpu_to_be32(DST_HELLO_MAGIC),
		.version = cpu_to_be16(DST_PROTO_VERSION),
	};
	struct dst_hello hello;
	const char *deny = NULL;
	u64 features;
	u16 flags;
	int err;

	err = dst_sock_recv(c->sock, &hello, DST_HELLO_COMMON_LEN);
	if (err) {
		dst_client_refuse(c, err == -EAGAIN ? "no hello in time" :
				  "connection closed before a complete hello");
		return err;
	}
	if (be32_to_cpu(hello.magic) != DST_HELLO_MAGIC) {
		/* A TLS handshake record: its type, then version 3.x. */
		const u8 *rec = (const u8 *)&hello;

		dst_client_refuse(c, rec[0] == 0x16 && rec[1] == 3 ?
				  "the client uses TLS, this export does not" :
				  "bad hello magic");
		return -EPROTO;
	}
	if (be16_to_cpu(hello.version) != DST_PROTO_VERSION) {
		pr_warn_ratelimited("export %s: client %pISpc speaks protocol version %u, this server %u\n",
				    exp->name, &c->peer,
				    be16_to_cpu(hello.version),
				    DST_PROTO_VERSION);
		atomic64_inc(&exp->refused);
		rep.error = cpu_to_be16(DST_EVERSION);
		snprintf(rep.reason, sizeof(rep.reason),
			 "protocol version %u not supported, server speaks %u",
			 be16_to_cpu(hello.version), DST_PROTO_VERSION);
		dst_sock_send(c->sock, &rep, sizeof(rep), false);
		return -EPROTONOSUPPORT;
	}
	err = dst_sock_recv(c->sock, (u8 *)&hello + DST_HELLO_COMMON_LEN,
			    sizeof(hello) - DST_HELLO_COMMON_LEN);
	if (err) {
		dst_client_refuse(c, "connection closed before a complete hello");
		return err;
	}
	if (!hello.session || !hello.generation || hello.reserved) {
		dst_client_refuse(c, "bad session in the hello");
		return -EPROTO;
	}
	flags = be16_to_cpu(hello.flags);
	features = be64_to_cpu(hello.features);
	if (flags & ~DST_HELLO_AUTH) {
		dst_client_refuse(c, "unknown hello flags");
		return -EPROTO;
	}
	if (exp->auth && !(flags & DST_HELLO_AUTH))
		deny = "this export needs a secret";
	else if (!exp->auth && (flags & DST_HELLO_AUTH))
		deny = "this export has no secret";
	else if (exp->integrity && !(features & DST_FEAT_CRC32C))
		deny = "this export needs crc32c integrity";
	if (deny) {
		atomic64_inc(&exp->auth_failed);
		pr_warn_ratelimited("export %s: client %pISpc: %s, closing the connection\n",
				    exp->name, &c->peer, deny);
		dst_client_deny(c, DST_EPERM, deny);
		return -EPERM;
	}
	if (exp->auth && !dst_client_auth(c, &hello))
		return -EPERM;
	err = dst_client_join(c, be64_to_cpu(hello.session),
			      be32_to_cpu(hello.generation), rep.reason);
	if (err) {
		rep.error = cpu_to_be16(err);
		dst_sock_send(c->sock, &rep, sizeof(rep), false);
		return err == DST_EPERM ? -EPERM : -EBUSY;
	}
	deny = dst_client_fence(c);
	if (deny) {
		dst_client_refuse(c, deny);
		dst_client_deny(c, DST_EINVAL, deny);
		return -EBUSY;
	}
	c->auth = exp->auth;
	c->crc = features & DST_FEAT_CRC32C;
	c->resize = features & DST_FEAT_RESIZE;
	c->size = READ_ONCE(exp->size);

	rep.size = cpu_to_be64(c->size);
	rep.logical_block_size = cpu_to_be32(exp->logical_block_size);
	rep.physical_block_size = cpu_to_be32(exp->physical_block_size);
	rep.max_request = cpu_to_be32(exp->max_request);
	rep.flags = cpu_to_be32((c->read_only ? DST_EXPORT_READ_ONLY : 0) |
				(c->auth ? DST_EXPORT_AUTH : 0));
	rep.features = cpu_to_be64(features &
				   (exp->features | DST_FEAT_CRC32C));
	rep.instance = cpu_to_be64(exp->instance);
	return dst_sock_send(c->sock, &rep, sizeof(rep), false);
}

/*
 * The TLS handshake, through the agent.  A client that sends a dst hello
 * in plaintext is told, in plaintext, that TLS is needed.
 */
static int dst_client_tls(struct dst_client *c)
{
	struct dst_export *exp = c->exp;
	struct msghdr msg = {};
	const char *why;
	__be32 magic;
	struct kvec vec = { .iov_base = &magic, .iov_len = sizeof(magic) };
	int err;

	err = kernel_recvmsg(c->sock, &msg, &vec, 1, sizeof(magic),
			     MSG_PEEK | MSG_WAITALL);
	if (err != sizeof(magic)) {
		dst_client_refuse(c, "connection closed before a TLS handshake");
		return err < 0 ? err : -ENOTCONN;
	}
	if (be32_to_cpu(magic) == DST_HELLO_MAGIC) {
		atomic64_inc(&exp->auth_failed);
		pr_warn_ratelimited("export %s: client %pISpc does not use TLS, which this export needs, closing the connection\n",
				    exp->name, &c->peer);
		dst_client_deny(c, DST_ETLS, "this export needs TLS");
		return -EPERM;
	}
	err = dst_tls_handshake(c->sock, exp->tls, true, &c->peer,
				c->cert_name, DST_HELLO_TIMEOUT, &why);
	if (err < 0) {
		atomic64_inc(&exp->auth_failed);
		pr_warn_ratelimited("export %s: client %pISpc: %s, closing the connection\n",
				    exp->name, &c->peer, why);
		return err;
	}
	c->tls = err;
	return 0;
}

static void dst_client_serve(struct dst_client *c)
{
	struct dst_export *exp = c->exp;
	struct dst_deadline hello_deadline;
	struct dst_request req;
	const char *why;
	int err;

	dst_deadline_start(&hello_deadline, c->sock, DST_HELLO_TIMEOUT);
	c->hello_deadline = &hello_deadline;
	err = exp->tls ? dst_client_tls(c) : 0;
	if (!err) {
		dst_sock_lockdep(c->sock);
		err = dst_client_hello(c);
	}
	if (dst_deadline_end(&hello_deadline) && !err)
		err = -ETIMEDOUT;
	c->hello_deadline = NULL;
	mutex_lock(&exp->lock);
	exp->handshakes--;
	c->handshake = false;
	/* It may have grown since the hello reply said its size. */
	c->ready = !err;
	if (c->ready && c->resize && c->size != exp->size)
		queue_work(dst_server_wq, &c->tx_work);
	mutex_unlock(&exp->lock);
	wake_up(&exp->wait);
	if (err)
		return;
	c->sock->sk->sk_rcvtimeo = MAX_SCHEDULE_TIMEOUT;

	for (;;) {
		err = dst_sock_recv(c->sock, &req, sizeof(req));
		if (err == -EPIPE) {
			dst_client_refuse(c, "truncated request");
			return;
		}
		if (err) {
			why = c->tls ? dst_tls_recv_error(err) : NULL;
			if (why)
				dst_client_refuse(c, why);
			return;
		}
		why = dst_check_request(c, &req);
		if (why) {
			dst_client_refuse(c, why);
			return;
		}
		if (req.cmd == DST_REQ_DISCONNECT)
			return;

		wait_event(c->wait,
			   atomic_read(&c->inflight) < DST_SERVER_DEPTH);
		/*
		 * Fenced: a newer connection took over.  Dead: the client
		 * closed or reset it and wants nothing still queued on it
		 * done.  Checked again before the bio is submitted (write
		 * data may take long to come); a newcomer that finds this
		 * connection dead fences it and waits for it to be gone
		 * (dst_client_fence()).  The request counts from here on.
		 */
		atomic_inc(&c->inflight);
		if (dst_client_stopped(c)) {
			dst_client_put(c);
			return;
		}
		err = dst_client_handle(c, &req);
		if (err) {
			why = c->tls ? dst_tls_recv_error(err) : NULL;
			if (err == -EPIPE)
				dst_client_refuse(c, "truncated write data");
			else if (why)
				dst_client_refuse(c, why);
			else if (err != -ENOTCONN && err != -ECONNRESET)
				pr_warn_ratelimited("export %s: client %pISpc: request failed (%d), closing the connection\n",
						    c->exp->name, &c->peer, err);
			return;
		}
	}
}

static int dst_client_rx(void *data)
{
	struct dst_client *c = data;
	struct dst_export *exp = c->exp;
	unsigned int noio = memalloc_noio_save();

	dst_client_serve(c);

	kernel_sock_shutdown(c->sock, SHUT_RDWR);
	/* No size notice queues the tx work from now on. */
	mutex_lock(&exp->lock);
	c->ready = false;
	mutex_unlock(&exp->lock);
	wait_event(c->wait, !atomic_read(&c->inflight));
	flush_work(&c->tx_work);
	memalloc_noio_restore(noio);

	mutex_lock(&exp->lock);
	list_del(&c->list);
	exp->nr_clients--;
	mutex_unlock(&exp->lock);
	wake_up(&exp->wait);

	pr_debug("export %s: client %pISpc gone\n", exp->name, &c->peer);
	dst_sock_release(c->sock);
	kfree(c);
	/* The last touch of @exp: dst_export_destroy() may free it now. */
	if (atomic_dec_and_test(&exp->threads))
		complete(&exp->gone);
	module_put_and_kthread_exit(0);
}

static bool dst_same_host(const struct sockaddr_storage *a,
			  const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
}

/*
 * Whether @c's address has its share of the handshakes already while
 * they are scarce: once half of DST_MAX_HANDSHAKES are taken, an address
 * with DST_HOST_HANDSHAKES of them gets no more, so that one host cannot
 * take them all from the others.  Lock held.
 */
static bool dst_client_crowded(struct dst_client *c)
{
	struct dst_export *exp = c->exp;
	unsigned int n = 0;
	struct dst_client *o;

	lockdep_assert_held(&exp->lock);

	if (exp->handshakes < DST_MAX_HANDSHAKES / 2)
		return false;
	list_for_each_entry(o, &exp->clients, list)
		n += o->handshake && dst_same_host(&o->peer, &c->peer);
	return n >= DST_HOST_HANDSHAKES;
}

/* Serve a newly accepted connection; takes over @sock. */
void dst_client_start(struct dst_export *exp, struct socket *sock)
{
	struct dst_client *c;
	struct task_struct *rx;
	int len;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		goto err_sock;
	c->exp = exp;
	c->sock = sock;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->done);
	INIT_WORK(&c->tx_work, dst_client_tx);
	atomic_set(&c->inflight, 0);
	init_waitqueue_head(&c->wait);
	len = kernel_getpeername(sock, (struct sockaddr *)&c->peer);
	if (len < 0)
		goto err_free;
	/*
	 * Before any thread, byte read or TLS handshake: a peer not let in
	 * costs nothing.  With TLS too, the refusal goes in the clear; the
	 * client's agent tells it from a TLS record.  An entry that names a
	 * certificate is checked in the handshake.
	 */
	if (!dst_access_check(exp->acl, &c->peer, &c->read_only,
			      &c->cert_name)) {
		dst_client_denied(c);
		goto err_free;
	}
	c->read_only |= exp->read_only;
	dst_sock_setup(sock, false, 0);
	sock->sk->sk_rcvtimeo = DST_HELLO_TIMEOUT;

	mutex_lock(&exp->lock);
	if (exp->closing) {
		mutex_unlock(&exp->lock);
		goto err_free;
	}
	if (dst_client_crowded(c)) {
		mutex_unlock(&exp->lock);
		atomic64_inc(&exp->refused);
		pr_warn_ratelimited("export %s: client %pISpc: too many handshakes from its address at once, closing the connection\n",
				    exp->name, &c->peer);
		goto err_free;
	}

	__module_get(THIS_MODULE);
	rx = kthread_create(dst_client_rx, c, "dst-srv/%u", exp->index);
	if (IS_ERR(rx)) {
		mutex_unlock(&exp->lock);
		module_put(THIS_MODULE);
		goto err_free;
	}
	c->rx = rx;
	list_add_tail(&c->list, &exp->clients);
	exp->nr_clients++;
	exp->handshakes++;
	c->handshake = true;
	atomic_inc(&exp->threads);
	mutex_unlock(&exp->lock);
	wake_up_process(rx);
	pr_debug("export %s: client %pISpc connected\n", exp->name, &c->peer);
	return;

err_free:
	kfree(c);
err_sock:
	dst_sock_release(sock);
}

int dst_export_fill_clients(struct sk_buff *skb, struct dst_export *exp)
{
	struct nlattr *list, *nest;
	unsigned int n = 0;
	struct dst_client *c;
	int err = -EMSGSIZE;

	list = nla_nest_start(skb, DST_EXPORT_A_CLIENT_LIST);
	if (!list)
		return -EMSGSIZE;
	mutex_lock(&exp->lock);
	list_for_each_entry(c, &exp->clients, list) {
		if (n++ == DST_CLIENT_LIST_MAX)
			break;
		nest = nla_nest_start(skb, DST_A_CLIENT);
		if (!nest ||
		    nla_put(skb, DST_CLIENT_A_ADDR,
			    c->peer.ss_family == AF_INET ?
			    sizeof(struct sockaddr_in) :
			    sizeof(struct sockaddr_in6), &c->peer) ||
		    (c->read_only && nla_put_flag(skb, DST_CLIENT_A_READ_ONLY)) ||
		    (c->auth && nla_put_flag(skb, DST_CLIENT_A_AUTH)) ||
		    (c->crc && nla_put_flag(skb, DST_CLIENT_A_INTEGRITY)) ||
		    (c->tls && (nla_put_flag(skb, DST_CLIENT_A_TLS) ||
				nla_put_u32(skb, DST_CLIENT_A_TLS_CIPHER, c->tls))))
			goto out;
		nla_nest_end(skb, nest);
	}
	err = 0;
out:
	mutex_unlock(&exp->lock);
	if (err)
		nla_nest_cancel(skb, list);
	else
		nla_nest_end(skb, list);
	return err;
}

/*
 * Serve @size bytes from now on, and tell the clients that take size
 * notices.  A smaller size is refused while clients are connected: they
 * may use what is gone.
 */
int dst_export_set_size(struct dst_export *exp, u64 size, const char **why)
{
	struct dst_client *c;
	int err = 0;

	mutex_lock(&exp->lock);
	if (!size) {
		*why = "the device is empty (0 bytes)";
		err = -ENOSPC;
	} else if (size < exp->size && exp->nr_clients) {
		*why = "the device is smaller than its connected clients use";
		err = -EBUSY;
	} else if (size != exp->size) {
		pr_info("export %s: %llu bytes, was %llu\n", exp->name, size,
			exp->size);
		WRITE_ONCE(exp->size, size);
		list_for_each_entry(c, &exp->clients, list)
			if (c->ready && c->resize)
				queue_work(dst_server_wq, &c->tx_work);
	}
	mutex_unlock(&exp->lock);
	return err;
}

/* Whether a connection of @session is one of @exp's clients. */
bool dst_export_serves(struct dst_export *exp, u64 session)
{
	struct dst_client *c;
	bool serves = false;

	mutex_lock(&exp->lock);
	list_for_each_entry(c, &exp->clients, list)
		serves |= c->session == session;
	mutex_unlock(&exp->lock);
	return serves;
}

/* Take no more clients and make every client's thread end. */
void dst_export_close_clients(struct dst_export *exp)
{
	struct dst_client *c;

	mutex_lock(&exp->lock);
	exp->closing = true;
	list_for_each_entry(c, &exp->clients, list)
		kernel_sock_shutdown(c->sock, SHUT_RDWR);
	mutex_unlock(&exp->lock);
}

int __init dst_server_init(void)
{
	BUILD_BUG_ON(sizeof(struct dst_hello) != 64);
	BUILD_BUG_ON(offsetof(struct dst_hello, session) != DST_HELLO_COMMON_LEN);
	BUILD_BUG_ON(sizeof(struct dst_auth) != 72);
	BUILD_BUG_ON(sizeof(struct dst_hello_reply) != 112);
	BUILD_BUG_ON(sizeof(struct dst_request) != 40);
	BUILD_BUG_ON(sizeof(struct dst_reply) != 32);

	dst_server_wq = alloc_workqueue("dst-server", WQ_MEM_RECLAIM, 0);
	return dst_server_wq ? 0 : -ENOMEM;
}

void dst_server_exit(void)
{
	destroy_workqueue(dst_server_wq);
}
