// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm tlsd: the TLS handshake agent.
 *
 * The module makes and accepts its connections itself; those with TLS on
 * wait for this agent, as the kernel's own net/handshake waits for tlshd.
 * The agent listens on the "tls" group, takes each waiting connection
 * with DST_CMD_TLS_ACCEPT (its socket arrives as a file descriptor), does
 * the TLS 1.3 handshake with GnuTLS in a child of its own, so that a slow
 * peer holds up no other, and puts the session's keys into the kernel's
 * TLS layer (TLS_TX, TLS_RX).  The child tells the agent how it ended
 * through a pipe, and the agent says DST_CMD_TLS_DONE on the netlink
 * socket that accepted it: the module takes it from no other.  No record
 * is ever sent or read here after the handshake: the data stays in the
 * kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/genetlink.h>

#include "dstadm.h"
#include "ktls.h"
#include "nl.h"

/* What DST_CMD_TLS_ACCEPT said about a connection. */
struct tls_job {
	uint32_t id;
	int fd;
	uint32_t role;			/* enum dst_tls_role */
	struct ktls_params p;
	char peer[INET6_ADDRSTRLEN + 8];
};

static volatile sig_atomic_t stop;

/* Tell systemd (Type=notify) that the agent listens, as sd_notify(3). */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	static const char msg[] = "READY=1";
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    strlen(path) >= sizeof(sun.sun_path))
		return;
	strcpy(sun.sun_path, path);
	/* An abstract socket: its name starts with a NUL, not '@'. */
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, sizeof(msg) - 1, 0, (struct sockaddr *)&sun, len) < 0)
		fprintf(stderr, "%s: tlsd: cannot notify systemd: %s\n", PROG,
			strerror(errno));
	close(fd);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void peer_string(const struct nlattr *attr, char *buf, size_t size)
{
	const struct sockaddr_in6 *sin6 = mnl_attr_get_payload(attr);
	const struct sockaddr_in *sin = mnl_attr_get_payload(attr);
	char host[INET6_ADDRSTRLEN];

	if (mnl_attr_get_payload_len(attr) == sizeof(*sin) &&
	    sin->sin_family == AF_INET &&
	    inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host)))
		snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
	else if (mnl_attr_get_payload_len(attr) == sizeof(*sin6) &&
		 sin6->sin6_family == AF_INET6 &&
		 inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host)))
		snprintf(buf, size, "[%s]:%u", host, ntohs(sin6->sin6_port));
	else
		snprintf(buf, size, "?");
}

static int job_attr(const struct nlattr *attr, struct tls_job *j)
{
	switch (mnl_attr_get_type(attr)) {
	case DST_TLS_A_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -1;
		j->id = mnl_attr_get_u32(attr);
		break;
	case DST_TLS_A_FD:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -1;
		j->fd = (int)mnl_attr_get_u32(attr);
		break;
	case DST_TLS_A_ROLE:
	case DST_TLS_A_MODE:
	case DST_TLS_A_TIMEOUT:
	case DST_TLS_A_CIPHER:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return -1;
		*(mnl_attr_get_type(attr) == DST_TLS_A_ROLE ? &j->role :
		  mnl_attr_get_type(attr) == DST_TLS_A_MODE ? &j->p.mode :
		  mnl_attr_get_type(attr) == DST_TLS_A_CIPHER ? &j->p.cipher :
		  &j->p.timeout) = mnl_attr_get_u32(attr);
		break;
	case DST_TLS_A_PSK:
		j->p.psk.data = mnl_attr_get_payload(attr);
		j->p.psk.size = mnl_attr_get_payload_len(attr);
		break;
	case DST_TLS_A_CERT:
	case DST_TLS_A_KEY:
	case DST_TLS_A_CA:
	case DST_TLS_A_NAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return -1;
		*(mnl_attr_get_type(attr) == DST_TLS_A_CERT ? &j->p.cert :
		  mnl_attr_get_type(attr) == DST_TLS_A_KEY ? &j->p.key :
		  mnl_attr_get_type(attr) == DST_TLS_A_CA ? &j->p.ca :
		  &j->p.name) = mnl_attr_get_str(attr);
		break;
	case DST_TLS_A_PEER:
		peer_string(attr, j->peer, sizeof(j->peer));
		break;
	}
	return 0;
}

static int accept_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tls_job *j = data;
	const struct nlattr *attr, *a;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != DST_A_TLS)
			continue;
		mnl_attr_for_each_nested(a, attr)
			if (job_attr(a, j) < 0)
				return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* How a child's handshake ended, from the child to the agent. */
struct tls_end {
	uint32_t id;
	int status;			/* 0 or a positive errno */
	char why[256];
};

