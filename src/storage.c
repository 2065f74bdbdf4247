// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - registry of storages.
 *
 * Storages are kept in an IDR whose index is the N of /dev/dstN; names are
 * unique.  One mutex serialises every change and every walk, as nbd's
 * nbd_index_mutex does for its devices; it is held only for short work.
 * A command that may take long (start, stop, delete, removing a node) first
 * claims the storage under it (dst_storage.busy), then runs without it:
 * the claimed storage is changed by no other command and not freed, and
 * what readers walk (the list of nodes, the state) still changes only
 * under the mutex.
 */
#include <linux/bio.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dst.h"

static DEFINE_IDR(dst_storages);
static DEFINE_MUTEX(dst_storages_lock);

void dst_storage_lock(void)
{
	mutex_lock(&dst_storages_lock);
}

void dst_storage_unlock(void)
{
	mutex_unlock(&dst_storages_lock);
}

/* The rule of the uapi header: DST_NAME_MAX, DST_NAME_PUNCT. */
bool dst_name_valid(const char *name)
{
	size_t len = strnlen(name, DST_NAME_MAX);
	size_t i;

	if (!len || len >= DST_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr(DST_NAME_PUNCT, name[i]))
			return false;
	return true;
}

struct dst_storage *dst_storage_find(const char *name)
{
	struct dst_storage *st;
	int id;

	lockdep_assert_held(&dst_storages_lock);

	idr_for_each_entry(&dst_storages, st, id)
		if (!strcmp(st->name, name))
			return st;
	return NULL;
}

/* The storage with the lowest id >= *@id, and *@id set to it; or NULL. */
struct dst_storage *dst_storage_next(u32 *id)
{
	int next = *id;
	struct dst_storage *st;

	lockdep_assert_held(&dst_storages_lock);

	if (next < 0)
		return NULL;
	st = idr_get_next(&dst_storages, &next);
	if (st)
		*id = next;
	return st;
}

/*
 * Create a stopped storage.  Takes over the reference on @alg, also on
 * failure.  The caller has checked the name and its uniqueness.
 */
struct dst_storage *dst_storage_create(const char *name,
				       const struct dst_alg_ops *alg,
				       u32 chunk_size, u32 resync_min,
				       u32 resync_max)
{
	struct dst_storage *st;
	int id;

	lockdep_assert_held(&dst_storages_lock);

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		goto err_put;

	if (bioset_init(&st->bs, BIO_POOL_SIZE, 0, BIOSET_NEED_RESCUER))
		goto err_free;
	if (dst_disk_init_bioset(&st->acct_bs))
		goto err_bs;
	id = idr_alloc(&dst_storages, st, 0, DST_MAX_STORAGES, GFP_KERNEL);
	if (id < 0)
		goto err_bioset;

	strscpy(st->name, name, sizeof(st->name));
	st->id = id;
	st->alg = alg;
	st->chunk_size = chunk_size;
	st->resync_min = resync_min;
	st->resync_max = resync_max;
	st->state = DST_STORAGE_STOPPED;
	INIT_LIST_HEAD(&st->nodes);
	return st;

err_bioset:
	bioset_exit(&st->acct_bs);
err_bs:
	bioset_exit(&st->bs);
err_free:
	kfree(st);
err_put:
	dst_alg_put(alg);
	return NULL;
}

/*
 * The device that @node's I/O reaches on this host: its own, or, for a
 * remote node connected to an export of this host, that export's.
 */
static struct block_device *dst_node_here(struct dst_node *node)
{
	if (node->remote)
		return dst_export_session_bdev(dst_remote_session(node->remote));
	return node->bdev;
}

/* Whether @bdev is @st's disk or sits on it; too deep a tree counts as so. */
static bool dst_storage_holds(struct dst_storage *st, struct block_device *bdev,
			      unsigned int depth)
{
	struct dst_storage *top = bdev ? dst_disk_storage(bdev) : NULL;
	struct dst_node *node;

	if (!top)
		return false;
	if (top == st || depth == DST_MAX_DEPTH)
		return true;
	list_for_each_entry(node, &top->nodes, list)
		if (dst_storage_holds(st, dst_node_here(node), depth + 1))
			return true;
	return false;
}

