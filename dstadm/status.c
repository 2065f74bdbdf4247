// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: show storages, for people and as JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
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

static int storage_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	/* Attributes of a newer module are skipped, not misread. */
	if (mnl_attr_type_valid(attr, DST_STORAGE_A_MAX) < 0)
		return MNL_CB_OK;
	tb[type] = attr;
	return MNL_CB_OK;
}

static int copy_str(char *dst, size_t len, const struct nlattr *attr)
{
	if (!attr || mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
	    strlen(mnl_attr_get_str(attr)) >= len)
		return -1;
	strcpy(dst, mnl_attr_get_str(attr));
	return 0;
}

/* Fill @si from a DST_A_STORAGE nest; -1 if it is malformed. */
int storage_info_parse(const struct nlattr *nest, struct storage_info *si)
{
	const struct nlattr *tb[DST_STORAGE_A_MAX + 1] = { NULL };

	memset(si, 0, sizeof(*si));
	if (mnl_attr_parse_nested(nest, storage_attr_cb, tb) < 0 ||
	    copy_str(si->name, sizeof(si->name), tb[DST_STORAGE_A_NAME]) ||
	    copy_str(si->alg, sizeof(si->alg), tb[DST_STORAGE_A_ALG]) ||
	    !tb[DST_STORAGE_A_ID] || !tb[DST_STORAGE_A_STATE] ||
	    !tb[DST_STORAGE_A_SIZE] ||
	    mnl_attr_validate(tb[DST_STORAGE_A_ID], MNL_TYPE_U32) < 0 ||
	    mnl_attr_validate(tb[DST_STORAGE_A_STATE], MNL_TYPE_U32) < 0 ||
	    mnl_attr_validate(tb[DST_STORAGE_A_SIZE], MNL_TYPE_U64) < 0)
		return -1;
	si->id = mnl_attr_get_u32(tb[DST_STORAGE_A_ID]);
	si->state = mnl_attr_get_u32(tb[DST_STORAGE_A_STATE]);
	si->size = mnl_attr_get_u64(tb[DST_STORAGE_A_SIZE]);
	return 0;
}

struct storage_list {
	struct storage_info *v;
	size_t n;
	size_t cap;
};

static int storage_cb(const struct nlmsghdr *nlh, void *data)
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

void status_print_text(FILE *f, const struct storage_info *si, size_t n)
{
	char size[32];
	size_t i;

	for (i = 0; i < n; i++) {
		format_size(size, sizeof(size), si[i].size);
		fprintf(f, "%sstorage: %s\n", i ? "\n" : "", si[i].name);
		fprintf(f, "  id: %u\n", si[i].id);
		fprintf(f, "  algorithm: %s\n", si[i].alg);
		fprintf(f, "  state: %s\n", storage_state_name(si[i].state));
		fprintf(f, "  size: %s\n", size);
	}
}

int status_print_json(FILE *f, const struct storage_info *si, size_t n)
{
	struct json_object *root, *arr, *o;
	const char *out;
	size_t i;

	root = json_object_new_object();
	if (!root)
		return -1;
	arr = json_object_new_array();
	if (!arr || json_object_object_add(root, "storages", arr) < 0) {
		json_object_put(arr);
		json_object_put(root);
		return -1;
	}
	for (i = 0; i < n; i++) {
		o = json_object_new_object();
		if (!o || json_object_array_add(arr, o) < 0) {
			json_object_put(o);
			json_object_put(root);
			return -1;
		}
		json_object_object_add(o, "name", json_object_new_string(si[i].name));
		json_object_object_add(o, "id", json_object_new_int64(si[i].id));
		json_object_object_add(o, "algorithm", json_object_new_string(si[i].alg));
		json_object_object_add(o, "state",
				       json_object_new_string(storage_state_name(si[i].state)));
		json_object_object_add(o, "size", json_object_new_uint64(si[i].size));
	}
	out = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (out)
		fprintf(f, "%s\n", out);
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

int cmd_status(int argc, char *argv[])
{
	struct storage_list l = { NULL, 0, 0 };
	struct status_opts o;
	struct nlmsghdr *nlh;
	struct dst_nl nl;
	int ret;

	ret = status_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	ret = EXIT_FAIL;
	if (o.name) {
		nlh = dst_nl_msg(&nl, DST_CMD_STORAGE_GET, 0);
		if (dst_nl_put_storage(&nl, nlh, o.name, NULL) < 0)
			goto out;
	} else {
		nlh = dst_nl_msg(&nl, DST_CMD_STORAGE_GET, NLM_F_DUMP);
	}
	if (dst_nl_request(&nl, nlh, storage_cb, &l) < 0) {
		if (o.name)
			dst_nl_perror(&nl, "storage '%s'", o.name);
		else
			dst_nl_perror(&nl, "list storages");
		goto out;
	}

	if (o.json) {
		if (status_print_json(stdout, l.v, l.n) < 0) {
			fprintf(stderr, "%s: out of memory\n", PROG);
			goto out;
		}
	} else {
		status_print_text(stdout, l.v, l.n);
	}
	ret = EXIT_OK;
out:
	free(l.v);
	dst_nl_close(&nl);
	return ret;
}
