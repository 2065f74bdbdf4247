// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the write-intent bitmap of a mirror, kept in
 * a file or block device of the array host and never on the legs, as
 * md's external bitmap file.
 *
 * A region's bit is on disk before a write to the region goes to any leg,
 * and is cleared lazily, once the region has had no write for a sweep
 * period and is dirty on no leg.  A header says whether the mirror
 * stopped cleanly and which legs were in sync; a leg that goes out of
 * sync is on disk before a write it missed is acknowledged.  So after a
 * crash of the host, the regions set are all that can differ between the
 * legs, and the legs the header has in sync hold every acknowledged write.
 *
 * Four bit images, under dst_mirror.lock:
 *   image:   what the file should say: writes set bits, sweeps clear them
 *   ondisk:  what the file says, as of the last fsync
 *   shadow:  the little-endian words the last or current round writes
 *   touched: regions written since the last sweep
 * A write goes once its bits are set in ondisk and in shadow: on disk,
 * and not about to be cleared by a round in flight.  The bitmap thread
 * writes the changed pages and the header, fsyncs, and lets the writes
 * that waited go.  It does file I/O with memalloc_noio set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/crc32.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "mirror.h"

#define DST_BITMAP_SWEEP	(5 * HZ)	/* md's default daemon_sleep */
#define DST_BITMAP_PAGE_BITS	(PAGE_SIZE * BITS_PER_BYTE)
#define DST_BITMAP_PAGE_WORDS	(PAGE_SIZE / sizeof(u64))

/**
 * struct dst_bitmap - the bitmap of a running mirror, dst_mirror.bm
 * @ms:		the mirror
 * @file:	the file or device
 * @image:	see above
 * @ondisk:	see above
 * @shadow:	see above
 * @touched:	see above
 * @nr_regions:	regions the bits are for
 * @nr_pages:	pages of bits in the file
 * @dirty:	pages of @image not written since they changed
 * @round:	pages the current round writes
 * @hdr:	the header, as read and then as written
 * @gen:	writes count in @writes[@gen]; a sweep flips it
 * @writes:	writes in flight per generation
 * @waiting:	writes waiting for their bits to be on disk
 * @acks:	completed writes waiting for a leg's failure to be on disk
 * @fails:	bumped when a leg goes out of sync
 * @fails_written: @fails as of the last header written
 * @stale:	the header lags behind a change of the legs
 * @failed:	a write of the bitmap failed: no new bit can be set
 * @task:	the bitmap thread
 * @wait:	it sleeps here
 * @io_lock:	taken by the thread around its sweeps and rounds, and by a
 *		grow around the change of size: no file I/O in between
 */
struct dst_bitmap {
	struct dst_mirror *ms;
	struct file *file;
	unsigned long *image;
	unsigned long *ondisk;
	__le64 *shadow;
	unsigned long *touched;
	u64 nr_regions;
	unsigned int nr_pages;
	unsigned long *dirty;
	unsigned long *round;
	struct dst_bitmap_header *hdr;
	unsigned int gen;
	unsigned int writes[2];
	struct bio_list waiting;
	struct bio_list acks;
	unsigned int fails;
	unsigned int fails_written;
	bool stale;
	bool failed;
	struct task_struct *task;
	wait_queue_head_t wait;
	struct mutex io_lock;	/* see above */
};

static unsigned int dst_page_of(u64 region)
{
	return region / DST_BITMAP_PAGE_BITS;
}

static bool dst_shadow_test(struct dst_bitmap *bm, u64 r)
{
	return le64_to_cpu(bm->shadow[r / 64]) & BIT_ULL(r % 64);
}

/* Regions in page @p, and how many. */
static u64 dst_page_bits(struct dst_bitmap *bm, unsigned int p)
{
	return min_t(u64, DST_BITMAP_PAGE_BITS,
		     bm->nr_regions - (u64)p * DST_BITMAP_PAGE_BITS);
}

/* Copy page @p of the image to the shadow; lock held. */
static void dst_bitmap_snap(struct dst_bitmap *bm, unsigned int p)
{
	u64 *w = (u64 *)&bm->shadow[p * DST_BITMAP_PAGE_WORDS];
	unsigned int i, n = DIV_ROUND_UP(dst_page_bits(bm, p), 64);

	bitmap_to_arr64(w, bm->image + p * BITS_TO_LONGS(DST_BITMAP_PAGE_BITS),
			dst_page_bits(bm, p));
	for (i = 0; i < n; i++)
		bm->shadow[p * DST_BITMAP_PAGE_WORDS + i] = cpu_to_le64(w[i]);
}

