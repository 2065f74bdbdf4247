// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - storages that grow while they run.
 *
 * A node's device may grow: a local one by lvextend or "losetup -c", a
 * remote one when its export says so (DST_NOTE_SIZE, or the hello of a
 * reconnect).  A storage takes the new space when asked ("dstadm
 * resize"), and by itself once a remote node grew.  Its algorithm says
 * how much: linear, what the last node grew by (the others' growth would
 * move the data after them); mirror, up to its smallest leg, the new area
 * resynced.  The disk then grows in place, and the exports of this host
 * that serve it tell their clients in turn, so a tree of storages grows
 * from its leaves.  A node never shrinks under a storage: what it holds
 * is in use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/workqueue.h>

#include "dst.h"

/* The bytes @node's device has now; the node may use fewer. */
u64 dst_node_capacity(struct dst_node *node)
{
	if (node->remote)
		return dst_remote_size(node->remote);
	return round_down(bdev_nr_bytes(node->bdev),
			  node->limits.logical_block_size);
}

/*
 * Take what @st's nodes grew by, as its algorithm can; @assume_clean: a
 * mirror's new area needs no resync.  The caller claimed @st.
 */
int dst_storage_resize(struct dst_storage *st, bool assume_clean,
		       const char **why)
{
	u64 old = st->size;
	struct dst_node *node;
	int err;

	list_for_each_entry(node, &st->nodes, list) {
		if (dst_node_capacity(node) < node->size) {
			*why = "a node is smaller than the storage uses";
			return -ENOSPC;
		}
	}
	if (!st->nr_nodes)
		return 0;
	err = st->alg->resize(st, assume_clean, why);
	if (err || st->size == old)
		return err;
	pr_info("%s: grew from %llu to %llu bytes\n", st->name, old, st->size);
	if (st->state != DST_STORAGE_RUNNING)
		return 0;
	set_capacity_and_notify(st->disk, st->size >> SECTOR_SHIFT);
	dst_event(st, U32_MAX, DST_EVENT_RESIZE, st->size, GFP_KERNEL);
	dst_export_disk_resized(st->disk);
	return 0;
}

/* Whether a node of @st holds more than @st uses of it. */
static bool dst_storage_grown(struct dst_storage *st)
{
	struct dst_node *node;

	list_for_each_entry(node, &st->nodes, list)
		if (dst_node_capacity(node) > node->size)
			return true;
	return false;
}

/*
 * Let every running storage take what its remote nodes grew by; one that
 * another command holds is tried again a second later.
 */
static void dst_grow_fn(struct work_struct *work)
{
	struct dst_storage *st;
	bool again = false;
	const char *why;
	u32 id = 0;
	int err;

	for (;; id++) {
		dst_storage_lock();
		st = dst_storage_next(&id);
		if (st && (st->state != DST_STORAGE_RUNNING ||
			   !dst_storage_grown(st))) {
			dst_storage_unlock();
			continue;
		}
		if (st && st->busy) {
			again = true;
			dst_storage_unlock();
			continue;
		}
		if (st)
			st->busy = true;
		dst_storage_unlock();
		if (!st)
			break;
		why = NULL;
		err = dst_storage_resize(st, false, &why);
		if (err)
			pr_warn("%s: cannot grow: %s (%d)\n", st->name,
				why ?: "error", err);
		dst_storage_lock();
		st->busy = false;
		dst_storage_unlock();
	}
	if (again)
		schedule_delayed_work(to_delayed_work(work), HZ);
}

static DECLARE_DELAYED_WORK(dst_grow_work, dst_grow_fn);

/* A remote node grew: its storage takes it soon, from process context. */
void dst_storage_grow_later(void)
{
	mod_delayed_work(system_wq, &dst_grow_work, 0);
}

void dst_resize_exit(void)
{
	cancel_delayed_work_sync(&dst_grow_work);
}
