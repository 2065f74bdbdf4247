// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the "dst" generic netlink control family.
 *
 * Every command needs CAP_NET_ADMIN and every attribute is checked against
 * a strict policy before a handler runs.  Changes are announced on the
 * "events" multicast group.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>

#include "dst.h"

static const struct nla_policy dst_storage_policy[DST_STORAGE_A_MAX + 1] = {
	/* Length is checked by the handlers, which say what is wrong. */
	[DST_STORAGE_A_NAME]	= { .type = NLA_NUL_STRING },
	[DST_STORAGE_A_ALG]	= { .type = NLA_NUL_STRING },
	[DST_STORAGE_A_ID]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_STATE]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_SIZE]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_PAD]	= { .type = NLA_REJECT },
};

static const struct nla_policy dst_policy[DST_A_MAX + 1] = {
	[DST_A_VERSION]	= { .type = NLA_REJECT },
	[DST_A_ALGS]	= { .type = NLA_REJECT },
	[DST_A_STORAGE]	= NLA_POLICY_NESTED(dst_storage_policy),
};

enum dst_mcgrp {
	DST_MCGRP_EVENTS,
};

static const struct genl_multicast_group dst_mcgrps[] = {
	[DST_MCGRP_EVENTS] = { .name = DST_GENL_MCGRP_EVENTS },
};

static struct genl_family dst_genl_family;

static int dst_storage_fill(struct sk_buff *skb, struct dst_storage *st,
			    u32 portid, u32 seq, int flags, u8 cmd)
{
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &dst_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	nest = nla_nest_start(skb, DST_A_STORAGE);
	if (!nest)
		goto err;
	if (nla_put_string(skb, DST_STORAGE_A_NAME, st->name) ||
	    nla_put_string(skb, DST_STORAGE_A_ALG, st->alg->name) ||
	    nla_put_u32(skb, DST_STORAGE_A_ID, st->id) ||
	    nla_put_u32(skb, DST_STORAGE_A_STATE, st->state) ||
	    nla_put_u64_64bit(skb, DST_STORAGE_A_SIZE, st->size,
			      DST_STORAGE_A_PAD))
		goto err;
	nla_nest_end(skb, nest);

	genlmsg_end(skb, hdr);
	return 0;

err:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static void dst_genl_notify(struct dst_storage *st, u8 cmd)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(&dst_genl_family, &init_net, DST_MCGRP_EVENTS))
		return;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (dst_storage_fill(skb, st, 0, 0, 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_multicast(&dst_genl_family, skb, 0, DST_MCGRP_EVENTS,
			  GFP_KERNEL);
}

/*
 * Parse the DST_A_STORAGE nest of a request into @tb and check its name.
 * The family policy has already validated the nest.
 */
static int dst_genl_parse_storage(struct genl_info *info, struct nlattr **tb)
{
	struct nlattr *nest = info->attrs[DST_A_STORAGE];
	int err;

	if (GENL_REQ_ATTR_CHECK(info, DST_A_STORAGE))
		return -EINVAL;

	err = nla_parse_nested(tb, DST_STORAGE_A_MAX, nest, dst_storage_policy,
			       info->extack);
	if (err)
		return err;

	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_STORAGE_A_NAME))
		return -EINVAL;
	if (!dst_name_valid(nla_data(tb[DST_STORAGE_A_NAME]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_NAME],
				    "invalid name (1-31 characters of A-Z a-z 0-9 _ . -, not starting with . or -)");
		return -EINVAL;
	}
	return 0;
}

