// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: show storages, their nodes and exports, for people and as JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <linux/genetlink.h>

#include "dstadm.h"
#include "nl.h"

static const char *const storage_states[] = {
	[DST_STORAGE_STOPPED] = "stopped",
	[DST_STORAGE_RUNNING] = "running",
};

const char *storage_state_name(uint32_t state)
{
	if (state < sizeof(storage_states) / sizeof(storage_states[0]) &&
	    storage_states[state])
		return storage_states[state];
	return "unknown";
}

static const char *const node_types[] = {
	[DST_NODE_LOCAL] = "local",
	[DST_NODE_REMOTE] = "remote",
};

const char *node_type_name(uint32_t type)
{
	if (type < sizeof(node_types) / sizeof(node_types[0]) && node_types[type])
		return node_types[type];
	return "unknown";
}

static const char *const node_states[] = {
	[DST_NODE_CONNECTED] = "connected",
	[DST_NODE_DEAD] = "dead",
};

const char *node_state_name(uint32_t state)
{
	if (state < sizeof(node_states) / sizeof(node_states[0]) && node_states[state])
		return node_states[state];
	return "unknown";
}

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

static int get_u64(const struct nlattr *attr, uint64_t *v, bool required)
{
	if (!attr)
		return required ? -1 : 0;
	if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
		return -1;
	*v = mnl_attr_get_u64(attr);
	return 0;
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
	    get_u64(tb[DST_NODE_A_SIZE], &ni->size, false) ||
	    get_u64(tb[DST_NODE_A_READ_BYTES], &ni->read_bytes, false) ||
	    get_u64(tb[DST_NODE_A_WRITE_BYTES], &ni->write_bytes, false))
		return -1;
	/* The node's target: required for the types known here. */
	if ((tb[DST_NODE_A_ADDR] || ni->type == DST_NODE_REMOTE) &&
	    sockaddr_attr_parse(tb[DST_NODE_A_ADDR], &ni->addr, &ni->addr_len) < 0)
		return -1;
	if ((tb[DST_NODE_A_PATH] || ni->type == DST_NODE_LOCAL) &&
	    copy_str(ni->path, sizeof(ni->path), tb[DST_NODE_A_PATH]) < 0)
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
	    get_u64(tb[DST_STORAGE_A_SIZE], &si->size, true))
		return -1;
	if (tb[DST_STORAGE_A_NODES] && nodes_parse(tb[DST_STORAGE_A_NODES], si) < 0) {
		storage_info_free(si);
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
	    get_u64(tb[DST_EXPORT_A_REFUSED], &ei->refused, false))
		return -1;
	if (tb[DST_EXPORT_A_READ_ONLY]) {
		if (mnl_attr_validate(tb[DST_EXPORT_A_READ_ONLY], MNL_TYPE_FLAG) < 0)
			return -1;
		ei->read_only = true;
	}
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

void format_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, units[u]);
}

static void addr_text(char *buf, size_t len, const struct sockaddr_storage *ss,
		      socklen_t slen)
{
	if (format_addr(ss, slen, buf, len) < 0)
		snprintf(buf, len, "?");
}

static void node_print_text(FILE *f, const struct node_info *ni)
{
	char addr[ADDR_STRLEN], size[32], rd[32], wr[32];

	if (ni->type == DST_NODE_REMOTE) {
		addr_text(addr, sizeof(addr), &ni->addr, ni->addr_len);
		fprintf(f, "  node %u: remote %s\n", ni->id, addr);
	} else if (ni->type == DST_NODE_LOCAL) {
		fprintf(f, "  node %u: local %s\n", ni->id, ni->path);
	} else {
		fprintf(f, "  node %u: %s\n", ni->id, node_type_name(ni->type));
	}
	format_size(size, sizeof(size), ni->size);
	format_size(rd, sizeof(rd), ni->read_bytes);
	format_size(wr, sizeof(wr), ni->write_bytes);
	fprintf(f, "    state: %s\n", node_state_name(ni->state));
	fprintf(f, "    size: %s\n", size);
	fprintf(f, "    in flight: %u\n", ni->inflight);
	fprintf(f, "    read: %s, written: %s\n", rd, wr);
}

