// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: grow storages and exports whose devices grew.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dstadm.h"
#include "nl.h"

int resize_parse(int argc, char *argv[], struct resize_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "resize")) != -1) {
		switch (c) {
		case 'A':
			o->assume_clean = true;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("resize"));
			return EXIT_OK;
		default:
			return bad_option("resize", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("resize", "missing storage or export name");
	if (optind + 1 < argc)
		return usage_error("resize", "unexpected argument '%s'", argv[optind + 1]);
	o->name = argv[optind];
	return EXIT_OK;
}

/*
 * Send @cmd for the storage or export @name; 1 if there is none so
 * called, 0 when done, -1 on an error, which is printed.
 */
static int resize_one(struct dst_nl *nl, uint8_t cmd, const struct resize_opts *o)
{
	bool storage = cmd == DST_CMD_STORAGE_RESIZE;
	struct storage_args args = { .assume_clean = o->assume_clean };
	struct export_opts eo = { .name = o->name };
	struct nlmsghdr *nlh = dst_nl_msg(nl, cmd, 0);

	if ((storage ? dst_nl_put_storage(nl, nlh, o->name, &args) :
		       dst_nl_put_export(nl, nlh, &eo)) < 0)
		return -1;
	if (dst_nl_request(nl, nlh, NULL, NULL) == 0)
		return 0;
	if (errno == ENOENT)
		return 1;
	dst_nl_perror(nl, "%s '%s'", storage ? "storage" : "export", o->name);
	return -1;
}

/* Print the size the storage and the export called @name have now. */
static int resize_report(struct dst_nl *nl, const char *name)
{
	struct storage_list l = { NULL, 0, 0 };
	struct export_list el = { NULL, 0, 0 };
	char size[32];
	size_t i;
	int ret;

	ret = dst_nl_request(nl, dst_nl_msg(nl, DST_CMD_STORAGE_GET, NLM_F_DUMP),
			     storage_list_cb, &l) ?:
	      dst_nl_request(nl, dst_nl_msg(nl, DST_CMD_EXPORT_GET, NLM_F_DUMP),
			     export_list_cb, &el);
	for (i = 0; !ret && i < l.n; i++) {
		if (strcmp(l.v[i].name, name))
			continue;
		format_size(size, sizeof(size), l.v[i].size);
		printf("storage %s: %s (%llu bytes)\n", name, size,
		       (unsigned long long)l.v[i].size);
	}
	for (i = 0; !ret && i < el.n; i++) {
		if (strcmp(el.v[i].name, name))
			continue;
		format_size(size, sizeof(size), el.v[i].size);
		printf("export %s: %s (%llu bytes)\n", name, size,
		       (unsigned long long)el.v[i].size);
	}
	if (ret)
		dst_nl_perror(nl, "status");
	storage_list_free(&l);
	free(el.v);
	return ret;
}

int cmd_resize(int argc, char *argv[])
{
	struct resize_opts o;
	struct dst_nl nl;
	int ret, st, ex;

	ret = resize_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	/* The storage first: an export of its disk grows with it. */
	ret = EXIT_FAIL;
	st = resize_one(&nl, DST_CMD_STORAGE_RESIZE, &o);
	if (st < 0)
		goto out;
	ex = resize_one(&nl, DST_CMD_EXPORT_RESIZE, &o);
	if (ex < 0)
		goto out;
	if (st && ex) {
		fprintf(stderr, "%s: '%s': no such storage or export\n", PROG, o.name);
		goto out;
	}
	if (resize_report(&nl, o.name) == 0)
		ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}
