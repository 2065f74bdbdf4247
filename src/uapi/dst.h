/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dst: distributed storage - interface shared by the kernel module and dstadm.
 *
 * This header is the single source of truth for the generic netlink control
 * interface.  Numbers are ABI: append new commands and attributes before the
 * __*_MAX markers, never renumber or reuse one.  An incompatible change bumps
 * DST_GENL_VERSION.
 */
#ifndef _UAPI_LINUX_DST_H
#define _UAPI_LINUX_DST_H

#include <linux/const.h>
#include <linux/types.h>

/* ------------------------------------------------------------------------
 * Control interface: the "dst" generic netlink family.
 */

#define DST_GENL_NAME		"dst"
/*
 * The module's name: unique among the kernel's modules (Debian's kernel has
 * a bt8xx DVB driver named "dst").  Its genl family alias loads it.
 */
#define DST_MODULE_NAME		"dst_storage"
#define DST_GENL_VERSION	1
#define DST_GENL_MCGRP_EVENTS	"events"
/* Handshake requests for the TLS agent (dstadm tlsd): see DST_CMD_TLS_*. */
#define DST_GENL_MCGRP_TLS	"tls"

/* Storage and algorithm names, including the terminating NUL. */
#define DST_NAME_MAX		32
#define DST_ALG_NAME_MAX	16
/* Device paths of nodes and exports, including the NUL. */
#define DST_PATH_MAX		128
/*
 * A storage or export name is 1 to DST_NAME_MAX - 1 characters, each a
 * letter, a digit or one of DST_NAME_PUNCT, and starts with neither '.'
 * nor '-': safe as a file name in sysfs and as the /dev/dst/NAME link.
 */
#define DST_NAME_PUNCT		"_.-"
/* A remote node's request timeout and its longest time between reconnects. */
#define DST_DEFAULT_TIMEOUT	30	/* seconds, as nbd's */
#define DST_DEFAULT_RECONNECT_MAX 30	/* seconds */
#define DST_MAX_TIMEOUT		86400	/* seconds: request and dead timeouts */
#define DST_MAX_RECONNECT	3600	/* seconds */
#define DST_MAX_WRITE_BEHIND	16383	/* writes, as md's */

/*
 * Commands.  Every command needs CAP_NET_ADMIN.
 *
 * DST_CMD_INFO		reply: DST_A_VERSION, DST_A_ALGS
 * DST_CMD_STORAGE_NEW	request: DST_A_STORAGE { NAME, ALG, CHUNK_SIZE,
 *			RESYNC_MIN, RESYNC_MAX, BITMAP }
 *			also multicast on "events" after a storage is created
 * DST_CMD_STORAGE_DEL	request: DST_A_STORAGE { NAME }
 *			also multicast on "events" after a storage is deleted
 * DST_CMD_STORAGE_GET	request: DST_A_STORAGE { NAME }, or NLM_F_DUMP for all
 *			reply: DST_A_STORAGE { NAME, ALG, ID, STATE, SIZE,
 *			CHUNK_SIZE, RESYNC_*, BITMAP, STARTED,
 *			BITMAP_REGIONS, NODES }
 * DST_CMD_STORAGE_START	request: DST_A_STORAGE { NAME, ASSUME_CLEAN }: make
 *			/dev/dstN
 * DST_CMD_STORAGE_STOP	request: DST_A_STORAGE { NAME }: remove /dev/dstN
 * DST_CMD_NODE_ADD	request: DST_A_STORAGE { NAME }, DST_A_NODE { TYPE, ADDR
 *			or PATH, TIMEOUT }; a running storage takes a node
 *			only if its algorithm can (mirror: a new leg, resynced)
 *			reply: DST_A_NODE { ID }
 * DST_CMD_NODE_DEL	request: DST_A_STORAGE { NAME }, DST_A_NODE { ID }
 * DST_CMD_EXPORT_NEW	request: DST_A_EXPORT { NAME, DEVICE, ADDR, READ_ONLY }
 *			also multicast on "events"
 * DST_CMD_EXPORT_DEL	request: DST_A_EXPORT { NAME }; also multicast
 * DST_CMD_EXPORT_GET	request: DST_A_EXPORT { NAME }, or NLM_F_DUMP for all
 *			reply: DST_A_EXPORT { NAME, DEVICE, ADDR, READ_ONLY, SIZE,
 *			CLIENTS, REFUSED }
 * DST_CMD_EVENT	multicast on "events" only: DST_A_EVENT { TYPE,
 *			STORAGE, NODE, BYTES } when a node goes down or comes
 *			back, a leg goes out of sync, a resync starts, ends
 *			or is cut short, a storage grows; not a request
 * DST_CMD_STORAGE_RESIZE request: DST_A_STORAGE { NAME, ASSUME_CLEAN }: take
 *			what the nodes grew by (linear: the last node; mirror:
 *			the smallest leg); a mirror resyncs the new area
 *			unless ASSUME_CLEAN
 * DST_CMD_EXPORT_RESIZE request: DST_A_EXPORT { NAME }: serve the device's
 *			size now, and tell the clients
 * DST_CMD_STORAGE_VERIFY request: DST_A_STORAGE { NAME, REPAIR }: compare
 *			the legs of a running mirror in the background, count
 *			the blocks that differ and, with REPAIR, copy them
 *			from the first leg in sync
 * DST_CMD_TLS_REQUEST	multicast on "tls" only: DST_A_TLS { ID }: a TLS
 *			connection waits for its handshake; not a request
 * DST_CMD_TLS_ACCEPT	request: nothing; reply: DST_A_TLS { ID, FD, ROLE,
 *			MODE, PSK, CERT, KEY, CA, NAME, PEER, TIMEOUT } of the
 *			oldest connection waiting, its socket installed as FD
 *			in the caller; ENOENT when none waits
 * DST_CMD_TLS_DONE	request: DST_A_TLS { ID, STATUS, MESSAGE }: the
 *			handshake of ID is over; with STATUS 0 the socket has
 *			the kernel's TLS layer on for both directions
 */
