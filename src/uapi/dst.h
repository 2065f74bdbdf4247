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

#include <linux/types.h>

#define DST_GENL_NAME		"dst"
#define DST_GENL_VERSION	1
#define DST_GENL_MCGRP_EVENTS	"events"

/* Storage and algorithm names, including the terminating NUL. */
#define DST_NAME_MAX		32
#define DST_ALG_NAME_MAX	16

/*
 * Commands.  Every command needs CAP_NET_ADMIN.
 *
 * DST_CMD_INFO		reply: DST_A_VERSION, DST_A_ALGS
 * DST_CMD_STORAGE_NEW	request: DST_A_STORAGE { NAME, ALG }
 *			also multicast on "events" after a storage is created
 * DST_CMD_STORAGE_DEL	request: DST_A_STORAGE { NAME }
 *			also multicast on "events" after a storage is deleted
 * DST_CMD_STORAGE_GET	request: DST_A_STORAGE { NAME }, or NLM_F_DUMP for all
 *			reply: DST_A_STORAGE { NAME, ALG, ID, STATE, SIZE }
 */
enum dst_cmd {
	DST_CMD_UNSPEC,
	DST_CMD_INFO,
	DST_CMD_STORAGE_NEW,
	DST_CMD_STORAGE_DEL,
	DST_CMD_STORAGE_GET,
	__DST_CMD_MAX,
};

#define DST_CMD_MAX (__DST_CMD_MAX - 1)

/* Top-level attributes. */
enum dst_attr {
	DST_A_UNSPEC,
	DST_A_VERSION,		/* string: module version (reply only) */
	DST_A_ALGS,		/* nest of DST_ALG_A_NAME (reply only) */
	DST_A_STORAGE,		/* nest: enum dst_storage_attr */
	__DST_A_MAX,
};

#define DST_A_MAX (__DST_A_MAX - 1)

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
	__DST_STORAGE_A_MAX,
};

#define DST_STORAGE_A_MAX (__DST_STORAGE_A_MAX - 1)

enum dst_storage_state {
	DST_STORAGE_STOPPED,	/* created, nodes may be added, no disk */
	DST_STORAGE_RUNNING,	/* started, /dev/dstN exists */
	__DST_STORAGE_STATE_MAX,
};

#endif /* _UAPI_LINUX_DST_H */
