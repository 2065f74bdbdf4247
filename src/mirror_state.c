// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the legs of a running mirror: their sync
 * state and dirty-region bitmaps, and how sysfs and netlink show them.
 *
 * A region is storage.chunk_size bytes.  A leg in sync holds every
 * acknowledged write.  A leg out of sync gets no I/O; every write marks
 * its regions dirty on it.  A resyncing leg gets writes, serves reads
 * from its clean regions, and its dirty regions are copied to it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/netlink.h>

#include "mirror.h"

static const char *const dst_sync_names[] = {
	[DST_SYNC_IN_SYNC] = "in-sync",
	[DST_SYNC_OUT_OF_SYNC] = "out-of-sync",
	[DST_SYNC_RESYNCING] = "resyncing",
};

/*
 * A leg for @node as @plan says: a leg copied in full starts with every
 * region dirty, another resyncing one with the regions of the bitmap.
 */
struct dst_leg *dst_leg_alloc(struct dst_mirror *ms, struct dst_node *node,
			      const struct dst_leg_plan *plan)
{
	struct dst_leg *leg;

	leg = kzalloc(sizeof(*leg), GFP_KERNEL);
	if (!leg)
		return NULL;
	leg->dirty = kvcalloc(BITS_TO_LONGS(ms->nr_regions),
			      sizeof(unsigned long), DST_GFP_CMD);
	if (!leg->dirty) {
		kfree(leg);
		return NULL;
	}
	leg->node = node;
	leg->sync = plan->sync;
	leg->reported = plan->sync;
	leg->full = plan->sync != DST_SYNC_IN_SYNC && plan->full;
	leg->sums = leg->full || (plan->sync != DST_SYNC_IN_SYNC &&
				  ms->started == DST_START_UNCLEAN);
	spin_lock_irq(&ms->lock);
	if (leg->full)
		dst_leg_mark(ms, leg, 0, ms->sectors);
	else if (plan->sync != DST_SYNC_IN_SYNC)
		dst_bitmap_mark_leg(ms->bm, leg);
	spin_unlock_irq(&ms->lock);
	atomic_set(&leg->inflight, 0);
	atomic_set(&leg->behind, 0);
	leg->nonrot = !node->bdev || bdev_nonrot(node->bdev);
	if (node->remote)
		leg->restarts = dst_remote_restarts(node->remote);
	return leg;
}

/* Put @leg in a free slot, where I/O finds it. */
void dst_leg_publish(struct dst_mirror *ms, struct dst_leg *leg)
{
	unsigned int i;

	spin_lock_irq(&ms->lock);
	for (i = 0; i < DST_MIRROR_MAX_LEGS; i++) {
		if (!ms->legs[i]) {
			leg->idx = i;
			ms->legs[i] = leg;
			__set_bit(i, &ms->present);
			break;
		}
	}
	spin_unlock_irq(&ms->lock);
	leg->node->priv = leg;
	if (leg->node->remote)
		dst_remote_notify(leg->node->remote, &ms->resync_wait);
}

void dst_leg_free(struct dst_leg *leg)
{
	if (leg->node->remote)
		dst_remote_notify(leg->node->remote, NULL);
	leg->node->priv = NULL;
	kvfree(leg->dirty);
	kfree(leg);
}

static u64 dst_region(struct dst_mirror *ms, sector_t sector)
{
	return sector >> ms->region_shift;
}

/*
 * Mark the regions of @sectors at @sector dirty on @leg, and in the
 * bitmap, which holds every region dirty on a leg; lock held.
 */
void dst_leg_mark(struct dst_mirror *ms, struct dst_leg *leg,
		  sector_t sector, sector_t sectors)
{
	u64 r, first, last;

	lockdep_assert_held(&ms->lock);

	if (!sectors)
		return;
	first = dst_region(ms, sector);
	last = dst_region(ms, sector + sectors - 1);
	for (r = first; r <= last; r++)
		if (!__test_and_set_bit(r, leg->dirty))
			leg->nr_dirty++;
	if (ms->bm)
		dst_bitmap_set(ms->bm, first, last);
}

