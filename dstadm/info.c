// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: storages, nodes and exports from the kernel's netlink replies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/genetlink.h>

#include "dstadm.h"
#include "nl.h"

struct attr_table {
	const struct nlattr **tb;
	unsigned int max;
};

static int attr_table_cb(const struct nlattr *attr, void *data)
{
	const struct attr_table *t = data;

	/* Attributes of a newer module are skipped, not misread. */
	if (mnl_attr_type_valid(attr, t->max) < 0)
		return MNL_CB_OK;
	t->tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

/* Fill @tb[0..@max] from the attributes nested in @nest. */
static int parse_nest(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned int max)
{
	struct attr_table t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	return mnl_attr_parse_nested(nest, attr_table_cb, &t) < 0 ? -1 : 0;
}

static int copy_str(char *dst, size_t len, const struct nlattr *attr)
{
	if (!attr || mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
	    strlen(mnl_attr_get_str(attr)) >= len)
		return -1;
	strcpy(dst, mnl_attr_get_str(attr));
	return 0;
}

/*
 * Read a u32 or u64 attribute into @v: -1 if it is missing but @required,
 * or malformed; left alone if it is missing and optional.
 */
static int get_u32(const struct nlattr *attr, uint32_t *v, bool required)
{
	if (!attr)
		return required ? -1 : 0;
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return -1;
	*v = mnl_attr_get_u32(attr);
	return 0;
}

/* An enum dst_tls_cipher into @v; -1 if malformed or unknown. */
static int get_cipher(const struct nlattr *attr, uint32_t *v)
{
	return get_u32(attr, v, false) < 0 || *v >= __DST_TLS_CIPHER_MAX ? -1 : 0;
}

/*
 * The TLS of a node or an export: @mode, then @nfiles attributes from
 * @files: the certificate, key, CA and (a node's) name, the uapi's order;
 * and @cipher.
 */
static int tls_parse(const struct nlattr *mode, const struct nlattr *const *files,
		     size_t nfiles, const struct nlattr *cipher, struct tls_args *t)
{
	char *const bufs[] = { t->cert, t->key, t->ca, t->name };
	uint32_t m = DST_TLS_NONE;
	size_t i;

	_Static_assert(DST_NODE_A_TLS_NAME == DST_NODE_A_TLS_CERT + 3 &&
		       DST_EXPORT_A_TLS_CA == DST_EXPORT_A_TLS_CERT + 2,
		       "TLS attributes in the uapi's order");
	if (get_u32(mode, &m, false) < 0 || m >= __DST_TLS_MODE_MAX ||
	    get_cipher(cipher, &t->cipher) < 0)
		return -1;
	t->on = m != DST_TLS_NONE;
	for (i = 0; i < nfiles && m == DST_TLS_X509; i++)
		if (files[i] && copy_str(bufs[i], DST_TLS_PATH_MAX, files[i]) < 0)
			return -1;
	return 0;
}

static int get_u64(const struct nlattr *attr, uint64_t *v, bool required)
{
	if (!attr)
		return required ? -1 : 0;
	if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
		return -1;
	*v = mnl_attr_get_u64(attr);
	return 0;
}

/* A flag attribute into @v; -1 if malformed. */
static int get_flag(const struct nlattr *attr, bool *v)
{
	*v = attr;
	return attr && mnl_attr_validate(attr, MNL_TYPE_FLAG) < 0 ? -1 : 0;
}

int sockaddr_attr_parse(const struct nlattr *attr, struct sockaddr_storage *ss,
			socklen_t *len)
{
	uint16_t plen;
	sa_family_t family;

	if (!attr)
		return -1;
	plen = mnl_attr_get_payload_len(attr);
	if (plen == sizeof(struct sockaddr_in))
		family = AF_INET;
	else if (plen == sizeof(struct sockaddr_in6))
		family = AF_INET6;
	else
		return -1;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, mnl_attr_get_payload(attr), plen);
	if (ss->ss_family != family)
		return -1;
	*len = plen;
	return 0;
}

