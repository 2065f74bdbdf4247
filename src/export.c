// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - exports: a block device served on a TCP port.
 *
 * Each export opens its device exclusively and owns a listening socket and
 * an accept thread; every accepted connection gets a client (server.c).
 * An export pins the module, so rmmod waits for "dstadm unexport".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "dst.h"
#include "export.h"

static DEFINE_XARRAY_ALLOC(dst_exports);
static DEFINE_MUTEX(dst_exports_lock);

void dst_export_lock(void)
{
	mutex_lock(&dst_exports_lock);
}

void dst_export_unlock(void)
{
	mutex_unlock(&dst_exports_lock);
}

const char *dst_export_name(struct dst_export *exp)
{
	return exp->name;
}

struct dst_export *dst_export_find(const char *name)
{
	struct dst_export *exp;
	unsigned long index;

	lockdep_assert_held(&dst_exports_lock);

	xa_for_each(&dst_exports, index, exp)
		if (!strcmp(exp->name, name))
			return exp;
	return NULL;
}

/*
 * The device of the export of this host that a connection of @session (a
 * remote node of this host) is a client of, if any: that node is an
 * export of this host imported back.
 */
struct block_device *dst_export_session_bdev(u64 session)
{
	struct dst_export *exp;
	unsigned long index;

	lockdep_assert_held(&dst_exports_lock);

	xa_for_each(&dst_exports, index, exp)
		if (dst_export_serves(exp, session))
			return exp->bdev;
	return NULL;
}

/* The export with the lowest index >= *@index, and *@index set to it. */
struct dst_export *dst_export_next(unsigned long *index)
{
	lockdep_assert_held(&dst_exports_lock);

	return xa_find(&dst_exports, index, ULONG_MAX, XA_PRESENT);
}

/* Wait up to half a second for fewer than DST_MAX_HANDSHAKES. */
static bool dst_export_may_accept(struct dst_export *exp)
{
	return wait_event_interruptible_timeout(exp->wait,
			READ_ONCE(exp->handshakes) < DST_MAX_HANDSHAKES,
			HZ / 2) > 0;
}

static int dst_export_accept(void *data)
{
	struct dst_export *exp = data;
	struct socket *sock;
	int err;

	while (!kthread_should_stop()) {
		/*
		 * Each client gets a thread once accepted; those not through
		 * their handshake yet (each bounded by its deadline) are
		 * few, the next ones wait in the listen backlog.
		 */
		if (!dst_export_may_accept(exp))
			continue;
		/* The listener's receive timeout bounds each wait. */
		err = kernel_accept(exp->listen, &sock, 0);
		if (err == -EAGAIN || err == -EINTR)
			continue;
		if (err) {
			pr_err("export %s: accept failed (%d), no new clients\n",
			       exp->name, err);
			break;
		}
		/* For the TLS agent; on failure the socket is gone. */
		if (exp->tls && dst_sock_file(sock))
			continue;
		dst_client_start(exp, sock);
	}
	/* Wait for dst_export_destroy(). */
	dst_wait_for_stop();
	return 0;
}

static int dst_export_listen(struct dst_export *exp, const char **why)
{
	int err;

	err = sock_create_kern(&init_net, exp->addr.ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &exp->listen);
	if (err) {
		*why = "cannot create a socket";
		return err;
	}
	sock_set_reuseaddr(exp->listen->sk);
	exp->listen->sk->sk_rcvtimeo = HZ / 2;
	err = kernel_bind(exp->listen, (struct sockaddr *)&exp->addr,
			  exp->addrlen);
	if (err) {
		*why = err == -EADDRINUSE ? "address already in use" :
					    "cannot bind to the address";
		goto err;
	}
	err = kernel_listen(exp->listen, 256);
	if (err) {
		*why = "cannot listen";
		goto err;
	}
	return 0;
err:
	sock_release(exp->listen);
	return err;
}

