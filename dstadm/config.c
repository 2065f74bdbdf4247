// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: the configuration file.  A tokenizer that knows lines and
 * columns, a recursive-descent parser of storage and export blocks, and
 * checks across them; nothing is kept from a file with an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

enum tok { T_WORD, T_OPEN, T_CLOSE, T_NL, T_EOF };

struct token {
	enum tok type;
	char text[PATH_MAX];
	unsigned int line, col;
};

struct lexer {
	const char *file;
	const char *p, *end;
	unsigned int line, col;
	int depth;
	struct dst_config *c;
	FILE *err;
};

static int conf_error(struct lexer *lx, const struct token *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int conf_error(struct lexer *lx, const struct token *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(lx->err, "%s:%u:%u: ", lx->file, t ? t->line : lx->line,
		t ? t->col : lx->col);
	va_start(ap, fmt);
	vfprintf(lx->err, fmt, ap);
	va_end(ap);
	fputc('\n', lx->err);
	return -1;
}

static const char *tok_name(const struct token *t)
{
	switch (t->type) {
	case T_WORD:
		return t->text;
	case T_OPEN:
		return "{";
	case T_CLOSE:
		return "}";
	case T_NL:
		return "end of line";
	default:
		return "end of file";
	}
}

static void advance(struct lexer *lx)
{
	if (*lx->p == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->p++;
}

/* Bytes of UTF-8 are word characters: paths such as udev's by-label. */
static bool word_char(char c)
{
	unsigned char ch = c;

	return ch > ' ' && ch != 0x7f && ch != '{' && ch != '}' && ch != '#';
}

/* The next token: a word, a brace, an end of line or of file. */
static int next(struct lexer *lx, struct token *t)
{
	size_t n = 0;

	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r'))
		advance(lx);
	if (lx->p < lx->end && *lx->p == '#')
		while (lx->p < lx->end && *lx->p != '\n')
			advance(lx);
	t->line = lx->line;
	t->col = lx->col;
	t->text[0] = 0;
	if (lx->p >= lx->end) {
		t->type = T_EOF;
		return 0;
	}
	switch (*lx->p) {
	case '\n':
		t->type = T_NL;
		advance(lx);
		return 0;
	case '{':
		t->type = T_OPEN;
		advance(lx);
		return 0;
	case '}':
		t->type = T_CLOSE;
		advance(lx);
		return 0;
	}
	if (!word_char(*lx->p))
		return conf_error(lx, t, "unexpected character 0x%02x",
				  (unsigned char)*lx->p);
	t->type = T_WORD;
	while (lx->p < lx->end && word_char(*lx->p)) {
		if (n + 1 >= sizeof(t->text))
			return conf_error(lx, t, "word longer than %zu characters",
					  sizeof(t->text) - 1);
		t->text[n++] = *lx->p;
		advance(lx);
	}
	t->text[n] = 0;
	return 0;
}

/* A word for @what: the next token must be one. */
static int expect_word(struct lexer *lx, struct token *t, const char *what)
{
	if (next(lx, t) < 0)
		return -1;
	if (t->type != T_WORD)
		return conf_error(lx, t, "expected %s, found %s", what, tok_name(t));
	return 0;
}

/* The end of a statement: end of line or of file. */
static int expect_end(struct lexer *lx, const char *after)
{
	struct token t;

	if (next(lx, &t) < 0)
		return -1;
	if (t.type != T_NL && t.type != T_EOF)
		return conf_error(lx, &t, "expected end of line after %s, found '%s'",
				  after, tok_name(&t));
	return 0;
}

static int expect_name(struct lexer *lx, struct token *t, const char *what)
{
	if (expect_word(lx, t, what) < 0)
		return -1;
	if (!name_valid(t->text))
		return conf_error(lx, t, "invalid name '%s': 1 to %d of A-Z a-z 0-9 _ . -, not starting with . or -",
				  t->text, DST_NAME_MAX - 1);
	return 0;
}

static int expect_path(struct lexer *lx, struct token *t, const char *what)
{
	if (expect_word(lx, t, what) < 0)
		return -1;
	if (t->text[0] != '/')
		return conf_error(lx, t, "expected %s (an absolute path), found '%s'",
				  what, t->text);
	return 0;
}

static int expect_open(struct lexer *lx, const char *what)
{
	struct token t;

	if (next(lx, &t) < 0)
		return -1;
	if (t.type != T_OPEN)
		return conf_error(lx, &t, "expected '{' after %s, found %s", what,
				  tok_name(&t));
	return expect_end(lx, "'{'");
}

static char *xstrdup(struct lexer *lx, const struct token *t)
{
	char *s = strdup(t->text);

	if (!s)
		conf_error(lx, t, "out of memory");
	return s;
}

/* Room for one more element of an array of @size bytes each. */
static void *grow(void *arr, size_t n, size_t size)
{
	void *p = realloc(arr, (n + 1) * size);

	if (p)
		memset((char *)p + n * size, 0, size);
	return p;
}

static int size_arg(struct lexer *lx, struct token *t, const char *key,
		    uint64_t min, uint64_t max, bool pow2, uint64_t *v)
{
	if (expect_word(lx, t, "a size") < 0)
		return -1;
	if (parse_size(t->text, v) < 0 || *v < min || *v > max ||
	    (pow2 && (*v & (*v - 1))))
		return conf_error(lx, t, "invalid %s '%s'%s", key, t->text,
				  pow2 ? ": a power of two from 4K to 1G" :
					 ": bytes per second from 1K, e.g. 50M");
	return 0;
}

static int seconds_arg(struct lexer *lx, struct token *t, const char *key,
		       unsigned long min, unsigned long max, uint32_t *v)
{
	if (expect_word(lx, t, "a number of seconds") < 0)
		return -1;
	if (parse_seconds(t->text, min, max, v) < 0)
		return conf_error(lx, t, "invalid %s '%s': seconds from %lu to %lu",
				  key, t->text, min, max);
	return 0;
}

/* write-mostly | write-behind N of any node: 1 if @t is neither. */
static int parse_leg_option(struct lexer *lx, struct token *t,
			    struct conf_node *n)
{
	if (!strcmp(t->text, "write-mostly")) {
		n->la.write_mostly = true;
		return 0;
	}
	if (strcmp(t->text, "write-behind"))
		return 1;
	if (n->la.write_behind)
		return conf_error(lx, t, "'write-behind' given twice");
	if (expect_word(lx, t, "a number of writes") < 0)
		return -1;
	if (parse_seconds(t->text, 1, DST_MAX_WRITE_BEHIND, &n->la.write_behind) < 0)
		return conf_error(lx, t, "invalid write-behind '%s': writes from 1 to %d",
				  t->text, DST_MAX_WRITE_BEHIND);
	/* As with --write-behind, the node is write-mostly then. */
	n->la.write_mostly = true;
	return 0;
}

/*
 * tls, tls-cert PATH, tls-key PATH, tls-ca PATH, tls-cipher CIPHER, and
 * for a node tls-name NAME: 0 when @t is one of them, 1 when it is none.
 */
static int parse_tls_option(struct lexer *lx, struct token *t,
			    struct tls_args *tls, bool node)
{
	static const char *const names[] = { "tls-cert", "tls-key", "tls-ca", "tls-name" };
	char *const bufs[] = { tls->cert, tls->key, tls->ca, tls->name };
	struct token kw = *t;
	int cipher;
	size_t i;

	if (!strcmp(t->text, "tls")) {
		if (tls->on && !*tls->cert && !*tls->key && !*tls->ca && !*tls->name &&
		    !tls->cipher)
			return conf_error(lx, t, "'tls' given twice");
		tls->on = true;
		return 0;
	}
	if (!strcmp(t->text, "tls-cipher")) {
		if (tls->cipher)
			return conf_error(lx, t, "'tls-cipher' given twice");
		if (expect_word(lx, t, "a cipher") < 0)
			return -1;
		cipher = tls_cipher_parse(t->text);
		if (cipher < 0)
			return conf_error(lx, t, "unknown cipher '%s': expected aes-128-gcm, aes-256-gcm or chacha20-poly1305",
					  t->text);
		tls->cipher = cipher;
		tls->on = true;
		return 0;
	}
	for (i = 0; i < 4; i++)
		if (!strcmp(t->text, names[i]))
			break;
	if (i == 4 || (i == 3 && !node))
		return 1;
	if (*bufs[i])
		return conf_error(lx, t, "'%s' given twice", names[i]);
	if ((i < 3 ? expect_path(lx, t, "a PEM file") :
		     expect_word(lx, t, "the export's name")) < 0)
		return -1;
	if (strlen(t->text) >= DST_TLS_PATH_MAX)
		return conf_error(lx, t, "'%s' too long", kw.text);
	strcpy(bufs[i], t->text);
	tls->on = true;
	return 0;
}

/* What is wrong with the TLS of a node or an export, said at @t. */
static int tls_check(struct lexer *lx, const struct token *t, struct tls_args *tls,
		     const char *secret_file, const char *host)
{
	const char *why = tls_args_problem(tls, secret_file, host);

	return why ? conf_error(lx, t, "%s", why) : 0;
}

/*
 * node local PATH [write-mostly] [write-behind N] | node remote ADDR:PORT
 *	[timeout S] [dead-timeout S] [reconnect-max S] [secret-file PATH]
 *	[integrity] [tls] [tls-cert PATH] [tls-key PATH] [tls-ca PATH]
 *	[tls-cipher CIPHER] [tls-name NAME] [write-mostly] [write-behind N]
 */
static int parse_node(struct lexer *lx, struct conf_storage *s)
{
	struct conf_node *n;
	struct token t;
	bool local;
	int err;

	if (expect_word(lx, &t, "'local' or 'remote'") < 0)
		return -1;
	if (strcmp(t.text, "local") && strcmp(t.text, "remote"))
		return conf_error(lx, &t, "expected 'local' or 'remote', found '%s'", t.text);
	n = grow(s->nodes, s->nnodes, sizeof(*n));
	if (!n)
		return conf_error(lx, &t, "out of memory");
	s->nodes = n;
	n = &s->nodes[s->nnodes++];
	n->line = t.line;
	if (!strcmp(t.text, "local")) {
		n->type = DST_NODE_LOCAL;
		if (expect_path(lx, &t, "a device") < 0)
			return -1;
	} else {
		n->type = DST_NODE_REMOTE;
		if (expect_word(lx, &t, "ADDR:PORT") < 0)
			return -1;
		err = parse_addr(t.text, &n->addr, &n->addr_len);
		if (err < 0)
			return conf_error(lx, &t, "invalid address '%s': %s", t.text,
					  addr_strerror(err));
	}
	n->target = xstrdup(lx, &t);
	if (!n->target)
		return -1;
	local = n->type == DST_NODE_LOCAL;
	for (;;) {
		if (next(lx, &t) < 0)
			return -1;
		if (t.type == T_NL || t.type == T_EOF)
			return local ? 0 : tls_check(lx, &t, &n->ra.tls, n->secret_file,
						     n->target);
		if (t.type != T_WORD)
			return conf_error(lx, &t, "expected an option of the %s node, found %s",
					  local ? "local" : "remote", tok_name(&t));
		err = parse_leg_option(lx, &t, n);
		if (err < 0)
			return -1;
		if (!err)
			continue;
		err = local ? 1 : parse_tls_option(lx, &t, &n->ra.tls, true);
		if (err < 0)
			return -1;
		if (!err)
			continue;
		if (local)
			return conf_error(lx, &t, "unknown option '%s' of a local node: expected write-mostly or write-behind",
					  t.text);
		if (!strcmp(t.text, "timeout")) {
			if (n->ra.timeout)
				return conf_error(lx, &t, "'timeout' given twice");
			if (seconds_arg(lx, &t, "timeout", 1, DST_MAX_TIMEOUT,
					&n->ra.timeout) < 0)
				return -1;
		} else if (!strcmp(t.text, "dead-timeout")) {
			if (n->ra.has_dead_timeout)
				return conf_error(lx, &t, "'dead-timeout' given twice");
			if (seconds_arg(lx, &t, "dead timeout", 0, DST_MAX_TIMEOUT,
					&n->ra.dead_timeout) < 0)
				return -1;
			n->ra.has_dead_timeout = true;
		} else if (!strcmp(t.text, "reconnect-max")) {
			if (n->ra.reconnect_max)
				return conf_error(lx, &t, "'reconnect-max' given twice");
			if (seconds_arg(lx, &t, "reconnect interval", 1,
					DST_MAX_RECONNECT, &n->ra.reconnect_max) < 0)
				return -1;
		} else if (!strcmp(t.text, "secret-file")) {
			if (n->secret_file)
				return conf_error(lx, &t, "'secret-file' given twice");
			if (expect_path(lx, &t, "a secret file") < 0)
				return -1;
			n->secret_file = xstrdup(lx, &t);
			if (!n->secret_file)
				return -1;
			n->ra.secret_file = n->secret_file;
		} else if (!strcmp(t.text, "integrity")) {
			if (n->ra.integrity)
				return conf_error(lx, &t, "'integrity' given twice");
			n->ra.integrity = true;
		} else {
			return conf_error(lx, &t, "unknown option '%s' of a remote node: expected timeout, dead-timeout, reconnect-max, secret-file, integrity, tls, tls-cert, tls-key, tls-ca, tls-cipher, tls-name, write-mostly or write-behind",
					  t.text);
		}
	}
}

/* Where a mirror-only option was given, to refuse it on linear. */
struct mirror_only {
	struct token at;
	bool given;
};

static int parse_storage(struct lexer *lx, const struct token *kw)
{
	struct mirror_only mo = { .given = false };
	struct dst_config *c = lx->c;
	struct conf_storage *s;
	struct token t, name;
	size_t i;
	uint64_t v;

	if (expect_name(lx, &name, "a storage name") < 0 || expect_open(lx, "the storage name") < 0)
		return -1;
	s = grow(c->storages, c->nstorages, sizeof(*s));
	if (!s)
		return conf_error(lx, &name, "out of memory");
	c->storages = s;
	s = &c->storages[c->nstorages++];
	strcpy(s->name, name.text);
	s->file = lx->file;
	s->line = kw->line;
	for (;;) {
		if (next(lx, &t) < 0)
			return -1;
		if (t.type == T_NL)
			continue;
		if (t.type == T_CLOSE)
			break;
		if (t.type != T_WORD)
			return conf_error(lx, &t, "expected a setting of storage '%s' or '}', found %s",
					  s->name, tok_name(&t));
		if (!strcmp(t.text, "alg")) {
			if (s->alg[0])
				return conf_error(lx, &t, "'alg' given twice");
			if (expect_word(lx, &t, "an algorithm") < 0)
				return -1;
			if (strcmp(t.text, "linear") && strcmp(t.text, "mirror"))
				return conf_error(lx, &t, "unknown algorithm '%s': expected linear or mirror",
						  t.text);
			strcpy(s->alg, t.text);
		} else if (!strcmp(t.text, "chunk-size")) {
			mo = (struct mirror_only){ t, true };
			if (s->chunk_size)
				return conf_error(lx, &t, "'chunk-size' given twice");
			if (size_arg(lx, &t, "chunk size", DST_CHUNK_MIN, DST_CHUNK_MAX, true, &v) < 0)
				return -1;
			s->chunk_size = (uint32_t)v;
		} else if (!strcmp(t.text, "resync-min")) {
			mo = (struct mirror_only){ t, true };
			if (s->resync_min)
				return conf_error(lx, &t, "'resync-min' given twice");
			if (size_arg(lx, &t, "resync-min", 1024, (uint64_t)UINT32_MAX << 10,
				     false, &v) < 0)
				return -1;
			s->resync_min = (uint32_t)(v >> 10);
		} else if (!strcmp(t.text, "resync-max")) {
			mo = (struct mirror_only){ t, true };
			if (s->resync_max)
				return conf_error(lx, &t, "'resync-max' given twice");
			if (size_arg(lx, &t, "resync-max", 1024, (uint64_t)UINT32_MAX << 10,
				     false, &v) < 0)
				return -1;
			s->resync_max = (uint32_t)(v >> 10);
		} else if (!strcmp(t.text, "bitmap")) {
			mo = (struct mirror_only){ t, true };
			if (s->bitmap)
				return conf_error(lx, &t, "'bitmap' given twice");
			if (expect_path(lx, &t, "a bitmap file or device") < 0)
				return -1;
			if (strlen(t.text) >= DST_BITMAP_PATH_MAX)
				return conf_error(lx, &t, "bitmap path longer than %d characters",
						  DST_BITMAP_PATH_MAX - 1);
			s->bitmap = xstrdup(lx, &t);
			if (!s->bitmap)
				return -1;
		} else if (!strcmp(t.text, "start-degraded")) {
			mo = (struct mirror_only){ t, true };
			if (s->start_degraded)
				return conf_error(lx, &t, "'start-degraded' given twice");
			s->start_degraded = true;
		} else if (!strcmp(t.text, "node")) {
			if (parse_node(lx, s) < 0)
				return -1;
			continue;
		} else {
			return conf_error(lx, &t, "unknown setting '%s' of a storage: expected alg, chunk-size, resync-min, resync-max, bitmap, start-degraded or node",
					  t.text);
		}
		if (expect_end(lx, mo.given ? mo.at.text : "'alg'") < 0)
			return -1;
	}
	if (expect_end(lx, "'}'") < 0)
		return -1;
	if (!s->alg[0])
		return conf_error(lx, &name, "storage '%s' has no 'alg'", s->name);
	if (!s->nnodes)
		return conf_error(lx, &name, "storage '%s' has no node", s->name);
	if (mo.given && strcmp(s->alg, "mirror"))
		return conf_error(lx, &mo.at, "'%s' is for mirrors, and storage '%s' is %s",
				  mo.at.text, s->name, s->alg);
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].la.write_mostly && strcmp(s->alg, "mirror"))
			return conf_error(lx, &name, "storage '%s': write-mostly is for the legs of a mirror, and it is %s",
					  s->name, s->alg);
	if (s->resync_min && s->resync_max && s->resync_min > s->resync_max)
		return conf_error(lx, &name, "storage '%s': resync-min is above resync-max",
				  s->name);
	return 0;
}