enum dst_cmd {
	DST_CMD_UNSPEC,
	DST_CMD_INFO,
	DST_CMD_STORAGE_NEW,
	DST_CMD_STORAGE_DEL,
	DST_CMD_STORAGE_GET,
	DST_CMD_STORAGE_START,
	DST_CMD_STORAGE_STOP,
	DST_CMD_NODE_ADD,
	DST_CMD_EXPORT_NEW,
	DST_CMD_EXPORT_DEL,
	DST_CMD_EXPORT_GET,
	DST_CMD_NODE_DEL,
	DST_CMD_EVENT,
	DST_CMD_STORAGE_RESIZE,
	DST_CMD_EXPORT_RESIZE,
	DST_CMD_STORAGE_VERIFY,
	DST_CMD_TLS_REQUEST,
	DST_CMD_TLS_ACCEPT,
	DST_CMD_TLS_DONE,
	__DST_CMD_MAX,
};

#define DST_CMD_MAX (__DST_CMD_MAX - 1)

/* Top-level attributes. */
enum dst_attr {
	DST_A_UNSPEC,
	DST_A_VERSION,		/* string: module version (reply only) */
	DST_A_ALGS,		/* nest of DST_ALG_A_NAME (reply only) */
	DST_A_STORAGE,		/* nest: enum dst_storage_attr */
	DST_A_NODE,		/* nest: enum dst_node_attr */
	DST_A_EXPORT,		/* nest: enum dst_export_attr */
	DST_A_EVENT,		/* nest: enum dst_event_attr (events only) */
	DST_A_CLIENT,		/* nest: enum dst_client_attr (reply only) */
	DST_A_TLS,		/* nest: enum dst_tls_attr (TLS commands) */
	__DST_A_MAX,
};

#define DST_A_MAX (__DST_A_MAX - 1)

/* Inside DST_A_EVENT. */
enum dst_event_attr {
	DST_EVENT_A_UNSPEC,
	DST_EVENT_A_TYPE,	/* u32: enum dst_event */
	DST_EVENT_A_STORAGE,	/* string: the storage's name */
	DST_EVENT_A_NODE,	/* u32: the node's id */
	/*
	 * u64: RESYNC_DONE: bytes the storage resynced so far; RESIZE: its
	 * new size
	 */
	DST_EVENT_A_BYTES,
	DST_EVENT_A_PAD,
	DST_EVENT_A_MISMATCHES,	/* u64: VERIFY_DONE: blocks that differed */
	__DST_EVENT_A_MAX,
};

#define DST_EVENT_A_MAX (__DST_EVENT_A_MAX - 1)

enum dst_event {
	DST_EVENT_NODE_DOWN,		/* a remote node's connection ended */
	DST_EVENT_NODE_UP,		/* it connected again */
	DST_EVENT_LEG_OUT_OF_SYNC,	/* a mirror leg failed */
	DST_EVENT_RESYNC_START,		/* a leg started to resync */
	DST_EVENT_RESYNC_DONE,		/* a leg is in sync */
	DST_EVENT_RESYNC_ABORT,		/* a resyncing leg failed */
	DST_EVENT_RESIZE,		/* the storage grew */
	DST_EVENT_VERIFY_START,		/* a verify of the mirror started */
	DST_EVENT_VERIFY_DONE,		/* it ended, or was cut short */
	__DST_EVENT_MAX,
};

