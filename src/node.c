// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - nodes, the devices a storage is built from.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "dst.h"

#define DST_LOCAL_MODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)

/* A node; its storage and id are set when it is added to one. */
static struct dst_node *dst_node_alloc(enum dst_node_type type)
{
	struct dst_node *node;

	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node)
		return NULL;
	node->type = type;
	atomic64_set(&node->read_bytes, 0);
	atomic64_set(&node->write_bytes, 0);
	return node;
}

/* A block device of this host, opened exclusively. */
struct dst_node *dst_node_create_local(const char *path, const char **why)
{
	struct dst_node_limits *lim;
	struct block_device *bdev;
	struct dst_node *node;

	node = dst_node_alloc(DST_NODE_LOCAL);
	if (!node)
		return ERR_PTR(-ENOMEM);
	bdev = blkdev_get_by_path(path, DST_LOCAL_MODE, node);
	if (IS_ERR(bdev)) {
		*why = PTR_ERR(bdev) == -EBUSY ? "the device is in use" :
						 "cannot open the device";
		kfree(node);
		return ERR_CAST(bdev);
	}
	node->bdev = bdev;
	strscpy(node->path, path, sizeof(node->path));

	lim = &node->limits;
	lim->logical_block_size = bdev_logical_block_size(bdev);
	lim->physical_block_size = bdev_physical_block_size(bdev);
	lim->max_request = DST_MAX_REQUEST;
	lim->read_only = bdev_read_only(bdev);
	lim->features = DST_FEAT_FLUSH | DST_FEAT_FUA;
	if (bdev_max_discard_sectors(bdev))
		lim->features |= DST_FEAT_DISCARD;
	if (bdev_write_zeroes_sectors(bdev))
		lim->features |= DST_FEAT_WRITE_ZEROES;
	node->size = round_down(bdev_nr_bytes(bdev), lim->logical_block_size);
	if (!node->size) {
		/* No medium, or a loop device with no file: not there yet. */
		*why = "the device is empty (0 bytes)";
		blkdev_put(bdev, DST_LOCAL_MODE);
		kfree(node);
		return ERR_PTR(-ENODEV);
	}
	return node;
}

/*
 * An export of another host, connected and handshaken now; it receives
 * once added to a storage.  No lock is needed: this may take the node's
 * timeout.
 */
struct dst_node *dst_node_create_remote(const struct sockaddr_storage *addr,
					int addrlen,
					const struct dst_remote_opts *opts,
					const char **why)
{
	struct dst_node *node;
	struct dst_remote *r;

	node = dst_node_alloc(DST_NODE_REMOTE);
	if (!node)
		return ERR_PTR(-ENOMEM);

	r = dst_remote_connect(node, addr, addrlen, opts, why);
	if (IS_ERR(r)) {
		kfree(node);
		return ERR_CAST(r);
	}
	node->remote = r;
	return node;
}

void dst_node_destroy(struct dst_node *node)
{
	if (node->remote)
		dst_remote_destroy(node->remote);
	if (node->bdev)
		blkdev_put(node->bdev, DST_LOCAL_MODE);
	kfree(node);
}

/* Send @bio, whose sector is relative to the storage, to @node. */
void dst_node_submit(struct dst_node *node, struct bio *bio)
{
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector -= node->start >> SECTOR_SHIFT;
	if (node->remote) {
		dst_remote_submit(node->remote, bio);
		return;
	}
	if (bio_op(bio) == REQ_OP_READ)
		atomic64_add(bio->bi_iter.bi_size, &node->read_bytes);
	else if (bio_op(bio) == REQ_OP_WRITE)
		atomic64_add(bio->bi_iter.bi_size, &node->write_bytes);
	bio_set_dev(bio, node->bdev);
	submit_bio_noacct(bio);
}

enum dst_node_state dst_node_state(struct dst_node *node)
{
	return node->remote ? dst_remote_state(node->remote) :
			      DST_NODE_CONNECTED;
}

/* The attributes that only one type of node has. */
static int dst_node_fill_type(struct sk_buff *skb, struct dst_node *node)
{
	const struct sockaddr_storage *addr;
	struct dst_remote_opts opts;
	u32 cipher;
	int addrlen;

	if (!node->remote)
		return nla_put_string(skb, DST_NODE_A_PATH, node->path);
	addr = dst_remote_addr(node->remote, &addrlen);
	dst_remote_get_opts(node->remote, &opts);
	cipher = dst_remote_tls_cipher(node->remote);
	if (nla_put(skb, DST_NODE_A_ADDR, addrlen, addr) ||
	    nla_put_u32(skb, DST_NODE_A_TIMEOUT, opts.timeout) ||
	    nla_put_u32(skb, DST_NODE_A_DEAD_TIMEOUT, opts.dead_timeout) ||
	    nla_put_u32(skb, DST_NODE_A_RECONNECT_MAX, opts.reconnect_max) ||
	    nla_put_u32(skb, DST_NODE_A_RECONNECTS,
			dst_remote_reconnects(node->remote)) ||
	    nla_put_u32(skb, DST_NODE_A_INFLIGHT,
			dst_remote_inflight(node->remote)) ||
	    (opts.integrity && nla_put_flag(skb, DST_NODE_A_INTEGRITY)) ||
	    (dst_remote_auth(node->remote) &&
	     nla_put_flag(skb, DST_NODE_A_AUTH)) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_CRC_ERRORS,
			      dst_remote_crc_errors(node->remote),
			      DST_NODE_A_PAD) ||
	    dst_tls_fill(skb, dst_remote_tls(node->remote),
			 &dst_node_tls_attrs) ||
	    (cipher && nla_put_u32(skb, DST_NODE_A_TLS_CIPHER_USED, cipher)))
		return -EMSGSIZE;
	return 0;
}

/* Put a DST_A_NODE nest describing @node. */
int dst_node_fill(struct sk_buff *skb, struct dst_node *node)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, DST_A_NODE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DST_NODE_A_ID, node->id) ||
	    nla_put_u32(skb, DST_NODE_A_TYPE, node->type) ||
	    dst_node_fill_type(skb, node) ||
	    nla_put_u32(skb, DST_NODE_A_STATE, dst_node_state(node)) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_SIZE, node->size,
			      DST_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_READ_BYTES,
			      atomic64_read(&node->read_bytes),
			      DST_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_WRITE_BYTES,
			      atomic64_read(&node->write_bytes),
			      DST_NODE_A_PAD) ||
	    (node->write_mostly &&
	     nla_put_flag(skb, DST_NODE_A_WRITE_MOSTLY)) ||
	    (node->write_behind &&
	     nla_put_u32(skb, DST_NODE_A_WRITE_BEHIND, node->write_behind)) ||
	    (node->st->state == DST_STORAGE_RUNNING && !node->leaving &&
	     node->st->alg->fill_node && node->st->alg->fill_node(skb, node))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}
