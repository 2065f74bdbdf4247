// SPDX-License-Identifier: GPL-2.0
/*
 * failnth.so: LD_PRELOAD=failnth.so FAILNTH=N CMD makes the Nth fault
 * injection point (slab allocation, with the debug kernel's failslab) of
 * CMD's first sendto(2) fail, counted from that call: for a dstadm
 * command, an allocation of the netlink request's path through the dst
 * module, not of exec or the C library.  Systematic fault injection as
 * syzkaller does it, through /proc/thread-self/fail-nth.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *addr, socklen_t alen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);
	static int armed;
	const char *nth = getenv("FAILNTH");
	int f;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, int,
				    const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "sendto");
	if (nth && !armed) {
		armed = 1;
		f = open("/proc/thread-self/fail-nth", O_WRONLY);
		if (f < 0 || write(f, nth, strlen(nth)) < 0) {
			perror("failnth: /proc/thread-self/fail-nth");
			exit(2);
		}
		close(f);
	}
	return real(fd, buf, len, flags, addr, alen);
}
