/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dst: distributed storage - the export server's objects.
 */
#ifndef _DST_EXPORT_H
#define _DST_EXPORT_H

#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/wait.h>

#include "dst.h"

/**
 * struct dst_export - a block device served to clients on a TCP port
 * @name:	unique name
 * @path:	the device's path as given
 * @index:	key in the export registry
 * @bdev:	the device, opened exclusively with @mode
 * @read_only:	writes get DST_EROFS
 * @addr:	address listened on
 * @listen:	listening socket
 * @acceptor:	thread accepting connections
 * @lock:	protects @clients and @closing
 * @clients:	connected clients
 * @closing:	no new clients
 * @nr_clients:	length of @clients
 * @wait:	woken when a client goes
 * @refused:	connections closed for invalid input
 * @size:	bytes served, and what the device can do
 */
struct dst_export {
	char name[DST_NAME_MAX];
	char path[128];
	u32 index;
	struct block_device *bdev;
	fmode_t mode;
	bool read_only;
	struct sockaddr_storage addr;
	int addrlen;
	struct socket *listen;
	struct task_struct *acceptor;
	struct mutex lock;		/* clients, closing */
	struct list_head clients;
	bool closing;
	unsigned int nr_clients;
	wait_queue_head_t wait;
	atomic64_t refused;
	u64 size;
	u32 logical_block_size;
	u32 physical_block_size;
	u32 max_request;
	u64 features;
};

struct dst_client;

void dst_client_start(struct dst_export *exp, struct socket *sock);
void dst_export_close_clients(struct dst_export *exp);

#endif /* _DST_EXPORT_H */
