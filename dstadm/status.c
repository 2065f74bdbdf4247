// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: show storages, their nodes and exports, for people and as JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/genetlink.h>

#include "config.h"
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

static const char *const starts[][2] = {
	[DST_START_FULL] = { "full",
		"full resync of every leg but the first (not known to be identical)" },
	[DST_START_ASSUME_CLEAN] = { "assume-clean", "--assume-clean, no resync" },
	[DST_START_CLEAN] = { "clean", "after a clean stop (bitmap), legs in sync trusted" },
	[DST_START_UNCLEAN] = { "unclean",
		"after an unclean stop: the bitmap's regions resynced" },
};

/* How a mirror started: a JSON word, or (@text) a sentence. */
const char *start_name(uint32_t start, bool text)
{
	if (start < sizeof(starts) / sizeof(starts[0]))
		return starts[start][text];
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
	[DST_NODE_RECONNECTING] = "reconnecting",
};

const char *node_state_name(uint32_t state)
{
	if (state < sizeof(node_states) / sizeof(node_states[0]) && node_states[state])
		return node_states[state];
	return "unknown";
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

uint64_t resync_eta(const struct storage_info *si)
{
	return si->resync_rate ?
	       (si->resync_left + si->resync_rate - 1) / si->resync_rate : 0;
}

unsigned int sync_percent(const struct node_info *ni)
{
	if (!ni->regions)
		return 100;
	/* Rounded down: 100 only when nothing is dirty. */
	return (unsigned int)((ni->regions - ni->dirty) * 100 / ni->regions);
}

static const char *const sync_states[] = {
	[DST_SYNC_IN_SYNC] = "in-sync",
	[DST_SYNC_OUT_OF_SYNC] = "out-of-sync",
	[DST_SYNC_RESYNCING] = "resyncing",
};

const char *sync_state_name(uint32_t sync)
{
	if (sync < sizeof(sync_states) / sizeof(sync_states[0]) && sync_states[sync])
		return sync_states[sync];
	return "unknown";
}

/* Is @path the device of the running storage @si? */
static bool is_storage_dev(const char *path, const struct storage_info *si)
{
	char dev[DST_NAME_MAX + 16];

	if (si->state != DST_STORAGE_RUNNING)
		return false;
	snprintf(dev, sizeof(dev), "/dev/dst%u", si->id);
	if (!strcmp(path, dev))
		return true;
	snprintf(dev, sizeof(dev), "/dev/dst/%s", si->name);
	return !strcmp(path, dev);
}

/* The storage under the local node @ni, or NULL. */
static const struct storage_info *node_child(const struct status_set *set,
					     const struct node_info *ni)
{
	size_t i;

	if (ni->type != DST_NODE_LOCAL)
		return NULL;
	for (i = 0; i < set->n; i++)
		if (is_storage_dev(ni->path, &set->si[i]))
			return &set->si[i];
	return NULL;
}

/* Is @si a node of another storage of @set? */
static bool is_nested(const struct status_set *set, const struct storage_info *si)
{
	size_t i, j;

	for (i = 0; i < set->n; i++)
		for (j = 0; j < set->si[i].nnodes; j++)
			if (node_child(set, &set->si[i].nodes[j]) == si)
				return true;
	return false;
}

/*
 * The text tree: each line starts with the prefix of its level, "  " per
 * storage and "|    " or "     " per node above it.  Storages nest at most
 * STATUS_MAX_DEPTH deep (a guard against cycles, not a real limit).
 */
#define STATUS_MAX_DEPTH	16

struct tree_prefix {
	char buf[STATUS_MAX_DEPTH * 8 + 8];
	size_t len;
};

/* Append @s to @p; returns the old length for tree_pop(). */
static size_t tree_push(struct tree_prefix *p, const char *s)
{
	size_t old = p->len, n = strlen(s);

	if (p->len + n < sizeof(p->buf)) {
		memcpy(p->buf + p->len, s, n + 1);
		p->len += n;
	}
	return old;
}

static void tree_pop(struct tree_prefix *p, size_t len)
{
	p->len = len;
	p->buf[len] = '\0';
}

static void storage_print_text(FILE *f, const struct status_set *set,
			       const struct storage_info *si,
			       struct tree_prefix *p, int depth);

/* "MODE[ CIPHER][ (in use: USED)]": @t, and @used of a connection. */
static const char *tls_text(char *buf, size_t len, const struct tls_args *t,
			    uint32_t used)
{
	snprintf(buf, len, "%s%s%s%s%s%s", tls_mode_name(tls_mode(t)),
		 t->cipher ? " " : "", t->cipher ? tls_cipher_name(t->cipher) : "",
		 used ? " (in use: " : "", used ? tls_cipher_name(used) : "",
		 used ? ")" : "");
	return buf;
}

static void node_print_text(FILE *f, const struct status_set *set,
			    const struct node_info *ni, struct tree_prefix *p,
			    bool last, int depth)
{
	char addr[ADDR_STRLEN], size[32], rd[32], wr[32], tls[64];
	const struct storage_info *child;
	const char *pfx = p->buf, *sub;
	size_t old;

	if (ni->type == DST_NODE_REMOTE) {
		addr_text(addr, sizeof(addr), &ni->addr, ni->addr_len);
		fprintf(f, "%s%s node%u: remote %s\n", pfx, last ? "`-" : "|-",
			ni->id, addr);
	} else if (ni->type == DST_NODE_LOCAL) {
		fprintf(f, "%s%s node%u: local %s\n", pfx, last ? "`-" : "|-",
			ni->id, ni->path);
	} else {
		fprintf(f, "%s%s node%u: %s\n", pfx, last ? "`-" : "|-", ni->id,
			node_type_name(ni->type));
	}
	old = tree_push(p, last ? "     " : "|    ");
	sub = p->buf;
	format_size(size, sizeof(size), ni->size);
	format_size(rd, sizeof(rd), ni->read_bytes);
	format_size(wr, sizeof(wr), ni->write_bytes);
	fprintf(f, "%sstate: %s\n", sub, node_state_name(ni->state));
	if (ni->has_sync) {
		fprintf(f, "%ssync: %s", sub, sync_state_name(ni->sync));
		if (ni->sync == DST_SYNC_RESYNCING)
			fprintf(f, " %u%%", sync_percent(ni));
		if (ni->dirty)
			fprintf(f, " (%llu of %llu regions dirty)",
				(unsigned long long)ni->dirty,
				(unsigned long long)ni->regions);
		fputc('\n', f);
	}
	if (ni->la.write_behind)
		fprintf(f, "%swrite-mostly, write-behind: %u, now %u behind\n", sub,
			ni->la.write_behind, ni->behind);
	else if (ni->la.write_mostly)
		fprintf(f, "%swrite-mostly\n", sub);
	fprintf(f, "%ssize: %s\n", sub, size);
	fprintf(f, "%sin flight: %u\n", sub, ni->inflight);
	if (ni->type == DST_NODE_REMOTE) {
		fprintf(f, "%stimeout: %u s, dead timeout: %u s, reconnects: %u\n",
			sub, ni->timeout, ni->dead_timeout, ni->reconnects);
		fprintf(f, "%ssecret: %s, integrity: %s, tls: %s, checksum errors: %llu\n",
			sub, ni->auth ? "yes" : "no",
			ni->integrity ? "crc32c" : "none",
			tls_text(tls, sizeof(tls), &ni->tls, ni->tls_cipher_used),
			(unsigned long long)ni->crc_errors);
	}
	fprintf(f, "%sread: %s, written: %s\n", sub, rd, wr);
	child = node_child(set, ni);
	if (child)
		storage_print_text(f, set, child, p, depth + 1);
	tree_pop(p, old);
}

static void storage_print_text(FILE *f, const struct status_set *set,
			       const struct storage_info *si,
			       struct tree_prefix *p, int depth)
{
	const char *pfx = p->buf;
	char size[32], rate[32];
	size_t i, old;

	fprintf(f, "%sstorage: %s", pfx, si->name);
	if (si->state == DST_STORAGE_RUNNING)
		fprintf(f, " (/dev/dst%u)", si->id);
	fputc('\n', f);
	if (depth >= STATUS_MAX_DEPTH) {
		fprintf(f, "%s  ...\n", pfx);
		return;
	}
	format_size(size, sizeof(size), si->size);
	fprintf(f, "%s  algorithm: %s\n", pfx, si->alg);
	fprintf(f, "%s  state: %s\n", pfx, storage_state_name(si->state));
	fprintf(f, "%s  size: %s\n", pfx, size);
	if (si->chunk_size) {
		format_size(size, sizeof(size), si->chunk_size);
		fprintf(f, "%s  chunk size: %s\n", pfx, size);
		format_size(size, sizeof(size), (uint64_t)si->resync_min << 10);
		format_size(rate, sizeof(rate), (uint64_t)si->resync_max << 10);
		fprintf(f, "%s  resync speed: %s/s to %s/s\n", pfx, size, rate);
	}
	if (si->bitmap[0] && si->has_bitmap_regions)
		fprintf(f, "%s  bitmap: %s, %llu region(s) set\n", pfx, si->bitmap,
			(unsigned long long)si->bitmap_regions);
	else if (si->bitmap[0])
		fprintf(f, "%s  bitmap: %s\n", pfx, si->bitmap);
	else if (si->chunk_size)
		fprintf(f, "%s  bitmap: none\n", pfx);
	if (si->has_started)
		fprintf(f, "%s  started: %s\n", pfx, start_name(si->started, true));
	if (si->has_resync) {
		format_size(size, sizeof(size), si->resync_bytes);
		fprintf(f, "%s  resynced: %s\n", pfx, size);
	}
	if (si->has_resync && si->resync_left) {
		format_size(size, sizeof(size), si->resync_left);
		format_size(rate, sizeof(rate), si->resync_rate);
		fprintf(f, "%s  resync: %s/s, %s left", pfx, rate, size);
		if (si->resync_rate)
			fprintf(f, ", about %llu s",
				(unsigned long long)resync_eta(si));
		fputc('\n', f);
	}
	if (si->has_verify && si->verify_left) {
		format_size(size, sizeof(size), si->verify_left);
		fprintf(f, "%s  verify%s: %s left, %llu block(s) differ so far\n", pfx,
			si->verify_repair ? " and repair" : "", size,
			(unsigned long long)si->mismatches);
	} else if (si->has_verify) {
		fprintf(f, "%s  mismatches: %llu block(s)%s\n", pfx,
			(unsigned long long)si->mismatches,
			si->mismatches && si->verify_repair ? ", repaired" : "");
	}
	for (i = 0; i < set->ne; i++)
		if (is_storage_dev(set->ei[i].device, si))
			fprintf(f, "%s  exported as: %s\n", pfx, set->ei[i].name);
	old = tree_push(p, "  ");
	for (i = 0; i < si->nnodes; i++)
		node_print_text(f, set, &si->nodes[i], p, i + 1 == si->nnodes,
				depth);
	tree_pop(p, old);
}

static void export_print_text(FILE *f, const struct export_info *ei)
{
	char size[32], addr[ADDR_STRLEN], prefix[INET6_ADDRSTRLEN + 8], tls[64];
	const struct client_info *c;
	unsigned int i;

	format_size(size, sizeof(size), ei->size);
	addr_text(addr, sizeof(addr), &ei->addr, ei->addr_len);
	fprintf(f, "export: %s\n", ei->name);
	fprintf(f, "  device: %s\n", ei->device);
	fprintf(f, "  listen: %s\n", addr);
	fprintf(f, "  read-only: %s\n", ei->read_only ? "yes" : "no");
	fprintf(f, "  size: %s\n", size);
	fprintf(f, "  secret: %s\n", ei->auth ? "yes" : "no");
	fprintf(f, "  integrity: %s\n", ei->integrity ? "crc32c" : "none");
	fprintf(f, "  tls: %s\n", tls_text(tls, sizeof(tls), &ei->tls, 0));
	fprintf(f, "  writers: %s\n", ei->shared ? "shared" : "one at a time");
	if (!ei->has_allow)
		fprintf(f, "  allow: loopback only (no allow list)\n");
	for (i = 0; i < ei->allow.n; i++) {
		if (format_allow(&ei->allow.v[i], prefix, sizeof(prefix)) < 0)
			strcpy(prefix, "?");
		fprintf(f, "  allow: %s%s%s%s\n", prefix,
			ei->allow.v[i].read_only ? " read-only" : "",
			*ei->allow.v[i].name ? " name " : "", ei->allow.v[i].name);
	}
	fprintf(f, "  clients: %u\n", ei->clients);
	for (i = 0; i < ei->nclient; i++) {
		c = &ei->client[i];
		addr_text(addr, sizeof(addr), &c->addr, c->addr_len);
		fprintf(f, "    %s%s%s%s%s%s%s\n", addr, c->read_only ? " read-only" : "",
			c->auth ? " secret" : "", c->integrity ? " crc32c" : "",
			c->tls ? " tls" : "", c->tls_cipher ? " " : "",
			c->tls_cipher ? tls_cipher_name(c->tls_cipher) : "");
	}
	fprintf(f, "  refused: %llu bad input, %llu not allowed, %llu failed authentication\n",
		(unsigned long long)ei->refused, (unsigned long long)ei->denied,
		(unsigned long long)ei->auth_failed);
	fprintf(f, "  checksum errors: %llu\n", (unsigned long long)ei->crc_errors);
}

static bool selected(const char *name, const char *want)
{
	return !want || !strcmp(name, want);
}

void status_print_text(FILE *f, const struct status_set *set, const char *name)
{
	struct tree_prefix p = { "", 0 };
	bool first = true;
	size_t i;

	/*
	 * Trees: a storage that is a local node of another is drawn under
	 * it, unless it is the one asked for.
	 */
	for (i = 0; i < set->n; i++) {
		if (name ? strcmp(set->si[i].name, name) : is_nested(set, &set->si[i]))
			continue;
		fputs(first ? "" : "\n", f);
		storage_print_text(f, set, &set->si[i], &p, 0);
		first = false;
	}
	for (i = 0; i < set->ne; i++) {
		if (!selected(set->ei[i].name, name))
			continue;
		fputs(first ? "" : "\n", f);
		export_print_text(f, &set->ei[i]);
		first = false;
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

/* Add @val as @key to @o if @have, else null (@val freed). */
static bool add_or_null(struct json_object *o, const char *key, bool have,
			struct json_object *val)
{
	if (have)
		return add(o, key, val);
	json_object_put(val);
	return json_object_object_add(o, key, NULL) == 0;
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
	bool ok, remote;

	if (!o)
		return false;
	ok = add(o, "id", json_object_new_int64(ni->id)) &&
	     add(o, "type", json_object_new_string(node_type_name(ni->type)));
	if (ok && ni->type == DST_NODE_REMOTE)
		ok = add(o, "address", address_json(&ni->addr, ni->addr_len));
	else if (ok && ni->type == DST_NODE_LOCAL)
		ok = add(o, "path", json_object_new_string(ni->path));
	ok = ok &&
	     add(o, "state", json_object_new_string(node_state_name(ni->state))) &&
	     add(o, "size", json_object_new_uint64(ni->size)) &&
	     add(o, "inflight", json_object_new_int64(ni->inflight)) &&
	     add(o, "read_bytes", json_object_new_uint64(ni->read_bytes)) &&
	     add(o, "write_bytes", json_object_new_uint64(ni->write_bytes)) &&
	     add(o, "timeout", json_object_new_int64(ni->timeout)) &&
	     add(o, "write_mostly", json_object_new_boolean(ni->la.write_mostly)) &&
	     add(o, "write_behind", json_object_new_int64(ni->la.write_behind)) &&
	     add_or_null(o, "behind", ni->has_behind,
			 json_object_new_int64(ni->behind));
	if (!ok)
		return false;
	remote = ni->type == DST_NODE_REMOTE;
	if (!add_or_null(o, "dead_timeout", remote,
			 json_object_new_int64(ni->dead_timeout)) ||
	    !add_or_null(o, "reconnect_max", remote,
			 json_object_new_int64(ni->reconnect_max)) ||
	    !add_or_null(o, "reconnects", remote,
			 json_object_new_int64(ni->reconnects)) ||
	    !add_or_null(o, "secret", remote, json_object_new_boolean(ni->auth)) ||
	    !add_or_null(o, "integrity", remote,
			 json_object_new_string(ni->integrity ? "crc32c" : "none")) ||
	    !add_or_null(o, "tls", remote, json_object_new_string(tls_mode_name(tls_mode(&ni->tls)))) ||
	    !add_or_null(o, "tls_cipher", remote && ni->tls.on,
			 json_object_new_string(tls_cipher_name(ni->tls.cipher))) ||
	    !add_or_null(o, "tls_cipher_used", ni->tls_cipher_used,
			 json_object_new_string(tls_cipher_name(ni->tls_cipher_used))) ||
	    !add_or_null(o, "crc_errors", remote,
			 json_object_new_uint64(ni->crc_errors)))
		return false;
	/* Legs of a running mirror; null elsewhere: a stable set of keys. */
	return add_or_null(o, "sync", ni->has_sync,
			   json_object_new_string(sync_state_name(ni->sync))) &&
	       add_or_null(o, "regions", ni->has_sync,
			   json_object_new_uint64(ni->regions)) &&
	       add_or_null(o, "dirty_regions", ni->has_sync,
			   json_object_new_uint64(ni->dirty)) &&
	       add_or_null(o, "sync_percent", ni->has_sync,
			   json_object_new_int64(sync_percent(ni)));
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
	    !add(o, "size", json_object_new_uint64(si->size)) ||
	    !add_or_null(o, "chunk_size", si->chunk_size,
			 json_object_new_int64(si->chunk_size)) ||
	    !add_or_null(o, "resync_bytes", si->has_resync,
			 json_object_new_uint64(si->resync_bytes)) ||
	    !add_or_null(o, "resync_min", si->chunk_size,
			 json_object_new_uint64((uint64_t)si->resync_min << 10)) ||
	    !add_or_null(o, "resync_max", si->chunk_size,
			 json_object_new_uint64((uint64_t)si->resync_max << 10)) ||
	    !add_or_null(o, "resync_rate", si->has_resync,
			 json_object_new_uint64(si->resync_rate)) ||
	    !add_or_null(o, "resync_left", si->has_resync,
			 json_object_new_uint64(si->resync_left)) ||
	    !add_or_null(o, "resync_eta", si->has_resync && si->resync_left &&
			 si->resync_rate,
			 json_object_new_uint64(resync_eta(si))) ||
	    !add_or_null(o, "bitmap", si->bitmap[0],
			 json_object_new_string(si->bitmap)) ||
	    !add_or_null(o, "bitmap_regions", si->has_bitmap_regions,
			 json_object_new_uint64(si->bitmap_regions)) ||
	    !add_or_null(o, "mismatches", si->has_verify,
			 json_object_new_uint64(si->mismatches)) ||
	    !add_or_null(o, "verify_left", si->has_verify,
			 json_object_new_uint64(si->verify_left)) ||
	    !add_or_null(o, "verify_repair", si->has_verify,
			 json_object_new_boolean(si->verify_repair)) ||
	    !add_or_null(o, "started", si->has_started,
			 json_object_new_string(start_name(si->started, false))))
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

/* The allow list: null when there is none (loopback clients only). */
static bool allow_json(struct json_object *o, const struct export_info *ei)
{
	char prefix[INET6_ADDRSTRLEN + 8];
	struct json_object *arr, *e;
	unsigned int i;

	if (!ei->has_allow)
		return json_object_object_add(o, "allow", NULL) == 0;
	arr = json_object_new_array();
	if (!add(o, "allow", arr))
		return false;
	for (i = 0; i < ei->allow.n; i++) {
		e = append_object(arr);
		if (!e || format_allow(&ei->allow.v[i], prefix, sizeof(prefix)) < 0 ||
		    !add(e, "prefix", json_object_new_string(prefix)) ||
		    !add(e, "read_only", json_object_new_boolean(ei->allow.v[i].read_only)) ||
		    !add_or_null(e, "name", *ei->allow.v[i].name,
				 json_object_new_string(ei->allow.v[i].name)))
			return false;
	}
	return true;
}

static bool clients_json(struct json_object *o, const struct export_info *ei)
{
	struct json_object *arr = json_object_new_array(), *e;
	const struct client_info *c;
	size_t i;

	if (!add(o, "client_list", arr))
		return false;
	for (i = 0; i < ei->nclient; i++) {
		c = &ei->client[i];
		e = append_object(arr);
		if (!e || !add(e, "address", address_json(&c->addr, c->addr_len)) ||
		    !add(e, "read_only", json_object_new_boolean(c->read_only)) ||
		    !add(e, "secret", json_object_new_boolean(c->auth)) ||
		    !add(e, "integrity",
			 json_object_new_string(c->integrity ? "crc32c" : "none")) ||
		    !add(e, "tls", json_object_new_boolean(c->tls)) ||
		    !add_or_null(e, "tls_cipher", c->tls_cipher,
				 json_object_new_string(tls_cipher_name(c->tls_cipher))))
			return false;
	}
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
	       add(o, "secret", json_object_new_boolean(ei->auth)) &&
	       add(o, "integrity",
		   json_object_new_string(ei->integrity ? "crc32c" : "none")) &&
	       add(o, "tls", json_object_new_string(tls_mode_name(tls_mode(&ei->tls)))) &&
	       add_or_null(o, "tls_cipher", ei->tls.on,
			   json_object_new_string(tls_cipher_name(ei->tls.cipher))) &&
	       add(o, "shared", json_object_new_boolean(ei->shared)) &&
	       allow_json(o, ei) &&
	       add(o, "clients", json_object_new_int64(ei->clients)) &&
	       clients_json(o, ei) &&
	       add(o, "refused", json_object_new_uint64(ei->refused)) &&
	       add(o, "denied", json_object_new_uint64(ei->denied)) &&
	       add(o, "auth_failed", json_object_new_uint64(ei->auth_failed)) &&
	       add(o, "crc_errors", json_object_new_uint64(ei->crc_errors));
}

int status_print_json(FILE *f, const struct status_set *set, const char *name)
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
	for (i = 0; i < set->n; i++)
		if (selected(set->si[i].name, name) &&
		    !storage_json(storages, &set->si[i]))
			goto out;
	for (i = 0; i < set->ne; i++)
		if (selected(set->ei[i].name, name) &&
		    !export_json(exports, &set->ei[i]))
			goto out;
	out = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (out)
		fprintf(f, "%s\n", out);
out:
	json_object_put(root);
	return out ? 0 : -1;
}

int status_parse(int argc, char *argv[], struct status_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "status")) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("status"));
			return EXIT_OK;
		default:
			return bad_option("status", c, argv);
		}
	}
	if (optind + 1 < argc)
		return usage_error("status", "unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc)
		o->name = argv[optind];
	if (o->json && o->check)
		return usage_error("status", "--json and --check do not go together");
	if (o->config && !o->check)
		return usage_error("status", "--config goes with --check");
	return EXIT_OK;
}

