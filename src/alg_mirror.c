// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the "mirror" algorithm: every node (leg)
 * holds a full copy, as md raid1 and dm-raid1 do.
 *
 * A write goes to every leg in sync or resyncing and completes when all
 * have answered; it fails only if no leg that was clean for it wrote it,
 * or if the last leg in sync failed it.  A write-behind leg (md's
 * write-mostly --write-behind) gets a copy of a plain write's data, and
 * the write completes once the other legs in sync have it: up to the
 * leg's limit of writes behind; its region stays dirty in the bitmap
 * until the leg has it.  A leg that fails a write goes out
 * of sync with the region marked dirty, unless it is the last one in sync.
 * A read goes to one leg that is clean for it, the one with the fewest
 * I/Os in flight, or, when some leg has a seek cost, the one whose last
 * read ended nearest, a write-mostly leg only when no other can; a failed
 * read is tried on another leg.  Nothing is
 * written on the legs but the data: each leg is a plain copy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/bitmap.h>
#include <linux/interval_tree_generic.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mirror.h"

#define DST_MIRROR_IO_POOL	16

/*
 * A leg's copy of a bio of the disk; a write-behind leg's write is @copy,
 * a bio of its own with its own copy of the data.
 */
struct dst_mirror_clone {
	struct dst_mirror_io *mio;
	unsigned int leg;
	struct bio *copy;
	struct bio bio;
};

/**
 * struct dst_mirror_io - a bio of the disk on its way to the legs
 * @ms:		the mirror
 * @bio:	the bio
 * @sector:	its place, kept for marking regions dirty
 * @sectors:	its length
 * @remaining:	clones not answered yet, +1 while sending
 * @front:	clones not answered yet of the legs that are not behind, +1
 * @behind:	write-behind legs it is sent to
 * @acked:	the bio completed before the behind legs answered
 * @serial:	in dst_mirror.behind_ios: later writes to its place wait
 * @behind_node: its node there, an interval tree of the sectors
 * @behind_last: its last sector, the interval's end
 * @behind_subtree: the tree's largest last sector under @behind_node
 * @clean:	legs whose copy counts: in sync, or clean in this range
 * @good:	legs that wrote it
 * @kept:	a write failed on the last leg in sync, which stays in sync
 * @tried:	legs a read was sent to
 * @epoch:	the write epoch it counts in
 * @bm_gen:	the bitmap generation it counts in
 * @status:	an error of a leg
 * @work:	a read sent again to another leg
 * @clones:	a clone per leg slot; a read uses the first
 *
 * The clones live here, allocated at once from a mempool, as md's r1bio
 * holds its bios: no second allocation on the I/O path.
 */
struct dst_mirror_io {
	struct dst_mirror *ms;
	struct bio *bio;
	sector_t sector;
	unsigned int sectors;
	atomic_t remaining;
	atomic_t front;
	unsigned long behind;
	bool acked;
	bool serial;
	struct rb_node behind_node;
	sector_t behind_last;
	sector_t behind_subtree;
	unsigned long clean;
	unsigned long good;
	bool kept;
	unsigned long tried;
	unsigned int epoch;
	unsigned int bm_gen;
	blk_status_t status;
	struct work_struct work;
	struct dst_mirror_clone clones[DST_MIRROR_MAX_LEGS];
};

#define DST_BEHIND_START(mio)	((mio)->sector)
#define DST_BEHIND_LAST(mio)	((mio)->behind_last)
INTERVAL_TREE_DEFINE(struct dst_mirror_io, behind_node, sector_t,
		     behind_subtree, DST_BEHIND_START, DST_BEHIND_LAST,
		     static inline, dst_behind)

static struct workqueue_struct *dst_mirror_wq;

static struct dst_mirror_io *dst_mirror_io_alloc(struct dst_mirror *ms,
						 struct bio *bio)
{
	struct dst_mirror_io *mio;

	mio = mempool_alloc(&ms->io_pool, GFP_NOIO);
	memset(mio, 0, offsetof(struct dst_mirror_io, clones));
	mio->ms = ms;
	mio->bio = bio;
	mio->sector = bio->bi_iter.bi_sector;
	mio->sectors = bio_sectors(bio);
	return mio;
}

void dst_mirror_end(struct dst_mirror *ms, struct bio *bio,
		    blk_status_t status)
{
	bio->bi_status = status;
	bio_endio(bio);
	if (atomic_dec_and_test(&ms->pending))
		wake_up_var(&ms->pending);
}

static void dst_mirror_io_done(struct dst_mirror_io *mio, blk_status_t status)
{
	struct dst_mirror *ms = mio->ms;
	struct bio *bio = mio->bio;

	mempool_free(mio, &ms->io_pool);
	dst_mirror_end(ms, bio, status);
}

