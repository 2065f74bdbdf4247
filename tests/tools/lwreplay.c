// SPDX-License-Identifier: GPL-2.0
/*
 * lwreplay: a power cut, from a dm-log-writes log.  Runs in the test guest
 * (dm-log-writes) and on the host (QEMU's blklogwrites, the multi tier).
 *
 *   lwreplay LOG OUT MARK
 *	Writes onto OUT (a file or device that held what the logged device
 *	held when its log began) every write of LOG, in the log's order, up
 *	to the mark named MARK (dmsetup message DEV 0 mark MARK).  Exit 0
 *	and a line of counts when the mark was found, 1 when it was not, 2
 *	on a usage or I/O error or a log that does not parse.
 *
 *   lwreplay -c LOG OUT
 *	A power cut at the end of a log that QEMU's blklogwrites wrote until
 *	its QEMU was killed: writes onto OUT every write logged before the
 *	last flush entry, and the FUA writes after it.  The super block's
 *	count is not used (QEMU updates it only now and then); the entries
 *	are read until one does not parse or the file ends (a SIGKILL can
 *	leave the last ones torn).  Exit 0 and a line of counts, 2 on a
 *	usage or I/O error.
 *
 * QEMU's blklogwrites logs a write when the write itself has completed,
 * a flush likewise, and completes the request only once its entry is
 * written: every write the guest saw complete before it sent a flush is
 * in the log before that flush's entry.  A write after the last flush
 * may or may not have reached the disk; the cut keeps none of them, the
 * worst a power cut may do (a write that completed while that flush was
 * under way is before it in the log and kept: slightly kinder).  An
 * entry torn with later ones complete would end the replay early: a cut
 * that keeps less, never more.
 *
 * dm-log-writes (drivers/md/dm-log-writes.c) puts a write in its log only
 * once it is durable: a FUA write when it completes, any other write when
 * a flush that was sent after it completes.  So what the log holds before
 * a mark is what a device that loses every write it was not told to flush
 * would hold after a power cut at that mark; replaying it gives that
 * device.  The log: a super block (magic, version, entries, sector size)
 * in the first sector, then for each entry one sector of header (sector,
 * number of sectors, flags, data length; a mark's name after it) and the
 * data written, if any, in the following sectors.
 */
#include <endian.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_FLUSH_FLAG		(1 << 0)
#define LOG_FUA_FLAG		(1 << 1)
#define LOG_DISCARD_FLAG	(1 << 2)
#define LOG_MARK_FLAG		(1 << 3)
#define WRITE_LOG_MAGIC		0x6a736677736872ULL
#define WRITE_LOG_VERSION	1

struct log_write_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct log_write_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
};

static int bad(const char *what)
{
	perror(what);
	return 2;
}

static int parse_error(const char *what, uint64_t i)
{
	fprintf(stderr, "lwreplay: entry %" PRIu64 ": %s\n", i, what);
	return 2;
}

/* A parsed entry header at pos, or 0 at the end or a torn one (-c). */
static int read_entry(int log, char *buf, size_t ss, off_t pos,
		      struct log_write_entry *e)
{
	if (pread(log, buf, ss, pos) != (ssize_t)ss)
		return 0;
	memcpy(e, buf, sizeof(*e));
	e->sector = le64toh(e->sector);
	e->nr_sectors = le64toh(e->nr_sectors);
	e->flags = le64toh(e->flags);
	e->data_len = le64toh(e->data_len);
	return 1;
}

/* The power cut at the end of a QEMU blklogwrites log: see the top. */
/*
 * Copy an entry's @len bytes of data at @pos of the log to @at of the
 * output; *@buf grows to hold them (and never below an entry's @ss).
 */
static int apply(int log, int out, char **buf, uint64_t len, size_t ss,
		 off_t pos, off_t at)
{
	char *b = realloc(*buf, len > ss ? len : ss);

	if (!b)
		return bad("realloc");
	*buf = b;
	if (pread(log, b, len, pos) != (ssize_t)len)
		return bad("read data");
	if (pwrite(out, b, len, at) != (ssize_t)len)
		return bad("write");
	return 0;
}

