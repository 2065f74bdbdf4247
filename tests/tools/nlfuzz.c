// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: hostile and random messages to the dst generic netlink family.
 *
 *   nlfuzz fuzz SEED COUNT   COUNT random or malformed requests; fails on a
 *                            request that gets no answer or a reply that is
 *                            not a well-formed netlink message
 *   nlfuzz cases             malformed requests with the errno each must get
 *   nlfuzz events            create/delete are announced on "events"
 *   nlfuzz perm              every command, and joining "events" and "tls",
 *                            refused with EPERM (run it without
 *                            CAP_NET_ADMIN)
 *   nlfuzz try CMD           command number CMD with no attributes;
 *                            prints the errno it got (0: success)
 *   nlfuzz join GROUP        joins "events" or "tls"; prints the errno
 *   nlfuzz liar COUNT        a TLS agent that lies: it takes COUNT
 *                            handshakes within 60 s, closes each socket
 *                            untouched and says the handshake is done;
 *                            the module must refuse those connections.
 *                            Each DONE is first sent on another netlink
 *                            socket, which must get EPERM
 *
 * Runs in the test guest, as root (perm: as a user, or root of a user
 * namespace).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "uapi/dst.h"

static uint16_t family;
static uint32_t events_group;
static uint32_t tls_group;
static unsigned int seq = 1;
static char buf[65536];

static struct mnl_socket *open_sock(void)
{
	struct timeval tv = { .tv_sec = 10 };
	struct mnl_socket *nl = mnl_socket_open(NETLINK_GENERIC);
	int one = 1;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		exit(1);
	}
	/* A kernel that does not answer within 10 s is a hang: fail. */
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	return nl;
}

static struct nlmsghdr *msg(uint16_t type, uint8_t cmd, uint8_t version,
			    uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

static int grp_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint32_t id = 0;

	(void)data;
	mnl_attr_for_each_nested(a, attr) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
			name = mnl_attr_get_str(a);
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
			id = mnl_attr_get_u32(a);
	}
	if (name && !strcmp(name, DST_GENL_MCGRP_EVENTS))
		events_group = id;
	if (name && !strcmp(name, DST_GENL_MCGRP_TLS))
		tls_group = id;
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *attr;

	(void)data;
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID)
			family = mnl_attr_get_u16(attr);
		if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS)
			mnl_attr_parse_nested(attr, grp_cb, NULL);
	}
	return MNL_CB_OK;
}

/* Whether the last answer's error was the kernel's (an NLMSG_ERROR). */
static bool kernel_error;

/* libmnl's own, but telling the kernel's errors from libmnl's. */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	(void)data;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;
	kernel_error = true;
	errno = err->error < 0 ? -err->error : err->error;
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cbs[NLMSG_ERROR + 1] = { [NLMSG_ERROR] = error_cb };

/*
 * Send @nlh and read answers until its ack, error or end of dump.
 * Returns 0 or the positive errno of the kernel's answer; exits on no
 * answer and on one that libmnl refuses (a short or truncated message,
 * another sequence number or port: tests audit L4).
 */
static int transact(struct mnl_socket *nl, struct nlmsghdr *nlh,
		    mnl_cb_t cb, void *data)
{
	unsigned int portid = mnl_socket_get_portid(nl);
	unsigned int s = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	kernel_error = false;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		perror("sendto");
		exit(1);
	}
	do {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0) {
			fprintf(stderr, "no answer to request seq %u: %s\n", s,
				strerror(errno));
			exit(1);
		}
		ret = mnl_cb_run2(buf, len, s, portid, cb, data, ctl_cbs,
				  MNL_ARRAY_SIZE(ctl_cbs));
	} while (ret > 0);
	if (ret < 0 && !kernel_error) {
		fprintf(stderr, "a malformed answer to request seq %u: %s\n", s,
			strerror(errno));
		exit(1);
	}
	return ret < 0 ? errno : 0;
}

static void resolve(struct mnl_socket *nl)
{
	struct nlmsghdr *nlh = msg(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DST_GENL_NAME);
	if (transact(nl, nlh, family_cb, NULL) || !family || !events_group ||
	    !tls_group) {
		fprintf(stderr, "dst genl family or its events group not found\n");
		exit(1);
	}
}

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)random() % n;
}

static const char *const names[] = { "f0", "f1", "f2", "a.b", "-x", ".x", "a/b", "" };
static const char *const algs[] = { "linear", "mirror", "raid5", "", "linearlinearlinearlinear" };

/* One random attribute: a known type with a random payload, or garbage. */
static void put_random_attr(struct nlmsghdr *nlh, int maxtype, int depth)
{
	static char junk[5000];
	uint16_t type = rnd(maxtype + 3);
	struct nlattr *nest;
	int i, n;

	if (nlh->nlmsg_len > sizeof(buf) - sizeof(junk) - 64)
		return;
	switch (rnd(9)) {
	case 0:
		mnl_attr_put_strz(nlh, type, names[rnd(8)]);
		break;
	case 1:
		mnl_attr_put_strz(nlh, type, algs[rnd(5)]);
		break;
	case 2:		/* string without NUL, or oversized */
		n = rnd(sizeof(junk));
		memset(junk, 'A' + rnd(26), n);
		mnl_attr_put(nlh, type, n, junk);
		break;
	case 3:
		mnl_attr_put_u32(nlh, type, random());
		break;
	case 4:
		mnl_attr_put_u64(nlh, type, ((uint64_t)random() << 32) | random());
		break;
	case 5:
		mnl_attr_put(nlh, type, 0, NULL);
		break;
	case 6:		/* random bytes */
		n = rnd(64);
		for (i = 0; i < n; i++)
			junk[i] = random();
		mnl_attr_put(nlh, type, n, junk);
		break;
	default:	/* nested, possibly with a lying length */
		nest = mnl_attr_nest_start(nlh, type | (rnd(4) ? 0 : NLA_F_NESTED));
		n = rnd(4);
		for (i = 0; i < n && depth < 3; i++)
			put_random_attr(nlh, DST_STORAGE_A_MAX, depth + 1);
		mnl_attr_nest_end(nlh, nest);
		if (!rnd(8))
			nest->nla_len += 4 * (1 + rnd(8));
		break;
	}
}