/* Page @p of the shadow is on disk; lock held. */
static void dst_bitmap_commit(struct dst_bitmap *bm, unsigned int p)
{
	unsigned long *dst = bm->ondisk + p * BITS_TO_LONGS(DST_BITMAP_PAGE_BITS);
	u64 r, n = dst_page_bits(bm, p), base = (u64)p * DST_BITMAP_PAGE_BITS;

	for (r = 0; r < n; r++)
		__assign_bit(r, dst, dst_shadow_test(bm, base + r));
}

/*
 * Set the bits of regions @first to @last in the image, to be written by
 * the next round; lock held.
 */
void dst_bitmap_set(struct dst_bitmap *bm, u64 first, u64 last)
{
	u64 r;

	lockdep_assert_held(&bm->ms->lock);

	for (r = first; r <= last; r++)
		if (!__test_and_set_bit(r, bm->image))
			__set_bit(dst_page_of(r), bm->dirty);
}

/* Mark dirty on @leg every region set in the bitmap; lock held. */
void dst_bitmap_mark_leg(struct dst_bitmap *bm, struct dst_leg *leg)
{
	lockdep_assert_held(&bm->ms->lock);

	bitmap_or(leg->dirty, leg->dirty, bm->image, bm->ms->nr_regions);
	leg->nr_dirty = bitmap_weight(leg->dirty, bm->ms->nr_regions);
}

/*
 * A write to regions @first to @last: whether it may go now, its bits
 * being on disk.  When it may not, the caller parks it with
 * dst_bitmap_wait().  Lock held.
 */
bool dst_bitmap_ready(struct dst_bitmap *bm, u64 first, u64 last)
{
	bool ready = true;
	u64 r;

	lockdep_assert_held(&bm->ms->lock);

	dst_bitmap_set(bm, first, last);
	for (r = first; r <= last && ready; r++)
		ready = test_bit(r, bm->ondisk) && dst_shadow_test(bm, r);
	return ready;
}

/* Park @bio until the next round; false if the bitmap failed.  Lock held. */
bool dst_bitmap_wait(struct dst_bitmap *bm, struct bio *bio)
{
	if (bm->failed)
		return false;
	bio_list_add(&bm->waiting, bio);
	wake_up(&bm->wait);
	return true;
}

/* A write that may go starts: returns its generation.  Lock held. */
unsigned int dst_bitmap_start_write(struct dst_bitmap *bm, u64 first, u64 last)
{
	u64 r;

	for (r = first; r <= last; r++)
		__set_bit(r, bm->touched);
	bm->writes[bm->gen]++;
	return bm->gen;
}

/* Whether a write acknowledged now would have to wait; lock held. */
bool dst_bitmap_acks_wait(struct dst_bitmap *bm)
{
	return bm->fails != bm->fails_written || bm->failed;
}

/*
 * A write of generation @gen completed.  Returns true when its
 * acknowledgment must wait for a leg's failure to be on disk: the
 * bitmap thread then ends @bio.  When that failure can no longer be
 * written (the bitmap failed), the write fails: after a crash, the leg
 * that missed it would be trusted as in sync.  @bio is NULL for a write
 * acknowledged already (write-behind): its region stays set while a leg
 * that failed it is dirty.  Lock held.
 */
bool dst_bitmap_end_write(struct dst_bitmap *bm, unsigned int gen,
			  struct bio *bio)
{
	bm->writes[gen]--;
	return bio && dst_bitmap_hold_ack(bm, bio);
}

/*
 * Whether the acknowledgment of @bio, a write or an empty flush that
 * completed, must wait for a leg's failure to be on disk; see
 * dst_bitmap_end_write().  Lock held.
 */
bool dst_bitmap_hold_ack(struct dst_bitmap *bm, struct bio *bio)
{
	if (bm->fails == bm->fails_written)
		return false;
	if (bm->failed) {
		bio->bi_status = BLK_STS_IOERR;
		return false;
	}
	bio_list_add(&bm->acks, bio);
	wake_up(&bm->wait);
	return true;
}

/*
 * A leg went out of sync, or is being removed: urgent, acknowledgments
 * wait, and the thread writes the header even if nothing waits yet.
 * Lock held.
 */
void dst_bitmap_leg_failed(struct dst_bitmap *bm)
{
	bm->fails++;
	wake_up(&bm->wait);
}