int node_info_parse(const struct nlattr *nest, struct node_info *ni)
{
	const struct nlattr *tb[DST_NODE_A_MAX + 1];

	memset(ni, 0, sizeof(*ni));
	if (parse_nest(nest, tb, DST_NODE_A_MAX) < 0 ||
	    get_u32(tb[DST_NODE_A_ID], &ni->id, true) ||
	    get_u32(tb[DST_NODE_A_TYPE], &ni->type, true) ||
	    get_u32(tb[DST_NODE_A_STATE], &ni->state, true) ||
	    get_u32(tb[DST_NODE_A_INFLIGHT], &ni->inflight, false) ||
	    get_u32(tb[DST_NODE_A_TIMEOUT], &ni->timeout, false) ||
	    get_u32(tb[DST_NODE_A_DEAD_TIMEOUT], &ni->dead_timeout, false) ||
	    get_u32(tb[DST_NODE_A_RECONNECT_MAX], &ni->reconnect_max, false) ||
	    get_u32(tb[DST_NODE_A_RECONNECTS], &ni->reconnects, false) ||
	    get_u64(tb[DST_NODE_A_SIZE], &ni->size, false) ||
	    get_u64(tb[DST_NODE_A_READ_BYTES], &ni->read_bytes, false) ||
	    get_u64(tb[DST_NODE_A_WRITE_BYTES], &ni->write_bytes, false) ||
	    get_u64(tb[DST_NODE_A_CRC_ERRORS], &ni->crc_errors, false) ||
	    get_flag(tb[DST_NODE_A_AUTH], &ni->auth) ||
	    get_flag(tb[DST_NODE_A_INTEGRITY], &ni->integrity) ||
	    tls_parse(tb[DST_NODE_A_TLS], &tb[DST_NODE_A_TLS_CERT], 4,
		      tb[DST_NODE_A_TLS_CIPHER], &ni->tls) ||
	    get_cipher(tb[DST_NODE_A_TLS_CIPHER_USED], &ni->tls_cipher_used) ||
	    get_flag(tb[DST_NODE_A_WRITE_MOSTLY], &ni->la.write_mostly) ||
	    get_u32(tb[DST_NODE_A_WRITE_BEHIND], &ni->la.write_behind, false) ||
	    get_u32(tb[DST_NODE_A_BEHIND], &ni->behind, false))
		return -1;
	ni->has_behind = tb[DST_NODE_A_BEHIND];
	/* The node's target: required for the types known here. */
	if ((tb[DST_NODE_A_ADDR] || ni->type == DST_NODE_REMOTE) &&
	    sockaddr_attr_parse(tb[DST_NODE_A_ADDR], &ni->addr, &ni->addr_len) < 0)
		return -1;
	if ((tb[DST_NODE_A_PATH] || ni->type == DST_NODE_LOCAL) &&
	    copy_str(ni->path, sizeof(ni->path), tb[DST_NODE_A_PATH]) < 0)
		return -1;
	/* A leg of a running mirror: all three or none. */
	ni->has_sync = tb[DST_NODE_A_SYNC] || tb[DST_NODE_A_REGIONS] ||
		       tb[DST_NODE_A_DIRTY];
	if (ni->has_sync &&
	    (get_u32(tb[DST_NODE_A_SYNC], &ni->sync, true) ||
	     get_u64(tb[DST_NODE_A_REGIONS], &ni->regions, true) ||
	     get_u64(tb[DST_NODE_A_DIRTY], &ni->dirty, true) ||
	     ni->dirty > ni->regions))
		return -1;
	return 0;
}

void storage_info_free(struct storage_info *si)
{
	free(si->nodes);
	si->nodes = NULL;
	si->nnodes = 0;
}

/* The DST_A_NODE nests of a DST_STORAGE_A_NODES nest. */
static int nodes_parse(const struct nlattr *nodes, struct storage_info *si)
{
	const struct nlattr *attr;
	size_t n = 0;

	mnl_attr_for_each_nested(attr, nodes)
		if (mnl_attr_get_type(attr) == DST_A_NODE)
			n++;
	if (!n)
		return 0;
	si->nodes = calloc(n, sizeof(*si->nodes));
	if (!si->nodes)
		return -1;
	mnl_attr_for_each_nested(attr, nodes) {
		if (mnl_attr_get_type(attr) != DST_A_NODE)
			continue;
		if (si->nnodes >= n ||
		    node_info_parse(attr, &si->nodes[si->nnodes]) < 0)
			return -1;
		si->nnodes++;
	}
	return 0;
}

