// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the shared-secret handshake.
 *
 * Both ends prove that they know the secret without sending it: each sends
 * fresh random challenge bytes, and each answers with
 * HMAC-SHA256(secret, label || client challenge || server challenge).  The
 * label tells the server's answer from the client's, so neither can be
 * reflected; the other end's fresh challenge makes a recorded answer
 * useless.  The secret itself lives only in the keyed transform.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/random.h>

#include "dst.h"

struct crypto_shash *dst_auth_new(const u8 *secret, unsigned int len)
{
	struct crypto_shash *tfm;
	int err;

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return tfm;
	err = crypto_shash_setkey(tfm, secret, len);
	if (err) {
		crypto_free_shash(tfm);
		return ERR_PTR(err);
	}
	return tfm;
}

void dst_auth_free(struct crypto_shash *tfm)
{
	if (tfm)
		crypto_free_shash(tfm);
}

void dst_auth_challenge(u8 *challenge)
{
	get_random_bytes(challenge, DST_CHALLENGE_LEN);
}

/* The answer of the server (@server) or of the client to a pair of challenges. */
int dst_auth_response(struct crypto_shash *tfm, bool server, const u8 *cchal,
		      const u8 *schal, u8 *out)
{
	static const char slabel[] = DST_AUTH_SERVER, clabel[] = DST_AUTH_CLIENT;
	SHASH_DESC_ON_STACK(desc, tfm);
	int err;

	BUILD_BUG_ON(sizeof(slabel) != sizeof(clabel));
	desc->tfm = tfm;
	err = crypto_shash_init(desc) ?:
	      crypto_shash_update(desc, server ? slabel : clabel,
				  sizeof(slabel)) ?:
	      crypto_shash_update(desc, cchal, DST_CHALLENGE_LEN) ?:
	      crypto_shash_update(desc, schal, DST_CHALLENGE_LEN) ?:
	      crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return err;
}

/* Whether @resp is the right answer; compared in constant time. */
bool dst_auth_check(struct crypto_shash *tfm, bool server, const u8 *cchal,
		    const u8 *schal, const u8 *resp)
{
	u8 want[DST_RESPONSE_LEN];
	bool ok;

	ok = !dst_auth_response(tfm, server, cchal, schal, want) &&
	     !crypto_memneq(want, resp, DST_RESPONSE_LEN);
	memzero_explicit(want, sizeof(want));
	return ok;
}