/* allow ADDR[/LEN] [read-only] [name NAME], the end of the line included */
static int parse_allow_line(struct lexer *lx, struct conf_export *e)
{
	struct allow_entry *a;
	struct token t;

	if (expect_word(lx, &t, "ADDR or ADDR/LEN") < 0)
		return -1;
	if (e->allow.n == DST_ALLOW_MAX)
		return conf_error(lx, &t, "more than %d 'allow' entries", DST_ALLOW_MAX);
	a = &e->allow.v[e->allow.n];
	if (parse_allow(t.text, a) < 0)
		return conf_error(lx, &t, "invalid prefix '%s': expected IPV4[/0-32] or IPV6[/0-128]",
				  t.text);
	e->allow.n++;
	for (;;) {
		if (next(lx, &t) < 0)
			return -1;
		if (t.type == T_NL || t.type == T_EOF)
			return 0;
		if (t.type == T_WORD && !strcmp(t.text, "read-only") && !a->read_only) {
			a->read_only = true;
		} else if (t.type == T_WORD && !strcmp(t.text, "name") && !*a->name) {
			if (expect_word(lx, &t, "a certificate name") < 0)
				return -1;
			if (strlen(t.text) >= sizeof(a->name))
				return conf_error(lx, &t, "certificate name too long");
			strcpy(a->name, t.text);
		} else {
			return conf_error(lx, &t, "expected 'read-only', 'name NAME' or end of line after the prefix, found '%s'",
					  tok_name(&t));
		}
	}
}