/*
 * A request that is well formed but for one or two details, so that the
 * handlers, not only the policy, see most of the traffic.
 */
/* An allow list with one or two flaws now and then. */
static void put_allow(struct nlmsghdr *nlh)
{
	struct nlattr *list, *e;
	uint8_t addr[17];
	int i, n = rnd(8) ? 1 + rnd(3) : rnd(70);

	list = mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW);
	for (i = 0; i < n; i++) {
		e = mnl_attr_nest_start(nlh, 1 + rnd(3));
		for (unsigned int j = 0; j < sizeof(addr); j++)
			addr[j] = random();
		if (rnd(8))
			mnl_attr_put(nlh, DST_ALLOW_A_ADDR, rnd(2) ? 4 : 16, addr);
		else
			mnl_attr_put(nlh, DST_ALLOW_A_ADDR, rnd(18), addr);
		if (rnd(2))
			mnl_attr_put_u8(nlh, DST_ALLOW_A_PREFIX, rnd(8) ? rnd(33) : random());
		if (rnd(2))
			mnl_attr_put(nlh, DST_ALLOW_A_READ_ONLY, 0, NULL);
		if (!rnd(8))
			put_random_attr(nlh, DST_ALLOW_A_MAX, 2);
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, list);
}

/* A secret of a length around the limits. */
static void put_secret(struct nlmsghdr *nlh, uint16_t type)
{
	static const int lens[] = { 0, 1, 32, DST_SECRET_MAX, DST_SECRET_MAX + 1, 300 };
	char secret[300];

	memset(secret, 's', sizeof(secret));
	mnl_attr_put(nlh, type, lens[rnd(6)], secret);
}

static void put_sockaddr(struct nlmsghdr *nlh, uint16_t type)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(1 + rnd(3)),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(1),
				     .sin6_addr = IN6ADDR_LOOPBACK_INIT };

	if (rnd(2))
		mnl_attr_put(nlh, type, sizeof(sin), &sin);
	else
		mnl_attr_put(nlh, type, sizeof(sin6), &sin6);
}

static void near_valid_node(struct nlmsghdr *nlh)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, DST_A_NODE);
	uint32_t type = rnd(4) ? rnd(2) : random();

	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, type);
	if (type == DST_NODE_LOCAL)
		mnl_attr_put_strz(nlh, DST_NODE_A_PATH, rnd(2) ? "/dev/null" : "/dev/ram9");
	else
		put_sockaddr(nlh, DST_NODE_A_ADDR);
	if (!rnd(4))
		put_secret(nlh, DST_NODE_A_SECRET);
	if (!rnd(4))
		mnl_attr_put(nlh, DST_NODE_A_INTEGRITY, 0, NULL);
	if (!rnd(4))
		mnl_attr_put_u32(nlh, DST_NODE_A_ID, rnd(4));
	if (!rnd(4))
		put_random_attr(nlh, DST_NODE_A_MAX, 1);
	mnl_attr_nest_end(nlh, nest);
}

static void near_valid_export(struct nlmsghdr *nlh)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, DST_A_EXPORT);

	if (rnd(8))
		mnl_attr_put_strz(nlh, DST_EXPORT_A_NAME, names[rnd(8)]);
	if (rnd(4))
		mnl_attr_put_strz(nlh, DST_EXPORT_A_DEVICE, rnd(2) ? "/dev/null" : "/dev/ram9");
	if (rnd(4))
		put_sockaddr(nlh, DST_EXPORT_A_ADDR);
	if (!rnd(4))
		mnl_attr_put(nlh, DST_EXPORT_A_READ_ONLY, 0, NULL);
	if (!rnd(2))
		put_allow(nlh);
	if (!rnd(4))
		put_secret(nlh, DST_EXPORT_A_SECRET);
	if (!rnd(4))
		mnl_attr_put(nlh, DST_EXPORT_A_INTEGRITY, 0, NULL);
	if (!rnd(4))
		put_random_attr(nlh, DST_EXPORT_A_MAX, 1);
	mnl_attr_nest_end(nlh, nest);
}

static struct nlmsghdr *near_valid(void)
{
	uint8_t cmd = 1 + rnd(DST_CMD_MAX);
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = msg(family, cmd, DST_GENL_VERSION,
		  (cmd == DST_CMD_STORAGE_GET || cmd == DST_CMD_EXPORT_GET) && !rnd(2) ?
		  NLM_F_DUMP : 0);
	if (cmd == DST_CMD_INFO)
		return nlh;
	if (cmd >= DST_CMD_EXPORT_NEW && cmd <= DST_CMD_EXPORT_GET) {
		near_valid_export(nlh);
		return nlh;
	}
	nest = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	if (rnd(8))
		mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, names[rnd(8)]);
	if (rnd(4))
		mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, algs[rnd(5)]);
	if (!rnd(4))
		put_random_attr(nlh, DST_STORAGE_A_MAX, 1);
	mnl_attr_nest_end(nlh, nest);
	if (cmd == DST_CMD_NODE_ADD || cmd == DST_CMD_NODE_DEL)
		near_valid_node(nlh);
	return nlh;
}

