// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - resync of a mirror: a thread per running
 * mirror copies the dirty regions of resyncing legs from a leg in sync.
 *
 * A region is copied inside a window: writes to it wait until the copy is
 * done, and the copy starts only when the writes that were in flight when
 * the window opened have completed.  So no write can land on a leg before
 * the older data that resync read for the same region, the race that the
 * seed's per-chunk check of its backlog is about.
 *
 * When nothing is left to copy, the same thread verifies, if asked (md's
 * check and repair): region by region, inside the window, it compares
 * the digest (XXH64) of every DST_CSUM_BLOCK on the legs in sync with
 * the first one's, counts the blocks where any differs, and with repair
 * copies the pieces that differ from the first leg.  A remote leg
 * computes its sums at the export (DST_REQ_CHECKSUM), so only sums cross
 * the network.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "mirror.h"

#define DST_RESYNC_PIECE	DST_MAX_REQUEST	/* a region of 1 MiB in one request */
#define DST_RESYNC_PAGES	(DST_RESYNC_PIECE >> PAGE_SHIFT)

/**
 * struct dst_resync - the buffers of the resync thread
 * @ms:		the mirror
 * @pages:	a piece of a region, read from the source
 * @vecs:	a bio_vec table per leg slot
 * @bios:	a bio per leg slot
 * @status:	their answers
 * @pending:	bios in flight, +1 while sending
 * @done:	all answered
 * @pace_start:	start of the current pacing window
 * @pace_bytes:	bytes copied in it
 * @pace_limit:	the limit (KiB/s) it paces to
 * @seen_ios:	ms->app_ios when the last region was done
 * @rate_stamp:	start of the current rate measurement
 * @rate_bytes:	bytes copied since
 * @csum:	verify's CHECKSUM request to a remote leg
 * @sums:	the block sums of a piece, per leg slot
 */
struct dst_resync {
	struct dst_mirror *ms;
	struct page *pages[DST_RESYNC_PAGES];
	struct bio_vec vecs[DST_MIRROR_MAX_LEGS][DST_RESYNC_PAGES];
	struct bio bios[DST_MIRROR_MAX_LEGS];
	blk_status_t status[DST_MIRROR_MAX_LEGS];
	atomic_t pending;
	struct completion done;
	unsigned long pace_start;
	u64 pace_bytes;
	u32 pace_limit;
	unsigned int seen_ios;
	unsigned long rate_stamp;
	u64 rate_bytes;
	struct dst_csum csum;
	__be64 sums[DST_MIRROR_MAX_LEGS][DST_RESYNC_PIECE / DST_CSUM_BLOCK];
};

static void dst_resync_endio(struct bio *bio)
{
	struct dst_resync *rs = bio->bi_private;

	rs->status[bio - rs->bios] = bio->bi_status;
	if (atomic_dec_and_test(&rs->pending))
		complete(&rs->done);
}

/*
 * Read (from one leg) or write (to each leg of @legs) @len bytes at
 * @sector through the buffer from its byte @off on, and wait.  Returns
 * the legs that failed.
 */
static unsigned long dst_resync_io(struct dst_resync *rs, unsigned long legs,
				   enum req_op op, sector_t sector,
				   unsigned int len, unsigned int off)
{
	unsigned int i, done, n, at;
	unsigned long failed = 0;
	struct dst_leg *leg;
	struct bio *bio;

	reinit_completion(&rs->done);
	atomic_set(&rs->pending, 1);
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS) {
		leg = rs->ms->legs[i];
		bio = &rs->bios[i];
		bio_init(bio, NULL, rs->vecs[i], DST_RESYNC_PAGES, op);
		bio->bi_iter.bi_sector = sector;
		for (done = 0; done < len; done += n) {
			at = (off + done) % PAGE_SIZE;
			n = min_t(unsigned int, len - done, PAGE_SIZE - at);
			__bio_add_page(bio, rs->pages[(off + done) / PAGE_SIZE],
				       n, at);
		}
		bio->bi_end_io = dst_resync_endio;
		bio->bi_private = rs;
		atomic_inc(&leg->inflight);
		atomic_inc(&rs->pending);
		dst_node_submit(leg->node, bio);
	}
	if (!atomic_dec_and_test(&rs->pending))
		wait_for_completion_io(&rs->done);

	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS) {
		if (rs->status[i])
			__set_bit(i, &failed);
		bio_uninit(&rs->bios[i]);
		dst_leg_put_inflight(rs->ms->legs[i]);
	}
	return failed;
}