static int parse_export(struct lexer *lx, const struct token *kw)
{
	struct dst_config *c = lx->c;
	struct conf_export *e;
	struct token t, name;
	const char *why;
	int err;

	if (expect_name(lx, &name, "an export name") < 0 || expect_open(lx, "the export name") < 0)
		return -1;
	e = grow(c->exports, c->nexports, sizeof(*e));
	if (!e)
		return conf_error(lx, &name, "out of memory");
	c->exports = e;
	e = &c->exports[c->nexports++];
	strcpy(e->name, name.text);
	e->file = lx->file;
	e->line = kw->line;
	for (;;) {
		if (next(lx, &t) < 0)
			return -1;
		if (t.type == T_NL)
			continue;
		if (t.type == T_CLOSE)
			break;
		if (t.type != T_WORD)
			return conf_error(lx, &t, "expected a setting of export '%s' or '}', found %s",
					  e->name, tok_name(&t));
		if (!strcmp(t.text, "device")) {
			if (e->device)
				return conf_error(lx, &t, "'device' given twice");
			if (expect_path(lx, &t, "a block device") < 0)
				return -1;
			e->device = xstrdup(lx, &t);
			if (!e->device)
				return -1;
		} else if (!strcmp(t.text, "listen")) {
			if (e->listen)
				return conf_error(lx, &t, "'listen' given twice");
			if (expect_word(lx, &t, "ADDR:PORT") < 0)
				return -1;
			err = parse_addr(t.text, &e->addr, &e->addr_len);
			if (err < 0)
				return conf_error(lx, &t, "invalid address '%s': %s", t.text,
						  addr_strerror(err));
			e->listen = xstrdup(lx, &t);
			if (!e->listen)
				return -1;
		} else if (!strcmp(t.text, "read-only")) {
			e->read_only = true;
		} else if (!strcmp(t.text, "integrity")) {
			e->integrity = true;
		} else if (!strcmp(t.text, "shared")) {
			e->shared = true;
		} else if (!strcmp(t.text, "secret-file")) {
			if (e->secret_file)
				return conf_error(lx, &t, "'secret-file' given twice");
			if (expect_path(lx, &t, "a secret file") < 0)
				return -1;
			e->secret_file = xstrdup(lx, &t);
			if (!e->secret_file)
				return -1;
		} else if (!strcmp(t.text, "allow")) {
			if (parse_allow_line(lx, e) < 0)
				return -1;
			continue;
		} else {
			err = parse_tls_option(lx, &t, &e->tls, false);
			if (err < 0)
				return -1;
			if (err)
				return conf_error(lx, &t, "unknown setting '%s' of an export: expected device, listen, read-only, allow, secret-file, integrity, shared, tls, tls-cert, tls-key, tls-ca or tls-cipher",
						  t.text);
		}
		if (expect_end(lx, t.text) < 0)
			return -1;
	}
	if (expect_end(lx, "'}'") < 0)
		return -1;
	if (!e->device)
		return conf_error(lx, &name, "export '%s' has no 'device'", e->name);
	if (!e->listen)
		return conf_error(lx, &name, "export '%s' has no 'listen'", e->name);
	why = allow_names_problem(&e->allow, &e->tls);
	if (why)
		return conf_error(lx, &name, "%s", why);
	return tls_check(lx, &name, &e->tls, e->secret_file, NULL);
}