static int fuzz(unsigned int s, unsigned long count)
{
	struct mnl_socket *nl = open_sock();
	unsigned long i, ok = 0, err[256] = { 0 };
	struct nlmsghdr *nlh;
	uint16_t flags;
	int n, j, e;

	resolve(nl);
	srandom(s);
	for (i = 0; i < count; i++) {
		if (rnd(2)) {
			nlh = near_valid();
			goto send;
		}
		flags = rnd(4) ? 0 : NLM_F_DUMP;
		if (!rnd(16))
			flags |= 1 << rnd(16);
		nlh = msg(family, rnd(DST_CMD_MAX + 3),
			  rnd(8) ? DST_GENL_VERSION : rnd(256), flags);
		if (!rnd(16))
			((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->reserved = random();
		n = rnd(4);
		for (j = 0; j < n; j++)
			put_random_attr(nlh, DST_A_MAX, 0);
		if (!rnd(32))	/* a message shorter than it claims */
			nlh->nlmsg_len -= rnd(nlh->nlmsg_len - sizeof(*nlh) + 1);
		if (nlh->nlmsg_len < sizeof(*nlh))
			nlh->nlmsg_len = sizeof(*nlh);
send:
		e = transact(nl, nlh, NULL, NULL);
		if (e)
			err[e & 255]++;
		else
			ok++;
	}
	printf("nlfuzz: %lu requests, seed %u: %lu succeeded", count, s, ok);
	for (j = 1; j < 256; j++)
		if (err[j])
			printf(", %lu %s", err[j], strerror(j));
	printf("\n");
	mnl_socket_close(nl);
	return 0;
}

struct expect {
	const char *what;
	uint8_t cmd;
	int err;
	void (*build)(struct nlmsghdr *nlh);
};

static void no_attrs(struct nlmsghdr *nlh)
{
	(void)nlh;
}

static void empty_nest(struct nlmsghdr *nlh)
{
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, DST_A_STORAGE));
}

static void reply_only_attr(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "linear");
	mnl_attr_put_u32(nlh, DST_STORAGE_A_ID, 5);
	mnl_attr_nest_end(nlh, n);
}

static void unknown_attr(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "linear");
	mnl_attr_put_u32(nlh, DST_STORAGE_A_MAX + 1, 5);
	mnl_attr_nest_end(nlh, n);
}

static void name_no_nul(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put(nlh, DST_STORAGE_A_NAME, 2, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "linear");
	mnl_attr_nest_end(nlh, n);
}

static void storage_not_nested(struct nlmsghdr *nlh)
{
	mnl_attr_put_u32(nlh, DST_A_STORAGE, 1);
}

static void chunk(struct nlmsghdr *nlh, const char *alg, uint32_t size)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, alg);
	mnl_attr_put_u32(nlh, DST_STORAGE_A_CHUNK_SIZE, size);
	mnl_attr_nest_end(nlh, n);
}

static void chunk_linear(struct nlmsghdr *nlh)
{
	chunk(nlh, "linear", 65536);
}

static void chunk_odd(struct nlmsghdr *nlh)
{
	chunk(nlh, "mirror", 65536 + 4096);
}

static void chunk_small(struct nlmsghdr *nlh)
{
	chunk(nlh, "mirror", 2048);
}

static void chunk_u8(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "mirror");
	mnl_attr_put_u8(nlh, DST_STORAGE_A_CHUNK_SIZE, 16);
	mnl_attr_nest_end(nlh, n);
}

/* NODE_DEL of "c0", which does not exist: node id, or a reply-only attribute. */
static void node_del(struct nlmsghdr *nlh, int with_id)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, DST_A_NODE);
	if (with_id)
		mnl_attr_put_u32(nlh, DST_NODE_A_ID, 0);
	else
		mnl_attr_put_u32(nlh, DST_NODE_A_SYNC, 0);
	mnl_attr_nest_end(nlh, n);
}

static void node_del_no_id(struct nlmsghdr *nlh)
{
	node_del(nlh, 0);
}

static void node_del_nowhere(struct nlmsghdr *nlh)
{
	node_del(nlh, 1);
}

/* EXPORT_NEW "x0" of /dev/null with @extra's attributes (checked first). */
static void export_new(struct nlmsghdr *nlh, void (*extra)(struct nlmsghdr *nlh))
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(1),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_EXPORT);

	mnl_attr_put_strz(nlh, DST_EXPORT_A_NAME, "x0");
	mnl_attr_put_strz(nlh, DST_EXPORT_A_DEVICE, "/dev/null");
	mnl_attr_put(nlh, DST_EXPORT_A_ADDR, sizeof(sin), &sin);
	extra(nlh);
	mnl_attr_nest_end(nlh, n);
}

static void allow_entry(struct nlmsghdr *nlh, int addrlen, int prefix)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, 1);
	static const uint8_t addr[16] = { 10 };

	if (addrlen >= 0)
		mnl_attr_put(nlh, DST_ALLOW_A_ADDR, addrlen, addr);
	if (prefix >= 0)
		mnl_attr_put_u8(nlh, DST_ALLOW_A_PREFIX, prefix);
	mnl_attr_nest_end(nlh, e);
}

