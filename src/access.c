// SPDX-License-Identifier: GPL-2.0
/*
 * dst: distributed storage - the allow list of an export.
 *
 * Entries are addresses with a prefix length, each read-write or
 * read-only, and may name the certificate of the clients they hold; the
 * longest prefix holding a client's address decides, and a client no
 * entry holds is refused.  An IPv4-mapped IPv6 client is matched as the
 * IPv4 address it is.  Without a list, only loopback clients may connect.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "dst.h"
#include "export.h"

/**
 * struct dst_allow - an entry of an allow list
 * @family:	AF_INET or AF_INET6
 * @prefix:	leading bits of @addr that count
 * @read_only:	clients it holds may only read
 * @name:	what their TLS certificates must name, or NULL
 * @addr:	the address, masked to @prefix
 */
struct dst_allow {
	sa_family_t family;
	u8 prefix;
	bool read_only;
	char *name;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} addr;
};

struct dst_access {
	unsigned int nr;
	struct dst_allow entries[];
};

const struct nla_policy dst_allow_policy[DST_ALLOW_A_MAX + 1] = {
	[DST_ALLOW_A_ADDR]	= NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[DST_ALLOW_A_PREFIX]	= NLA_POLICY_MAX(NLA_U8, 128),
	[DST_ALLOW_A_READ_ONLY]	= { .type = NLA_FLAG },
	[DST_ALLOW_A_NAME]	= { .type = NLA_NUL_STRING,
				    .len = DST_TLS_PATH_MAX - 1 },
};

static bool dst_prefix_match(const void *a, const void *b, unsigned int bits)
{
	const u8 *x = a, *y = b;
	unsigned int bytes = bits / 8, rest = bits % 8;

	if (memcmp(x, y, bytes))
		return false;
	return !rest || !((x[bytes] ^ y[bytes]) & (0xff00 >> rest));
}

static void dst_prefix_mask(u8 *a, unsigned int len, unsigned int bits)
{
	unsigned int i;

	for (i = 0; i < len; i++, bits = bits > 8 ? bits - 8 : 0)
		if (bits < 8)
			a[i] &= (u8)(0xff00 >> bits);
}

