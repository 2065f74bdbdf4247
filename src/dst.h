/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dst: distributed storage - objects shared by the parts of the module.
 */
#ifndef _DST_H
#define _DST_H

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "uapi/dst.h"

struct attribute_group;
struct kobject;
struct sk_buff;
struct socket;
struct dst_storage;
struct dst_node;
struct dst_remote;

#define DST_MAX_REQUEST		SZ_1M	/* bytes per READ/WRITE */
#define DST_MAX_SIZE		BIT_ULL(60)	/* bytes of a node or storage */
#define DST_MAX_PHYSICAL_BLOCK	SZ_64K	/* an export's physical block size */
#define DST_MAX_DEPTH		32	/* storages on storages, on this host */

/*
 * The large allocations of a command (a node's request table, a mirror's
 * bitmaps, whose size the admin chooses): a failure is the command's
 * ENOMEM, reported to dstadm, not an allocator warning in the log.
 */
#define DST_GFP_CMD		(GFP_KERNEL | __GFP_NOWARN)

/**
 * struct dst_alg_ops - a storage algorithm, registered like a dm target
 * @name:	name given to "dstadm create --alg"
 * @owner:	module that provides the algorithm; pinned by each storage
 * @max_nodes:	most nodes a storage takes, 0 for no limit
 * @chunked:	takes a chunk size (DST_STORAGE_A_CHUNK_SIZE) and resync
 *		speed limits
 * @maps_flush:	@map takes empty flushes and REQ_PREFLUSH itself; without
 *		it the disk sends flushes to every node
 * @fail_fast:	remote nodes fail I/O at once while down, never hold it:
 *		the algorithm has other nodes to go to
 * @no_write_zeroes: the disk takes no REQ_OP_WRITE_ZEROES, so that zeroes
 *		come as writes (md's raid1 likewise): a copy that one node
 *		cannot zero (EOPNOTSUPP) would leave the others' zeroed
 * @layout:	place the nodes of a stopped storage and set its size
 * @map:	send a bio of the storage's disk to its nodes
 * @start:	optional, make the state of a storage that starts running
 * @stop:	free it after the disk is gone
 * @add_running: optional, take a node into a running storage
 * @del_running: optional, let go of a node of a running storage; the
 *		node's sysfs directory is gone when it returns 0
 * @verify:	optional, start comparing the copies a running storage
 *		holds, and with @repair making them one
 * @resize:	take what the nodes grew by (dst_node_capacity()), stopped
 *		or running: set the nodes' and the storage's sizes, a
 *		multiple of the disk's block size while it runs
 * @fill_storage: optional, put the algorithm's DST_STORAGE_A_* of a
 *		running storage
 * @fill_node:	optional, likewise DST_NODE_A_* of a node
 * @storage_group: optional sysfs files in dst/ of a running storage
 * @node_group:	optional sysfs files in each dst/nodeN/
 * @list:	entry in the algorithm registry
 */
struct dst_alg_ops {
	const char *name;
	struct module *owner;
	unsigned int max_nodes;
	bool chunked;
	bool maps_flush;
	bool fail_fast;
	bool no_write_zeroes;
	void (*layout)(struct dst_storage *st);
	void (*map)(struct dst_storage *st, struct bio *bio);
	int (*start)(struct dst_storage *st, bool assume_clean,
		     const char **why);
	void (*stop)(struct dst_storage *st);
	int (*add_running)(struct dst_storage *st, struct dst_node *node,
			   const char **why);
	int (*del_running)(struct dst_storage *st, struct dst_node *node,
			   const char **why);
	int (*resize)(struct dst_storage *st, bool assume_clean,
		      const char **why);
	int (*verify)(struct dst_storage *st, bool repair, const char **why);
	int (*fill_storage)(struct sk_buff *skb, struct dst_storage *st);
	int (*fill_node)(struct sk_buff *skb, struct dst_node *node);
	const struct attribute_group *storage_group;
	const struct attribute_group *node_group;
	struct list_head list;
};

