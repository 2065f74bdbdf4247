// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: administration of dst storages - the command table.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "dstadm.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The options of a remote node: add (remote), import. */
#define REMOTE_OPTIONS \
	{ "timeout", 't', "S", false, \
	  "seconds a request may take (default " STR(DST_DEFAULT_TIMEOUT) ")" }, \
	{ "dead-timeout", 'D', "S", false, \
	  "seconds I/O is held while the node is down (default 0: it fails)" }, \
	{ "reconnect-max", 'R', "S", false, \
	  "most seconds between reconnects (default " STR(DST_DEFAULT_RECONNECT_MAX) ")" }, \
	{ "secret-file", 'S', "PATH", false, "prove the shared secret in PATH (mode 0600)" }, \
	{ "integrity", 'I', NULL, false, "CRC-32C over every message" }, \
	TLS_OPTIONS, \
	{ "tls-name", OPT_TLS_NAME, "NAME", false, \
	  "TLS with X.509: the export's name in its certificate (default: its host)" }

/* TLS of a remote node or an export. */
#define TLS_OPTIONS \
	{ "tls", 'T', NULL, false, "TLS 1.3, with the secret as PSK unless --tls-* give X.509" }, \
	{ "tls-cert", OPT_TLS_CERT, "PATH", false, "TLS with X.509: own certificate (PEM)" }, \
	{ "tls-key", OPT_TLS_KEY, "PATH", false, "TLS with X.509: its private key (PEM)" }, \
	{ "tls-ca", OPT_TLS_CA, "PATH", false, "TLS with X.509: CA certificates that check the peer (PEM)" }, \
	{ "tls-cipher", OPT_TLS_CIPHER, "CIPHER", false, \
	  "TLS: use only aes-128-gcm, aes-256-gcm or chacha20-poly1305 (default: any)" }