static void put_5_bytes(struct nlmsghdr *nlh)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW);

	allow_entry(nlh, 5, -1);
	mnl_attr_nest_end(nlh, l);
}

/* A certificate name: the export has no TLS; an empty one. */
static void put_name(struct nlmsghdr *nlh, const char *name)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW);
	struct nlattr *e = mnl_attr_nest_start(nlh, 1);
	static const uint8_t addr[4] = { 10 };

	mnl_attr_put(nlh, DST_ALLOW_A_ADDR, sizeof(addr), addr);
	mnl_attr_put_strz(nlh, DST_ALLOW_A_NAME, name);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, l);
}

static void put_name_no_tls(struct nlmsghdr *nlh) { put_name(nlh, "c.example"); }
static void put_name_empty(struct nlmsghdr *nlh) { put_name(nlh, ""); }

static void put_prefix_33(struct nlmsghdr *nlh)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW);

	allow_entry(nlh, 4, 33);
	mnl_attr_nest_end(nlh, l);
}

static void put_no_addr(struct nlmsghdr *nlh)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW);

	allow_entry(nlh, -1, 8);
	mnl_attr_nest_end(nlh, l);
}

static void put_65(struct nlmsghdr *nlh)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW);
	int i;

	for (i = 0; i < DST_ALLOW_MAX + 1; i++)
		allow_entry(nlh, 4, 8);
	mnl_attr_nest_end(nlh, l);
}

static void put_flat(struct nlmsghdr *nlh)
{
	struct nlattr *l = mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW);

	mnl_attr_put_u32(nlh, DST_ALLOW_A_ADDR, 0x0a000000);
	mnl_attr_nest_end(nlh, l);
}

static void put_empty(struct nlmsghdr *nlh)
{
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, DST_EXPORT_A_ALLOW));
}

static void put_export_secret_long(struct nlmsghdr *nlh)
{
	char s[DST_SECRET_MAX + 1];

	memset(s, 'x', sizeof(s));
	mnl_attr_put(nlh, DST_EXPORT_A_SECRET, sizeof(s), s);
}

static void put_client_list(struct nlmsghdr *nlh)
{
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, DST_EXPORT_A_CLIENT_LIST));
}

static void put_denied(struct nlmsghdr *nlh)
{
	mnl_attr_put_u64(nlh, DST_EXPORT_A_DENIED, 1);
}

static void allow_5_bytes(struct nlmsghdr *nlh) { export_new(nlh, put_5_bytes); }
static void allow_prefix_33(struct nlmsghdr *nlh) { export_new(nlh, put_prefix_33); }
static void allow_no_addr(struct nlmsghdr *nlh) { export_new(nlh, put_no_addr); }
static void allow_65(struct nlmsghdr *nlh) { export_new(nlh, put_65); }
static void allow_flat(struct nlmsghdr *nlh) { export_new(nlh, put_flat); }
static void allow_empty(struct nlmsghdr *nlh) { export_new(nlh, put_empty); }
static void allow_name_no_tls(struct nlmsghdr *nlh) { export_new(nlh, put_name_no_tls); }
static void allow_name_empty(struct nlmsghdr *nlh) { export_new(nlh, put_name_empty); }
static void export_secret_long(struct nlmsghdr *nlh) { export_new(nlh, put_export_secret_long); }
static void client_list_given(struct nlmsghdr *nlh) { export_new(nlh, put_client_list); }
static void denied_given(struct nlmsghdr *nlh) { export_new(nlh, put_denied); }

static void export_name_long(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_EXPORT);
	char name[DST_NAME_MAX + 8];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	mnl_attr_put_strz(nlh, DST_EXPORT_A_NAME, name);
	mnl_attr_nest_end(nlh, n);
}

/* NODE_ADD to "c0": the node's attributes are checked before the storage. */
static void node_add(struct nlmsghdr *nlh, uint32_t type, uint16_t attr,
		     uint32_t val)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(1),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, DST_A_NODE);
	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, type);
	if (type == DST_NODE_LOCAL)
		mnl_attr_put_strz(nlh, DST_NODE_A_PATH, "/dev/null");
	else
		mnl_attr_put(nlh, DST_NODE_A_ADDR, sizeof(sin), &sin);
	mnl_attr_put_u32(nlh, attr, val);
	mnl_attr_nest_end(nlh, n);
}

static void local_dead_timeout(struct nlmsghdr *nlh)
{
	node_add(nlh, DST_NODE_LOCAL, DST_NODE_A_DEAD_TIMEOUT, 5);
}

static void local_secret(struct nlmsghdr *nlh)
{
	node_add(nlh, DST_NODE_LOCAL, DST_NODE_A_SECRET, 5);
}

static void local_integrity(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, DST_A_NODE);
	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_LOCAL);
	mnl_attr_put_strz(nlh, DST_NODE_A_PATH, "/dev/null");
	mnl_attr_put(nlh, DST_NODE_A_INTEGRITY, 0, NULL);
	mnl_attr_nest_end(nlh, n);
}

/* NODE_ADD to "c0" of a remote node with a secret of @len bytes. */
static void node_secret(struct nlmsghdr *nlh, size_t len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(1),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	char secret[DST_SECRET_MAX + 1];

	memset(secret, 'k', sizeof(secret));
	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, DST_A_NODE);
	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_REMOTE);
	mnl_attr_put(nlh, DST_NODE_A_ADDR, sizeof(sin), &sin);
	mnl_attr_put(nlh, DST_NODE_A_SECRET, len, secret);
	mnl_attr_nest_end(nlh, n);
}