/* Inside DST_A_ALGS: one DST_ALG_A_NAME per registered algorithm. */
enum dst_alg_attr {
	DST_ALG_A_UNSPEC,
	DST_ALG_A_NAME,		/* string */
	__DST_ALG_A_MAX,
};

#define DST_ALG_A_MAX (__DST_ALG_A_MAX - 1)

/* Inside DST_A_STORAGE. */
enum dst_storage_attr {
	DST_STORAGE_A_UNSPEC,
	DST_STORAGE_A_NAME,	/* string: [A-Za-z0-9_.-], not starting with '.' or '-' */
	DST_STORAGE_A_ALG,	/* string: algorithm name */
	DST_STORAGE_A_ID,	/* u32: N of /dev/dstN (assigned, reply only) */
	DST_STORAGE_A_STATE,	/* u32: enum dst_storage_state (reply only) */
	DST_STORAGE_A_SIZE,	/* u64: size in bytes (reply only) */
	DST_STORAGE_A_PAD,
	DST_STORAGE_A_NODES,	/* nest of DST_A_NODE nests (reply only) */
	/*
	 * u32: region size of a mirror in bytes, a power of two from
	 * DST_CHUNK_MIN to DST_CHUNK_MAX; 0 or absent: DST_CHUNK_DEFAULT
	 */
	DST_STORAGE_A_CHUNK_SIZE,
	/*
	 * flag, START and RESIZE only: the legs of a mirror (or the area
	 * they grew by) are identical, no resync
	 */
	DST_STORAGE_A_ASSUME_CLEAN,
	/* u64: bytes copied by resync since the start (reply only) */
	DST_STORAGE_A_RESYNC_BYTES,
	/*
	 * u32: resync speed limits of a mirror in KiB/s, as md's
	 * sync_speed_min/max: at most MAX, and no more than MIN while the
	 * disk has other I/O; 0 or absent: DST_RESYNC_MIN/MAX_DEFAULT
	 */
	DST_STORAGE_A_RESYNC_MIN,
	DST_STORAGE_A_RESYNC_MAX,
	DST_STORAGE_A_RESYNC_RATE,	/* u64: bytes/s now (reply only) */
	DST_STORAGE_A_RESYNC_LEFT,	/* u64: bytes left to copy (reply only) */
	/*
	 * string, NEW only: absolute path of a mirror's write-intent bitmap,
	 * a regular file (created if missing) or a block device of the host,
	 * never one of the legs; see "Bitmap file" below
	 */
	DST_STORAGE_A_BITMAP,
	DST_STORAGE_A_STARTED,	/* u32: enum dst_start (reply only, running) */
	/* u64: regions set in the bitmap now (reply only, running, bitmap) */
	DST_STORAGE_A_BITMAP_REGIONS,
	/* flag, VERIFY only: copy the blocks that differ */
	DST_STORAGE_A_REPAIR,
	/*
	 * u64: blocks of DST_CSUM_BLOCK bytes that differed between legs in
	 * the last or running verify (reply only, running mirror)
	 */
	DST_STORAGE_A_MISMATCHES,
	/* u64: bytes the running verify has left, 0: none runs (reply only) */
	DST_STORAGE_A_VERIFY_LEFT,
	/* flag: the running or last verify repairs (reply only) */
	DST_STORAGE_A_VERIFY_REPAIR,
	__DST_STORAGE_A_MAX,
};

#define DST_STORAGE_A_MAX (__DST_STORAGE_A_MAX - 1)

#define DST_BITMAP_PATH_MAX	256	/* including the NUL */

/* How a running mirror started: what it had to trust its legs. */
enum dst_start {
	DST_START_FULL,		/* nothing: legs but the first resynced in full */
	DST_START_ASSUME_CLEAN,	/* the admin said the legs are identical */
	DST_START_CLEAN,	/* the bitmap: a clean stop, legs in sync trusted */
	DST_START_UNCLEAN,	/* the bitmap: an unclean stop, its regions resynced */
	__DST_START_MAX,
};

/* Mirror region ("chunk") sizes: one dirty bit per region and leg. */
#define DST_CHUNK_MIN		4096
#define DST_CHUNK_MAX		0x40000000	/* 1 GiB */
#define DST_CHUNK_DEFAULT	0x100000	/* 1 MiB: 256 KiB of bitmap for 2 TiB */

/* Resync speed limits, KiB/s: md's maximum; a minimum ten times md's. */
#define DST_RESYNC_MIN_DEFAULT	10000
#define DST_RESYNC_MAX_DEFAULT	200000