/* How far @r is after the cursor, going round. */
static u64 dst_resync_ahead(struct dst_mirror *ms, u64 r)
{
	return r >= ms->resync_cursor ? r - ms->resync_cursor :
					r + ms->nr_regions - ms->resync_cursor;
}

/* The next region that a resyncing leg needs, from the cursor on; lock held. */
static u64 dst_resync_next(struct dst_mirror *ms)
{
	u64 r, best = DST_NO_REGION;
	struct dst_leg *leg;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync != DST_SYNC_RESYNCING || !leg->nr_dirty)
			continue;
		r = find_next_bit(leg->dirty, ms->nr_regions, ms->resync_cursor);
		if (r >= ms->nr_regions)
			r = find_first_bit(leg->dirty, ms->nr_regions);
		if (best == DST_NO_REGION ||
		    dst_resync_ahead(ms, r) < dst_resync_ahead(ms, best))
			best = r;
	}
	return best;
}

/* The leg in sync with the fewest I/Os in flight; lock held. */
static struct dst_leg *dst_resync_source(struct dst_mirror *ms)
{
	struct dst_leg *leg, *best = NULL;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync == DST_SYNC_IN_SYNC &&
		    (!best || atomic_read(&leg->inflight) <
			      atomic_read(&best->inflight)))
			best = leg;
	}
	return best;
}

static bool dst_resync_drained(struct dst_mirror *ms, unsigned int epoch)
{
	bool drained;

	spin_lock_irq(&ms->lock);
	drained = !ms->writes[epoch];
	spin_unlock_irq(&ms->lock);
	return drained;
}

/*
 * Fail the legs of @legs after a failed @what of @len bytes at @sector;
 * lock not held.  The place is dirty on them: a resync's region stays so
 * until a good copy, and a piece that verify could not read or repair
 * is copied when the leg is back.
 */
static void dst_resync_fail(struct dst_mirror *ms, unsigned long legs,
			    const char *what, sector_t sector, unsigned int len)
{
	unsigned int i;

	spin_lock_irq(&ms->lock);
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		dst_leg_fail(ms, ms->legs[i], what, sector,
			     len >> SECTOR_SHIFT);
	spin_unlock_irq(&ms->lock);
}

/*
 * After @len bytes copied: measure the rate, and keep it under the
 * storage's resync_max, or under resync_min when the disk had other I/O
 * since the last region, as md's sync_speed_min/max.  Sleeps between
 * regions, never with a window open.
 */
static void dst_resync_pace(struct dst_resync *rs, u64 len)
{
	struct dst_mirror *ms = rs->ms;
	unsigned int ios = atomic_read(&ms->app_ios);
	unsigned long now = jiffies, want;
	u32 limit;

	rs->rate_bytes += len;
	if (time_after_eq(now, rs->rate_stamp + HZ)) {
		WRITE_ONCE(ms->rate, div64_u64(rs->rate_bytes * HZ,
					       now - rs->rate_stamp));
		rs->rate_stamp = now;
		rs->rate_bytes = 0;
	}

	limit = ios != rs->seen_ios ? READ_ONCE(ms->st->resync_min) :
				      READ_ONCE(ms->st->resync_max);
	rs->seen_ios = ios;
	if (limit != rs->pace_limit || time_after(now, rs->pace_start + HZ)) {
		rs->pace_start = now;
		rs->pace_bytes = 0;
		rs->pace_limit = limit;
	}
	rs->pace_bytes += len;
	want = div64_u64(rs->pace_bytes * HZ, (u64)max(limit, 1U) << 10);
	if (want > now - rs->pace_start)
		wait_event_interruptible_timeout(ms->resync_wait,
						 kthread_should_stop() ||
						 kthread_should_park(),
						 want - (now - rs->pace_start));
}

