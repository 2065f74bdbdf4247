/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dst: distributed storage - objects shared by the parts of the module.
 */
#ifndef _DST_H
#define _DST_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/types.h>

#include "uapi/dst.h"

struct sk_buff;

/**
 * struct dst_alg_ops - a storage algorithm, registered like a dm target
 * @name:	name given to "dstadm create --alg"
 * @owner:	module that provides the algorithm; pinned by each storage
 * @list:	entry in the algorithm registry
 */
struct dst_alg_ops {
	const char *name;
	struct module *owner;
	struct list_head list;
};

int dst_register_alg(struct dst_alg_ops *alg);
void dst_unregister_alg(struct dst_alg_ops *alg);
const struct dst_alg_ops *dst_alg_get(const char *name);
void dst_alg_put(const struct dst_alg_ops *alg);
int dst_alg_fill_names(struct sk_buff *skb, int attrtype);

int dst_linear_init(void);
void dst_linear_exit(void);
int dst_mirror_init(void);
void dst_mirror_exit(void);

/**
 * struct dst_storage - a named storage built from nodes by an algorithm
 * @name:	unique name, see dst_name_valid()
 * @id:		N of /dev/dstN
 * @alg:	algorithm, holds a reference on its module
 * @state:	enum dst_storage_state
 * @size:	size in bytes
 */
struct dst_storage {
	char name[DST_NAME_MAX];
	u32 id;
	const struct dst_alg_ops *alg;
	enum dst_storage_state state;
	u64 size;
};

/*
 * The storage registry.  Lookups and iteration need dst_storage_lock();
 * a storage found under the lock stays valid until dst_storage_unlock().
 */
void dst_storage_lock(void);
void dst_storage_unlock(void);
bool dst_name_valid(const char *name);
struct dst_storage *dst_storage_create(const char *name,
				       const struct dst_alg_ops *alg);
void dst_storage_destroy(struct dst_storage *st);
struct dst_storage *dst_storage_find(const char *name);
struct dst_storage *dst_storage_next(u32 *id);

int dst_genl_init(void);
void dst_genl_exit(void);

#endif /* _DST_H */
