// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the "dst" generic netlink control family.
 *
 * Every command needs CAP_NET_ADMIN, and every command that is not a plain
 * look (DST_GENL_LOOK) CAP_SYS_ADMIN too; every attribute is checked
 * against a strict policy before a handler runs.  Changes are announced on
 * the "events" multicast group.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <net/genetlink.h>

#include "dst.h"
#include "export.h"

static const struct nla_policy dst_storage_policy[DST_STORAGE_A_MAX + 1] = {
	/* Length is checked by the handlers, which say what is wrong. */
	[DST_STORAGE_A_NAME]	= { .type = NLA_NUL_STRING,
				    .len = DST_NAME_MAX - 1 },
	[DST_STORAGE_A_ALG]	= { .type = NLA_NUL_STRING,
				    .len = DST_ALG_NAME_MAX - 1 },
	[DST_STORAGE_A_ID]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_STATE]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_SIZE]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_PAD]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_NODES]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_CHUNK_SIZE] = { .type = NLA_U32 },
	[DST_STORAGE_A_ASSUME_CLEAN] = { .type = NLA_FLAG },
	[DST_STORAGE_A_RESYNC_BYTES] = { .type = NLA_REJECT },
	[DST_STORAGE_A_RESYNC_MIN] = { .type = NLA_U32 },
	[DST_STORAGE_A_RESYNC_MAX] = { .type = NLA_U32 },
	[DST_STORAGE_A_RESYNC_RATE] = { .type = NLA_REJECT },
	[DST_STORAGE_A_RESYNC_LEFT] = { .type = NLA_REJECT },
	[DST_STORAGE_A_BITMAP]	= { .type = NLA_NUL_STRING,
				    .len = DST_BITMAP_PATH_MAX - 1 },
	[DST_STORAGE_A_STARTED]	= { .type = NLA_REJECT },
	[DST_STORAGE_A_BITMAP_REGIONS] = { .type = NLA_REJECT },
	[DST_STORAGE_A_REPAIR]	= { .type = NLA_FLAG },
	[DST_STORAGE_A_MISMATCHES] = { .type = NLA_REJECT },
	[DST_STORAGE_A_VERIFY_LEFT] = { .type = NLA_REJECT },
	[DST_STORAGE_A_VERIFY_REPAIR] = { .type = NLA_REJECT },
};

static const struct nla_policy dst_node_policy[DST_NODE_A_MAX + 1] = {
	[DST_NODE_A_TYPE]	= NLA_POLICY_MAX(NLA_U32, __DST_NODE_TYPE_MAX - 1),
	[DST_NODE_A_ADDR]	= { .type = NLA_BINARY,
				    .len = sizeof(struct sockaddr_in6) },
	[DST_NODE_A_PATH]	= { .type = NLA_NUL_STRING,
				    .len = DST_PATH_MAX - 1 },
	[DST_NODE_A_TIMEOUT]	= { .type = NLA_U32 },
	[DST_NODE_A_ID]		= { .type = NLA_U32 },
	[DST_NODE_A_STATE]	= { .type = NLA_REJECT },
	[DST_NODE_A_SIZE]	= { .type = NLA_REJECT },
	[DST_NODE_A_INFLIGHT]	= { .type = NLA_REJECT },
	[DST_NODE_A_READ_BYTES]	= { .type = NLA_REJECT },
	[DST_NODE_A_WRITE_BYTES] = { .type = NLA_REJECT },
	[DST_NODE_A_PAD]	= { .type = NLA_REJECT },
	[DST_NODE_A_SYNC]	= { .type = NLA_REJECT },
	[DST_NODE_A_REGIONS]	= { .type = NLA_REJECT },
	[DST_NODE_A_DIRTY]	= { .type = NLA_REJECT },
	[DST_NODE_A_DEAD_TIMEOUT] = { .type = NLA_U32 },
	[DST_NODE_A_RECONNECT_MAX] = { .type = NLA_U32 },
	[DST_NODE_A_RECONNECTS]	= { .type = NLA_REJECT },
	[DST_NODE_A_SECRET]	= NLA_POLICY_RANGE(NLA_BINARY, 1, DST_SECRET_MAX),
	[DST_NODE_A_INTEGRITY]	= { .type = NLA_FLAG },
	[DST_NODE_A_AUTH]	= { .type = NLA_REJECT },
	[DST_NODE_A_CRC_ERRORS]	= { .type = NLA_REJECT },
	[DST_NODE_A_WRITE_MOSTLY] = { .type = NLA_FLAG },
	[DST_NODE_A_WRITE_BEHIND] = NLA_POLICY_MAX(NLA_U32, DST_MAX_WRITE_BEHIND),
	[DST_NODE_A_BEHIND]	= { .type = NLA_REJECT },
	[DST_NODE_A_TLS]	= NLA_POLICY_MAX(NLA_U32, __DST_TLS_MODE_MAX - 1),
	[DST_NODE_A_TLS_CERT]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
	[DST_NODE_A_TLS_KEY]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
	[DST_NODE_A_TLS_CA]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
	[DST_NODE_A_TLS_NAME]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
	[DST_NODE_A_TLS_CIPHER]	= NLA_POLICY_MAX(NLA_U32, __DST_TLS_CIPHER_MAX - 1),
};