/* About how much is left to copy: the most dirty regions of a leg; lock held. */
static u64 dst_resync_left(struct dst_mirror *ms)
{
	struct dst_leg *leg;
	u64 most = 0;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync == DST_SYNC_RESYNCING)
			most = max(most, leg->nr_dirty);
	}
	return min_t(u64, most << (ms->region_shift + SECTOR_SHIFT),
		     ms->st->size);
}

/* @leg, with nothing dirty left, holds every acknowledged write; lock held. */
static void dst_leg_in_sync(struct dst_mirror *ms, struct dst_leg *leg)
{
	lockdep_assert_held(&ms->lock);

	leg->sync = DST_SYNC_IN_SYNC;
	leg->full = false;
	leg->sums = false;
	if (ms->bm)
		dst_bitmap_legs_changed(ms->bm);
}

/* Open the window on @region and wait for the writes older than it. */
static void dst_window_open(struct dst_mirror *ms, u64 region)
{
	unsigned int epoch;

	spin_lock_irq(&ms->lock);
	ms->window = region;
	epoch = ms->epoch;
	ms->epoch ^= 1;
	spin_unlock_irq(&ms->lock);
	wait_event(ms->drain, dst_resync_drained(ms, epoch));
}

/* Close the window, and send the writes that waited for it. */
static void dst_window_close(struct dst_mirror *ms)
{
	struct bio_list deferred;
	struct bio *bio;

	spin_lock_irq(&ms->lock);
	ms->window = DST_NO_REGION;
	deferred = ms->deferred;
	bio_list_init(&ms->deferred);
	spin_unlock_irq(&ms->lock);
	while ((bio = bio_list_pop(&deferred)))
		dst_mirror_write(ms, bio);
}

static void dst_csum_endio(struct bio *bio)
{
	complete(bio->bi_private);
}

/*
 * The block sums of @len bytes at @sector on @leg into rs->sums: computed
 * by the export of a remote leg that can, else here from the data read.
 */
static int dst_leg_sums(struct dst_resync *rs, struct dst_leg *leg,
			sector_t sector, unsigned int len)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct dst_node *node = leg->node;
	struct bio *bio = &rs->csum.bio;
	int err;

	if (!node->remote || !(node->limits.features & DST_FEAT_CHECKSUM)) {
		if (dst_resync_io(rs, BIT(leg->idx), REQ_OP_READ, sector, len, 0))
			return -EIO;
		dst_digest_pages(rs->pages, len, rs->sums[leg->idx]);
		return 0;
	}
	bio_init(bio, NULL, NULL, 0, REQ_OP_DRV_IN);
	bio->bi_iter.bi_sector = sector;
	bio->bi_iter.bi_size = len;
	bio->bi_end_io = dst_csum_endio;
	bio->bi_private = &done;
	rs->csum.sums = rs->sums[leg->idx];
	atomic_inc(&leg->inflight);
	dst_node_submit(node, bio);
	wait_for_completion_io(&done);
	err = blk_status_to_errno(bio->bi_status);
	bio_uninit(bio);
	dst_leg_put_inflight(leg);
	return err;
}

/*
 * Write the piece in the buffer, @len bytes at @sector, to each leg of
 * @legs, remote legs whose exports sum their blocks, but only the blocks
 * whose sums differ from the source's (DRBD's csums-alg): a leg copied
 * in full, or after a crash, mostly holds them already.  Returns the
 * legs that failed.
 */
static unsigned long dst_resync_sparse(struct dst_resync *rs,
				       unsigned long legs, unsigned int src,
				       sector_t sector, unsigned int len)
{
	unsigned int i, b, e, n = dst_csum_count(len), from, to;
	struct dst_mirror *ms = rs->ms;
	unsigned long failed = 0;

	dst_digest_pages(rs->pages, len, rs->sums[src]);
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS) {
		if (dst_leg_sums(rs, ms->legs[i], sector, len)) {
			__set_bit(i, &failed);
			continue;
		}
		for (b = 0; b < n; b = e + 1) {
			for (e = b; e < n && rs->sums[i][e] != rs->sums[src][e]; e++)
				;
			if (e == b)
				continue;
			from = b * DST_CSUM_BLOCK;
			to = min(len, e * DST_CSUM_BLOCK);
			if (dst_resync_io(rs, BIT(i), REQ_OP_WRITE,
					  sector + (from >> SECTOR_SHIFT),
					  to - from, from)) {
				__set_bit(i, &failed);
				break;
			}
		}
	}
	return failed;
}