enum dst_storage_state {
	DST_STORAGE_STOPPED,	/* created, nodes may be added, no disk */
	DST_STORAGE_RUNNING,	/* started, /dev/dstN exists */
	__DST_STORAGE_STATE_MAX,
};

/*
 * Inside DST_A_NODE.  Addresses are a struct sockaddr_in or sockaddr_in6 as
 * bytes, port included; the attribute length tells which.
 */
enum dst_node_attr {
	DST_NODE_A_UNSPEC,
	DST_NODE_A_TYPE,	/* u32: enum dst_node_type */
	DST_NODE_A_ADDR,	/* binary sockaddr: remote export */
	DST_NODE_A_PATH,	/* string: local block device */
	DST_NODE_A_TIMEOUT,	/* u32: request timeout in seconds, 0 = default */
	DST_NODE_A_ID,		/* u32: index in the storage (reply only) */
	DST_NODE_A_STATE,	/* u32: enum dst_node_state (reply only) */
	DST_NODE_A_SIZE,	/* u64: bytes (reply only) */
	DST_NODE_A_INFLIGHT,	/* u32: requests in flight (reply only) */
	DST_NODE_A_READ_BYTES,	/* u64 (reply only) */
	DST_NODE_A_WRITE_BYTES,	/* u64 (reply only) */
	DST_NODE_A_PAD,
	/* u32: enum dst_sync_state of a leg of a running mirror (reply only) */
	DST_NODE_A_SYNC,
	DST_NODE_A_REGIONS,	/* u64: regions of the leg (reply only) */
	DST_NODE_A_DIRTY,	/* u64: regions out of date (reply only) */
	/* u32: remote: seconds I/O is held while the node is down, 0 = none */
	DST_NODE_A_DEAD_TIMEOUT,
	/* u32: remote: most seconds between reconnects, 0 = default 30 */
	DST_NODE_A_RECONNECT_MAX,
	DST_NODE_A_RECONNECTS,	/* u32: remote: connections made again (reply only) */
	/*
	 * binary, ADD only, 1 to DST_SECRET_MAX bytes: remote: the export's
	 * shared secret; both ends prove they know it.  Never sent back.
	 */
	DST_NODE_A_SECRET,
	DST_NODE_A_INTEGRITY,	/* flag: remote: CRC32C on every message */
	DST_NODE_A_AUTH,	/* flag: remote: has a secret (reply only) */
	DST_NODE_A_CRC_ERRORS,	/* u64: remote: checksum mismatches (reply only) */
	/* flag, ADD: a mirror leg that reads avoid while another can serve */
	DST_NODE_A_WRITE_MOSTLY,
	/*
	 * u32, ADD: a write-mostly leg's writes acknowledged before it has
	 * them, at most this many at a time (DST_MAX_WRITE_BEHIND); 0: none
	 */
	DST_NODE_A_WRITE_BEHIND,
	DST_NODE_A_BEHIND,	/* u32: writes it is behind now (reply only) */
	/* u32, ADD: remote: enum dst_tls_mode, absent: DST_TLS_NONE; reply */
	DST_NODE_A_TLS,
	/* strings, ADD, X.509: absolute paths of PEM files, as DST_TLS_A_* */
	DST_NODE_A_TLS_CERT,
	DST_NODE_A_TLS_KEY,
	DST_NODE_A_TLS_CA,
	/* string, ADD, X.509: the name the export's certificate must have */
	DST_NODE_A_TLS_NAME,
	/* u32, ADD: enum dst_tls_cipher, the only one to use; reply */
	DST_NODE_A_TLS_CIPHER,
	/* u32: enum dst_tls_cipher of the TLS connection now (reply only) */
	DST_NODE_A_TLS_CIPHER_USED,
	__DST_NODE_A_MAX,
};

#define DST_NODE_A_MAX (__DST_NODE_A_MAX - 1)

enum dst_node_type {
	DST_NODE_LOCAL,
	DST_NODE_REMOTE,
	__DST_NODE_TYPE_MAX,
};

enum dst_node_state {
	DST_NODE_CONNECTED,	/* remote: handshake done; local: open */
	DST_NODE_DEAD,		/* remote: down, I/O fails, reconnecting */
	DST_NODE_RECONNECTING,	/* remote: down, I/O held, reconnecting */
	__DST_NODE_STATE_MAX,
};

enum dst_sync_state {
	DST_SYNC_IN_SYNC,	/* holds every acknowledged write */
	DST_SYNC_OUT_OF_SYNC,	/* failed: gets no I/O, writes mark it dirty */
	DST_SYNC_RESYNCING,	/* gets writes; dirty regions being copied */
	__DST_SYNC_STATE_MAX,
};