static int load_file(struct dst_config *c, const char *path, int depth,
		     FILE *err, const char *from, const struct token *at);
static int parse_buf(struct dst_config *c, const char *name, const char *buf,
		     size_t len, int depth, FILE *err);

/* include PATTERN: glob(3), relative to the including file's directory. */
static int parse_include(struct lexer *lx)
{
	char pattern[PATH_MAX], dir[PATH_MAX], *slash;
	struct token t;
	glob_t g;
	size_t i;
	int ret;

	if (expect_word(lx, &t, "a file or pattern to include") < 0 ||
	    expect_end(lx, "the file to include") < 0)
		return -1;
	if (lx->depth < 0)
		return conf_error(lx, &t, "include is read only from files");
	if (lx->depth >= CONF_MAX_INCLUDE_DEPTH)
		return conf_error(lx, &t, "includes nested more than %d deep",
				  CONF_MAX_INCLUDE_DEPTH);
	snprintf(dir, sizeof(dir), "%s", lx->file);
	slash = strrchr(dir, '/');
	if (t.text[0] == '/' || !slash)
		ret = snprintf(pattern, sizeof(pattern), "%s", t.text);
	else
		ret = snprintf(pattern, sizeof(pattern), "%.*s/%s",
			       (int)(slash - dir), dir, t.text);
	if (ret < 0 || (size_t)ret >= sizeof(pattern))
		return conf_error(lx, &t, "path to include too long");
	ret = glob(pattern, 0, NULL, &g);
	/* A pattern may match nothing; a file named as such must be there. */
	if (ret == GLOB_NOMATCH && !strpbrk(t.text, "*?["))
		return conf_error(lx, &t, "cannot include '%s': no such file", pattern);
	if (ret == GLOB_NOMATCH)
		return 0;
	if (ret)
		return conf_error(lx, &t, "cannot list '%s'", pattern);
	ret = 0;
	for (i = 0; i < g.gl_pathc && !ret; i++)
		ret = load_file(lx->c, g.gl_pathv[i], lx->depth + 1, lx->err,
				lx->file, &t);
	globfree(&g);
	return ret;
}

