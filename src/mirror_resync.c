// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - resync of a mirror: a thread per running
 * mirror copies the dirty regions of resyncing legs from a leg in sync.
 *
 * Regions are copied inside a window, one large region or up to
 * DST_RESYNC_DEPTH small ones near each other, their pieces in flight
 * together: writes to the window wait until the copy is done, and the
 * copy starts only when the writes that were in flight when the window
 * opened have completed.  So no write can land on a leg before the older
 * data that resync read for the same region, the race that the seed's
 * per-chunk check of its backlog is about.
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
#include <linux/log2.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "mirror.h"

#define DST_RESYNC_PIECE	DST_MAX_REQUEST	/* at most 1 MiB in one request */
#define DST_RESYNC_PIECE_MIN	SZ_64K
#define DST_RESYNC_PAGES	(DST_RESYNC_PIECE >> PAGE_SHIFT)
#define DST_RESYNC_SUMS		(DST_RESYNC_PIECE / DST_CSUM_BLOCK)
#define DST_RESYNC_DEPTH	4	/* pieces in flight at once, at most */
#define DST_RESYNC_REACH	64	/* regions that one window may span */

/**
 * struct dst_resync_buf - a piece of a copy or a verify, and its I/O
 * @rs:		the thread's
 * @pages:	the piece, read from a leg
 * @sector:	its place
 * @len:	its bytes
 * @region:	which of the regions being copied it is in
 * @failed:	the legs whose I/O for it failed
 * @csum:	a CHECKSUM request per leg slot
 * @sums:	the block sums of the piece, per leg slot
 */
struct dst_resync_buf {
	struct dst_resync *rs;
	struct page *pages[DST_RESYNC_PAGES];
	sector_t sector;
	unsigned int len;
	unsigned int region;
	unsigned long failed;
	struct dst_csum csum[DST_MIRROR_MAX_LEGS];
	__be64 sums[DST_MIRROR_MAX_LEGS][DST_RESYNC_SUMS];
};

/**
 * struct dst_resync_bio - a read or a write of the resync thread
 * @buf:	the piece it moves
 * @leg:	the leg it goes to
 * @bio:	the bio, from the thread's bio_set
 */
struct dst_resync_bio {
	struct dst_resync_buf *buf;
	struct dst_leg *leg;
	struct bio bio;
};

/**
 * struct dst_resync - the state of the resync thread
 * @ms:		the mirror
 * @bs:		its bios
 * @bufs:	its pieces: the first for good, the others while it copies
 * @nr_bufs:	how many it has while it copies; 0 when idle
 * @regions:	the regions of the window being copied, in order
 * @pending:	I/Os in flight, +1 while sending
 * @done:	all answered
 * @pace_start:	start of the current pacing window
 * @pace_bytes:	bytes copied in it
 * @pace_limit:	the limit (KiB/s) it paces to
 * @seen_ios:	ms->app_ios when the last region was done
 * @rate_stamp:	start of the current rate measurement
 * @rate_bytes:	bytes copied since
 */
struct dst_resync {
	struct dst_mirror *ms;
	struct bio_set bs;
	struct dst_resync_buf *bufs[DST_RESYNC_DEPTH];
	unsigned int nr_bufs;
	u64 regions[DST_RESYNC_DEPTH];
	atomic_t pending;
	struct completion done;
	unsigned long pace_start;
	u64 pace_bytes;
	u32 pace_limit;
	unsigned int seen_ios;
	unsigned long rate_stamp;
	u64 rate_bytes;
};

/* An I/O of @buf on @leg is answered. */
static void dst_resync_answered(struct dst_resync_buf *buf,
				struct dst_leg *leg, blk_status_t status)
{
	struct dst_resync *rs = buf->rs;

	if (status)
		set_bit(leg->idx, &buf->failed);
	dst_leg_put_inflight(leg);
	if (atomic_dec_and_test(&rs->pending))
		complete(&rs->done);
}

