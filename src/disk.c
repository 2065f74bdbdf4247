// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - /dev/dstN, the disk of a running storage.
 *
 * The disk is bio based, like dm and md: each bio goes to the storage's
 * algorithm, which sends it on to the nodes.  Queue limits are stacked from
 * the nodes when the storage starts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/major.h>
#include <linux/workqueue.h>

#include "dst.h"

static int dst_major;

static struct workqueue_struct *dst_disk_wq;

/* A bio of the disk and the clone that goes on in its place. */
struct dst_io_acct {
	struct bio *orig;
	unsigned long start;
	struct bio clone;	/* last: the front pad of dst_storage.acct_bs */
};

static void dst_acct_endio(struct bio *clone)
{
	struct dst_io_acct *acct = container_of(clone, struct dst_io_acct,
						clone);
	struct bio *bio = acct->orig;

	bio->bi_status = clone->bi_status;
	bio_end_io_acct(bio, acct->start);
	bio_put(clone);
	bio_endio(bio);
}

/*
 * What iostat and /sys/block/dstN/stat show: @bio is counted, and a clone
 * of it goes on whose completion ends the count, as md_account_bio().
 */
static struct bio *dst_account(struct dst_storage *st, struct bio *bio)
{
	struct dst_io_acct *acct;
	struct bio *clone;

	if (!bio_sectors(bio))
		return bio;
	clone = bio_alloc_clone(bio->bi_bdev, bio, GFP_NOIO, &st->acct_bs);
	acct = container_of(clone, struct dst_io_acct, clone);
	acct->orig = bio;
	acct->start = bio_start_io_acct(bio);
	clone->bi_end_io = dst_acct_endio;
	return clone;
}

/* An empty flush goes to every node; @bio completes after all of them. */
static void dst_flush_all(struct dst_storage *st, struct bio *bio)
{
	struct dst_node *node;
	struct bio *clone;

	list_for_each_entry(node, &st->nodes, list) {
		clone = bio_alloc_bioset(NULL, 0, bio->bi_opf, GFP_NOIO,
					 &st->bs);
		bio_chain(clone, bio);
		dst_node_submit(node, clone);
	}
	bio_endio(bio);
}

static void dst_preflush_endio(struct bio *flush)
{
	struct bio *bio = flush->bi_private;
	struct dst_storage *st = bio->bi_bdev->bd_disk->private_data;
	blk_status_t status = flush->bi_status;
	unsigned long flags;

	bio_put(flush);
	if (status) {
		bio->bi_status = status;
		bio_endio(bio);
		return;
	}
	bio->bi_opf &= ~REQ_PREFLUSH;
	spin_lock_irqsave(&st->flush_lock, flags);
	bio_list_add(&st->flushed, bio);
	spin_unlock_irqrestore(&st->flush_lock, flags);
	queue_work(dst_disk_wq, &st->flush_work);
}

/* The data of writes whose preflush is done, resubmitted without it. */
static void dst_preflush_work(struct work_struct *work)
{
	struct dst_storage *st = container_of(work, struct dst_storage,
					      flush_work);
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&st->flush_lock);
	list = st->flushed;
	bio_list_init(&st->flushed);
	spin_unlock_irq(&st->flush_lock);
	while ((bio = bio_list_pop(&list)))
		submit_bio_noacct(bio);
}

/*
 * A write with REQ_PREFLUSH to a storage of several nodes: the writes it
 * must come after may be on any node, so every node is flushed before its
 * data goes out, as md_flush_request() does.  The flushes sit on
 * current->bio_list until ->submit_bio returns, so nothing here may wait
 * for them: the data is sent from a work item once they are done.
 */
static void dst_preflush(struct dst_storage *st, struct bio *bio)
{
	struct bio *flush;

	flush = bio_alloc_bioset(NULL, 0, REQ_OP_WRITE | REQ_PREFLUSH,
				 GFP_NOIO, &st->bs);
	flush->bi_private = bio;
	flush->bi_end_io = dst_preflush_endio;
	dst_flush_all(st, flush);
}