static const struct nla_policy dst_export_policy[DST_EXPORT_A_MAX + 1] = {
	[DST_EXPORT_A_NAME]	= { .type = NLA_NUL_STRING,
				    .len = DST_NAME_MAX - 1 },
	[DST_EXPORT_A_DEVICE]	= { .type = NLA_NUL_STRING,
				    .len = DST_PATH_MAX - 1 },
	[DST_EXPORT_A_ADDR]	= { .type = NLA_BINARY,
				    .len = sizeof(struct sockaddr_in6) },
	[DST_EXPORT_A_READ_ONLY] = { .type = NLA_FLAG },
	[DST_EXPORT_A_SIZE]	= { .type = NLA_REJECT },
	[DST_EXPORT_A_CLIENTS]	= { .type = NLA_REJECT },
	[DST_EXPORT_A_REFUSED]	= { .type = NLA_REJECT },
	[DST_EXPORT_A_PAD]	= { .type = NLA_REJECT },
	[DST_EXPORT_A_ALLOW]	= NLA_POLICY_NESTED_ARRAY(dst_allow_policy),
	[DST_EXPORT_A_SECRET]	= NLA_POLICY_RANGE(NLA_BINARY, 1, DST_SECRET_MAX),
	[DST_EXPORT_A_INTEGRITY] = { .type = NLA_FLAG },
	[DST_EXPORT_A_AUTH]	= { .type = NLA_REJECT },
	[DST_EXPORT_A_DENIED]	= { .type = NLA_REJECT },
	[DST_EXPORT_A_AUTH_FAILED] = { .type = NLA_REJECT },
	[DST_EXPORT_A_CRC_ERRORS] = { .type = NLA_REJECT },
	[DST_EXPORT_A_CLIENT_LIST] = { .type = NLA_REJECT },
	[DST_EXPORT_A_SHARED]	= { .type = NLA_FLAG },
	[DST_EXPORT_A_TLS]	= NLA_POLICY_MAX(NLA_U32, __DST_TLS_MODE_MAX - 1),
	[DST_EXPORT_A_TLS_CERT]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
	[DST_EXPORT_A_TLS_KEY]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
	[DST_EXPORT_A_TLS_CA]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
	[DST_EXPORT_A_TLS_CIPHER] = NLA_POLICY_MAX(NLA_U32,
						   __DST_TLS_CIPHER_MAX - 1),
};

/* DONE is the agent's only request with attributes. */
static const struct nla_policy dst_tls_policy[DST_TLS_A_MAX + 1] = {
	[DST_TLS_A_ID]		= { .type = NLA_U32 },
	[DST_TLS_A_FD]		= { .type = NLA_REJECT },
	[DST_TLS_A_ROLE]	= { .type = NLA_REJECT },
	[DST_TLS_A_MODE]	= { .type = NLA_REJECT },
	[DST_TLS_A_PSK]		= { .type = NLA_REJECT },
	[DST_TLS_A_CERT]	= { .type = NLA_REJECT },
	[DST_TLS_A_KEY]		= { .type = NLA_REJECT },
	[DST_TLS_A_CA]		= { .type = NLA_REJECT },
	[DST_TLS_A_NAME]	= { .type = NLA_REJECT },
	[DST_TLS_A_PEER]	= { .type = NLA_REJECT },
	[DST_TLS_A_TIMEOUT]	= { .type = NLA_REJECT },
	[DST_TLS_A_STATUS]	= NLA_POLICY_MAX(NLA_U32, MAX_ERRNO),
	[DST_TLS_A_MESSAGE]	= { .type = NLA_NUL_STRING, .len = 255 },
	[DST_TLS_A_CIPHER]	= { .type = NLA_REJECT },
};

static const struct nla_policy dst_policy[DST_A_MAX + 1] = {
	[DST_A_VERSION]	= { .type = NLA_REJECT },
	[DST_A_ALGS]	= { .type = NLA_REJECT },
	[DST_A_STORAGE]	= NLA_POLICY_NESTED(dst_storage_policy),
	[DST_A_NODE]	= NLA_POLICY_NESTED(dst_node_policy),
	[DST_A_EXPORT]	= NLA_POLICY_NESTED(dst_export_policy),
	[DST_A_EVENT]	= { .type = NLA_REJECT },
	[DST_A_CLIENT]	= { .type = NLA_REJECT },
	[DST_A_TLS]	= NLA_POLICY_NESTED(dst_tls_policy),
};

enum dst_mcgrp {
	DST_MCGRP_EVENTS,
	DST_MCGRP_TLS,
};

static const struct genl_multicast_group dst_mcgrps[] = {
	/* Events carry paths, addresses and allow lists: admins only. */
	[DST_MCGRP_EVENTS] = { .name = DST_GENL_MCGRP_EVENTS,
			       .flags = GENL_MCAST_CAP_NET_ADMIN },
	/* Its members are taken for TLS agents, which get the secrets. */
	[DST_MCGRP_TLS] = { .name = DST_GENL_MCGRP_TLS,
			    .flags = GENL_MCAST_CAP_SYS_ADMIN },
};

static struct genl_family dst_genl_family;

/*
 * Report @why, a static string saying why a request failed.  The helpers
 * of the other files say why through such strings, which
 * NL_SET_ERR_MSG() takes only as literals.
 */
static void dst_genl_why(struct genl_info *info, const char *why)
{
	if (why && info->extack)
		info->extack->_msg = why;
}

/* Whether @st takes a command now: not while a claimed one runs. */
static int dst_genl_idle(struct genl_info *info, struct dst_storage *st,
			 int *err)
{
	*err = 0;
	if (st->busy) {
		NL_SET_ERR_MSG(info->extack,
			       "another command on this storage is in progress");
		*err = -EBUSY;
	}
	return *err;
}