int dst_register_alg(struct dst_alg_ops *alg);
void dst_unregister_alg(struct dst_alg_ops *alg);
const struct dst_alg_ops *dst_alg_get(const char *name);
void dst_alg_put(const struct dst_alg_ops *alg);
int dst_alg_fill_names(struct sk_buff *skb, int attrtype);

int dst_linear_init(void);
void dst_linear_exit(void);
int dst_mirror_init(void);
void dst_mirror_exit(void);

/**
 * struct dst_node_limits - what a node can do, as its queue limits
 * @logical_block_size:	bytes
 * @physical_block_size: bytes
 * @max_request:	largest read or write in bytes
 * @read_only:		writes are refused
 * @stable_writes:	data must not change while written (it is checksummed)
 * @features:		DST_FEAT_* it supports
 */
struct dst_node_limits {
	u32 logical_block_size;
	u32 physical_block_size;
	u32 max_request;
	bool read_only;
	bool stable_writes;
	u64 features;
};

/*
 * TLS on a node's or an export's connections, as the agent is told to do
 * it: enum dst_tls_mode and dst_tls_cipher, the PSK (the secret), PEM
 * file paths and the name the export's certificate must have.
 */
struct dst_tls {
	u32 mode;
	u32 cipher;
	u8 *psk;
	unsigned int psk_len;
	char *cert;
	char *key;
	char *ca;
	char *name;
};

/* The attributes of TLS in a node's or an export's nest; name 0: none. */
struct dst_tls_attrs {
	int mode, cert, key, ca, name, cipher;
};

extern const struct dst_tls_attrs dst_node_tls_attrs, dst_export_tls_attrs;

/* How a remote node behaves; 0 for the defaults. */
struct dst_remote_opts {
	unsigned int timeout;		/* seconds a request may take */
	unsigned int dead_timeout;	/* seconds I/O is held while down */
	unsigned int reconnect_max;	/* seconds between reconnects, at most */
	const u8 *secret;		/* shared secret, NULL for none */
	unsigned int secret_len;
	bool integrity;			/* CRC32C on every message */
	const struct dst_tls *tls;	/* NULL: none */
};

struct dst_access;

/* What an export is asked to be. */
struct dst_export_opts {
	bool read_only;
	struct dst_access *acl;		/* allow list, NULL: loopback only */
	const u8 *secret;		/* shared secret, NULL for none */
	unsigned int secret_len;
	bool integrity;			/* clients must use CRC32C */
	bool shared;			/* writers of many sessions */
	const struct dst_tls *tls;	/* NULL: none */
};

/**
 * struct dst_node - a local block device or a remote export in a storage
 * @list:	entry in the storage's node list
 * @st:		the storage
 * @id:		index in the storage
 * @type:	enum dst_node_type
 * @start:	first byte of the storage that this node holds (linear)
 * @size:	bytes the storage uses (a mirror leg: all it had when last
 *		looked at)
 * @limits:	what the node can do
 * @bdev:	the device of a local node, opened exclusively
 * @path:	its path as given
 * @remote:	the connection of a remote node
 * @read_bytes:	bytes read through this node (local: submitted)
 * @write_bytes: bytes written through this node (local: submitted)
 * @kobj:	its sysfs directory while the storage runs
 * @priv:	the algorithm's state of the node while the storage runs
 * @leaving:	being taken out of a running storage: status leaves its
 *		algorithm's state alone
 * @write_mostly: a mirror leg that reads avoid while another can serve
 * @write_behind: writes it may be behind, acknowledged before it has them
 */
struct dst_node {
	struct list_head list;
	struct dst_storage *st;
	u32 id;
	enum dst_node_type type;
	u64 start;
	u64 size;
	struct dst_node_limits limits;
	struct block_device *bdev;
	char path[DST_PATH_MAX];
	struct dst_remote *remote;
	atomic64_t read_bytes;
	atomic64_t write_bytes;
	struct kobject *kobj;
	void *priv;
	bool leaving;
	bool write_mostly;
	u32 write_behind;
};

