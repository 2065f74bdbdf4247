// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: versions of the tool, the module and the control interface.
 */
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>

#include "dstadm.h"
#include "nl.h"

struct module_info {
	char version[64];
	char algs[256];
};

static int info_cb(const struct nlmsghdr *nlh, void *data)
{
	struct module_info *mi = data;
	const struct nlattr *attr, *alg;
	size_t len;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case DST_A_VERSION:
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
				snprintf(mi->version, sizeof(mi->version), "%s",
					 mnl_attr_get_str(attr));
			break;
		case DST_A_ALGS:
			mnl_attr_for_each_nested(alg, attr) {
				if (mnl_attr_get_type(alg) != DST_ALG_A_NAME ||
				    mnl_attr_validate(alg, MNL_TYPE_NUL_STRING) < 0)
					continue;
				len = strlen(mi->algs);
				snprintf(mi->algs + len, sizeof(mi->algs) - len, "%s%s",
					 len ? ", " : "", mnl_attr_get_str(alg));
			}
			break;
		}
	}
	return MNL_CB_OK;
}

/* The loaded module's version in @mi; -1 after reporting the error. */
static int module_info(struct dst_nl *nl, struct module_info *mi)
{
	struct nlmsghdr *nlh = dst_nl_msg(nl, DST_CMD_INFO, 0);

	memset(mi, 0, sizeof(*mi));
	if (dst_nl_request(nl, nlh, info_cb, mi) < 0) {
		dst_nl_perror(nl, "module information");
		return -1;
	}
	return 0;
}

/*
 * After a package upgrade the module that runs is the old one until the
 * next boot (an upgrade never unloads it: that would stop every storage);
 * say so, and what to do, wherever the versions differ.
 */
static void skew_note(const char *module_version)
{
	if (!strcmp(module_version, DST_VERSION))
		return;
	fprintf(stderr,
		"%s: note: the loaded dst module is %s, dstadm is %s: the storages keep running on %s; "
		"the module of dstadm's version (built by DKMS) is loaded at the next boot, "
		"or once every storage and export is down (modprobe -r %s; modprobe %s)\n",
		PROG, module_version, DST_VERSION, module_version,
		DST_MODULE_NAME, DST_MODULE_NAME);
}

void module_skew_note(struct dst_nl *nl)
{
	struct module_info mi;

	if (module_info(nl, &mi) == 0)
		skew_note(mi.version);
}

int cmd_version(int argc, char *argv[])
{
	struct module_info mi;
	struct dst_nl nl;
	int ret = EXIT_FAIL;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		print_command_help(stdout, find_command("version"));
		return EXIT_OK;
	}
	if (argc > 1)
		return usage_error("version", "unexpected argument '%s'", argv[1]);

	printf("dstadm %s (control interface v%u)\n", DST_VERSION, DST_GENL_VERSION);
	/* The tool's version is the answer; a missing module is only noted. */
	if (dst_nl_open(&nl) < 0)
		return EXIT_OK;
	if (module_info(&nl, &mi) < 0)
		goto out;
	printf("dst module %s (control interface v%u)\n", mi.version, nl.version);
	printf("algorithms: %s\n", mi.algs);
	skew_note(mi.version);
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}
