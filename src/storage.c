// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - registry of storages.
 *
 * Storages are kept in an IDR whose index is the N of /dev/dstN; names are
 * unique.  One mutex serialises every change and every walk, as nbd's
 * nbd_index_mutex does for its devices.
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

/*
 * A name is 1 to DST_NAME_MAX - 1 characters of [A-Za-z0-9_.-] and does not
 * start with '.' or '-', so that it is safe as a file name in sysfs and as
 * the /dev/dst/NAME link.
 */
bool dst_name_valid(const char *name)
{
	size_t len = strnlen(name, DST_NAME_MAX);
	size_t i;

	if (!len || len >= DST_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
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
				       const struct dst_alg_ops *alg)
{
	struct dst_storage *st;
	int id;

	lockdep_assert_held(&dst_storages_lock);

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		goto err_put;

	if (bioset_init(&st->bs, BIO_POOL_SIZE, 0, 0))
		goto err_free;
	id = idr_alloc(&dst_storages, st, 0, DST_MAX_STORAGES, GFP_KERNEL);
	if (id < 0)
		goto err_bioset;

	strscpy(st->name, name, sizeof(st->name));
	st->id = id;
	st->alg = alg;
	st->state = DST_STORAGE_STOPPED;
	INIT_LIST_HEAD(&st->nodes);
	return st;

err_bioset:
	bioset_exit(&st->bs);
err_free:
	kfree(st);
err_put:
	dst_alg_put(alg);
	return NULL;
}

/* Add @node to a stopped storage, placed by the algorithm. */
int dst_storage_add_node(struct dst_storage *st, struct dst_node *node,
			 const char **why)
{
	int err;

	lockdep_assert_held(&dst_storages_lock);

	if (st->state != DST_STORAGE_STOPPED) {
		*why = "stop the storage to add nodes";
		return -EBUSY;
	}
	if (!st->alg->add_node) {
		*why = "this algorithm does not take nodes yet";
		return -EOPNOTSUPP;
	}
	err = st->alg->add_node(st, node);
	if (err) {
		*why = "the algorithm refused the node";
		return err;
	}
	list_add_tail(&node->list, &st->nodes);
	st->nr_nodes++;
	return 0;
}

/* Free a stopped storage with its nodes. */
void dst_storage_destroy(struct dst_storage *st)
{
	struct dst_node *node, *tmp;

	lockdep_assert_held(&dst_storages_lock);

	list_for_each_entry_safe(node, tmp, &st->nodes, list)
		dst_node_destroy(node);
	idr_remove(&dst_storages, st->id);
	bioset_exit(&st->bs);
	dst_alg_put(st->alg);
	kfree(st);
}
