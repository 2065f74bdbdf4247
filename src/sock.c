// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - socket helpers shared by client and server.
 *
 * Everything here may run while the system writes out memory through a
 * dst disk: socket allocations are GFP_NOIO from the memalloc reserves and
 * the calling task does no reclaim, as nbd's sock_xmit does.
 */
#include <linux/bio.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/blkdev.h>
#include <linux/net.h>
#include <linux/sched/mm.h>
#include <linux/tcp.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "dst.h"

/*
 * A peer that vanished without a word (its reset lost with the link) is
 * let go after this long: probed after DST_KEEPIDLE s of silence, every
 * DST_KEEPINTVL s, and given up after DST_KEEPCNT probes, or when what
 * was sent stays unacknowledged for as long.
 */
#define DST_KEEPIDLE		30
#define DST_KEEPINTVL		5
#define DST_KEEPCNT		4

/*
 * A connection of either end.  @memalloc for the client's: the writes it
 * carries may be what frees memory, so it may use the reserves, as nbd's.
 * Unacknowledged data gives up after @timeout seconds, or after as long
 * as keepalive takes if that is longer.
 */
void dst_sock_setup(struct socket *sock, bool memalloc, unsigned int timeout)
{
	unsigned int keep = DST_KEEPIDLE + DST_KEEPINTVL * DST_KEEPCNT;
	struct sock *sk = sock->sk;

	if (memalloc)
		sk_set_memalloc(sk);
	sk->sk_allocation = GFP_NOIO | (memalloc ? __GFP_MEMALLOC : 0);
	sk->sk_use_task_frag = false;
	tcp_sock_set_nodelay(sk);
	sock_set_keepalive(sk);
	tcp_sock_set_keepidle(sk, DST_KEEPIDLE);
	tcp_sock_set_keepintvl(sk, DST_KEEPINTVL);
	tcp_sock_set_keepcnt(sk, DST_KEEPCNT);
	tcp_sock_set_user_timeout(sk, max(timeout, keep) * MSEC_PER_SEC);
}

static void dst_deadline_fire(struct work_struct *work)
{
	struct dst_deadline *d = container_of(to_delayed_work(work),
					      struct dst_deadline, work);

	WRITE_ONCE(d->expired, true);
	kernel_sock_shutdown(d->sock, SHUT_RDWR);
}

/*
 * One deadline for a whole exchange on @sock (a handshake): a receive
 * timeout bounds each wait only, and a peer that sends a byte now and
 * then would never meet it.  At @timeout the socket is shut down.
 */
void dst_deadline_start(struct dst_deadline *d, struct socket *sock,
			unsigned long timeout)
{
	d->sock = sock;
	d->expired = false;
	INIT_DELAYED_WORK_ONSTACK(&d->work, dst_deadline_fire);
	schedule_delayed_work(&d->work, timeout);
}

/* The exchange is over; whether the deadline had passed. */
bool dst_deadline_end(struct dst_deadline *d)
{
	cancel_delayed_work_sync(&d->work);
	destroy_delayed_work_on_stack(&d->work);
	return d->expired;
}

#ifdef CONFIG_DEBUG_LOCK_ALLOC
static struct lock_class_key dst_sk_key[2];
#endif

/*
 * Give @sock's lock a lockdep class of dst's own, once the agent's TLS
 * handshake on it is done and before dst's data goes over it.  The agent
 * works on the socket from userspace, where a fault takes mmap_lock with
 * the socket's lock held; dst's data path takes that lock with a
 * filesystem's locks held (a bio submitted under them).  Both never work
 * on one socket at once, but in lockdep's one class for every kernel
 * socket (k-sk_lock) they would close a cycle through mmap_lock.  Only the
 * map lockdep checks changes, which softirq never takes (it takes the
 * spinlock): unlike sunrpc's and nvme-tcp's reclassification at creation,
 * this can be done on a connected socket.
 */
void dst_sock_lockdep(struct socket *sock)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct sock *sk = sock->sk;
	bool v6 = sk->sk_family == AF_INET6;

	WARN_ON_ONCE(sock_owned_by_user_nocheck(sk));
	lockdep_set_class_and_name(&sk->sk_lock, &dst_sk_key[v6],
				   v6 ? "sk_lock-AF_INET6-dst" :
					"sk_lock-AF_INET-dst");
#endif
}

/*
 * Give @sock a file, which a TLS handshake needs to go to the agent (as
 * nvme-tcp does); it is then released with the file.  On failure @sock
 * is released already.
 */
int dst_sock_file(struct socket *sock)
{
	return PTR_ERR_OR_ZERO(sock_alloc_file(sock, O_CLOEXEC, NULL));
}

/*
 * Release a connection, set up by dst_sock_setup() or not.  One with a
 * file (TLS) goes with the file's last reference, after fput() a moment
 * later; shut down first, so that a reference the agent may still hold
 * keeps no connection going.  sk_clear_memalloc() reclaims the socket's
 * forward allocation, which softirq may still change while the socket is
 * not closed yet: under the socket's lock, where sk_mem_reclaim() runs.
 */
void dst_sock_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (sock_flag(sk, SOCK_MEMALLOC)) {
		lock_sock(sk);
		sk_clear_memalloc(sk);
		release_sock(sk);
	}
	if (sock->file) {
		kernel_sock_shutdown(sock, SHUT_RDWR);
		fput(sock->file);
	} else {
		sock_release(sock);
	}
}