static const struct cmd_option no_options[] = {
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option create_options[] = {
	{ "alg", 'a', "linear|mirror", true, "how the nodes make the storage" },
	{ "chunk-size", 'c', "SIZE", false,
	  "mirror: size of a region, the unit of resync (default 1M)" },
	{ "resync-min", 'm', "RATE", false, "mirror: resync bytes/s kept under load" },
	{ "resync-max", 'M', "RATE", false, "mirror: resync bytes/s at most" },
	{ "bitmap", 'b', "PATH", false, "mirror: write-intent bitmap file or device" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option add_options[] = {
	REMOTE_OPTIONS,
	{ "write-mostly", 'W', NULL, false,
	  "mirror: reads avoid this leg while another can serve" },
	{ "write-behind", 'B', "N", false,
	  "mirror: write-mostly, and up to N writes complete before this leg has them" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option start_options[] = {
	{ "assume-clean", 'A', NULL, false, "mirror: the legs are identical, no resync" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option resize_options[] = {
	{ "assume-clean", 'A', NULL, false,
	  "mirror: what the legs grew by is identical, no resync" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option verify_options[] = {
	{ "repair", 'r', NULL, false,
	  "copy the blocks that differ from the first leg in sync" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option wait_options[] = {
	{ "timeout", 't', "SECONDS", false, "give up after SECONDS (exit 1)" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option import_options[] = {
	{ "remote", 'r', "ADDR:PORT", true, "the export to import" },
	REMOTE_OPTIONS,
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option export_options[] = {
	{ "device", 'd', "PATH", true, "the block device to serve" },
	{ "listen", 'l', "ADDR:PORT", true, "where to listen" },
	{ "read-only", 'r', NULL, false, "serve it read only" },
	{ "allow", 'a', "PREFIX[,ro][,name=NAME]", false,
	  "clients that may connect, repeated (default: loopback only); NAME: their certificates'" },
	{ "secret-file", 'S', "PATH", false, "clients must prove the secret in PATH" },
	{ "integrity", 'I', NULL, false, "clients must use CRC-32C" },
	{ "shared", 's', NULL, false,
	  "clients of many hosts may write at once (cluster filesystems)" },
	TLS_OPTIONS,
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option status_options[] = {
	{ "json", 'j', NULL, false, "as JSON" },
	{ "check", OPT_CHECK, NULL, false,
	  "only the problems; exit 0 well, 3 degraded, 4 failed" },
	{ "config", 'c', "FILE", false, "--check: the configuration (default " DST_CONFIG_FILE ")" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option config_options[] = {
	{ "config", 'c', "FILE", false, "the configuration file (default " DST_CONFIG_FILE ")" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option adjust_options[] = {
	{ "config", 'c', "FILE", false, "the configuration file (default " DST_CONFIG_FILE ")" },
	{ "dry-run", 'n', NULL, false, "print the changes, make none" },
	{ NULL, 0, NULL, false, NULL },
};

static const struct cmd_option monitor_options[] = {
	{ "json", 'j', NULL, false, "each event as a JSON object" },
	{ "timestamps", 't', NULL, false, "each line starts with the time" },
	{ "state", 's', NULL, false, "first an \"exists\" line for everything there" },
	{ "program", 'p', "PATH", false, "run PATH EVENT NAME [NODE] for each event" },
	{ NULL, 0, NULL, false, NULL },
};

const struct command dstadm_commands[] = {
	{ "create", cmd_create, "NAME", create_options, "create a storage" },
	{ "delete", cmd_delete, "NAME", no_options, "delete a storage" },
	{ "add", cmd_add, "NAME remote ADDR:PORT | NAME local PATH", add_options,
	  "add a node to a storage; prints its name" },
	{ "remove", cmd_remove, "NAME NODE", no_options, "remove a node from a storage" },
	{ "start", cmd_start, "NAME", start_options, "start a storage: make its /dev/dstN" },
	{ "stop", cmd_stop, "NAME", no_options, "stop a storage: remove its /dev/dstN" },
	{ "resize", cmd_resize, "NAME", resize_options,
	  "grow a storage or export to what its devices grew by" },
	{ "wait", cmd_wait, "NAME", wait_options,
	  "wait until every leg of a mirror is in sync and its verify done, showing progress" },
	{ "verify", cmd_verify, "NAME", verify_options,
	  "compare the legs of a running mirror in the background (see status)" },
	{ "import", cmd_import, "NAME", import_options,
	  "make a remote export a local disk (create, add, start)" },
	{ "export", cmd_export, "NAME", export_options, "serve a block device over the network" },
	{ "unexport", cmd_unexport, "NAME", no_options, "stop serving an export" },
	{ "status", cmd_status, "[NAME]", status_options,
	  "show storages, their nodes, and exports" },
	{ "up", cmd_up, "[NAME]", config_options,
	  "create and start the configured storages and exports (all, or NAME and what it needs)" },
	{ "down", cmd_down, "[NAME]", config_options,
	  "unexport and delete the configured exports and storages (all, or NAME and its exports)" },
	{ "check-config", cmd_check_config, "[FILE]", config_options,
	  "check a configuration file (default " DST_CONFIG_FILE ")" },
	{ "dump", cmd_dump, "", config_options, "print the configuration as dstadm reads it" },
	{ "showconf", cmd_showconf, "", no_options,
	  "print what runs as a configuration file" },
	{ "adjust", cmd_adjust, "", adjust_options,
	  "change what runs to match the configuration, printing each change" },
	{ "monitor", cmd_monitor, "", monitor_options, "print events as they happen" },
	{ "tlsd", cmd_tlsd, "", no_options,
	  "do the TLS handshakes of the module's connections (the dst-tlsd service)" },
	{ "version", cmd_version, "", no_options,
	  "show the versions of dstadm and of the dst module" },
	{ "help", cmd_help, "[COMMAND]", no_options, "show help for all or one command" },
};
const size_t dstadm_ncommands = sizeof(dstadm_commands) / sizeof(dstadm_commands[0]);

const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < dstadm_ncommands; i++)
		if (!strcmp(dstadm_commands[i].name, name))
			return &dstadm_commands[i];
	return NULL;
}

void print_command_usage(FILE *f, const struct command *c)
{
	const struct cmd_option *o;

	fprintf(f, "Usage: %s %s%s%s", PROG, c->name, *c->args ? " " : "", c->args);
	for (o = c->options; o->name; o++)
		fprintf(f, " %s--%s%s%s%s", o->required ? "" : "[", o->name,
			o->arg ? " " : "", o->arg ? o->arg : "", o->required ? "" : "]");
	fputc('\n', f);
}

/* "-a, --alg linear|mirror" of @o in @buf. */
static void option_words(char *buf, size_t len, const struct cmd_option *o)
{
	if (o->val < OPT_LONG_ONLY)
		snprintf(buf, len, "-%c, --%s%s%s", o->val, o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	else
		snprintf(buf, len, "    --%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
}

void print_command_help(FILE *f, const struct command *c)
{
	static const struct cmd_option help = { "help", 'h', NULL, false, "show this help" };
	const struct cmd_option *o;
	char words[64];
	int width = 0, n;

	print_command_usage(f, c);
	fprintf(f, "%c%s.\n\nOptions:\n", toupper((unsigned char)c->summary[0]),
		c->summary + 1);
	for (o = c->options; ; o++) {
		option_words(words, sizeof(words), o->name ? o : &help);
		n = strlen(words);
		if (n > width)
			width = n;
		if (!o->name)
			break;
	}
	for (o = c->options; ; o++) {
		option_words(words, sizeof(words), o->name ? o : &help);
		fprintf(f, "  %-*s  %s\n", width, words, o->name ? o->help : help.help);
		if (!o->name)
			break;
	}
}

/* Options of one command at most, and the short ones with ':' and -h. */
#define CMD_MAX_OPTIONS 16

int cmd_getopt(int argc, char *argv[], const char *cmd)
{
	static struct option longopts[CMD_MAX_OPTIONS + 2];
	static char shortopts[3 * CMD_MAX_OPTIONS + 4];
	static const struct command *built;
	const struct command *c = find_command(cmd);
	const struct cmd_option *o;
	size_t n = 0, k = 0;

	if (c != built) {
		shortopts[k++] = ':';
		for (o = c->options; o->name && n < CMD_MAX_OPTIONS; o++, n++) {
			longopts[n] = (struct option){ o->name,
				o->arg ? required_argument : no_argument, NULL, o->val };
			if (o->val >= OPT_LONG_ONLY)
				continue;
			shortopts[k++] = o->val;
			if (o->arg)
				shortopts[k++] = ':';
		}
		longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
		longopts[n] = (struct option){ NULL, 0, NULL, 0 };
		shortopts[k++] = 'h';
		shortopts[k] = '\0';
		built = c;
	}
	return getopt_long(argc, argv, shortopts, longopts, NULL);
}

/* Report bad usage of @cmd and return EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
{
	const struct command *c = find_command(cmd);
	va_list ap;

	fprintf(stderr, "%s %s: ", PROG, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		print_command_usage(stderr, c);
	return EXIT_USAGE;
}

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: %s COMMAND [ARGS...]\n\nCommands:\n", PROG);
	for (i = 0; i < dstadm_ncommands; i++)
		fprintf(f, "  %-12s  %s\n", dstadm_commands[i].name,
			dstadm_commands[i].summary);
	fprintf(f, "\nRun '%s help COMMAND' for the arguments of a command.\n",
		PROG);
}

int cmd_help(int argc, char *argv[])
{
	const struct command *c;

	if (argc > 2)
		return usage_error("help", "too many arguments");
	if (argc < 2) {
		print_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		c = find_command("help");
	else
		c = find_command(argv[1]);
	if (!c)
		return usage_error("help", "unknown command '%s'", argv[1]);
	print_command_help(stdout, c);
	return EXIT_OK;
}

/*
 * What was written to stdout must have reached it: "dstadm dump >FILE" on
 * a full disk fails instead of leaving a short file behind.
 */
static int flushed(int ret)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return ret;
	fprintf(stderr, "%s: write error on standard output: %s\n", PROG,
		strerror(errno));
	return ret == EXIT_OK ? EXIT_FAIL : ret;
}

static int run(int argc, char *argv[])
{
	const struct command *c;

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return cmd_version(1, argv + 1);

	c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "%s: unknown command '%s'\n", PROG, argv[1]);
		print_usage(stderr);
		return EXIT_USAGE;
	}
	return c->run(argc - 1, argv + 1);
}

int dstadm_main(int argc, char *argv[])
{
	return flushed(run(argc, argv));
}

/*
 * Report the option that getopt_long() stopped at with @c, '?' for an
 * unknown option or ':' for a missing argument; returns EXIT_USAGE.
 */
int bad_option(const char *cmd, int c, char *argv[])
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		return usage_error(cmd, "option '%s' needs an argument", opt);
	/* A long option given an argument it does not take. */
	if (optopt && !strncmp(opt, "--", 2) && strchr(opt, '='))
		return usage_error(cmd, "option '%.*s' takes no argument",
				   (int)(strchr(opt, '=') - opt), opt);
	if (optopt)
		return usage_error(cmd, "unknown option '-%c'", optopt);
	return usage_error(cmd, "unknown option '%s'", opt);
}

/*
 * The arguments of a command that takes only the name of a @what (or,
 * @what NULL, nothing): set *@name, or *@help after printing the usage.
 * EXIT_OK or EXIT_USAGE.
 */
int name_parse(const char *cmd, const char *what, int argc, char *argv[],
	       bool *help, const char **name)
{
	int c;

	*help = false;
	*name = NULL;
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, cmd)) != -1) {
		if (c != 'h')
			return bad_option(cmd, c, argv);
		*help = true;
		print_command_help(stdout, find_command(cmd));
		return EXIT_OK;
	}
	if (!what && optind < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!what)
		return EXIT_OK;
	if (optind >= argc)
		return usage_error(cmd, "missing %s name", what);
	if (optind + 1 < argc)
		return usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	*name = argv[optind];
	return EXIT_OK;
}

/* Seconds from @min to @max, in decimal, for @what; -1 if not. */
int parse_seconds(const char *s, unsigned long min, unsigned long max,
		  uint32_t *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A request timeout: 1 to DST_MAX_TIMEOUT seconds, in decimal. */
int parse_timeout(const char *cmd, const char *s, uint32_t *timeout)
{
	if (parse_seconds(s, 1, DST_MAX_TIMEOUT, timeout) < 0)
		return usage_error(cmd, "invalid timeout '%s': seconds from 1 to %u",
				   s, DST_MAX_TIMEOUT);
	return EXIT_OK;
}

/* --write-mostly, --write-behind N of a mirror leg. */
int parse_leg_arg(const char *cmd, int c, const char *arg, struct leg_args *la)
{
	if (c == 'W') {
		la->write_mostly = true;
		return EXIT_OK;
	}
	if (parse_seconds(arg, 1, DST_MAX_WRITE_BEHIND, &la->write_behind) < 0)
		return usage_error(cmd, "invalid --write-behind '%s': writes from 1 to %d",
				   arg, DST_MAX_WRITE_BEHIND);
	/* As md's, write-behind is for a write-mostly leg: it says so too. */
	la->write_mostly = true;
	return EXIT_OK;
}

int parse_remote_arg(const char *cmd, int c, const char *arg,
		     struct remote_args *ra)
{
	switch (c) {
	case 't':
		return parse_timeout(cmd, arg, &ra->timeout);
	case 'D':
		if (parse_seconds(arg, 0, DST_MAX_TIMEOUT, &ra->dead_timeout) < 0)
			return usage_error(cmd, "invalid dead timeout '%s': seconds from 0 to %u",
					   arg, DST_MAX_TIMEOUT);
		ra->has_dead_timeout = true;
		return EXIT_OK;
	case 'R':
		if (parse_seconds(arg, 1, DST_MAX_RECONNECT, &ra->reconnect_max) < 0)
			return usage_error(cmd, "invalid reconnect interval '%s': seconds from 1 to %u",
					   arg, DST_MAX_RECONNECT);
		return EXIT_OK;
	case 'S':
		if (!*arg)
			return usage_error(cmd, "empty secret file name");
		ra->secret_file = arg;
		return EXIT_OK;
	case 'I':
		ra->integrity = true;
		return EXIT_OK;
	default:
		return parse_tls_arg(cmd, c, arg, &ra->tls);
	}
}

const char *tls_mode_name(uint32_t mode)
{
	switch (mode) {
	case DST_TLS_NONE:
		return "none";
	case DST_TLS_PSK:
		return "psk";
	case DST_TLS_X509:
		return "x509";
	default:
		return "?";
	}
}

static const char *const tls_ciphers[__DST_TLS_CIPHER_MAX] = {
	[DST_TLS_CIPHER_ANY] = "any",
	[DST_TLS_CIPHER_AES_128_GCM] = "aes-128-gcm",
	[DST_TLS_CIPHER_AES_256_GCM] = "aes-256-gcm",
	[DST_TLS_CIPHER_CHACHA20_POLY1305] = "chacha20-poly1305",
};

const char *tls_cipher_name(uint32_t cipher)
{
	return cipher < __DST_TLS_CIPHER_MAX ? tls_ciphers[cipher] : "?";
}

int tls_cipher_parse(const char *name)
{
	int i;

	for (i = DST_TLS_CIPHER_ANY + 1; i < __DST_TLS_CIPHER_MAX; i++)
		if (!strcmp(name, tls_ciphers[i]))
			return i;
	return -1;
}

uint32_t tls_mode(const struct tls_args *t)
{
	if (*t->cert || *t->key || *t->ca || *t->name)
		return DST_TLS_X509;
	return t->on ? DST_TLS_PSK : DST_TLS_NONE;
}

/* @arg into @buf, made absolute by tls_args_check(). */
static int tls_arg(const char *cmd, const char *opt, const char *arg, char *buf)
{
	if (!*arg || strlen(arg) >= DST_TLS_PATH_MAX)
		return usage_error(cmd, "invalid --%s '%s'", opt, arg);
	strcpy(buf, arg);
	return EXIT_OK;
}

/* @buf, a file's path, made absolute, as realpath(3), for the agent. */
static int tls_path(const char *cmd, const char *opt, char *buf)
{
	char path[PATH_MAX];

	if (!*buf)
		return EXIT_OK;
	if (!realpath(buf, path))
		return usage_error(cmd, "--%s '%s': %s", opt, buf, strerror(errno));
	if (strlen(path) >= DST_TLS_PATH_MAX)
		return usage_error(cmd, "--%s '%s': path too long", opt, buf);
	strcpy(buf, path);
	return EXIT_OK;
}

int parse_tls_arg(const char *cmd, int c, const char *arg, struct tls_args *t)
{
	int cipher;

	if (c != 'T' && (c < OPT_TLS_CERT || c > OPT_TLS_NAME))
		return 1;
	t->on = true;
	switch (c) {
	case 'T':
		return EXIT_OK;
	case OPT_TLS_CERT:
		return tls_arg(cmd, "tls-cert", arg, t->cert);
	case OPT_TLS_KEY:
		return tls_arg(cmd, "tls-key", arg, t->key);
	case OPT_TLS_CA:
		return tls_arg(cmd, "tls-ca", arg, t->ca);
	case OPT_TLS_NAME:
		return tls_arg(cmd, "tls-name", arg, t->name);
	case OPT_TLS_CIPHER:
		cipher = tls_cipher_parse(arg);
		if (cipher < 0)
			return usage_error(cmd, "invalid --tls-cipher '%s': aes-128-gcm, aes-256-gcm or chacha20-poly1305",
					   arg);
		t->cipher = cipher;
		return EXIT_OK;
	}
	return 1;
}

const char *tls_args_problem(struct tls_args *t, bool has_secret, const char *host)
{
	const char *end;
	size_t n;

	switch (tls_mode(t)) {
	case DST_TLS_PSK:
		if (!has_secret)
			return "TLS without certificates needs a secret file: its secret is the key";
		/* Its suite's hash is SHA-384; the PSK is a SHA-256 one. */
		return t->cipher == DST_TLS_CIPHER_AES_256_GCM ?
		       "the TLS cipher aes-256-gcm is for X.509: a PSK goes with SHA-256" : NULL;
	case DST_TLS_X509:
		if (!*t->cert != !*t->key)
			return "a TLS certificate needs its key, and the reverse";
		if (!host) {
			if (*t->name)
				return "a TLS name is for remote nodes";
			return *t->cert ? NULL :
			       "TLS with X.509 needs the export's certificate and key";
		}
		if (!*t->ca)
			return "TLS with X.509 needs a CA file to check the export";
		if (*t->name)
			return NULL;
		/* ADDR:PORT or [ADDR]:PORT, as parse_addr() took it. */
		if (*host == '[') {
			host++;
			end = strchr(host, ']');
		} else {
			end = strrchr(host, ':');
		}
		n = end ? (size_t)(end - host) : strlen(host);
		if (!n || n >= sizeof(t->name))
			return "no address to check the export's certificate by: give a TLS name";
		memcpy(t->name, host, n);
		t->name[n] = '\0';
		return NULL;
	default:
		return NULL;
	}
}

int tls_args_check(const char *cmd, struct tls_args *t, const char *secret_file,
		   const char *host)
{
	const char *why;

	if (tls_mode(t) == DST_TLS_X509 &&
	    (tls_path(cmd, "tls-cert", t->cert) || tls_path(cmd, "tls-key", t->key) ||
	     tls_path(cmd, "tls-ca", t->ca)))
		return EXIT_USAGE;
	why = tls_args_problem(t, secret_file, host);
	return why ? usage_error(cmd, "%s", why) : EXIT_OK;
}

const char *allow_names_problem(const struct allow_list *l, const struct tls_args *t)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (*l->v[i].name && (tls_mode(t) != DST_TLS_X509 || !*t->ca))
			return "certificate names in the allow list need TLS with X.509 and a CA";
	return NULL;
}

bool tls_args_same(const struct tls_args *a, const struct tls_args *b)
{
	return tls_mode(a) == tls_mode(b) && !strcmp(a->cert, b->cert) &&
	       !strcmp(a->key, b->key) && !strcmp(a->ca, b->ca) &&
	       !strcmp(a->name, b->name) && a->cipher == b->cipher;
}

bool name_valid(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n >= DST_NAME_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && !strchr(DST_NAME_PUNCT, s[i]))
			return false;
	return true;
}

int new_name(const char *cmd, const char *name)
{
	if (name_valid(name))
		return EXIT_OK;
	return usage_error(cmd, "invalid name '%.40s%s': 1 to %d of A-Z a-z 0-9 %s, not starting with . or -",
			   name, strlen(name) > 40 ? "..." : "", DST_NAME_MAX - 1, DST_NAME_PUNCT);
}

int parse_size(const char *s, uint64_t *bytes)
{
	static const char suffixes[] = "KMGT";
	unsigned long long v;
	const char *p;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		p = strchr(suffixes, toupper((unsigned char)*end));
		if (!p)
			return -1;
		shift = 10 * (int)(p - suffixes + 1);
		end++;
		if (!strcasecmp(end, "iB") || !strcasecmp(end, "B"))
			end += strlen(end);
		if (*end)
			return -1;
	}
	if (v > UINT64_MAX >> shift)
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

int parse_node_id(const char *s, uint32_t *id)
{
	unsigned long v;
	char *end;

	if (!strncmp(s, "node", 4))
		s += 4;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

/* An ADDR:PORT argument, for option or argument @what. */
int parse_addr_arg(const char *cmd, const char *what, const char *s,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	int err = parse_addr(s, ss, len);

	if (err)
		return usage_error(cmd, "invalid %s '%.*s': %s", what,
				   ADDR_STRLEN, s, addr_strerror(err));
	return EXIT_OK;
}