/**
 * struct dst_storage - a named storage built from nodes by an algorithm
 * @name:	unique name, see dst_name_valid()
 * @id:		N of /dev/dstN
 * @alg:	algorithm, holds a reference on its module
 * @state:	enum dst_storage_state
 * @size:	size in bytes
 * @nodes:	list of struct dst_node, in the order they were added
 * @nr_nodes:	number of nodes
 * @next_node_id: id of the next node added; ids are never reused
 * @chunk_size:	region size in bytes of a chunked algorithm, else 0
 * @resync_min:	a chunked algorithm's resync speed limits in KiB/s
 * @resync_max:	(sysfs writes them while it runs)
 * @bitmap:	path of a mirror's write-intent bitmap, "" for none
 * @disk:	/dev/dstN while running
 * @read_only:	a node is read only, so the disk is
 * @limits:	the nodes' limits stacked, as the running disk has them
 * @kobj:	its sysfs directory while running
 * @bs:		bio set for the clones and splits of the algorithms
 * @acct_bs:	bio set for the clones that end I/O accounting (disk.c)
 * @flush_lock:	protects @flushed
 * @flushed:	writes whose preflush of every node is done, to be sent
 * @flush_work:	sends them (disk.c)
 * @busy:	a command that runs without dst_storage_lock() claimed it
 * @closing:	stop saw no opener of the disk: it takes no new one
 * @priv:	the algorithm's state while running
 */
struct dst_storage {
	char name[DST_NAME_MAX];
	u32 id;
	const struct dst_alg_ops *alg;
	enum dst_storage_state state;
	u64 size;
	struct list_head nodes;
	u32 nr_nodes;
	u32 next_node_id;
	u32 chunk_size;
	u32 resync_min;
	u32 resync_max;
	char bitmap[DST_BITMAP_PATH_MAX];
	struct gendisk *disk;
	bool read_only;
	struct dst_node_limits limits;
	struct kobject *kobj;
	struct bio_set bs;
	struct bio_set acct_bs;
	spinlock_t flush_lock;		/* flushed */
	struct bio_list flushed;
	struct work_struct flush_work;
	bool busy;
	bool closing;
	void *priv;
};

/* /dev/dstN has 1 << DST_PART_SHIFT minors, for partitions. */
#define DST_PART_SHIFT		4
#define DST_MAX_STORAGES	(1U << (MINORBITS - DST_PART_SHIFT))

/*
 * The storage registry.  Lookups and iteration need dst_storage_lock();
 * a storage found under the lock stays valid until dst_storage_unlock().
 */
void dst_storage_lock(void);
void dst_storage_unlock(void);
bool dst_name_valid(const char *name);
struct dst_storage *dst_storage_create(const char *name,
				       const struct dst_alg_ops *alg,
				       u32 chunk_size, u32 resync_min,
				       u32 resync_max);
void dst_storage_unlist(struct dst_storage *st);
void dst_storage_destroy(struct dst_storage *st);
int dst_storage_add_node(struct dst_storage *st, struct dst_node *node,
			 const char **why);
int dst_storage_del_node(struct dst_storage *st, struct dst_node *node,
			 const char **why);
struct dst_node *dst_storage_node(struct dst_storage *st, u32 id);
struct dst_storage *dst_storage_find(const char *name);
struct dst_storage *dst_storage_next(u32 *id);

/* Growing: resize.c */
u64 dst_node_capacity(struct dst_node *node);
int dst_storage_resize(struct dst_storage *st, bool assume_clean,
		       const char **why);
void dst_storage_grow_later(void);
void dst_resize_exit(void);

/* Nodes: node.c */
struct dst_node *dst_node_create_remote(const struct sockaddr_storage *addr,
					int addrlen,
					const struct dst_remote_opts *opts,
					const char **why);
struct dst_node *dst_node_create_local(const char *path, const char **why);
void dst_node_destroy(struct dst_node *node);
void dst_node_submit(struct dst_node *node, struct bio *bio);
enum dst_node_state dst_node_state(struct dst_node *node);
int dst_node_fill(struct sk_buff *skb, struct dst_node *node);