/*
 * Move all of @iter.  The end of the stream gives -ENOTCONN before the
 * first byte and -EPIPE after it, so that a peer that closes between
 * messages is told from one that stops in the middle of one.
 */
static int dst_sock_iter(struct socket *sock, bool send, struct iov_iter *iter,
			 int flags)
{
	struct msghdr msg = { .msg_iter = *iter };
	size_t total = msg_data_left(&msg);
	unsigned int noreclaim;
	int ret = 0;

	noreclaim = memalloc_noreclaim_save();
	while (msg_data_left(&msg)) {
		msg.msg_flags = flags | MSG_NOSIGNAL;
		if (send)
			ret = sock_sendmsg(sock, &msg);
		else
			ret = sock_recvmsg(sock, &msg, msg.msg_flags);
		if (ret <= 0) {
			if (!ret)
				ret = msg_data_left(&msg) == total ? -ENOTCONN : -EPIPE;
			break;
		}
		ret = 0;
	}
	memalloc_noreclaim_restore(noreclaim);
	return ret;
}

/*
 * Send all of @buf; 0 or a negative errno.  @more says that more of the
 * same message follows at once, so that TCP may put them in one segment.
 */
int dst_sock_send(struct socket *sock, const void *buf, size_t len, bool more)
{
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_kvec(&iter, ITER_SOURCE, &vec, 1, len);
	return dst_sock_iter(sock, true, &iter, more ? MSG_MORE : 0);
}

/* Receive all of @buf; 0 or a negative errno. */
int dst_sock_recv(struct socket *sock, void *buf, size_t len)
{
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_kvec(&iter, ITER_DEST, &vec, 1, len);
	return dst_sock_iter(sock, false, &iter, MSG_WAITALL);
}

/* Send one segment, by reference where that is safe, else by copy. */
static int dst_sock_send_page(struct socket *sock, const struct bio_vec *bv,
			      int flags)
{
	unsigned int off = bv->bv_offset, len = bv->bv_len, noreclaim;
	struct iov_iter from;
	int sent, ret = 0;

	if (!sendpage_ok(bv->bv_page)) {
		iov_iter_bvec(&from, ITER_SOURCE, bv, 1, len);
		return dst_sock_iter(sock, true, &from, flags);
	}
	noreclaim = memalloc_noreclaim_save();
	while (len) {
		sent = kernel_sendpage(sock, bv->bv_page, off, len,
				       flags | MSG_NOSIGNAL);
		if (sent <= 0) {
			ret = sent ?: -EPIPE;
			break;
		}
		off += sent;
		len -= sent;
	}
	memalloc_noreclaim_restore(noreclaim);
	return ret;
}

/*
 * Send the data of @bio without copying it: the pages go to the socket by
 * reference (sendpage) where that is safe, else they are copied.  The last
 * page pushes the segment out unless @more.  With @whole, a segment per
 * bvec: only for bios whose multi-page bvecs are compound pages, which
 * sendpage takes whole; else a segment per page.
 */
int dst_sock_send_bio(struct socket *sock, struct bio *bio, bool whole,
		      bool more)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	bool last;
	int ret;

	for (iter = bio->bi_iter; iter.bi_size;
	     bio_advance_iter_single(bio, &iter, bv.bv_len)) {
		bv = whole ? mp_bvec_iter_bvec(bio->bi_io_vec, iter) :
			     bio_iter_iovec(bio, iter);
		last = iter.bi_size == bv.bv_len;
		ret = dst_sock_send_page(sock, &bv,
					 last && !more ? 0 : MSG_MORE);
		if (ret)
			return ret;
	}
	return 0;
}

/* Sleep until kthread_stop(): for threads whose work ended early. */
void dst_wait_for_stop(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

/* Receive the data of @bio straight into its pages. */
int dst_sock_recv_bio(struct socket *sock, struct bio *bio)
{
	struct bvec_iter iter;
	struct iov_iter to;
	struct bio_vec bv;
	int ret;

	bio_for_each_bvec(bv, bio, iter) {
		iov_iter_bvec(&to, ITER_DEST, &bv, 1, bv.bv_len);
		ret = dst_sock_iter(sock, false, &to, MSG_WAITALL);
		if (ret)
			return ret;
	}
	return 0;
}

static const struct {
	u32 status;
	int err;
} dst_status_map[] = {
	{ DST_EIO,		-EIO },
	{ DST_EINVAL,		-EINVAL },
	{ DST_EROFS,		-EROFS },
	{ DST_ENOSPC,		-ENOSPC },
	{ DST_EOPNOTSUPP,	-EOPNOTSUPP },
	{ DST_ENOMEM,		-ENOMEM },
	{ DST_EPERM,		-EPERM },
};

u32 dst_errno_to_status(int err)
{
	int i;

	if (!err)
		return DST_OK;
	for (i = 0; i < ARRAY_SIZE(dst_status_map); i++)
		if (dst_status_map[i].err == err)
			return dst_status_map[i].status;
	return DST_EIO;
}

/* An unknown status from the peer is an I/O error. */
blk_status_t dst_status_to_blk(u32 status)
{
	int i;

	if (status == DST_OK)
		return BLK_STS_OK;
	for (i = 0; i < ARRAY_SIZE(dst_status_map); i++)
		if (dst_status_map[i].status == status)
			return errno_to_blk_status(dst_status_map[i].err);
	return BLK_STS_IOERR;
}
