// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: add nodes to storages.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "dstadm.h"
#include "nl.h"

static const struct option add_options[] = {
	{ "timeout", required_argument, NULL, 't' },
	{ "help",    no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int add_parse(int argc, char *argv[], struct add_opts *o)
{
	bool timeout = false;
	const char *type;
	int c, ret;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:h", add_options, NULL)) != -1) {
		switch (c) {
		case 't':
			ret = parse_timeout("add", optarg, &o->timeout);
			if (ret)
				return ret;
			timeout = true;
			break;
		case 'h':
			o->help = true;
			print_command_usage(stdout, find_command("add"));
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
				      &o->addr_len);
	}
	if (timeout)
		return usage_error("add", "--timeout is for remote nodes");
	if (!*o->target)
		return usage_error("add", "empty device path");
	o->type = DST_NODE_LOCAL;
	o->path = o->target;
	return EXIT_OK;
}

int cmd_add(int argc, char *argv[])
{
	struct nlmsghdr *nlh;
	struct add_opts o;
	struct dst_nl nl;
	int ret;

	ret = add_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	ret = EXIT_FAIL;
	nlh = dst_nl_msg(&nl, DST_CMD_NODE_ADD, 0);
	if (dst_nl_put_storage(&nl, nlh, o.name, NULL) < 0 ||
	    dst_nl_put_node(&nl, nlh, o.type,
			    o.type == DST_NODE_REMOTE ? &o.addr : NULL,
			    o.addr_len, o.path, o.timeout) < 0)
		goto out;
	if (dst_nl_request(&nl, nlh, NULL, NULL) < 0) {
		dst_nl_perror(&nl, "storage '%s': node %s", o.name, o.target);
		goto out;
	}
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}
