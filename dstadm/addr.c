// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: socket addresses as ADDR:PORT, parsed and formatted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "dstadm.h"

static const char *const addr_errors[] = {
	[ADDR_E_LONG]	= "too long",
	[ADDR_E_NOPORT]	= "missing :PORT",
	[ADDR_E_NOHOST]	= "missing address before :PORT",
	[ADDR_E_PORT]	= "port must be a number from 1 to 65535",
	[ADDR_E_IPV6]	= "IPv6 addresses go in brackets: [ADDR]:PORT",
	[ADDR_E_SYNTAX]	= "expected IPV4:PORT or [IPV6]:PORT",
	[ADDR_E_HOST]	= "not a numeric IPv4 or IPv6 address (or unknown interface)",
};

const char *addr_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err > 0 && (size_t)err < sizeof(addr_errors) / sizeof(addr_errors[0]) &&
	    addr_errors[err])
		return addr_errors[err];
	return "invalid address";
}

/* A port: 1 to 5 decimal digits, 1..65535; no sign, space or leading 0. */
static int parse_port(const char *s, uint16_t *port)
{
	unsigned int v = 0;
	size_t i, n = strlen(s);

	if (n == 0 || n > 5 || s[0] == '0')
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

int parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[ADDR_STRLEN], serv[8];
	struct addrinfo hints, *res = NULL;
	const char *end, *port;
	struct in_addr in4;
	size_t hlen, slen;
	uint16_t p;
	int v6 = 0;

	slen = strnlen(s, ADDR_STRLEN);
	if (slen >= ADDR_STRLEN)
		return -ADDR_E_LONG;
	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end)
			return -ADDR_E_SYNTAX;
		if (end[1] != ':')
			return end[1] ? -ADDR_E_SYNTAX : -ADDR_E_NOPORT;
		s++;
		hlen = (size_t)(end - s);
		port = end + 2;
		v6 = 1;
	} else {
		end = strrchr(s, ':');
		if (!end)
			return -ADDR_E_NOPORT;
		hlen = (size_t)(end - s);
		port = end + 1;
		if (memchr(s, ':', hlen))
			return -ADDR_E_IPV6;
		if (memchr(s, ']', hlen))
			return -ADDR_E_SYNTAX;
	}
	if (hlen == 0)
		return -ADDR_E_NOHOST;
	if (!*port)
		return -ADDR_E_NOPORT;
	if (parse_port(port, &p) < 0)
		return -ADDR_E_PORT;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	snprintf(serv, sizeof(serv), "%u", p);

	/* getaddrinfo() takes 127.1 and the like; only dotted quads here. */
	if (!v6 && inet_pton(AF_INET, host, &in4) != 1)
		return -ADDR_E_HOST;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = v6 ? AF_INET6 : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(host, serv, &hints, &res) || !res)
		return -ADDR_E_HOST;
	if (res->ai_addrlen > sizeof(*ss) ||
	    res->ai_family != hints.ai_family) {
		freeaddrinfo(res);
		return -ADDR_E_HOST;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int format_addr(const struct sockaddr_storage *ss, socklen_t len, char *buf,
		size_t size)
{
	char host[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE];
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;
	int n;

	if (len == sizeof(*sin) && ss->ss_family == AF_INET) {
		sin = (const struct sockaddr_in *)ss;
		if (!inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host)))
			return -1;
		n = snprintf(buf, size, "%s:%u", host, ntohs(sin->sin_port));
	} else if (len == sizeof(*sin6) && ss->ss_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)ss;
		if (!inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host)))
			return -1;
		if (!sin6->sin6_scope_id)
			n = snprintf(buf, size, "[%s]:%u", host,
				     ntohs(sin6->sin6_port));
		else if (if_indextoname(sin6->sin6_scope_id, ifname))
			n = snprintf(buf, size, "[%s%%%s]:%u", host, ifname,
				     ntohs(sin6->sin6_port));
		else
			n = snprintf(buf, size, "[%s%%%u]:%u", host,
				     sin6->sin6_scope_id, ntohs(sin6->sin6_port));
	} else {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (n < 0 || (size_t)n >= size) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

int parse_allow(const char *s, struct allow_entry *e)
{
	char host[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	unsigned int bits = 0, max, i;

	memset(e, 0, sizeof(*e));
	if (!n || n >= sizeof(host))
		return -1;
	memcpy(host, s, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, e->addr) == 1)
		e->family = AF_INET;
	else if (inet_pton(AF_INET6, host, e->addr) == 1)
		e->family = AF_INET6;
	else
		return -1;
	max = e->family == AF_INET ? 32 : 128;
	if (!slash) {
		bits = max;
	} else {
		/* 1 to 3 digits, no sign or leading zero. */
		n = strlen(slash + 1);
		if (!n || n > 3 || (slash[1] == '0' && n > 1))
			return -1;
		for (i = 1; i <= n; i++) {
			if (slash[i] < '0' || slash[i] > '9')
				return -1;
			bits = bits * 10 + (unsigned int)(slash[i] - '0');
		}
		if (bits > max)
			return -1;
	}
	e->prefix = (uint8_t)bits;
	/* Host bits are dropped, as the kernel does. */
	for (i = 0; i < max / 8; i++) {
		if (bits >= 8)
			bits -= 8;
		else {
			e->addr[i] &= (uint8_t)(0xff00 >> bits);
			bits = 0;
		}
	}
	return 0;
}

int format_allow(const struct allow_entry *e, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN];
	int n;

	if (!inet_ntop(e->family, e->addr, host, sizeof(host)))
		return -1;
	n = snprintf(buf, size, "%s/%u", host, e->prefix);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}