/* Send a clone of @mio's bio to leg @i, which the caller holds in flight. */
static void dst_mirror_send(struct dst_mirror_io *mio, unsigned int i,
			    bio_end_io_t *end_io)
{
	struct dst_mirror_clone *c = &mio->clones[i];
	struct dst_leg *leg = mio->ms->legs[i];

	c->mio = mio;
	c->leg = i;
	if (test_bit(i, &mio->behind)) {
		dst_node_submit(leg->node, c->copy);
		return;
	}
	/* Only an integrity or crypt context can fail a clone; ours have none. */
	if (bio_init_clone(mio->bio->bi_bdev, &c->bio, mio->bio, GFP_NOIO)) {
		bio_init(&c->bio, NULL, NULL, 0, mio->bio->bi_opf);
		c->bio.bi_status = BLK_STS_RESOURCE;
		c->bio.bi_end_io = end_io;
		bio_endio(&c->bio);
		return;
	}
	c->bio.bi_end_io = end_io;
	dst_node_submit(leg->node, &c->bio);
}

static void dst_mirror_write_done(struct dst_mirror_io *mio)
{
	struct dst_mirror *ms = mio->ms;
	struct bio *bio = mio->bio;
	unsigned long flags;
	bool held = false;

	/*
	 * The last leg in sync is read from and copied to the others: a
	 * write it missed must fail, whoever else wrote it.
	 */
	if (!mio->acked)
		bio->bi_status = (mio->good & mio->clean) && !mio->kept ?
				 BLK_STS_OK : mio->status ?: BLK_STS_IOERR;

	spin_lock_irqsave(&ms->lock, flags);
	if (!--ms->writes[mio->epoch])
		wake_up(&ms->drain);
	/* An empty flush a leg failed waits for the failure to be on disk too. */
	if (ms->bm && mio->sectors)
		held = dst_bitmap_end_write(ms->bm, mio->bm_gen,
					    mio->acked ? NULL : bio);
	else if (ms->bm && !mio->acked)
		held = dst_bitmap_hold_ack(ms->bm, bio);
	if (mio->serial) {
		dst_behind_remove(mio, &ms->behind_ios);
		if (!bio_list_empty(&ms->behind_waiting))
			queue_work(dst_mirror_wq, &ms->behind_work);
	}
	spin_unlock_irqrestore(&ms->lock, flags);

	if (held) {
		mempool_free(mio, &ms->io_pool);
	} else if (mio->acked) {
		mempool_free(mio, &ms->io_pool);
		if (atomic_dec_and_test(&ms->pending))
			wake_up_var(&ms->pending);
	} else {
		dst_mirror_io_done(mio, bio->bi_status);
	}
}

/*
 * The legs that are not behind have answered a write sent behind to
 * others: it completes now if they all wrote it and no leg's failure
 * waits to be on the bitmap; else when the behind legs answer too.
 */
static void dst_mirror_write_front(struct dst_mirror_io *mio)
{
	struct dst_mirror *ms = mio->ms;
	unsigned long flags;
	bool ack;

	spin_lock_irqsave(&ms->lock, flags);
	ack = !READ_ONCE(mio->status) && !READ_ONCE(mio->kept) &&
	      (mio->good & mio->clean & ~mio->behind) &&
	      (!ms->bm || !dst_bitmap_acks_wait(ms->bm));
	spin_unlock_irqrestore(&ms->lock, flags);
	if (!ack)
		return;
	mio->acked = true;
	mio->bio->bi_status = BLK_STS_OK;
	bio_endio(mio->bio);
}

/* Leg @c->leg answered @mio's write of kind @op with @status. */
static void dst_mirror_leg_wrote(struct dst_mirror_clone *c, enum req_op op,
				 blk_status_t status)
{
	struct dst_mirror_io *mio = c->mio;
	struct dst_mirror *ms = mio->ms;
	struct dst_leg *leg = ms->legs[c->leg];
	unsigned long flags;

	if (status == BLK_STS_NOTSUPP && op == REQ_OP_DISCARD) {
		/* Not a failure of the leg: dm-raid1 and md do not degrade. */
		WRITE_ONCE(mio->status, BLK_STS_NOTSUPP);
	} else if (status) {
		spin_lock_irqsave(&ms->lock, flags);
		dst_leg_fail(ms, leg, "write", mio->sector, mio->sectors);
		if (leg->sync == DST_SYNC_IN_SYNC) {
			WRITE_ONCE(mio->kept, true);
			dst_leg_mark_others(ms, leg, mio->sector, mio->sectors);
			/*
			 * A write behind, acknowledged once the others had
			 * it, failed on the leg left in sync: the others
			 * went out of sync meanwhile, and reads and any
			 * resync now come from this leg, which lacks it (md
			 * has the same double failure).
			 */
			if (READ_ONCE(mio->acked))
				pr_err_ratelimited("%s: node%u failed an acknowledged write behind of %u sectors at %llu, and it is the last leg in sync: that data is only on legs out of sync\n",
						   ms->st->name, leg->node->id,
						   mio->sectors,
						   (unsigned long long)mio->sector);
		}
		spin_unlock_irqrestore(&ms->lock, flags);
		WRITE_ONCE(mio->status, status);
	} else {
		set_bit(c->leg, &mio->good);
	}
	/* Before the leg's last inflight goes: removal then frees it. */
	if (test_bit(c->leg, &mio->behind)) {
		if (atomic_dec_and_test(&leg->behind))
			wake_up_var(&leg->behind);
	}
	dst_leg_put_inflight(leg);
	if (!test_bit(c->leg, &mio->behind) &&
	    atomic_dec_and_test(&mio->front) && mio->behind)
		dst_mirror_write_front(mio);
	if (atomic_dec_and_test(&mio->remaining))
		dst_mirror_write_done(mio);
}