/* Whether no region of @sectors at @sector is dirty on @leg; lock held. */
bool dst_leg_clean(struct dst_mirror *ms, struct dst_leg *leg,
		   sector_t sector, unsigned int sectors)
{
	u64 first = dst_region(ms, sector), last;

	lockdep_assert_held(&ms->lock);

	if (!leg->nr_dirty)
		return true;
	last = sectors ? dst_region(ms, sector + sectors - 1) : first;
	return find_next_bit(leg->dirty, last + 1, first) > last;
}

unsigned int dst_mirror_nr_in_sync(struct dst_mirror *ms)
{
	struct dst_leg *leg;
	unsigned int i, n = 0;

	lockdep_assert_held(&ms->lock);

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS) {
		leg = ms->legs[i];
		n += leg->sync == DST_SYNC_IN_SYNC;
	}
	return n;
}

/*
 * @leg failed @what on @sectors at @sector: it goes out of sync with those
 * regions dirty, unless it is the last leg in sync, which is kept as it
 * is, as md keeps the last working disk of a raid1.  Lock held.
 */
void dst_leg_fail(struct dst_mirror *ms, struct dst_leg *leg,
		  const char *what, sector_t sector, unsigned int sectors)
{
	lockdep_assert_held(&ms->lock);

	if (leg->sync == DST_SYNC_IN_SYNC && dst_mirror_nr_in_sync(ms) == 1) {
		pr_warn_ratelimited("%s: node%u failed a %s; kept, it is the last leg in sync\n",
				    ms->st->name, leg->node->id, what);
		return;
	}
	dst_leg_mark(ms, leg, sector, sectors);
	if (leg->sync == DST_SYNC_OUT_OF_SYNC)
		return;
	leg->sync = DST_SYNC_OUT_OF_SYNC;
	leg->lost = true;
	if (ms->bm)
		dst_bitmap_leg_failed(ms->bm);
	/* The resync thread tells the events; it may take it back, too. */
	wake_up(&ms->resync_wait);
	if (leg->node->remote)
		leg->fail_gen = dst_remote_reconnects(leg->node->remote);
	pr_warn("%s: node%u out of sync after a failed %s\n", ms->st->name,
		leg->node->id, what);
}

/*
 * A write failed on @kept, the last leg in sync, and may have reached the
 * others: its regions are marked dirty on them, so that no read is served
 * from their copy and resync copies the kept leg's version back (md keeps
 * the bitmap bit of a write that missed a disk likewise).  Lock held.
 */
void dst_leg_mark_others(struct dst_mirror *ms, struct dst_leg *kept,
			 sector_t sector, unsigned int sectors)
{
	unsigned int i;

	lockdep_assert_held(&ms->lock);

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS)
		if (ms->legs[i] != kept)
			dst_leg_mark(ms, ms->legs[i], sector, sectors);
}

/*
 * Whether @leg's export started again since the leg last looked: then its
 * host may have lost what it had not flushed, which is in the regions the
 * bitmap has set (in any region without a bitmap).  Those are marked
 * dirty on the leg and copied again, compared by block sums first; the
 * last leg in sync is kept as it is, there is no other copy.  Called
 * before a sweep clears regions and by the resync thread.  Lock held.
 */
bool dst_leg_check_restart(struct dst_mirror *ms, struct dst_leg *leg)
{
	unsigned int restarts;

	lockdep_assert_held(&ms->lock);

	if (!leg->node->remote)
		return false;
	restarts = dst_remote_restarts(leg->node->remote);
	if (restarts == leg->restarts)
		return false;
	leg->restarts = restarts;
	if (leg->sync == DST_SYNC_IN_SYNC && dst_mirror_nr_in_sync(ms) == 1) {
		pr_warn("%s: node%u: its export started again; kept, it is the last leg in sync\n",
			ms->st->name, leg->node->id);
		return false;
	}
	if (ms->bm) {
		dst_bitmap_mark_leg(ms->bm, leg);
	} else {
		dst_leg_mark(ms, leg, 0, ms->sectors);
		leg->full = true;
	}
	leg->sums = true;
	pr_warn("%s: node%u: its export started again, checking %llu region(s) it may have lost\n",
		ms->st->name, leg->node->id, leg->nr_dirty);
	if (leg->sync != DST_SYNC_IN_SYNC || !leg->nr_dirty)
		return true;
	leg->sync = DST_SYNC_RESYNCING;
	if (ms->bm)
		dst_bitmap_leg_failed(ms->bm);
	wake_up(&ms->resync_wait);
	return true;
}

