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

int secret_read(const char *path, uint8_t *buf, size_t *len, char *why, size_t wlen)
{
	uint8_t tmp[DST_SECRET_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, wlen, "secret file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, wlen, "secret file %s: not a regular file", path);
		goto err;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(why, wlen, "secret file %s: group or others may access it (mode %04o); chmod 600 it",
			 path, (unsigned int)(st.st_mode & 07777));
		goto err;
	}
	n = read(fd, tmp, sizeof(tmp));
	if (n < 0) {
		snprintf(why, wlen, "secret file %s: %s", path, strerror(errno));
		goto err;
	}
	if (n > 0 && tmp[n - 1] == '\n')
		n--;
	if (n < 1 || n > DST_SECRET_MAX) {
		snprintf(why, wlen, "secret file %s: the secret must be 1 to %d bytes (one trailing newline is dropped)",
			 path, DST_SECRET_MAX);
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

int secret_load(const char *path, uint8_t *buf, size_t *len)
{
	char why[PATH_MAX + 128];

	if (secret_read(path, buf, len, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "%s: %s\n", PROG, why);
	return -1;
}