static void dst_mirror_write_endio(struct bio *clone)
{
	struct dst_mirror_clone *c = container_of(clone, struct dst_mirror_clone,
						  bio);
	enum req_op op = bio_op(clone);
	blk_status_t status = clone->bi_status;

	bio_uninit(clone);
	dst_mirror_leg_wrote(c, op, status);
}

static void dst_mirror_copy_free(struct bio *copy)
{
	bio_free_pages(copy);
	bio_uninit(copy);
	kfree(copy);
}

static void dst_mirror_behind_endio(struct bio *copy)
{
	struct dst_mirror_clone *c = copy->bi_private;
	blk_status_t status = copy->bi_status;

	dst_mirror_copy_free(copy);
	dst_mirror_leg_wrote(c, REQ_OP_WRITE, status);
}

#define DST_BEHIND_GFP	(GFP_NOIO | __GFP_NORETRY | __GFP_NOMEMALLOC | \
			 __GFP_NOWARN)

/*
 * A copy of @mio's data for write-behind leg @i, which may get it after
 * the bio completed and its pages went back to their owner (md copies
 * for its behind writes too); false if memory is short: the leg then
 * gets the write as the others do, not behind.  No retries and no
 * emergency reserves: on the reclaim path (swap to the mirror) they
 * would go to copies that the plain write does without.
 */
static bool dst_mirror_copy(struct dst_mirror_io *mio, unsigned int i)
{
	struct dst_mirror_clone *c = &mio->clones[i];
	unsigned int n, k, size = mio->bio->bi_iter.bi_size;
	struct bio *copy;
	struct page *page;

	n = DIV_ROUND_UP(size, PAGE_SIZE);
	copy = bio_kmalloc(n, DST_BEHIND_GFP);
	if (!copy)
		return false;
	bio_init(copy, NULL, copy->bi_inline_vecs, n, mio->bio->bi_opf);
	for (k = 0; k < n; k++) {
		page = alloc_page(DST_BEHIND_GFP);
		if (!page) {
			dst_mirror_copy_free(copy);
			return false;
		}
		__bio_add_page(copy, page, min_t(unsigned int, PAGE_SIZE,
						 size - k * PAGE_SIZE), 0);
	}
	bio_copy_data(copy, mio->bio);
	copy->bi_iter.bi_sector = mio->sector;
	copy->bi_private = c;
	copy->bi_end_io = dst_mirror_behind_endio;
	c->copy = copy;
	return true;
}

/*
 * The write-behind legs among @sent that @mio's write may complete
 * without: in sync, under their limit, and only when a leg in sync that
 * is not behind writes it too.  Only plain writes: a flush or FUA waits
 * for every leg.  Lock held.
 */
static unsigned long dst_mirror_behind(struct dst_mirror *ms,
				       struct dst_mirror_io *mio,
				       unsigned long sent)
{
	unsigned long behind = 0, front = 0;
	struct bio *bio = mio->bio;
	struct dst_leg *leg;
	unsigned int i;

	if (bio_op(bio) != REQ_OP_WRITE || !mio->sectors ||
	    (bio->bi_opf & (REQ_FUA | REQ_PREFLUSH)))
		return 0;
	for_each_set_bit(i, &sent, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync != DST_SYNC_IN_SYNC)
			continue;
		if (leg->node->write_behind &&
		    atomic_read(&leg->behind) < leg->node->write_behind)
			__set_bit(i, &behind);
		else
			__set_bit(i, &front);
	}
	return front ? behind : 0;
}