/* Copy @region to the resyncing legs that have it dirty. */
static void dst_resync_region(struct dst_resync *rs, u64 region)
{
	struct dst_mirror *ms = rs->ms;
	sector_t start = region << ms->region_shift, sector, end;
	unsigned long targets = 0, sparse = 0, failed, last;
	struct dst_leg *src, *leg;
	unsigned int i, len, epoch, piece;
	bool copied = true;

	end = min_t(sector_t, start + (1ULL << ms->region_shift), ms->sectors);

	spin_lock_irq(&ms->lock);
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync != DST_SYNC_RESYNCING || !test_bit(region, leg->dirty))
			continue;
		__set_bit(i, &targets);
		if (leg->sums && leg->node->remote &&
		    (leg->node->limits.features & DST_FEAT_CHECKSUM))
			__set_bit(i, &sparse);
	}
	ms->window = region;
	epoch = ms->epoch;
	ms->epoch ^= 1;
	spin_unlock_irq(&ms->lock);
	ms->resync_cursor = region + 1 < ms->nr_regions ? region + 1 : 0;

	wait_event(ms->drain, dst_resync_drained(ms, epoch));
	/*
	 * The source is picked only now: a write drained just now may have
	 * failed on a leg, whose copy of the region is then not the mirror's.
	 * Writes to the region wait for the window, so none can fail on the
	 * source from here on.
	 */
	spin_lock_irq(&ms->lock);
	src = dst_resync_source(ms);
	spin_unlock_irq(&ms->lock);
	if (!src)
		targets = 0;

	/* Pieces no larger than any leg takes (a new leg takes as much). */
	piece = min_t(u32, DST_RESYNC_PIECE, ms->st->limits.max_request);
	for (sector = start; sector < end && targets; sector += len >> SECTOR_SHIFT) {
		len = min_t(sector_t, end - sector,
			    piece >> SECTOR_SHIFT) << SECTOR_SHIFT;
		if (dst_resync_io(rs, BIT(src->idx), REQ_OP_READ, sector, len, 0)) {
			dst_resync_fail(ms, BIT(src->idx), "resync read",
					sector, len);
			/* The last leg in sync cannot feed the others. */
			if (READ_ONCE(src->sync) == DST_SYNC_IN_SYNC)
				dst_resync_fail(ms, targets, "resync: no source",
						sector, len);
			copied = false;
			break;
		}
		failed = dst_resync_io(rs, targets & ~sparse, REQ_OP_WRITE,
				       sector, len, 0) |
			 dst_resync_sparse(rs, targets & sparse, src->idx,
					   sector, len);
		if (failed) {
			dst_resync_fail(ms, failed, "resync write", sector,
					len);
			targets &= ~failed;
		}
	}

	/* A leg called in sync holds it all on its media. */
	spin_lock_irq(&ms->lock);
	last = 0;
	for_each_set_bit(i, &targets, DST_MIRROR_MAX_LEGS)
		if (ms->legs[i]->nr_dirty == 1)
			__set_bit(i, &last);
	spin_unlock_irq(&ms->lock);
	if (copied && last) {
		failed = dst_mirror_flush(ms, last);
		if (failed) {
			dst_resync_fail(ms, failed, "resync flush", start,
					(end - start) << SECTOR_SHIFT);
			targets &= ~failed;
		}
	}

	spin_lock_irq(&ms->lock);
	for_each_set_bit(i, &targets, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (!copied || leg->sync != DST_SYNC_RESYNCING)
			continue;
		if (__test_and_clear_bit(region, leg->dirty))
			leg->nr_dirty--;
		if (!leg->nr_dirty) {
			dst_leg_in_sync(ms, leg);
			pr_info("%s: node%u in sync\n", ms->st->name,
				leg->node->id);
		}
	}
	WRITE_ONCE(ms->left, dst_resync_left(ms));
	spin_unlock_irq(&ms->lock);

	dst_window_close(ms);
	if (copied && targets) {
		atomic64_add((u64)(end - start) << SECTOR_SHIFT,
			     &ms->resync_bytes);
		dst_resync_pace(rs, (u64)(end - start) << SECTOR_SHIFT);
	}
}