/* Inside DST_A_EXPORT. */
enum dst_export_attr {
	DST_EXPORT_A_UNSPEC,
	DST_EXPORT_A_NAME,	/* string, the same rules as a storage name */
	DST_EXPORT_A_DEVICE,	/* string: path of the block device to serve */
	DST_EXPORT_A_ADDR,	/* binary sockaddr to listen on */
	DST_EXPORT_A_READ_ONLY,	/* flag */
	DST_EXPORT_A_SIZE,	/* u64: bytes (reply only) */
	DST_EXPORT_A_CLIENTS,	/* u32: connected clients (reply only) */
	DST_EXPORT_A_REFUSED,	/* u64: connections closed for bad input (reply only) */
	DST_EXPORT_A_PAD,
	/*
	 * nest of nests (any type), one per entry: enum dst_allow_attr;
	 * who may connect.  Absent: loopback clients only.
	 */
	DST_EXPORT_A_ALLOW,
	/* binary, NEW only, 1 to DST_SECRET_MAX bytes: never sent back */
	DST_EXPORT_A_SECRET,
	DST_EXPORT_A_INTEGRITY,	/* flag: clients must use CRC32C */
	DST_EXPORT_A_AUTH,	/* flag: has a secret (reply only) */
	DST_EXPORT_A_DENIED,	/* u64: clients not on the allow list (reply only) */
	DST_EXPORT_A_AUTH_FAILED, /* u64: failed handshakes with a secret (reply only) */
	DST_EXPORT_A_CRC_ERRORS, /* u64: checksum mismatches (reply only) */
	/*
	 * nest of DST_A_CLIENT nests: enum dst_client_attr, the first
	 * DST_CLIENT_LIST_MAX connected clients (reply only)
	 */
	DST_EXPORT_A_CLIENT_LIST,
	/*
	 * flag: more than one client may write at a time (a cluster
	 * filesystem's); without it a second writer is refused
	 */
	DST_EXPORT_A_SHARED,
	/* u32, NEW: enum dst_tls_mode, absent: DST_TLS_NONE; reply */
	DST_EXPORT_A_TLS,
	/*
	 * strings, NEW, X.509: absolute paths of PEM files; with a CA the
	 * clients must show a certificate it signed
	 */
	DST_EXPORT_A_TLS_CERT,
	DST_EXPORT_A_TLS_KEY,
	DST_EXPORT_A_TLS_CA,
	/* u32, NEW: enum dst_tls_cipher, the only one clients may use; reply */
	DST_EXPORT_A_TLS_CIPHER,
	__DST_EXPORT_A_MAX,
};

#define DST_EXPORT_A_MAX (__DST_EXPORT_A_MAX - 1)

/*
 * TLS 1.3 on a connection: the handshake is done by the agent (dstadm
 * tlsd) in userspace, the records by the kernel's TLS layer.  PSK takes
 * the shared secret as the key, with DST_TLS_PSK_IDENTITY.
 */
enum dst_tls_mode {
	DST_TLS_NONE,
	DST_TLS_PSK,
	DST_TLS_X509,
	__DST_TLS_MODE_MAX,
};

#define DST_TLS_PSK_IDENTITY	"dst"
/* PEM file paths and the peer's name, including the NUL. */
#define DST_TLS_PATH_MAX	256

/*
 * The record ciphers of TLS 1.3 that the kernel's TLS layer has.  ANY
 * lets the handshake choose among them, in this order of preference.
 */
enum dst_tls_cipher {
	DST_TLS_CIPHER_ANY,
	DST_TLS_CIPHER_AES_128_GCM,
	DST_TLS_CIPHER_AES_256_GCM,
	DST_TLS_CIPHER_CHACHA20_POLY1305,
	__DST_TLS_CIPHER_MAX,
};

enum dst_tls_role {
	DST_TLS_CLIENT,		/* an import: connects, checks the export */
	DST_TLS_SERVER,		/* an export: accepted the connection */
	__DST_TLS_ROLE_MAX,
};

/* Inside DST_A_TLS. */
enum dst_tls_attr {
	DST_TLS_A_UNSPEC,
	DST_TLS_A_ID,		/* u32: the handshake */
	DST_TLS_A_FD,		/* s32: the socket, in the agent (ACCEPT reply) */
	DST_TLS_A_ROLE,		/* u32: enum dst_tls_role */
	DST_TLS_A_MODE,		/* u32: enum dst_tls_mode */
	DST_TLS_A_PSK,		/* binary: the key (PSK) */
	DST_TLS_A_CERT,		/* string: own certificate (X.509) */
	DST_TLS_A_KEY,		/* string: its private key (X.509) */
	DST_TLS_A_CA,		/* string: CA of the peer (X.509), may be absent */
	DST_TLS_A_NAME,		/* string: the name the peer's certificate must have */
	DST_TLS_A_PEER,		/* binary sockaddr of the other end */
	DST_TLS_A_TIMEOUT,	/* u32: ms the kernel waits for DONE */
	DST_TLS_A_STATUS,	/* u32, DONE: 0 or a positive errno */
	DST_TLS_A_MESSAGE,	/* string, DONE: why it failed, for the log */
	DST_TLS_A_CIPHER,	/* u32: enum dst_tls_cipher; absent: any */
	__DST_TLS_A_MAX,
};

