// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - nodes, the devices a storage is built from.
 */
#include <linux/slab.h>
#include <net/genetlink.h>

#include "dst.h"

struct dst_node *dst_node_create_remote(struct dst_storage *st,
					const struct sockaddr_storage *addr,
					int addrlen, unsigned int timeout,
					const char **why)
{
	struct dst_node *node;
	struct dst_remote *r;

	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node)
		return ERR_PTR(-ENOMEM);
	node->st = st;
	node->id = st->nr_nodes;
	node->type = DST_NODE_REMOTE;
	atomic64_set(&node->read_bytes, 0);
	atomic64_set(&node->write_bytes, 0);

	r = dst_remote_connect(node, addr, addrlen, timeout, why);
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
	kfree(node);
}

/* Send @bio, whose sector is relative to the storage, to @node. */
void dst_node_submit(struct dst_node *node, struct bio *bio)
{
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector -= node->start >> SECTOR_SHIFT;
	dst_remote_submit(node->remote, bio);
}

enum dst_node_state dst_node_state(struct dst_node *node)
{
	return dst_remote_dead(node->remote) ? DST_NODE_DEAD :
					       DST_NODE_CONNECTED;
}

/* Put a DST_A_NODE nest describing @node. */
int dst_node_fill(struct sk_buff *skb, struct dst_node *node)
{
	const struct sockaddr_storage *addr;
	struct nlattr *nest;
	int addrlen;

	nest = nla_nest_start(skb, DST_A_NODE);
	if (!nest)
		return -EMSGSIZE;
	addr = dst_remote_addr(node->remote, &addrlen);
	if (nla_put_u32(skb, DST_NODE_A_ID, node->id) ||
	    nla_put_u32(skb, DST_NODE_A_TYPE, node->type) ||
	    nla_put(skb, DST_NODE_A_ADDR, addrlen, addr) ||
	    nla_put_u32(skb, DST_NODE_A_TIMEOUT,
			dst_remote_timeout(node->remote)) ||
	    nla_put_u32(skb, DST_NODE_A_STATE, dst_node_state(node)) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_SIZE, node->size,
			      DST_NODE_A_PAD) ||
	    nla_put_u32(skb, DST_NODE_A_INFLIGHT,
			dst_remote_inflight(node->remote)) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_READ_BYTES,
			      atomic64_read(&node->read_bytes),
			      DST_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_WRITE_BYTES,
			      atomic64_read(&node->write_bytes),
			      DST_NODE_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}
