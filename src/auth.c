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
 *
 * The secret is shared by every client of an export, so it cannot tell
 * one client's session from another's: each session proves itself with a
 * hash chain of its own (uapi DST_SESSION_SPAN), so that a client that
 * saw another's session id cannot take that session over.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
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

/* One step of a session's hash chain, in place. */
static void dst_session_step(u8 *v)
{
	static const char label[] = DST_SESSION_LABEL;
	u8 buf[sizeof(label) + DST_CHALLENGE_LEN];

	BUILD_BUG_ON(SHA256_DIGEST_SIZE != DST_CHALLENGE_LEN);
	memcpy(buf, label, sizeof(label));
	memcpy(buf + sizeof(label), v, DST_CHALLENGE_LEN);
	sha256(buf, sizeof(buf), v);
}

/*
 * A new session: another id, no connection yet, and with @proofs the
 * chain of its proofs, of which every DST_SESSION_MARK-th value is kept.
 */
void dst_session_start(struct dst_session *s, bool proofs)
{
	u8 v[DST_CHALLENGE_LEN];
	unsigned int i;
	u64 id;

	do {
		id = get_random_u64();
	} while (!id);
	WRITE_ONCE(s->id, id);
	s->generation = 0;
	memset(s->marks, 0, sizeof(s->marks));
	if (!proofs)
		return;
	get_random_bytes(v, sizeof(v));
	for (i = 0; ; i++) {
		if (i % DST_SESSION_MARK == 0)
			memcpy(s->marks[i / DST_SESSION_MARK], v, sizeof(v));
		if (i == DST_SESSION_SPAN)
			break;
		dst_session_step(v);
	}
	memzero_explicit(v, sizeof(v));
}

/* The proof of the session's connection of generation @s->generation. */
void dst_session_proof(const struct dst_session *s, u8 *proof)
{
	unsigned int i = DST_SESSION_SPAN - s->generation;

	memcpy(proof, s->marks[i / DST_SESSION_MARK], DST_CHALLENGE_LEN);
	for (i %= DST_SESSION_MARK; i; i--)
		dst_session_step(proof);
}

/*
 * Whether @proof, hashed @steps times, is @older: the proof of the
 * connection @steps generations after the one that showed @older.
 */
bool dst_session_proves(const u8 *proof, u32 steps, const u8 *older)
{
	u8 v[DST_CHALLENGE_LEN];

	if (!steps || steps > DST_SESSION_SPAN)
		return false;
	memcpy(v, proof, sizeof(v));
	while (steps--)
		dst_session_step(v);
	return !crypto_memneq(v, older, sizeof(v));
}
