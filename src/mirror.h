/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dst: distributed storage - the "mirror" algorithm, shared by its files:
 * alg_mirror.c (the algorithm and its I/O), mirror_state.c (legs, dirty
 * regions, what sysfs and netlink show) and mirror_resync.c (the copy of
 * dirty regions in the background).
 */
#ifndef _DST_MIRROR_H
#define _DST_MIRROR_H

#include <linux/bio.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "dst.h"

#define DST_MIRROR_MAX_LEGS	8
/* One bit per region and leg: at most 16 MiB of bitmap per leg. */
#define DST_MIRROR_MAX_REGIONS	BIT_ULL(27)
#define DST_NO_REGION		U64_MAX

/**
 * struct dst_leg - a node of a running mirror
 * @node:	the node; node->priv points back here
 * @idx:	its slot in dst_mirror.legs, its bit in the masks of an I/O
 * @sync:	enum dst_sync_state
 * @dirty:	one bit per region that is out of date on this leg
 * @nr_dirty:	bits set in @dirty
 * @inflight:	I/O sent to the leg and not answered yet
 * @behind:	writes acknowledged before this write-behind leg has them
 * @last:	sector after the last read sent to it
 * @nonrot:	no seek cost: reads are balanced by @inflight only
 * @fail_gen:	a remote node's reconnect count when the leg went out of
 *		sync: a higher one means it came back
 * @restarts:	a remote node's count of export restarts as last looked
 *		at: a higher one means its export may have lost writes
 * @lost:	out of sync since the last sweep: its host may have lost
 *		what it had not flushed, in the regions the bitmap has set
 *		now; the next sweep, or its return, marks them dirty on it
 * @reported:	the state the last event told; the resync thread tells
 *		the changes (from process context, never under the lock)
 * @full:	being copied in full: its dirty regions are every region
 * @sums:	copied in full or after a crash: its dirty regions likely
 *		hold the data already, so a remote leg's block sums are
 *		compared first and only the blocks that differ are sent
 *
 * @sync, @dirty, @nr_dirty and @last change under dst_mirror.lock.
 */
struct dst_leg {
	struct dst_node *node;
	unsigned int idx;
	enum dst_sync_state sync;
	unsigned long *dirty;
	u64 nr_dirty;
	atomic_t inflight;
	atomic_t behind;
	sector_t last;
	bool nonrot;
	unsigned int fail_gen;
	unsigned int restarts;
	bool lost;
	enum dst_sync_state reported;
	bool full;
	bool sums;
};

/* The state a leg starts in, and whether it is copied in full. */
struct dst_leg_plan {
	enum dst_sync_state sync;
	bool full;
};

struct dst_resync;
struct dst_bitmap;

/**
 * struct dst_mirror - a running mirror, storage->priv
 * @st:		the storage
 * @lock:	the legs' state and bitmaps, @legs, the resync window
 * @resize_lock: the legs' bitmaps change size under it too, for readers
 *		that walk them without @lock
 * @legs:	the legs by slot; a slot changes only with @resync parked
 *		and the leg idle
 * @present:	the slots in use
 * @region_shift: log2 of sectors per region
 * @nr_regions:	regions of the storage
 * @sectors:	size of the storage
 * @window:	the first region being copied by resync: writes to it, or
 *		up to @window_last, wait in @deferred until the copy is
 *		done; DST_NO_REGION when none
 * @window_last: the last region being copied
 * @deferred:	those writes
 * @epoch:	writes count in @writes[@epoch] while in flight; resync
 *		flips it and waits for the old count to drain, so that no
 *		write older than the window is still on its way
 * @writes:	writes in flight per epoch
 * @drain:	resync waits here for @writes to drain
 * @pending:	bios of the disk not completed yet, for stopping
 * @io_pool:	struct dst_mirror_io for each bio of the disk
 * @resync:	the resync thread
 * @resync_wait: it sleeps here when there is nothing to copy
 * @rs:		its buffers
 * @resync_cursor: the region it copies next or after
 * @resync_bytes: bytes copied since the start
 * @app_ios:	bios of the disk so far: resync sees whether others use it
 * @held:	writes that waited for the window since the start
 * @rate:	resync bytes per second over the last second or so
 * @left:	bytes resync still has to copy, about
 * @bm:		the write-intent bitmap, if the storage has one
 * @started:	enum dst_start: what the start trusted
 * @behind_ios: writes with copies in flight to write-behind legs, an
 *		interval tree of their sectors
 * @behind_waiting: writes that overlap one of them, to be sent after it
 * @behind_work: sends them, from process context
 * @verify_next: the region verify compares next; DST_NO_REGION: none runs
 * @verify_repair: the running or last verify copies what differs
 * @mismatches:	blocks that differed in the running or last verify
 */