#define DST_TLS_A_MAX (__DST_TLS_A_MAX - 1)

/* Shared secrets: HMAC-SHA256 keys, at most this many bytes. */
#define DST_SECRET_MAX		64
/* Entries of an export's allow list, at most. */
#define DST_ALLOW_MAX		64
/* Clients in DST_EXPORT_A_CLIENT_LIST, at most (CLIENTS counts them all). */
#define DST_CLIENT_LIST_MAX	32

/*
 * An entry of an allow list.  The longest prefix that holds a client's
 * address decides; an IPv4-mapped IPv6 client is matched as IPv4.
 */
enum dst_allow_attr {
	DST_ALLOW_A_UNSPEC,
	DST_ALLOW_A_ADDR,	/* binary: 4 (IPv4) or 16 (IPv6) bytes, network order */
	DST_ALLOW_A_PREFIX,	/* u8: bits of ADDR that count; absent: all */
	DST_ALLOW_A_READ_ONLY,	/* flag: such clients may only read */
	/*
	 * string: the name such clients' certificates must have (a DNS name
	 * or IP address entry, as a node checks the export's); needs TLS
	 * with X.509 and a CA
	 */
	DST_ALLOW_A_NAME,
	__DST_ALLOW_A_MAX,
};

#define DST_ALLOW_A_MAX (__DST_ALLOW_A_MAX - 1)

/* A connected client of an export, inside DST_EXPORT_A_CLIENT_LIST. */
enum dst_client_attr {
	DST_CLIENT_A_UNSPEC,
	DST_CLIENT_A_ADDR,	/* binary sockaddr of the client */
	DST_CLIENT_A_READ_ONLY,	/* flag: may only read */
	DST_CLIENT_A_AUTH,	/* flag: proved the secret */
	DST_CLIENT_A_INTEGRITY,	/* flag: CRC32C on */
	DST_CLIENT_A_TLS,	/* flag: TLS on */
	DST_CLIENT_A_TLS_CIPHER, /* u32: enum dst_tls_cipher, with TLS */
	__DST_CLIENT_A_MAX,
};

#define DST_CLIENT_A_MAX (__DST_CLIENT_A_MAX - 1)

/* ------------------------------------------------------------------------
 * Bitmap file of a mirror, version 1.  See docs/ARCHITECTURE.md.
 *
 * A header of DST_BITMAP_HDR_SIZE bytes, then one bit per region in
 * little-endian 64-bit words: region r is bit r % 64 of word r / 64.  A
 * set bit: the region may differ between legs.  Every field is
 * little-endian.  A header of zeros is a new, empty bitmap.
 */
#define DST_BITMAP_MAGIC	"DSTBITMP"
#define DST_BITMAP_VERSION	1
#define DST_BITMAP_HDR_SIZE	4096
#define DST_BITMAP_MAX_LEGS	8
#define DST_BITMAP_IDENT_LEN	112

enum dst_bitmap_state {
	DST_BITMAP_CLEAN = 1,	/* stopped cleanly: nothing in flight */
	DST_BITMAP_RUNNING,	/* running, or crashed while running */
};

enum dst_bitmap_leg_state {
	DST_BITMAP_LEG_IN_SYNC = 1,	/* holds every acknowledged write */
	DST_BITMAP_LEG_DIRTY,		/* differs in set regions at most */
	DST_BITMAP_LEG_FULL,		/* being copied in full */
};

/**
 * struct dst_bitmap_leg - a leg as the bitmap knows it
 * @id:		node id in the storage
 * @state:	enum dst_bitmap_leg_state
 * @size:	bytes
 * @ident:	local: the device path; remote: "address:port"; NUL padded
 */
struct dst_bitmap_leg {
	__le32 id;
	__le32 state;
	__le64 size;
	char ident[DST_BITMAP_IDENT_LEN];
};

/**
 * struct dst_bitmap_header - the first bytes of the bitmap file
 * @magic:	DST_BITMAP_MAGIC, not NUL terminated
 * @version:	DST_BITMAP_VERSION
 * @state:	enum dst_bitmap_state
 * @events:	bumped by each write of the header
 * @size:	bytes of the mirror
 * @chunk_size:	bytes per region
 * @nr_legs:	entries used in @legs
 * @name:	the storage's name, NUL padded
 * @legs:	its legs
 * @crc:	crc32 (as crc32_le(~0, ...) ^ ~0) of the bytes before it
 */
