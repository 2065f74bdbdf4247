// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: the checks of a configuration across its storages and exports,
 * so that check-config refuses what up would (or what would be unsafe):
 * names defined twice, a device used twice (by path once cleaned of "//",
 * "." and "..", or by device number), a storage built on itself, an
 * export or bitmap on a mirror leg, addresses that cannot all be bound,
 * allow entries given twice, secret files up would refuse, TLS files the
 * agent could not read.  With
 * CONF_CHECK_WARN also what is allowed but likely a mistake.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <netinet/in.h>

#include "config.h"

struct checker {
	const struct dst_config *c;
	FILE *err;
	unsigned int flags;
	int errors;
};

static void report(struct checker *ck, const char *file, unsigned int line,
		   bool warning, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void report(struct checker *ck, const char *file, unsigned int line,
		   bool warning, const char *fmt, ...)
{
	va_list ap;

	if (warning && !(ck->flags & CONF_CHECK_WARN))
		return;
	fprintf(ck->err, "%s:%u: %s", file, line, warning ? "warning: " : "");
	va_start(ap, fmt);
	vfprintf(ck->err, fmt, ap);
	va_end(ap);
	fputc('\n', ck->err);
	if (!warning)
		ck->errors++;
}

/* Whether @a and @b are the same device: by path, or by number. */
static bool same_device(const struct checker *ck, const char *a, const char *b)
{
	char ca[PATH_MAX], cb[PATH_MAX];
	struct stat sa, sb;

	config_clean_path(a, ca, sizeof(ca));
	config_clean_path(b, cb, sizeof(cb));
	if (!strcmp(ca, cb))
		return true;
	if (!(ck->flags & CONF_CHECK_FILES) || stat(a, &sa) || stat(b, &sb))
		return false;
	if (S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode))
		return sa.st_rdev == sb.st_rdev;
	return S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool same_addr(const struct sockaddr_storage *a, socklen_t alen,
		      const struct sockaddr_storage *b, socklen_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

static uint16_t port_of(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET ? ((const struct sockaddr_in *)a)->sin_port :
					 ((const struct sockaddr_in6 *)a)->sin6_port;
}

static bool wildcard(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

static bool loopback(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

/*
 * Two listening addresses that cannot both be bound: the same, or the
 * same port with a wildcard on either side (an IPv6 wildcard also takes
 * IPv4, as Linux binds it by default).
 */
static bool listen_clash(const struct conf_export *a, const struct conf_export *b)
{
	if (same_addr(&a->addr, a->addr_len, &b->addr, b->addr_len))
		return true;
	if (port_of(&a->addr) != port_of(&b->addr))
		return false;
	if (a->addr.ss_family == b->addr.ss_family)
		return wildcard(&a->addr) || wildcard(&b->addr);
	return (a->addr.ss_family == AF_INET6 && wildcard(&a->addr)) ||
	       (b->addr.ss_family == AF_INET6 && wildcard(&b->addr));
}

static void check_secret(struct checker *ck, const char *path, const char *file,
			 unsigned int line)
{
	uint8_t secret[DST_SECRET_MAX];
	char why[PATH_MAX + 128];
	size_t len;

	if (!path || !(ck->flags & CONF_CHECK_SECRETS))
		return;
	if (secret_read(path, secret, &len, why, sizeof(why)) < 0)
		report(ck, file, line, false, "%s", why);
	explicit_bzero(secret, sizeof(secret));
}

/* The PEM files of @t, which the TLS agent (root) reads at each connection. */
static void check_tls(struct checker *ck, const struct tls_args *t, const char *file,
		      unsigned int line)
{
	const char *const paths[] = { t->cert, t->key, t->ca };
	size_t i;

	if (!(ck->flags & CONF_CHECK_SECRETS))
		return;
	for (i = 0; i < 3; i++)
		if (*paths[i] && access(paths[i], R_OK) < 0)
			report(ck, file, line, false, "TLS file %s: %s", paths[i],
			       strerror(errno));
}

static void check_storage(struct checker *ck, size_t i)
{
	const struct dst_config *c = ck->c;
	const struct conf_storage *s = &c->storages[i], *t;
	const struct conf_node *n, *m;
	size_t j, k, l;

	for (j = 0; j < i; j++)
		if (!strcmp(s->name, c->storages[j].name))
			report(ck, s->file, s->line, false,
			       "storage '%s' defined again (first at %s:%u)", s->name,
			       c->storages[j].file, c->storages[j].line);
	if (config_built_on(c, s, s))
		report(ck, s->file, s->line, false,
		       "storage '%s' is built on itself through its /dev/dst/ nodes", s->name);
	for (k = 0; k < s->nnodes; k++) {
		n = &s->nodes[k];
		check_secret(ck, n->secret_file, s->file, n->line);
		check_tls(ck, &n->ra.tls, s->file, n->line);
		if (n->type == DST_NODE_REMOTE) {
			for (l = 0; l < k; l++)
				if (s->nodes[l].type == DST_NODE_REMOTE &&
				    same_addr(&n->addr, n->addr_len, &s->nodes[l].addr,
					      s->nodes[l].addr_len))
					report(ck, s->file, n->line, false,
					       "storage '%s': node %s given twice", s->name,
					       n->target);
			continue;
		}
		if (!strncmp(n->target, "/dev/dst/", 9) && !config_dev_storage(c, n->target))
			report(ck, s->file, n->line, true,
			       "storage '%s': node %s is no storage of this file", s->name,
			       n->target);
		if (s->bitmap && same_device(ck, s->bitmap, n->target))
			report(ck, s->file, s->line, false,
			       "storage '%s': its bitmap %s is one of its nodes", s->name,
			       s->bitmap);
		/* Against the local nodes before it, in this storage and those before. */
		for (j = 0; j <= i; j++) {
			t = &c->storages[j];
			for (l = 0; l < (j == i ? k : t->nnodes); l++) {
				m = &t->nodes[l];
				if (m->type == DST_NODE_LOCAL && same_device(ck, n->target, m->target))
					report(ck, s->file, n->line, false,
					       "storage '%s': device %s is already a node of storage '%s' (%s:%u)",
					       s->name, n->target, t->name, t->file, m->line);
			}
			if (j < i && t->bitmap && same_device(ck, t->bitmap, n->target))
				report(ck, s->file, n->line, false,
				       "storage '%s': device %s is the bitmap of storage '%s'",
				       s->name, n->target, t->name);
		}
	}
}

static void check_export(struct checker *ck, size_t i)
{
	const struct dst_config *c = ck->c;
	const struct conf_export *e = &c->exports[i], *f;
	const struct conf_storage *s;
	unsigned int a, b;
	size_t j, k;

	check_secret(ck, e->secret_file, e->file, e->line);
	check_tls(ck, &e->tls, e->file, e->line);
	for (j = 0; j < i; j++) {
		f = &c->exports[j];
		if (!strcmp(e->name, f->name))
			report(ck, e->file, e->line, false,
			       "export '%s' defined again (first at %s:%u)", e->name, f->file,
			       f->line);
		if (listen_clash(e, f))
			report(ck, e->file, e->line, false,
			       "export '%s' listens on %s, which export '%s' (%s) takes", e->name,
			       e->listen, f->name, f->listen);
		/* Read only, a second export (another address family) is fine. */
		if (!e->read_only && !f->read_only && same_device(ck, e->device, f->device))
			report(ck, e->file, e->line, false,
			       "export '%s' serves %s read-write, as export '%s' does", e->name,
			       e->device, f->name);
	}
	for (j = 0; j < c->nstorages; j++) {
		s = &c->storages[j];
		for (k = 0; k < s->nnodes; k++)
			if (s->nodes[k].type == DST_NODE_LOCAL &&
			    same_device(ck, e->device, s->nodes[k].target))
				report(ck, e->file, e->line, false,
				       "export '%s' serves %s, a node of storage '%s': write to it through /dev/dst/%s",
				       e->name, e->device, s->name, s->name);
	}
	if (!strncmp(e->device, "/dev/dst/", 9) && !config_dev_storage(c, e->device))
		report(ck, e->file, e->line, true, "export '%s': %s is no storage of this file",
		       e->name, e->device);
	for (a = 0; a < e->allow.n; a++)
		for (b = 0; b < a; b++)
			if (e->allow.v[a].family == e->allow.v[b].family &&
			    e->allow.v[a].prefix == e->allow.v[b].prefix &&
			    !memcmp(e->allow.v[a].addr, e->allow.v[b].addr,
				    e->allow.v[a].family == AF_INET ? 4 : 16))
				report(ck, e->file, e->line, false,
				       "export '%s': the same prefix allowed twice", e->name);
	if (!e->allow.n && !loopback(&e->addr))
		report(ck, e->file, e->line, true,
		       "export '%s' listens on %s but has no 'allow': only loopback clients may connect",
		       e->name, e->listen);
}

int config_check(const struct dst_config *c, FILE *err, unsigned int flags)
{
	struct checker ck = { c, err, flags, 0 };
	size_t i;

	for (i = 0; i < c->nstorages; i++)
		check_storage(&ck, i);
	for (i = 0; i < c->nexports; i++)
		check_export(&ck, i);
	return ck.errors ? -1 : 0;
}