static void node_secret_empty(struct nlmsghdr *nlh)
{
	node_secret(nlh, 0);
}

static void node_secret_long(struct nlmsghdr *nlh)
{
	node_secret(nlh, DST_SECRET_MAX + 1);
}

static void node_auth_given(struct nlmsghdr *nlh)
{
	node_add(nlh, DST_NODE_REMOTE, DST_NODE_A_AUTH, 1);
}

static void dead_timeout_long(struct nlmsghdr *nlh)
{
	node_add(nlh, DST_NODE_REMOTE, DST_NODE_A_DEAD_TIMEOUT, 86401);
}

static void reconnect_long(struct nlmsghdr *nlh)
{
	node_add(nlh, DST_NODE_REMOTE, DST_NODE_A_RECONNECT_MAX, 3601);
}

static void reconnects_given(struct nlmsghdr *nlh)
{
	node_add(nlh, DST_NODE_REMOTE, DST_NODE_A_RECONNECTS, 1);
}

static void resync_linear(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "linear");
	mnl_attr_put_u32(nlh, DST_STORAGE_A_RESYNC_MAX, 1000);
	mnl_attr_nest_end(nlh, n);
}

static void bitmap_storage(struct nlmsghdr *nlh, const char *alg, const char *path)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, alg);
	mnl_attr_put_strz(nlh, DST_STORAGE_A_BITMAP, path);
	mnl_attr_nest_end(nlh, n);
}

static void bitmap_linear(struct nlmsghdr *nlh)
{
	bitmap_storage(nlh, "linear", "/tmp/c0.bitmap");
}

static void bitmap_relative(struct nlmsghdr *nlh)
{
	bitmap_storage(nlh, "mirror", "c0.bitmap");
}

static void bitmap_long(struct nlmsghdr *nlh)
{
	char path[DST_BITMAP_PATH_MAX + 1];

	memset(path, 'b', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = 0;
	bitmap_storage(nlh, "mirror", path);
}

static void started_given(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "mirror");
	mnl_attr_put_u32(nlh, DST_STORAGE_A_STARTED, DST_START_CLEAN);
	mnl_attr_nest_end(nlh, n);
}

/* DONE of a handshake: @id, @status, and the FD only replies have if @fd. */
static void tls_done(struct nlmsghdr *nlh, bool id, bool status, bool fd)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_TLS);

	if (id)
		mnl_attr_put_u32(nlh, DST_TLS_A_ID, 0x7fffffff);
	if (status)
		mnl_attr_put_u32(nlh, DST_TLS_A_STATUS, 0);
	if (fd)
		mnl_attr_put_u32(nlh, DST_TLS_A_FD, 0);
	mnl_attr_nest_end(nlh, n);
}

static void tls_done_unknown(struct nlmsghdr *nlh) { tls_done(nlh, true, true, false); }
static void tls_done_no_id(struct nlmsghdr *nlh) { tls_done(nlh, false, true, false); }
static void tls_done_no_status(struct nlmsghdr *nlh) { tls_done(nlh, true, false, false); }
static void tls_done_fd(struct nlmsghdr *nlh) { tls_done(nlh, true, true, true); }

static void tls_done_status_big(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_TLS);

	mnl_attr_put_u32(nlh, DST_TLS_A_ID, 1);
	mnl_attr_put_u32(nlh, DST_TLS_A_STATUS, 4096);
	mnl_attr_nest_end(nlh, n);
}

/*
 * TLS on a local node; X.509 without the CA and name a node needs; a
 * cipher without TLS; a cipher beyond the enum.
 */
static void tls_node(struct nlmsghdr *nlh, bool local, uint32_t mode, uint32_t cipher)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(9),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "c0");
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, DST_A_NODE);
	if (local) {
		mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_LOCAL);
		mnl_attr_put_strz(nlh, DST_NODE_A_PATH, "/dev/null");
	} else {
		mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_REMOTE);
		mnl_attr_put(nlh, DST_NODE_A_ADDR, sizeof(sin), &sin);
		if (mode == DST_TLS_X509)
			mnl_attr_put_strz(nlh, DST_NODE_A_TLS_CERT, "/c.pem");
	}
	if (mode)
		mnl_attr_put_u32(nlh, DST_NODE_A_TLS, mode);
	if (cipher)
		mnl_attr_put_u32(nlh, DST_NODE_A_TLS_CIPHER, cipher);
	mnl_attr_nest_end(nlh, n);
}

static void tls_local(struct nlmsghdr *nlh) { tls_node(nlh, true, DST_TLS_PSK, 0); }
static void tls_x509_no_ca(struct nlmsghdr *nlh) { tls_node(nlh, false, DST_TLS_X509, 0); }

static void tls_cipher_alone(struct nlmsghdr *nlh)
{
	tls_node(nlh, false, DST_TLS_NONE, DST_TLS_CIPHER_CHACHA20_POLY1305);
}

static void tls_cipher_big(struct nlmsghdr *nlh)
{
	tls_node(nlh, false, DST_TLS_PSK, __DST_TLS_CIPHER_MAX);
}

static void event_attr(struct nlmsghdr *nlh)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_EVENT);

	mnl_attr_put_u32(nlh, DST_EVENT_A_TYPE, 0);
	mnl_attr_nest_end(nlh, n);
}

