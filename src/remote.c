// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the client of a remote export.
 *
 * A remote node owns one TCP connection at a time.  Bios are sent from the
 * context that submits them, under tx_lock, as nbd does; a thread per node
 * connects, does the handshake, then reads the replies, which may come in
 * any order, and completes the bios, receiving read data straight into
 * their pages.
 *
 * Requests live in a table of DST_REMOTE_DEPTH slots allocated with the
 * node, so the I/O path allocates nothing.  A handle is the slot index and
 * a sequence number bumped at each send of the slot, so that a stale or
 * forged handle is recognised.  A slot has two references, one for
 * sending and one for the reply; the bio completes when both are gone, so
 * a reply that comes early never races with the pages being sent.
 *
 * Any protocol violation, a send or receive error, or a request older than
 * the timeout ends the connection, with a reset: nothing it did not deliver
 * can land on the export later.  The thread then connects again, with
 * an exponential backoff from DST_RECONNECT_MIN up to the node's
 * reconnect_max, and refuses an export that became smaller or can do less.
 * While the node is down, its requests are held for dead_timeout (sent
 * again on the new connection, as nbd requeues) and then failed with EIO,
 * like every new one until the node is back; with a dead_timeout of 0, and
 * always for a leg of a mirror, which has the other legs, they fail at
 * once.
 *
 * An export that grows says its new size (DST_NOTE_SIZE), as does the
 * hello of a reconnect; the storage takes it from process context
 * (resize.c).
 *
 * With a secret, the handshake of auth.c proves both ends; a node that has
 * one refuses an export that does not.  With TLS, each connection has its
 * TLS handshake done by the agent (tls.c) before dst's hello.  With integrity, CRC32C is asked
 * for and required: a reply whose header checksum is wrong ends the
 * connection, a read whose data checksum is wrong fails with EIO.  A
 * write whose data did not match its checksum at the export (DST_ECRC:
 * the writer may have changed its pages while they were sent) is sent
 * again alone, from a private copy, up to DST_CRC_RETRIES times, and then
 * fails with EIO; the connection and the other requests go on, since the
 * export wrote nothing of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "dst.h"

#define DST_REMOTE_DEPTH	128
#define DST_HANDSHAKE_TIMEOUT	(10 * HZ)
#define DST_RECONNECT_MIN	(HZ / 10)
#define DST_CRC_RETRIES		3

/* Sends requests again after a checksum mismatch; it may free memory. */
static struct workqueue_struct *dst_remote_wq;

struct dst_remote_req {
	struct bio *bio;
	unsigned long start;
	refcount_t refs;
	blk_status_t status;
	u32 seq;
	u8 cmd;
	u8 tries;
	bool awaiting_reply;
	bool held;
	bool sent;
	bool retry;
};

/**
 * struct dst_remote - the client side of a remote node
 * @node:	the node
 * @sock:	the connection, NULL between connections; set and cleared by
 *		@task under @sock_lock, used for I/O only while @up
 * @sock_lock:	@sock's lifetime against shutdown from other contexts
 * @tx_lock:	one sender at a time; @up changes under it and @lock
 * @lock:	slots, @busy, @up, @failing, @down_since, @receiving
 * @up:		connected and handshaken
 * @failing:	down for longer than @dead_timeout: I/O fails at once
 * @stopping:	being destroyed
 * @down_since:	when the last connection ended
 * @receiving:	the request whose read data is being received, if any: its
 *		reply has come, but it is not done until its data has
 * @reconnects:	connections made after the first
 * @instance:	the export's instance as the last connection's hello said
 * @restarts:	connections after the first to another instance of the
 *		export (or to one that does not say): it may have lost
 *		writes it had not flushed.  Counted before the connection
 *		is up, so before any request reaches the new instance
 * @up_wait:	woken each time the node is up again, if set (under @lock)
 * @session:	this client's id, connections and proofs: the export
 *		fences the older connections of a session before it answers
 *		a new one
 * @auth:	the keyed HMAC of the secret, NULL for none
 * @tls:	TLS on each connection, NULL for none
 * @tls_cipher:	enum dst_tls_cipher of the connection up now; 0: none
 * @integrity:	CRC32C asked for and required
 * @crc_errors:	checksum mismatches seen by either end
 * @retry_work:	sends again the requests whose data did not match its
 *		checksum (@retry set), under @tx_lock while @up
 * @size:	the export's size as it said last; the node's may lag behind
 * @task:	connects, receives, and connects again
 */
struct dst_remote {
	struct dst_node *node;
	struct socket *sock;
	struct mutex sock_lock;		/* see above */
	struct sockaddr_storage addr;
	int addrlen;
	unsigned long timeout;
	unsigned long dead_timeout;
	unsigned long reconnect_max;
	struct mutex tx_lock;		/* see above */
	spinlock_t lock;		/* see above */
	DECLARE_BITMAP(busy, DST_REMOTE_DEPTH);
	unsigned int nr_busy;
	bool up;
	bool failing;
	bool stopping;
	unsigned long down_since;
	struct dst_remote_req *receiving;
	atomic_t reconnects;
	u64 instance;
	atomic_t restarts;
	wait_queue_head_t *up_wait;
	struct dst_session session;
	struct crypto_shash *auth;
	struct dst_tls *tls;
	u32 tls_cipher;
	bool integrity;
	atomic64_t crc_errors;
	struct work_struct retry_work;
	u64 size;
	wait_queue_head_t wait;
	struct task_struct *task;
	struct delayed_work timeout_work;
	struct dst_remote_req reqs[DST_REMOTE_DEPTH];
};

/* What the export said in its hello. */
struct dst_remote_hello {
	u64 size;
	u64 instance;
	struct dst_node_limits limits;
};

static u64 dst_handle(struct dst_remote *r, struct dst_remote_req *req)
{
	return (u64)req->seq << 32 | (req - r->reqs);
}

/* End the connection; its thread fails or holds what is in flight. */
static void dst_remote_kill(struct dst_remote *r)
{
	mutex_lock(&r->sock_lock);
	if (r->sock)
		kernel_sock_shutdown(r->sock, SHUT_RDWR);
	mutex_unlock(&r->sock_lock);
	wake_up_all(&r->wait);
}

