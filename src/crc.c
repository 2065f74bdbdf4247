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