/* Another change of the legs, written with the next round.  Lock held. */
void dst_bitmap_legs_changed(struct dst_bitmap *bm)
{
	bm->stale = true;
}

u64 dst_bitmap_weight(struct dst_bitmap *bm)
{
	u64 n;

	spin_lock_irq(&bm->ms->lock);
	n = bitmap_weight(bm->image, bm->nr_regions);
	spin_unlock_irq(&bm->ms->lock);
	return n;
}

static bool dst_leg_dirty_in(struct dst_mirror *ms, u64 r)
{
	unsigned int i;

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS)
		if (ms->legs[i]->nr_dirty && test_bit(r, ms->legs[i]->dirty))
			return true;
	return false;
}

static void dst_leg_ident(struct dst_node *node, char *buf, size_t len)
{
	const struct sockaddr_storage *addr;
	int alen;

	if (!node->remote) {
		strscpy_pad(buf, node->path, len);
		return;
	}
	addr = dst_remote_addr(node->remote, &alen);
	memset(buf, 0, len);
	snprintf(buf, len, "%pISpc", addr);
}

static enum dst_bitmap_leg_state dst_leg_disk_state(struct dst_leg *leg)
{
	if (leg->sync == DST_SYNC_IN_SYNC)
		return DST_BITMAP_LEG_IN_SYNC;
	return leg->full ? DST_BITMAP_LEG_FULL : DST_BITMAP_LEG_DIRTY;
}

/* The header for @state and the legs as they are; lock held. */
static void dst_bitmap_fill_header(struct dst_bitmap *bm,
				   enum dst_bitmap_state state)
{
	struct dst_bitmap_header *h = bm->hdr;
	struct dst_mirror *ms = bm->ms;
	struct dst_leg *leg;
	unsigned int i, n = 0;

	memset(h->legs, 0, sizeof(h->legs));
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		h->legs[n].id = cpu_to_le32(leg->node->id);
		h->legs[n].state = cpu_to_le32(dst_leg_disk_state(leg));
		h->legs[n].size = cpu_to_le64(leg->node->size);
		dst_leg_ident(leg->node, h->legs[n].ident,
			      sizeof(h->legs[n].ident));
		n++;
	}
	memcpy(h->magic, DST_BITMAP_MAGIC, sizeof(h->magic));
	h->version = cpu_to_le32(DST_BITMAP_VERSION);
	h->state = cpu_to_le32(state);
	le64_add_cpu(&h->events, 1);
	h->size = cpu_to_le64(ms->st->size);
	h->chunk_size = cpu_to_le32(ms->st->chunk_size);
	h->nr_legs = cpu_to_le32(n);
	strscpy_pad(h->name, ms->st->name, sizeof(h->name));
	h->crc = cpu_to_le32(crc32_le(~0, (void *)h,
				      offsetof(struct dst_bitmap_header, crc)) ^ ~0);
	bm->stale = false;
}

static int dst_bitmap_write(struct dst_bitmap *bm, const void *buf,
			    size_t len, loff_t pos)
{
	ssize_t n = kernel_write(bm->file, buf, len, &pos);

	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}

/*
 * Write the pages that changed, and the header when @state is given or
 * the legs changed; fsync; then let go the writes and acknowledgments
 * that waited for it.  A failure is final: the bitmap takes no new bit,
 * and whatever waited for it fails.
 */