static void top_reply_attr(struct nlmsghdr *nlh)
{
	mnl_attr_put_strz(nlh, DST_A_VERSION, "9.9");
}

static int cases(void)
{
	static const struct expect tests[] = {
		{ "create without attributes", DST_CMD_STORAGE_NEW, EINVAL, no_attrs },
		{ "create with an empty storage nest", DST_CMD_STORAGE_NEW, EINVAL, empty_nest },
		{ "create with a reply-only attribute", DST_CMD_STORAGE_NEW, EINVAL, reply_only_attr },
		{ "create with an unknown attribute", DST_CMD_STORAGE_NEW, EINVAL, unknown_attr },
		{ "create with a name lacking NUL", DST_CMD_STORAGE_NEW, EINVAL, name_no_nul },
		{ "create with a u32 for the nest", DST_CMD_STORAGE_NEW, EINVAL, storage_not_nested },
		{ "info with a reply-only attribute", DST_CMD_INFO, EINVAL, top_reply_attr },
		{ "delete without attributes", DST_CMD_STORAGE_DEL, EINVAL, no_attrs },
		{ "get without attributes", DST_CMD_STORAGE_GET, EINVAL, no_attrs },
		{ "chunk size on a linear storage", DST_CMD_STORAGE_NEW, EINVAL, chunk_linear },
		{ "chunk size not a power of two", DST_CMD_STORAGE_NEW, EINVAL, chunk_odd },
		{ "chunk size below 4 KiB", DST_CMD_STORAGE_NEW, EINVAL, chunk_small },
		{ "chunk size as a u8", DST_CMD_STORAGE_NEW, EINVAL, chunk_u8 },
		{ "node delete without attributes", DST_CMD_NODE_DEL, EINVAL, no_attrs },
		{ "node delete with a reply-only attribute", DST_CMD_NODE_DEL, EINVAL,
		  node_del_no_id },
		{ "node delete in no storage", DST_CMD_NODE_DEL, ENOENT, node_del_nowhere },
		{ "dead timeout on a local node", DST_CMD_NODE_ADD, EINVAL, local_dead_timeout },
		{ "dead timeout over a day", DST_CMD_NODE_ADD, EINVAL, dead_timeout_long },
		{ "reconnect interval over an hour", DST_CMD_NODE_ADD, EINVAL, reconnect_long },
		{ "reconnect count in a request", DST_CMD_NODE_ADD, EINVAL, reconnects_given },
		{ "resync limit on a linear storage", DST_CMD_STORAGE_NEW, EINVAL, resync_linear },
		{ "bitmap on a linear storage", DST_CMD_STORAGE_NEW, EINVAL, bitmap_linear },
		{ "relative bitmap path", DST_CMD_STORAGE_NEW, EINVAL, bitmap_relative },
		{ "bitmap path too long", DST_CMD_STORAGE_NEW, EINVAL, bitmap_long },
		{ "start state in a request", DST_CMD_STORAGE_NEW, EINVAL, started_given },
		{ "secret on a local node", DST_CMD_NODE_ADD, EINVAL, local_secret },
		{ "integrity on a local node", DST_CMD_NODE_ADD, EINVAL, local_integrity },
		{ "empty node secret", DST_CMD_NODE_ADD, ERANGE, node_secret_empty },
		{ "node secret over the limit", DST_CMD_NODE_ADD, ERANGE, node_secret_long },
		{ "auth flag in a node request", DST_CMD_NODE_ADD, EINVAL, node_auth_given },
		{ "export secret over the limit", DST_CMD_EXPORT_NEW, ERANGE, export_secret_long },
		{ "allow entry of 5 bytes", DST_CMD_EXPORT_NEW, EINVAL, allow_5_bytes },
		{ "allow prefix 33 on IPv4", DST_CMD_EXPORT_NEW, EINVAL, allow_prefix_33 },
		{ "allow entry without address", DST_CMD_EXPORT_NEW, EINVAL, allow_no_addr },
		{ "allow list of 65 entries", DST_CMD_EXPORT_NEW, EINVAL, allow_65 },
		{ "allow entry not nested", DST_CMD_EXPORT_NEW, EINVAL, allow_flat },
		{ "empty allow list", DST_CMD_EXPORT_NEW, EINVAL, allow_empty },
		{ "allow entry naming a certificate without TLS", DST_CMD_EXPORT_NEW, EINVAL,
		  allow_name_no_tls },
		{ "allow entry with an empty certificate name", DST_CMD_EXPORT_NEW, EINVAL,
		  allow_name_empty },
		{ "client list in a request", DST_CMD_EXPORT_NEW, EINVAL, client_list_given },
		{ "denied counter in a request", DST_CMD_EXPORT_NEW, EINVAL, denied_given },
		{ "export name too long for the policy", DST_CMD_EXPORT_NEW, EINVAL,
		  export_name_long },
		{ "an event as a request", DST_CMD_EVENT, EOPNOTSUPP, no_attrs },
		{ "a TLS request as a request", DST_CMD_TLS_REQUEST, EOPNOTSUPP, no_attrs },
		{ "TLS accept with nothing waiting", DST_CMD_TLS_ACCEPT, ENOENT, no_attrs },
		{ "TLS done of no handshake", DST_CMD_TLS_DONE, ENOENT, tls_done_unknown },
		{ "TLS done without an id", DST_CMD_TLS_DONE, EINVAL, tls_done_no_id },
		{ "TLS done without a status", DST_CMD_TLS_DONE, EINVAL, tls_done_no_status },
		{ "TLS done with a descriptor", DST_CMD_TLS_DONE, EINVAL, tls_done_fd },
		{ "TLS done with a status beyond errno", DST_CMD_TLS_DONE, ERANGE,
		  tls_done_status_big },
		{ "TLS done without a nest", DST_CMD_TLS_DONE, EINVAL, no_attrs },
		{ "TLS on a local node", DST_CMD_NODE_ADD, EINVAL, tls_local },
		{ "X.509 node without a CA", DST_CMD_NODE_ADD, EINVAL, tls_x509_no_ca },
		{ "a TLS cipher without TLS", DST_CMD_NODE_ADD, EINVAL, tls_cipher_alone },
		{ "a TLS cipher beyond the enum", DST_CMD_NODE_ADD, ERANGE, tls_cipher_big },
		{ "an event attribute in a request", DST_CMD_INFO, EINVAL, event_attr },
		{ "unknown command", DST_CMD_MAX + 1, EOPNOTSUPP, no_attrs },
		{ "command 0", DST_CMD_UNSPEC, EOPNOTSUPP, no_attrs },
	};
	struct mnl_socket *nl = open_sock();
	struct nlmsghdr *nlh;
	unsigned int i;
	int e, failed = 0;

	resolve(nl);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		nlh = msg(family, tests[i].cmd, DST_GENL_VERSION, 0);
		tests[i].build(nlh);
		e = transact(nl, nlh, NULL, NULL);
		printf("%s %s: got %s, want %s\n", e == tests[i].err ? "ok" : "FAIL",
		       tests[i].what, e ? strerror(e) : "success", strerror(tests[i].err));
		failed += e != tests[i].err;
	}
	mnl_socket_close(nl);
	return failed ? 1 : 0;
}