struct dst_mirror {
	struct dst_storage *st;
	spinlock_t lock;	/* see above */
	struct mutex resize_lock;	/* see above */
	struct dst_leg *legs[DST_MIRROR_MAX_LEGS];
	unsigned long present;
	unsigned int region_shift;
	u64 nr_regions;
	sector_t sectors;
	u64 window;
	u64 window_last;
	struct bio_list deferred;
	unsigned int epoch;
	unsigned int writes[2];
	wait_queue_head_t drain;
	atomic_t pending;
	mempool_t io_pool;
	struct task_struct *resync;
	wait_queue_head_t resync_wait;
	struct dst_resync *rs;
	u64 resync_cursor;
	atomic64_t resync_bytes;
	atomic_t app_ios;
	atomic64_t held;
	u64 rate;
	u64 left;
	struct dst_bitmap *bm;
	enum dst_start started;
	struct rb_root_cached behind_ios;
	struct bio_list behind_waiting;
	struct work_struct behind_work;
	u64 verify_next;
	bool verify_repair;
	atomic64_t mismatches;
};

/* Legs and their dirty regions: mirror_state.c */
struct dst_leg *dst_leg_alloc(struct dst_mirror *ms, struct dst_node *node,
			      const struct dst_leg_plan *plan);
void dst_leg_publish(struct dst_mirror *ms, struct dst_leg *leg);
void dst_leg_free(struct dst_leg *leg);
void dst_leg_mark(struct dst_mirror *ms, struct dst_leg *leg,
		  sector_t sector, sector_t sectors);
bool dst_leg_clean(struct dst_mirror *ms, struct dst_leg *leg,
		   sector_t sector, unsigned int sectors);
void dst_leg_fail(struct dst_mirror *ms, struct dst_leg *leg,
		  const char *what, sector_t sector, unsigned int sectors);
void dst_leg_mark_others(struct dst_mirror *ms, struct dst_leg *kept,
			 sector_t sector, unsigned int sectors);
void dst_leg_put_inflight(struct dst_leg *leg);
bool dst_leg_check_restart(struct dst_mirror *ms, struct dst_leg *leg);
unsigned long dst_mirror_live_legs(struct dst_mirror *ms);
void dst_mirror_hold_legs(struct dst_mirror *ms, unsigned long legs);
unsigned long dst_mirror_flush(struct dst_mirror *ms, unsigned long legs);
unsigned int dst_mirror_nr_in_sync(struct dst_mirror *ms);
int dst_mirror_fill_storage(struct sk_buff *skb, struct dst_storage *st);
int dst_mirror_fill_node(struct sk_buff *skb, struct dst_node *node);
extern const struct attribute_group dst_mirror_storage_group;
extern const struct attribute_group dst_mirror_node_group;

/* The background copy and compare: mirror_resync.c */
int dst_resync_start(struct dst_mirror *ms);
void dst_resync_stop(struct dst_mirror *ms);
int dst_mirror_verify(struct dst_storage *st, bool repair, const char **why);

/* The write-intent bitmap: mirror_bitmap.c */
int dst_bitmap_open(struct dst_mirror *ms, struct dst_leg_plan *plan,
		    bool assume_clean, enum dst_start *started,
		    const char **why);
int dst_bitmap_start(struct dst_mirror *ms, const char **why);
void dst_bitmap_close(struct dst_mirror *ms, bool started);
int dst_bitmap_grow(struct dst_bitmap *bm, u64 regions, const char **why);
int dst_bitmap_grow_end(struct dst_bitmap *bm, const char **why);
void dst_bitmap_set(struct dst_bitmap *bm, u64 first, u64 last);
void dst_bitmap_mark_leg(struct dst_bitmap *bm, struct dst_leg *leg);
bool dst_bitmap_ready(struct dst_bitmap *bm, u64 first, u64 last);
bool dst_bitmap_wait(struct dst_bitmap *bm, struct bio *bio);
unsigned int dst_bitmap_start_write(struct dst_bitmap *bm, u64 first,
				    u64 last);
bool dst_bitmap_end_write(struct dst_bitmap *bm, unsigned int gen,
			  struct bio *bio);
bool dst_bitmap_hold_ack(struct dst_bitmap *bm, struct bio *bio);
bool dst_bitmap_acks_wait(struct dst_bitmap *bm);
void dst_bitmap_leg_failed(struct dst_bitmap *bm);
void dst_bitmap_legs_changed(struct dst_bitmap *bm);
u64 dst_bitmap_weight(struct dst_bitmap *bm);

/*
 * Writes held by the resync window or the bitmap go out again through
 * dst_mirror_write(); a bio of the disk ends through dst_mirror_end().
 */
void dst_mirror_write(struct dst_mirror *ms, struct bio *bio);
void dst_mirror_end(struct dst_mirror *ms, struct bio *bio,
		    blk_status_t status);

#endif /* _DST_MIRROR_H */
