// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - registry of storage algorithms.
 */
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "dst.h"

static LIST_HEAD(dst_algs);
static DEFINE_MUTEX(dst_algs_lock);

static struct dst_alg_ops *__dst_alg_find(const char *name)
{
	struct dst_alg_ops *alg;

	list_for_each_entry(alg, &dst_algs, list)
		if (!strcmp(alg->name, name))
			return alg;
	return NULL;
}

int dst_register_alg(struct dst_alg_ops *alg)
{
	int err = 0;

	if (strlen(alg->name) >= DST_ALG_NAME_MAX)
		return -ENAMETOOLONG;

	mutex_lock(&dst_algs_lock);
	if (__dst_alg_find(alg->name))
		err = -EEXIST;
	else
		list_add_tail(&alg->list, &dst_algs);
	mutex_unlock(&dst_algs_lock);
	return err;
}

void dst_unregister_alg(struct dst_alg_ops *alg)
{
	mutex_lock(&dst_algs_lock);
	list_del(&alg->list);
	mutex_unlock(&dst_algs_lock);
}

/*
 * Look up an algorithm by name and pin its module; NULL if there is no such
 * algorithm or its module is going away.
 */
const struct dst_alg_ops *dst_alg_get(const char *name)
{
	struct dst_alg_ops *alg;

	mutex_lock(&dst_algs_lock);
	alg = __dst_alg_find(name);
	if (alg && !try_module_get(alg->owner))
		alg = NULL;
	mutex_unlock(&dst_algs_lock);
	return alg;
}

void dst_alg_put(const struct dst_alg_ops *alg)
{
	module_put(alg->owner);
}

/* Put a nest @attrtype holding one DST_ALG_A_NAME per algorithm. */
int dst_alg_fill_names(struct sk_buff *skb, int attrtype)
{
	struct dst_alg_ops *alg;
	struct nlattr *nest;
	int err = 0;

	nest = nla_nest_start(skb, attrtype);
	if (!nest)
		return -EMSGSIZE;

	mutex_lock(&dst_algs_lock);
	list_for_each_entry(alg, &dst_algs, list) {
		err = nla_put_string(skb, DST_ALG_A_NAME, alg->name);
		if (err)
			break;
	}
	mutex_unlock(&dst_algs_lock);

	if (err) {
		nla_nest_cancel(skb, nest);
		return err;
	}
	nla_nest_end(skb, nest);
	return 0;
}
