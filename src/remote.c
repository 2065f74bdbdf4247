// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the client of a remote export.
 *
 * A remote node owns one TCP connection.  Bios are sent from the context
 * that submits them, under tx_lock, as nbd does; one receive thread reads
 * the replies, which may come in any order, and completes the bios,
 * receiving read data straight into their pages.
 *
 * Requests live in a table of DST_REMOTE_DEPTH slots allocated with the
 * connection, so the I/O path allocates nothing.  A handle is the slot
 * index and a sequence number bumped at each use of the slot, so that a
 * stale or forged handle is recognised.  A slot has two references, one
 * for sending and one for the reply; the bio completes when both are gone,
 * so a reply that comes early never races with the pages being sent.
 *
 * Any protocol violation, a send or receive error, or a request older than
 * the timeout kills the connection: every request in flight and every new
 * one fails with EIO.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "dst.h"

#define DST_REMOTE_DEPTH	128
#define DST_HANDSHAKE_TIMEOUT	(10 * HZ)

struct dst_remote_req {
	struct bio *bio;
	unsigned long start;
	refcount_t refs;
	blk_status_t status;
	u32 seq;
	u8 cmd;
	bool awaiting_reply;
};

struct dst_remote {
	struct dst_node *node;
	struct socket *sock;
	struct sockaddr_storage addr;
	int addrlen;
	unsigned long timeout;
	struct mutex tx_lock;		/* one sender at a time */
	spinlock_t lock;		/* slots, busy, dead */
	DECLARE_BITMAP(busy, DST_REMOTE_DEPTH);
	unsigned int nr_busy;
	bool dead;
	wait_queue_head_t wait;
	struct task_struct *rx;
	struct delayed_work timeout_work;
	struct dst_remote_req reqs[DST_REMOTE_DEPTH];
};

static u64 dst_handle(struct dst_remote *r, struct dst_remote_req *req)
{
	return (u64)req->seq << 32 | (req - r->reqs);
}