/*
 * Compare @len bytes at @sector on @legs, the first of them the source;
 * returns the blocks that differ, and sets @differ to the legs that do.
 * A leg that fails is failed and left out of @legs.
 */
static u64 dst_verify_piece(struct dst_resync *rs, unsigned long *legs,
			    sector_t sector, unsigned int len,
			    unsigned long *differ)
{
	unsigned int i, b, src, n = dst_csum_count(len);
	struct dst_mirror *ms = rs->ms;
	u64 bad = 0;
	bool any;

	*differ = 0;
	for_each_set_bit(i, legs, DST_MIRROR_MAX_LEGS) {
		if (!dst_leg_sums(rs, ms->legs[i], sector, len))
			continue;
		dst_resync_fail(ms, BIT(i), "verify read", sector, len);
		__clear_bit(i, legs);
	}
	src = find_first_bit(legs, DST_MIRROR_MAX_LEGS);
	for (b = 0; b < n; b++) {
		any = false;
		for_each_set_bit(i, legs, DST_MIRROR_MAX_LEGS) {
			if (rs->sums[i][b] == rs->sums[src][b])
				continue;
			__set_bit(i, differ);
			any = true;
		}
		bad += any;
	}
	return bad;
}

/*
 * Verify @region on the legs in sync, a piece at a time, inside the
 * window; with repair, copy each piece that differs from the first leg in
 * sync to the legs whose copy differs.
 */
static void dst_verify_region(struct dst_resync *rs, u64 region)
{
	struct dst_mirror *ms = rs->ms;
	sector_t start = region << ms->region_shift, end, sector;
	unsigned long legs = 0, differ, failed;
	unsigned int i, len, src, piece;
	u64 bad = 0;

	end = min_t(sector_t, start + (1ULL << ms->region_shift), ms->sectors);
	dst_window_open(ms, region);
	spin_lock_irq(&ms->lock);
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS)
		if (ms->legs[i]->sync == DST_SYNC_IN_SYNC)
			__set_bit(i, &legs);
	spin_unlock_irq(&ms->lock);

	piece = min_t(u32, DST_RESYNC_PIECE, ms->st->limits.max_request);
	for (sector = start; sector < end && hweight_long(legs) > 1;
	     sector += len >> SECTOR_SHIFT) {
		len = min_t(sector_t, end - sector,
			    piece >> SECTOR_SHIFT) << SECTOR_SHIFT;
		bad += dst_verify_piece(rs, &legs, sector, len, &differ);
		differ &= legs;
		if (!differ || !ms->verify_repair)
			continue;
		src = find_first_bit(&legs, DST_MIRROR_MAX_LEGS);
		if (dst_resync_io(rs, BIT(src), REQ_OP_READ, sector, len, 0)) {
			dst_resync_fail(ms, BIT(src), "repair read", sector,
					len);
			continue;
		}
		failed = dst_resync_io(rs, differ, REQ_OP_WRITE, sector, len, 0);
		if (failed)
			dst_resync_fail(ms, failed, "repair write", sector,
					len);
	}
	dst_window_close(ms);
	atomic64_add(bad, &ms->mismatches);
	dst_resync_pace(rs, (u64)(end - start) << SECTOR_SHIFT);
}

