// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: create and delete storages.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "dstadm.h"
#include "nl.h"

static const struct option create_options[] = {
	{ "alg",  required_argument, NULL, 'a' },
	{ "help", no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int create_parse(int argc, char *argv[], struct create_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":a:h", create_options, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->alg = optarg;
			break;
		case 'h':
			o->help = true;
			print_command_usage(stdout, find_command("create"));
			return EXIT_OK;
		default:
			return bad_option("create", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("create", "missing storage name");
	if (optind + 1 < argc)
		return usage_error("create", "unexpected argument '%s'", argv[optind + 1]);
	if (!o->alg)
		return usage_error("create", "missing --alg ALG (e.g. linear, mirror)");
	o->name = argv[optind];
	return EXIT_OK;
}

/* Send @cmd for the storage @name (and @alg); report any error. */
static int storage_request(uint8_t cmd, const char *name, const char *alg)
{
	struct nlmsghdr *nlh;
	struct dst_nl nl;
	int ret = EXIT_FAIL;

	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	nlh = dst_nl_msg(&nl, cmd, 0);
	if (dst_nl_put_storage(&nl, nlh, name, alg) < 0)
		goto out;
	if (dst_nl_request(&nl, nlh, NULL, NULL) < 0) {
		dst_nl_perror(&nl, "storage '%s'", name);
		goto out;
	}
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}

int cmd_create(int argc, char *argv[])
{
	struct create_opts o;
	int ret;

	ret = create_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	return storage_request(DST_CMD_STORAGE_NEW, o.name, o.alg);
}

static const struct option delete_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int delete_parse(int argc, char *argv[], struct delete_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", delete_options, NULL)) != -1) {
		if (c != 'h')
			return bad_option("delete", c, argv);
		o->help = true;
		print_command_usage(stdout, find_command("delete"));
		return EXIT_OK;
	}
	if (optind >= argc)
		return usage_error("delete", "missing storage name");
	if (optind + 1 < argc)
		return usage_error("delete", "unexpected argument '%s'", argv[optind + 1]);
	o->name = argv[optind];
	return EXIT_OK;
}

int cmd_delete(int argc, char *argv[])
{
	struct delete_opts o;
	int ret;

	ret = delete_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	return storage_request(DST_CMD_STORAGE_DEL, o.name, NULL);
}