static void dst_resync_endio(struct bio *bio)
{
	struct dst_resync_bio *rb = container_of(bio, struct dst_resync_bio,
						 bio);
	struct dst_resync_buf *buf = rb->buf;
	struct dst_leg *leg = rb->leg;
	blk_status_t status = bio->bi_status;

	bio_put(bio);
	dst_resync_answered(buf, leg, status);
}

static void dst_resync_csum_endio(struct bio *bio)
{
	struct dst_csum *cs = container_of(bio, struct dst_csum, bio);
	struct dst_resync_buf *buf = bio->bi_private;
	struct dst_leg *leg = buf->rs->ms->legs[cs - buf->csum];
	blk_status_t status = bio->bi_status;

	bio_uninit(bio);
	dst_resync_answered(buf, leg, status);
}

/* Start a round of I/O: dst_resync_send()s, then dst_resync_wait(). */
static void dst_resync_begin(struct dst_resync *rs)
{
	reinit_completion(&rs->done);
	atomic_set(&rs->pending, 1);
}

static void dst_resync_wait(struct dst_resync *rs)
{
	if (!atomic_dec_and_test(&rs->pending))
		wait_for_completion_io(&rs->done);
}

/*
 * Send a read or a write of @len bytes at @sector on leg @i, through
 * the pages of @buf from its byte @off on.
 */
static void dst_resync_send(struct dst_resync_buf *buf, unsigned int i,
			    enum req_op op, sector_t sector, unsigned int len,
			    unsigned int off)
{
	struct dst_resync *rs = buf->rs;
	struct dst_leg *leg = rs->ms->legs[i];
	struct dst_resync_bio *rb;
	unsigned int done, n, at;
	struct bio *bio;

	bio = bio_alloc_bioset(NULL, DIV_ROUND_UP(off % PAGE_SIZE + len, PAGE_SIZE),
			       op, GFP_NOIO, &rs->bs);
	rb = container_of(bio, struct dst_resync_bio, bio);
	rb->buf = buf;
	rb->leg = leg;
	bio->bi_iter.bi_sector = sector;
	for (done = 0; done < len; done += n) {
		at = (off + done) % PAGE_SIZE;
		n = min_t(unsigned int, len - done, PAGE_SIZE - at);
		__bio_add_page(bio, buf->pages[(off + done) / PAGE_SIZE], n, at);
	}
	bio->bi_end_io = dst_resync_endio;
	atomic_inc(&leg->inflight);
	atomic_inc(&rs->pending);
	dst_node_submit(leg->node, bio);
}

/* Whether @leg's export sums its blocks itself (DST_REQ_CHECKSUM). */
static bool dst_leg_sums_remote(struct dst_leg *leg)
{
	return leg->node->remote &&
	       (leg->node->limits.features & DST_FEAT_CHECKSUM);
}

/* Ask the export of leg @i for the block sums of @buf's piece. */
static void dst_resync_send_csum(struct dst_resync_buf *buf, unsigned int i)
{
	struct dst_resync *rs = buf->rs;
	struct dst_leg *leg = rs->ms->legs[i];
	struct dst_csum *cs = &buf->csum[i];

	bio_init(&cs->bio, NULL, NULL, 0, REQ_OP_DRV_IN);
	cs->bio.bi_iter.bi_sector = buf->sector;
	cs->bio.bi_iter.bi_size = buf->len;
	cs->bio.bi_end_io = dst_resync_csum_endio;
	cs->bio.bi_private = buf;
	cs->sums = buf->sums[i];
	atomic_inc(&leg->inflight);
	atomic_inc(&rs->pending);
	dst_node_submit(leg->node, &cs->bio);
}

/*
 * Send @op of @buf's piece to each leg of @legs (a read to one), and
 * wait.  Returns the legs that failed.
 */
static unsigned long dst_resync_io(struct dst_resync_buf *buf,
				   unsigned long legs, enum req_op op)
{
	unsigned int i;

	buf->failed = 0;
	dst_resync_begin(buf->rs);
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		dst_resync_send(buf, i, op, buf->sector, buf->len, 0);
	dst_resync_wait(buf->rs);
	return buf->failed;
}