/*
 * Dump the storages (@cmd DST_CMD_STORAGE_GET) or exports into @data
 * through @cb.  Returns 0, or -1 after reporting the error.  All of them
 * even for one name: the tree of a storage needs the storages under it.
 */
int status_dump(struct dst_nl *nl, uint8_t cmd, mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = dst_nl_msg(nl, cmd, NLM_F_DUMP);

	if (dst_nl_request(nl, nlh, cb, data) == 0)
		return 0;
	/* A module without exports has none. */
	if (cmd == DST_CMD_EXPORT_GET && errno == EOPNOTSUPP)
		return 0;
	dst_nl_perror(nl, "list %ss", cmd == DST_CMD_STORAGE_GET ? "storage" : "export");
	return -1;
}

static bool set_has(const struct status_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->si[i].name, name))
			return true;
	for (i = 0; i < set->ne; i++)
		if (!strcmp(set->ei[i].name, name))
			return true;
	return false;
}

/*
 * --check, with the configured storages and exports of --config, or of
 * /etc/dst.conf if there is one.  A file that cannot be read is said, and
 * the running ones are still checked.
 */
static int check(const struct status_set *set, const struct status_opts *o)
{
	const char *file = o->config ? o->config : DST_CONFIG_FILE;
	struct dst_config c;
	bool have = false;
	int ret;

	if (o->config || access(file, F_OK) == 0) {
		have = config_load(file, &c, stderr) == 0;
		if (!have)
			fprintf(stderr, "%s: warning: %s not read: only what runs is checked\n",
				PROG, file);
	}
	ret = health_check(stdout, set, have ? &c : NULL, o->name);
	if (have)
		config_free(&c);
	return ret;
}

int cmd_status(int argc, char *argv[])
{
	struct storage_list l = { NULL, 0, 0 };
	struct export_list el = { NULL, 0, 0 };
	struct status_opts o;
	struct status_set set;
	struct dst_nl nl;
	int ret;

	ret = status_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	ret = EXIT_FAIL;
	module_skew_note(&nl);
	if (status_dump(&nl, DST_CMD_STORAGE_GET, storage_list_cb, &l) < 0 ||
	    status_dump(&nl, DST_CMD_EXPORT_GET, export_list_cb, &el) < 0)
		goto out;
	set = (struct status_set){ l.v, l.n, el.v, el.n };
	if (o.name && !set_has(&set, o.name)) {
		fprintf(stderr, "%s: '%s': no such storage or export\n", PROG, o.name);
		goto out;
	}

	if (o.check) {
		ret = check(&set, &o);
		goto out;
	}
	if (o.json) {
		if (status_print_json(stdout, &set, o.name) < 0) {
			fprintf(stderr, "%s: out of memory\n", PROG);
			goto out;
		}
	} else {
		status_print_text(stdout, &set, o.name);
	}
	ret = EXIT_OK;
out:
	storage_list_free(&l);
	free(el.v);
	dst_nl_close(&nl);
	return ret;
}
