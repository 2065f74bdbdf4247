// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - state in sysfs, under /sys/block/dstN/dst/.
 *
 *   dst/name, dst/algorithm
 *   dst/nodeN/{type,state,size,read_bytes,write_bytes}
 *   dst/nodeN/path of a local node
 *   dst/nodeN/{address,inflight,timeout} of a remote node
 *   and the files of the storage's algorithm in both
 *
 * The directories exist while the storage runs.  They are small kobjects
 * of their own that point at the storage and its nodes; those outlive them,
 * since a storage stops (and removes them) before its nodes go.
 */
#include <linux/blkdev.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "dst.h"

struct dst_kobj {
	struct kobject kobj;
	struct dst_storage *st;
	struct dst_node *node;
};

#define to_dst_kobj(k) container_of(k, struct dst_kobj, kobj)

/* For the show() of an algorithm's files. */
struct dst_storage *dst_kobj_storage(struct kobject *kobj)
{
	return to_dst_kobj(kobj)->st;
}

struct dst_node *dst_kobj_node(struct kobject *kobj)
{
	return to_dst_kobj(kobj)->node;
}

static void dst_kobj_release(struct kobject *kobj)
{
	kfree(to_dst_kobj(kobj));
}

static ssize_t name_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_dst_kobj(kobj)->st->name);
}

static ssize_t algorithm_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_dst_kobj(kobj)->st->alg->name);
}

static struct kobj_attribute dst_attr_name = __ATTR_RO(name);
static struct kobj_attribute dst_attr_algorithm = __ATTR_RO(algorithm);

static struct attribute *dst_storage_attrs[] = {
	&dst_attr_name.attr,
	&dst_attr_algorithm.attr,
	NULL,
};
ATTRIBUTE_GROUPS(dst_storage);

static const char *const dst_node_types[] = {
	[DST_NODE_LOCAL] = "local",
	[DST_NODE_REMOTE] = "remote",
};

static const char *const dst_node_states[] = {
	[DST_NODE_CONNECTED] = "connected",
	[DST_NODE_DEAD] = "dead",
	[DST_NODE_RECONNECTING] = "reconnecting",
};

static ssize_t type_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  dst_node_types[to_dst_kobj(kobj)->node->type]);
}

static ssize_t address_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct dst_node *node = to_dst_kobj(kobj)->node;
	int len;

	return sysfs_emit(buf, "%pISpc\n", dst_remote_addr(node->remote, &len));
}

static ssize_t path_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_dst_kobj(kobj)->node->path);
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  dst_node_states[dst_node_state(to_dst_kobj(kobj)->node)]);
}

static ssize_t size_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_dst_kobj(kobj)->node->size);
}

static ssize_t inflight_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  dst_remote_inflight(to_dst_kobj(kobj)->node->remote));
}

static ssize_t read_bytes_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_dst_kobj(kobj)->node->read_bytes));
}

static ssize_t write_bytes_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_dst_kobj(kobj)->node->write_bytes));
}

static ssize_t timeout_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct dst_remote_opts opts;

	dst_remote_get_opts(to_dst_kobj(kobj)->node->remote, &opts);
	return sysfs_emit(buf, "%u\n", opts.timeout);
}

static ssize_t dead_timeout_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	struct dst_remote_opts opts;

	dst_remote_get_opts(to_dst_kobj(kobj)->node->remote, &opts);
	return sysfs_emit(buf, "%u\n", opts.dead_timeout);
}

static ssize_t reconnects_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  dst_remote_reconnects(to_dst_kobj(kobj)->node->remote));
}

/* "crc32c" or "none"; the secret is never shown, only whether there is one. */
static ssize_t integrity_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	struct dst_remote_opts opts;

	dst_remote_get_opts(to_dst_kobj(kobj)->node->remote, &opts);
	return sysfs_emit(buf, "%s\n", opts.integrity ? "crc32c" : "none");
}

static ssize_t secret_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  dst_remote_auth(to_dst_kobj(kobj)->node->remote) ?
			  "yes" : "no");
}

static ssize_t crc_errors_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  dst_remote_crc_errors(to_dst_kobj(kobj)->node->remote));
}

static struct kobj_attribute dst_attr_type = __ATTR_RO(type);
static struct kobj_attribute dst_attr_address = __ATTR_RO(address);
static struct kobj_attribute dst_attr_path = __ATTR_RO(path);
static struct kobj_attribute dst_attr_state = __ATTR_RO(state);
static struct kobj_attribute dst_attr_size = __ATTR_RO(size);
static struct kobj_attribute dst_attr_inflight = __ATTR_RO(inflight);
static struct kobj_attribute dst_attr_read_bytes = __ATTR_RO(read_bytes);
static struct kobj_attribute dst_attr_write_bytes = __ATTR_RO(write_bytes);
static struct kobj_attribute dst_attr_timeout = __ATTR_RO(timeout);
static struct kobj_attribute dst_attr_dead_timeout = __ATTR_RO(dead_timeout);
static struct kobj_attribute dst_attr_reconnects = __ATTR_RO(reconnects);
static struct kobj_attribute dst_attr_integrity = __ATTR_RO(integrity);
static struct kobj_attribute dst_attr_secret = __ATTR_RO(secret);
static struct kobj_attribute dst_attr_crc_errors = __ATTR_RO(crc_errors);