/* genl_small_ops.internal_flags: the command only reads dst's state. */
#define DST_GENL_LOOK	BIT(0)

/*
 * Every command but a look moves data to or from a disk, directly (a
 * device opened by path, an export) or through another one (a remote leg
 * that a mirror resyncs, a started storage, a repair, a TLS handshake
 * whose secrets and verdict decide who reads an export).  Like loop, nbd
 * and dm, they need CAP_SYS_ADMIN, not only the CAP_NET_ADMIN that
 * GENL_ADMIN_PERM asks of every dst command.  The rule is kept here once,
 * not in each handler, so that a new command is covered by default.
 */
static int dst_genl_pre_doit(const struct genl_ops *ops, struct sk_buff *skb,
			     struct genl_info *info)
{
	if ((ops->internal_flags & DST_GENL_LOOK) ||
	    netlink_capable(skb, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(info->extack, "this command needs CAP_SYS_ADMIN");
	return -EPERM;
}

/* Seconds in @attr, if there, into *@out; at most @max, else @too_long. */
static int dst_genl_seconds(struct genl_info *info, const struct nlattr *attr,
			    u32 max, const char *too_long, unsigned int *out)
{
	if (!attr)
		return 0;
	if (nla_get_u32(attr) > max) {
		dst_genl_why(info, too_long);
		NL_SET_BAD_ATTR(info->extack, attr);
		return -EINVAL;
	}
	*out = nla_get_u32(attr);
	return 0;
}

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
	if (st->chunk_size &&
	    (nla_put_u32(skb, DST_STORAGE_A_CHUNK_SIZE, st->chunk_size) ||
	     nla_put_u32(skb, DST_STORAGE_A_RESYNC_MIN, READ_ONCE(st->resync_min)) ||
	     nla_put_u32(skb, DST_STORAGE_A_RESYNC_MAX, READ_ONCE(st->resync_max))))
		goto err;
	if (st->bitmap[0] && nla_put_string(skb, DST_STORAGE_A_BITMAP, st->bitmap))
		goto err;
	if (st->state == DST_STORAGE_RUNNING && st->alg->fill_storage &&
	    st->alg->fill_storage(skb, st))
		goto err;
	if (st->nr_nodes) {
		struct dst_node *node;
		struct nlattr *nodes;

		nodes = nla_nest_start(skb, DST_STORAGE_A_NODES);
		if (!nodes)
			goto err;
		list_for_each_entry(node, &st->nodes, list)
			if (dst_node_fill(skb, node))
				goto err;
		nla_nest_end(skb, nodes);
	}
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

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (dst_storage_fill(skb, st, 0, 0, 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_multicast(&dst_genl_family, skb, 0, DST_MCGRP_EVENTS,
			  GFP_KERNEL);
}

void dst_event(struct dst_storage *st, u32 node, enum dst_event ev,
	       u64 bytes, gfp_t gfp)
{
	struct sk_buff *skb;
	struct nlattr *nest;
	void *hdr;

	if (!genl_has_listeners(&dst_genl_family, &init_net, DST_MCGRP_EVENTS))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, gfp);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &dst_genl_family, 0, DST_CMD_EVENT);
	if (!hdr)
		goto err;
	nest = nla_nest_start(skb, DST_A_EVENT);
	if (!nest ||
	    nla_put_u32(skb, DST_EVENT_A_TYPE, ev) ||
	    nla_put_string(skb, DST_EVENT_A_STORAGE, st->name) ||
	    (node != U32_MAX && nla_put_u32(skb, DST_EVENT_A_NODE, node)) ||
	    ((ev == DST_EVENT_RESYNC_DONE || ev == DST_EVENT_RESIZE) &&
	     nla_put_u64_64bit(skb, DST_EVENT_A_BYTES, bytes,
			       DST_EVENT_A_PAD)) ||
	    (ev == DST_EVENT_VERIFY_DONE &&
	     nla_put_u64_64bit(skb, DST_EVENT_A_MISMATCHES, bytes,
			       DST_EVENT_A_PAD)))
		goto err;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&dst_genl_family, skb, 0, DST_MCGRP_EVENTS, gfp);
	return;
err:
	nlmsg_free(skb);
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
	u32 chunk = 0, rmin = 0, rmax = 0;
	const char *bitmap = NULL;
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
	if (tb[DST_STORAGE_A_CHUNK_SIZE])
		chunk = nla_get_u32(tb[DST_STORAGE_A_CHUNK_SIZE]);
	if (chunk && !alg->chunked) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_CHUNK_SIZE],
				    "this algorithm takes no chunk size");
		dst_alg_put(alg);
		return -EINVAL;
	}
	if (chunk && (!is_power_of_2(chunk) || chunk < DST_CHUNK_MIN ||
		      chunk > DST_CHUNK_MAX)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_CHUNK_SIZE],
				    "chunk size is not a power of two from 4 KiB to 1 GiB");
		dst_alg_put(alg);
		return -EINVAL;
	}
	if (!chunk && alg->chunked)
		chunk = DST_CHUNK_DEFAULT;
	if (tb[DST_STORAGE_A_RESYNC_MIN])
		rmin = nla_get_u32(tb[DST_STORAGE_A_RESYNC_MIN]);
	if (tb[DST_STORAGE_A_RESYNC_MAX])
		rmax = nla_get_u32(tb[DST_STORAGE_A_RESYNC_MAX]);
	if ((rmin || rmax) && !alg->chunked) {
		NL_SET_ERR_MSG(info->extack,
			       "this algorithm has no resync speed limits");
		dst_alg_put(alg);
		return -EINVAL;
	}
	if (tb[DST_STORAGE_A_BITMAP]) {
		bitmap = nla_data(tb[DST_STORAGE_A_BITMAP]);
		if (!alg->chunked) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_BITMAP],
					    "this algorithm takes no bitmap");
			dst_alg_put(alg);
			return -EINVAL;
		}
		if (bitmap[0] != '/' || strlen(bitmap) >= DST_BITMAP_PATH_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_BITMAP],
					    "bitmap path not absolute or too long");
			dst_alg_put(alg);
			return -EINVAL;
		}
	}
	if (alg->chunked) {
		rmin = rmin ?: DST_RESYNC_MIN_DEFAULT;
		rmax = rmax ?: DST_RESYNC_MAX_DEFAULT;
	}

	dst_storage_lock();
	if (dst_storage_find(name)) {
		dst_alg_put(alg);
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_NAME],
				    "already exists");
		err = -EEXIST;
		goto out;
	}
	st = dst_storage_create(name, alg, chunk, rmin, rmax);
	if (!st) {
		err = -ENOMEM;
		goto out;
	}
	if (bitmap)
		strscpy(st->bitmap, bitmap, sizeof(st->bitmap));
	pr_debug("storage %s created (dst%u, %s)\n", st->name, st->id,
		 alg->name);
	dst_genl_notify(st, DST_CMD_STORAGE_NEW);