/* Tell the module over @nl how the handshake of @e->id ended. */
static void tls_done(struct dst_nl *nl, const struct tls_end *e)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = dst_nl_msg(nl, DST_CMD_TLS_DONE, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, DST_A_TLS);
	mnl_attr_put_u32(nlh, DST_TLS_A_ID, e->id);
	mnl_attr_put_u32(nlh, DST_TLS_A_STATUS, (uint32_t)e->status);
	if (e->status)
		mnl_attr_put_strz(nlh, DST_TLS_A_MESSAGE, e->why);
	mnl_attr_nest_end(nlh, nest);
	if (dst_nl_request(nl, nlh, NULL, NULL) < 0)
		dst_nl_perror(nl, "handshake %u: tell the module", e->id);
}

/* In a child: the handshake of @j, its end written to @out. */
static void run_job(const struct tls_job *j, int out)
{
	struct tls_end e = { .id = j->id };

	e.status = ktls_handshake(j->fd, &j->p, e.why, sizeof(e.why));
	close(j->fd);
	if (e.status)
		fprintf(stderr, "%s: tlsd: %s with %s: %s\n", PROG,
			j->role == DST_TLS_SERVER ? "client" : "export",
			j->peer, e.why);
	/* Less than PIPE_BUF: written whole, never mixed with another's. */
	if (write(out, &e, sizeof(e)) != sizeof(e))
		fprintf(stderr, "%s: tlsd: handshake %u: tell the agent: %s\n",
			PROG, j->id, strerror(errno));
}

/* Tell the module of every end the children wrote to @in. */
static void read_ends(struct dst_nl *nl, int in)
{
	struct tls_end e;

	while (read(in, &e, sizeof(e)) == sizeof(e)) {
		e.why[sizeof(e.why) - 1] = '\0';
		tls_done(nl, &e);
	}
}

/*
 * Take the waiting connections, each into a child of its own; 0 when
 * none waits any more, -1 on an error of the module's.
 */
static int take_all(struct dst_nl *nl, int ends)
{
	struct nlmsghdr *nlh;
	struct tls_job j;
	pid_t pid;

	for (;;) {
		memset(&j, 0, sizeof(j));
		j.fd = -1;
		nlh = dst_nl_msg(nl, DST_CMD_TLS_ACCEPT, NLM_F_ACK);
		if (dst_nl_request(nl, nlh, accept_cb, &j) < 0) {
			if (errno == ENOENT)
				return 0;
			dst_nl_perror(nl, "take a connection");
			return -1;
		}
		j.p.server = j.role == DST_TLS_SERVER;
		if (j.fd < 0 || !j.id) {
			fprintf(stderr, "%s: tlsd: the module sent no socket\n", PROG);
			if (j.fd >= 0)
				close(j.fd);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			run_job(&j, ends);
			explicit_bzero(nl->buf, sizeof(nl->buf));
			_exit(0);
		}
		if (pid < 0) {
			struct tls_end e = { .id = j.id, .status = EAGAIN,
					     .why = "the agent cannot fork" };

			fprintf(stderr, "%s: tlsd: fork: %s\n", PROG, strerror(errno));
			tls_done(nl, &e);
		}
		close(j.fd);
		explicit_bzero(nl->buf, sizeof(nl->buf));
	}
}

/* Open @nl and @mon on the dst family, @mon in its "tls" group. */
static int join(struct dst_nl *nl, struct dst_nl *mon)
{
	if (dst_nl_open(mon) < 0)
		return -1;
	if (dst_nl_open(nl) < 0)
		goto err_mon;
	if (!mon->tls_group) {
		fprintf(stderr, "%s: tlsd: the dst module has no TLS (its version is older)\n",
			PROG);
		goto err;
	}
	if (mnl_socket_setsockopt(mon->sock, NETLINK_ADD_MEMBERSHIP,
				  &mon->tls_group, sizeof(mon->tls_group)) < 0) {
		fprintf(stderr, "%s: tlsd: join the tls group: %s\n", PROG,
			strerror(errno));
		goto err;
	}
	fprintf(stderr, "%s: tlsd: ready for TLS handshakes\n", PROG);
	return 0;
err:
	dst_nl_close(nl);
err_mon:
	dst_nl_close(mon);
	return -1;
}

/*
 * From a message of nlctrl's "notify" group: 1 if the dst family came,
 * -1 if it went, 0 for anything else.
 */
static int family_change(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*g)) ||
	    (g->cmd != CTRL_CMD_NEWFAMILY && g->cmd != CTRL_CMD_DELFAMILY))
		return 0;
	mnl_attr_for_each(attr, nlh, sizeof(*g))
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_NAME &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0 &&
		    !strcmp(mnl_attr_get_str(attr), DST_GENL_NAME))
			return g->cmd == CTRL_CMD_NEWFAMILY ? 1 : -1;
	return 0;
}