/* Verify the next region, if a verify runs; whether one did. */
static bool dst_verify_next(struct dst_resync *rs)
{
	struct dst_mirror *ms = rs->ms;
	u64 region, mismatches;
	bool done;

	spin_lock_irq(&ms->lock);
	region = ms->verify_next;
	spin_unlock_irq(&ms->lock);
	if (region == DST_NO_REGION)
		return false;
	dst_verify_region(rs, region);
	spin_lock_irq(&ms->lock);
	if (ms->verify_next == region)
		ms->verify_next = region + 1 < ms->nr_regions ? region + 1 :
								DST_NO_REGION;
	done = ms->verify_next == DST_NO_REGION;
	spin_unlock_irq(&ms->lock);
	if (!done)
		return true;
	mismatches = atomic64_read(&ms->mismatches);
	pr_info("%s: verify done: %llu block(s) differed%s\n", ms->st->name,
		mismatches, mismatches && ms->verify_repair ? ", repaired" : "");
	dst_event(ms->st, U32_MAX, DST_EVENT_VERIFY_DONE, mismatches,
		  GFP_KERNEL);
	return true;
}

/*
 * Start a verify of the running mirror @st: the thread compares its legs
 * in sync once nothing is left to resync.
 */
int dst_mirror_verify(struct dst_storage *st, bool repair, const char **why)
{
	struct dst_mirror *ms = st->priv;
	int err = 0;

	spin_lock_irq(&ms->lock);
	if (ms->verify_next != DST_NO_REGION) {
		*why = "a verify of the mirror is running";
		err = -EBUSY;
	} else if (dst_mirror_nr_in_sync(ms) < 2) {
		*why = "fewer than two legs in sync: nothing to compare";
		err = -EINVAL;
	} else {
		ms->verify_next = 0;
		ms->verify_repair = repair;
		atomic64_set(&ms->mismatches, 0);
	}
	spin_unlock_irq(&ms->lock);
	if (err)
		return err;
	pr_info("%s: verify%s started\n", st->name, repair ? " and repair" : "");
	dst_event(st, U32_MAX, DST_EVENT_VERIFY_START, 0, GFP_KERNEL);
	wake_up(&ms->resync_wait);
	return 0;
}

/*
 * Legs out of sync whose remote node has connected again since they
 * failed get their dirty regions copied: what was written while they
 * were away, what they failed, and with a bitmap every region it names.
 * Lock held.
 */
static void dst_resync_returns(struct dst_mirror *ms)
{
	struct dst_remote *r;
	struct dst_leg *leg;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		r = leg->node->remote;
		if (leg->sync != DST_SYNC_OUT_OF_SYNC || !r ||
		    dst_remote_state(r) != DST_NODE_CONNECTED ||
		    dst_remote_reconnects(r) == leg->fail_gen)
			continue;
		/*
		 * Its host may have lost what it had not flushed: the
		 * regions written since the last flush of the legs.
		 */
		if (ms->bm)
			dst_bitmap_mark_leg(ms->bm, leg);
		/* A failed flush marks nothing: nothing to copy then. */
		if (!leg->nr_dirty) {
			dst_leg_in_sync(ms, leg);
			pr_info("%s: node%u is back, nothing to resync\n",
				ms->st->name, leg->node->id);
			continue;
		}
		leg->sync = DST_SYNC_RESYNCING;
		pr_info("%s: node%u is back, resyncing %llu dirty region(s)\n",
			ms->st->name, leg->node->id, leg->nr_dirty);
	}
}

/*
 * Tell the events of the legs whose state changed since the last told:
 * out of sync (and a resync cut short), resync started, resync done.
 */