static void dst_submit_bio(struct bio *bio)
{
	struct dst_storage *st = bio->bi_bdev->bd_disk->private_data;

	if (st->alg->maps_flush)
		goto map;
	if (!bio_sectors(bio) && op_is_flush(bio->bi_opf)) {
		dst_flush_all(st, bio);
		return;
	}
	if ((bio->bi_opf & REQ_PREFLUSH) && st->nr_nodes > 1) {
		dst_preflush(st, bio);
		return;
	}
map:
	bio = bio_split_to_limits(bio);
	if (bio)
		st->alg->map(st, dst_account(st, bio));
}

/*
 * Once stop has seen no opener, nobody opens the disk again: a bio-based
 * disk's del_gendisk() does not wait for bios in flight, and only openers
 * send them.
 */
static int dst_open(struct block_device *bdev, fmode_t mode)
{
	struct dst_storage *st = bdev->bd_disk->private_data;

	return READ_ONCE(st->closing) ? -ENXIO : 0;
}

static const struct block_device_operations dst_fops = {
	.owner		= THIS_MODULE,
	.open		= dst_open,
	.submit_bio	= dst_submit_bio,
};

/* Stack the nodes' limits: the largest block sizes, the smallest request. */
static void dst_set_limits(struct dst_storage *st, struct request_queue *q)
{
	struct dst_node_limits lim = {
		.logical_block_size = SECTOR_SIZE,
		.physical_block_size = SECTOR_SIZE,
		.max_request = DST_MAX_REQUEST,
		.features = ~0ULL,
	};
	struct dst_node *node;
	u32 max_discard;

	list_for_each_entry(node, &st->nodes, list) {
		lim.logical_block_size = max(lim.logical_block_size,
					     node->limits.logical_block_size);
		lim.physical_block_size = max(lim.physical_block_size,
					      node->limits.physical_block_size);
		lim.max_request = min(lim.max_request, node->limits.max_request);
		lim.read_only |= node->limits.read_only;
		lim.stable_writes |= node->limits.stable_writes;
		lim.features &= node->limits.features;
	}
	lim.max_request = round_down(lim.max_request, lim.logical_block_size);
	if (st->alg->no_write_zeroes)
		lim.features &= ~DST_FEAT_WRITE_ZEROES;

	blk_queue_logical_block_size(q, lim.logical_block_size);
	blk_queue_physical_block_size(q, lim.physical_block_size);
	blk_queue_io_min(q, lim.physical_block_size);
	blk_queue_max_hw_sectors(q, lim.max_request >> SECTOR_SHIFT);
	blk_queue_write_cache(q, lim.features & DST_FEAT_FLUSH,
			      lim.features & DST_FEAT_FUA);

	/* A request's length is 32 bits of bytes on the wire. */
	max_discard = round_down(U32_MAX, lim.logical_block_size) >> SECTOR_SHIFT;
	if (lim.features & DST_FEAT_DISCARD) {
		blk_queue_max_discard_sectors(q, max_discard);
		q->limits.discard_granularity = lim.physical_block_size;
	}
	if (lim.features & DST_FEAT_WRITE_ZEROES)
		blk_queue_max_write_zeroes_sectors(q, max_discard);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
	if (lim.stable_writes)
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, q);
	st->size = round_down(st->size, lim.logical_block_size);
	st->read_only = lim.read_only;
	st->limits = lim;
}

/* The storage whose disk (or a partition of it) @bdev is, or NULL. */
struct dst_storage *dst_disk_storage(struct block_device *bdev)
{
	return bdev->bd_disk->fops == &dst_fops ?
	       bdev->bd_disk->private_data : NULL;
}

/* Each node starts on a block of the disk, or its I/O would be misaligned. */
static int dst_check_layout(struct dst_storage *st, const char **why)
{
	struct dst_node *node;

	list_for_each_entry(node, &st->nodes, list) {
		if (node->start % st->limits.logical_block_size) {
			*why = "a node does not start on a block of the disk";
			return -EINVAL;
		}
	}
	return 0;
}

