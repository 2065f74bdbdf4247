// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: shared secrets, read from files that only their owner may read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dstadm.h"

int secret_load(const char *path, uint8_t *buf, size_t *len)
{
	uint8_t tmp[DST_SECRET_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "%s: secret file %s: %s\n", PROG, path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: secret file %s: not a regular file\n", PROG, path);
		goto err;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		fprintf(stderr, "%s: secret file %s: group or others may access it (mode %04o); chmod 600 it\n",
			PROG, path, (unsigned int)(st.st_mode & 07777));
		goto err;
	}
	n = read(fd, tmp, sizeof(tmp));
	if (n < 0) {
		fprintf(stderr, "%s: secret file %s: %s\n", PROG, path, strerror(errno));
		goto err;
	}
	if (n > 0 && tmp[n - 1] == '\n')
		n--;
	if (n < 1 || n > DST_SECRET_MAX) {
		fprintf(stderr, "%s: secret file %s: the secret must be 1 to %d bytes (one trailing newline is dropped)\n",
			PROG, path, DST_SECRET_MAX);
		goto err;
	}
	memcpy(buf, tmp, (size_t)n);
	*len = (size_t)n;
	explicit_bzero(tmp, sizeof(tmp));
	close(fd);
	return 0;
err:
	explicit_bzero(tmp, sizeof(tmp));
	close(fd);
	return -1;
}