static int dst_bitmap_round(struct dst_bitmap *bm, enum dst_bitmap_state state)
{
	struct dst_mirror *ms = bm->ms;
	struct bio_list waiting, acks;
	unsigned int p, fails;
	bool hdr;
	struct bio *bio;
	int err = 0;

	spin_lock_irq(&ms->lock);
	bitmap_copy(bm->round, bm->dirty, bm->nr_pages);
	bitmap_zero(bm->dirty, bm->nr_pages);
	for_each_set_bit(p, bm->round, bm->nr_pages)
		dst_bitmap_snap(bm, p);
	waiting = bm->waiting;
	bio_list_init(&bm->waiting);
	acks = bm->acks;
	bio_list_init(&bm->acks);
	fails = bm->fails;
	hdr = state || fails != bm->fails_written || bm->stale;
	if (hdr)
		dst_bitmap_fill_header(bm, state ?: DST_BITMAP_RUNNING);
	err = bm->failed ? -EIO : 0;
	spin_unlock_irq(&ms->lock);

	for_each_set_bit(p, bm->round, bm->nr_pages) {
		if (err)
			break;
		err = dst_bitmap_write(bm, &bm->shadow[p * DST_BITMAP_PAGE_WORDS],
				       DIV_ROUND_UP(dst_page_bits(bm, p), 64) * 8,
				       DST_BITMAP_HDR_SIZE + (loff_t)p * PAGE_SIZE);
	}
	if (hdr && !err)
		err = dst_bitmap_write(bm, bm->hdr, DST_BITMAP_HDR_SIZE, 0);
	if (!err)
		err = vfs_fsync(bm->file, 0);

	spin_lock_irq(&ms->lock);
	if (err) {
		if (!bm->failed)
			pr_err("%s: writing the bitmap failed (%d): writes to regions not marked in it, and all writes once a leg fails, fail from now on\n",
			       ms->st->name, err);
		bm->failed = true;
	} else {
		for_each_set_bit(p, bm->round, bm->nr_pages)
			dst_bitmap_commit(bm, p);
		bm->fails_written = fails;
	}
	spin_unlock_irq(&ms->lock);

	while ((bio = bio_list_pop(&acks)))
		dst_mirror_end(ms, bio, err ? BLK_STS_IOERR : bio->bi_status);
	while ((bio = bio_list_pop(&waiting)))
		dst_mirror_write(ms, bio);
	return err;
}

/*
 * Clear the bits of regions that had no write since the last sweep and
 * are dirty on no leg.  Writes in flight then are all of the current
 * generation, which set their bits in @touched, when the previous one
 * has drained; until then the sweep waits for the next period.
 */
static void dst_bitmap_sweep(struct dst_bitmap *bm)
{
	struct dst_mirror *ms = bm->ms;
	struct dst_leg *leg;
	unsigned long legs;
	unsigned int i, p;
	u64 r, end;

	spin_lock_irq(&ms->lock);
	if (bm->writes[bm->gen ^ 1] || bitmap_empty(bm->image, bm->nr_regions)) {
		spin_unlock_irq(&ms->lock);
		return;
	}
	legs = dst_mirror_live_legs(ms);
	dst_mirror_hold_legs(ms, legs);
	spin_unlock_irq(&ms->lock);
	/*
	 * The writes of the regions cleared here are all done: on the legs'
	 * media first, or a crash could leave the legs different in a
	 * region the bitmap no longer names.  A leg whose flush fails goes
	 * out of sync, and what it may have lost is marked next time.
	 */
	if (dst_mirror_flush(ms, legs))
		return;

	spin_lock_irq(&ms->lock);
	/*
	 * A leg that went out of sync, or whose export started again, may
	 * have lost any write its host had not flushed then: the regions set
	 * now, which are about to be forgotten, stay dirty on it.
	 */
	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		dst_leg_check_restart(ms, leg);
		if (leg->lost && leg->sync == DST_SYNC_OUT_OF_SYNC)
			dst_bitmap_mark_leg(bm, leg);
		leg->lost = false;
	}
	for (p = 0; p < bm->nr_pages; p++) {
		r = (u64)p * DST_BITMAP_PAGE_BITS;
		end = r + dst_page_bits(bm, p);
		for_each_set_bit_from(r, bm->image, end) {
			if (test_bit(r, bm->touched) || dst_leg_dirty_in(ms, r))
				continue;
			__clear_bit(r, bm->image);
			__set_bit(p, bm->dirty);
		}
		if (p + 1 < bm->nr_pages) {
			spin_unlock_irq(&ms->lock);
			cond_resched();
			spin_lock_irq(&ms->lock);
		}
	}
	bitmap_zero(bm->touched, bm->nr_regions);
	bm->gen ^= 1;
	spin_unlock_irq(&ms->lock);
}

static bool dst_bitmap_urgent(struct dst_bitmap *bm)
{
	bool urgent;

	spin_lock_irq(&bm->ms->lock);
	urgent = !bio_list_empty(&bm->waiting) || !bio_list_empty(&bm->acks) ||
		 (bm->fails != bm->fails_written && !bm->failed);
	spin_unlock_irq(&bm->ms->lock);
	return urgent;
}

static bool dst_bitmap_changed(struct dst_bitmap *bm)
{
	bool changed;

	spin_lock_irq(&bm->ms->lock);
	changed = !bitmap_empty(bm->dirty, bm->nr_pages) || bm->stale;
	spin_unlock_irq(&bm->ms->lock);
	return changed;
}

