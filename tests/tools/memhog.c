// SPDX-License-Identifier: GPL-2.0
/*
 * memhog MIB PASSES: dirties MIB MiB of anonymous memory PASSES times and
 * checks every page it reads back.  Pass 0 fills each page with a pattern
 * of the page and the pass; each later pass first checks the page against
 * the previous pass's pattern, then writes its own; at the end every page
 * is checked once more.  With more MiB than the machine has free, the
 * pages go to swap and come back from it, so a page that swap lost or
 * mixed up shows as a mismatch.
 *
 * Prints one line of totals; exits 0 when every page matched, 1 on the
 * first mismatches (up to 8 are printed), 2 on a usage or system error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPORTS 8

static size_t page_size;
static uint64_t pages_checked;
static uint64_t mismatches;

/* The value of word W of page P in pass N: distinct per page and pass. */
static uint64_t pattern(uint64_t pass, uint64_t page, uint64_t word)
{
	uint64_t x = (pass + 1) * 0x9e3779b97f4a7c15ULL ^ page << 20 ^ word;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ x >> 29;
}

static void fill(uint64_t *p, uint64_t pass, uint64_t page)
{
	size_t w, words = page_size / sizeof(*p);

	for (w = 0; w < words; w++)
		p[w] = pattern(pass, page, w);
}

static void check(const uint64_t *p, uint64_t pass, uint64_t page)
{
	size_t w, words = page_size / sizeof(*p);

	pages_checked++;
	for (w = 0; w < words; w++) {
		if (p[w] == pattern(pass, page, w))
			continue;
		if (++mismatches <= MAX_REPORTS)
			fprintf(stderr,
				"memhog: page %" PRIu64 " word %zu: %#" PRIx64
				", pass %" PRIu64 " wrote %#" PRIx64 "\n",
				page, w, p[w], pass, pattern(pass, page, w));
		return;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t mib, passes, pages, pass, page;
	double start = now();
	char *end;
	char *mem;

	if (argc != 3) {
		fprintf(stderr, "usage: memhog MIB PASSES\n");
		return 2;
	}
	errno = 0;
	mib = strtoull(argv[1], &end, 10);
	if (errno || *end || !mib || mib > (1ULL << 20)) {
		fprintf(stderr, "memhog: bad size '%s'\n", argv[1]);
		return 2;
	}
	passes = strtoull(argv[2], &end, 10);
	if (errno || *end || !passes || passes > 1000) {
		fprintf(stderr, "memhog: bad pass count '%s'\n", argv[2]);
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	pages = (mib << 20) / page_size;
	mem = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		perror("memhog: mmap");
		return 2;
	}
	/*
	 * Small pages only: a transparent huge page fault with no free 2 MiB
	 * block compacts memory in the faulting task, which under TCG and
	 * this much pressure can spin long enough to trip the soft lockup
	 * watchdog.  The test is about pages going to swap, not about THP.
	 */
	if (madvise(mem, mib << 20, MADV_NOHUGEPAGE)) {
		perror("memhog: madvise");
		return 2;
	}
	for (pass = 0; pass < passes && mismatches <= MAX_REPORTS; pass++) {
		for (page = 0; page < pages; page++) {
			uint64_t *p = (uint64_t *)(mem + page * page_size);

			if (pass)
				check(p, pass - 1, page);
			fill(p, pass, page);
		}
		fprintf(stderr, "memhog: pass %" PRIu64 " done at %.1f s\n",
			pass, now() - start);
	}
	for (page = 0; page < pages && mismatches <= MAX_REPORTS; page++)
		check((uint64_t *)(mem + page * page_size), passes - 1, page);
	printf("memhog: %" PRIu64 " MiB, %" PRIu64 " passes, %" PRIu64
	       " pages checked, %" PRIu64 " mismatches, %.1f s\n",
	       mib, passes, pages_checked, mismatches, now() - start);
	return mismatches ? 1 : 0;
}