/* What the export can do, from its device. */
static void dst_export_probe(struct dst_export *exp)
{
	struct block_device *bdev = exp->bdev;

	exp->size = round_down(bdev_nr_bytes(bdev),
			       bdev_logical_block_size(bdev));
	exp->logical_block_size = bdev_logical_block_size(bdev);
	exp->physical_block_size = bdev_physical_block_size(bdev);
	exp->max_request = DST_MAX_REQUEST;
	exp->features = DST_FEAT_FLUSH | DST_FEAT_FUA | DST_FEAT_RESIZE |
			DST_FEAT_CHECKSUM;
	if (bdev_max_discard_sectors(bdev))
		exp->features |= DST_FEAT_DISCARD;
	if (bdev_write_zeroes_sectors(bdev))
		exp->features |= DST_FEAT_WRITE_ZEROES;
}

/*
 * A new export; it takes over @opts->acl, also on failure.  The secret is
 * kept only as the key of an HMAC transform.
 */
struct dst_export *dst_export_create(const char *name, const char *path,
				     const struct sockaddr_storage *addr,
				     int addrlen, struct dst_export_opts *opts,
				     const char **why, int *errp)
{
	struct dst_export *exp;
	u32 index;
	int err;

	lockdep_assert_held(&dst_exports_lock);

	exp = kzalloc(sizeof(*exp), GFP_KERNEL);
	if (!exp) {
		dst_access_free(opts->acl);
		err = -ENOMEM;
		goto out;
	}
	strscpy(exp->name, name, sizeof(exp->name));
	strscpy(exp->path, path, sizeof(exp->path));
	memcpy(&exp->addr, addr, addrlen);
	exp->addrlen = addrlen;
	exp->read_only = opts->read_only;
	exp->mode = FMODE_READ | FMODE_EXCL |
		    (opts->read_only ? 0 : FMODE_WRITE);
	exp->acl = opts->acl;
	exp->integrity = opts->integrity;
	exp->shared = opts->shared;
	do {
		exp->instance = get_random_u64();
	} while (!exp->instance);
	INIT_LIST_HEAD(&exp->clients);
	mutex_init(&exp->lock);
	atomic_set(&exp->threads, 1);
	init_waitqueue_head(&exp->wait);
	init_completion(&exp->gone);

	if (opts->secret) {
		exp->auth = dst_auth_new(opts->secret, opts->secret_len);
		if (IS_ERR(exp->auth)) {
			err = PTR_ERR(exp->auth);
			exp->auth = NULL;
			*why = "cannot set up HMAC-SHA256 for the secret";
			goto err_free;
		}
	}
	if (opts->tls) {
		exp->tls = dst_tls_dup(opts->tls);
		if (!exp->tls) {
			err = -ENOMEM;
			goto err_free;
		}
	}

	exp->bdev = blkdev_get_by_path(path, exp->mode, exp);
	if (IS_ERR(exp->bdev)) {
		err = PTR_ERR(exp->bdev);
		*why = err == -EBUSY ? "the device is in use" :
				       "cannot open the device";
		goto err_free;
	}
	dst_export_probe(exp);

	err = dst_export_listen(exp, why);
	if (err)
		goto err_bdev;

	err = xa_alloc(&dst_exports, &index, exp, xa_limit_32b, GFP_KERNEL);
	if (err)
		goto err_sock;
	exp->index = index;

	exp->acceptor = kthread_run(dst_export_accept, exp, "dst-export/%u",
				    index);
	if (IS_ERR(exp->acceptor)) {
		err = PTR_ERR(exp->acceptor);
		*why = "cannot start the accept thread";
		goto err_xa;
	}
	__module_get(THIS_MODULE);
	pr_info("export %s: %s on %pISpc%s%s%s%s%s\n", exp->name, exp->path,
		&exp->addr, exp->read_only ? ", read-only" : "",
		exp->auth ? ", secret" : "", exp->integrity ? ", crc32c" : "",
		exp->shared ? ", shared" : "", exp->tls ? ", tls" : "");
	if (!exp->acl)
		pr_info("export %s: no allow list, accepting loopback clients only\n",
			exp->name);
	return exp;

err_xa:
	xa_erase(&dst_exports, index);
err_sock:
	sock_release(exp->listen);
err_bdev:
	blkdev_put(exp->bdev, exp->mode);
err_free:
	dst_tls_free(exp->tls);
	dst_auth_free(exp->auth);
	dst_access_free(exp->acl);
	kfree(exp);
out:
	*errp = err;
	return NULL;
}