out:
	dst_storage_unlock();
	return err;
}

/*
 * Find the storage a request names, with dst_storage_lock() held; @tb
 * gets the attributes of its DST_A_STORAGE.
 */
static struct dst_storage *dst_genl_storage(struct genl_info *info,
					    struct nlattr **tb, int *err)
{
	struct dst_storage *st;

	*err = dst_genl_parse_storage(info, tb);
	if (*err)
		return NULL;
	st = dst_storage_find(nla_data(tb[DST_STORAGE_A_NAME]));
	if (!st) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_STORAGE_A_NAME],
				    "no such storage");
		*err = -ENOENT;
	}
	return st;
}

/*
 * Find the storage a request names, as dst_genl_storage(), and claim it
 * for a command that runs without dst_storage_lock() (start, stop,
 * delete, node removal: add_disk(), drains and teardowns may take long,
 * and status and the other storages must not wait for them).  A claimed
 * storage is neither changed by another command nor freed.
 */
static struct dst_storage *dst_genl_storage_claim(struct genl_info *info,
						  struct nlattr **tb, int *err)
{
	struct dst_storage *st;

	dst_storage_lock();
	st = dst_genl_storage(info, tb, err);
	if (st && dst_genl_idle(info, st, err))
		st = NULL;
	if (st)
		st->busy = true;
	dst_storage_unlock();
	return st;
}

static void dst_genl_storage_release(struct dst_storage *st)
{
	dst_storage_lock();
	st->busy = false;
	dst_storage_unlock();
}

static int dst_genl_storage_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	struct dst_storage *st;
	const char *why;
	int err;

	st = dst_genl_storage_claim(info, tb, &err);
	if (!st)
		return err;
	if (st->state == DST_STORAGE_RUNNING) {
		err = dst_storage_stop(st, &why);
		if (err) {
			dst_genl_storage_release(st);
			dst_genl_why(info, why);
			return err;
		}
	}
	dst_storage_lock();
	dst_genl_notify(st, DST_CMD_STORAGE_DEL);
	dst_storage_unlist(st);
	dst_storage_unlock();
	dst_storage_destroy(st);
	return 0;
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

	reply = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
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

static int dst_genl_storage_start(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	struct dst_storage *st;
	const char *why = NULL;
	int err;

	st = dst_genl_storage_claim(info, tb, &err);
	if (!st)
		return err;
	err = dst_storage_start(st, nla_get_flag(tb[DST_STORAGE_A_ASSUME_CLEAN]),
				&why);
	dst_genl_storage_release(st);
	if (err)
		dst_genl_why(info, why);
	return err;
}

static int dst_genl_storage_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	struct dst_storage *st;
	const char *why = NULL;
	int err;

	st = dst_genl_storage_claim(info, tb, &err);
	if (!st)
		return err;
	err = dst_storage_stop(st, &why);
	dst_genl_storage_release(st);
	if (err)
		dst_genl_why(info, why);
	return err;
}

/*
 * Copy a socket address attribute: a sockaddr_in or sockaddr_in6 with a
 * port, told apart by length.
 */
static int dst_genl_addr(struct genl_info *info, const struct nlattr *attr,
			 struct sockaddr_storage *ss, int *len)
{
	const struct sockaddr_in6 *sin6 = nla_data(attr);
	const struct sockaddr_in *sin = nla_data(attr);

	*len = nla_len(attr);
	if (!((*len == sizeof(*sin) && sin->sin_family == AF_INET &&
	       sin->sin_port) ||
	      (*len == sizeof(*sin6) && sin6->sin6_family == AF_INET6 &&
	       sin6->sin6_port))) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "not an IPv4 or IPv6 address with a port");
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, nla_data(attr), *len);
	return 0;
}

static char *dst_genl_tls_path(struct nlattr *attr)
{
	return attr ? nla_data(attr) : NULL;
}

/*
 * The TLS that a node (@client) or an export asks for, pointing into the
 * request: PSK takes the secret, X.509 absolute paths of PEM files.  An
 * export needs its certificate and key, and with a CA asks the clients
 * for theirs; a node needs the CA and the name to check the export by,
 * and may have a certificate of its own.  0 with @tls->mode 0: none.
 */