struct event {
	uint8_t cmd;
	char name[DST_NAME_MAX];
};

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct event *ev = data;
	const struct nlattr *attr, *a;

	ev->cmd = g->cmd;
	mnl_attr_for_each(attr, nlh, sizeof(*g))
		if (mnl_attr_get_type(attr) == DST_A_STORAGE)
			mnl_attr_for_each_nested(a, attr)
				if (mnl_attr_get_type(a) == DST_STORAGE_A_NAME)
					snprintf(ev->name, sizeof(ev->name), "%s",
						 mnl_attr_get_str(a));
	return MNL_CB_STOP;
}

static int expect_event(struct mnl_socket *mon, uint8_t cmd, const char *name)
{
	struct event ev = { 0, "" };
	ssize_t len = mnl_socket_recvfrom(mon, buf, sizeof(buf));

	if (len < 0) {
		fprintf(stderr, "no event: %s\n", strerror(errno));
		return 1;
	}
	mnl_cb_run(buf, len, 0, 0, event_cb, &ev);
	printf("event cmd %u storage '%s' (want cmd %u '%s')\n", ev.cmd, ev.name, cmd, name);
	return ev.cmd != cmd || strcmp(ev.name, name);
}

static int events(void)
{
	struct mnl_socket *nl = open_sock(), *mon = open_sock();
	struct nlmsghdr *nlh;
	struct nlattr *n;
	int failed = 0;

	resolve(nl);
	if (mnl_socket_setsockopt(mon, NETLINK_ADD_MEMBERSHIP, &events_group,
				  sizeof(events_group)) < 0) {
		perror("join events group");
		return 1;
	}

	nlh = msg(family, DST_CMD_STORAGE_NEW, DST_GENL_VERSION, 0);
	n = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "ev0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "mirror");
	mnl_attr_nest_end(nlh, n);
	failed |= transact(nl, nlh, NULL, NULL) != 0;
	failed |= expect_event(mon, DST_CMD_STORAGE_NEW, "ev0");

	nlh = msg(family, DST_CMD_STORAGE_DEL, DST_GENL_VERSION, 0);
	n = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "ev0");
	mnl_attr_nest_end(nlh, n);
	failed |= transact(nl, nlh, NULL, NULL) != 0;
	failed |= expect_event(mon, DST_CMD_STORAGE_DEL, "ev0");

	mnl_socket_close(mon);
	mnl_socket_close(nl);
	return failed;
}

/*
 * Every command, each with attributes that would make it succeed or fail
 * on their own: all must be refused with EPERM, before anything is looked
 * at; and so must joining the events group, whose messages carry paths,
 * addresses and allow lists.  For a caller without CAP_NET_ADMIN in the
 * initial user namespace.
 */
static int perm(void)
{
	struct mnl_socket *nl = open_sock();
	struct nlmsghdr *nlh;
	int cmd, e, failed = 0;

	resolve(nl);
	e = mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &events_group,
				  sizeof(events_group)) < 0 ? errno : 0;
	printf("%s join events: got %s, want %s\n", e == EPERM ? "ok" : "FAIL",
	       e ? strerror(e) : "success", strerror(EPERM));
	failed += e != EPERM;
	/* Its members are taken for TLS agents. */
	e = mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &tls_group,
				  sizeof(tls_group)) < 0 ? errno : 0;
	printf("%s join tls: got %s, want %s\n", e == EPERM ? "ok" : "FAIL",
	       e ? strerror(e) : "success", strerror(EPERM));
	failed += e != EPERM;
	for (cmd = DST_CMD_UNSPEC + 1; cmd <= DST_CMD_MAX; cmd++) {
		if (cmd == DST_CMD_EVENT || cmd == DST_CMD_TLS_REQUEST)
			continue;
		nlh = msg(family, cmd, DST_GENL_VERSION,
			  cmd == DST_CMD_STORAGE_GET || cmd == DST_CMD_EXPORT_GET ?
			  NLM_F_DUMP : 0);
		if (cmd >= DST_CMD_EXPORT_NEW && cmd <= DST_CMD_EXPORT_GET)
			export_new(nlh, put_empty);
		else if (cmd != DST_CMD_INFO)
			reply_only_attr(nlh);
		e = transact(nl, nlh, NULL, NULL);
		printf("%s command %d: got %s, want %s\n", e == EPERM ? "ok" : "FAIL",
		       cmd, e ? strerror(e) : "success", strerror(EPERM));
		failed += e != EPERM;
	}
	mnl_socket_close(nl);
	return failed ? 1 : 0;
}

