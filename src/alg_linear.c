// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the "linear" algorithm: nodes concatenated
 * in the order they are added.
 */
#include <linux/module.h>

#include "dst.h"

static struct dst_alg_ops dst_linear_alg = {
	.name	= "linear",
	.owner	= THIS_MODULE,
};

int __init dst_linear_init(void)
{
	return dst_register_alg(&dst_linear_alg);
}

void dst_linear_exit(void)
{
	dst_unregister_alg(&dst_linear_alg);
}