static int dst_genl_tls(struct genl_info *info, struct nlattr **tb,
			const struct dst_tls_attrs *a,
			const struct nlattr *secret, bool client,
			struct dst_tls *tls)
{
	const int files[] = { a->cert, a->key, a->ca, a->name };
	int i;

	memset(tls, 0, sizeof(*tls));
	if (tb[a->mode])
		tls->mode = nla_get_u32(tb[a->mode]);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (!files[i] || !tb[files[i]])
			continue;
		if (tls->mode != DST_TLS_X509) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[files[i]],
					    "certificates and names are for TLS with X.509");
			return -EINVAL;
		}
		if (files[i] != a->name && *(char *)nla_data(tb[files[i]]) != '/') {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[files[i]],
					    "not an absolute path");
			return -EINVAL;
		}
	}
	tls->cert = dst_genl_tls_path(tb[a->cert]);
	tls->key = dst_genl_tls_path(tb[a->key]);
	tls->ca = dst_genl_tls_path(tb[a->ca]);
	if (a->name)
		tls->name = dst_genl_tls_path(tb[a->name]);
	if (tb[a->cipher]) {
		if (!tls->mode) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[a->cipher],
					    "a cipher is for TLS");
			return -EINVAL;
		}
		tls->cipher = nla_get_u32(tb[a->cipher]);
	}
	switch (tls->mode) {
	case DST_TLS_PSK:
		if (!secret) {
			NL_SET_ERR_MSG(info->extack, "TLS with PSK needs a secret");
			return -EINVAL;
		}
		tls->psk = nla_data(secret);
		tls->psk_len = nla_len(secret);
		/* Its suite's hash is SHA-384; the PSK is a SHA-256 one. */
		if (tls->cipher == DST_TLS_CIPHER_AES_256_GCM) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[a->cipher],
					    "AES-256-GCM is for TLS with X.509 (a PSK goes with SHA-256)");
			return -EINVAL;
		}
		break;
	case DST_TLS_X509:
		if (!tls->cert != !tls->key) {
			NL_SET_ERR_MSG(info->extack,
				       "a certificate needs its key, and the reverse");
			return -EINVAL;
		}
		if (!client && !tls->cert) {
			NL_SET_ERR_MSG(info->extack,
				       "TLS with X.509 needs the export's certificate and key");
			return -EINVAL;
		}
		if (client && (!tls->ca || !tls->name || !*tls->name)) {
			NL_SET_ERR_MSG(info->extack,
				       "TLS with X.509 needs the CA and the name to check the export by");
			return -EINVAL;
		}
		break;
	}
	return 0;
}

/* Reply to NODE_ADD with the id of the new node. */
static int dst_genl_node_reply(struct genl_info *info, u32 id)
{
	struct sk_buff *reply;
	struct nlattr *nest;
	void *hdr;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	hdr = genlmsg_put_reply(reply, info, &dst_genl_family, 0,
				DST_CMD_NODE_ADD);
	if (!hdr)
		goto err;
	nest = nla_nest_start(reply, DST_A_NODE);
	if (!nest || nla_put_u32(reply, DST_NODE_A_ID, id))
		goto err;
	nla_nest_end(reply, nest);
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);

err:
	nlmsg_free(reply);
	return -EMSGSIZE;
}