/* What a DST_CMD_TLS_ACCEPT reply gives the agent. */
struct taken {
	uint32_t id;
	int fd;
	bool have_id;
};

static int accept_cb(const struct nlmsghdr *nlh, void *data)
{
	struct taken *t = data;
	const struct nlattr *a, *b;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != DST_A_TLS)
			continue;
		mnl_attr_for_each_nested(b, a) {
			if (mnl_attr_get_type(b) == DST_TLS_A_ID) {
				t->id = mnl_attr_get_u32(b);
				t->have_id = true;
			}
			if (mnl_attr_get_type(b) == DST_TLS_A_FD)
				t->fd = (int)mnl_attr_get_u32(b);
		}
	}
	return MNL_CB_OK;
}

/* A DST_CMD_TLS_DONE that says handshake @id went well. */
static struct nlmsghdr *done_msg(uint32_t id)
{
	struct nlmsghdr *nlh = msg(family, DST_CMD_TLS_DONE, DST_GENL_VERSION, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, DST_A_TLS);

	mnl_attr_put_u32(nlh, DST_TLS_A_ID, id);
	mnl_attr_put_u32(nlh, DST_TLS_A_STATUS, 0);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static int liar(unsigned int count)
{
	struct mnl_socket *nl = open_sock(), *member = open_sock();
	unsigned int done = 0, polls;
	struct nlmsghdr *nlh;
	struct taken t;
	int e;

	resolve(nl);
	/* A member of "tls" is an agent to the module; it reads nothing. */
	if (mnl_socket_setsockopt(member, NETLINK_ADD_MEMBERSHIP, &tls_group,
				  sizeof(tls_group)) < 0) {
		perror("join tls group");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (polls = 0; done < count && polls < 600; polls++) {
		t = (struct taken){ .fd = -1 };
		e = transact(nl, msg(family, DST_CMD_TLS_ACCEPT, DST_GENL_VERSION, 0),
			     accept_cb, &t);
		if (e == ENOENT) {
			usleep(100 * 1000);
			continue;
		}
		if (e || !t.have_id || t.fd < 0) {
			fprintf(stderr, "TLS accept: %s\n",
				e ? strerror(e) : "no id or descriptor");
			return 1;
		}
		close(t.fd);
		/* Only the socket that accepted it may end it. */
		nlh = done_msg(t.id);
		e = transact(member, nlh, NULL, NULL);
		if (e != EPERM) {
			fprintf(stderr, "TLS done from another socket: got %s, want %s\n",
				e ? strerror(e) : "success", strerror(EPERM));
			return 1;
		}
		e = transact(nl, done_msg(t.id), NULL, NULL);
		if (e) {
			fprintf(stderr, "TLS done: %s\n", strerror(e));
			return 1;
		}
		printf("handshake %u said done, TLS not on\n", t.id);
		fflush(stdout);
		done++;
	}
	mnl_socket_close(member);
	mnl_socket_close(nl);
	if (done < count)
		fprintf(stderr, "%u of %u handshakes came\n", done, count);
	return done < count;
}

/* Command @cmd with no attributes: print the errno it gets. */
static int try_cmd(unsigned long cmd)
{
	struct mnl_socket *nl = open_sock();

	if (cmd > UINT8_MAX)
		return 2;
	resolve(nl);
	printf("%d\n", transact(nl, msg(family, (uint8_t)cmd, DST_GENL_VERSION, 0),
				NULL, NULL));
	mnl_socket_close(nl);
	return 0;
}

/* Join the group @name: print the errno it gets. */
static int join(const char *name)
{
	struct mnl_socket *nl = open_sock();
	uint32_t *group = &tls_group;

	resolve(nl);
	if (!strcmp(name, DST_GENL_MCGRP_EVENTS))
		group = &events_group;
	else if (strcmp(name, DST_GENL_MCGRP_TLS))
		return 2;
	printf("%d\n", mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, group,
					     sizeof(*group)) < 0 ? errno : 0);
	mnl_socket_close(nl);
	return 0;
}

int main(int argc, char *argv[])
{
	if (argc == 4 && !strcmp(argv[1], "fuzz"))
		return fuzz(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "cases"))
		return cases();
	if (argc == 2 && !strcmp(argv[1], "events"))
		return events();
	if (argc == 2 && !strcmp(argv[1], "perm"))
		return perm();
	if (argc == 3 && !strcmp(argv[1], "liar"))
		return liar(strtoul(argv[2], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "try"))
		return try_cmd(strtoul(argv[2], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "join"))
		return join(argv[2]);
	fprintf(stderr, "usage: nlfuzz fuzz SEED COUNT | cases | events | perm | liar COUNT |\n"
		"       try CMD | join GROUP\n");
	return 2;
}