static bool dst_mirror_in_window(struct dst_mirror *ms, sector_t sector,
				 unsigned int sectors)
{
	u64 first = sector >> ms->region_shift;
	u64 last = (sector + sectors - 1) >> ms->region_shift;

	return ms->window != DST_NO_REGION && first <= ms->window_last &&
	       ms->window <= last;
}

/* Writes that waited for a write behind: each goes on, or waits again. */
static void dst_mirror_behind_work(struct work_struct *work)
{
	struct dst_mirror *ms = container_of(work, struct dst_mirror,
					     behind_work);
	struct bio_list waiting;
	struct bio *bio;

	spin_lock_irq(&ms->lock);
	waiting = ms->behind_waiting;
	bio_list_init(&ms->behind_waiting);
	spin_unlock_irq(&ms->lock);
	while ((bio = bio_list_pop(&waiting)))
		dst_mirror_write(ms, bio);
}

/*
 * Whether a write to @sectors at @sector overlaps one whose copy to a
 * write-behind leg is in flight: the leg could get the two in either
 * order, and hold the older data after the newer was acknowledged (md
 * serializes them likewise).  Lock held.
 */
static bool dst_mirror_behind_overlaps(struct dst_mirror *ms, sector_t sector,
				       unsigned int sectors)
{
	return !!dst_behind_iter_first(&ms->behind_ios, sector,
				       sector + sectors - 1);
}

/*
 * Whether a write of @mio may go to the legs now; if not, it is parked
 * (the mio freed) or failed.  Lock held; dropped when it returns false.
 */
static bool dst_mirror_may_write(struct dst_mirror *ms,
				 struct dst_mirror_io *mio)
{
	struct bio *bio = mio->bio;
	u64 first, last;

	if (!mio->sectors)
		return true;
	if (dst_mirror_in_window(ms, mio->sector, mio->sectors)) {
		bio_list_add(&ms->deferred, bio);
		atomic64_inc(&ms->held);
		goto parked;
	}
	if (dst_mirror_behind_overlaps(ms, mio->sector, mio->sectors)) {
		bio_list_add(&ms->behind_waiting, bio);
		goto parked;
	}
	if (!ms->bm)
		return true;
	first = mio->sector >> ms->region_shift;
	last = (mio->sector + mio->sectors - 1) >> ms->region_shift;
	if (dst_bitmap_ready(ms->bm, first, last)) {
		mio->bm_gen = dst_bitmap_start_write(ms->bm, first, last);
		return true;
	}
	if (dst_bitmap_wait(ms->bm, bio))
		goto parked;
	spin_unlock_irq(&ms->lock);
	dst_mirror_io_done(mio, BLK_STS_IOERR);
	return false;

parked:
	spin_unlock_irq(&ms->lock);
	mempool_free(mio, &ms->io_pool);
	return false;
}

/*
 * Writes, discards, write-zeroes and flushes: to every leg in sync or
 * resyncing; an out-of-sync leg gets the regions marked dirty instead.
 * A write into the region resync is copying waits until it is copied; a
 * write to a region not set in the bitmap waits until it is.
 */
void dst_mirror_write(struct dst_mirror *ms, struct bio *bio)
{
	struct dst_mirror_io *mio = dst_mirror_io_alloc(ms, bio);
	unsigned long sent = 0;
	struct dst_leg *leg;
	unsigned int i;

	spin_lock_irq(&ms->lock);
	if (!dst_mirror_may_write(ms, mio))
		return;
	mio->epoch = ms->epoch;
	ms->writes[mio->epoch]++;
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync == DST_SYNC_OUT_OF_SYNC) {
			dst_leg_mark(ms, leg, mio->sector, mio->sectors);
			continue;
		}
		if (leg->sync == DST_SYNC_IN_SYNC ||
		    dst_leg_clean(ms, leg, mio->sector, mio->sectors))
			__set_bit(i, &mio->clean);
		__set_bit(i, &sent);
		atomic_inc(&leg->inflight);
	}
	mio->behind = dst_mirror_behind(ms, mio, sent);
	for_each_set_bit(i, &mio->behind, DST_MIRROR_MAX_LEGS)
		atomic_inc(&ms->legs[i]->behind);
	mio->serial = mio->behind;
	if (mio->serial) {
		mio->behind_last = mio->sector + mio->sectors - 1;
		dst_behind_insert(mio, &ms->behind_ios);
	}
	spin_unlock_irq(&ms->lock);

	for_each_set_bit(i, &mio->behind, DST_MIRROR_MAX_LEGS) {
		if (dst_mirror_copy(mio, i))
			continue;
		__clear_bit(i, &mio->behind);
		if (atomic_dec_and_test(&ms->legs[i]->behind))
			wake_up_var(&ms->legs[i]->behind);
	}
	atomic_set(&mio->remaining, 1);
	atomic_set(&mio->front, 1);
	for_each_set_bit(i, &sent, DST_MIRROR_MAX_LEGS) {
		atomic_inc(&mio->remaining);
		if (!test_bit(i, &mio->behind))
			atomic_inc(&mio->front);
		dst_mirror_send(mio, i, dst_mirror_write_endio);
	}
	if (atomic_dec_and_test(&mio->front) && mio->behind)
		dst_mirror_write_front(mio);
	if (atomic_dec_and_test(&mio->remaining))
		dst_mirror_write_done(mio);
}