/* Fill @si from a DST_A_STORAGE nest; -1 if it is malformed. */
int storage_info_parse(const struct nlattr *nest, struct storage_info *si)
{
	const struct nlattr *tb[DST_STORAGE_A_MAX + 1];

	memset(si, 0, sizeof(*si));
	if (parse_nest(nest, tb, DST_STORAGE_A_MAX) < 0 ||
	    copy_str(si->name, sizeof(si->name), tb[DST_STORAGE_A_NAME]) ||
	    copy_str(si->alg, sizeof(si->alg), tb[DST_STORAGE_A_ALG]) ||
	    get_u32(tb[DST_STORAGE_A_ID], &si->id, true) ||
	    get_u32(tb[DST_STORAGE_A_STATE], &si->state, true) ||
	    get_u64(tb[DST_STORAGE_A_SIZE], &si->size, true) ||
	    get_u32(tb[DST_STORAGE_A_CHUNK_SIZE], &si->chunk_size, false) ||
	    get_u32(tb[DST_STORAGE_A_RESYNC_MIN], &si->resync_min, false) ||
	    get_u32(tb[DST_STORAGE_A_RESYNC_MAX], &si->resync_max, false) ||
	    get_u64(tb[DST_STORAGE_A_RESYNC_BYTES], &si->resync_bytes, false) ||
	    get_u64(tb[DST_STORAGE_A_RESYNC_RATE], &si->resync_rate, false) ||
	    get_u64(tb[DST_STORAGE_A_RESYNC_LEFT], &si->resync_left, false) ||
	    (tb[DST_STORAGE_A_BITMAP] &&
	     copy_str(si->bitmap, sizeof(si->bitmap), tb[DST_STORAGE_A_BITMAP])) ||
	    get_u32(tb[DST_STORAGE_A_STARTED], &si->started, false) ||
	    get_u64(tb[DST_STORAGE_A_BITMAP_REGIONS], &si->bitmap_regions, false) ||
	    get_u64(tb[DST_STORAGE_A_MISMATCHES], &si->mismatches, false) ||
	    get_u64(tb[DST_STORAGE_A_VERIFY_LEFT], &si->verify_left, false) ||
	    get_flag(tb[DST_STORAGE_A_VERIFY_REPAIR], &si->verify_repair))
		return -1;
	si->has_verify = tb[DST_STORAGE_A_MISMATCHES];
	si->has_resync = tb[DST_STORAGE_A_RESYNC_BYTES];
	si->has_started = tb[DST_STORAGE_A_STARTED];
	si->has_bitmap_regions = tb[DST_STORAGE_A_BITMAP_REGIONS];
	if (tb[DST_STORAGE_A_NODES] && nodes_parse(tb[DST_STORAGE_A_NODES], si) < 0) {
		storage_info_free(si);
		return -1;
	}
	return 0;
}

/* An export's DST_EXPORT_A_ALLOW into @l. */
static int allow_parse(const struct nlattr *nest, struct allow_list *l)
{
	const struct nlattr *tb[DST_ALLOW_A_MAX + 1], *attr;
	struct allow_entry *e;
	uint16_t len;

	mnl_attr_for_each_nested(attr, nest) {
		if (l->n == DST_ALLOW_MAX || parse_nest(attr, tb, DST_ALLOW_A_MAX) < 0 ||
		    !tb[DST_ALLOW_A_ADDR] || !tb[DST_ALLOW_A_PREFIX] ||
		    mnl_attr_validate(tb[DST_ALLOW_A_PREFIX], MNL_TYPE_U8) < 0)
			return -1;
		e = &l->v[l->n++];
		len = mnl_attr_get_payload_len(tb[DST_ALLOW_A_ADDR]);
		if (len != 4 && len != 16)
			return -1;
		e->family = len == 4 ? AF_INET : AF_INET6;
		memcpy(e->addr, mnl_attr_get_payload(tb[DST_ALLOW_A_ADDR]), len);
		e->prefix = mnl_attr_get_u8(tb[DST_ALLOW_A_PREFIX]);
		if (e->prefix > len * 8 || get_flag(tb[DST_ALLOW_A_READ_ONLY], &e->read_only) ||
		    (tb[DST_ALLOW_A_NAME] &&
		     copy_str(e->name, sizeof(e->name), tb[DST_ALLOW_A_NAME]) < 0))
			return -1;
	}
	return 0;
}