/* The bio set of dst_account()'s clones. */
int dst_disk_init_bioset(struct bio_set *bs)
{
	return bioset_init(bs, BIO_POOL_SIZE,
			   offsetof(struct dst_io_acct, clone), 0);
}

int dst_storage_start(struct dst_storage *st, bool assume_clean,
		      const char **why)
{
	struct gendisk *disk;
	int err;

	if (st->state == DST_STORAGE_RUNNING) {
		*why = "already running";
		return -EBUSY;
	}
	if (!st->nr_nodes) {
		*why = "no nodes";
		return -EINVAL;
	}

	disk = blk_alloc_disk(NUMA_NO_NODE);
	if (!disk)
		return -ENOMEM;
	disk->major = dst_major;
	disk->first_minor = st->id << DST_PART_SHIFT;
	disk->minors = 1 << DST_PART_SHIFT;
	disk->fops = &dst_fops;
	disk->private_data = st;
	snprintf(disk->disk_name, DISK_NAME_LEN, "dst%u", st->id);
	dst_set_limits(st, disk->queue);
	err = dst_check_layout(st, why);
	if (err)
		goto err_put;
	st->closing = false;
	spin_lock_init(&st->flush_lock);
	bio_list_init(&st->flushed);
	INIT_WORK(&st->flush_work, dst_preflush_work);
	set_disk_ro(disk, st->read_only);

	if (st->alg->start) {
		err = st->alg->start(st, assume_clean, why);
		if (err)
			goto err_put;
	}
	/* After the start: a mirror's bitmap may say it is smaller. */
	set_capacity(disk, st->size >> SECTOR_SHIFT);
	err = add_disk(disk);
	if (err) {
		*why = "cannot add the disk";
		goto err_stop;
	}
	st->disk = disk;
	err = dst_sysfs_add(st);
	if (err) {
		del_gendisk(disk);
		st->disk = NULL;
		*why = "cannot make the sysfs directories";
		goto err_stop;
	}
	dst_storage_lock();
	st->state = DST_STORAGE_RUNNING;
	dst_storage_unlock();
	/* Tell udev again now that dst/name is there for /dev/dst/NAME. */
	kobject_uevent(&disk_to_dev(disk)->kobj, KOBJ_CHANGE);
	return 0;

err_stop:
	if (st->alg->stop)
		st->alg->stop(st);
err_put:
	put_disk(disk);
	return err;
}

int dst_storage_stop(struct dst_storage *st, const char **why)
{
	struct gendisk *disk = st->disk;

	if (st->state != DST_STORAGE_RUNNING) {
		*why = "not running";
		return -EINVAL;
	}
	mutex_lock(&disk->open_mutex);
	if (disk_openers(disk)) {
		mutex_unlock(&disk->open_mutex);
		*why = "the disk is in use";
		return -EBUSY;
	}
	WRITE_ONCE(st->closing, true);
	mutex_unlock(&disk->open_mutex);

	/* Status no longer asks the algorithm, whose state goes now. */
	dst_storage_lock();
	st->state = DST_STORAGE_STOPPED;
	dst_storage_unlock();
	dst_sysfs_del(st);
	del_gendisk(disk);
	flush_work(&st->flush_work);
	if (st->alg->stop)
		st->alg->stop(st);
	put_disk(disk);
	st->disk = NULL;
	return 0;
}

int __init dst_disk_init(void)
{
	dst_disk_wq = alloc_workqueue("dst_disk", WQ_MEM_RECLAIM, 0);
	if (!dst_disk_wq)
		return -ENOMEM;
	dst_major = register_blkdev(0, "dst");
	if (dst_major < 0) {
		destroy_workqueue(dst_disk_wq);
		return dst_major;
	}
	return 0;
}

void dst_disk_exit(void)
{
	unregister_blkdev(dst_major, "dst");
	destroy_workqueue(dst_disk_wq);
}