static int dst_allow_parse(struct nlattr *nest, struct dst_allow *e,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[DST_ALLOW_A_MAX + 1];
	unsigned int len, bits;
	int err;

	err = nla_parse_nested(tb, DST_ALLOW_A_MAX, nest, dst_allow_policy,
			       extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, DST_ALLOW_A_ADDR))
		return -EINVAL;
	len = nla_len(tb[DST_ALLOW_A_ADDR]);
	if (len != 4 && len != 16) {
		NL_SET_ERR_MSG_ATTR(extack, tb[DST_ALLOW_A_ADDR],
				    "allow: an address is 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	bits = tb[DST_ALLOW_A_PREFIX] ? nla_get_u8(tb[DST_ALLOW_A_PREFIX]) :
					len * 8;
	if (bits > len * 8) {
		NL_SET_ERR_MSG_ATTR(extack, tb[DST_ALLOW_A_PREFIX],
				    "allow: prefix longer than the address");
		return -EINVAL;
	}
	if (tb[DST_ALLOW_A_NAME]) {
		if (!nla_len(tb[DST_ALLOW_A_NAME]) ||
		    !*(char *)nla_data(tb[DST_ALLOW_A_NAME])) {
			NL_SET_ERR_MSG_ATTR(extack, tb[DST_ALLOW_A_NAME],
					    "allow: empty certificate name");
			return -EINVAL;
		}
		e->name = nla_strdup(tb[DST_ALLOW_A_NAME], GFP_KERNEL);
		if (!e->name)
			return -ENOMEM;
	}
	e->family = len == 4 ? AF_INET : AF_INET6;
	e->prefix = bits;
	e->read_only = nla_get_flag(tb[DST_ALLOW_A_READ_ONLY]);
	nla_memcpy(&e->addr, tb[DST_ALLOW_A_ADDR], len);
	dst_prefix_mask((u8 *)&e->addr, len, bits);
	return 0;
}

/* The allow list of @nest, a nest of dst_allow_policy nests. */
struct dst_access *dst_access_parse(struct nlattr *nest,
				    struct netlink_ext_ack *extack)
{
	struct dst_access *acl;
	struct nlattr *a;
	int rem, n = 0, err;

	nla_for_each_nested(a, nest, rem)
		n++;
	if (!n || n > DST_ALLOW_MAX) {
		BUILD_BUG_ON(DST_ALLOW_MAX != 64);
		NL_SET_ERR_MSG_ATTR(extack, nest, "allow: 1 to 64 entries");
		return ERR_PTR(-EINVAL);
	}
	acl = kzalloc(struct_size(acl, entries, n), GFP_KERNEL);
	if (!acl)
		return ERR_PTR(-ENOMEM);
	nla_for_each_nested(a, nest, rem) {
		err = dst_allow_parse(a, &acl->entries[acl->nr], extack);
		if (err) {
			dst_access_free(acl);
			return ERR_PTR(err);
		}
		acl->nr++;
	}
	return acl;
}

void dst_access_free(struct dst_access *acl)
{
	unsigned int i;

	if (!acl)
		return;
	for (i = 0; i < acl->nr; i++)
		kfree(acl->entries[i].name);
	kfree(acl);
}

/* Whether an entry of @acl names a certificate. */
bool dst_access_has_names(const struct dst_access *acl)
{
	unsigned int i;

	for (i = 0; acl && i < acl->nr; i++)
		if (acl->entries[i].name)
			return true;
	return false;
}

static bool dst_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

	if (ss->ss_family == AF_INET)
		return ipv4_is_loopback(s4->sin_addr.s_addr);
	if (ipv6_addr_v4mapped(&s6->sin6_addr))
		return ipv4_is_loopback(s6->sin6_addr.s6_addr32[3]);
	return ipv6_addr_loopback(&s6->sin6_addr);
}

/*
 * Whether the client at @peer may connect; *@read_only is set when it may
 * only read, *@name to what its certificate must name (NULL: anything).
 */
bool dst_access_check(const struct dst_access *acl,
		      const struct sockaddr_storage *peer, bool *read_only,
		      const char **name)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)peer;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)peer;
	const struct dst_allow *e, *best = NULL;
	sa_family_t family = peer->ss_family;
	const void *addr = &s4->sin_addr;
	unsigned int i;

	*read_only = false;
	*name = NULL;
	if (!acl)
		return dst_loopback(peer);
	if (family == AF_INET6) {
		addr = &s6->sin6_addr;
		if (ipv6_addr_v4mapped(&s6->sin6_addr)) {
			family = AF_INET;
			addr = &s6->sin6_addr.s6_addr32[3];
		}
	}
	for (i = 0; i < acl->nr; i++) {
		e = &acl->entries[i];
		if (e->family == family && (!best || e->prefix > best->prefix) &&
		    dst_prefix_match(&e->addr, addr, e->prefix))
			best = e;
	}
	if (best) {
		*read_only = best->read_only;
		*name = best->name;
	}
	return best;
}

int dst_access_fill(struct sk_buff *skb, int attrtype,
		    const struct dst_access *acl)
{
	const struct dst_allow *e;
	struct nlattr *list, *nest;
	unsigned int i;

	if (!acl)
		return 0;
	list = nla_nest_start(skb, attrtype);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < acl->nr; i++) {
		e = &acl->entries[i];
		nest = nla_nest_start(skb, i + 1);
		if (!nest ||
		    nla_put(skb, DST_ALLOW_A_ADDR, e->family == AF_INET ? 4 : 16,
			    &e->addr) ||
		    nla_put_u8(skb, DST_ALLOW_A_PREFIX, e->prefix) ||
		    (e->read_only && nla_put_flag(skb, DST_ALLOW_A_READ_ONLY)) ||
		    (e->name && nla_put_string(skb, DST_ALLOW_A_NAME, e->name))) {
			nla_nest_cancel(skb, list);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	nla_nest_end(skb, list);
	return 0;
}