static int parse_buf(struct dst_config *c, const char *name, const char *buf,
		     size_t len, int depth, FILE *err)
{
	struct lexer lx = {
		.p = buf, .end = buf + len, .line = 1, .col = 1,
		.depth = depth, .c = c, .err = err,
	};
	struct token t;
	char **files, *copy;

	/* A UTF-8 byte order mark, as some editors write. */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		lx.p += 3;

	files = realloc(c->files, (c->nfiles + 1) * sizeof(*files));
	copy = strdup(name);
	if (!files || !copy) {
		free(copy);
		if (files)
			c->files = files;
		fprintf(err, "%s: out of memory\n", name);
		return -1;
	}
	c->files = files;
	c->files[c->nfiles++] = copy;
	lx.file = copy;

	if (memchr(buf, 0, len)) {
		for (copy = memchr(buf, 0, len); buf < copy; buf++) {
			lx.col = *buf == '\n' ? 1 : lx.col + 1;
			lx.line += *buf == '\n';
		}
		return conf_error(&lx, NULL, "a NUL byte: not a text file");
	}
	for (;;) {
		if (next(&lx, &t) < 0)
			return -1;
		if (t.type == T_EOF)
			return 0;
		if (t.type == T_NL)
			continue;
		if (t.type == T_WORD && !strcmp(t.text, "storage")) {
			if (parse_storage(&lx, &t) < 0)
				return -1;
		} else if (t.type == T_WORD && !strcmp(t.text, "export")) {
			if (parse_export(&lx, &t) < 0)
				return -1;
		} else if (t.type == T_WORD && !strcmp(t.text, "include")) {
			if (parse_include(&lx) < 0)
				return -1;
		} else {
			return conf_error(&lx, &t, "expected 'storage', 'export' or 'include', found %s%s%s",
					  t.type == T_WORD ? "'" : "", tok_name(&t),
					  t.type == T_WORD ? "'" : "");
		}
	}
}