/* Read what came on @ctl: 1 the dst family came, -1 it went, else 0. */
static int read_ctl(struct mnl_socket *ctl, char *buf, size_t size)
{
	const struct nlmsghdr *nlh;
	int len, change = 0, c;

	len = (int)mnl_socket_recvfrom(ctl, buf, size);
	if (len < 0)
		return 0;
	for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
	     nlh = mnl_nlmsg_next(nlh, &len)) {
		c = family_change(nlh);
		if (c)
			change = c;
	}
	return change;
}

int cmd_tlsd(int argc, char *argv[])
{
	struct sigaction sa = { .sa_handler = on_signal };
	/* nlctrl's "notify" group has the family's id, by old convention. */
	unsigned int notify = GENL_ID_CTRL;
	char cbuf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *ctl;
	struct pollfd pfd[3];
	struct dst_nl nl, mon;
	int ends[2];
	bool joined = false;
	int c, ret = EXIT_FAIL;

	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "tlsd")) != -1) {
		if (c == 'h') {
			print_command_help(stdout, find_command("tlsd"));
			return EXIT_OK;
		}
		return bad_option("tlsd", c, argv);
	}
	if (optind < argc)
		return usage_error("tlsd", "unexpected argument '%s'", argv[optind]);

	/*
	 * The module may be unloaded and loaded again (rmmod, an upgrade):
	 * its family then has a new id and an empty group, so the agent
	 * follows nlctrl's notices of it and joins the new one.
	 */
	ctl = mnl_socket_open(NETLINK_GENERIC);
	if (!ctl || mnl_socket_bind(ctl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_setsockopt(ctl, NETLINK_ADD_MEMBERSHIP, &notify,
				  sizeof(notify)) < 0) {
		fprintf(stderr, "%s: tlsd: netlink control socket: %s\n", PROG,
			strerror(errno));
		if (ctl)
			mnl_socket_close(ctl);
		return EXIT_FAIL;
	}
	/* The children's ends: read without waiting, written whole. */
	if (pipe2(ends, O_CLOEXEC) < 0 ||
	    fcntl(ends[0], F_SETFL, O_NONBLOCK) < 0) {
		fprintf(stderr, "%s: tlsd: pipe: %s\n", PROG, strerror(errno));
		goto out_ctl;
	}
	if (join(&nl, &mon) < 0)
		goto out_pipe;
	joined = true;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Children are not waited for one by one. */
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (gnutls_global_init() < 0) {
		fprintf(stderr, "%s: tlsd: cannot start GnuTLS\n", PROG);
		goto out;
	}
	notify_ready();

	pfd[0].fd = mnl_socket_get_fd(ctl);
	pfd[0].events = POLLIN;
	pfd[1].events = POLLIN;
	pfd[2].fd = ends[0];
	pfd[2].events = POLLIN;
	/*
	 * Joined first: a connection that waits before is taken now; one
	 * whose request was lost (a full socket buffer) within a second.
	 */
	while (!stop) {
		if (joined && take_all(&nl, ends[1]) < 0)
			break;
		pfd[1].fd = joined ? mnl_socket_get_fd(mon.sock) : -1;
		if (poll(pfd, 3, 1000) <= 0)
			continue;
		if (pfd[2].revents & POLLIN) {
			if (joined)
				read_ends(&nl, ends[0]);
			else
				while (read(ends[0], cbuf, sizeof(cbuf)) > 0)
					;
		}
		if (pfd[1].revents & POLLIN &&
		    mnl_socket_recvfrom(mon.sock, mon.buf, sizeof(mon.buf)) < 0 &&
		    errno != ENOBUFS && errno != EINTR) {
			fprintf(stderr, "%s: tlsd: %s\n", PROG, strerror(errno));
			break;
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		c = read_ctl(ctl, cbuf, sizeof(cbuf));
		if (c < 0 && joined) {
			fprintf(stderr, "%s: tlsd: the dst module went away, waiting for it\n",
				PROG);
			dst_nl_close(&nl);
			dst_nl_close(&mon);
			joined = false;
		} else if (c > 0 && !joined) {
			if (join(&nl, &mon) < 0)
				break;
			joined = true;
		}
	}
	ret = stop ? EXIT_OK : EXIT_FAIL;
	gnutls_global_deinit();
out:
	if (joined) {
		dst_nl_close(&nl);
		dst_nl_close(&mon);
	}
out_pipe:
	close(ends[0]);
	close(ends[1]);
out_ctl:
	mnl_socket_close(ctl);
	return ret;
}