static int dst_bitmap_thread(void *data)
{
	struct dst_bitmap *bm = data;
	unsigned int noio = memalloc_noio_save();
	unsigned long next = jiffies + DST_BITMAP_SWEEP;

	while (!kthread_should_stop()) {
		wait_event_interruptible_timeout(bm->wait,
						 dst_bitmap_urgent(bm) ||
						 kthread_should_stop(),
						 max_t(long, next - jiffies, 1));
		mutex_lock(&bm->io_lock);
		if (time_after_eq(jiffies, next)) {
			dst_bitmap_sweep(bm);
			next = jiffies + DST_BITMAP_SWEEP;
			if (dst_bitmap_changed(bm))
				dst_bitmap_round(bm, 0);
		}
		if (dst_bitmap_urgent(bm))
			dst_bitmap_round(bm, 0);
		mutex_unlock(&bm->io_lock);
	}
	memalloc_noio_restore(noio);
	return 0;
}

/* Allocate the bit images of @bm for @regions, zeroed. */
static int dst_bitmap_alloc_bits(struct dst_bitmap *bm, u64 regions)
{
	size_t longs = BITS_TO_LONGS(regions);

	bm->nr_regions = regions;
	bm->nr_pages = DIV_ROUND_UP_ULL(regions, DST_BITMAP_PAGE_BITS);
	bm->image = kvcalloc(longs, sizeof(long), DST_GFP_CMD);
	bm->ondisk = kvcalloc(longs, sizeof(long), DST_GFP_CMD);
	bm->touched = kvcalloc(longs, sizeof(long), DST_GFP_CMD);
	bm->shadow = kvcalloc(bm->nr_pages, PAGE_SIZE, DST_GFP_CMD);
	bm->dirty = bitmap_zalloc(bm->nr_pages, DST_GFP_CMD);
	bm->round = bitmap_zalloc(bm->nr_pages, DST_GFP_CMD);
	if (!bm->image || !bm->ondisk || !bm->touched || !bm->shadow ||
	    !bm->dirty || !bm->round)
		return -ENOMEM;
	return 0;
}

static void dst_bitmap_free_bits(struct dst_bitmap *bm)
{
	kvfree(bm->image);
	kvfree(bm->ondisk);
	kvfree(bm->shadow);
	kvfree(bm->touched);
	bitmap_free(bm->dirty);
	bitmap_free(bm->round);
}

static void dst_bitmap_free(struct dst_bitmap *bm)
{
	if (bm->file)
		filp_close(bm->file, NULL);
	dst_bitmap_free_bits(bm);
	kfree(bm->hdr);
	kfree(bm);
}

/* Whether a bitmap device holds the header and the bits of @regions. */
static bool dst_bitmap_fits(struct dst_bitmap *bm, u64 regions)
{
	struct inode *inode = file_inode(bm->file);

	return !S_ISBLK(inode->i_mode) ||
	       i_size_read(bm->file->f_mapping->host) >=
	       DST_BITMAP_HDR_SIZE + DIV_ROUND_UP_ULL(regions, 64) * 8;
}

/*
 * The mirror grows to @regions: take the bits of the new regions, clear,
 * and hold the file until dst_bitmap_grow_end() has written the header
 * with the new size.  The caller parked the resync thread (which may wait
 * for writes that wait for a round) and sets the new regions' bits.
 */
int dst_bitmap_grow(struct dst_bitmap *bm, u64 regions, const char **why)
{
	struct dst_mirror *ms = bm->ms;
	struct dst_bitmap *spare;
	int err;

	if (!dst_bitmap_fits(bm, regions)) {
		*why = "the bitmap device is too small for the new size";
		return -ENOSPC;
	}
	/* It takes the new images, and then the old ones for freeing. */
	spare = kzalloc(sizeof(*spare), DST_GFP_CMD);
	if (!spare)
		return -ENOMEM;
	err = dst_bitmap_alloc_bits(spare, regions);
	if (err)
		goto out;

	mutex_lock(&bm->io_lock);
	spin_lock_irq(&ms->lock);
	bitmap_copy(spare->image, bm->image, bm->nr_regions);
	bitmap_copy(spare->ondisk, bm->ondisk, bm->nr_regions);
	bitmap_copy(spare->touched, bm->touched, bm->nr_regions);
	memcpy(spare->shadow, bm->shadow, (size_t)bm->nr_pages * PAGE_SIZE);
	/* The whole file is written again, the last old page with more bits. */
	bitmap_fill(spare->dirty, spare->nr_pages);
	swap(bm->image, spare->image);
	swap(bm->ondisk, spare->ondisk);
	swap(bm->touched, spare->touched);
	swap(bm->shadow, spare->shadow);
	swap(bm->dirty, spare->dirty);
	swap(bm->round, spare->round);
	swap(bm->nr_regions, spare->nr_regions);
	swap(bm->nr_pages, spare->nr_pages);
	bm->stale = true;
	spin_unlock_irq(&ms->lock);
out:
	dst_bitmap_free_bits(spare);
	kfree(spare);
	return err;
}