/*
 * Whether @node would send @st's I/O back into @st: it is @st's disk, or
 * a storage that sits on it, through local nodes or exports of this host
 * imported back, however deep; as md and dm refuse a device that holds
 * them.
 */
static bool dst_storage_loops(struct dst_storage *st, struct dst_node *node)
{
	bool loops;

	lockdep_assert_held(&dst_storages_lock);

	dst_export_lock();
	loops = dst_storage_holds(st, dst_node_here(node), 0);
	dst_export_unlock();
	return loops;
}

/*
 * Add @node to a storage: a stopped one takes any node, placed by the
 * algorithm; a running one only if the algorithm can take it while it runs.
 * A remote node starts receiving here.  On failure the caller destroys it.
 */
int dst_storage_add_node(struct dst_storage *st, struct dst_node *node,
			 const char **why)
{
	const struct dst_alg_ops *alg = st->alg;
	int err;

	lockdep_assert_held(&dst_storages_lock);

	if (dst_storage_loops(st, node)) {
		*why = "the node is this storage, or sits on it";
		return -ELOOP;
	}
	if (alg->max_nodes && st->nr_nodes >= alg->max_nodes) {
		*why = "the storage has as many nodes as its algorithm takes";
		return -ENOSPC;
	}
	/* An export may say any size: no sum of them may wrap. */
	if (node->size > DST_MAX_SIZE ||
	    st->size + node->size > DST_MAX_SIZE) {
		*why = "the storage would be larger than 1 EiB";
		return -EFBIG;
	}
	node->st = st;
	node->id = st->next_node_id;
	if (node->remote) {
		err = dst_remote_start(node->remote, why);
		if (err)
			return err;
	}
	if (st->state == DST_STORAGE_STOPPED) {
		list_add_tail(&node->list, &st->nodes);
		alg->layout(st);
	} else {
		if (!alg->add_running) {
			*why = "stop the storage to add nodes";
			return -EBUSY;
		}
		err = alg->add_running(st, node, why);
		if (err)
			return err;
		list_add_tail(&node->list, &st->nodes);
		err = dst_sysfs_add_node(st, node);
		if (err) {
			alg->del_running(st, node, why);
			list_del(&node->list);
			*why = "cannot make the sysfs directory of the node";
			return err;
		}
	}
	st->nr_nodes++;
	st->next_node_id++;
	return 0;
}

/*
 * Take @node out of a storage that the caller claimed, and free it; called
 * without dst_storage_lock(): letting go of a node of a running storage
 * waits for its I/O.
 */
int dst_storage_del_node(struct dst_storage *st, struct dst_node *node,
			 const char **why)
{
	const struct dst_alg_ops *alg = st->alg;
	int err;

	if (st->state == DST_STORAGE_RUNNING) {
		if (!alg->del_running) {
			*why = "stop the storage to remove nodes";
			return -EBUSY;
		}
		/* Status no longer asks the algorithm about it. */
		dst_storage_lock();
		node->leaving = true;
		dst_storage_unlock();
		err = alg->del_running(st, node, why);
		if (err) {
			dst_storage_lock();
			node->leaving = false;
			dst_storage_unlock();
			return err;
		}
	}
	dst_storage_lock();
	list_del(&node->list);
	if (st->state == DST_STORAGE_STOPPED)
		alg->layout(st);
	st->nr_nodes--;
	dst_storage_unlock();
	dst_node_destroy(node);
	return 0;
}

struct dst_node *dst_storage_node(struct dst_storage *st, u32 id)
{
	struct dst_node *node;

	lockdep_assert_held(&dst_storages_lock);

	list_for_each_entry(node, &st->nodes, list)
		if (node->id == id)
			return node;
	return NULL;
}

/* Take a stopped storage out of the registry: no one finds it any more. */
void dst_storage_unlist(struct dst_storage *st)
{
	lockdep_assert_held(&dst_storages_lock);

	idr_remove(&dst_storages, st->id);
}

/* Free a stopped storage that is out of the registry, with its nodes. */
void dst_storage_destroy(struct dst_storage *st)
{
	struct dst_node *node, *tmp;

	list_for_each_entry_safe(node, tmp, &st->nodes, list)
		dst_node_destroy(node);
	bioset_exit(&st->acct_bs);
	bioset_exit(&st->bs);
	dst_alg_put(st->alg);
	kfree(st);
}