static void dst_remote_put_req(struct dst_remote *r, struct dst_remote_req *req)
{
	struct dst_node *node = r->node;
	struct bio *bio = req->bio;

	if (!refcount_dec_and_test(&req->refs))
		return;

	if (!req->status) {
		if (req->cmd == DST_REQ_READ)
			atomic64_add(bio->bi_iter.bi_size, &node->read_bytes);
		else if (req->cmd == DST_REQ_WRITE)
			atomic64_add(bio->bi_iter.bi_size, &node->write_bytes);
	}
	bio->bi_status = req->status;

	spin_lock(&r->lock);
	req->bio = NULL;
	__clear_bit(req - r->reqs, r->busy);
	r->nr_busy--;
	spin_unlock(&r->lock);
	wake_up(&r->wait);

	bio_endio(bio);
}

/* Whether a request of a node that is down waits for it; lock held. */
static bool dst_remote_holds(struct dst_remote *r)
{
	return r->dead_timeout && !r->failing && !r->stopping &&
	       !r->node->st->alg->fail_fast;
}

/*
 * Take a free slot for @bio, waiting for one; NULL if the node fails I/O
 * now: stopping, or down and not holding.
 */
static struct dst_remote_req *dst_remote_get_req(struct dst_remote *r,
						 struct bio *bio, u8 cmd)
{
	struct dst_remote_req *req;
	unsigned int idx;

	for (;;) {
		wait_event(r->wait, READ_ONCE(r->stopping) ||
			   READ_ONCE(r->nr_busy) < DST_REMOTE_DEPTH);
		spin_lock(&r->lock);
		if (r->stopping || (!r->up && !dst_remote_holds(r))) {
			spin_unlock(&r->lock);
			return NULL;
		}
		idx = find_first_zero_bit(r->busy, DST_REMOTE_DEPTH);
		if (idx < DST_REMOTE_DEPTH)
			break;
		spin_unlock(&r->lock);
	}
	__set_bit(idx, r->busy);
	r->nr_busy++;
	req = &r->reqs[idx];
	req->bio = bio;
	req->cmd = cmd;
	req->start = jiffies;
	req->status = BLK_STS_OK;
	req->awaiting_reply = true;
	req->held = false;
	req->sent = false;
	req->retry = false;
	req->tries = 0;
	/* A late duplicate of the slot's last reply must not match. */
	req->seq++;
	refcount_set(&req->refs, 2);
	spin_unlock(&r->lock);
	return req;
}

/* Fail @req, which waits for a reply, now; lock held, not the last ref. */
static bool dst_remote_fail_req(struct dst_remote_req *req)
{
	if (!req->awaiting_reply)
		return false;
	req->awaiting_reply = false;
	req->held = false;
	req->retry = false;
	req->status = BLK_STS_IOERR;
	return true;
}