static u64 dst_distance(sector_t a, sector_t b)
{
	return a > b ? a - b : b - a;
}

/* Whether (@a1, @a2) orders before (@b1, @b2): by the first, then the second. */
static bool dst_before(u64 a1, u64 a2, u64 b1, u64 b2)
{
	return a1 < b1 || (a1 == b1 && a2 < b2);
}

/*
 * The leg to read @mio from, not tried yet and clean for it, and not a
 * write-mostly one unless @mostly; lock held.
 */
static struct dst_leg *__dst_mirror_pick(struct dst_mirror *ms,
					 struct dst_mirror_io *mio, bool mostly)
{
	struct dst_leg *leg, *best = NULL;
	u64 dist, busy, best_dist = U64_MAX, best_busy = U64_MAX;
	bool nonrot = true;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		nonrot &= leg->nonrot;
	}

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		/* No read of what a restarted export may have lost. */
		dst_leg_check_restart(ms, leg);
		if (test_bit(i, &mio->tried) ||
		    (leg->node->write_mostly && !mostly) ||
		    leg->sync == DST_SYNC_OUT_OF_SYNC ||
		    (leg->sync == DST_SYNC_RESYNCING &&
		     !dst_leg_clean(ms, leg, mio->sector, mio->sectors)))
			continue;
		busy = atomic_read(&leg->inflight);
		dist = dst_distance(mio->sector, leg->last);
		if (nonrot ? dst_before(busy, dist, best_busy, best_dist) :
			     dst_before(dist, busy, best_dist, best_busy)) {
			best = leg;
			best_busy = busy;
			best_dist = dist;
		}
	}
	return best;
}

/* Reads avoid write-mostly legs while another leg can serve them. */
static struct dst_leg *dst_mirror_pick(struct dst_mirror *ms,
				       struct dst_mirror_io *mio)
{
	return __dst_mirror_pick(ms, mio, false) ?:
	       __dst_mirror_pick(ms, mio, true);
}

static void dst_mirror_read_endio(struct bio *clone);

/*
 * Send a read to a leg.  A write-behind leg with writes behind (the only
 * leg left to read from) may not have the data yet: the read waits for
 * them, from the work item when it may not wait here (@may_wait false),
 * as md waits for its behind writes.
 */
static void dst_mirror_read(struct dst_mirror_io *mio, bool may_wait)
{
	struct dst_mirror *ms = mio->ms;
	struct dst_leg *leg;

	spin_lock_irq(&ms->lock);
	leg = dst_mirror_pick(ms, mio);
	if (leg && atomic_read(&leg->behind) && !may_wait) {
		spin_unlock_irq(&ms->lock);
		queue_work(dst_mirror_wq, &mio->work);
		return;
	}
	if (leg) {
		__set_bit(leg->idx, &mio->tried);
		leg->last = mio->sector + mio->sectors;
		atomic_inc(&leg->inflight);
	}
	spin_unlock_irq(&ms->lock);

	if (!leg) {
		dst_mirror_io_done(mio, mio->status ?: BLK_STS_IOERR);
		return;
	}
	if (may_wait)
		wait_var_event(&leg->behind, !atomic_read(&leg->behind));
	dst_mirror_send(mio, leg->idx, dst_mirror_read_endio);
}

static void dst_mirror_read_retry(struct work_struct *work)
{
	dst_mirror_read(container_of(work, struct dst_mirror_io, work), true);
}

static void dst_mirror_read_endio(struct bio *clone)
{
	struct dst_mirror_clone *c = container_of(clone, struct dst_mirror_clone,
						  bio);
	struct dst_mirror_io *mio = c->mio;
	struct dst_mirror *ms = mio->ms;
	struct dst_leg *leg = ms->legs[c->leg];
	blk_status_t status = clone->bi_status;
	unsigned long flags;

	if (status) {
		spin_lock_irqsave(&ms->lock, flags);
		dst_leg_fail(ms, leg, "read", mio->sector, mio->sectors);
		spin_unlock_irqrestore(&ms->lock, flags);
		mio->status = status;
	}
	bio_uninit(clone);
	dst_leg_put_inflight(leg);

	if (!status)
		dst_mirror_io_done(mio, BLK_STS_OK);
	else
		queue_work(dst_mirror_wq, &mio->work);
}

