// SPDX-License-Identifier: GPL-2.0
/*
 * acklog: writes that a crash must not lose, and the check after it.
 * Runs in the test guest.
 *
 *   acklog write DEV LOG FIRST COUNT SEED [plain|sync] [read]
 *	Until SIGTERM (or killed): picks a 4 KiB block from FIRST to
 *	FIRST + COUNT - 1, writes it with O_DIRECT | O_DSYNC (FUA) holding
 *	its number, a sequence number and a checksum of the rest, and once
 *	the write has returned, appends "BLOCK SEQ" to LOG (opened O_SYNC;
 *	put it where a crash of this host cannot take it, e.g. the 9p share).
 *	With "plain", O_DIRECT alone: writes that a write-behind leg may
 *	get after they returned (a flush or FUA never goes behind).  With
 *	"sync", O_DIRECT writes and an fdatasync() (a flush) after every
 *	SYNC_EVERY of them; the writes are logged once that returned.  With
 *	"read", after each write it reads back, with O_DIRECT, a block of
 *	its range that it wrote before, at random: the block must hold the
 *	last write it acknowledged there (no other writer shares the range),
 *	or it exits 1 at once, saying what it read.  A failed write or read
 *	exits 2.  On SIGTERM it finishes the I/O in progress, prints
 *	"acklog: N writes done, N reads verified" and exits 0.
 *
 *   acklog check DEV LOG...
 *	For every block of the logs, the newest acknowledged SEQ: the block
 *	on DEV must hold a valid record of that block with that SEQ or a
 *	newer one (a write in flight at the crash may have landed).  Exit 0
 *	when all do, 1 (each bad block printed) when one does not or when
 *	the logs hold no write at all (nothing would be verified), 2 on a
 *	usage or I/O error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK		4096
#define MAGIC		0x41434b4c4f470a01ULL	/* "ACKLOG" */
#define MAX_BLOCKS	(1U << 22)
#define SYNC_EVERY	32

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

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/*
 * Read back a block of @acked (the last SEQ written to each block from
 * @first, 0 for none yet) at random; 0 if it holds that write, 1 if not.
 */
static int read_back(int fd, const uint64_t *acked, uint64_t first,
		     uint64_t count, uint64_t r, uint64_t *w)
{
	const struct record *rec = (const struct record *)w;
	uint64_t i = r % count, b;

	/* The next block written before, from a random one. */
	while (!acked[i])
		i = (i + 1) % count;
	b = first + i;
	if (pread(fd, w, BLOCK, (off_t)(b * BLOCK)) != BLOCK)
		return die("pread");
	if (valid(w, b) && rec->seq == acked[i])
		return 0;
	printf("acklog: read block %" PRIu64 ": acknowledged seq %" PRIu64
	       ", found magic %#" PRIx64 " block %" PRIu64 " seq %" PRIu64 "%s\n",
	       b, acked[i], rec->magic, rec->block, rec->seq,
	       valid(w, b) ? "" : " (not a whole record)");
	return 1;
}

/* Appends "BLOCK SEQ" of each of the @n writes in @done to @log. */
static int log_acks(int log, const uint64_t (*done)[2], unsigned int n)
{
	char line[64];
	unsigned int i;

	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 "\n",
			 done[i][0], done[i][1]);
		if (write(log, line, strlen(line)) != (ssize_t)strlen(line))
			return die("write log");
	}
	return 0;
}

static int cmd_write(char *argv[], int flags, bool sync, bool reads)
{
	uint64_t first = strtoull(argv[2], NULL, 0);
	uint64_t count = strtoull(argv[3], NULL, 0);
	uint64_t seq = 0, block, r = strtoull(argv[4], NULL, 0), nread = 0;
	struct sigaction sa = { .sa_handler = on_term, .sa_flags = SA_RESTART };
	uint64_t *w, *acked = NULL, done[SYNC_EVERY][2];
	unsigned int ndone = 0;
	struct record *rec;
	int fd, rfd = -1, log, err;

	if (!count || count > MAX_BLOCKS)
		return fprintf(stderr, "acklog: COUNT must be 1 to %u\n", MAX_BLOCKS), 2;
	if (posix_memalign((void **)&w, BLOCK, BLOCK))
		return die("posix_memalign");
	fd = open(argv[0], O_WRONLY | O_DIRECT | flags);
	if (fd < 0)
		return die(argv[0]);
	if (reads) {
		acked = calloc(count, sizeof(*acked));
		rfd = open(argv[0], O_RDONLY | O_DIRECT);
		if (!acked || rfd < 0)
			return die(argv[0]);
	}
	log = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_SYNC, 0644);
	if (log < 0)
		return die(argv[1]);
	sigaction(SIGTERM, &sa, NULL);
	rec = (struct record *)w;
	while (!stopping) {
		r = mix(r + 1);
		block = first + r % count;
		seq++;
		rec->magic = MAGIC;
		rec->block = block;
		rec->seq = seq;
		rec->sum = fill(w, block, seq);
		if (pwrite(fd, w, BLOCK, (off_t)(block * BLOCK)) != BLOCK)
			return die("pwrite");
		done[ndone][0] = block;
		done[ndone][1] = seq;
		if (++ndone == SYNC_EVERY || !sync) {
			if (sync && fdatasync(fd))
				return die("fdatasync");
			err = log_acks(log, done, ndone);
			if (err)
				return err;
			ndone = 0;
		}
		if (!reads)
			continue;
		acked[block - first] = seq;
		r = mix(r + 1);
		err = read_back(rfd, acked, first, count, r, w);
		if (err)
			return err;
		nread++;
	}
	printf("acklog: %" PRIu64 " writes done, %" PRIu64 " reads verified\n",
	       seq, nread);
	return 0;
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
	if (!n)
		printf("acklog: the logs hold no acknowledged write: nothing was verified\n");
	return bad || !n ? 1 : 0;
}

int main(int argc, char *argv[])
{
	bool plain = false, sync = false, reads = false;
	int i;

	if (argc >= 7 && argc <= 9 && !strcmp(argv[1], "write")) {
		for (i = 7; i < argc; i++) {
			if (!strcmp(argv[i], "plain"))
				plain = true;
			else if (!strcmp(argv[i], "sync"))
				sync = true;
			else if (!strcmp(argv[i], "read"))
				reads = true;
			else
				goto usage;
		}
		if (plain && sync)
			goto usage;
		return cmd_write(argv + 2, plain || sync ? 0 : O_DSYNC, sync, reads);
	}
	if (argc >= 4 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 3, argv + 2);
usage:
	fprintf(stderr, "usage: acklog write DEV LOG FIRST COUNT SEED [plain|sync] [read]\n"
			"       acklog check DEV LOG...\n");
	return 2;
}