/*
 * Serve the device's size now: a device that grew (lvextend, losetup -c,
 * a storage of this host that grew) is told to the clients that take
 * size notices, the others keep the size they were told.
 */
int dst_export_resize(struct dst_export *exp, const char **why)
{
	lockdep_assert_held(&dst_exports_lock);

	return dst_export_set_size(exp, round_down(bdev_nr_bytes(exp->bdev),
						   exp->logical_block_size),
				   why);
}

/* @disk, a storage's, grew: so do the exports of it. */
void dst_export_disk_resized(struct gendisk *disk)
{
	struct dst_export *exp;
	unsigned long index;
	const char *why;

	mutex_lock(&dst_exports_lock);
	xa_for_each(&dst_exports, index, exp)
		if (exp->bdev->bd_disk == disk && dst_export_resize(exp, &why))
			pr_warn("export %s: not resized: %s\n", exp->name, why);
	mutex_unlock(&dst_exports_lock);
}

/* Take @exp out of the registry: no one finds it any more. */
void dst_export_unlist(struct dst_export *exp)
{
	lockdep_assert_held(&dst_exports_lock);

	xa_erase(&dst_exports, exp->index);
}

/*
 * Stop listening, close every client, wait for their I/O, and free an
 * export that is out of the registry; no lock held, as this may take long.
 */
void dst_export_destroy(struct dst_export *exp)
{
	/* The acceptor sees the stop within its accept timeout. */
	kthread_stop(exp->acceptor);
	/* The port is free for a new export at once. */
	sock_release(exp->listen);
	dst_export_close_clients(exp);
	if (!atomic_dec_and_test(&exp->threads))
		wait_for_completion(&exp->gone);

	blkdev_put(exp->bdev, exp->mode);
	pr_info("export %s: stopped\n", exp->name);
	dst_tls_free(exp->tls);
	dst_auth_free(exp->auth);
	dst_access_free(exp->acl);
	kfree(exp);
	module_put(THIS_MODULE);
}

int dst_export_fill(struct sk_buff *skb, struct dst_export *exp)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, DST_A_EXPORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, DST_EXPORT_A_NAME, exp->name) ||
	    nla_put_string(skb, DST_EXPORT_A_DEVICE, exp->path) ||
	    nla_put(skb, DST_EXPORT_A_ADDR, exp->addrlen, &exp->addr) ||
	    (exp->read_only && nla_put_flag(skb, DST_EXPORT_A_READ_ONLY)) ||
	    nla_put_u64_64bit(skb, DST_EXPORT_A_SIZE, exp->size,
			      DST_EXPORT_A_PAD) ||
	    nla_put_u32(skb, DST_EXPORT_A_CLIENTS, READ_ONCE(exp->nr_clients)) ||
	    nla_put_u64_64bit(skb, DST_EXPORT_A_REFUSED,
			      atomic64_read(&exp->refused), DST_EXPORT_A_PAD) ||
	    nla_put_u64_64bit(skb, DST_EXPORT_A_DENIED,
			      atomic64_read(&exp->denied), DST_EXPORT_A_PAD) ||
	    nla_put_u64_64bit(skb, DST_EXPORT_A_AUTH_FAILED,
			      atomic64_read(&exp->auth_failed),
			      DST_EXPORT_A_PAD) ||
	    nla_put_u64_64bit(skb, DST_EXPORT_A_CRC_ERRORS,
			      atomic64_read(&exp->crc_errors),
			      DST_EXPORT_A_PAD) ||
	    (exp->auth && nla_put_flag(skb, DST_EXPORT_A_AUTH)) ||
	    (exp->integrity && nla_put_flag(skb, DST_EXPORT_A_INTEGRITY)) ||
	    (exp->shared && nla_put_flag(skb, DST_EXPORT_A_SHARED)) ||
	    dst_access_fill(skb, DST_EXPORT_A_ALLOW, exp->acl) ||
	    dst_tls_fill(skb, exp->tls, &dst_export_tls_attrs) ||
	    dst_export_fill_clients(skb, exp)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}
