// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - module entry points.
 *
 * A storage is built from local and remote nodes by an algorithm (linear,
 * mirror) and is controlled through the "dst" generic netlink family.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

#include "dst.h"

static int __init dst_init(void)
{
	int err;

	err = dst_disk_init();
	if (err)
		return err;
	err = dst_remote_init();
	if (err)
		goto err_disk;
	err = dst_server_init();
	if (err)
		goto err_remote;
	err = dst_linear_init();
	if (err)
		goto err_server;
	err = dst_mirror_init();
	if (err)
		goto err_linear;
	err = dst_genl_init();
	if (err)
		goto err_mirror;

	pr_info("version %s loaded\n", DST_VERSION);
	return 0;

err_mirror:
	dst_mirror_exit();
err_linear:
	dst_linear_exit();
err_server:
	dst_server_exit();
err_remote:
	dst_remote_exit();
err_disk:
	dst_disk_exit();
	return err;
}

static void __exit dst_exit(void)
{
	dst_genl_exit();
	dst_resize_exit();
	dst_mirror_exit();
	dst_linear_exit();
	dst_server_exit();
	dst_remote_exit();
	dst_disk_exit();
}

module_init(dst_init);
module_exit(dst_exit);

MODULE_DESCRIPTION("dst: distributed storage from local and remote block devices");
MODULE_AUTHOR("dst developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(DST_VERSION);