struct dst_bitmap_header {
	char magic[8];
	__le32 version;
	__le32 state;
	__le64 events;
	__le64 size;
	__le32 chunk_size;
	__le32 nr_legs;
	char name[DST_NAME_MAX];
	struct dst_bitmap_leg legs[DST_BITMAP_MAX_LEGS];
	__le32 crc;
};

/* ------------------------------------------------------------------------
 * Wire protocol, version 3.  See docs/PROTOCOL.md.
 *
 * Every field is big-endian and naturally aligned, so the structs have no
 * padding and the sizes given.  Every header starts with a magic and the
 * protocol version.
 */
#define DST_PROTO_VERSION	3
#define DST_HELLO_MAGIC		0x44535448	/* "DSTH" */
#define DST_AUTH_MAGIC		0x44535441	/* "DSTA" */
#define DST_REQ_MAGIC		0x44535452	/* "DSTR" */
#define DST_REP_MAGIC		0x44535450	/* "DSTP" */

/* Features a client may want; unknown bits are ignored by both sides. */
#define DST_FEAT_FLUSH		_BITULL(0)
#define DST_FEAT_FUA		_BITULL(1)
#define DST_FEAT_DISCARD	_BITULL(2)
#define DST_FEAT_WRITE_ZEROES	_BITULL(3)
/* hdr_crc and data_crc of every request and reply are set and checked */
#define DST_FEAT_CRC32C		_BITULL(4)
/* the server sends DST_NOTE_SIZE when the export's size changes */
#define DST_FEAT_RESIZE		_BITULL(5)
/* the server answers DST_REQ_CHECKSUM */
#define DST_FEAT_CHECKSUM	_BITULL(6)

/*
 * DST_REQ_CHECKSUM: a digest of DST_CSUM_SIZE bytes per block of
 * DST_CSUM_BLOCK bytes, the last of the range over what is left of it.
 * The digest is XXH64 (seed 0), not a CRC: a block that holds the CRC-32C
 * of its own bytes (fio's verify headers, many on-disk formats) has the
 * same CRC-32C whatever those bytes are, so two different copies of it
 * would pass for equal.
 */
#define DST_CSUM_BLOCK		4096
#define DST_CSUM_SIZE		8

/* Client hello flags: the client has a secret and wants the handshake. */
#define DST_HELLO_AUTH		_BITUL(0)

/* Export flags in the server hello. */
#define DST_EXPORT_READ_ONLY	_BITUL(0)
#define DST_EXPORT_AUTH		_BITUL(1)	/* both ends proved the secret */

#define DST_REASON_LEN		64
#define DST_CHALLENGE_LEN	32
#define DST_RESPONSE_LEN	32	/* HMAC-SHA256 */

/*
 * Client hello, 64 bytes.  Its first DST_HELLO_COMMON_LEN bytes are laid
 * out alike in every version, so that a server can refuse another version
 * with a reason.  A client is a session: a random id that every connection
 * it makes carries, with a generation that counts them.  The server
 * answers a hello only once every older connection of its session is
 * fenced: no request of it is read any more, and all it started are done.
 */
#define DST_HELLO_COMMON_LEN	48

struct dst_hello {
	__be32 magic;		/* DST_HELLO_MAGIC */
	__be16 version;		/* DST_PROTO_VERSION */
	__be16 flags;		/* DST_HELLO_* */
	__be64 features;	/* wanted DST_FEAT_* */
	__u8 challenge[DST_CHALLENGE_LEN];	/* fresh random bytes */
	__be64 session;		/* not 0, the same for every connection */
	__be32 generation;	/* 1 for the first connection, then +1 */
	__be32 reserved;	/* 0 */
};

/*
 * Handshake with a shared secret, 72 bytes: the server sends its challenge
 * and answer first, the client its answer, with its session's proof in
 * place of a challenge.  An answer is
 * HMAC-SHA256(secret, label || client challenge || server challenge) with
 * the label DST_AUTH_SERVER or DST_AUTH_CLIENT, NUL included.
 */
#define DST_AUTH_SERVER		"dst v2 server"
#define DST_AUTH_CLIENT		"dst v2 client"

/*
 * Session proof.  A client draws a random c[0] that it never sends and
 * computes c[i + 1] = SHA-256(DST_SESSION_LABEL || c[i]), NUL included;
 * the connection of generation g (1 to DST_SESSION_SPAN) shows
 * c[DST_SESSION_SPAN - g].  A server takes a newer connection of a
 * session whose connection of generation g0 showed p only if hashing its
 * proof g - g0 times gives p: a proof seen tells only the older ones.  A
 * client that used every generation starts a new session.  All zero: no
 * proof (clients before dst 0.5).
 */