static struct attribute *dst_node_attrs[] = {
	&dst_attr_type.attr,
	&dst_attr_address.attr,
	&dst_attr_path.attr,
	&dst_attr_state.attr,
	&dst_attr_size.attr,
	&dst_attr_inflight.attr,
	&dst_attr_read_bytes.attr,
	&dst_attr_write_bytes.attr,
	&dst_attr_timeout.attr,
	&dst_attr_dead_timeout.attr,
	&dst_attr_reconnects.attr,
	&dst_attr_integrity.attr,
	&dst_attr_secret.attr,
	&dst_attr_crc_errors.attr,
	NULL,
};

/* A local node has a path; a remote one an address and a connection. */
static umode_t dst_node_attr_visible(struct kobject *kobj,
				     struct attribute *attr, int n)
{
	bool remote = to_dst_kobj(kobj)->node->remote;

	if (attr == &dst_attr_path.attr)
		return remote ? 0 : attr->mode;
	if (attr == &dst_attr_address.attr || attr == &dst_attr_inflight.attr ||
	    attr == &dst_attr_timeout.attr ||
	    attr == &dst_attr_dead_timeout.attr ||
	    attr == &dst_attr_reconnects.attr ||
	    attr == &dst_attr_integrity.attr || attr == &dst_attr_secret.attr ||
	    attr == &dst_attr_crc_errors.attr)
		return remote ? attr->mode : 0;
	return attr->mode;
}

static const struct attribute_group dst_node_group = {
	.attrs		= dst_node_attrs,
	.is_visible	= dst_node_attr_visible,
};

static const struct attribute_group *dst_node_groups[] = {
	&dst_node_group,
	NULL,
};

static const struct kobj_type dst_storage_ktype = {
	.release	= dst_kobj_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= dst_storage_groups,
};

static const struct kobj_type dst_node_ktype = {
	.release	= dst_kobj_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= dst_node_groups,
};

static struct kobject *dst_kobj_add(const struct kobj_type *ktype,
				    struct kobject *parent,
				    struct dst_storage *st,
				    struct dst_node *node, const char *name,
				    const struct attribute_group *alg_group)
{
	struct dst_kobj *dk;

	dk = kzalloc(sizeof(*dk), GFP_KERNEL);
	if (!dk)
		return NULL;
	dk->st = st;
	dk->node = node;
	if (kobject_init_and_add(&dk->kobj, ktype, parent, "%s", name))
		goto err;
	if (alg_group && sysfs_create_group(&dk->kobj, alg_group)) {
		kobject_del(&dk->kobj);
		goto err;
	}
	return &dk->kobj;

err:
	kobject_put(&dk->kobj);
	return NULL;
}

static void dst_kobj_del(struct kobject **kobj)
{
	if (*kobj) {
		kobject_del(*kobj);
		kobject_put(*kobj);
		*kobj = NULL;
	}
}

/* Make dst/nodeN of @node in a running storage. */
int dst_sysfs_add_node(struct dst_storage *st, struct dst_node *node)
{
	char name[16];

	snprintf(name, sizeof(name), "node%u", node->id);
	node->kobj = dst_kobj_add(&dst_node_ktype, st->kobj, st, node, name,
				  st->alg->node_group);
	return node->kobj ? 0 : -ENOMEM;
}

/* Remove it; no show() of it runs any more once this returns. */
void dst_sysfs_del_node(struct dst_node *node)
{
	dst_kobj_del(&node->kobj);
}

/* Make dst/ and one directory per node under the running disk. */
int dst_sysfs_add(struct dst_storage *st)
{
	struct dst_node *node;

	st->kobj = dst_kobj_add(&dst_storage_ktype,
				&disk_to_dev(st->disk)->kobj, st, NULL, "dst",
				st->alg->storage_group);
	if (!st->kobj)
		return -ENOMEM;
	list_for_each_entry(node, &st->nodes, list) {
		if (dst_sysfs_add_node(st, node)) {
			dst_sysfs_del(st);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Remove them all. */
void dst_sysfs_del(struct dst_storage *st)
{
	struct dst_node *node;

	list_for_each_entry(node, &st->nodes, list)
		dst_sysfs_del_node(node);
	dst_kobj_del(&st->kobj);
}