static void dst_mirror_map(struct dst_storage *st, struct bio *bio)
{
	struct dst_mirror *ms = st->priv;
	struct dst_mirror_io *mio;

	atomic_inc(&ms->pending);
	atomic_inc(&ms->app_ios);
	if (bio_op(bio) != REQ_OP_READ) {
		dst_mirror_write(ms, bio);
		return;
	}
	mio = dst_mirror_io_alloc(ms, bio);
	INIT_WORK(&mio->work, dst_mirror_read_retry);
	dst_mirror_read(mio, false);
}

/* The size is the smallest leg's. */
static void dst_mirror_layout(struct dst_storage *st)
{
	struct dst_node *node;
	bool first = true;

	list_for_each_entry(node, &st->nodes, list) {
		if (first || node->size < st->size)
			st->size = node->size;
		first = false;
	}
	if (first)
		st->size = 0;
}

static void dst_mirror_free(struct dst_mirror *ms)
{
	struct dst_leg *leg;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		dst_leg_free(leg);
	}
	mempool_exit(&ms->io_pool);
	kfree(ms);
}

/*
 * Without a bitmap that says better, the first leg (that is not
 * write-behind) is the source of truth and the others are copied from it
 * in full, since nothing on the legs tells what they hold, unless the
 * admin says they are identical (mdadm --assume-clean).
 */
static void dst_mirror_plan(struct dst_storage *st, bool assume_clean,
			    struct dst_leg_plan *plan)
{
	struct dst_node *node;
	unsigned int k = 0, src = 0;

	/* A write-behind leg may lack acknowledged writes: not the source. */
	list_for_each_entry(node, &st->nodes, list) {
		if (!node->write_behind) {
			src = k;
			break;
		}
		k++;
	}
	if (k == st->nr_nodes)
		src = 0;
	for (k = 0; k < st->nr_nodes; k++) {
		plan[k].sync = k == src || assume_clean ? DST_SYNC_IN_SYNC :
							  DST_SYNC_RESYNCING;
		plan[k].full = true;
	}
}

static int dst_mirror_start(struct dst_storage *st, bool assume_clean,
			    const char **why)
{
	struct dst_leg_plan plan[DST_MIRROR_MAX_LEGS];
	struct dst_mirror *ms;
	struct dst_node *node;
	struct dst_leg *leg;
	unsigned int k = 0;
	int err = -ENOMEM;

	ms = kzalloc(sizeof(*ms), GFP_KERNEL);
	if (!ms)
		return -ENOMEM;
	ms->st = st;
	spin_lock_init(&ms->lock);
	mutex_init(&ms->resize_lock);
	ms->region_shift = ilog2(st->chunk_size) - SECTOR_SHIFT;
	ms->sectors = st->size >> SECTOR_SHIFT;
	ms->nr_regions = DIV_ROUND_UP_ULL(ms->sectors, 1ULL << ms->region_shift);
	ms->window = DST_NO_REGION;
	ms->verify_next = DST_NO_REGION;
	ms->behind_ios = RB_ROOT_CACHED;
	bio_list_init(&ms->behind_waiting);
	INIT_WORK(&ms->behind_work, dst_mirror_behind_work);
	atomic64_set(&ms->mismatches, 0);
	bio_list_init(&ms->deferred);
	init_waitqueue_head(&ms->drain);
	init_waitqueue_head(&ms->resync_wait);
	atomic_set(&ms->pending, 0);
	atomic64_set(&ms->resync_bytes, 0);
	atomic64_set(&ms->held, 0);
	if (ms->nr_regions > DST_MIRROR_MAX_REGIONS) {
		*why = "chunk size too small for the size of the mirror";
		kfree(ms);
		return -EINVAL;
	}
	if (mempool_init_kmalloc_pool(&ms->io_pool, DST_MIRROR_IO_POOL,
				      sizeof(struct dst_mirror_io))) {
		kfree(ms);
		return -ENOMEM;
	}

	dst_mirror_plan(st, assume_clean, plan);
	ms->started = assume_clean ? DST_START_ASSUME_CLEAN : DST_START_FULL;
	if (st->bitmap[0]) {
		err = dst_bitmap_open(ms, plan, assume_clean, &ms->started, why);
		if (err)
			goto err;
	}
	err = -ENOMEM;
	list_for_each_entry(node, &st->nodes, list) {
		leg = dst_leg_alloc(ms, node, &plan[k++]);
		if (!leg)
			goto err;
		dst_leg_publish(ms, leg);
		if (leg->sync == DST_SYNC_RESYNCING)
			dst_event(st, node->id, DST_EVENT_RESYNC_START, 0,
				  GFP_KERNEL);
	}
	if (ms->bm) {
		err = dst_bitmap_start(ms, why);
		if (err)
			goto err;
	}
	st->priv = ms;
	err = dst_resync_start(ms);
	if (err) {
		st->priv = NULL;
		goto err;
	}
	if (ms->started == DST_START_UNCLEAN)
		pr_warn("%s: started after an unclean stop: resyncing the regions of the bitmap\n",
			st->name);
	return 0;

err:
	dst_bitmap_close(ms, false);
	dst_mirror_free(ms);
	return err;
}

