/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dst: distributed storage - the export server's objects.
 */
#ifndef _DST_EXPORT_H
#define _DST_EXPORT_H

#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <net/netlink.h>

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
 * @lock:	protects @clients, @nr_clients, @handshakes and @closing
 * @clients:	connected clients
 * @closing:	no new clients
 * @nr_clients:	length of @clients
 * @handshakes:	clients whose handshake is not done yet; at most
 *		DST_MAX_HANDSHAKES, more connections wait in the backlog;
 *		once half are taken, DST_HOST_HANDSHAKES per address
 * @wait:	woken when a handshake ends or a client goes
 * @threads:	client threads still running, plus one for the export
 * @gone:	completed when @threads drops to 0, after which no client
 *		thread touches the export
 * @refused:	connections closed for invalid input
 * @denied:	clients the allow list refused
 * @auth_failed: handshakes with the secret that failed
 * @crc_errors:	checksum mismatches of clients' messages
 * @acl:	allow list, NULL: loopback clients only
 * @auth:	the keyed HMAC of the secret, NULL for none
 * @tls:	TLS on each connection, NULL for none
 * @integrity:	clients must use CRC32C
 * @shared:	clients of more than one session may write
 * @instance:	this start of the export, random and not 0, in every hello
 *		reply: clients tell a restart (and its lost cache) by it
 * @size:	bytes served, and what the device can do
 */
struct dst_export {
	char name[DST_NAME_MAX];
	char path[DST_PATH_MAX];
	u32 index;
	struct block_device *bdev;
	fmode_t mode;
	bool read_only;
	struct sockaddr_storage addr;
	int addrlen;
	struct socket *listen;
	struct task_struct *acceptor;
	struct mutex lock;		/* see above */
	struct list_head clients;
	bool closing;
	unsigned int nr_clients;
	unsigned int handshakes;
	wait_queue_head_t wait;
	atomic_t threads;
	struct completion gone;
	atomic64_t refused;
	atomic64_t denied;
	atomic64_t auth_failed;
	atomic64_t crc_errors;
	struct dst_access *acl;
	struct crypto_shash *auth;
	struct dst_tls *tls;
	bool integrity;
	bool shared;
	u64 instance;
	u64 size;
	u32 logical_block_size;
	u32 physical_block_size;
	u32 max_request;
	u64 features;
};

#define DST_MAX_HANDSHAKES	32
/* Of those, what one address may have once half are taken. */
#define DST_HOST_HANDSHAKES	4

struct dst_client;

/* Allow lists: access.c */
extern const struct nla_policy dst_allow_policy[DST_ALLOW_A_MAX + 1];
struct dst_access *dst_access_parse(struct nlattr *nest,
				    struct netlink_ext_ack *extack);
void dst_access_free(struct dst_access *acl);
bool dst_access_check(const struct dst_access *acl,
		      const struct sockaddr_storage *peer, bool *read_only,
		      const char **name);
bool dst_access_has_names(const struct dst_access *acl);
int dst_access_fill(struct sk_buff *skb, int attrtype,
		    const struct dst_access *acl);

void dst_client_start(struct dst_export *exp, struct socket *sock);
int dst_export_set_size(struct dst_export *exp, u64 size, const char **why);
void dst_export_close_clients(struct dst_export *exp);
bool dst_export_serves(struct dst_export *exp, u64 session);
int dst_export_fill_clients(struct sk_buff *skb, struct dst_export *exp);

#endif /* _DST_EXPORT_H */
