// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: add nodes to storages and remove them.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>

#include "dstadm.h"
#include "nl.h"

int add_parse(int argc, char *argv[], struct add_opts *o)
{
	bool remote_opt = false;
	const char *type;
	int c, ret;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "add")) != -1) {
		switch (c) {
		case 't':
		case 'D':
		case 'R':
		case 'S':
		case 'I':
		case 'T':
		case OPT_TLS_CERT:
		case OPT_TLS_KEY:
		case OPT_TLS_CA:
		case OPT_TLS_CIPHER:
		case OPT_TLS_NAME:
			ret = parse_remote_arg("add", c, optarg, &o->ra);
			if (ret)
				return ret;
			remote_opt = true;
			break;
		case 'W':
		case 'B':
			ret = parse_leg_arg("add", c, optarg, &o->la);
			if (ret)
				return ret;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("add"));
			return EXIT_OK;
		default:
			return bad_option("add", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("add", "missing storage name");
	if (optind + 1 >= argc)
		return usage_error("add", "missing node type (remote or local)");
	type = argv[optind + 1];
	if (strcmp(type, "remote") && strcmp(type, "local"))
		return usage_error("add", "unknown node type '%s' (remote or local)",
				   type);
	if (optind + 2 >= argc)
		return usage_error("add", "missing %s", strcmp(type, "remote") ?
				   "device path" : "ADDR:PORT");
	if (optind + 3 < argc)
		return usage_error("add", "unexpected argument '%s'", argv[optind + 3]);

	o->name = argv[optind];
	o->target = argv[optind + 2];
	if (!strcmp(type, "remote")) {
		o->type = DST_NODE_REMOTE;
		return parse_addr_arg("add", "address", o->target, &o->addr,
				      &o->addr_len) ?:
		       tls_args_check("add", &o->ra.tls, o->ra.secret_file,
				      o->target);
	}
	if (remote_opt)
		return usage_error("add", "--timeout, --dead-timeout, --reconnect-max, --secret-file, --integrity and --tls are for remote nodes");
	if (!*o->target)
		return usage_error("add", "empty device path");
	if (o->target[0] != '/')
		return usage_error("add", "device path '%s' is not absolute (as in dst.conf: /dev/...)",
				   o->target);
	o->type = DST_NODE_LOCAL;
	o->path = o->target;
	return EXIT_OK;
}

/* The id in the reply to DST_CMD_NODE_ADD: DST_A_NODE { ID }, if there. */
static int node_id_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *attr, *inner;
	uint32_t *id = data;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != DST_A_NODE)
			continue;
		mnl_attr_for_each_nested(inner, attr) {
			if (mnl_attr_get_type(inner) != DST_NODE_A_ID)
				continue;
			if (mnl_attr_validate(inner, MNL_TYPE_U32) < 0)
				break;
			*id = mnl_attr_get_u32(inner);
		}
	}
	return MNL_CB_OK;
}

int node_add(const struct add_opts *o, uint32_t *id)
{
	struct nlmsghdr *nlh;
	struct dst_nl nl;
	int ret;

	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	ret = EXIT_FAIL;
	*id = UINT32_MAX;
	nlh = dst_nl_msg(&nl, DST_CMD_NODE_ADD, 0);
	if (dst_nl_put_storage(&nl, nlh, o->name, NULL) < 0 ||
	    dst_nl_put_node(&nl, nlh, o->type,
			    o->type == DST_NODE_REMOTE ? &o->addr : NULL,
			    o->addr_len, o->path, &o->ra, &o->la) < 0)
		goto out;
	if (dst_nl_request(&nl, nlh, node_id_cb, id) < 0) {
		dst_nl_perror(&nl, "storage '%s': node %s", o->name, o->target);
		goto out;
	}
	if (*id == UINT32_MAX) {
		fprintf(stderr, "%s: storage '%s': node %s added, but the reply has no node id\n",
			PROG, o->name, o->target);
		goto out;
	}
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}

int cmd_add(int argc, char *argv[])
{
	struct add_opts o;
	uint32_t id;
	int ret;

	ret = add_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	ret = node_add(&o, &id);
	if (!ret)
		printf("node%u\n", id);
	return ret;
}

int remove_parse(int argc, char *argv[], struct remove_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "remove")) != -1) {
		if (c != 'h')
			return bad_option("remove", c, argv);
		o->help = true;
		print_command_help(stdout, find_command("remove"));
		return EXIT_OK;
	}
	if (optind >= argc)
		return usage_error("remove", "missing storage name");
	if (optind + 1 >= argc)
		return usage_error("remove", "missing node (nodeN or N, see status)");
	if (optind + 2 < argc)
		return usage_error("remove", "unexpected argument '%s'", argv[optind + 2]);
	o->name = argv[optind];
	o->node = argv[optind + 1];
	if (parse_node_id(o->node, &o->id) < 0)
		return usage_error("remove", "invalid node '%s': nodeN or N, see status",
				   o->node);
	return EXIT_OK;
}

int node_del(const char *name, uint32_t id)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct dst_nl nl;
	int ret = EXIT_FAIL;

	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;
	nlh = dst_nl_msg(&nl, DST_CMD_NODE_DEL, 0);
	if (dst_nl_put_storage(&nl, nlh, name, NULL) < 0)
		goto out;
	nest = mnl_attr_nest_start(nlh, DST_A_NODE);
	mnl_attr_put_u32(nlh, DST_NODE_A_ID, id);
	mnl_attr_nest_end(nlh, nest);
	if (dst_nl_request(&nl, nlh, NULL, NULL) < 0) {
		dst_nl_perror(&nl, "storage '%s': remove node%u", name, id);
		goto out;
	}
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}

int cmd_remove(int argc, char *argv[])
{
	struct remove_opts o;
	int ret;

	ret = remove_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	return node_del(o.name, o.id);
}