void status_print_text(FILE *f, const struct storage_info *si, size_t n,
		       const struct export_info *ei, size_t ne)
{
	char size[32], addr[ADDR_STRLEN];
	size_t i, j;

	for (i = 0; i < n; i++) {
		format_size(size, sizeof(size), si[i].size);
		fprintf(f, "%sstorage: %s", i ? "\n" : "", si[i].name);
		if (si[i].state == DST_STORAGE_RUNNING)
			fprintf(f, " (/dev/dst%u)", si[i].id);
		fprintf(f, "\n  algorithm: %s\n", si[i].alg);
		fprintf(f, "  state: %s\n", storage_state_name(si[i].state));
		fprintf(f, "  size: %s\n", size);
		for (j = 0; j < si[i].nnodes; j++)
			node_print_text(f, &si[i].nodes[j]);
	}
	for (i = 0; i < ne; i++) {
		format_size(size, sizeof(size), ei[i].size);
		addr_text(addr, sizeof(addr), &ei[i].addr, ei[i].addr_len);
		fprintf(f, "%sexport: %s\n", n || i ? "\n" : "", ei[i].name);
		fprintf(f, "  device: %s\n", ei[i].device);
		fprintf(f, "  listen: %s\n", addr);
		fprintf(f, "  read-only: %s\n", ei[i].read_only ? "yes" : "no");
		fprintf(f, "  size: %s\n", size);
		fprintf(f, "  clients: %u\n", ei[i].clients);
		fprintf(f, "  refused: %llu\n", (unsigned long long)ei[i].refused);
	}
}

/* Add @val as @key to @o; false (and @val freed) if out of memory. */
static bool add(struct json_object *o, const char *key, struct json_object *val)
{
	if (!val)
		return false;
	if (json_object_object_add(o, key, val) < 0) {
		json_object_put(val);
		return false;
	}
	return true;
}

/* A new object appended to @arr, or NULL if out of memory. */
static struct json_object *append_object(struct json_object *arr)
{
	struct json_object *o = json_object_new_object();