/* The legs whose copy counts: in sync or resyncing.  Lock held. */
unsigned long dst_mirror_live_legs(struct dst_mirror *ms)
{
	unsigned long legs = 0;
	unsigned int i;

	lockdep_assert_held(&ms->lock);

	for_each_set_bit(i, &ms->present, DST_MIRROR_MAX_LEGS)
		if (ms->legs[i]->sync != DST_SYNC_OUT_OF_SYNC)
			__set_bit(i, &legs);
	return legs;
}

struct dst_flush_wait {
	atomic_t pending;
	struct completion done;
};

static void dst_flush_leg_endio(struct bio *bio)
{
	struct dst_flush_wait *fw = bio->bi_private;

	if (atomic_dec_and_test(&fw->pending))
		complete(&fw->done);
}

/*
 * Pin @legs (slots) for dst_mirror_flush(): a leg with I/O in flight is
 * not removed.  Lock held, under which the caller chose them.
 */
void dst_mirror_hold_legs(struct dst_mirror *ms, unsigned long legs)
{
	unsigned int i;

	lockdep_assert_held(&ms->lock);

	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		atomic_inc(&ms->legs[i]->inflight);
}

/*
 * Flush @legs (slots, pinned by dst_mirror_hold_legs()) and wait: what
 * they completed before is on their media then.  Before a bit of the
 * bitmap is cleared, the bitmap is marked clean, or a resynced leg is
 * called in sync, as md writes its bitmap with REQ_PREFLUSH.  A leg whose
 * flush fails goes out of sync: what it completed may be lost.  From a
 * thread, never from ->submit_bio.  Returns the legs whose flush failed.
 */
unsigned long dst_mirror_flush(struct dst_mirror *ms, unsigned long legs)
{
	struct bio *bios[DST_MIRROR_MAX_LEGS];
	struct dst_flush_wait fw;
	unsigned long failed = 0;
	unsigned int i;

	atomic_set(&fw.pending, 1);
	init_completion(&fw.done);
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS) {
		bios[i] = bio_alloc_bioset(NULL, 0, REQ_OP_WRITE | REQ_PREFLUSH,
					   GFP_NOIO, &ms->st->bs);
		bios[i]->bi_end_io = dst_flush_leg_endio;
		bios[i]->bi_private = &fw;
		atomic_inc(&fw.pending);
		dst_node_submit(ms->legs[i]->node, bios[i]);
	}
	if (!atomic_dec_and_test(&fw.pending))
		wait_for_completion_io(&fw.done);
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS) {
		if (bios[i]->bi_status)
			__set_bit(i, &failed);
		bio_put(bios[i]);
	}
	if (failed) {
		spin_lock_irq(&ms->lock);
		for_each_set_bit(i, &failed, DST_MIRROR_MAX_LEGS)
			dst_leg_fail(ms, ms->legs[i], "flush", 0, 0);
		spin_unlock_irq(&ms->lock);
	}
	for_each_set_bit(i, &legs, DST_MIRROR_MAX_LEGS)
		dst_leg_put_inflight(ms->legs[i]);
	return failed;
}

/* An I/O of @leg is answered; the leg may be freed once this returns. */
void dst_leg_put_inflight(struct dst_leg *leg)
{
	if (atomic_dec_and_test(&leg->inflight))
		wake_up_var(&leg->inflight);
}

/* Bytes the running verify has left; lock not held. */
static u64 dst_verify_left(struct dst_mirror *ms)
{
	u64 next = READ_ONCE(ms->verify_next);

	if (next == DST_NO_REGION)
		return 0;
	return min_t(u64, (ms->nr_regions - next) <<
			  (ms->region_shift + SECTOR_SHIFT), ms->st->size);
}