static int dst_bio_cmd(struct bio *bio, u8 *cmd, u16 *flags)
{
	*flags = 0;
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		*cmd = DST_REQ_READ;
		return 0;
	case REQ_OP_WRITE:
		if (!bio->bi_iter.bi_size) {
			*cmd = DST_REQ_FLUSH;
			return 0;
		}
		*cmd = DST_REQ_WRITE;
		if (bio->bi_opf & REQ_FUA)
			*flags |= DST_REQ_FUA;
		if (bio->bi_opf & REQ_PREFLUSH)
			*flags |= DST_REQ_PREFLUSH;
		return 0;
	case REQ_OP_FLUSH:
		*cmd = DST_REQ_FLUSH;
		return 0;
	case REQ_OP_DISCARD:
		*cmd = DST_REQ_DISCARD;
		return 0;
	case REQ_OP_WRITE_ZEROES:
		*cmd = DST_REQ_WRITE_ZEROES;
		return 0;
	case REQ_OP_DRV_IN:
		*cmd = DST_REQ_CHECKSUM;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/*
 * Send @req on the connection; tx_lock held, the node up.  A WRITE's data
 * comes from @copy, a private copy of it, if not NULL.
 */
static int dst_remote_send(struct dst_remote *r, struct dst_remote_req *req,
			   const void *copy)
{
	struct bio *bio = req->bio;
	struct dst_request hdr;
	u16 flags;
	u8 cmd;
	int err;

	dst_bio_cmd(bio, &cmd, &flags);
	spin_lock(&r->lock);
	req->seq++;
	req->start = jiffies;
	req->sent = true;
	spin_unlock(&r->lock);
	hdr = (struct dst_request) {
		.magic = cpu_to_be32(DST_REQ_MAGIC),
		.version = DST_PROTO_VERSION,
		.cmd = cmd,
		.flags = cpu_to_be16(flags),
		.handle = cpu_to_be64(dst_handle(r, req)),
		.offset = cpu_to_be64(cmd == DST_REQ_FLUSH ? 0 :
				      bio->bi_iter.bi_sector << SECTOR_SHIFT),
		.length = cpu_to_be32(cmd == DST_REQ_FLUSH ? 0 :
				      bio->bi_iter.bi_size),
	};
	if (r->integrity) {
		if (cmd == DST_REQ_WRITE)
			hdr.data_crc = cpu_to_be32(copy ?
				dst_crc_buf(copy, bio->bi_iter.bi_size) :
				dst_crc_bio(bio, bio->bi_iter));
		hdr.hdr_crc = cpu_to_be32(dst_crc_hdr(&hdr, sizeof(hdr),
						      &hdr.hdr_crc));
	}
	err = dst_sock_send(r->sock, &hdr, sizeof(hdr), cmd == DST_REQ_WRITE);
	if (err || cmd != DST_REQ_WRITE)
		return err;
	return copy ? dst_sock_send(r->sock, copy, bio->bi_iter.bi_size, false) :
		      dst_sock_send_bio(r->sock, bio, false, false);
}

/* Send @bio; its sector is relative to the node. */
void dst_remote_submit(struct dst_remote *r, struct bio *bio)
{
	struct dst_remote_req *req;
	bool failed = false, send;
	u16 flags;
	u8 cmd;
	int err;

	if (dst_bio_cmd(bio, &cmd, &flags)) {
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}

	req = dst_remote_get_req(r, bio, cmd);
	if (!req) {
		bio_io_error(bio);
		return;
	}

	mutex_lock(&r->tx_lock);
	if (READ_ONCE(r->up)) {
		/*
		 * While this waited for tx_lock, the connection may have
		 * ended and the request been failed, or held and sent again
		 * on the next one.
		 */
		spin_lock(&r->lock);
		send = req->awaiting_reply && !req->sent;
		spin_unlock(&r->lock);
		err = send ? dst_remote_send(r, req, NULL) : 0;
		if (err) {
			pr_err_ratelimited("dst%u: node%u: send to %pISpc failed (%d), closing the connection\n",
					   r->node->st->id, r->node->id,
					   &r->addr, err);
			dst_remote_kill(r);
		}
	} else {
		/* Down: held for the next connection, or failed. */
		spin_lock(&r->lock);
		if (dst_remote_holds(r))
			req->held = req->awaiting_reply;
		else
			failed = dst_remote_fail_req(req);
		spin_unlock(&r->lock);
	}
	mutex_unlock(&r->tx_lock);

	if (failed)
		dst_remote_put_req(r, req);
	dst_remote_put_req(r, req);
}

/* Find the slot a reply names; NULL if the handle is not in flight. */
static struct dst_remote_req *dst_remote_lookup(struct dst_remote *r,
						const struct dst_reply *rep)
{
	u64 handle = be64_to_cpu(rep->handle);
	u32 idx = handle & U32_MAX;
	struct dst_remote_req *req;

	if (idx >= DST_REMOTE_DEPTH)
		return NULL;
	req = &r->reqs[idx];

	spin_lock(&r->lock);
	if (!req->awaiting_reply || req->seq != handle >> 32 ||
	    req->cmd != rep->cmd) {
		spin_unlock(&r->lock);
		return NULL;
	}
	req->awaiting_reply = false;
	spin_unlock(&r->lock);
	return req;
}

/* Read data of @req that does not match its checksum: EIO. */
static u32 dst_remote_crc_error(struct dst_remote *r,
				struct dst_remote_req *req)
{
	atomic64_inc(&r->crc_errors);
	pr_err_ratelimited("dst%u: node%u: %pISpc: read data checksum mismatch at sector %llu, failing the read\n",
			   r->node->st->id, r->node->id, &r->addr,
			   (unsigned long long)req->bio->bi_iter.bi_sector);
	return DST_EIO;
}

/*
 * The export answered DST_ECRC: the data of @req did not match its
 * checksum there (a writer that changed its pages while they were sent).
 * Nothing of it was written, and the connection is sound: the retry work
 * sends it again, alone, up to DST_CRC_RETRIES times.  True when it
 * will; else it fails.
 */
static bool dst_remote_retry(struct dst_remote *r, struct dst_remote_req *req)
{
	bool again;

	atomic64_inc(&r->crc_errors);
	spin_lock(&r->lock);
	again = req->tries < DST_CRC_RETRIES && !r->stopping;
	if (again) {
		req->tries++;
		req->retry = true;
		req->awaiting_reply = true;
	}
	spin_unlock(&r->lock);
	pr_warn_ratelimited("dst%u: node%u: %pISpc: the export saw write data that did not match its checksum at sector %llu, %s\n",
			    r->node->st->id, r->node->id, &r->addr,
			    (unsigned long long)req->bio->bi_iter.bi_sector,
			    again ? "sending it again" : "failing it");
	if (again)
		queue_work(dst_remote_wq, &r->retry_work);
	return again;
}

/* A private copy of a WRITE's data, NULL for other requests or no memory. */
static void *dst_remote_copy(struct dst_remote_req *req)
{
	struct bio *bio = req->bio;
	struct bvec_iter iter;
	struct bio_vec bv;
	void *copy, *p;

	if (req->cmd != DST_REQ_WRITE)
		return NULL;
	copy = kvmalloc(bio->bi_iter.bi_size, GFP_NOIO | __GFP_NOWARN);
	if (!copy)
		return NULL;
	p = copy;
	bio_for_each_segment(bv, bio, iter) {
		memcpy_from_bvec(p, &bv);
		p += bv.bv_len;
	}
	return copy;
}

/*
 * Send again the requests dst_remote_retry() marked, on the connection
 * they came back on; if it ended meanwhile, dst_remote_down() held or
 * failed them.  A WRITE goes from a copy, so that a writer that keeps
 * changing its pages cannot make it mismatch again.
 */
static void dst_remote_retry_work(struct work_struct *work)
{
	struct dst_remote *r = container_of(work, struct dst_remote,
					    retry_work);
	unsigned int i, noio = memalloc_noio_save();
	struct dst_remote_req *req;
	void *copy;
	bool send;
	int err = 0;

	mutex_lock(&r->tx_lock);
	for (i = 0; i < DST_REMOTE_DEPTH && !err && READ_ONCE(r->up); i++) {
		req = &r->reqs[i];
		spin_lock(&r->lock);
		send = req->retry && req->awaiting_reply && !req->held;
		if (send) {
			req->retry = false;
			/* A sending reference, as dst_remote_resend() takes. */
			refcount_inc(&req->refs);
		}
		spin_unlock(&r->lock);
		if (!send)
			continue;
		copy = dst_remote_copy(req);
		err = dst_remote_send(r, req, copy);
		kvfree(copy);
		dst_remote_put_req(r, req);
	}
	mutex_unlock(&r->tx_lock);
	if (err) {
		pr_err_ratelimited("dst%u: node%u: send to %pISpc failed (%d), closing the connection\n",
				   r->node->st->id, r->node->id, &r->addr, err);
		dst_remote_kill(r);
	}
	memalloc_noio_restore(noio);
}

/* The export has @size bytes now: what it grew by, the storage may take. */
static void dst_remote_sized(struct dst_remote *r, u64 size)
{
	u64 old = READ_ONCE(r->size);

	WRITE_ONCE(r->size, size);
	if (size <= old)
		return;
	pr_info_ratelimited("dst%u: node%u: %pISpc grew to %llu bytes\n",
			    r->node->st->id, r->node->id, &r->addr, size);
	dst_storage_grow_later();
}

/* A size notice, whose header @rep came; nonzero ends the connection. */
static int dst_remote_note_size(struct dst_remote *r,
				const struct dst_reply *rep, const char **why)
{
	u32 lbs = r->node->limits.logical_block_size;
	__be64 data;
	u64 size;
	int err;

	if (!(r->node->limits.features & DST_FEAT_RESIZE) || rep->status ||
	    rep->handle || be32_to_cpu(rep->length) != sizeof(data)) {
		*why = "bad size notice";
		return -EPROTO;
	}
	err = dst_sock_recv(r->sock, &data, sizeof(data));
	if (err) {
		*why = "connection lost in a size notice";
		return err;
	}
	if (r->integrity &&
	    be32_to_cpu(rep->data_crc) != dst_crc_buf(&data, sizeof(data))) {
		atomic64_inc(&r->crc_errors);
		*why = "size notice checksum mismatch";
		return -EBADMSG;
	}
	size = be64_to_cpu(data);
	if (size < READ_ONCE(r->size) || size > DST_MAX_SIZE ||
	    size & (lbs - 1)) {
		*why = "the export sent an impossible size";
		return -EPROTO;
	}
	dst_remote_sized(r, size);
	return 0;
}

/*
 * The connection broke in the data of @req's reply: as one that got no
 * reply, it is held and sent again on the next connection, or failed.
 * Only a reply's header came: failing it here would fail a READ that a
 * --dead-timeout holds, whose data a TLS record, or TCP, split from it.
 */
static int dst_remote_lost(struct dst_remote *r, struct dst_remote_req *req,
			   int err)
{
	spin_lock(&r->lock);
	req->awaiting_reply = true;
	spin_unlock(&r->lock);
	return err;
}

/*
 * Receive the sums a CHECKSUM reply of @len bytes carries into its
 * struct dst_csum; nonzero ends the connection, *@lost set when it broke,
 * *@status set to EIO when they do not match their checksum.
 */
static int dst_remote_recv_sums(struct dst_remote *r, struct dst_remote_req *req,
				const struct dst_reply *rep, u32 len,
				u32 *status, bool *lost, const char **why)
{
	struct dst_csum *cs = container_of(req->bio, struct dst_csum, bio);
	int err;

	if (len != dst_csum_count(req->bio->bi_iter.bi_size) * DST_CSUM_SIZE) {
		*why = "checksum reply of the wrong length";
		return -EPROTO;
	}
	spin_lock(&r->lock);
	r->receiving = req;
	spin_unlock(&r->lock);
	err = dst_sock_recv(r->sock, cs->sums, len);
	spin_lock(&r->lock);
	r->receiving = NULL;
	spin_unlock(&r->lock);
	if (err) {
		*why = "connection lost in checksum data";
		*lost = true;
		return err;
	}
	if (r->integrity &&
	    be32_to_cpu(rep->data_crc) != dst_crc_buf(cs->sums, len))
		*status = dst_remote_crc_error(r, req);
	return 0;
}

/* Read and complete one reply; a negative errno ends the connection. */
static int dst_remote_recv_one(struct dst_remote *r, const char **why)
{
	struct dst_remote_req *req;
	struct dst_reply rep;
	bool lost = false;
	u32 status, len;
	int err;

	err = dst_sock_recv(r->sock, &rep, sizeof(rep));
	if (err) {
		*why = (r->tls ? dst_tls_recv_error(err) : NULL) ?:
		       "connection lost";
		return err;
	}
	if (r->integrity && be32_to_cpu(rep.hdr_crc) !=
			    dst_crc_hdr(&rep, sizeof(rep), &rep.hdr_crc)) {
		atomic64_inc(&r->crc_errors);
		*why = "reply header checksum mismatch";
		return -EBADMSG;
	}
	if (be32_to_cpu(rep.magic) != DST_REP_MAGIC ||
	    rep.version != DST_PROTO_VERSION || rep.reserved ||
	    (!r->integrity && (rep.hdr_crc || rep.data_crc))) {
		*why = "bad reply header";
		return -EPROTO;
	}
	if (rep.cmd == DST_NOTE_SIZE)
		return dst_remote_note_size(r, &rep, why);
	req = dst_remote_lookup(r, &rep);
	if (!req) {
		*why = "reply with an unknown handle";
		return -EPROTO;
	}

	status = be32_to_cpu(rep.status);
	len = be32_to_cpu(rep.length);
	err = 0;
	if (status == DST_OK && req->cmd == DST_REQ_READ) {
		if (len != req->bio->bi_iter.bi_size) {
			*why = "read reply of the wrong length";
			err = -EPROTO;
		} else {
			/* The timeout runs on until the data is in. */
			spin_lock(&r->lock);
			r->receiving = req;
			spin_unlock(&r->lock);
			err = dst_sock_recv_bio(r->sock, req->bio);
			spin_lock(&r->lock);
			r->receiving = NULL;
			spin_unlock(&r->lock);
			if (err) {
				*why = (r->tls ? dst_tls_recv_error(err) : NULL) ?:
				       "connection lost in read data";
				lost = true;
			} else if (r->integrity &&
				 be32_to_cpu(rep.data_crc) !=
				 dst_crc_bio(req->bio, req->bio->bi_iter))
				status = dst_remote_crc_error(r, req);
		}
	} else if (status == DST_OK && req->cmd == DST_REQ_CHECKSUM) {
		err = dst_remote_recv_sums(r, req, &rep, len, &status, &lost,
					   why);
	} else if (len || rep.data_crc) {
		*why = "reply with unexpected data";
		err = -EPROTO;
	} else if (status == DST_ECRC) {
		/*
		 * The data changed under the checksum (a writer that does not
		 * keep its pages stable): not an error of the export, which
		 * wrote nothing.  That request alone is sent again, or
		 * fails (EIO) after DST_CRC_RETRIES.
		 */
		if (dst_remote_retry(r, req))
			return 0;
	}
	if (lost)
		return dst_remote_lost(r, req, err);
	req->status = err ? BLK_STS_IOERR : dst_status_to_blk(status);
	dst_remote_put_req(r, req);
	return err;
}

/*
 * The connection ended: no sender uses it any more; requests waiting for
 * a reply are held for the next one or failed.
 */
static void dst_remote_down(struct dst_remote *r)
{
	struct dst_remote_req *req;
	struct socket *sock;
	bool hold, failed;
	unsigned int i;

	/* A sender stuck on a full socket lets go of tx_lock. */
	dst_remote_kill(r);
	mutex_lock(&r->tx_lock);
	spin_lock(&r->lock);
	r->up = false;
	r->down_since = jiffies;
	spin_unlock(&r->lock);
	WRITE_ONCE(r->tls_cipher, 0);
	mutex_unlock(&r->tx_lock);

	mutex_lock(&r->sock_lock);
	sock = r->sock;
	r->sock = NULL;
	mutex_unlock(&r->sock_lock);
	if (sock)
		dst_sock_release(sock);

	for (i = 0; i < DST_REMOTE_DEPTH; i++) {
		req = &r->reqs[i];
		spin_lock(&r->lock);
		hold = dst_remote_holds(r);
		if (hold) {
			/* Sent again by dst_remote_resend(), not the work. */
			req->held = req->awaiting_reply;
			req->retry = false;
		}
		failed = !hold && dst_remote_fail_req(req);
		spin_unlock(&r->lock);
		if (failed)
			dst_remote_put_req(r, req);
	}
}

/* Fail the requests held while the node is down; returns how many. */
static unsigned int dst_remote_fail_held(struct dst_remote *r)
{
	struct dst_remote_req *req;
	unsigned int i, n = 0;
	bool failed;

	for (i = 0; i < DST_REMOTE_DEPTH; i++) {
		req = &r->reqs[i];
		spin_lock(&r->lock);
		failed = req->held && dst_remote_fail_req(req);
		spin_unlock(&r->lock);
		if (failed) {
			dst_remote_put_req(r, req);
			n++;
		}
	}
	return n;
}

/*
 * A new connection is up: send the held requests again (with new
 * handles), then let new ones go.  Both under tx_lock, so nothing new
 * passes the held ones.  An error ends this connection too.
 */
static int dst_remote_resend(struct dst_remote *r)
{
	struct dst_remote_req *req;
	unsigned int i, n = 0;
	bool send;
	int err = 0;

	mutex_lock(&r->tx_lock);
	for (i = 0; i < DST_REMOTE_DEPTH && !err; i++) {
		req = &r->reqs[i];
		spin_lock(&r->lock);
		send = req->held;
		if (send) {
			req->held = false;
			/* A sending reference: a reply cannot come yet, but
			 * dst_remote_destroy() may fail the request.
			 */
			refcount_inc(&req->refs);
		}
		spin_unlock(&r->lock);
		if (!send)
			continue;
		err = dst_remote_send(r, req, NULL);
		dst_remote_put_req(r, req);
		n++;
	}
	/*
	 * Counted as it comes up, not when it connected: a leg that fails
	 * before (the node not up yet) sees this connection as a new one.
	 */
	spin_lock(&r->lock);
	if (!err) {
		atomic_inc(&r->reconnects);
		if (r->up_wait)
			wake_up(r->up_wait);
	}
	r->up = !err;
	r->failing = false;
	spin_unlock(&r->lock);
	mutex_unlock(&r->tx_lock);
	if (n)
		pr_info_ratelimited("dst%u: node%u: %u held request(s) sent again\n",
				    r->node->st->id, r->node->id, n);
	return err;
}

static int dst_remote_rx(struct dst_remote *r, const char **why)
{
	int err;

	do {
		err = dst_remote_recv_one(r, why);
	} while (!err);
	return err;
}

static void dst_remote_timeout_work(struct work_struct *work)
{
	struct dst_remote *r = container_of(to_delayed_work(work),
					    struct dst_remote, timeout_work);
	bool expired = false, dead = false;
	unsigned int i, n;

	spin_lock(&r->lock);
	if (r->up && r->receiving &&
	    time_after(jiffies, r->receiving->start + r->timeout)) {
		expired = true;
	} else if (r->up) {
		for_each_set_bit(i, r->busy, DST_REMOTE_DEPTH) {
			if (r->reqs[i].awaiting_reply && !r->reqs[i].held &&
			    time_after(jiffies, r->reqs[i].start + r->timeout)) {
				expired = true;
				break;
			}
		}
	} else if (!r->failing &&
		   time_after(jiffies, r->down_since + r->dead_timeout)) {
		r->failing = true;
		dead = true;
	}
	spin_unlock(&r->lock);

	if (expired) {
		pr_err_ratelimited("dst%u: node%u: %pISpc: request timed out after %lu s, closing the connection\n",
				   r->node->st->id, r->node->id, &r->addr,
				   r->timeout / HZ);
		dst_remote_kill(r);
	}
	if (dead) {
		n = dst_remote_fail_held(r);
		if (r->dead_timeout && !r->node->st->alg->fail_fast)
			pr_err("dst%u: node%u: %pISpc: down for %lu s, failing %u held request(s) and new ones until it is back\n",
			       r->node->st->id, r->node->id, &r->addr,
			       r->dead_timeout / HZ, n);
	}
	if (!READ_ONCE(r->stopping))
		schedule_delayed_work(&r->timeout_work, HZ);
}

/* Why connect() failed, as connect(2) and ssh say it. */
static const char *dst_connect_error(int err)
{
	switch (err) {
	case -ECONNREFUSED:
		return "cannot connect to the export: connection refused";
	case -EINPROGRESS:
	case -ETIMEDOUT:
		return "cannot connect to the export: connection timed out";
	case -ENETUNREACH:
		return "cannot connect to the export: network is unreachable";
	case -EHOSTUNREACH:
		return "cannot connect to the export: no route to host";
	case -EADDRNOTAVAIL:
		return "cannot connect to the export: address not available";
	default:
		return "cannot connect to the export";
	}
}

static bool dst_valid_block_size(u32 bs)
{
	return bs >= SECTOR_SIZE && bs <= PAGE_SIZE && is_power_of_2(bs);
}

/* The export refused the connection: what it said. */
static int dst_remote_refused(struct dst_remote *r,
			      struct dst_hello_reply *rep, const char **why)
{
	u16 error = be16_to_cpu(rep->error);

	/* Its words, not ours: escaped, so that it cannot forge log lines. */
	pr_err_ratelimited("%pISpc refused the connection: %*pE\n", &r->addr,
			   (int)strnlen(rep->reason, DST_REASON_LEN),
			   rep->reason);
	switch (error) {
	case DST_EVERSION:
		*why = "the export speaks another protocol version";
		return -EPROTONOSUPPORT;
	case DST_EPERM:
		*why = "the export does not let this host in";
		return -EACCES;
	case DST_EBUSY:
		*why = "another client writes to the export, which is not shared";
		return -EBUSY;
	case DST_ETLS:
		*why = "the export needs TLS";
		return -EACCES;
	default:
		*why = "the export refused the connection";
		return -ECONNREFUSED;
	}
}

/*
 * The rest of the handshake with a secret: check the export's answer to
 * our challenge, answer its challenge; then its hello reply follows.
 */
static int dst_remote_prove(struct dst_remote *r, struct socket *sock,
			    const struct dst_hello *hello, struct dst_auth *a,
			    const char **why)
{
	u8 schal[DST_CHALLENGE_LEN];

	if (be16_to_cpu(a->version) != DST_PROTO_VERSION || a->reserved ||
	    !dst_auth_check(r->auth, true, hello->challenge, a->challenge,
			    a->response)) {
		*why = "the export does not know the secret";
		return -EACCES;
	}
	memcpy(schal, a->challenge, sizeof(schal));
	memset(a, 0, sizeof(*a));
	a->magic = cpu_to_be32(DST_AUTH_MAGIC);
	a->version = cpu_to_be16(DST_PROTO_VERSION);
	dst_session_proof(&r->session, a->challenge);
	if (dst_auth_response(r->auth, false, hello->challenge, schal,
			      a->response) ||
	    dst_sock_send(sock, a, sizeof(*a), false)) {
		*why = "handshake failed";
		return -EIO;
	}
	return 0;
}

/*
 * Hello and its reply on @sock, and the handshake with the secret between
 * them: fills @h.
 */
static int dst_remote_handshake(struct dst_remote *r, struct socket *sock,
				struct dst_remote_hello *h, const char **why)
{
	struct dst_node_limits *lim = &h->limits;
	union {
		__be32 magic;
		struct dst_auth auth;
		struct dst_hello_reply rep;
	} m;
	struct dst_hello_reply *rep = &m.rep;
	u8 *rest = (u8 *)&m + sizeof(m.magic);
	struct dst_hello hello = {
		.magic = cpu_to_be32(DST_HELLO_MAGIC),
		.version = cpu_to_be16(DST_PROTO_VERSION),
		.flags = cpu_to_be16(r->auth ? DST_HELLO_AUTH : 0),
		.features = cpu_to_be64(DST_FEAT_FLUSH | DST_FEAT_FUA |
					DST_FEAT_DISCARD |
					DST_FEAT_WRITE_ZEROES | DST_FEAT_RESIZE |
					DST_FEAT_CHECKSUM |
					(r->integrity ? DST_FEAT_CRC32C : 0)),
	};
	bool authed = false;
	u32 pbs, max, flags;
	int err;

	/* Every proof of the chain shown: the next connection is another's. */
	if (r->session.generation == DST_SESSION_SPAN)
		dst_session_start(&r->session, r->auth);
	hello.session = cpu_to_be64(r->session.id);
	hello.generation = cpu_to_be32(++r->session.generation);
	dst_auth_challenge(hello.challenge);
	err = dst_sock_send(sock, &hello, sizeof(hello), false);
	if (!err)
		err = dst_sock_recv(sock, &m.magic, sizeof(m.magic));
	if (!err && r->auth && be32_to_cpu(m.magic) == DST_AUTH_MAGIC) {
		err = dst_sock_recv(sock, rest, sizeof(m.auth) - sizeof(m.magic));
		if (err)
			goto no_hello;
		err = dst_remote_prove(r, sock, &hello, &m.auth, why);
		if (err)
			return err;
		authed = true;
		err = dst_sock_recv(sock, &m.magic, sizeof(m.magic));
	}
	if (!err)
		err = dst_sock_recv(sock, rest, sizeof(*rep) - sizeof(m.magic));
	if (err)
		goto no_hello;
	if (be32_to_cpu(rep->magic) != DST_HELLO_MAGIC) {
		*why = "not a dst export (bad hello magic)";
		return -EPROTO;
	}
	if (rep->error)
		return dst_remote_refused(r, rep, why);
	if (be16_to_cpu(rep->version) != DST_PROTO_VERSION) {
		pr_err_ratelimited("%pISpc speaks protocol version %u, this module %u\n",
				   &r->addr, be16_to_cpu(rep->version),
				   DST_PROTO_VERSION);
		*why = "the export speaks another protocol version";
		return -EPROTONOSUPPORT;
	}
	flags = be32_to_cpu(rep->flags);
	if (flags & ~(DST_EXPORT_READ_ONLY | DST_EXPORT_AUTH)) {
		*why = "the export sent unknown flags";
		return -EPROTO;
	}
	if (r->auth && (!authed || !(flags & DST_EXPORT_AUTH))) {
		*why = "the export did not prove the secret";
		return -EACCES;
	}

	h->size = be64_to_cpu(rep->size);
	h->instance = be64_to_cpu(rep->instance);
	lim->logical_block_size = be32_to_cpu(rep->logical_block_size);
	pbs = be32_to_cpu(rep->physical_block_size);
	max = be32_to_cpu(rep->max_request);
	if (!dst_valid_block_size(lim->logical_block_size) ||
	    !is_power_of_2(pbs) || pbs < lim->logical_block_size ||
	    !h->size || h->size > DST_MAX_SIZE ||
	    h->size & (lim->logical_block_size - 1) ||
	    max < lim->logical_block_size) {
		*why = "the export sent impossible sizes";
		return -EPROTO;
	}
	/* It becomes io_min and the discard granularity. */
	if (pbs > DST_MAX_PHYSICAL_BLOCK) {
		*why = "the export's physical block size is over 64 KiB";
		return -EPROTO;
	}
	lim->physical_block_size = pbs;
	lim->max_request = round_down(min(max, DST_MAX_REQUEST),
				      lim->logical_block_size);
	lim->read_only = flags & DST_EXPORT_READ_ONLY;
	lim->features = be64_to_cpu(rep->features) &
			be64_to_cpu(hello.features);
	if (r->integrity && !(lim->features & DST_FEAT_CRC32C)) {
		*why = "the export does not do crc32c integrity";
		return -EPROTO;
	}
	lim->stable_writes = r->integrity;
	return 0;

no_hello:
	/*
	 * In TLS 1.3 the export checks this host's certificate after the
	 * handshake is done here: its refusal is an alert record.
	 */
	*why = r->tls && err == -EIO ?
	       "the export ended TLS with an alert (did it refuse this host's certificate?)" :
	       "no hello from the export";
	return err;
}

/* Whether the export, back again, can still be what the node was. */
static bool dst_remote_same(struct dst_remote *r,
			    const struct dst_remote_hello *h, const char **why)
{
	const struct dst_node_limits *old = &r->node->limits;

	if (h->size < r->node->size) {
		*why = "the export became smaller";
		return false;
	}
	if (h->limits.logical_block_size != old->logical_block_size ||
	    h->limits.max_request < old->max_request ||
	    (old->features & ~h->limits.features) ||
	    (h->limits.read_only && !old->read_only)) {
		*why = "the export can do less than before";
		return false;
	}
	return true;
}

/*
 * Connect and do the handshake; on success the socket is @r->sock and @h
 * says what the export is.  @r->sock is set while connecting, so that
 * dst_remote_destroy() can shut it down.
 */
static int dst_remote_dial(struct dst_remote *r, struct dst_remote_hello *h,
			   const char **why)
{
	unsigned long timeout = min(r->timeout, DST_HANDSHAKE_TIMEOUT);
	struct dst_deadline deadline;
	struct socket *sock;
	u32 cipher = 0;
	bool connected;
	int err;

	err = sock_create_kern(&init_net, r->addr.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (err) {
		*why = "cannot create a socket";
		return err;
	}
	/* On failure it took the socket with it. */
	if (r->tls && dst_sock_file(sock)) {
		*why = "cannot create a socket";
		return -ENOMEM;
	}
	sock->sk->sk_sndtimeo = timeout;
	sock->sk->sk_rcvtimeo = timeout;
	mutex_lock(&r->sock_lock);
	if (READ_ONCE(r->stopping)) {
		mutex_unlock(&r->sock_lock);
		dst_sock_release(sock);
		*why = "stopping";
		return -EINTR;
	}
	r->sock = sock;
	mutex_unlock(&r->sock_lock);

	/* Connect and handshake within the node's timeout, at most 10 s. */
	dst_deadline_start(&deadline, sock, timeout);
	err = kernel_connect(sock, (struct sockaddr *)&r->addr, r->addrlen, 0);
	connected = !err;
	if (err)
		*why = dst_connect_error(err);
	else if (r->tls)
		err = dst_tls_handshake(sock, r->tls, false, &r->addr,
					r->tls->name, timeout, why);
	if (err > 0) {
		cipher = err;
		err = 0;
	}
	if (connected && !err) {
		dst_sock_lockdep(sock);
		err = dst_remote_handshake(r, sock, h, why);
	}
	if (dst_deadline_end(&deadline)) {
		*why = connected ? "the export did not complete the handshake in time" :
				   "cannot connect to the export: connection timed out";
		err = -ETIMEDOUT;
	}
	if (err) {
		mutex_lock(&r->sock_lock);
		r->sock = NULL;
		mutex_unlock(&r->sock_lock);
		dst_sock_release(sock);
		return err;
	}
	WRITE_ONCE(r->tls_cipher, cipher);
	/* TCP never gives up before the node's own timeout does. */
	dst_sock_setup(sock, true, r->timeout / HZ);
	/*
	 * Closing it aborts the connection.  What it did not deliver is
	 * failed or sent again on the next connection; left to the kernel,
	 * it would be retransmitted once the link is back and land on the
	 * export after newer writes to the same place, or after a resync.
	 */
	sock_no_linger(sock->sk);
	sock->sk->sk_sndtimeo = r->timeout;
	sock->sk->sk_rcvtimeo = MAX_SCHEDULE_TIMEOUT;
	return 0;
}

/* Connect again until it works or the node goes; 0 when connected. */
static int dst_remote_redial(struct dst_remote *r)
{
	unsigned long delay = DST_RECONNECT_MIN;
	const char *why = NULL, *logged = NULL;
	struct dst_remote_hello h;
	int err;

	for (;;) {
		wait_event_interruptible_timeout(r->wait,
						 READ_ONCE(r->stopping), delay);
		if (READ_ONCE(r->stopping))
			return -EINTR;
		delay = min(delay * 2, r->reconnect_max);
		err = dst_remote_dial(r, &h, &why);
		if (!err && dst_remote_same(r, &h, &why)) {
			/* Only an export that tells its size changes, grows. */
			if (h.limits.features & DST_FEAT_RESIZE)
				dst_remote_sized(r, h.size);
			if (!h.instance || h.instance != r->instance)
				atomic_inc(&r->restarts);
			r->instance = h.instance;
			break;
		}
		if (!err) {
			err = -EINVAL;
			mutex_lock(&r->sock_lock);
			dst_sock_release(r->sock);
			r->sock = NULL;
			mutex_unlock(&r->sock_lock);
		}
		/* Each new reason once, not each attempt. */
		if (why != logged)
			pr_warn_ratelimited("dst%u: node%u: %pISpc: %s (%d), trying again\n",
					    r->node->st->id, r->node->id,
					    &r->addr, why, err);
		logged = why;
	}
	pr_info_ratelimited("dst%u: node%u: reconnected to %pISpc after %lu s\n",
			    r->node->st->id, r->node->id, &r->addr,
			    (jiffies - r->down_since) / HZ);
	dst_event(r->node->st, r->node->id, DST_EVENT_NODE_UP, 0, GFP_KERNEL);
	return 0;
}

/*
 * Connect again and send the held requests, until both work; nonzero
 * when the node goes away first.
 */
static int dst_remote_reconnect(struct dst_remote *r)
{
	for (;;) {
		if (dst_remote_redial(r))
			return -EINTR;
		if (!dst_remote_resend(r))
			return 0;
		dst_remote_down(r);
	}
}

/* The node's thread: receive; when the connection ends, connect again. */
static int dst_remote_thread(void *data)
{
	struct dst_remote *r = data;
	const char *why = NULL;
	int err;

	/*
	 * It connects, receives and sends held requests again while writes
	 * to this disk may be what frees memory: no reclaim into it.
	 */
	memalloc_noio_save();

	do {
		err = dst_remote_rx(r, &why);
		if (!READ_ONCE(r->stopping)) {
			pr_err_ratelimited("dst%u: node%u: %pISpc: %s (%d), reconnecting\n",
					   r->node->st->id, r->node->id,
					   &r->addr, why, err);
			dst_event(r->node->st, r->node->id, DST_EVENT_NODE_DOWN,
				  0, GFP_KERNEL);
		}
		dst_remote_down(r);
	} while (!dst_remote_reconnect(r));

	/* Wait for dst_remote_destroy(). */
	dst_wait_for_stop();
	return 0;
}

struct dst_remote *dst_remote_connect(struct dst_node *node,
				      const struct sockaddr_storage *addr,
				      int addrlen,
				      const struct dst_remote_opts *opts,
				      const char **why)
{
	struct dst_remote_hello h;
	struct dst_remote *r;
	int err;

	r = kvzalloc(sizeof(*r), DST_GFP_CMD);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->node = node;
	memcpy(&r->addr, addr, addrlen);
	r->addrlen = addrlen;
	r->timeout = (opts->timeout ?: DST_DEFAULT_TIMEOUT) * HZ;
	r->dead_timeout = opts->dead_timeout * HZ;
	r->reconnect_max = (opts->reconnect_max ?: DST_DEFAULT_RECONNECT_MAX) *
			   HZ;
	mutex_init(&r->sock_lock);
	mutex_init(&r->tx_lock);
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->wait);
	atomic_set(&r->reconnects, 0);
	atomic_set(&r->restarts, 0);
	atomic64_set(&r->crc_errors, 0);
	INIT_WORK(&r->retry_work, dst_remote_retry_work);
	INIT_DELAYED_WORK(&r->timeout_work, dst_remote_timeout_work);
	r->integrity = opts->integrity;
	if (opts->secret) {
		r->auth = dst_auth_new(opts->secret, opts->secret_len);
		if (IS_ERR(r->auth)) {
			err = PTR_ERR(r->auth);
			r->auth = NULL;
			*why = "cannot set up HMAC-SHA256 for the secret";
			goto err_free;
		}
	}
	if (opts->tls) {
		r->tls = dst_tls_dup(opts->tls);
		if (!r->tls) {
			err = -ENOMEM;
			goto err_free;
		}
	}
	dst_session_start(&r->session, r->auth);

	err = dst_remote_dial(r, &h, why);
	if (err)
		goto err_free;
	node->size = h.size;
	node->limits = h.limits;
	r->size = h.size;
	r->instance = h.instance;
	r->up = true;
	return r;

err_free:
	dst_tls_free(r->tls);
	dst_auth_free(r->auth);
	kvfree_sensitive(r, sizeof(*r));
	return ERR_PTR(err);
}

/* Start receiving, once the node is in its storage. */
int dst_remote_start(struct dst_remote *r, const char **why)
{
	struct task_struct *task;

	task = kthread_run(dst_remote_thread, r, "dst%u-n%u",
			   r->node->st->id, r->node->id);
	if (IS_ERR(task)) {
		*why = "cannot start the receive thread";
		return PTR_ERR(task);
	}
	r->task = task;
	schedule_delayed_work(&r->timeout_work, HZ);
	return 0;
}

/* Close the connection, fail what is in flight or held, and free. */
void dst_remote_destroy(struct dst_remote *r)
{
	spin_lock(&r->lock);
	r->stopping = true;
	spin_unlock(&r->lock);
	dst_remote_kill(r);
	if (r->task)
		kthread_stop(r->task);
	/* Queued only by the thread, which is gone. */
	cancel_work_sync(&r->retry_work);
	cancel_delayed_work_sync(&r->timeout_work);
	/* The thread is gone: nothing will answer what is left. */
	if (r->sock)
		dst_remote_down(r);
	dst_remote_fail_held(r);
	/* Submitters still sending see the node down and let go. */
	wait_event(r->wait, !READ_ONCE(r->nr_busy));
	dst_tls_free(r->tls);
	dst_auth_free(r->auth);
	kvfree_sensitive(r, sizeof(*r));
}

enum dst_node_state dst_remote_state(struct dst_remote *r)
{
	if (READ_ONCE(r->up))
		return DST_NODE_CONNECTED;
	return dst_remote_holds(r) ? DST_NODE_RECONNECTING : DST_NODE_DEAD;
}

unsigned int dst_remote_inflight(struct dst_remote *r)
{
	return READ_ONCE(r->nr_busy);
}

unsigned int dst_remote_reconnects(struct dst_remote *r)
{
	return atomic_read(&r->reconnects);
}

unsigned int dst_remote_restarts(struct dst_remote *r)
{
	return atomic_read(&r->restarts);
}

/*
 * Wake @wq each time the node is up again, until called with NULL: a
 * mirror's resync copies what its leg missed as soon as it is back.
 */
void dst_remote_notify(struct dst_remote *r, wait_queue_head_t *wq)
{
	spin_lock(&r->lock);
	r->up_wait = wq;
	spin_unlock(&r->lock);
}

void dst_remote_get_opts(struct dst_remote *r, struct dst_remote_opts *opts)
{
	opts->timeout = r->timeout / HZ;
	opts->dead_timeout = r->dead_timeout / HZ;
	opts->reconnect_max = r->reconnect_max / HZ;
	opts->secret = NULL;
	opts->secret_len = 0;
	opts->integrity = r->integrity;
}

bool dst_remote_auth(struct dst_remote *r)
{
	return r->auth;
}

const struct dst_tls *dst_remote_tls(struct dst_remote *r)
{
	return r->tls;
}

/* enum dst_tls_cipher of the connection up now; 0: none. */
u32 dst_remote_tls_cipher(struct dst_remote *r)
{
	return READ_ONCE(r->tls_cipher);
}

u64 dst_remote_crc_errors(struct dst_remote *r)
{
	return atomic64_read(&r->crc_errors);
}

u64 dst_remote_size(struct dst_remote *r)
{
	return READ_ONCE(r->size);
}

u64 dst_remote_session(struct dst_remote *r)
{
	return READ_ONCE(r->session.id);
}

const struct sockaddr_storage *dst_remote_addr(struct dst_remote *r, int *len)
{
	*len = r->addrlen;
	return &r->addr;
}

int __init dst_remote_init(void)
{
	dst_remote_wq = alloc_workqueue("dst_remote", WQ_MEM_RECLAIM, 0);
	return dst_remote_wq ? 0 : -ENOMEM;
}

void dst_remote_exit(void)
{
	destroy_workqueue(dst_remote_wq);
}