static int dst_genl_node_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *stb[DST_STORAGE_A_MAX + 1];
	struct nlattr *tb[DST_NODE_A_MAX + 1];
	struct nlattr *nest = info->attrs[DST_A_NODE];
	struct sockaddr_storage addr;
	struct dst_node *node = NULL;
	struct dst_storage *st;
	struct dst_remote_opts opts = {};
	const char *why = NULL, *path = NULL;
	struct dst_tls tls;
	u32 type, id = 0, write_behind = 0;
	bool write_mostly;
	int err, len = 0;

	if (GENL_REQ_ATTR_CHECK(info, DST_A_NODE))
		return -EINVAL;
	err = nla_parse_nested(tb, DST_NODE_A_MAX, nest, dst_node_policy,
			       info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_NODE_A_TYPE))
		return -EINVAL;
	type = nla_get_u32(tb[DST_NODE_A_TYPE]);
	if (type == DST_NODE_LOCAL) {
		if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_NODE_A_PATH))
			return -EINVAL;
		path = nla_data(tb[DST_NODE_A_PATH]);
		if (!*path || strlen(path) >= sizeof_field(struct dst_node, path)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_NODE_A_PATH],
					    "device path empty or too long");
			return -EINVAL;
		}
	} else {
		if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_NODE_A_ADDR))
			return -EINVAL;
		err = dst_genl_addr(info, tb[DST_NODE_A_ADDR], &addr, &len);
		if (err)
			return err;
	}
	if (type == DST_NODE_LOCAL &&
	    (tb[DST_NODE_A_TIMEOUT] || tb[DST_NODE_A_DEAD_TIMEOUT] ||
	     tb[DST_NODE_A_RECONNECT_MAX] || tb[DST_NODE_A_SECRET] ||
	     tb[DST_NODE_A_INTEGRITY] || tb[DST_NODE_A_TLS])) {
		NL_SET_ERR_MSG(info->extack,
			       "timeouts, reconnects, secrets, integrity and TLS are for remote nodes");
		return -EINVAL;
	}
	write_mostly = nla_get_flag(tb[DST_NODE_A_WRITE_MOSTLY]);
	if (tb[DST_NODE_A_WRITE_BEHIND])
		write_behind = nla_get_u32(tb[DST_NODE_A_WRITE_BEHIND]);
	if (write_behind && !write_mostly) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_NODE_A_WRITE_BEHIND],
				    "write-behind is for a write-mostly leg");
		return -EINVAL;
	}
	if (tb[DST_NODE_A_SECRET]) {
		opts.secret = nla_data(tb[DST_NODE_A_SECRET]);
		opts.secret_len = nla_len(tb[DST_NODE_A_SECRET]);
	}
	opts.integrity = nla_get_flag(tb[DST_NODE_A_INTEGRITY]);
	err = dst_genl_tls(info, tb, &dst_node_tls_attrs, tb[DST_NODE_A_SECRET], true,
			   &tls);
	if (err)
		return err;
	if (tls.mode)
		opts.tls = &tls;
	err = dst_genl_seconds(info, tb[DST_NODE_A_TIMEOUT], DST_MAX_TIMEOUT,
			       "timeout longer than a day", &opts.timeout) ?:
	      dst_genl_seconds(info, tb[DST_NODE_A_DEAD_TIMEOUT],
			       DST_MAX_TIMEOUT, "dead timeout longer than a day",
			       &opts.dead_timeout) ?:
	      dst_genl_seconds(info, tb[DST_NODE_A_RECONNECT_MAX],
			       DST_MAX_RECONNECT,
			       "reconnect interval longer than an hour",
			       &opts.reconnect_max);
	if (err)
		return err;

	/* A storage that does not exist is said before any connect. */
	dst_storage_lock();
	dst_genl_storage(info, stb, &err);
	dst_storage_unlock();
	if (err)
		return err;
	if (type != DST_NODE_LOCAL) {
		/*
		 * Connect and handshake with no lock held: a slow or
		 * unreachable export must not stall other commands.
		 */
		node = dst_node_create_remote(&addr, len, &opts, &why);
		if (IS_ERR(node)) {
			dst_genl_why(info, why);
			return PTR_ERR(node);
		}
	}

	dst_storage_lock();
	st = dst_genl_storage(info, stb, &err);
	if (!st || dst_genl_idle(info, st, &err))
		goto out;
	if (type == DST_NODE_LOCAL) {
		node = dst_node_create_local(path, &why);
		if (IS_ERR(node)) {
			err = PTR_ERR(node);
			node = NULL;
			goto out;
		}
	}
	if (write_mostly && !st->alg->chunked) {
		why = "write-mostly is for the legs of a mirror";
		err = -EINVAL;
		goto out;
	}
	node->write_mostly = write_mostly;
	node->write_behind = write_behind;
	err = dst_storage_add_node(st, node, &why);
	if (!err) {
		id = node->id;
		node = NULL;
		pr_debug("storage %s: node%u added\n", st->name, id);
	}
out:
	dst_storage_unlock();
	/* A remote node's teardown waits for its thread: not under the lock. */
	if (node)
		dst_node_destroy(node);
	if (err) {
		dst_genl_why(info, why);
		return err;
	}
	return dst_genl_node_reply(info, id);
}

static int dst_genl_node_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *stb[DST_STORAGE_A_MAX + 1];
	struct nlattr *tb[DST_NODE_A_MAX + 1];
	struct nlattr *nest = info->attrs[DST_A_NODE];
	struct dst_storage *st;
	struct dst_node *node;
	const char *why = NULL;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, DST_A_NODE))
		return -EINVAL;
	err = nla_parse_nested(tb, DST_NODE_A_MAX, nest, dst_node_policy,
			       info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_NODE_A_ID))
		return -EINVAL;

	st = dst_genl_storage_claim(info, stb, &err);
	if (!st)
		return err;
	dst_storage_lock();
	node = dst_storage_node(st, nla_get_u32(tb[DST_NODE_A_ID]));
	dst_storage_unlock();
	if (!node) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_NODE_A_ID],
				    "no such node in the storage");
		err = -ENOENT;
	} else {
		err = dst_storage_del_node(st, node, &why);
	}
	dst_genl_storage_release(st);
	if (err)
		dst_genl_why(info, why);
	return err;
}

static int dst_genl_export_name(struct genl_info *info, struct nlattr **tb)
{
	struct nlattr *nest = info->attrs[DST_A_EXPORT];
	int err;

	if (GENL_REQ_ATTR_CHECK(info, DST_A_EXPORT))
		return -EINVAL;
	err = nla_parse_nested(tb, DST_EXPORT_A_MAX, nest, dst_export_policy,
			       info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_EXPORT_A_NAME))
		return -EINVAL;
	if (!dst_name_valid(nla_data(tb[DST_EXPORT_A_NAME]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_EXPORT_A_NAME],
				    "invalid name (1-31 characters of A-Z a-z 0-9 _ . -, not starting with . or -)");
		return -EINVAL;
	}
	return 0;
}

