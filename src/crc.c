// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the CRC-32C of messages (DST_FEAT_CRC32C).
 *
 * As iSCSI's header and data digests: CRC-32C (Castagnoli), initial value
 * and final xor all ones.  A header's checksum is taken with its own
 * field as zero.
 */
#include <linux/crc32c.h>
#include <linux/highmem.h>

#include "dst.h"

u32 dst_crc_buf(const void *buf, size_t len)
{
	return ~crc32c(~0U, buf, len);
}

u32 dst_crc_hdr(const void *hdr, size_t len, __be32 *field)
{
	__be32 saved = *field;
	u32 crc;

	*field = 0;
	crc = dst_crc_buf(hdr, len);
	*field = saved;
	return crc;
}

/* The CRC-32C of each DST_CSUM_BLOCK of a range fed in pieces. */
struct dst_crc_blocks {
	__be32 *out;
	u32 crc;
	u32 in;
};

static void dst_crc_feed(struct dst_crc_blocks *s, const u8 *p, u32 len)
{
	u32 n;

	for (; len; p += n, len -= n) {
		n = min(len, DST_CSUM_BLOCK - s->in);
		s->crc = crc32c(s->crc, p, n);
		s->in += n;
		if (s->in == DST_CSUM_BLOCK) {
			*s->out++ = cpu_to_be32(~s->crc);
			s->crc = ~0U;
			s->in = 0;
		}
	}
}

static void dst_crc_end(struct dst_crc_blocks *s)
{
	if (s->in)
		*s->out = cpu_to_be32(~s->crc);
}

/* DST_REQ_CHECKSUM's answer: of @bio's data from @iter on, into @out. */
void dst_crc_bio_blocks(struct bio *bio, struct bvec_iter iter, __be32 *out)
{
	struct dst_crc_blocks s = { .out = out, .crc = ~0U };
	struct bio_vec bv;
	u8 *p;

	__bio_for_each_segment(bv, bio, iter, iter) {
		p = bvec_kmap_local(&bv);
		dst_crc_feed(&s, p, bv.bv_len);
		kunmap_local(p);
	}
	dst_crc_end(&s);
}

/* Likewise of the first @len bytes of @pages. */
void dst_crc_page_blocks(struct page **pages, u32 len, __be32 *out)
{
	struct dst_crc_blocks s = { .out = out, .crc = ~0U };
	u32 n;
	u8 *p;

	for (; len; len -= n, pages++) {
		n = min_t(u32, len, PAGE_SIZE);
		p = kmap_local_page(*pages);
		dst_crc_feed(&s, p, n);
		kunmap_local(p);
	}
	dst_crc_end(&s);
}

/* Of the data of @bio from @iter on. */
u32 dst_crc_bio(struct bio *bio, struct bvec_iter iter)
{
	struct bio_vec bv;
	u32 crc = ~0U;
	void *p;

	__bio_for_each_segment(bv, bio, iter, iter) {
		p = bvec_kmap_local(&bv);
		crc = crc32c(crc, p, bv.bv_len);
		kunmap_local(p);
	}
	return ~crc;
}