/* Close the connection; the receive thread fails what is in flight. */
static void dst_remote_kill(struct dst_remote *r)
{
	spin_lock(&r->lock);
	r->dead = true;
	spin_unlock(&r->lock);
	kernel_sock_shutdown(r->sock, SHUT_RDWR);
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

/* Take a free slot for @bio, waiting for one; NULL if the connection is dead. */
static struct dst_remote_req *dst_remote_get_req(struct dst_remote *r,
						 struct bio *bio, u8 cmd)
{
	struct dst_remote_req *req;
	unsigned int idx;

	for (;;) {
		wait_event(r->wait, READ_ONCE(r->dead) ||
			   READ_ONCE(r->nr_busy) < DST_REMOTE_DEPTH);
		spin_lock(&r->lock);
		if (r->dead) {
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
	req->seq++;
	req->start = jiffies;
	req->status = BLK_STS_OK;
	req->awaiting_reply = true;
	refcount_set(&req->refs, 2);
	spin_unlock(&r->lock);
	return req;
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
	default:
		return -EOPNOTSUPP;
	}
}

/* Send @bio; its sector is relative to the node. */
void dst_remote_submit(struct dst_remote *r, struct bio *bio)
{
	struct dst_remote_req *req;
	struct dst_request hdr;
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

	mutex_lock(&r->tx_lock);
	err = READ_ONCE(r->dead) ? -ENOTCONN :
	      dst_sock_send(r->sock, &hdr, sizeof(hdr), cmd == DST_REQ_WRITE);
	if (!err && cmd == DST_REQ_WRITE)
		err = dst_sock_send_bio(r->sock, bio, false, false);
	mutex_unlock(&r->tx_lock);

	if (err && !READ_ONCE(r->dead)) {
		pr_err_ratelimited("dst%u: node %u: send to %pISpc failed (%d), closing the connection\n",
				   r->node->st->id, r->node->id, &r->addr, err);
		dst_remote_kill(r);
	}
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

/* Read and complete one reply; a negative errno ends the connection. */
static int dst_remote_recv_one(struct dst_remote *r, const char **why)
{
	struct dst_remote_req *req;
	struct dst_reply rep;
	u32 status, len;
	int err;

	err = dst_sock_recv(r->sock, &rep, sizeof(rep));
	if (err) {
		*why = "connection lost";
		return err;
	}
	if (be32_to_cpu(rep.magic) != DST_REP_MAGIC ||
	    rep.version != DST_PROTO_VERSION || rep.reserved) {
		*why = "bad reply header";
		return -EPROTO;
	}
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
			err = dst_sock_recv_bio(r->sock, req->bio);
			if (err)
				*why = "connection lost in read data";
		}
	} else if (len) {
		*why = "reply with unexpected data";
		err = -EPROTO;
	}
	req->status = err ? BLK_STS_IOERR : dst_status_to_blk(status);
	dst_remote_put_req(r, req);
	return err;
}

/* Fail every request still waiting for its reply. */
static void dst_remote_fail_all(struct dst_remote *r)
{
	struct dst_remote_req *req;
	unsigned int i;

	for (i = 0; i < DST_REMOTE_DEPTH; i++) {
		req = &r->reqs[i];
		spin_lock(&r->lock);
		if (!req->awaiting_reply) {
			spin_unlock(&r->lock);
			continue;
		}
		req->awaiting_reply = false;
		spin_unlock(&r->lock);
		req->status = BLK_STS_IOERR;
		dst_remote_put_req(r, req);
	}
}

static int dst_remote_rx(void *data)
{
	struct dst_remote *r = data;
	const char *why = NULL;
	int err;

	do {
		err = dst_remote_recv_one(r, &why);
	} while (!err);

	if (!READ_ONCE(r->dead))
		pr_err("dst%u: node %u: %pISpc: %s (%d), failing its I/O\n",
		       r->node->st->id, r->node->id, &r->addr, why, err);
	dst_remote_kill(r);
	dst_remote_fail_all(r);

	/* Wait for dst_remote_destroy(). */
	dst_wait_for_stop();
	return 0;
}

static void dst_remote_timeout_work(struct work_struct *work)
{
	struct dst_remote *r = container_of(to_delayed_work(work),
					    struct dst_remote, timeout_work);
	bool expired = false;
	unsigned int i;

	spin_lock(&r->lock);
	for_each_set_bit(i, r->busy, DST_REMOTE_DEPTH) {
		if (r->reqs[i].awaiting_reply &&
		    time_after(jiffies, r->reqs[i].start + r->timeout)) {
			expired = true;
			break;
		}
	}
	spin_unlock(&r->lock);

	if (expired && !READ_ONCE(r->dead)) {
		pr_err("dst%u: node %u: %pISpc: request timed out after %lu s, closing the connection\n",
		       r->node->st->id, r->node->id, &r->addr, r->timeout / HZ);
		dst_remote_kill(r);
	}
	if (!READ_ONCE(r->dead))
		schedule_delayed_work(&r->timeout_work, HZ);
}

static bool dst_valid_block_size(u32 bs)
{
	return bs >= SECTOR_SIZE && bs <= PAGE_SIZE && is_power_of_2(bs);
}

/* Hello and its reply: fills the node's size and limits. */
static int dst_remote_handshake(struct dst_remote *r, const char **why)
{
	struct dst_node_limits *lim = &r->node->limits;
	struct dst_hello_reply rep;
	struct dst_hello hello = {
		.magic = cpu_to_be32(DST_HELLO_MAGIC),
		.version = cpu_to_be16(DST_PROTO_VERSION),
		.features = cpu_to_be64(DST_FEAT_FLUSH | DST_FEAT_FUA |
					DST_FEAT_DISCARD |
					DST_FEAT_WRITE_ZEROES),
	};
	u32 pbs, max;
	u64 size;
	int err;

	err = dst_sock_send(r->sock, &hello, sizeof(hello), false);
	if (!err)
		err = dst_sock_recv(r->sock, &rep, sizeof(rep));
	if (err) {
		*why = "no hello from the export";
		return err;
	}
	if (be32_to_cpu(rep.magic) != DST_HELLO_MAGIC) {
		*why = "not a dst export (bad hello magic)";
		return -EPROTO;
	}
	if (rep.error) {
		rep.reason[DST_REASON_LEN - 1] = '\0';
		pr_err("%pISpc refused the connection: %s\n", &r->addr,
		       rep.reason);
		*why = be16_to_cpu(rep.error) == DST_EVERSION ?
		       "the export speaks another protocol version" :
		       "the export refused the connection";
		return be16_to_cpu(rep.error) == DST_EVERSION ?
		       -EPROTONOSUPPORT : -ECONNREFUSED;
	}
	if (be16_to_cpu(rep.version) != DST_PROTO_VERSION) {
		pr_err("%pISpc speaks protocol version %u, this module %u\n",
		       &r->addr, be16_to_cpu(rep.version), DST_PROTO_VERSION);
		*why = "the export speaks another protocol version";
		return -EPROTONOSUPPORT;
	}

	size = be64_to_cpu(rep.size);
	lim->logical_block_size = be32_to_cpu(rep.logical_block_size);
	pbs = be32_to_cpu(rep.physical_block_size);
	max = be32_to_cpu(rep.max_request);
	if (!dst_valid_block_size(lim->logical_block_size) ||
	    !is_power_of_2(pbs) || pbs < lim->logical_block_size ||
	    !size || size & (lim->logical_block_size - 1) ||
	    max < lim->logical_block_size) {
		*why = "the export sent impossible sizes";
		return -EPROTO;
	}
	lim->physical_block_size = pbs;
	lim->max_request = round_down(min(max, DST_MAX_REQUEST),
				      lim->logical_block_size);
	lim->read_only = be32_to_cpu(rep.flags) & DST_EXPORT_READ_ONLY;
	lim->features = be64_to_cpu(rep.features) &
			be64_to_cpu(hello.features);
	r->node->size = size;
	return 0;
}

struct dst_remote *dst_remote_connect(struct dst_node *node,
				      const struct sockaddr_storage *addr,
				      int addrlen, unsigned int timeout,
				      const char **why)
{
	struct dst_remote *r;
	int err;

	r = kvzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->node = node;
	memcpy(&r->addr, addr, addrlen);
	r->addrlen = addrlen;
	r->timeout = (timeout ?: DST_DEFAULT_TIMEOUT) * HZ;
	mutex_init(&r->tx_lock);
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->wait);
	INIT_DELAYED_WORK(&r->timeout_work, dst_remote_timeout_work);

	err = sock_create_kern(&init_net, addr->ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &r->sock);
	if (err) {
		*why = "cannot create a socket";
		goto err_free;
	}
	r->sock->sk->sk_sndtimeo = DST_HANDSHAKE_TIMEOUT;
	r->sock->sk->sk_rcvtimeo = DST_HANDSHAKE_TIMEOUT;
	err = kernel_connect(r->sock, (struct sockaddr *)&r->addr, addrlen, 0);
	if (err) {
		*why = "cannot connect to the export";
		goto err_sock;
	}
	err = dst_remote_handshake(r, why);
	if (err)
		goto err_sock;

	dst_sock_setup(r->sock);
	r->sock->sk->sk_sndtimeo = r->timeout;
	r->sock->sk->sk_rcvtimeo = MAX_SCHEDULE_TIMEOUT;

	r->rx = kthread_run(dst_remote_rx, r, "dst%u-n%u-rx", node->st->id,
			    node->id);
	if (IS_ERR(r->rx)) {
		err = PTR_ERR(r->rx);
		*why = "cannot start the receive thread";
		goto err_sock;
	}
	schedule_delayed_work(&r->timeout_work, HZ);
	return r;

err_sock:
	sock_release(r->sock);
err_free:
	kvfree(r);
	return ERR_PTR(err);
}

/* Close the connection, fail what is in flight, and free. */
void dst_remote_destroy(struct dst_remote *r)
{
	dst_remote_kill(r);
	kthread_stop(r->rx);
	cancel_delayed_work_sync(&r->timeout_work);
	/* Submitters still sending see the dead socket and let go. */
	wait_event(r->wait, !READ_ONCE(r->nr_busy));
	sock_release(r->sock);
	kvfree(r);
}

bool dst_remote_dead(struct dst_remote *r)
{
	return READ_ONCE(r->dead);
}

unsigned int dst_remote_inflight(struct dst_remote *r)
{
	return READ_ONCE(r->nr_busy);
}

unsigned int dst_remote_timeout(struct dst_remote *r)
{
	return r->timeout / HZ;
}

const struct sockaddr_storage *dst_remote_addr(struct dst_remote *r, int *len)
{
	*len = r->addrlen;
	return &r->addr;
}
