// SPDX-License-Identifier: GPL-2.0
/*
 * acklog: writes that a crash must not lose, and the check after it.
 * Runs in the test guest.
 *
 *   acklog write DEV LOG FIRST COUNT SEED [plain]
 *	Forever (until killed): picks a 4 KiB block from FIRST to
 *	FIRST + COUNT - 1, writes it with O_DIRECT | O_DSYNC (FUA) holding
 *	its number, a sequence number and a checksum of the rest, and once
 *	the write has returned, appends "BLOCK SEQ" to LOG (opened O_SYNC;
 *	put it where a crash of this host cannot take it, e.g. the 9p share).
 *	With "plain", O_DIRECT alone: writes that a write-behind leg may
 *	get after they returned (a flush or FUA never goes behind).
 *
 *   acklog check DEV LOG...
 *	For every block of the logs, the newest acknowledged SEQ: the block
 *	on DEV must hold a valid record of that block with that SEQ or a
 *	newer one (a write in flight at the crash may have landed).  Exit 0
 *	when all do, 1 (each bad block printed) when one does not, 2 on a
 *	usage or I/O error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK		4096
#define MAGIC		0x41434b4c4f470a01ULL	/* "ACKLOG" */
#define MAX_BLOCKS	(1U << 22)

struct record {
	uint64_t magic;
	uint64_t block;
	uint64_t seq;
	uint64_t sum;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* Payload words after the record, and their checksum. */
static uint64_t fill(uint64_t *w, uint64_t block, uint64_t seq)
{
	uint64_t sum = 0, i;

	for (i = sizeof(struct record) / 8; i < BLOCK / 8; i++) {
		w[i] = mix(block * 0x9e3779b97f4a7c15ULL + seq * 131 + i);
		sum = mix(sum ^ w[i]);
	}
	return sum;
}

/* Whether @w holds a whole record of @block, of any sequence number. */
static int valid(const uint64_t *w, uint64_t block)
{
	const struct record *rec = (const struct record *)w;
	uint64_t sum = 0, i, v;

	if (rec->magic != MAGIC || rec->block != block)
		return 0;
	for (i = sizeof(struct record) / 8; i < BLOCK / 8; i++) {
		v = mix(block * 0x9e3779b97f4a7c15ULL + rec->seq * 131 + i);
		if (w[i] != v)
			return 0;
		sum = mix(sum ^ v);
	}
	return sum == rec->sum;
}

static int die(const char *what)
{
	perror(what);
	return 2;
}

static int cmd_write(char *argv[], int flags)
{
	uint64_t first = strtoull(argv[2], NULL, 0);
	uint64_t count = strtoull(argv[3], NULL, 0);
	uint64_t seq = 0, block, r = strtoull(argv[4], NULL, 0);
	struct record *rec;
	uint64_t *w;
	char line[64];
	int fd, log;

	if (!count)
		return fprintf(stderr, "acklog: COUNT must be > 0\n"), 2;
	if (posix_memalign((void **)&w, BLOCK, BLOCK))
		return die("posix_memalign");
	fd = open(argv[0], O_WRONLY | O_DIRECT | flags);
	if (fd < 0)
		return die(argv[0]);
	log = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_SYNC, 0644);
	if (log < 0)
		return die(argv[1]);
	rec = (struct record *)w;
	for (;;) {
		r = mix(r + 1);
		block = first + r % count;
		seq++;
		rec->magic = MAGIC;
		rec->block = block;
		rec->seq = seq;
		rec->sum = fill(w, block, seq);
		if (pwrite(fd, w, BLOCK, (off_t)(block * BLOCK)) != BLOCK)
			return die("pwrite");
		snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 "\n", block, seq);
		if (write(log, line, strlen(line)) != (ssize_t)strlen(line))
			return die("write log");
	}
}

static int cmd_check(int nlogs, char *argv[])
{
	uint64_t *want, *w, block, seq, n = 0, bad = 0, b;
	struct record *rec;
	int fd, i;
	FILE *f;

	want = calloc(MAX_BLOCKS, sizeof(*want));
	if (!want || posix_memalign((void **)&w, BLOCK, BLOCK))
		return die("alloc");
	for (i = 0; i < nlogs; i++) {
		f = fopen(argv[1 + i], "r");
		if (!f)
			return die(argv[1 + i]);
		/* A line cut by the crash does not parse: it was not logged. */
		while (fscanf(f, "%" SCNu64 " %" SCNu64 "\n", &block, &seq) == 2)
			if (block < MAX_BLOCKS && seq > want[block])
				want[block] = seq;
		fclose(f);
	}
	fd = open(argv[0], O_RDONLY | O_DIRECT);
	if (fd < 0)
		return die(argv[0]);
	rec = (struct record *)w;
	for (b = 0; b < MAX_BLOCKS; b++) {
		if (!want[b])
			continue;
		n++;
		if (pread(fd, w, BLOCK, (off_t)(b * BLOCK)) != BLOCK)
			return die("pread");
		if (!valid(w, b) || rec->seq < want[b]) {
			printf("block %" PRIu64 ": acknowledged seq %" PRIu64
			       ", found magic %#" PRIx64 " block %" PRIu64 " seq %" PRIu64 "%s\n",
			       b, want[b], rec->magic, rec->block, rec->seq,
			       valid(w, b) ? "" : " (not a whole record)");
			bad++;
		}
	}
	printf("acklog: %" PRIu64 " acknowledged block(s) checked, %" PRIu64 " bad\n", n, bad);
	return bad ? 1 : 0;
}

int main(int argc, char *argv[])
{
	if (argc == 7 && !strcmp(argv[1], "write"))
		return cmd_write(argv + 2, O_DSYNC);
	if (argc == 8 && !strcmp(argv[1], "write") && !strcmp(argv[7], "plain"))
		return cmd_write(argv + 2, 0);
	if (argc >= 4 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 3, argv + 2);
	fprintf(stderr, "usage: acklog write DEV LOG FIRST COUNT SEED [plain]\n"
			"       acklog check DEV LOG...\n");
	return 2;
}