static void dst_mirror_stop(struct dst_storage *st)
{
	struct dst_mirror *ms = st->priv;

	dst_resync_stop(ms);
	wait_var_event(&ms->pending, !atomic_read(&ms->pending));
	flush_work(&ms->behind_work);
	dst_bitmap_close(ms, true);
	dst_mirror_free(ms);
	st->priv = NULL;
}

/* Whether @node can do all that the running disk promises. */
static bool dst_mirror_fits(const struct dst_node_limits *node,
			    const struct dst_node_limits *disk)
{
	u64 used = DST_FEAT_FLUSH | DST_FEAT_FUA | DST_FEAT_DISCARD |
		   DST_FEAT_WRITE_ZEROES;

	return node->logical_block_size <= disk->logical_block_size &&
	       node->max_request >= disk->max_request &&
	       !(disk->features & used & ~node->features) &&
	       (disk->read_only || !node->read_only) &&
	       (disk->stable_writes || !node->stable_writes);
}

/* A new leg of a running mirror: every region dirty, resynced. */
static int dst_mirror_add_running(struct dst_storage *st,
				  struct dst_node *node, const char **why)
{
	const struct dst_leg_plan plan = { DST_SYNC_RESYNCING, true };
	struct dst_mirror *ms = st->priv;
	struct dst_leg *leg;

	if (node->size < st->size) {
		*why = "the node is smaller than the mirror";
		return -ENOSPC;
	}
	if (!dst_mirror_fits(&node->limits, &st->limits)) {
		*why = "the node cannot do all that the running mirror does";
		return -EINVAL;
	}
	leg = dst_leg_alloc(ms, node, &plan);
	if (!leg)
		return -ENOMEM;
	dst_leg_publish(ms, leg);
	if (ms->bm) {
		spin_lock_irq(&ms->lock);
		dst_bitmap_legs_changed(ms->bm);
		spin_unlock_irq(&ms->lock);
	}
	wake_up(&ms->resync_wait);
	pr_info("%s: node%u added, resyncing\n", st->name, node->id);
	dst_event(st, node->id, DST_EVENT_RESYNC_START, 0, GFP_KERNEL);
	return 0;
}

/*
 * Take a leg out of a running mirror: out of sync first, so that no new
 * I/O goes to it, then wait for resync to stand still and for the leg's
 * I/O in flight before its slot is cleared.
 */
static int dst_mirror_del_running(struct dst_storage *st,
				  struct dst_node *node, const char **why)
{
	struct dst_mirror *ms = st->priv;
	struct dst_leg *leg = node->priv;

	spin_lock_irq(&ms->lock);
	if (leg->sync == DST_SYNC_IN_SYNC && dst_mirror_nr_in_sync(ms) == 1) {
		spin_unlock_irq(&ms->lock);
		*why = "the node is the last leg in sync of the running mirror";
		return -EBUSY;
	}
	leg->sync = DST_SYNC_OUT_OF_SYNC;
	/* Writes it misses from now on wait until the header says so. */
	if (ms->bm)
		dst_bitmap_leg_failed(ms->bm);
	spin_unlock_irq(&ms->lock);

	dst_sysfs_del_node(node);
	kthread_park(ms->resync);
	wait_var_event(&leg->inflight, !atomic_read(&leg->inflight));
	spin_lock_irq(&ms->lock);
	__clear_bit(leg->idx, &ms->present);
	ms->legs[leg->idx] = NULL;
	if (ms->bm)
		dst_bitmap_legs_changed(ms->bm);
	spin_unlock_irq(&ms->lock);
	kthread_unpark(ms->resync);
	dst_leg_free(leg);
	pr_info("%s: node%u removed\n", st->name, node->id);
	return 0;
}

/* @st takes @size bytes, and of each node all it has. */
static void dst_mirror_take_size(struct dst_storage *st, u64 size)
{
	struct dst_node *node;

	list_for_each_entry(node, &st->nodes, list)
		node->size = dst_node_capacity(node);
	st->size = size;
}

/*
 * Grow a running mirror to @size bytes: every leg's dirty bitmap gets the
 * new regions, which are dirty on every leg but the first in sync (the
 * source), unless @assume_clean, so that resync copies them, as md
 * resyncs what a raid1 grew by.  The write-intent bitmap grows with them
 * and is on disk, header and all, before the disk grows.  Resync is
 * parked meanwhile: it reads the size and the bitmaps without the lock.
 */
