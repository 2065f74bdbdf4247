// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - block digests of DST_REQ_CHECKSUM, for
 * verify and checksum resync: the XXH64 (seed 0) of each DST_CSUM_BLOCK
 * of a range.  Not a CRC: CRCs are affine, so a block that holds the
 * CRC-32C of its own leading bytes has one CRC-32C whatever those bytes
 * are, and two copies that differ there would pass for equal.
 */
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/xxhash.h>

#include "dst.h"

/* The digest of each DST_CSUM_BLOCK of a range fed in pieces. */
struct dst_digest_blocks {
	__be64 *out;
	struct xxh64_state state;
	u32 in;
};

static void dst_digest_feed(struct dst_digest_blocks *s, const u8 *p, u32 len)
{
	u32 n;

	for (; len; p += n, len -= n) {
		if (!s->in)
			xxh64_reset(&s->state, 0);
		n = min(len, DST_CSUM_BLOCK - s->in);
		xxh64_update(&s->state, p, n);
		s->in += n;
		if (s->in == DST_CSUM_BLOCK) {
			*s->out++ = cpu_to_be64(xxh64_digest(&s->state));
			s->in = 0;
		}
	}
}

static void dst_digest_end(struct dst_digest_blocks *s)
{
	BUILD_BUG_ON(sizeof(*s->out) != DST_CSUM_SIZE);
	if (s->in)
		*s->out = cpu_to_be64(xxh64_digest(&s->state));
}

/* DST_REQ_CHECKSUM's answer: of @bio's data from @iter on, into @out. */
void dst_digest_bio(struct bio *bio, struct bvec_iter iter, __be64 *out)
{
	struct dst_digest_blocks s = { .out = out };
	struct bio_vec bv;
	u8 *p;

	__bio_for_each_segment(bv, bio, iter, iter) {
		p = bvec_kmap_local(&bv);
		dst_digest_feed(&s, p, bv.bv_len);
		kunmap_local(p);
	}
	dst_digest_end(&s);
}

/* Likewise of the first @len bytes of @pages. */
void dst_digest_pages(struct page **pages, u32 len, __be64 *out)
{
	struct dst_digest_blocks s = { .out = out };
	u32 n;
	u8 *p;

	for (; len; len -= n, pages++) {
		n = min_t(u32, len, PAGE_SIZE);
		p = kmap_local_page(*pages);
		dst_digest_feed(&s, p, n);
		kunmap_local(p);
	}
	dst_digest_end(&s);
}
