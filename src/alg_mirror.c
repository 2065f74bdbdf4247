// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the "mirror" algorithm: every node holds a full copy.
 */
#include <linux/module.h>

#include "dst.h"

static struct dst_alg_ops dst_mirror_alg = {
	.name	= "mirror",
	.owner	= THIS_MODULE,
};

int __init dst_mirror_init(void)
{
	return dst_register_alg(&dst_mirror_alg);
}

void dst_mirror_exit(void)
{
	dst_unregister_alg(&dst_mirror_alg);
}