static int dst_mirror_grow(struct dst_storage *st, u64 size,
			   bool assume_clean, const char **why)
{
	struct dst_mirror *ms = st->priv;
	sector_t old = ms->sectors, sectors = size >> SECTOR_SHIFT;
	u64 regions = DIV_ROUND_UP_ULL(sectors, 1ULL << ms->region_shift);
	unsigned long *dirty[DST_MIRROR_MAX_LEGS] = {};
	struct dst_leg *leg, *src = NULL;
	unsigned int i;
	int err = 0;

	if (regions > DST_MIRROR_MAX_REGIONS) {
		*why = "chunk size too small for the new size of the mirror";
		return -EINVAL;
	}
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		dirty[i] = kvcalloc(BITS_TO_LONGS(regions),
				    sizeof(unsigned long), DST_GFP_CMD);
		if (!dirty[i]) {
			err = -ENOMEM;
			goto out;
		}
	}

	kthread_park(ms->resync);
	mutex_lock(&ms->resize_lock);
	if (ms->bm) {
		err = dst_bitmap_grow(ms->bm, regions, why);
		if (err)
			goto unlock;
	}
	spin_lock_irq(&ms->lock);
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		bitmap_copy(dirty[i], leg->dirty, ms->nr_regions);
		swap(leg->dirty, dirty[i]);
		if (!src && leg->sync == DST_SYNC_IN_SYNC)
			src = leg;
	}
	ms->nr_regions = regions;
	ms->sectors = sectors;
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (assume_clean || leg == src)
			continue;
		dst_leg_mark(ms, leg, old, sectors - old);
		if (leg->sync == DST_SYNC_IN_SYNC)
			leg->sync = DST_SYNC_RESYNCING;
	}
	spin_unlock_irq(&ms->lock);
	dst_mirror_take_size(st, size);
	if (ms->bm)
		err = dst_bitmap_grow_end(ms->bm, why);
unlock:
	mutex_unlock(&ms->resize_lock);
	kthread_unpark(ms->resync);
	wake_up(&ms->resync_wait);
out:
	/* The old bitmaps, or the new ones on failure. */
	for (i = 0; i < DST_MIRROR_MAX_LEGS; i++)
		kvfree(dirty[i]);
	return err;
}

/*
 * The smallest leg's size; the new area resynced unless @assume_clean.
 * A stopped mirror with a bitmap keeps its size: the bitmap file is made
 * for it, and grows only with the running mirror.
 */
static int dst_mirror_resize(struct dst_storage *st, bool assume_clean,
			     const char **why)
{
	struct dst_node *node;
	u64 size = DST_MAX_SIZE;

	list_for_each_entry(node, &st->nodes, list)
		size = min(size, dst_node_capacity(node));
	if (st->state == DST_STORAGE_RUNNING)
		size = round_down(size, st->limits.logical_block_size);
	if (size <= st->size)
		return 0;
	if (st->state == DST_STORAGE_RUNNING)
		return dst_mirror_grow(st, size, assume_clean, why);
	if (st->bitmap[0]) {
		*why = "a stopped mirror with a bitmap does not grow: start it, then resize";
		return -EOPNOTSUPP;
	}
	dst_mirror_take_size(st, size);
	return 0;
}

static struct dst_alg_ops dst_mirror_alg = {
	.name		= "mirror",
	.owner		= THIS_MODULE,
	.max_nodes	= DST_MIRROR_MAX_LEGS,
	.chunked	= true,
	.maps_flush	= true,
	.fail_fast	= true,
	.no_write_zeroes = true,
	.layout		= dst_mirror_layout,
	.map		= dst_mirror_map,
	.start		= dst_mirror_start,
	.stop		= dst_mirror_stop,
	.add_running	= dst_mirror_add_running,
	.del_running	= dst_mirror_del_running,
	.resize		= dst_mirror_resize,
	.verify		= dst_mirror_verify,
	.fill_storage	= dst_mirror_fill_storage,
	.fill_node	= dst_mirror_fill_node,
	.storage_group	= &dst_mirror_storage_group,
	.node_group	= &dst_mirror_node_group,
};

int __init dst_mirror_init(void)
{
	int err;

	dst_mirror_wq = alloc_workqueue("dst_mirror", WQ_MEM_RECLAIM, 0);
	if (!dst_mirror_wq)
		return -ENOMEM;
	err = dst_register_alg(&dst_mirror_alg);
	if (err)
		destroy_workqueue(dst_mirror_wq);
	return err;
}

void dst_mirror_exit(void)
{
	dst_unregister_alg(&dst_mirror_alg);
	destroy_workqueue(dst_mirror_wq);
}