int dst_mirror_fill_storage(struct sk_buff *skb, struct dst_storage *st)
{
	struct dst_mirror *ms = st->priv;

	if (ms->bm &&
	    nla_put_u64_64bit(skb, DST_STORAGE_A_BITMAP_REGIONS,
			      dst_bitmap_weight(ms->bm), DST_STORAGE_A_PAD))
		return -EMSGSIZE;
	return nla_put_u32(skb, DST_STORAGE_A_STARTED, ms->started) ||
	       nla_put_u64_64bit(skb, DST_STORAGE_A_RESYNC_BYTES,
				 atomic64_read(&ms->resync_bytes),
				 DST_STORAGE_A_PAD) ||
	       nla_put_u64_64bit(skb, DST_STORAGE_A_RESYNC_RATE,
				 READ_ONCE(ms->rate), DST_STORAGE_A_PAD) ||
	       nla_put_u64_64bit(skb, DST_STORAGE_A_RESYNC_LEFT,
				 READ_ONCE(ms->left), DST_STORAGE_A_PAD) ||
	       nla_put_u64_64bit(skb, DST_STORAGE_A_MISMATCHES,
				 atomic64_read(&ms->mismatches),
				 DST_STORAGE_A_PAD) ||
	       nla_put_u64_64bit(skb, DST_STORAGE_A_VERIFY_LEFT,
				 dst_verify_left(ms), DST_STORAGE_A_PAD) ||
	       (READ_ONCE(ms->verify_repair) &&
		nla_put_flag(skb, DST_STORAGE_A_VERIFY_REPAIR));
}

int dst_mirror_fill_node(struct sk_buff *skb, struct dst_node *node)
{
	struct dst_mirror *ms = node->st->priv;
	struct dst_leg *leg = node->priv;
	enum dst_sync_state sync;
	u64 dirty;

	spin_lock_irq(&ms->lock);
	sync = leg->sync;
	dirty = leg->nr_dirty;
	spin_unlock_irq(&ms->lock);

	if (nla_put_u32(skb, DST_NODE_A_SYNC, sync) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_REGIONS, ms->nr_regions,
			      DST_NODE_A_PAD) ||
	    nla_put_u64_64bit(skb, DST_NODE_A_DIRTY, dirty, DST_NODE_A_PAD) ||
	    (node->write_behind &&
	     nla_put_u32(skb, DST_NODE_A_BEHIND, atomic_read(&leg->behind))))
		return -EMSGSIZE;
	return 0;
}

/*
 * sysfs: dst/{chunk_size,resync_*}, dst/nodeN/{sync,...,chunks}; a storage's
 * dst/ directory goes before its algorithm's state is freed.
 */

static ssize_t chunk_size_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", dst_kobj_storage(kobj)->chunk_size);
}

static ssize_t resync_bytes_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ms->resync_bytes));
}

static ssize_t resync_rate_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(ms->rate));
}

static ssize_t resync_held_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ms->held));
}

static ssize_t resync_left_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(ms->left));
}

/*
 * KiB/s, as md's sync_speed_min/max; the resync thread reads them, and is
 * woken in case it sleeps under the old limit.
 */
static ssize_t dst_resync_limit_store(struct kobject *kobj, u32 *limit,
				      const char *buf, size_t len)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;
	u32 v;
	int err;

	err = kstrtou32(buf, 10, &v);
	if (err)
		return err;
	if (!v)
		return -EINVAL;
	WRITE_ONCE(*limit, v);
	wake_up(&ms->resync_wait);
	return len;
}

static ssize_t resync_min_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(dst_kobj_storage(kobj)->resync_min));
}

static ssize_t resync_min_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t len)
{
	return dst_resync_limit_store(kobj,
				      &dst_kobj_storage(kobj)->resync_min,
				      buf, len);
}

static ssize_t resync_max_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(dst_kobj_storage(kobj)->resync_max));
}

static ssize_t resync_max_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t len)
{
	return dst_resync_limit_store(kobj,
				      &dst_kobj_storage(kobj)->resync_max,
				      buf, len);
}

static const char *const dst_start_names[] = {
	[DST_START_FULL] = "full",
	[DST_START_ASSUME_CLEAN] = "assume-clean",
	[DST_START_CLEAN] = "clean",
	[DST_START_UNCLEAN] = "unclean",
};

static ssize_t started_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	return sysfs_emit(buf, "%s\n", dst_start_names[ms->started]);
}

/* Regions set in the bitmap; "none" without one. */
static ssize_t bitmap_regions_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	if (!ms->bm)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%llu\n", dst_bitmap_weight(ms->bm));
}