/*
 * Reads the whole file (a regular file, or a pipe such as /dev/stdin, or
 * "-" for standard input), up to CONF_MAX_FILE_SIZE bytes, and parses it.
 */
static int load_file(struct dst_config *c, const char *path, int depth,
		     FILE *err, const char *from, const struct token *at)
{
	size_t len = 0;
	struct stat st;
	ssize_t n = 0;
	char *buf;
	int fd, ret;

	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
	if (fd < 0 || fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		if (from)
			fprintf(err, "%s:%u:%u: ", from, at->line, at->col);
		else
			fprintf(err, "%s: ", PROG);
		if (fd >= 0)
			fprintf(err, "%s: a directory\n", path);
		else
			fprintf(err, "%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf = malloc(CONF_MAX_FILE_SIZE + 1);
	while (buf && len <= CONF_MAX_FILE_SIZE) {
		n = read(fd, buf + len, CONF_MAX_FILE_SIZE + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!buf || n < 0 || len > CONF_MAX_FILE_SIZE) {
		if (from)
			fprintf(err, "%s:%u:%u: ", from, at->line, at->col);
		fprintf(err, "%s: %s\n", path, !buf ? "out of memory" : n < 0 ?
			"cannot read it" : "larger than 1 MiB");
		free(buf);
		return -1;
	}
	ret = parse_buf(c, path, buf, len, depth, err);
	free(buf);
	return ret;
}

void config_free(struct dst_config *c)
{
	size_t i, j;

	for (i = 0; i < c->nstorages; i++) {
		for (j = 0; j < c->storages[i].nnodes; j++) {
			free(c->storages[i].nodes[j].target);
			free(c->storages[i].nodes[j].secret_file);
		}
		free(c->storages[i].nodes);
		free(c->storages[i].bitmap);
	}
	free(c->storages);
	for (i = 0; i < c->nexports; i++) {
		free(c->exports[i].device);
		free(c->exports[i].listen);
		free(c->exports[i].secret_file);
	}
	free(c->exports);
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

static int finish(struct dst_config *c, int ret, FILE *err, bool files)
{
	if (!ret)
		ret = config_check(c, err, files ? CONF_CHECK_FILES : 0);
	if (ret) {
		config_free(c);
		return -1;
	}
	return 0;
}

int config_load(const char *path, struct dst_config *c, FILE *err)
{
	memset(c, 0, sizeof(*c));
	return finish(c, load_file(c, path, 0, err, NULL, NULL), err, true);
}

int config_parse(const char *name, const char *buf, size_t len,
		 struct dst_config *c, FILE *err)
{
	memset(c, 0, sizeof(*c));
	return finish(c, parse_buf(c, name, buf, len, -1, err), err, false);
}

const struct conf_storage *config_storage(const struct dst_config *c,
					  const char *name)
{
	size_t i;

	for (i = 0; i < c->nstorages; i++)
		if (!strcmp(c->storages[i].name, name))
			return &c->storages[i];
	return NULL;
}

/* @path without "//", "." and ".." (lexically) in @out. */
void config_clean_path(const char *path, char *out, size_t len)
{
	size_t n = 0, seg;
	const char *p = path;

	while (*p && n + 2 < len) {
		while (*p == '/')
			p++;
		seg = strcspn(p, "/");
		if (seg == 1 && p[0] == '.') {
			p += seg;
			continue;
		}
		if (seg == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[--n] != '/')
				;
			p += seg;
			continue;
		}
		if (!seg)
			break;
		out[n++] = '/';
		if (n + seg >= len)
			seg = len - n - 1;
		memcpy(out + n, p, seg);
		n += seg;
		p += seg;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
}

const struct conf_storage *config_dev_storage(const struct dst_config *c, const char *dev)
{
	char clean[PATH_MAX];

	config_clean_path(dev, clean, sizeof(clean));
	if (strncmp(clean, "/dev/dst/", 9))
		return NULL;
	return config_storage(c, clean + 9);
}

static bool built_on(const struct dst_config *c, const struct conf_storage *s,
		     const struct conf_storage *on, size_t depth)
{
	const struct conf_storage *dep;
	size_t j;

	if (depth > c->nstorages)
		return false;
	for (j = 0; j < s->nnodes; j++) {
		if (s->nodes[j].type != DST_NODE_LOCAL)
			continue;
		dep = config_dev_storage(c, s->nodes[j].target);
		if (dep && (dep == on || built_on(c, dep, on, depth + 1)))
			return true;
	}
	return false;
}

bool config_built_on(const struct dst_config *c, const struct conf_storage *s,
		     const struct conf_storage *on)
{
	return built_on(c, s, on, 0);
}

const struct conf_export *config_export(const struct dst_config *c,
					const char *name)
{
	size_t i;

	for (i = 0; i < c->nexports; i++)
		if (!strcmp(c->exports[i].name, name))
			return &c->exports[i];
	return NULL;
}

/* A size with the largest suffix that divides it. */
static void print_size(FILE *f, uint64_t v)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (v && !(v & 1023) && u < 3) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		fprintf(f, "%llu", (unsigned long long)v);
	else
		fprintf(f, "%llu%c", (unsigned long long)v, units[u]);
}

/*
 * The TLS of a node (@host, its ADDR:PORT) or an export, each setting
 * between @pre and @post; a node's name only when not its address.
 */
static void dump_tls(FILE *f, const struct tls_args *t, const char *host,
		     const char *pre, const char *post)
{
	struct tls_args dflt = { .on = true, .ca = "/" };

	switch (tls_mode(t)) {
	case DST_TLS_NONE:
		return;
	case DST_TLS_PSK:
		fprintf(f, "%stls%s", pre, post);
		break;
	}
	if (t->cipher)
		fprintf(f, "%stls-cipher %s%s", pre, tls_cipher_name(t->cipher), post);
	if (*t->cert)
		fprintf(f, "%stls-cert %s%s%stls-key %s%s", pre, t->cert, post,
			pre, t->key, post);
	if (*t->ca)
		fprintf(f, "%stls-ca %s%s", pre, t->ca, post);
	if (host && *t->name &&
	    (tls_args_problem(&dflt, false, host) || strcmp(dflt.name, t->name)))
		fprintf(f, "%stls-name %s%s", pre, t->name, post);
}

static void dump_export(FILE *f, const struct conf_export *e, bool gap)
{
	char prefix[INET6_ADDRSTRLEN + 8];
	unsigned int i;

	fprintf(f, "%sexport %s {\n\tdevice %s\n\tlisten %s\n", gap ? "\n" : "",
		e->name, e->device, e->listen);
	if (e->read_only)
		fputs("\tread-only\n", f);
	for (i = 0; i < e->allow.n; i++)
		if (format_allow(&e->allow.v[i], prefix, sizeof(prefix)) == 0)
			fprintf(f, "\tallow %s%s%s%s\n", prefix,
				e->allow.v[i].read_only ? " read-only" : "",
				*e->allow.v[i].name ? " name " : "", e->allow.v[i].name);
	if (e->secret_file)
		fprintf(f, "\tsecret-file %s\n", e->secret_file);
	if (e->secret_hidden)
		fputs("\t# secret-file FILE: it has a secret, which is never shown\n", f);
	if (e->integrity)
		fputs("\tintegrity\n", f);
	if (e->shared)
		fputs("\tshared\n", f);
	dump_tls(f, &e->tls, NULL, "\t", "\n");
	fputs("}\n", f);
}

void config_dump(FILE *f, const struct dst_config *c)
{
	const struct conf_storage *s;
	const struct conf_node *n;
	size_t i, j;

	for (i = 0; i < c->nstorages; i++) {
		s = &c->storages[i];
		fprintf(f, "%sstorage %s {\n\talg %s\n", i ? "\n" : "", s->name, s->alg);
		if (s->chunk_size) {
			fputs("\tchunk-size ", f);
			print_size(f, s->chunk_size);
			fputc('\n', f);
		}
		if (s->resync_min) {
			fputs("\tresync-min ", f);
			print_size(f, (uint64_t)s->resync_min << 10);
			fputc('\n', f);
		}
		if (s->resync_max) {
			fputs("\tresync-max ", f);
			print_size(f, (uint64_t)s->resync_max << 10);
			fputc('\n', f);
		}
		if (s->bitmap)
			fprintf(f, "\tbitmap %s\n", s->bitmap);
		if (s->start_degraded)
			fputs("\tstart-degraded\n", f);
		for (j = 0; j < s->nnodes; j++) {
			n = &s->nodes[j];
			fprintf(f, "\tnode %s %s", n->type == DST_NODE_LOCAL ? "local" : "remote",
				n->target);
			if (n->ra.timeout)
				fprintf(f, " timeout %u", n->ra.timeout);
			if (n->ra.has_dead_timeout)
				fprintf(f, " dead-timeout %u", n->ra.dead_timeout);
			if (n->ra.reconnect_max)
				fprintf(f, " reconnect-max %u", n->ra.reconnect_max);
			if (n->secret_file)
				fprintf(f, " secret-file %s", n->secret_file);
			if (n->ra.integrity)
				fputs(" integrity", f);
			if (n->type == DST_NODE_REMOTE)
				dump_tls(f, &n->ra.tls, n->target, " ", "");
			if (n->la.write_mostly)
				fputs(" write-mostly", f);
			if (n->la.write_behind)
				fprintf(f, " write-behind %u", n->la.write_behind);
			if (n->secret_hidden)
				fputs("\t# secret-file FILE: it has a secret, which is never shown", f);
			fputc('\n', f);
		}
		fputs("}\n", f);
	}
	for (i = 0; i < c->nexports; i++)
		dump_export(f, &c->exports[i], i || c->nstorages);
}