static int dst_export_reply(struct sk_buff *skb, struct dst_export *exp,
			    u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &dst_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (dst_export_fill(skb, exp)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static void dst_genl_export_notify(struct dst_export *exp, u8 cmd)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(&dst_genl_family, &init_net, DST_MCGRP_EVENTS))
		return;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (dst_export_reply(skb, exp, 0, 0, 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_multicast(&dst_genl_family, skb, 0, DST_MCGRP_EVENTS,
			  GFP_KERNEL);
}

static int dst_genl_export_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *nest = info->attrs[DST_A_EXPORT];
	struct nlattr *tb[DST_EXPORT_A_MAX + 1];
	struct dst_export_opts opts = {};
	struct sockaddr_storage addr;
	struct dst_export *exp;
	struct dst_tls tls;
	const char *why = NULL;
	const char *path;
	int err, len;

	err = dst_genl_export_name(info, tb);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_EXPORT_A_DEVICE) ||
	    NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_EXPORT_A_ADDR))
		return -EINVAL;
	path = nla_data(tb[DST_EXPORT_A_DEVICE]);
	if (!*path || strlen(path) >= sizeof_field(struct dst_export, path)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_EXPORT_A_DEVICE],
				    "device path empty or too long");
		return -EINVAL;
	}
	err = dst_genl_addr(info, tb[DST_EXPORT_A_ADDR], &addr, &len);
	if (err)
		return err;
	opts.read_only = nla_get_flag(tb[DST_EXPORT_A_READ_ONLY]);
	opts.integrity = nla_get_flag(tb[DST_EXPORT_A_INTEGRITY]);
	opts.shared = nla_get_flag(tb[DST_EXPORT_A_SHARED]);
	if (tb[DST_EXPORT_A_SECRET]) {
		opts.secret = nla_data(tb[DST_EXPORT_A_SECRET]);
		opts.secret_len = nla_len(tb[DST_EXPORT_A_SECRET]);
	}
	err = dst_genl_tls(info, tb, &dst_export_tls_attrs, tb[DST_EXPORT_A_SECRET],
			   false, &tls);
	if (err)
		return err;
	if (tls.mode)
		opts.tls = &tls;

	dst_export_lock();
	if (dst_export_find(nla_data(tb[DST_EXPORT_A_NAME]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_EXPORT_A_NAME],
				    "already exists");
		err = -EEXIST;
		goto out;
	}
	if (tb[DST_EXPORT_A_ALLOW]) {
		opts.acl = dst_access_parse(tb[DST_EXPORT_A_ALLOW],
					    info->extack);
		if (IS_ERR(opts.acl)) {
			err = PTR_ERR(opts.acl);
			goto out;
		}
		if (dst_access_has_names(opts.acl) &&
		    (tls.mode != DST_TLS_X509 || !tls.ca)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_EXPORT_A_ALLOW],
					    "allow: certificate names need TLS with X.509 and a CA");
			dst_access_free(opts.acl);
			err = -EINVAL;
			goto out;
		}
	}
	exp = dst_export_create(nla_data(tb[DST_EXPORT_A_NAME]), path, &addr,
				len, &opts, &why, &err);
	if (exp)
		dst_genl_export_notify(exp, DST_CMD_EXPORT_NEW);
	else
		dst_genl_why(info, why);
out:
	dst_export_unlock();
	return err;
}

static int dst_genl_storage_resize(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	struct dst_storage *st;
	const char *why = NULL;
	int err;

	st = dst_genl_storage_claim(info, tb, &err);
	if (!st)
		return err;
	err = dst_storage_resize(st, nla_get_flag(tb[DST_STORAGE_A_ASSUME_CLEAN]),
				 &why);
	dst_genl_storage_release(st);
	if (err)
		dst_genl_why(info, why);
	return err;
}

static int dst_genl_storage_verify(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_STORAGE_A_MAX + 1];
	struct dst_storage *st;
	const char *why = NULL;
	int err;

	st = dst_genl_storage_claim(info, tb, &err);
	if (!st)
		return err;
	if (!st->alg->verify) {
		why = "only a mirror has copies to verify";
		err = -EOPNOTSUPP;
	} else if (st->state != DST_STORAGE_RUNNING) {
		why = "not running";
		err = -EINVAL;
	} else {
		err = st->alg->verify(st, nla_get_flag(tb[DST_STORAGE_A_REPAIR]),
				      &why);
	}
	dst_genl_storage_release(st);
	if (err)
		dst_genl_why(info, why);
	return err;
}

static int dst_genl_export_resize(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_EXPORT_A_MAX + 1];
	struct dst_export *exp;
	const char *why = NULL;
	int err;

	err = dst_genl_export_name(info, tb);
	if (err)
		return err;
	dst_export_lock();
	exp = dst_export_find(nla_data(tb[DST_EXPORT_A_NAME]));
	err = exp ? dst_export_resize(exp, &why) : -ENOENT;
	dst_export_unlock();
	if (!exp)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_EXPORT_A_NAME],
				    "no such export");
	else if (err)
		dst_genl_why(info, why);
	return err;
}

static int dst_genl_export_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_EXPORT_A_MAX + 1];
	struct dst_export *exp;
	int err;

	err = dst_genl_export_name(info, tb);
	if (err)
		return err;
	dst_export_lock();
	exp = dst_export_find(nla_data(tb[DST_EXPORT_A_NAME]));
	if (exp) {
		dst_genl_export_notify(exp, DST_CMD_EXPORT_DEL);
		dst_export_unlist(exp);
	}
	dst_export_unlock();
	if (!exp) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_EXPORT_A_NAME],
				    "no such export");
		return -ENOENT;
	}
	/* Its clients' I/O may take long: no lock is held meanwhile. */
	dst_export_destroy(exp);
	return 0;
}

static int dst_genl_export_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[DST_EXPORT_A_MAX + 1];
	struct dst_export *exp;
	struct sk_buff *reply;
	int err;

	err = dst_genl_export_name(info, tb);
	if (err)
		return err;
	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	dst_export_lock();
	exp = dst_export_find(nla_data(tb[DST_EXPORT_A_NAME]));
	if (!exp) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_EXPORT_A_NAME],
				    "no such export");
		err = -ENOENT;
	} else {
		err = dst_export_reply(reply, exp, info->snd_portid,
				       info->snd_seq, 0, DST_CMD_EXPORT_GET);
	}
	dst_export_unlock();

	if (err) {
		nlmsg_free(reply);
		return err;
	}
	return genlmsg_reply(reply, info);
}

