// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: the dst generic netlink family through libmnl.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "dstadm.h"
#include "nl.h"

struct request_ctx {
	mnl_cb_t cb;
	void *data;
	char *ext_msg;
	size_t ext_len;
};

static int data_cb(const struct nlmsghdr *nlh, void *p)
{
	struct request_ctx *ctx = p;

	return ctx->cb ? ctx->cb(nlh, ctx->data) : MNL_CB_OK;
}

/* An ack (error 0) ends a request; an error carries errno and extack. */
static int error_cb(const struct nlmsghdr *nlh, void *p)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct request_ctx *ctx = p;
	const struct nlattr *attr;
	unsigned int off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;

	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
		mnl_attr_for_each(attr, nlh, off) {
			if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG ||
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
				continue;
			snprintf(ctx->ext_msg, ctx->ext_len, "%s",
				 mnl_attr_get_str(attr));
		}
	}
	errno = err->error < 0 ? -err->error : err->error;
	return MNL_CB_ERROR;
}

/* The end of a dump, which may carry the dump's error. */
static int done_cb(const struct nlmsghdr *nlh, void *p)
{
	const int *err = mnl_nlmsg_get_payload(nlh);

	(void)p;
	if (nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(*err)) && *err) {
		errno = *err < 0 ? -*err : *err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int overrun_cb(const struct nlmsghdr *nlh, void *p)
{
	(void)nlh;
	(void)p;
	errno = ENOSPC;
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
	[NLMSG_OVERRUN] = overrun_cb,
};

static struct nlmsghdr *genl_msg(char *buf, uint16_t family, uint8_t cmd,
				  uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

struct nlmsghdr *dst_nl_msg(struct dst_nl *nl, uint8_t cmd, uint16_t flags)
{
	return genl_msg(nl->buf, nl->family, cmd, DST_GENL_VERSION, flags);
}

/* The module refuses a bad name by policy; here it gets a clear message. */
static int check_name(const char *what, const char *name)
{
	if (name_valid(name))
		return 0;
	fprintf(stderr, "%s: %s '%.40s%s': invalid name (1-31 characters of A-Z a-z 0-9 _ . -, not starting with . or -)\n",
		PROG, what, name, strlen(name) > 40 ? "..." : "");
	return -1;
}

int dst_nl_put_storage(struct dst_nl *nl, struct nlmsghdr *nlh,
		       const char *name, const struct storage_args *args)
{
	static const struct storage_args none;
	const size_t size = sizeof(nl->buf);
	struct nlattr *nest;

	if (check_name("storage", name) < 0)
		return -1;
	if (!args)
		args = &none;
	nest = mnl_attr_nest_start_check(nlh, size, DST_A_STORAGE);
	if (!nest ||
	    !mnl_attr_put_strz_check(nlh, size, DST_STORAGE_A_NAME, name) ||
	    (args->alg &&
	     !mnl_attr_put_strz_check(nlh, size, DST_STORAGE_A_ALG, args->alg)) ||
	    (args->chunk_size &&
	     !mnl_attr_put_u32_check(nlh, size, DST_STORAGE_A_CHUNK_SIZE,
				     args->chunk_size)) ||
	    (args->resync_min &&
	     !mnl_attr_put_u32_check(nlh, size, DST_STORAGE_A_RESYNC_MIN,
				     args->resync_min)) ||
	    (args->resync_max &&
	     !mnl_attr_put_u32_check(nlh, size, DST_STORAGE_A_RESYNC_MAX,
				     args->resync_max)) ||
	    (args->bitmap &&
	     !mnl_attr_put_strz_check(nlh, size, DST_STORAGE_A_BITMAP,
				      args->bitmap)) ||
	    (args->assume_clean &&
	     !mnl_attr_put_check(nlh, size, DST_STORAGE_A_ASSUME_CLEAN, 0, "")) ||
	    (args->repair &&
	     !mnl_attr_put_check(nlh, size, DST_STORAGE_A_REPAIR, 0, ""))) {
		fprintf(stderr, "%s: argument too long\n", PROG);
		return -1;
	}
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

/* Put @attr with the secret of @path; the copy on the stack is wiped. */
static int put_secret(struct dst_nl *nl, struct nlmsghdr *nlh, uint16_t attr,
		      const char *path)
{
	uint8_t secret[DST_SECRET_MAX];
	size_t len;
	bool ok;

	if (secret_load(path, secret, &len) < 0)
		return -1;
	ok = mnl_attr_put_check(nlh, sizeof(nl->buf), attr, len, secret);
	explicit_bzero(secret, sizeof(secret));
	if (!ok) {
		fprintf(stderr, "%s: argument too long\n", PROG);
		return -1;
	}
	return 0;
}

/*
 * TLS of a node or an export: the mode as @mode, and the files in the
 * attributes after it, as the uapi has them for both (an export has no
 * name, which is never set for one); the cipher as @cipher.
 */
static bool put_tls(struct dst_nl *nl, struct nlmsghdr *nlh,
		    const struct tls_args *t, uint16_t mode, uint16_t cipher)
{
	const size_t size = sizeof(nl->buf);
	const char *files[] = { t->cert, t->key, t->ca, t->name };
	uint16_t i;

	_Static_assert(DST_NODE_A_TLS_NAME == DST_NODE_A_TLS + 4 &&
		       DST_EXPORT_A_TLS_CA == DST_EXPORT_A_TLS + 3,
		       "TLS attributes in the uapi's order");
	if (!tls_mode(t))
		return true;
	if (!mnl_attr_put_u32_check(nlh, size, mode, tls_mode(t)) ||
	    (t->cipher && !mnl_attr_put_u32_check(nlh, size, cipher, t->cipher)))
		return false;
	for (i = 0; i < 4; i++)
		if (*files[i] &&
		    !mnl_attr_put_strz_check(nlh, size, mode + 1 + i, files[i]))
			return false;
	return true;
}

int dst_nl_put_node(struct dst_nl *nl, struct nlmsghdr *nlh, uint32_t type,
		    const struct sockaddr_storage *addr, socklen_t addr_len,
		    const char *path, const struct remote_args *ra,
		    const struct leg_args *la)
{
	static const struct remote_args none;
	static const struct leg_args no_leg;
	const size_t size = sizeof(nl->buf);
	struct nlattr *nest;

	if (!ra)
		ra = &none;
	if (!la)
		la = &no_leg;

	nest = mnl_attr_nest_start_check(nlh, size, DST_A_NODE);
	if (!nest ||
	    !mnl_attr_put_u32_check(nlh, size, DST_NODE_A_TYPE, type) ||
	    (addr && !mnl_attr_put_check(nlh, size, DST_NODE_A_ADDR, addr_len, addr)) ||
	    (path && !mnl_attr_put_strz_check(nlh, size, DST_NODE_A_PATH, path)) ||
	    (ra->timeout &&
	     !mnl_attr_put_u32_check(nlh, size, DST_NODE_A_TIMEOUT, ra->timeout)) ||
	    (ra->has_dead_timeout &&
	     !mnl_attr_put_u32_check(nlh, size, DST_NODE_A_DEAD_TIMEOUT,
				     ra->dead_timeout)) ||
	    (ra->reconnect_max &&
	     !mnl_attr_put_u32_check(nlh, size, DST_NODE_A_RECONNECT_MAX,
				     ra->reconnect_max)) ||
	    (ra->integrity &&
	     !mnl_attr_put_check(nlh, size, DST_NODE_A_INTEGRITY, 0, "")) ||
	    (la->write_mostly &&
	     !mnl_attr_put_check(nlh, size, DST_NODE_A_WRITE_MOSTLY, 0, "")) ||
	    (la->write_behind &&
	     !mnl_attr_put_u32_check(nlh, size, DST_NODE_A_WRITE_BEHIND,
				     la->write_behind))) {
		fprintf(stderr, "%s: argument too long\n", PROG);
		return -1;
	}
	if (!put_tls(nl, nlh, &ra->tls, DST_NODE_A_TLS, DST_NODE_A_TLS_CIPHER)) {
		fprintf(stderr, "%s: argument too long\n", PROG);
		return -1;
	}
	if (ra->secret_file && put_secret(nl, nlh, DST_NODE_A_SECRET, ra->secret_file) < 0)
		return -1;
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

/* The allow list of an export as DST_EXPORT_A_ALLOW. */
static bool put_allow(struct dst_nl *nl, struct nlmsghdr *nlh,
		      const struct allow_list *l)
{
	const size_t size = sizeof(nl->buf);
	const struct allow_entry *e;
	struct nlattr *list, *nest;
	unsigned int i;

	if (!l->n)
		return true;
	list = mnl_attr_nest_start_check(nlh, size, DST_EXPORT_A_ALLOW);
	if (!list)
		return false;
	for (i = 0; i < l->n; i++) {
		e = &l->v[i];
		nest = mnl_attr_nest_start_check(nlh, size, (uint16_t)(i + 1));
		if (!nest ||
		    !mnl_attr_put_check(nlh, size, DST_ALLOW_A_ADDR,
					e->family == AF_INET ? 4 : 16, e->addr) ||
		    !mnl_attr_put_u8_check(nlh, size, DST_ALLOW_A_PREFIX, e->prefix) ||
		    (e->read_only &&
		     !mnl_attr_put_check(nlh, size, DST_ALLOW_A_READ_ONLY, 0, "")) ||
		    (*e->name && !mnl_attr_put_strz_check(nlh, size, DST_ALLOW_A_NAME, e->name)))
			return false;
		mnl_attr_nest_end(nlh, nest);
	}
	mnl_attr_nest_end(nlh, list);
	return true;
}

int dst_nl_put_export(struct dst_nl *nl, struct nlmsghdr *nlh,
		      const struct export_opts *o)
{
	const size_t size = sizeof(nl->buf);
	struct nlattr *nest;

	if (check_name("export", o->name) < 0)
		return -1;
	nest = mnl_attr_nest_start_check(nlh, size, DST_A_EXPORT);
	if (!nest ||
	    !mnl_attr_put_strz_check(nlh, size, DST_EXPORT_A_NAME, o->name) ||
	    (o->device &&
	     (!mnl_attr_put_strz_check(nlh, size, DST_EXPORT_A_DEVICE, o->device) ||
	      !mnl_attr_put_check(nlh, size, DST_EXPORT_A_ADDR, o->addr_len, &o->addr) ||
	      (o->read_only &&
	       !mnl_attr_put_check(nlh, size, DST_EXPORT_A_READ_ONLY, 0, "")) ||
	      (o->integrity &&
	       !mnl_attr_put_check(nlh, size, DST_EXPORT_A_INTEGRITY, 0, "")) ||
	      (o->shared &&
	       !mnl_attr_put_check(nlh, size, DST_EXPORT_A_SHARED, 0, "")) ||
	      !put_allow(nl, nlh, &o->allow) ||
	      !put_tls(nl, nlh, &o->tls, DST_EXPORT_A_TLS,
		       DST_EXPORT_A_TLS_CIPHER)))) {
		fprintf(stderr, "%s: argument too long\n", PROG);
		return -1;
	}
	if (o->device && o->secret_file &&
	    put_secret(nl, nlh, DST_EXPORT_A_SECRET, o->secret_file) < 0)
		return -1;
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

int dst_nl_request(struct dst_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	struct request_ctx ctx = {
		.cb = cb,
		.data = data,
		.ext_msg = nl->ext_msg,
		.ext_len = sizeof(nl->ext_msg),
	};
	ssize_t len;
	int ret;

	nl->ext_msg[0] = '\0';
	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -1;

	do {
		len = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (len < 0)
			return -1;
		ret = mnl_cb_run2(nl->buf, len, nl->seq, nl->portid, data_cb,
				  &ctx, ctl_cbs, NLMSG_MIN_TYPE);
	} while (ret > 0);

	return ret < 0 ? -1 : 0;
}

/* The ids of the family's multicast groups. */
static void family_groups(const struct nlattr *groups, struct dst_nl *nl)
{
	const struct nlattr *grp, *attr;
	const char *name;
	uint32_t id;

	mnl_attr_for_each_nested(grp, groups) {
		name = NULL;
		id = 0;
		mnl_attr_for_each_nested(attr, grp) {
			if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_NAME &&
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
				name = mnl_attr_get_str(attr);
			else if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_ID &&
				 mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
				id = mnl_attr_get_u32(attr);
		}
		if (name && !strcmp(name, DST_GENL_MCGRP_EVENTS))
			nl->events_group = id;
		else if (name && !strcmp(name, DST_GENL_MCGRP_TLS))
			nl->tls_group = id;
	}
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dst_nl *nl = data;
	const struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case CTRL_ATTR_FAMILY_ID:
			if (mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
				nl->family = mnl_attr_get_u16(attr);
			break;
		case CTRL_ATTR_VERSION:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
				nl->version = mnl_attr_get_u32(attr);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			family_groups(attr, nl);
			break;
		}
	}
	return MNL_CB_OK;
}

static int resolve_family(struct dst_nl *nl)
{
	struct nlmsghdr *nlh;

	nlh = genl_msg(nl->buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DST_GENL_NAME);
	if (dst_nl_request(nl, nlh, family_cb, nl) < 0)
		return -1;
	if (!nl->family) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/*
 * The family is missing: the module is not loaded, and the kernel's
 * request for it by its genl family alias found nothing (or was refused).
 */
static void module_missing(void)
{
	struct utsname uts;

	if (uname(&uts) < 0)
		snprintf(uts.release, sizeof(uts.release), "this kernel");
	fprintf(stderr,
		"%s: dst module not loaded (modprobe %s): is dst-dkms installed and built for %s? (dkms status)\n",
		PROG, DST_MODULE_NAME, uts.release);
}

int dst_nl_open(struct dst_nl *nl)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock) {
		fprintf(stderr, "%s: netlink socket: %s\n", PROG,
			strerror(errno));
		return -1;
	}
	/* Extended acks carry the kernel's reason for an error. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "%s: netlink bind: %s\n", PROG,
			strerror(errno));
		goto err;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);

	if (resolve_family(nl) < 0) {
		if (errno == ENOENT)
			module_missing();
		else
			dst_nl_perror(nl, "dst control interface");
		goto err;
	}
	if (nl->version != DST_GENL_VERSION)
		fprintf(stderr,
			"%s: warning: dst module speaks control interface v%u, this dstadm v%u\n",
			PROG, nl->version, DST_GENL_VERSION);
	return 0;

err:
	mnl_socket_close(nl->sock);
	nl->sock = NULL;
	return -1;
}

void dst_nl_close(struct dst_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
	/* A request may have held a secret. */
	explicit_bzero(nl->buf, sizeof(nl->buf));
}

void dst_nl_perror(const struct dst_nl *nl, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);

	if (nl->ext_msg[0])
		fprintf(stderr, ": %s\n", nl->ext_msg);
	else if (err == EPERM)
		fprintf(stderr, ": permission denied (needs CAP_NET_ADMIN)\n");
	else
		fprintf(stderr, ": %s\n", strerror(err));
}
