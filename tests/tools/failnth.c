// SPDX-License-Identifier: GPL-2.0
/*
 * failnth.so: LD_PRELOAD=failnth.so FAILNTH=N CMD makes the Nth fault
 * injection point (slab allocation, with the debug kernel's failslab) of
 * each generic netlink request CMD sends to a family other than the
 * controller fail, counted from that request's sendto(2).  The handler of
 * a genl request runs inside sendto, so for a dstadm command the failure
 * lands on the request's path through the dst module and nowhere else:
 * fail-nth is armed just before the call and disarmed right after it, so
 * neither exec, the C library, the family lookup nor the filesystem dstadm
 * runs from ever sees it.  A request in which the fault was injected (the
 * count reached zero) is told on stderr: "failnth: fault injected".
 * Systematic fault injection as syzkaller does it, through
 * /proc/thread-self/fail-nth.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef ssize_t (*sendto_fn)(int, const void *, size_t, int,
			     const struct sockaddr *, socklen_t);

static void set_nth(int fd, const char *n)
{
	if (write(fd, n, strlen(n)) < 0) {
		perror("failnth: /proc/thread-self/fail-nth");
		exit(2);
	}
}

/* A genl request to a family other than the controller (the dst family). */
static int is_request(const void *buf, size_t len, const struct sockaddr *addr)
{
	const struct nlmsghdr *nlh = buf;

	return addr && addr->sa_family == AF_NETLINK &&
	       len >= sizeof(*nlh) && nlh->nlmsg_type >= NLMSG_MIN_TYPE &&
	       nlh->nlmsg_type != GENL_ID_CTRL;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	static sendto_fn real;
	const char *nth = getenv("FAILNTH");
	char left[16] = "";
	ssize_t ret;
	int f, err;

	if (!real)
		real = (sendto_fn)dlsym(RTLD_NEXT, "sendto");
	if (!nth || !is_request(buf, len, addr))
		return real(fd, buf, len, flags, addr, alen);

	/*
	 * Opened before arming: the open's own allocations must not count.
	 * Reading and writing it allocate nothing, and with the debug
	 * kernel's FAULT_INJECTION_USERCOPY off its copies do not count.
	 */
	f = open("/proc/thread-self/fail-nth", O_RDWR);
	if (f < 0) {
		perror("failnth: /proc/thread-self/fail-nth");
		exit(2);
	}
	set_nth(f, nth);
	ret = real(fd, buf, len, flags, addr, alen);
	err = errno;
	if (pread(f, left, sizeof(left) - 1, 0) < 0) {
		perror("failnth: /proc/thread-self/fail-nth");
		exit(2);
	}
	set_nth(f, "0");
	close(f);
	if (atoi(left) == 0)
		fprintf(stderr, "failnth: fault injected\n");
	errno = err;
	return ret;
}