/* An export's DST_EXPORT_A_CLIENT_LIST: the first DST_CLIENT_LIST_MAX. */
static int client_list_parse(const struct nlattr *nest, struct export_info *ei)
{
	const struct nlattr *tb[DST_CLIENT_A_MAX + 1], *attr;
	struct client_info *c;

	mnl_attr_for_each_nested(attr, nest) {
		if (ei->nclient == DST_CLIENT_LIST_MAX)
			break;
		c = &ei->client[ei->nclient++];
		if (parse_nest(attr, tb, DST_CLIENT_A_MAX) < 0 ||
		    sockaddr_attr_parse(tb[DST_CLIENT_A_ADDR], &c->addr, &c->addr_len) < 0 ||
		    get_flag(tb[DST_CLIENT_A_READ_ONLY], &c->read_only) ||
		    get_flag(tb[DST_CLIENT_A_AUTH], &c->auth) ||
		    get_flag(tb[DST_CLIENT_A_INTEGRITY], &c->integrity) ||
		    get_flag(tb[DST_CLIENT_A_TLS], &c->tls) ||
		    get_cipher(tb[DST_CLIENT_A_TLS_CIPHER], &c->tls_cipher))
			return -1;
	}
	return 0;
}

/* Fill @ei from a DST_A_EXPORT nest; -1 if it is malformed. */
int export_info_parse(const struct nlattr *nest, struct export_info *ei)
{
	const struct nlattr *tb[DST_EXPORT_A_MAX + 1];

	memset(ei, 0, sizeof(*ei));
	if (parse_nest(nest, tb, DST_EXPORT_A_MAX) < 0 ||
	    copy_str(ei->name, sizeof(ei->name), tb[DST_EXPORT_A_NAME]) ||
	    copy_str(ei->device, sizeof(ei->device), tb[DST_EXPORT_A_DEVICE]) ||
	    sockaddr_attr_parse(tb[DST_EXPORT_A_ADDR], &ei->addr, &ei->addr_len) ||
	    get_u64(tb[DST_EXPORT_A_SIZE], &ei->size, false) ||
	    get_u32(tb[DST_EXPORT_A_CLIENTS], &ei->clients, false) ||
	    get_u64(tb[DST_EXPORT_A_REFUSED], &ei->refused, false) ||
	    get_u64(tb[DST_EXPORT_A_DENIED], &ei->denied, false) ||
	    get_u64(tb[DST_EXPORT_A_AUTH_FAILED], &ei->auth_failed, false) ||
	    get_u64(tb[DST_EXPORT_A_CRC_ERRORS], &ei->crc_errors, false) ||
	    get_flag(tb[DST_EXPORT_A_READ_ONLY], &ei->read_only) ||
	    get_flag(tb[DST_EXPORT_A_AUTH], &ei->auth) ||
	    get_flag(tb[DST_EXPORT_A_INTEGRITY], &ei->integrity) ||
	    tls_parse(tb[DST_EXPORT_A_TLS], &tb[DST_EXPORT_A_TLS_CERT], 3,
		      tb[DST_EXPORT_A_TLS_CIPHER], &ei->tls) ||
	    get_flag(tb[DST_EXPORT_A_SHARED], &ei->shared))
		return -1;
	ei->has_allow = tb[DST_EXPORT_A_ALLOW];
	if ((ei->has_allow && allow_parse(tb[DST_EXPORT_A_ALLOW], &ei->allow) < 0) ||
	    (tb[DST_EXPORT_A_CLIENT_LIST] && client_list_parse(tb[DST_EXPORT_A_CLIENT_LIST], ei) < 0))
		return -1;
	return 0;
}

void storage_list_free(struct storage_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		storage_info_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int storage_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct storage_list *l = data;
	const struct nlattr *attr;
	struct storage_info *v;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != DST_A_STORAGE)
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 16;
			v = reallocarray(l->v, l->cap, sizeof(*v));
			if (!v)
				return MNL_CB_ERROR;
			l->v = v;
		}
		if (storage_info_parse(attr, &l->v[l->n]) < 0) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		l->n++;
	}
	return MNL_CB_OK;
}

int export_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct export_list *l = data;
	const struct nlattr *attr;
	struct export_info *v;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != DST_A_EXPORT)
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 8;
			v = reallocarray(l->v, l->cap, sizeof(*v));
			if (!v)
				return MNL_CB_ERROR;
			l->v = v;
		}
		if (export_info_parse(attr, &l->v[l->n]) < 0) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		l->n++;
	}
	return MNL_CB_OK;
}