static ssize_t mismatch_cnt_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ms->mismatches));
}

static ssize_t verify_left_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct dst_mirror *ms = dst_kobj_storage(kobj)->priv;

	return sysfs_emit(buf, "%llu\n", dst_verify_left(ms));
}

static struct kobj_attribute dst_attr_chunk_size = __ATTR_RO(chunk_size);
static struct kobj_attribute dst_attr_resync_bytes = __ATTR_RO(resync_bytes);
static struct kobj_attribute dst_attr_resync_rate = __ATTR_RO(resync_rate);
static struct kobj_attribute dst_attr_resync_left = __ATTR_RO(resync_left);
static struct kobj_attribute dst_attr_resync_held = __ATTR_RO(resync_held);
static struct kobj_attribute dst_attr_resync_min = __ATTR_RW(resync_min);
static struct kobj_attribute dst_attr_resync_max = __ATTR_RW(resync_max);
static struct kobj_attribute dst_attr_started = __ATTR_RO(started);
static struct kobj_attribute dst_attr_bitmap_regions = __ATTR_RO(bitmap_regions);
static struct kobj_attribute dst_attr_mismatch_cnt = __ATTR_RO(mismatch_cnt);
static struct kobj_attribute dst_attr_verify_left = __ATTR_RO(verify_left);

static struct attribute *dst_mirror_storage_attrs[] = {
	&dst_attr_chunk_size.attr,
	&dst_attr_resync_bytes.attr,
	&dst_attr_resync_rate.attr,
	&dst_attr_resync_left.attr,
	&dst_attr_resync_held.attr,
	&dst_attr_resync_min.attr,
	&dst_attr_resync_max.attr,
	&dst_attr_started.attr,
	&dst_attr_bitmap_regions.attr,
	&dst_attr_mismatch_cnt.attr,
	&dst_attr_verify_left.attr,
	NULL,
};

const struct attribute_group dst_mirror_storage_group = {
	.attrs = dst_mirror_storage_attrs,
};

static ssize_t sync_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct dst_leg *leg = dst_kobj_node(kobj)->priv;

	return sysfs_emit(buf, "%s\n", dst_sync_names[READ_ONCE(leg->sync)]);
}

static ssize_t regions_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct dst_mirror *ms = dst_kobj_node(kobj)->st->priv;

	return sysfs_emit(buf, "%llu\n", ms->nr_regions);
}

static ssize_t dirty_regions_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct dst_leg *leg = dst_kobj_node(kobj)->priv;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(leg->nr_dirty));
}

/*
 * The seed's view of the bitmap: one character per region, '+' in sync,
 * '-' dirty.  When there are more regions than fit in a page, a character
 * stands for several, and is '-' if any of them is dirty.  A snapshot
 * taken without the lock.
 */
static ssize_t chunks_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct dst_node *node = dst_kobj_node(kobj);
	struct dst_mirror *ms = node->st->priv;
	struct dst_leg *leg = node->priv;
	u64 per, r, end;
	ssize_t len = 0;

	mutex_lock(&ms->resize_lock);
	per = max_t(u64, 1, DIV_ROUND_UP_ULL(ms->nr_regions, PAGE_SIZE - 2));
	for (r = 0; r < ms->nr_regions; r += per) {
		end = min(r + per, ms->nr_regions);
		buf[len++] = find_next_bit(leg->dirty, end, r) < end ? '-' : '+';
	}
	mutex_unlock(&ms->resize_lock);
	buf[len++] = '\n';
	return len;
}

static struct kobj_attribute dst_attr_sync = __ATTR_RO(sync);
static struct kobj_attribute dst_attr_regions = __ATTR_RO(regions);
static struct kobj_attribute dst_attr_dirty_regions = __ATTR_RO(dirty_regions);
static struct kobj_attribute dst_attr_chunks = __ATTR_RO(chunks);

static struct attribute *dst_mirror_node_attrs[] = {
	&dst_attr_sync.attr,
	&dst_attr_regions.attr,
	&dst_attr_dirty_regions.attr,
	&dst_attr_chunks.attr,
	NULL,
};

const struct attribute_group dst_mirror_node_group = {
	.attrs = dst_mirror_node_attrs,
};
