// SPDX-License-Identifier: GPL-2.0
/*
 * unstable: O_DIRECT writes whose buffer another thread keeps changing, as
 * an application may do to its own data (kernel review S3).
 *
 *   unstable DEVICE SECONDS
 *	writes 4 KiB at offset 0 of DEVICE over and over for SECONDS while a
 *	second thread increments the buffer's bytes; prints how many writes
 *	were made and how many failed.  Exit 0 unless it cannot run.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned char *buf;
static atomic_int done;

static void *scribble(void *arg)
{
	size_t i = 0;

	(void)arg;
	while (!atomic_load(&done))
		((volatile unsigned char *)buf)[i++ % 4096]++;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long writes = 0, failed = 0;
	pthread_t t;
	time_t end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: unstable DEVICE SECONDS\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, 4096)) {
		fprintf(stderr, "unstable: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	memset(buf, 0, 4096);
	if (pthread_create(&t, NULL, scribble, NULL)) {
		fprintf(stderr, "unstable: cannot start a thread\n");
		return 2;
	}
	end = time(NULL) + atoi(argv[2]);
	while (time(NULL) < end) {
		writes++;
		if (pwrite(fd, buf, 4096, 0) != 4096)
			failed++;
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	printf("unstable: %lu writes, %lu failed\n", writes, failed);
	close(fd);
	free(buf);
	return 0;
}