/* cb->args[0] is the index of the next export to dump. */
static int dst_genl_export_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long index = cb->args[0];
	struct dst_export *exp;
	int err = 0;

	dst_export_lock();
	while ((exp = dst_export_next(&index))) {
		err = dst_export_reply(skb, exp, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       DST_CMD_EXPORT_GET);
		if (err)
			break;
		index++;
	}
	dst_export_unlock();

	cb->args[0] = index;
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* Whether a TLS agent listens for handshake requests. */
bool dst_genl_tls_agent(void)
{
	return genl_has_listeners(&dst_genl_family, &init_net, DST_MCGRP_TLS);
}

/* Tell the agents that the connection @id waits for its handshake. */
void dst_genl_tls_request(u32 id)
{
	struct nlattr *nest;
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(nla_total_size(nla_total_size(sizeof(u32))),
			  GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &dst_genl_family, 0, DST_CMD_TLS_REQUEST);
	if (!hdr)
		goto err;
	nest = nla_nest_start(skb, DST_A_TLS);
	if (!nest || nla_put_u32(skb, DST_TLS_A_ID, id))
		goto err;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&dst_genl_family, skb, 0, DST_MCGRP_TLS, GFP_KERNEL);
	return;
err:
	nlmsg_free(skb);
}

static int dst_genl_tls_accept(struct sk_buff *skb, struct genl_info *info)
{
	struct dst_tls_grant grant;
	struct sk_buff *reply;
	void *hdr;
	int err;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	hdr = genlmsg_put_reply(reply, info, &dst_genl_family, 0,
				DST_CMD_TLS_ACCEPT);
	err = hdr ? dst_tls_accept(reply, info->snd_portid, &grant) : -EMSGSIZE;
	if (err) {
		nlmsg_free(reply);
		if (err == -ENOENT)
			NL_SET_ERR_MSG(info->extack,
				       "no connection waits for a TLS handshake");
		return err;
	}
	genlmsg_end(reply, hdr);
	err = genlmsg_reply(reply, info);
	dst_tls_grant_end(&grant, !err);
	return err;
}

static int dst_genl_tls_done(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *nest = info->attrs[DST_A_TLS];
	struct nlattr *tb[DST_TLS_A_MAX + 1];
	int err;

	if (GENL_REQ_ATTR_CHECK(info, DST_A_TLS))
		return -EINVAL;
	err = nla_parse_nested(tb, DST_TLS_A_MAX, nest, dst_tls_policy,
			       info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_TLS_A_ID) ||
	    NL_REQ_ATTR_CHECK(info->extack, nest, tb, DST_TLS_A_STATUS))
		return -EINVAL;
	err = dst_tls_done(nla_get_u32(tb[DST_TLS_A_ID]), info->snd_portid,
			   -(int)nla_get_u32(tb[DST_TLS_A_STATUS]),
			   tb[DST_TLS_A_MESSAGE] ?
			   nla_data(tb[DST_TLS_A_MESSAGE]) : NULL);
	if (err == -EPERM)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_TLS_A_ID],
				    "another socket accepted this handshake");
	else if (err)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[DST_TLS_A_ID],
				    "no such handshake waits for its end");
	return err;
}

static const struct genl_small_ops dst_genl_ops[] = {
	{
		.cmd	= DST_CMD_INFO,
		.flags	= GENL_ADMIN_PERM,
		.internal_flags = DST_GENL_LOOK,
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
		.internal_flags = DST_GENL_LOOK,
		.doit	= dst_genl_storage_get,
		.dumpit	= dst_genl_storage_dump,
	},
	{
		.cmd	= DST_CMD_STORAGE_START,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_storage_start,
	},
	{
		.cmd	= DST_CMD_STORAGE_STOP,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_storage_stop,
	},
	{
		.cmd	= DST_CMD_NODE_ADD,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_node_add,
	},
	{
		.cmd	= DST_CMD_NODE_DEL,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_node_del,
	},
	{
		.cmd	= DST_CMD_EXPORT_NEW,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_export_new,
	},
	{
		.cmd	= DST_CMD_EXPORT_DEL,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_export_del,
	},
	{
		.cmd	= DST_CMD_EXPORT_GET,
		.flags	= GENL_ADMIN_PERM,
		.internal_flags = DST_GENL_LOOK,
		.doit	= dst_genl_export_get,
		.dumpit	= dst_genl_export_dump,
	},
	{
		.cmd	= DST_CMD_STORAGE_RESIZE,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_storage_resize,
	},
	{
		.cmd	= DST_CMD_EXPORT_RESIZE,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_export_resize,
	},
	{
		.cmd	= DST_CMD_STORAGE_VERIFY,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_storage_verify,
	},
	{
		.cmd	= DST_CMD_TLS_ACCEPT,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_tls_accept,
	},
	{
		.cmd	= DST_CMD_TLS_DONE,
		.flags	= GENL_ADMIN_PERM,
		.doit	= dst_genl_tls_done,
	},
};

static struct genl_family dst_genl_family __ro_after_init = {
	.name		= DST_GENL_NAME,
	.version	= DST_GENL_VERSION,
	.maxattr	= DST_A_MAX,
	.policy		= dst_policy,
	.module		= THIS_MODULE,
	/* dst's own locks; commands never hold genl_mutex while they wait. */
	.parallel_ops	= true,
	.pre_doit	= dst_genl_pre_doit,
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
