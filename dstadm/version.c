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

int cmd_version(int argc, char *argv[])
{
	struct module_info mi = { "", "" };
	struct nlmsghdr *nlh;
	struct dst_nl nl;
	int ret = EXIT_FAIL;

	if (argc > 1)
		return usage_error("version", "unexpected argument '%s'", argv[1]);

	printf("dstadm %s (control interface v%u)\n", DST_VERSION, DST_GENL_VERSION);
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	nlh = dst_nl_msg(&nl, DST_CMD_INFO, 0);
	if (dst_nl_request(&nl, nlh, info_cb, &mi) < 0) {
		dst_nl_perror(&nl, "module information");
		goto out;
	}
	printf("dst module %s (control interface v%u)\n", mi.version, nl.version);
	printf("algorithms: %s\n", mi.algs);
	if (strcmp(mi.version, DST_VERSION))
		fprintf(stderr, "%s: warning: dstadm %s and dst module %s differ\n",
			PROG, DST_VERSION, mi.version);
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}
