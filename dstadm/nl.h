/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dstadm: the dst generic netlink family through libmnl.
 */
#ifndef DSTADM_NL_H
#define DSTADM_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>

struct dst_nl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	uint16_t family;
	uint32_t version;	/* the module's DST_GENL_VERSION */
	uint32_t events_group;	/* id of its "events" multicast group, or 0 */
	uint32_t tls_group;	/* id of its "tls" multicast group, or 0 */
	char ext_msg[256];	/* kernel's extended ack message, if any */
	char buf[32768];
};

/* Open a socket and resolve the family; prints the error and returns -1. */
int dst_nl_open(struct dst_nl *nl);
void dst_nl_close(struct dst_nl *nl);

/* On stderr: a note when the loaded module is not dstadm's version. */
void module_skew_note(struct dst_nl *nl);

/* Start a request for @cmd in nl->buf; @flags beyond NLM_F_REQUEST. */
struct nlmsghdr *dst_nl_msg(struct dst_nl *nl, uint8_t cmd, uint16_t flags);

/* What a storage request may carry besides the name; 0/NULL: not given. */
struct storage_args {
	const char *alg;
	uint32_t chunk_size;
	uint32_t resync_min;
	uint32_t resync_max;
	const char *bitmap;
	bool assume_clean;
	bool repair;
};

/*
 * Put a DST_A_STORAGE nest naming a storage, with @args if not NULL.
 * Prints the error and returns -1 if they do not fit.
 */
int dst_nl_put_storage(struct dst_nl *nl, struct nlmsghdr *nlh,
		       const char *name, const struct storage_args *args);

struct remote_args;

/*
 * Put a DST_A_NODE nest: @type, and @addr (remote) or @path (local), and
 * what @ra and @la give if not NULL.  Prints the error and returns -1 if they do
 * not fit.
 */
struct leg_args;
int dst_nl_put_node(struct dst_nl *nl, struct nlmsghdr *nlh, uint32_t type,
		    const struct sockaddr_storage *addr, socklen_t addr_len,
		    const char *path, const struct remote_args *ra,
		    const struct leg_args *la);

/*
 * Put a DST_A_EXPORT nest naming the export @o->name and, if @o->device is
 * not NULL, all that makes it: device, address, flags, allow list, and the
 * secret read from @o->secret_file.  Prints the error and returns -1 if
 * they do not fit or the secret cannot be read.
 */
struct export_opts;
int dst_nl_put_export(struct dst_nl *nl, struct nlmsghdr *nlh,
		      const struct export_opts *o);

/*
 * Send @nlh and run @cb (may be NULL) on each reply until the final ack or
 * the end of a dump.  Returns 0, or -1 with errno and nl->ext_msg set.
 */
int dst_nl_request(struct dst_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data);

/* Print "dstadm: WHAT: cause" for the last failed request. */
void dst_nl_perror(const struct dst_nl *nl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A dump of DST_CMD_STORAGE_GET or DST_CMD_EXPORT_GET into @cb; reports errors. */
int status_dump(struct dst_nl *nl, uint8_t cmd, mnl_cb_t cb, void *data);

#endif /* DSTADM_NL_H */