static void dst_resync_report(struct dst_mirror *ms)
{
	struct {
		u32 node;
		enum dst_sync_state from, to;
	} changes[DST_MIRROR_MAX_LEGS];
	unsigned int i, n = 0;
	struct dst_leg *leg;
	u64 bytes;

	spin_lock_irq(&ms->lock);
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync == leg->reported)
			continue;
		changes[n].node = leg->node->id;
		changes[n].from = leg->reported;
		changes[n].to = leg->sync;
		leg->reported = leg->sync;
		n++;
	}
	spin_unlock_irq(&ms->lock);

	bytes = atomic64_read(&ms->resync_bytes);
	for (i = 0; i < n; i++) {
		if (changes[i].to == DST_SYNC_OUT_OF_SYNC) {
			if (changes[i].from == DST_SYNC_RESYNCING)
				dst_event(ms->st, changes[i].node,
					  DST_EVENT_RESYNC_ABORT, 0, GFP_KERNEL);
			dst_event(ms->st, changes[i].node,
				  DST_EVENT_LEG_OUT_OF_SYNC, 0, GFP_KERNEL);
			continue;
		}
		if (changes[i].from == DST_SYNC_OUT_OF_SYNC)
			dst_event(ms->st, changes[i].node,
				  DST_EVENT_RESYNC_START, 0, GFP_KERNEL);
		if (changes[i].to == DST_SYNC_IN_SYNC)
			dst_event(ms->st, changes[i].node,
				  DST_EVENT_RESYNC_DONE, bytes, GFP_KERNEL);
	}
}

/* Something to copy, or a change to tell. */
static bool dst_resync_wanted(struct dst_mirror *ms)
{
	struct dst_leg *leg;
	bool wanted;
	unsigned int i;

	spin_lock_irq(&ms->lock);
	wanted = (dst_resync_next(ms) != DST_NO_REGION &&
		  dst_resync_source(ms)) || ms->verify_next != DST_NO_REGION;
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		wanted |= leg->sync != leg->reported;
	}
	spin_unlock_irq(&ms->lock);
	return wanted;
}

static int dst_resync_thread(void *data)
{
	struct dst_resync *rs = data;
	struct dst_mirror *ms = rs->ms;
	unsigned int noio = memalloc_noio_save();
	u64 region;

	while (!kthread_should_stop()) {
		if (kthread_should_park()) {
			kthread_parkme();
			continue;
		}
		dst_resync_report(ms);
		spin_lock_irq(&ms->lock);
		dst_resync_returns(ms);
		region = dst_resync_source(ms) ? dst_resync_next(ms) :
						 DST_NO_REGION;
		WRITE_ONCE(ms->left, region == DST_NO_REGION ? 0 :
				     dst_resync_left(ms));
		spin_unlock_irq(&ms->lock);
		if (region == DST_NO_REGION && dst_verify_next(rs)) {
			cond_resched();
			continue;
		}
		if (region == DST_NO_REGION) {
			WRITE_ONCE(ms->rate, 0);
			rs->rate_stamp = jiffies;
			rs->rate_bytes = 0;
			/*
			 * Woken for new legs and failed ones; looks for
			 * returning ones each second.
			 */
			wait_event_interruptible_timeout(ms->resync_wait,
							 dst_resync_wanted(ms) ||
							 kthread_should_stop() ||
							 kthread_should_park(),
							 HZ);
			continue;
		}
		dst_resync_region(rs, region);
		cond_resched();
	}
	memalloc_noio_restore(noio);
	return 0;
}

static void dst_resync_free(struct dst_resync *rs)
{
	unsigned int p;

	for (p = 0; p < DST_RESYNC_PAGES; p++)
		if (rs->pages[p])
			__free_page(rs->pages[p]);
	kvfree(rs);
}

int dst_resync_start(struct dst_mirror *ms)
{
	struct dst_resync *rs;
	unsigned int p;

	rs = kvzalloc(sizeof(*rs), DST_GFP_CMD);
	if (!rs)
		return -ENOMEM;
	rs->ms = ms;
	init_completion(&rs->done);
	rs->pace_start = jiffies;
	rs->rate_stamp = jiffies;
	for (p = 0; p < DST_RESYNC_PAGES; p++) {
		rs->pages[p] = alloc_page(GFP_KERNEL);
		if (!rs->pages[p]) {
			dst_resync_free(rs);
			return -ENOMEM;
		}
	}
	ms->resync = kthread_run(dst_resync_thread, rs, "dst%u_resync",
				 ms->st->id);
	if (IS_ERR(ms->resync)) {
		dst_resync_free(rs);
		return PTR_ERR(ms->resync);
	}
	ms->rs = rs;
	return 0;
}

void dst_resync_stop(struct dst_mirror *ms)
{
	kthread_stop(ms->resync);
	dst_resync_free(ms->rs);
}