static int dst_genl_info(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *reply;
	void *hdr;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	hdr = genlmsg_put_reply(reply, info, &dst_genl_family, 0, DST_CMD_INFO);
	if (!hdr ||
	    nla_put_string(reply, DST_A_VERSION, DST_VERSION) ||
	    dst_alg_fill_names(reply, DST_A_ALGS)) {
		nlmsg_free(reply);
		return -EMSGSIZE;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

static int dst_genl_storage_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	const struct dst_alg_ops *alg;
	struct dst_storage *st;
	const char *name;
	int err;

	err = dst_genl_parse_storage(info, tb);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[DST_A_STORAGE], tb,
			      DST_STORAGE_A_ALG))
		return -EINVAL;
	name = nla_data(tb[DST_STORAGE_A_NAME]);

	alg = dst_alg_get(nla_data(tb[DST_STORAGE_A_ALG]));
	if (!alg) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_ALG],
				    "unknown algorithm");
		return -EINVAL;
	}

	dst_storage_lock();
	if (dst_storage_find(name)) {
		dst_alg_put(alg);
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_NAME],
				    "already exists");
		err = -EEXIST;
		goto out;
	}
	st = dst_storage_create(name, alg);
	if (!st) {
		err = -ENOMEM;
		goto out;
	}
	pr_debug("storage %s created (dst%u, %s)\n", st->name, st->id,
		 alg->name);
	dst_genl_notify(st, DST_CMD_STORAGE_NEW);
out:
	dst_storage_unlock();
	return err;
}

static int dst_genl_storage_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	struct dst_storage *st;
	int err;

	err = dst_genl_parse_storage(info, tb);
	if (err)
		return err;

	dst_storage_lock();
	st = dst_storage_find(nla_data(tb[DST_STORAGE_A_NAME]));
	if (!st) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_NAME],
				    "no such storage");
		err = -ENOENT;
		goto out;
	}
	pr_debug("storage %s deleted\n", st->name);
	dst_genl_notify(st, DST_CMD_STORAGE_DEL);
	dst_storage_destroy(st);
out:
	dst_storage_unlock();
	return err;
}

static int dst_genl_storage_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	struct dst_storage *st;
	struct sk_buff *reply;
	int err;

	err = dst_genl_parse_storage(info, tb);
	if (err)
		return err;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	dst_storage_lock();
	st = dst_storage_find(nla_data(tb[DST_STORAGE_A_NAME]));
	if (!st) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_NAME],
				    "no such storage");
		err = -ENOENT;
	} else {
		err = dst_storage_fill(reply, st, info->snd_portid,
				       info->snd_seq, 0, DST_CMD_STORAGE_GET);
	}
	dst_storage_unlock();

	if (err) {
		nlmsg_free(reply);
		return err;
	}
	return genlmsg_reply(reply, info);
}

/* cb->args[0] is the id of the next storage to dump. */
static int dst_genl_storage_dump(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	u32 id = cb->args[0];
	struct dst_storage *st;
	int err = 0;

	dst_storage_lock();
	while ((st = dst_storage_next(&id))) {
		err = dst_storage_fill(skb, st, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       DST_CMD_STORAGE_GET);
		if (err)
			break;
		id++;
	}
	dst_storage_unlock();

	cb->args[0] = id;
	/* A full skb ends this part of the dump; the rest follows. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

static const struct genl_small_ops dst_genl_ops[] = {
	{
		.cmd	= DST_CMD_INFO,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_info,
	},
	{
		.cmd	= DST_CMD_STORAGE_NEW,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_storage_new,
	},
	{
		.cmd	= DST_CMD_STORAGE_DEL,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_storage_del,
	},
	{
		.cmd	= DST_CMD_STORAGE_GET,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_storage_get,
		.dumpit	= dst_genl_storage_dump,
	},
};

static struct genl_family dst_genl_family __ro_after_init = {
	.name		= DST_GENL_NAME,
	.version	= DST_GENL_VERSION,
	.maxattr	= DST_A_MAX,
	.policy		= dst_policy,
	.module		= THIS_MODULE,
	.small_ops	= dst_genl_ops,
	.n_small_ops	= ARRAY_SIZE(dst_genl_ops),
	.mcgrps		= dst_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(dst_mcgrps),
};

int __init dst_genl_init(void)
{
	return genl_register_family(&dst_genl_family);
}

void dst_genl_exit(void)
{
	genl_unregister_family(&dst_genl_family);
}
MODULE_ALIAS_GENL_FAMILY(DST_GENL_NAME);