/* Write the grown bitmap and its header with the mirror's new size. */
int dst_bitmap_grow_end(struct dst_bitmap *bm, const char **why)
{
	unsigned int noio = memalloc_noio_save();
	int err;

	err = dst_bitmap_round(bm, 0);
	mutex_unlock(&bm->io_lock);
	memalloc_noio_restore(noio);
	if (err)
		*why = "cannot write the grown bitmap";
	return err;
}

static int dst_bitmap_read(struct dst_bitmap *bm, void *buf, size_t len,
			   loff_t pos)
{
	ssize_t n = kernel_read(bm->file, buf, len, &pos);

	if (n < 0)
		return n;
	/* A new file is short: what is missing reads as zeros. */
	memset(buf + n, 0, len - n);
	return 0;
}

/* Whether the header read is a bitmap of this mirror; *why if not. */
static bool dst_bitmap_valid(struct dst_bitmap *bm, const char **why)
{
	struct dst_bitmap_header *h = bm->hdr;
	struct dst_storage *st = bm->ms->st;
	u32 crc;

	crc = crc32_le(~0, (void *)h, offsetof(struct dst_bitmap_header, crc)) ^ ~0;
	if (memcmp(h->magic, DST_BITMAP_MAGIC, sizeof(h->magic)))
		*why = "the bitmap file holds something else: wipe it for a new bitmap";
	else if (le32_to_cpu(h->version) != DST_BITMAP_VERSION)
		*why = "the bitmap file has an unknown version";
	else if (le32_to_cpu(h->crc) != crc)
		*why = "the bitmap file's header is corrupt";
	else if (strncmp(h->name, st->name, sizeof(h->name)))
		*why = "the bitmap file belongs to another storage";
	else if (le32_to_cpu(h->chunk_size) != st->chunk_size)
		*why = "the bitmap file was made for another chunk size";
	else if (le64_to_cpu(h->size) > st->size)
		*why = "the bitmap file was made for a larger mirror: a leg is smaller";
	else if (!le64_to_cpu(h->size) ||
		 !IS_ALIGNED(le64_to_cpu(h->size), st->limits.logical_block_size))
		*why = "the bitmap file's header is corrupt";
	else if (le32_to_cpu(h->nr_legs) > DST_BITMAP_MAX_LEGS)
		*why = "the bitmap file's header is corrupt";
	else
		return true;
	return false;
}

/*
 * The state the header gives @node, known by its path or address and a
 * size no smaller than it had (a leg may have grown since); -1 if none.
 */
static int dst_bitmap_leg_state(struct dst_bitmap *bm, struct dst_node *node)
{
	struct dst_bitmap_header *h = bm->hdr;
	char ident[DST_BITMAP_IDENT_LEN];
	unsigned int i;

	dst_leg_ident(node, ident, sizeof(ident));
	for (i = 0; i < le32_to_cpu(h->nr_legs); i++)
		if (le64_to_cpu(h->legs[i].size) <= node->size &&
		    !memcmp(h->legs[i].ident, ident, sizeof(ident)))
			return le32_to_cpu(h->legs[i].state);
	return -1;
}

/*
 * Plan the legs' states from the bitmap read: @plan[k] for the k-th node.
 * After a clean stop, the legs it had in sync are in sync, and the others
 * resync its set regions; after an unclean one, the first leg it had in
 * sync is the source and every other leg resyncs its set regions.  A leg
 * it does not know, or knew as being copied in full, is copied in full.
 */
static int dst_bitmap_plan(struct dst_bitmap *bm, struct dst_leg_plan *plan,
			   enum dst_start *started, const char **why)
{
	struct dst_storage *st = bm->ms->st;
	bool clean = le32_to_cpu(bm->hdr->state) == DST_BITMAP_CLEAN;
	struct dst_node *node, *src = NULL;
	bool source = false;
	unsigned int k = 0;
	int state;