/*
 * Tell listeners of the "events" group that @ev happened to @st, to its
 * node @node (U32_MAX: none); @bytes for DST_EVENT_RESYNC_DONE.  Best
 * effort, like every multicast: genl.c
 */
void dst_event(struct dst_storage *st, u32 node, enum dst_event ev,
	       u64 bytes, gfp_t gfp);

/* The client of a remote export: remote.c */
int dst_remote_init(void);
void dst_remote_exit(void);
struct dst_remote *dst_remote_connect(struct dst_node *node,
				      const struct sockaddr_storage *addr,
				      int addrlen,
				      const struct dst_remote_opts *opts,
				      const char **why);
int dst_remote_start(struct dst_remote *r, const char **why);
void dst_remote_destroy(struct dst_remote *r);
void dst_remote_submit(struct dst_remote *r, struct bio *bio);
enum dst_node_state dst_remote_state(struct dst_remote *r);
unsigned int dst_remote_inflight(struct dst_remote *r);
unsigned int dst_remote_reconnects(struct dst_remote *r);
unsigned int dst_remote_restarts(struct dst_remote *r);
void dst_remote_notify(struct dst_remote *r, wait_queue_head_t *wq);
void dst_remote_get_opts(struct dst_remote *r, struct dst_remote_opts *opts);
bool dst_remote_auth(struct dst_remote *r);
const struct dst_tls *dst_remote_tls(struct dst_remote *r);
u32 dst_remote_tls_cipher(struct dst_remote *r);
u64 dst_remote_crc_errors(struct dst_remote *r);
u64 dst_remote_session(struct dst_remote *r);
u64 dst_remote_size(struct dst_remote *r);
const struct sockaddr_storage *dst_remote_addr(struct dst_remote *r, int *len);

/* Socket helpers: sock.c */
struct dst_deadline {
	struct delayed_work work;
	struct socket *sock;
	bool expired;
};

void dst_deadline_start(struct dst_deadline *d, struct socket *sock,
			unsigned long timeout);
bool dst_deadline_end(struct dst_deadline *d);
int dst_sock_send(struct socket *sock, const void *buf, size_t len, bool more);
int dst_sock_recv(struct socket *sock, void *buf, size_t len);
int dst_sock_send_bio(struct socket *sock, struct bio *bio, bool whole,
		      bool more);
void dst_wait_for_stop(void);
int dst_sock_recv_bio(struct socket *sock, struct bio *bio);
void dst_sock_setup(struct socket *sock, bool memalloc, unsigned int timeout);
void dst_sock_lockdep(struct socket *sock);
void dst_sock_release(struct socket *sock);
int dst_sock_file(struct socket *sock);

/* TLS handshakes through the agent: tls.c */
struct dst_tls *dst_tls_dup(const struct dst_tls *tls);
void dst_tls_free(struct dst_tls *tls);
int dst_tls_handshake(struct socket *sock, const struct dst_tls *tls,
		      bool server, const struct sockaddr_storage *peer,
		      const char *name, unsigned long timeout, const char **why);

/**
 * struct dst_tls_grant - a handshake an agent took, until its reply is sent
 * @id:		the handshake's id
 * @fd:		reserved in the agent, for @file
 * @file:	the connection's socket, a reference of its own
 */
struct dst_tls_grant {
	u32 id;
	int fd;
	struct file *file;
};

int dst_tls_accept(struct sk_buff *skb, u32 agent, struct dst_tls_grant *g);
void dst_tls_grant_end(struct dst_tls_grant *g, bool sent);
const char *dst_tls_recv_error(int err);
int dst_tls_fill(struct sk_buff *skb, const struct dst_tls *tls,
		 const struct dst_tls_attrs *a);
int dst_tls_done(u32 id, u32 agent, int status, const char *message);
blk_status_t dst_status_to_blk(u32 status);
u32 dst_errno_to_status(int err);

/* The disk of a running storage: disk.c */
int dst_disk_init(void);
void dst_disk_exit(void);
int dst_storage_start(struct dst_storage *st, bool assume_clean,
		      const char **why);