#define DST_SESSION_LABEL	"dst session"
#define DST_SESSION_SPAN	4096

struct dst_auth {
	__be32 magic;		/* DST_AUTH_MAGIC */
	__be16 version;		/* DST_PROTO_VERSION */
	__be16 reserved;	/* 0 */
	__u8 challenge[DST_CHALLENGE_LEN];	/* client: its session proof */
	__u8 response[DST_RESPONSE_LEN];
};

/* Server hello, 112 bytes. */
struct dst_hello_reply {
	__be32 magic;		/* DST_HELLO_MAGIC */
	__be16 version;		/* DST_PROTO_VERSION */
	__be16 error;		/* enum dst_status; not OK: only reason counts */
	__be64 size;		/* export size in bytes */
	__be32 logical_block_size;
	__be32 physical_block_size;
	__be32 max_request;	/* largest READ/WRITE length in bytes */
	__be32 flags;		/* DST_EXPORT_* */
	__be64 features;	/* DST_FEAT_* granted: wanted and supported */
	__u8 reason[DST_REASON_LEN];	/* NUL-terminated, when error */
	__be64 instance;	/* random, not 0, new at each start of the
				 * export: a client that sees another one
				 * checks what the export may have lost.
				 * 0: an older export, which does not say
				 */
};

enum dst_cmd_type {
	DST_REQ_READ		= 1,
	DST_REQ_WRITE		= 2,	/* length bytes of data follow */
	DST_REQ_FLUSH		= 3,
	DST_REQ_DISCARD		= 4,
	DST_REQ_WRITE_ZEROES	= 5,
	DST_REQ_DISCONNECT	= 6,	/* no reply; the server closes */
	/*
	 * Server to client only, with DST_FEAT_RESIZE: a reply to no
	 * request (handle 0, status OK), whose 8 bytes of data are the
	 * export's new size, big-endian; it only grows while clients are
	 * connected
	 */
	DST_NOTE_SIZE		= 7,
	/*
	 * With DST_FEAT_CHECKSUM: the reply's data is the XXH64 of each
	 * DST_CSUM_BLOCK of the range, big-endian, instead of the data
	 */
	DST_REQ_CHECKSUM	= 8,
};

/* Request flags: write through to stable storage; flush before writing. */
#define DST_REQ_FUA		_BITUL(0)
#define DST_REQ_PREFLUSH	_BITUL(1)

/*
 * Checksums, with DST_FEAT_CRC32C (else 0): CRC-32C as iSCSI's digests.
 * data_crc covers the data that follows the header; hdr_crc the header,
 * itself taken as 0.
 */

/* Request, client to server, 40 bytes. */
struct dst_request {
	__be32 magic;		/* DST_REQ_MAGIC */
	__u8 version;		/* DST_PROTO_VERSION */
	__u8 cmd;		/* enum dst_cmd_type */
	__be16 flags;		/* DST_REQ_* */
	__be64 handle;		/* echoed in the reply */
	__be64 offset;		/* bytes, a multiple of the logical block size */
	__be32 length;		/* bytes, likewise; 0 for FLUSH and DISCONNECT */
	__be32 data_crc;	/* of a WRITE's data */
	__be32 hdr_crc;
	__be32 reserved;	/* 0 */
};

/* Reply, server to client, 32 bytes; a READ's data follows when OK. */
struct dst_reply {
	__be32 magic;		/* DST_REP_MAGIC */
	__u8 version;		/* DST_PROTO_VERSION */
	__u8 cmd;		/* the request's cmd */
	__be16 reserved;	/* 0 */
	__be32 status;		/* enum dst_status */
	__be32 length;		/* bytes of data that follow */
	__be64 handle;		/* the request's handle */
	__be32 data_crc;	/* of a READ's data */
	__be32 hdr_crc;
};

enum dst_status {
	DST_OK			= 0,
	DST_EIO			= 1,
	DST_EINVAL		= 2,
	DST_EROFS		= 3,
	DST_ENOSPC		= 4,
	DST_EOPNOTSUPP		= 5,
	DST_ENOMEM		= 6,
	DST_EVERSION		= 7,	/* hello: protocol version not served */
	DST_EPERM		= 8,	/* hello: client not allowed */
	DST_ECRC		= 9,	/* the WRITE's data_crc did not match */
	DST_EBUSY		= 10,	/* hello: another client writes */
	DST_ETLS		= 11,	/* hello: the export needs TLS */
};

#endif /* _UAPI_LINUX_DST_H */
