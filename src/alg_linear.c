// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the "linear" algorithm: nodes concatenated
 * in the order they are added, as dm-linear and md linear do.
 */
#include <linux/bio.h>
#include <linux/module.h>

#include "dst.h"

/* Nodes follow each other in the order they were added. */
static void dst_linear_layout(struct dst_storage *st)
{
	struct dst_node *node;

	st->size = 0;
	list_for_each_entry(node, &st->nodes, list) {
		node->start = st->size;
		st->size += node->size;
	}
}

static struct dst_node *dst_linear_find(struct dst_storage *st, u64 pos)
{
	struct dst_node *node;

	list_for_each_entry(node, &st->nodes, list)
		if (pos < node->start + node->size)
			return node;
	return NULL;
}

/* Send each part of @bio to the node that holds it. */
static void dst_linear_map(struct dst_storage *st, struct bio *bio)
{
	struct dst_node *node;
	struct bio *split;
	u64 pos, end;

	for (;;) {
		pos = (u64)bio->bi_iter.bi_sector << SECTOR_SHIFT;
		node = dst_linear_find(st, pos);
		if (!node) {
			bio_io_error(bio);
			return;
		}
		end = node->start + node->size;
		if (pos + bio->bi_iter.bi_size <= end)
			break;
		split = bio_split(bio, (end - pos) >> SECTOR_SHIFT, GFP_NOIO,
				  &st->bs);
		bio_chain(split, bio);
		dst_node_submit(node, split);
	}
	dst_node_submit(node, bio);
}

/*
 * The last node's growth extends the storage; another node's would move
 * the data of the nodes after it, and is not used.
 */
static int dst_linear_resize(struct dst_storage *st, bool assume_clean,
			     const char **why)
{
	struct dst_node *last = list_last_entry(&st->nodes, struct dst_node,
						list);
	u64 end = last->start + dst_node_capacity(last);

	if (st->state == DST_STORAGE_RUNNING)
		end = round_down(end, st->limits.logical_block_size);
	if (end <= st->size)
		return 0;
	if (end > DST_MAX_SIZE) {
		*why = "the storage would be larger than 1 EiB";
		return -EFBIG;
	}
	/* The disk is not larger yet: no I/O goes past the old end. */
	WRITE_ONCE(last->size, end - last->start);
	st->size = end;
	return 0;
}

static struct dst_alg_ops dst_linear_alg = {
	.name		= "linear",
	.owner		= THIS_MODULE,
	.layout		= dst_linear_layout,
	.map		= dst_linear_map,
	.resize		= dst_linear_resize,
};

int __init dst_linear_init(void)
{
	return dst_register_alg(&dst_linear_alg);
}

void dst_linear_exit(void)
{
	dst_unregister_alg(&dst_linear_alg);
}