int dst_storage_stop(struct dst_storage *st, const char **why);
struct dst_storage *dst_disk_storage(struct block_device *bdev);
int dst_disk_init_bioset(struct bio_set *bs);

/* sysfs: sysfs.c */
int dst_sysfs_add(struct dst_storage *st);
void dst_sysfs_del(struct dst_storage *st);
int dst_sysfs_add_node(struct dst_storage *st, struct dst_node *node);
void dst_sysfs_del_node(struct dst_node *node);
struct dst_storage *dst_kobj_storage(struct kobject *kobj);
struct dst_node *dst_kobj_node(struct kobject *kobj);

/* Exports: export.c, server.c */
struct dst_export;
struct dst_export *dst_export_create(const char *name, const char *path,
				     const struct sockaddr_storage *addr,
				     int addrlen, struct dst_export_opts *opts,
				     const char **why, int *err);
void dst_export_unlist(struct dst_export *exp);
void dst_export_destroy(struct dst_export *exp);
struct dst_export *dst_export_find(const char *name);
struct dst_export *dst_export_next(unsigned long *index);
struct block_device *dst_export_session_bdev(u64 session);
int dst_export_resize(struct dst_export *exp, const char **why);
void dst_export_disk_resized(struct gendisk *disk);
int dst_export_fill(struct sk_buff *skb, struct dst_export *exp);
void dst_export_lock(void);
void dst_export_unlock(void);
const char *dst_export_name(struct dst_export *exp);
int dst_server_init(void);
void dst_server_exit(void);

/* The shared-secret handshake: auth.c */
struct crypto_shash;
struct crypto_shash *dst_auth_new(const u8 *secret, unsigned int len);
void dst_auth_free(struct crypto_shash *tfm);
void dst_auth_challenge(u8 *challenge);
int dst_auth_response(struct crypto_shash *tfm, bool server, const u8 *cchal,
		      const u8 *schal, u8 *out);
bool dst_auth_check(struct crypto_shash *tfm, bool server, const u8 *cchal,
		    const u8 *schal, const u8 *resp);

#define DST_SESSION_MARK	64	/* chain values kept: one in this many */

/*
 * A client's session (uapi DST_SESSION_SPAN), of a remote node.
 * @id:		in every hello; not 0
 * @generation:	connections tried so far, the newest's in its hello
 * @marks:	values of the hash chain of its proofs, DST_SESSION_MARK
 *		steps apart; all zero without a secret (no proofs)
 */
struct dst_session {
	u64 id;
	u32 generation;
	u8 marks[DST_SESSION_SPAN / DST_SESSION_MARK + 1][DST_CHALLENGE_LEN];
};

void dst_session_start(struct dst_session *s, bool proofs);
void dst_session_proof(const struct dst_session *s, u8 *proof);
bool dst_session_proves(const u8 *proof, u32 steps, const u8 *older);

/* Checksums of messages: crc.c */
u32 dst_crc_buf(const void *buf, size_t len);
u32 dst_crc_hdr(const void *hdr, size_t len, __be32 *field);
u32 dst_crc_bio(struct bio *bio, struct bvec_iter iter);

/* Digests of blocks, for DST_REQ_CHECKSUM: digest.c */
void dst_digest_bio(struct bio *bio, struct bvec_iter iter, __be64 *out);
void dst_digest_pages(struct page **pages, u32 len, __be64 *out);

/*
 * A CHECKSUM request to a remote node with DST_FEAT_CHECKSUM: a
 * REQ_OP_DRV_IN bio without pages whose iter is the range; the digest of
 * each DST_CSUM_BLOCK of it lands in @sums.
 */
struct dst_csum {
	__be64 *sums;
	struct bio bio;
};

static inline u32 dst_csum_count(u32 len)
{
	return DIV_ROUND_UP(len, DST_CSUM_BLOCK);
}

bool dst_genl_tls_agent(void);
void dst_genl_tls_request(u32 id);
int dst_genl_init(void);
void dst_genl_exit(void);

#endif /* _DST_H */