static int cut(int log, int out, const char *name, size_t ss)
{
	uint64_t i, n, last_flush = 0, writes = 0, fua = 0, flushes = 0;
	uint64_t lost = 0, len;
	int err;
	struct log_write_entry e;
	off_t pos, size;
	char *buf;

	size = lseek(log, 0, SEEK_END);
	buf = malloc(ss);
	if (!buf || size < 0)
		return bad("cut");
	/* Pass 1: the entries that parse, and the last flush among them. */
	pos = (off_t)ss;
	for (n = 0; read_entry(log, buf, ss, pos, &e); n++) {
		if ((e.flags & ~(uint64_t)0xf) || e.data_len ||
		    (!e.flags && !e.nr_sectors) ||
		    e.nr_sectors > (64ULL << 20) / ss ||
		    pos + (off_t)((1 + e.nr_sectors) * ss) > size)
			break;
		if (e.flags & LOG_FLUSH_FLAG) {
			last_flush = n + 1;
			flushes++;
		}
		pos += (off_t)((1 + e.nr_sectors) * ss);
	}
	/* Pass 2: the writes before the last flush, and any FUA write. */
	pos = (off_t)ss;
	for (i = 0; i < n && read_entry(log, buf, ss, pos, &e); i++) {
		pos += ss;
		len = e.nr_sectors * ss;
		if (!len || (e.flags & (LOG_DISCARD_FLAG | LOG_MARK_FLAG)))
			continue;
		if (i >= last_flush && !(e.flags & LOG_FUA_FLAG)) {
			lost++;
			pos += (off_t)len;
			continue;
		}
		err = apply(log, out, &buf, len, ss, pos, (off_t)(e.sector * ss));
		if (err)
			return err;
		pos += (off_t)len;
		writes++;
		fua += !!(e.flags & LOG_FUA_FLAG);
	}
	if (fsync(out))
		return bad("fsync");
	printf("lwreplay: %s: %" PRIu64 " entries (%" PRIu64 " bytes of %jd), %"
	       PRIu64 " flushes: %" PRIu64 " writes kept (%" PRIu64
	       " FUA), %" PRIu64 " after the last flush lost\n", name, n,
	       (uint64_t)pos, (intmax_t)size, flushes, writes, fua, lost);
	free(buf);
	return 0;
}

int main(int argc, char *argv[])
{
	uint64_t i, n, writes = 0, fua = 0, flushes = 0, len;
	int err;
	struct log_write_super super;
	struct log_write_entry e;
	int log, out, cutting;
	off_t pos;
	size_t ss;
	char *buf;

	cutting = argc == 4 && !strcmp(argv[1], "-c");
	if (cutting) {
		argv++;
		argc--;
	}
	if (argc != 4 - cutting) {
		fprintf(stderr, "usage: lwreplay LOG OUT MARK | lwreplay -c LOG OUT\n");
		return 2;
	}
	log = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY);
	if (log < 0 || out < 0)
		return bad(log < 0 ? argv[1] : argv[2]);
	memset(&super, 0, sizeof(super));
	if (pread(log, &super, sizeof(super), 0) != sizeof(super) && !cutting)
		return bad("read super");
	ss = le32toh(super.sectorsize);
	n = le64toh(super.nr_entries);
	if (cutting && !super.magic && !ss) {
		/* QEMU writes the super block at the first flush. */
		printf("lwreplay: %s: no flush: nothing kept\n", argv[1]);
		return 0;
	}
	if (le64toh(super.magic) != WRITE_LOG_MAGIC ||
	    le64toh(super.version) != WRITE_LOG_VERSION ||
	    ss < 512 || ss > 65536 || (ss & (ss - 1))) {
		fprintf(stderr, "lwreplay: %s is not a dm-log-writes log\n", argv[1]);
		return 2;
	}
	if (cutting)
		return cut(log, out, argv[1], ss);
	buf = malloc(ss);
	if (!buf)
		return bad("malloc");
	pos = (off_t)ss;
	for (i = 0; i < n; i++) {
		if (!read_entry(log, buf, ss, pos, &e))
			return bad("read entry");
		pos += ss;
		if (e.flags & LOG_MARK_FLAG) {
			if (e.data_len >= ss - sizeof(e))
				return parse_error("mark too long", i);
			buf[sizeof(e) + e.data_len] = '\0';
			if (!strcmp(buf + sizeof(e), argv[3])) {
				printf("lwreplay: %s: %" PRIu64 " writes (%" PRIu64
				       " FUA), %" PRIu64 " flushes before mark %s\n",
				       argv[1], writes, fua, flushes, argv[3]);
				return 0;
			}
			continue;
		}
		flushes += !!(e.flags & LOG_FLUSH_FLAG);
		/* A discard's data is whatever the device says: left alone. */
		if ((e.flags & LOG_DISCARD_FLAG) || !e.nr_sectors)
			continue;
		if (e.nr_sectors > (64ULL << 20) / ss)
			return parse_error("write too long", i);
		len = e.nr_sectors * ss;
		err = apply(log, out, &buf, len, ss, pos, (off_t)(e.sector * ss));
		if (err)
			return err;
		pos += (off_t)len;
		writes++;
		fua += !!(e.flags & LOG_FUA_FLAG);
	}
	fprintf(stderr, "lwreplay: %s: no mark %s in %" PRIu64 " entries\n",
		argv[1], argv[3], n);
	return 1;
}