static void dst_resync_buf_free(struct dst_resync *rs, unsigned int b)
{
	struct dst_resync_buf *buf = rs->bufs[b];
	unsigned int p;

	if (!buf)
		return;
	for (p = 0; p < DST_RESYNC_PAGES; p++)
		if (buf->pages[p])
			__free_page(buf->pages[p]);
	kvfree(buf);
	rs->bufs[b] = NULL;
}

static int dst_resync_buf_alloc(struct dst_resync *rs, unsigned int b,
				gfp_t gfp)
{
	struct dst_resync_buf *buf;
	unsigned int p;

	buf = kvzalloc(sizeof(*buf), gfp);
	if (!buf)
		return -ENOMEM;
	buf->rs = rs;
	rs->bufs[b] = buf;
	for (p = 0; p < DST_RESYNC_PAGES; p++) {
		buf->pages[p] = alloc_page(gfp | __GFP_NOWARN);
		if (!buf->pages[p]) {
			dst_resync_buf_free(rs, b);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * How many buffers the thread has for copying regions at once: those
 * beyond the first are made when a resync wants them, and freed when it
 * is done (md's resync buffers live as long as the resync too).  Fewer
 * if memory is short: they are not worth reclaim's effort (the thread
 * allocates without I/O, memalloc_noio_save()) nor a warning, one
 * buffer copies too.
 */
static unsigned int dst_resync_bufs(struct dst_resync *rs)
{
	unsigned int b;

	for (b = 1; b < DST_RESYNC_DEPTH; b++)
		if (!rs->bufs[b] &&
		    dst_resync_buf_alloc(rs, b, GFP_KERNEL | __GFP_NORETRY |
						__GFP_NOWARN))
			break;
	if (b < DST_RESYNC_DEPTH)
		pr_debug("%s: resync with %u of %u buffers\n",
			 rs->ms->st->name, b, DST_RESYNC_DEPTH);
	return b;
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

/*
 * The leg in sync with the fewest I/Os in flight, one that is not
 * write-mostly (a write-behind leg is one too: far away, or slow) if
 * there is one, as reads pick; lock held.
 */
static struct dst_leg *dst_resync_source(struct dst_mirror *ms)
{
	struct dst_leg *leg, *best = NULL;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync != DST_SYNC_IN_SYNC)
			continue;
		if (!best ||
		    (best->node->write_mostly && !leg->node->write_mostly) ||
		    (best->node->write_mostly == leg->node->write_mostly &&
		     atomic_read(&leg->inflight) <
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
 * regions, never with a window open; a limit written meanwhile ends the
 * sleep, so that raising a low one takes effect at once.
 */
static void dst_resync_pace(struct dst_resync *rs, u64 len)
{
	struct dst_mirror *ms = rs->ms;
	unsigned int ios = atomic_read(&ms->app_ios);
	u32 min = READ_ONCE(ms->st->resync_min);
	u32 max = READ_ONCE(ms->st->resync_max);
	unsigned long now = jiffies, want;
	u32 limit;

	rs->rate_bytes += len;
	if (time_after_eq(now, rs->rate_stamp + HZ)) {
		WRITE_ONCE(ms->rate, div64_u64(rs->rate_bytes * HZ,
					       now - rs->rate_stamp));
		rs->rate_stamp = now;
		rs->rate_bytes = 0;
	}

	limit = ios != rs->seen_ios ? min : max;
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
						 kthread_should_park() ||
						 READ_ONCE(ms->st->resync_min) != min ||
						 READ_ONCE(ms->st->resync_max) != max,
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

/* Open the window on regions @first to @last; lock held.  The epoch to drain. */
static unsigned int dst_window_set(struct dst_mirror *ms, u64 first, u64 last)
{
	unsigned int epoch = ms->epoch;

	lockdep_assert_held(&ms->lock);
	ms->window = first;
	ms->window_last = last;
	ms->epoch ^= 1;
	return epoch;
}

/* Open the window on @region and wait for the writes older than it. */
static void dst_window_open(struct dst_mirror *ms, u64 region)
{
	unsigned int epoch;

	spin_lock_irq(&ms->lock);
	epoch = dst_window_set(ms, region, region);
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

/* Ask the exports of the legs of @legs for their sums: a round begins. */
static void dst_resync_ask_sums(struct dst_resync_buf *buf, unsigned long legs)
{
	unsigned int i;

	buf->failed = 0;
	dst_resync_begin(buf->rs);
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		dst_resync_send_csum(buf, i);
}

/*
 * The block sums of @buf's piece on each leg of @legs, into its slots:
 * computed by the exports of the remote legs that can, all at once, and
 * here from the data of the others, read one at a time, the first while
 * the exports sum theirs.  Returns the legs that failed.
 */
static unsigned long dst_resync_sums(struct dst_resync_buf *buf,
				     unsigned long legs)
{
	unsigned long remote = 0, local, failed = 0;
	struct dst_mirror *ms = buf->rs->ms;
	unsigned int i;

	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		if (dst_leg_sums_remote(ms->legs[i]))
			__set_bit(i, &remote);
	local = legs & ~remote;
	for_each_set_bit(i, &local, DST_MIRROR_MAX_LEGS) {
		if (dst_resync_io(buf, BIT(i), REQ_OP_READ)) {
			__set_bit(i, &failed);
			continue;
		}
		if (remote)
			dst_resync_ask_sums(buf, remote);
		dst_digest_pages(buf->pages, buf->len, buf->sums[i]);
		if (remote) {
			dst_resync_wait(buf->rs);
			failed |= buf->failed;
			remote = 0;
		}
	}
	if (remote) {
		dst_resync_ask_sums(buf, remote);
		dst_resync_wait(buf->rs);
		failed |= buf->failed;
	}
	return failed;
}

/* The resyncing legs that have @region dirty, and which of them by sums; lock held. */
static unsigned long dst_resync_targets(struct dst_mirror *ms, u64 region,
					unsigned long *sparse)
{
	unsigned long targets = 0;
	struct dst_leg *leg;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		if (leg->sync != DST_SYNC_RESYNCING || !test_bit(region, leg->dirty))
			continue;
		__set_bit(i, &targets);
		if (leg->sums && dst_leg_sums_remote(leg))
			__set_bit(i, sparse);
	}
	return targets;
}

/*
 * After the read of @buf's piece from @src: a piece the source could not
 * give leaves its region uncopied; else ask the legs of its region's
 * @targets in @sparse for their sums of it.  Whether it has such legs.
 */
static bool dst_resync_ask(struct dst_resync_buf *buf, struct dst_leg *src,
			   unsigned long *targets, unsigned long sparse,
			   bool *copied)
{
	struct dst_mirror *ms = buf->rs->ms;
	unsigned int j = buf->region, i;
	unsigned long legs;

	if (!copied[j] || !targets[j])
		return false;
	if (test_bit(src->idx, &buf->failed)) {
		buf->failed = 0;
		copied[j] = false;
		dst_resync_fail(ms, BIT(src->idx), "resync read", buf->sector,
				buf->len);
		/* The last leg in sync cannot feed the others. */
		if (READ_ONCE(src->sync) == DST_SYNC_IN_SYNC)
			dst_resync_fail(ms, targets[j], "resync: no source",
					buf->sector, buf->len);
		return false;
	}
	legs = targets[j] & sparse;
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		dst_resync_send_csum(buf, i);
	return legs;
}

/*
 * Send the writes of @buf's piece, read from @src, to the legs of its
 * region's @targets: to those of @sparse only the blocks whose sums
 * differ from the source's (DRBD's csums-alg), as a leg copied in full,
 * or after a crash, mostly holds them already.  A leg whose sums failed
 * is failed.
 */
static void dst_resync_write(struct dst_resync_buf *buf, struct dst_leg *src,
			     unsigned long *targets, unsigned long sparse,
			     bool *copied)
{
	unsigned int j = buf->region, n = dst_csum_count(buf->len), i, b, e;
	unsigned long failed = buf->failed, legs;
	struct dst_mirror *ms = buf->rs->ms;
	unsigned int from, to;

	buf->failed = 0;
	if (!copied[j] || !targets[j])
		return;
	failed &= targets[j];
	if (failed) {
		dst_resync_fail(ms, failed, "resync checksum", buf->sector,
				buf->len);
		targets[j] &= ~failed;
	}

	legs = targets[j] & ~sparse;
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		dst_resync_send(buf, i, REQ_OP_WRITE, buf->sector, buf->len, 0);
	legs = targets[j] & sparse;
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS) {
		for (b = 0; b < n; b = e + 1) {
			for (e = b; e < n && buf->sums[i][e] != buf->sums[src->idx][e]; e++)
				;
			if (e == b)
				continue;
			from = b * DST_CSUM_BLOCK;
			to = min(buf->len, e * DST_CSUM_BLOCK);
			dst_resync_send(buf, i, REQ_OP_WRITE,
					buf->sector + (from >> SECTOR_SHIFT),
					to - from, from);
		}
	}
}

/*
 * The bytes of a piece: no more than any leg takes (a new leg takes as
 * much), and no more than the rate that resync is held to moves in
 * 1/128 s, a power of two from DST_RESYNC_PIECE_MIN up: a request of the
 * application to a remote leg waits behind the pieces ahead of it on the
 * connection and at the export, so a resync held back for the
 * application (resync_min) sends small pieces, as md's resync moves
 * 64 KiB at a time, and one that may go fast sends large ones.
 */
static unsigned int dst_resync_piece(struct dst_resync *rs)
{
	struct dst_mirror *ms = rs->ms;
	u32 limit = rs->pace_limit ?: READ_ONCE(ms->st->resync_max);
	u64 piece = clamp_t(u64, (u64)limit << 3, DST_RESYNC_PIECE_MIN,
			    DST_RESYNC_PIECE);

	return min_t(u32, rounddown_pow_of_two(piece),
		     ms->st->limits.max_request);
}

/*
 * Send the reads of the next round of pieces from @src, from *@sector
 * in the window's region *@j on, up to the end of its @n regions; moves
 * *@j and *@sector on.  Returns how many pieces it has.
 */
static unsigned int dst_resync_read(struct dst_resync *rs, struct dst_leg *src,
				    unsigned int n, unsigned int *j,
				    sector_t *sector, unsigned long *targets,
				    bool *copied)
{
	struct dst_mirror *ms = rs->ms;
	struct dst_resync_buf *buf;
	unsigned int piece, nb;
	sector_t stop;

	piece = dst_resync_piece(rs);
	for (nb = 0; nb < rs->nr_bufs && *j < n; nb++) {
		buf = rs->bufs[nb];
		stop = min_t(sector_t, (rs->regions[*j] + 1) << ms->region_shift,
			     ms->sectors);
		buf->sector = *sector;
		buf->len = min_t(sector_t, stop - *sector,
				 piece >> SECTOR_SHIFT) << SECTOR_SHIFT;
		buf->region = *j;
		buf->failed = 0;
		if (copied[*j] && targets[*j])
			dst_resync_send(buf, src->idx, REQ_OP_READ, buf->sector,
					buf->len, 0);
		*sector += buf->len >> SECTOR_SHIFT;
		if (*sector >= stop && ++*j < n)
			*sector = rs->regions[*j] << ms->region_shift;
	}
	return nb;
}

/*
 * Copy the @n regions of the window from @src to the legs of their
 * @targets, a round of pieces at a time, each step of a round with all
 * its I/O in flight at once, so that an export always has more than one
 * request: the reads; the sums of the legs of @sparse, while the
 * source's are made here; the writes.  Drops the legs that fail from
 * @targets; clears @copied of the regions that the source could not
 * give.
 */
static void dst_resync_copy(struct dst_resync *rs, struct dst_leg *src,
			    unsigned int n, unsigned long *targets,
			    unsigned long sparse, bool *copied)
{
	struct dst_mirror *ms = rs->ms;
	sector_t sector = rs->regions[0] << ms->region_shift;
	unsigned long asked, failed;
	struct dst_resync_buf *buf;
	unsigned int b, nb, j = 0;

	while (j < n) {
		dst_resync_begin(rs);
		nb = dst_resync_read(rs, src, n, &j, &sector, targets, copied);
		dst_resync_wait(rs);

		dst_resync_begin(rs);
		asked = 0;
		for (b = 0; b < nb; b++)
			if (dst_resync_ask(rs->bufs[b], src, targets, sparse,
					   copied))
				__set_bit(b, &asked);
		for_each_set_bit(b, &asked, DST_RESYNC_DEPTH) {
			buf = rs->bufs[b];
			dst_digest_pages(buf->pages, buf->len,
					 buf->sums[src->idx]);
		}
		dst_resync_wait(rs);

		dst_resync_begin(rs);
		for (b = 0; b < nb; b++)
			dst_resync_write(rs->bufs[b], src, targets, sparse,
					 copied);
		dst_resync_wait(rs);
		for (b = 0; b < nb; b++) {
			buf = rs->bufs[b];
			failed = buf->failed & targets[buf->region];
			if (!failed)
				continue;
			dst_resync_fail(ms, failed, "resync write", buf->sector,
					buf->len);
			targets[buf->region] &= ~failed;
		}
	}
}

/*
 * The regions to copy in one window, from @region on, into the thread's
 * @regions: when a region is no larger than a piece, as many as there
 * are pieces in flight of those that some leg has dirty within
 * DST_RESYNC_REACH regions, as after a leg missed scattered writes;
 * else the one.  The clean regions between them are in the window too,
 * their writes held while it is open.  Returns how many; lock held.
 */
static unsigned int dst_resync_span(struct dst_resync *rs, u64 region)
{
	struct dst_mirror *ms = rs->ms;
	unsigned long sparse = 0;
	unsigned int n = 1;
	u64 r, end;

	rs->regions[0] = region;
	if ((1ULL << (ms->region_shift + SECTOR_SHIFT)) > dst_resync_piece(rs))
		return 1;
	end = min_t(u64, region + DST_RESYNC_REACH, ms->nr_regions);
	for (r = region + 1; n < rs->nr_bufs && r < end; r++)
		if (dst_resync_targets(ms, r, &sparse))
			rs->regions[n++] = r;
	return n;
}

/*
 * Copy the @n regions of the window to the resyncing legs that have them
 * dirty, inside one window over them all.
 */
static void dst_resync_regions(struct dst_resync *rs, unsigned int n)
{
	unsigned long targets[DST_RESYNC_DEPTH], sparse = 0, all = 0, failed, last;
	struct dst_mirror *ms = rs->ms;
	bool copied[DST_RESYNC_DEPTH];
	unsigned int i, j, epoch, done;
	struct dst_leg *src, *leg;
	u64 first = rs->regions[0], end = rs->regions[n - 1] + 1, bytes = 0;

	spin_lock_irq(&ms->lock);
	for (j = 0; j < n; j++) {
		targets[j] = dst_resync_targets(ms, rs->regions[j], &sparse);
		copied[j] = true;
	}
	epoch = dst_window_set(ms, first, end - 1);
	spin_unlock_irq(&ms->lock);
	ms->resync_cursor = end < ms->nr_regions ? end : 0;

	wait_event(ms->drain, dst_resync_drained(ms, epoch));
	/*
	 * The source is picked only now: a write drained just now may have
	 * failed on a leg, whose copy of the region is then not the mirror's.
	 * Writes to the window wait, so none can fail on the source from
	 * here on.
	 */
	spin_lock_irq(&ms->lock);
	src = dst_resync_source(ms);
	spin_unlock_irq(&ms->lock);
	if (!src)
		memset(targets, 0, sizeof(targets));

	else
		dst_resync_copy(rs, src, n, targets, sparse, copied);

	/* A leg called in sync holds it all on its media. */
	spin_lock_irq(&ms->lock);
	last = 0;
	for (j = 0; j < n; j++)
		all |= copied[j] ? targets[j] : 0;
	for_each_set_bit(i, &all, DST_MIRROR_MAX_LEGS) {
		for (done = 0, j = 0; j < n; j++)
			done += copied[j] && test_bit(i, &targets[j]);
		if (ms->legs[i]->nr_dirty == done)
			__set_bit(i, &last);
	}
	dst_mirror_hold_legs(ms, last);
	spin_unlock_irq(&ms->lock);
	if (last) {
		failed = dst_mirror_flush(ms, last);
		if (failed) {
			dst_resync_fail(ms, failed, "resync flush",
					first << ms->region_shift,
					(end - first) << (ms->region_shift +
							  SECTOR_SHIFT));
			for (j = 0; j < n; j++)
				targets[j] &= ~failed;
		}
	}

	spin_lock_irq(&ms->lock);
	for (j = 0; j < n; j++) {
		if (!copied[j] || !targets[j])
			continue;
		bytes += min_t(sector_t, ms->sectors - (rs->regions[j] << ms->region_shift),
			       1ULL << ms->region_shift) << SECTOR_SHIFT;
		for_each_set_bit(i, &targets[j], DST_MIRROR_MAX_LEGS) {
			leg = ms->legs[i];
			if (leg->sync != DST_SYNC_RESYNCING)
				continue;
			if (__test_and_clear_bit(rs->regions[j], leg->dirty))
				leg->nr_dirty--;
			if (!leg->nr_dirty) {
				dst_leg_in_sync(ms, leg);
				pr_info("%s: node%u in sync\n", ms->st->name,
					leg->node->id);
			}
		}
	}
	WRITE_ONCE(ms->left, dst_resync_left(ms));
	spin_unlock_irq(&ms->lock);

	dst_window_close(ms);
	if (bytes) {
		atomic64_add(bytes, &ms->resync_bytes);
		dst_resync_pace(rs, bytes);
	}
}

/*
 * Compare @buf's piece on @legs, the first of them the source; returns
 * the blocks that differ, and sets @differ to the legs that do.  A leg
 * that fails is failed and left out of @legs.
 */
/*
 * The leg of @legs that verify compares the others with and repairs
 * them from: the first that is not write-mostly, else the first.
 */
static unsigned int dst_verify_source(struct dst_mirror *ms,
				      unsigned long legs)
{
	unsigned int i;

	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		if (!ms->legs[i]->node->write_mostly)
			return i;
	return find_first_bit(&legs, DST_MIRROR_MAX_LEGS);
}

static u64 dst_verify_piece(struct dst_resync_buf *buf, unsigned long *legs,
			    unsigned long *differ)
{
	unsigned int i, b, src, n = dst_csum_count(buf->len);
	struct dst_mirror *ms = buf->rs->ms;
	unsigned long failed;
	u64 bad = 0;
	bool any;

	*differ = 0;
	failed = dst_resync_sums(buf, *legs);
	if (failed) {
		dst_resync_fail(ms, failed, "verify read", buf->sector,
				buf->len);
		*legs &= ~failed;
	}
	src = dst_verify_source(ms, *legs);
	for (b = 0; b < n; b++) {
		any = false;
		for_each_set_bit(i, legs, DST_MIRROR_MAX_LEGS) {
			if (buf->sums[i][b] == buf->sums[src][b])
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
 * sync that is not write-mostly (else the first) to the legs whose copy
 * differs.
 */
static void dst_verify_region(struct dst_resync *rs, u64 region)
{
	struct dst_mirror *ms = rs->ms;
	sector_t start = region << ms->region_shift, end, sector;
	unsigned long legs = 0, differ, failed;
	struct dst_resync_buf *buf = rs->bufs[0];
	unsigned int i, src, piece;
	u64 bad = 0;

	end = min_t(sector_t, start + (1ULL << ms->region_shift), ms->sectors);
	dst_window_open(ms, region);
	spin_lock_irq(&ms->lock);
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS)
		if (ms->legs[i]->sync == DST_SYNC_IN_SYNC)
			__set_bit(i, &legs);
	spin_unlock_irq(&ms->lock);

	piece = dst_resync_piece(rs);
	for (sector = start; sector < end && hweight_long(legs) > 1;
	     sector += buf->len >> SECTOR_SHIFT) {
		buf->sector = sector;
		buf->len = min_t(sector_t, end - sector,
				 piece >> SECTOR_SHIFT) << SECTOR_SHIFT;
		bad += dst_verify_piece(buf, &legs, &differ);
		differ &= legs;
		if (!differ || !ms->verify_repair)
			continue;
		src = dst_verify_source(ms, legs);
		if (dst_resync_io(buf, BIT(src), REQ_OP_READ)) {
			dst_resync_fail(ms, BIT(src), "repair read", sector,
					buf->len);
			continue;
		}
		failed = dst_resync_io(buf, differ, REQ_OP_WRITE);
		if (failed)
			dst_resync_fail(ms, failed, "repair write", sector,
					buf->len);
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

/* @leg is out of sync, and its remote node connected again since it failed. */
static bool dst_leg_back(struct dst_leg *leg)
{
	struct dst_remote *r = leg->node->remote;

	return leg->sync == DST_SYNC_OUT_OF_SYNC && r &&
	       dst_remote_state(r) == DST_NODE_CONNECTED &&
	       dst_remote_reconnects(r) != leg->fail_gen;
}

/*
 * Legs out of sync whose remote node has connected again since they
 * failed get their dirty regions copied: what was written while they
 * were away, what they failed, and with a bitmap every region it names.
 * Lock held.
 */
static void dst_resync_returns(struct dst_mirror *ms)
{
	struct dst_leg *leg;
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		dst_leg_check_restart(ms, leg);
		if (!dst_leg_back(leg))
			continue;
		/*
		 * Its host may have lost what it had not flushed when the
		 * leg failed: the regions set since the last flush of the
		 * legs.  The sweep marks them, if none ran since.
		 */
		if (ms->bm && leg->lost)
			dst_bitmap_mark_leg(ms->bm, leg);
		leg->lost = false;
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

/* Something to copy, a leg back, or a change to tell. */
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
		wanted |= dst_leg_check_restart(ms, leg) ||
			  leg->sync != leg->reported || dst_leg_back(leg);
	}
	spin_unlock_irq(&ms->lock);
	return wanted;
}

static int dst_resync_thread(void *data)
{
	struct dst_resync *rs = data;
	struct dst_mirror *ms = rs->ms;
	unsigned int noio = memalloc_noio_save(), n;
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
			for (n = 1; n < DST_RESYNC_DEPTH; n++)
				dst_resync_buf_free(rs, n);
			rs->nr_bufs = 0;
			/*
			 * Woken for new legs, failed ones and returning
			 * ones; looks again each second.
			 */
			wait_event_interruptible_timeout(ms->resync_wait,
							 dst_resync_wanted(ms) ||
							 kthread_should_stop() ||
							 kthread_should_park(),
							 HZ);
			continue;
		}
		if (!rs->nr_bufs)
			rs->nr_bufs = dst_resync_bufs(rs);
		spin_lock_irq(&ms->lock);
		n = dst_resync_span(rs, region);
		spin_unlock_irq(&ms->lock);
		dst_resync_regions(rs, n);
		cond_resched();
	}
	memalloc_noio_restore(noio);
	return 0;
}

static void dst_resync_free(struct dst_resync *rs)
{
	unsigned int b;

	for (b = 0; b < DST_RESYNC_DEPTH; b++)
		dst_resync_buf_free(rs, b);
	bioset_exit(&rs->bs);
	kvfree(rs);
}

int dst_resync_start(struct dst_mirror *ms)
{
	struct dst_resync *rs;

	rs = kvzalloc(sizeof(*rs), DST_GFP_CMD);
	if (!rs)
		return -ENOMEM;
	rs->ms = ms;
	init_completion(&rs->done);
	rs->pace_start = jiffies;
	rs->rate_stamp = jiffies;
	if (bioset_init(&rs->bs, 2 * DST_RESYNC_DEPTH,
			offsetof(struct dst_resync_bio, bio), BIOSET_NEED_BVECS) ||
	    dst_resync_buf_alloc(rs, 0, GFP_KERNEL)) {
		dst_resync_free(rs);
		return -ENOMEM;
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