	/* After a crash, a write-behind leg may lack acknowledged writes. */
	list_for_each_entry(node, &st->nodes, list)
		if (!src && !node->write_behind &&
		    dst_bitmap_leg_state(bm, node) == DST_BITMAP_LEG_IN_SYNC)
			src = node;
	list_for_each_entry(node, &st->nodes, list) {
		state = dst_bitmap_leg_state(bm, node);
		plan[k].full = state != DST_BITMAP_LEG_IN_SYNC &&
			       state != DST_BITMAP_LEG_DIRTY;
		if (state == DST_BITMAP_LEG_IN_SYNC &&
		    (clean || (src ? node == src : !source))) {
			plan[k].sync = DST_SYNC_IN_SYNC;
			source = true;
		} else {
			plan[k].sync = DST_SYNC_RESYNCING;
		}
		k++;
	}
	if (!source) {
		*why = "no leg known to the bitmap as in sync: wipe it, or --assume-clean";
		return -EINVAL;
	}
	*started = clean ? DST_START_CLEAN : DST_START_UNCLEAN;
	return 0;
}

/*
 * Open @path: a block device exclusively (O_EXCL), so that it cannot be a
 * leg, mounted, or another storage's bitmap at the same time; a regular
 * file as it is, or new.
 */
static struct file *dst_bitmap_filp(const char *path, const char **why)
{
	struct file *file;

	file = filp_open(path, O_RDWR | O_LARGEFILE, 0);
	if (PTR_ERR_OR_ZERO(file) == -ENOENT)
		file = filp_open(path, O_RDWR | O_LARGEFILE | O_CREAT | O_EXCL,
				 0600);
	if (!IS_ERR(file) && S_ISBLK(file_inode(file)->i_mode)) {
		filp_close(file, NULL);
		file = filp_open(path, O_RDWR | O_LARGEFILE | O_EXCL, 0);
		if (PTR_ERR_OR_ZERO(file) == -EBUSY) {
			*why = "the bitmap device is in use (a leg, mounted, or another bitmap)";
			return file;
		}
	}
	if (IS_ERR(file))
		*why = "cannot open or create the bitmap file";
	return file;
}

/*
 * A valid header for a smaller mirror: the legs grew while it was
 * stopped, or before a crash that came ahead of its resize.  It starts
 * at the size the bitmap is for, as md's array keeps its size when its
 * members grow; "dstadm resize" takes the rest.
 */
static void dst_bitmap_take_size(struct dst_bitmap *bm)
{
	struct dst_mirror *ms = bm->ms;
	u64 size = le64_to_cpu(bm->hdr->size);

	if (size >= ms->st->size)
		return;
	pr_info("%s: starts at the %llu bytes of its bitmap; its legs have %llu\n",
		ms->st->name, size, ms->st->size);
	ms->st->size = size;
	ms->sectors = size >> SECTOR_SHIFT;
	ms->nr_regions = DIV_ROUND_UP_ULL(ms->sectors, 1ULL << ms->region_shift);
}

/*
 * Open the bitmap of @ms at its storage's path and read it.  A new or
 * empty one leaves @plan as it is; a valid one replaces it, sets
 * *@started, and may make the mirror smaller (dst_bitmap_take_size()).
 * Sets ms->bm.
 */