	if (o && json_object_array_add(arr, o) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *address_json(const struct sockaddr_storage *ss,
					socklen_t len)
{
	char addr[ADDR_STRLEN];

	addr_text(addr, sizeof(addr), ss, len);
	return json_object_new_string(addr);
}

static bool node_json(struct json_object *arr, const struct node_info *ni)
{
	struct json_object *o = append_object(arr);
	bool ok;

	if (!o)
		return false;
	ok = add(o, "id", json_object_new_int64(ni->id)) &&
	     add(o, "type", json_object_new_string(node_type_name(ni->type)));
	if (ok && ni->type == DST_NODE_REMOTE)
		ok = add(o, "address", address_json(&ni->addr, ni->addr_len));
	else if (ok && ni->type == DST_NODE_LOCAL)
		ok = add(o, "path", json_object_new_string(ni->path));
	return ok &&
	       add(o, "state", json_object_new_string(node_state_name(ni->state))) &&
	       add(o, "size", json_object_new_uint64(ni->size)) &&
	       add(o, "inflight", json_object_new_int64(ni->inflight)) &&
	       add(o, "read_bytes", json_object_new_uint64(ni->read_bytes)) &&
	       add(o, "write_bytes", json_object_new_uint64(ni->write_bytes)) &&
	       add(o, "timeout", json_object_new_int64(ni->timeout));
}

static bool storage_json(struct json_object *arr, const struct storage_info *si)
{
	struct json_object *o = append_object(arr), *nodes;
	char dev[32];
	size_t i;

	if (!o)
		return false;
	snprintf(dev, sizeof(dev), "/dev/dst%u", si->id);
	if (!add(o, "name", json_object_new_string(si->name)) ||
	    !add(o, "id", json_object_new_int64(si->id)) ||
	    !add(o, "algorithm", json_object_new_string(si->alg)) ||
	    !add(o, "state", json_object_new_string(storage_state_name(si->state))) ||
	    !add(o, "size", json_object_new_uint64(si->size)))
		return false;
	/* null while stopped: a stable set of keys. */
	if (json_object_object_add(o, "device", si->state == DST_STORAGE_RUNNING ?
				   json_object_new_string(dev) : NULL) < 0)
		return false;
	nodes = json_object_new_array();
	if (!add(o, "nodes", nodes))
		return false;
	for (i = 0; i < si->nnodes; i++)
		if (!node_json(nodes, &si->nodes[i]))
			return false;
	return true;
}

static bool export_json(struct json_object *arr, const struct export_info *ei)
{
	struct json_object *o = append_object(arr);

	return o &&
	       add(o, "name", json_object_new_string(ei->name)) &&
	       add(o, "device", json_object_new_string(ei->device)) &&
	       add(o, "listen", address_json(&ei->addr, ei->addr_len)) &&
	       add(o, "read_only", json_object_new_boolean(ei->read_only)) &&
	       add(o, "size", json_object_new_uint64(ei->size)) &&
	       add(o, "clients", json_object_new_int64(ei->clients)) &&
	       add(o, "refused", json_object_new_uint64(ei->refused));
}

int status_print_json(FILE *f, const struct storage_info *si, size_t n,
		      const struct export_info *ei, size_t ne)
{
	struct json_object *root, *storages, *exports;
	const char *out = NULL;
	size_t i;

	root = json_object_new_object();
	if (!root)
		return -1;
	storages = json_object_new_array();
	if (!add(root, "storages", storages))
		goto out;
	exports = json_object_new_array();
	if (!add(root, "exports", exports))
		goto out;
	for (i = 0; i < n; i++)
		if (!storage_json(storages, &si[i]))
			goto out;
	for (i = 0; i < ne; i++)
		if (!export_json(exports, &ei[i]))
			goto out;
	out = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (out)
		fprintf(f, "%s\n", out);
out:
	json_object_put(root);
	return out ? 0 : -1;
}

static const struct option status_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int status_parse(int argc, char *argv[], struct status_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", status_options, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'h':
			o->help = true;
			print_command_usage(stdout, find_command("status"));
			return EXIT_OK;
		default:
			return bad_option("status", c, argv);
		}
	}
	if (optind + 1 < argc)
		return usage_error("status", "unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc)
		o->name = argv[optind];
	return EXIT_OK;
}

/*
 * Get the storages (@cmd DST_CMD_STORAGE_GET) or exports into @data
 * through @cb: all, or the one called @name.  Returns 0, 1 if there is no
 * such object, or -1 after reporting the error.
 */
static int status_get(struct dst_nl *nl, uint8_t cmd, const char *name,
		      mnl_cb_t cb, void *data)
{
	const char *what = cmd == DST_CMD_STORAGE_GET ? "storage" : "export";
	struct nlmsghdr *nlh;

	nlh = dst_nl_msg(nl, cmd, name ? 0 : NLM_F_DUMP);
	if (name &&
	    (cmd == DST_CMD_STORAGE_GET ? dst_nl_put_storage(nl, nlh, name, NULL) :
	     dst_nl_put_export(nl, nlh, name, NULL, NULL, 0, false)) < 0)
		return -1;
	if (dst_nl_request(nl, nlh, cb, data) == 0)
		return 0;
	if (name && errno == ENOENT)
		return 1;
	/* A module without exports has none. */
	if (cmd == DST_CMD_EXPORT_GET && errno == EOPNOTSUPP)
		return name ? 1 : 0;
	if (name)
		dst_nl_perror(nl, "%s '%s'", what, name);
	else
		dst_nl_perror(nl, "list %ss", what);
	return -1;
}

int cmd_status(int argc, char *argv[])
{
	struct storage_list l = { NULL, 0, 0 };
	struct export_list el = { NULL, 0, 0 };
	struct status_opts o;
	struct dst_nl nl;
	int ret, rs, re;

	ret = status_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	ret = EXIT_FAIL;
	rs = status_get(&nl, DST_CMD_STORAGE_GET, o.name, storage_list_cb, &l);
	if (rs < 0)
		goto out;
	re = status_get(&nl, DST_CMD_EXPORT_GET, o.name, export_list_cb, &el);
	if (re < 0)
		goto out;
	if (rs > 0 && re > 0) {
		fprintf(stderr, "%s: '%s': no such storage or export\n", PROG, o.name);
		goto out;
	}

	if (o.json) {
		if (status_print_json(stdout, l.v, l.n, el.v, el.n) < 0) {
			fprintf(stderr, "%s: out of memory\n", PROG);
			goto out;
		}
	} else {
		status_print_text(stdout, l.v, l.n, el.v, el.n);
	}
	ret = EXIT_OK;
out:
	storage_list_free(&l);
	free(el.v);
	dst_nl_close(&nl);
	return ret;
}