int dst_bitmap_open(struct dst_mirror *ms, struct dst_leg_plan *plan,
		    bool assume_clean, enum dst_start *started,
		    const char **why)
{
	struct dst_storage *st = ms->st;
	struct dst_bitmap *bm;
	struct inode *inode;
	bool valid = false;
	size_t words, i;
	u64 *w;
	int err;

	BUILD_BUG_ON(sizeof(struct dst_bitmap_header) > DST_BITMAP_HDR_SIZE);
	BUILD_BUG_ON(DST_BITMAP_MAX_LEGS != DST_MIRROR_MAX_LEGS);

	bm = kzalloc(sizeof(*bm), GFP_KERNEL);
	if (!bm)
		return -ENOMEM;
	bm->ms = ms;
	bio_list_init(&bm->waiting);
	bio_list_init(&bm->acks);
	init_waitqueue_head(&bm->wait);
	mutex_init(&bm->io_lock);
	bm->hdr = kzalloc(DST_BITMAP_HDR_SIZE, GFP_KERNEL);
	if (!bm->hdr) {
		err = -ENOMEM;
		goto err;
	}

	bm->file = dst_bitmap_filp(st->bitmap, why);
	if (IS_ERR(bm->file)) {
		err = PTR_ERR(bm->file);
		bm->file = NULL;
		goto err;
	}
	inode = file_inode(bm->file);
	if (!S_ISBLK(inode->i_mode) && !S_ISREG(inode->i_mode)) {
		*why = "the bitmap is neither a regular file nor a block device";
		err = -EINVAL;
		goto err;
	}
	err = dst_bitmap_read(bm, bm->hdr, DST_BITMAP_HDR_SIZE, 0);
	if (err) {
		*why = "cannot read the bitmap file";
		goto err;
	}
	if (!assume_clean && memchr_inv(bm->hdr, 0, DST_BITMAP_HDR_SIZE)) {
		if (!dst_bitmap_valid(bm, why)) {
			err = -EINVAL;
			goto err;
		}
		dst_bitmap_take_size(bm);
		valid = true;
	}

	err = dst_bitmap_alloc_bits(bm, ms->nr_regions);
	if (err)
		goto err;
	if (!dst_bitmap_fits(bm, ms->nr_regions)) {
		*why = "the bitmap device is too small for this mirror";
		err = -ENOSPC;
		goto err;
	}
	words = DIV_ROUND_UP_ULL(ms->nr_regions, 64);
	err = dst_bitmap_read(bm, bm->shadow, words * 8, DST_BITMAP_HDR_SIZE);
	if (err) {
		*why = "cannot read the bitmap file";
		goto err;
	}
	if (valid) {
		err = dst_bitmap_plan(bm, plan, started, why);
		if (err)
			goto err;
		w = (u64 *)bm->shadow;
		for (i = 0; i < words; i++)
			w[i] = le64_to_cpu(bm->shadow[i]);
		bitmap_from_arr64(bm->image, w, ms->nr_regions);
	}
	ms->bm = bm;
	return 0;

err:
	dst_bitmap_free(bm);
	return err;
}

/*
 * The legs have their states: write the whole bitmap, marked running,
 * before the disk takes I/O, and start the bitmap thread.
 */
int dst_bitmap_start(struct dst_mirror *ms, const char **why)
{
	struct dst_bitmap *bm = ms->bm;
	int err;

	spin_lock_irq(&ms->lock);
	bitmap_fill(bm->dirty, bm->nr_pages);
	spin_unlock_irq(&ms->lock);
	err = dst_bitmap_round(bm, DST_BITMAP_RUNNING);
	if (err) {
		*why = "cannot write the bitmap file";
		return err;
	}
	bm->task = kthread_run(dst_bitmap_thread, bm, "dst%u_bitmap",
			       ms->st->id);
	if (IS_ERR(bm->task)) {
		err = PTR_ERR(bm->task);
		bm->task = NULL;
	}
	return err;
}

/*
 * Close the bitmap of a mirror with no I/O left: clear what no leg has
 * dirty, mark it clean, and let go of the file.  Without @started (start
 * failed), only let go.
 */
void dst_bitmap_close(struct dst_mirror *ms, bool started)
{
	struct dst_bitmap *bm = ms->bm;
	unsigned long legs;
	u64 r;

	if (!bm)
		return;
	if (bm->task)
		kthread_stop(bm->task);
	if (started) {
		spin_lock_irq(&ms->lock);
		legs = dst_mirror_live_legs(ms);
		dst_mirror_hold_legs(ms, legs);
		spin_unlock_irq(&ms->lock);
		/* Clean means the legs hold the same, on their media. */
		if (dst_mirror_flush(ms, legs)) {
			pr_warn("%s: flushing the legs failed: the bitmap is not marked clean, the next start resyncs as after a crash\n",
				ms->st->name);
			goto out;
		}
		spin_lock_irq(&ms->lock);
		for_each_set_bit(r, bm->image, ms->nr_regions)
			if (!dst_leg_dirty_in(ms, r))
				__clear_bit(r, bm->image);
		bitmap_fill(bm->dirty, bm->nr_pages);
		spin_unlock_irq(&ms->lock);
		if (dst_bitmap_round(bm, DST_BITMAP_CLEAN))
			pr_warn("%s: the bitmap could not be marked clean: the next start resyncs as after a crash\n",
				ms->st->name);
	}
out:
	ms->bm = NULL;
	dst_bitmap_free(bm);
}
