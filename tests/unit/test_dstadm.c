// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of dstadm: argument parsing, netlink attribute parsing and
 * output, without a kernel.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dstadm.h"
#include "config.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(fn, opts, ...) fn(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), opts)

static void test_create_parse(void **state)
{
	struct create_opts o;

	(void)state;
	assert_int_equal(PARSE(create_parse, &o, "create", "r0", "--alg", "mirror"), EXIT_OK);
	assert_string_equal(o.name, "r0");
	assert_string_equal(o.alg, "mirror");
	assert_false(o.help);

	assert_int_equal(PARSE(create_parse, &o, "create", "--alg=linear", "x"), EXIT_OK);
	assert_string_equal(o.name, "x");
	assert_string_equal(o.alg, "linear");

	assert_int_equal(PARSE(create_parse, &o, "create", "-a", "linear", "y"), EXIT_OK);
	assert_string_equal(o.name, "y");
	/* A name the module would refuse is bad usage, before it is asked. */
	assert_int_equal(PARSE(create_parse, &o, "create", "bad name", "-a", "linear"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", ".x", "-a", "linear"), EXIT_USAGE);
	/* An option given twice is bad usage (review D16). */
	assert_int_equal(PARSE(create_parse, &o, "create", "z", "-a", "linear", "-a", "mirror"),
			 EXIT_USAGE);

	assert_int_equal(PARSE(create_parse, &o, "create", "--help"), EXIT_OK);
	assert_true(o.help);
}

static void test_create_parse_bitmap(void **state)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16];
	struct create_opts o;
	char long_path[DST_BITMAP_PATH_MAX + 1];

	(void)state;
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror"), EXIT_OK);
	assert_string_equal(o.bitmap, "");
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--bitmap", "/var/lib/dst/m.bitmap"), EXIT_OK);
	assert_string_equal(o.bitmap, "/var/lib/dst/m.bitmap");
	/* Relative to the current directory: the kernel opens it. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/m.bitmap", cwd);
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--bitmap=m.bitmap"), EXIT_OK);
	assert_string_equal(o.bitmap, want);
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--bitmap", ""), EXIT_USAGE);
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = 0;
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--bitmap", long_path), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--bitmap"), EXIT_USAGE);
}

static void test_create_parse_errors(void **state)
{
	struct create_opts o;

	(void)state;
	assert_int_equal(PARSE(create_parse, &o, "create"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "x", "--alg"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "--alg", "linear"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "x", "y", "--alg", "linear"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "-q", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "--bogus", "x", "-a", "l"), EXIT_USAGE);
}

static void test_delete_parse(void **state)
{
	struct delete_opts o;

	(void)state;
	assert_int_equal(PARSE(delete_parse, &o, "delete", "r0"), EXIT_OK);
	assert_string_equal(o.name, "r0");
	assert_int_equal(PARSE(delete_parse, &o, "delete"), EXIT_USAGE);
	assert_int_equal(PARSE(delete_parse, &o, "delete", "a", "b"), EXIT_USAGE);
	assert_int_equal(PARSE(delete_parse, &o, "delete", "--force", "a"), EXIT_USAGE);
	assert_int_equal(PARSE(delete_parse, &o, "delete", "-h"), EXIT_OK);
	assert_true(o.help);
}

static void test_status_parse(void **state)
{
	struct status_opts o;

	(void)state;
	assert_int_equal(PARSE(status_parse, &o, "status"), EXIT_OK);
	assert_null(o.name);
	assert_false(o.json);
	assert_int_equal(PARSE(status_parse, &o, "status", "r0", "--json"), EXIT_OK);
	assert_string_equal(o.name, "r0");
	assert_true(o.json);
	assert_int_equal(PARSE(status_parse, &o, "status", "-j"), EXIT_OK);
	assert_true(o.json);
	assert_int_equal(PARSE(status_parse, &o, "status", "a", "b"), EXIT_USAGE);
	assert_int_equal(PARSE(status_parse, &o, "status", "--jason"), EXIT_USAGE);
}

static void test_main_usage(void **state)
{
	(void)state;
	assert_int_equal(dstadm_main(1, ARGV("dstadm")), EXIT_USAGE);
	assert_int_equal(dstadm_main(2, ARGV("dstadm", "frobnicate")), EXIT_USAGE);
	assert_int_equal(dstadm_main(2, ARGV("dstadm", "")), EXIT_USAGE);
	assert_int_equal(dstadm_main(2, ARGV("dstadm", "--help")), EXIT_OK);
	assert_int_equal(dstadm_main(2, ARGV("dstadm", "help")), EXIT_OK);
	assert_int_equal(dstadm_main(3, ARGV("dstadm", "help", "create")), EXIT_OK);
	assert_int_equal(dstadm_main(3, ARGV("dstadm", "help", "nope")), EXIT_USAGE);
	assert_int_equal(dstadm_main(4, ARGV("dstadm", "help", "a", "b")), EXIT_USAGE);
	assert_int_equal(dstadm_main(3, ARGV("dstadm", "version", "x")), EXIT_USAGE);
	assert_int_equal(dstadm_main(3, ARGV("dstadm", "create", "--help")), EXIT_OK);
}

/* Every command of the table has help, and help names it. */
static void test_command_table(void **state)
{
	size_t i;

	(void)state;
	assert_true(dstadm_ncommands >= 5);
	for (i = 0; i < dstadm_ncommands; i++) {
		assert_non_null(dstadm_commands[i].run);
		assert_non_null(dstadm_commands[i].summary);
		assert_ptr_equal(find_command(dstadm_commands[i].name), &dstadm_commands[i]);
	}
	assert_null(find_command("nope"));
}

/* ---- addresses ---- */

static void roundtrip(const char *in, const char *out, int family)
{
	struct sockaddr_storage ss, ss2;
	char buf[ADDR_STRLEN];
	socklen_t len, len2;

	assert_int_equal(parse_addr(in, &ss, &len), 0);
	assert_int_equal(ss.ss_family, family);
	assert_int_equal(len, family == AF_INET ? sizeof(struct sockaddr_in) :
			 sizeof(struct sockaddr_in6));
	assert_int_equal(format_addr(&ss, len, buf, sizeof(buf)), 0);
	assert_string_equal(buf, out ? out : in);
	assert_int_equal(parse_addr(buf, &ss2, &len2), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(&ss, &ss2, len);
}

static void test_addr_roundtrip(void **state)
{
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;
	struct sockaddr_storage ss;
	char buf[ADDR_STRLEN], want[ADDR_STRLEN];
	unsigned int lo;
	socklen_t len;

	(void)state;
	roundtrip("127.0.0.1:7000", NULL, AF_INET);
	roundtrip("0.0.0.0:1", NULL, AF_INET);
	roundtrip("255.255.255.255:65535", NULL, AF_INET);
	roundtrip("[::1]:7000", NULL, AF_INET6);
	roundtrip("[::]:65535", NULL, AF_INET6);
	roundtrip("[2001:db8::1]:443", NULL, AF_INET6);
	roundtrip("[2001:DB8:0:0::1]:443", "[2001:db8::1]:443", AF_INET6);
	roundtrip("[::ffff:192.0.2.1]:80", NULL, AF_INET6);

	assert_int_equal(parse_addr("192.0.2.1:7000", &ss, &len), 0);
	sin = (const struct sockaddr_in *)&ss;
	assert_int_equal(sin->sin_port, htons(7000));
	assert_int_equal(sin->sin_addr.s_addr, htonl(0xc0000201));

	assert_int_equal(parse_addr("[::1]:7001", &ss, &len), 0);
	sin6 = (const struct sockaddr_in6 *)&ss;
	assert_int_equal(sin6->sin6_port, htons(7001));
	assert_int_equal(sin6->sin6_scope_id, 0);

	/* Link-local with a scope, by index and by name. */
	assert_int_equal(parse_addr("[fe80::1%1]:7000", &ss, &len), 0);
	assert_int_equal(sin6->sin6_scope_id, 1);
	lo = if_nametoindex("lo");
	if (lo) {
		assert_int_equal(parse_addr("[fe80::1%lo]:7000", &ss, &len), 0);
		assert_int_equal(sin6->sin6_scope_id, lo);
		assert_int_equal(format_addr(&ss, len, buf, sizeof(buf)), 0);
		assert_string_equal(buf, "[fe80::1%lo]:7000");
	}
	/* A scope without an interface is shown by number. */
	sin6 = (const struct sockaddr_in6 *)&ss;
	((struct sockaddr_in6 *)&ss)->sin6_scope_id = 999999;
	assert_int_equal(format_addr(&ss, len, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "[fe80::1%%%u]:7000", 999999);
	assert_string_equal(buf, want);
}

static void test_addr_reject(void **state)
{
	static const struct {
		const char *s;
		int err;	/* 0: any */
	} bad[] = {
		{ "", ADDR_E_NOPORT },
		{ "1.2.3.4", ADDR_E_NOPORT },
		{ "1.2.3.4:", ADDR_E_NOPORT },
		{ "[::1]", ADDR_E_NOPORT },
		{ "[::1]:", ADDR_E_NOPORT },
		{ ":7000", ADDR_E_NOHOST },
		{ "[]:7000", ADDR_E_NOHOST },
		{ "1.2.3.4:0", ADDR_E_PORT },
		{ "1.2.3.4:65536", ADDR_E_PORT },
		{ "1.2.3.4:99999", ADDR_E_PORT },
		{ "1.2.3.4:123456", ADDR_E_PORT },
		{ "1.2.3.4:-1", ADDR_E_PORT },
		{ "1.2.3.4:+80", ADDR_E_PORT },
		{ "1.2.3.4: 80", ADDR_E_PORT },
		{ "1.2.3.4:80 ", ADDR_E_PORT },
		{ "1.2.3.4:80x", ADDR_E_PORT },
		{ "1.2.3.4:0x50", ADDR_E_PORT },
		{ "1.2.3.4:http", ADDR_E_PORT },
		{ "[::1]:7000x", ADDR_E_PORT },
		{ "[::1]:7000]", ADDR_E_PORT },
		{ "::1:7000", ADDR_E_IPV6 },
		{ "::1", ADDR_E_IPV6 },
		{ "1.2.3.4:80:90", ADDR_E_IPV6 },
		{ "fe80::1%lo:80", ADDR_E_IPV6 },
		{ "[::1]7000", ADDR_E_SYNTAX },
		{ "[::1:7000", ADDR_E_SYNTAX },
		{ "1.2.3.4]:80", ADDR_E_SYNTAX },
		{ "[::1]]:80", ADDR_E_SYNTAX },
		{ "[1.2.3.4]:80", ADDR_E_HOST },
		{ "[[::1]]:80", ADDR_E_SYNTAX },
		{ "1.2.3.4x:80", ADDR_E_HOST },
		{ "127.1:80", ADDR_E_HOST },
		{ "1.2.3.256:80", ADDR_E_HOST },
		{ " 1.2.3.4:80", ADDR_E_HOST },
		{ "localhost:80", ADDR_E_HOST },
		{ "[fe80::1%nosuchif0]:80", ADDR_E_HOST },
		{ "[fe80::1%]:80", ADDR_E_HOST },
		{ "[::g]:80", ADDR_E_HOST },
		{ "[%lo]:80", ADDR_E_HOST },
	};
	char big[4096];
	struct sockaddr_storage ss;
	socklen_t len;
	size_t i;
	int err;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = parse_addr(bad[i].s, &ss, &len);
		if (err != -bad[i].err)
			fail_msg("'%s': %d, expected %d", bad[i].s, err, -bad[i].err);
		assert_non_null(addr_strerror(err));
	}
	/* Over-long, with or without a valid end. */
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(parse_addr(big, &ss, &len), -ADDR_E_LONG);
	memcpy(big + sizeof(big) - 6, ":7000", 6);
	assert_int_equal(parse_addr(big, &ss, &len), -ADDR_E_LONG);
	memset(big, ' ', ADDR_STRLEN);
	memcpy(big + ADDR_STRLEN - 12, "1.2.3.4:7000", 13);
	assert_int_equal(parse_addr(big, &ss, &len), -ADDR_E_LONG);
	assert_string_equal(addr_strerror(0), "invalid address");
	assert_string_equal(addr_strerror(-1000), "invalid address");
}

static void test_format_addr_errors(void **state)
{
	struct sockaddr_storage ss;
	char buf[ADDR_STRLEN];
	socklen_t len;

	(void)state;
	assert_int_equal(parse_addr("192.0.2.1:7000", &ss, &len), 0);
	assert_int_equal(format_addr(&ss, len + 1, buf, sizeof(buf)), -1);
	assert_int_equal(format_addr(&ss, sizeof(struct sockaddr_in6), buf, sizeof(buf)), -1);
	assert_int_equal(format_addr(&ss, len, buf, 8), -1);
	assert_int_equal(format_addr(&ss, len, buf, 15), 0);
	assert_string_equal(buf, "192.0.2.1:7000");
	assert_int_equal(format_addr(&ss, len, buf, 14), -1);
	ss.ss_family = AF_UNIX;
	assert_int_equal(format_addr(&ss, len, buf, sizeof(buf)), -1);
	assert_int_equal(parse_addr("[::1]:7000", &ss, &len), 0);
	assert_int_equal(format_addr(&ss, sizeof(struct sockaddr_in), buf, sizeof(buf)), -1);
	assert_int_equal(format_addr(&ss, len, buf, 10), -1);
}

/* ---- argument parsing of the new commands ---- */

static void test_add_parse(void **state)
{
	const struct sockaddr_in *sin;
	struct add_opts o;

	(void)state;
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "127.0.0.1:7000"), EXIT_OK);
	assert_string_equal(o.name, "r0");
	assert_int_equal(o.type, DST_NODE_REMOTE);
	assert_int_equal(o.addr_len, sizeof(struct sockaddr_in));
	sin = (const struct sockaddr_in *)&o.addr;
	assert_int_equal(sin->sin_port, htons(7000));
	assert_int_equal(o.ra.timeout, 0);
	assert_null(o.path);

	assert_int_equal(PARSE(add_parse, &o, "add", "--timeout", "10", "r0", "remote", "[::1]:7"), EXIT_OK);
	assert_int_equal(o.ra.timeout, 10);
	assert_int_equal(o.addr_len, sizeof(struct sockaddr_in6));
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "[::1]:7", "-t", "86400"), EXIT_OK);
	assert_int_equal(o.ra.timeout, 86400);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "[::1]:7", "--timeout=1"), EXIT_OK);
	assert_int_equal(o.ra.timeout, 1);

	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "local", "/dev/sdb"), EXIT_OK);
	assert_int_equal(o.type, DST_NODE_LOCAL);
	assert_string_equal(o.path, "/dev/sdb");

	assert_int_equal(PARSE(add_parse, &o, "add", "-h"), EXIT_OK);
	assert_true(o.help);
}

static void test_add_parse_errors(void **state)
{
	struct add_opts o;

	(void)state;
	assert_int_equal(PARSE(add_parse, &o, "add"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "local"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "local", ""), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "nbd", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "Remote", "1.2.3.4:5"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "::1:7000"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "--timeout"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", "abc"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", "0"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", "86401"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", "4294967296"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t",
			       "99999999999999999999999999"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", "-5"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", " 5"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", "5s"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "remote", "1.2.3.4:5", "-t", ""), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "r0", "local", "/dev/sdb", "-t", "5"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "--bogus", "r0", "local", "/dev/sdb"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "-x", "r0", "local", "/dev/sdb"), EXIT_USAGE);
}

static void test_import_parse(void **state)
{
	struct import_opts o;

	(void)state;
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote", "10.0.0.1:7000"), EXIT_OK);
	assert_string_equal(o.name, "r0");
	assert_string_equal(o.remote, "10.0.0.1:7000");
	assert_int_equal(o.addr.ss_family, AF_INET);
	assert_int_equal(o.ra.timeout, 0);
	assert_int_equal(PARSE(import_parse, &o, "import", ".r", "--remote", "10.0.0.1:7000"),
			 EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "-r", "[::1]:9", "-t", "5", "r1"), EXIT_OK);
	assert_string_equal(o.name, "r1");
	assert_int_equal(o.addr.ss_family, AF_INET6);
	assert_int_equal(o.ra.timeout, 5);
	assert_int_equal(PARSE(import_parse, &o, "import", "--help"), EXIT_OK);
	assert_true(o.help);

	assert_int_equal(PARSE(import_parse, &o, "import"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "--remote", "1.2.3.4:5"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote", "1.2.3.4"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote", "1.2.3.4:5", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote", "1.2.3.4:5", "-t", "0"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote", "1.2.3.4:5", "-t", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote", "1.2.3.4:5", "-t", "1e9"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "--remote", "1.2.3.4:5", "--alg", "mirror"), EXIT_USAGE);
}

/*
 * TLS: --tls alone is PSK and needs the secret; any file is X.509, whose
 * paths are made absolute; a node checks the export by its host unless
 * --tls-name, and needs the CA; an export needs its certificate and key.
 */
static void test_tls_parse(void **state)
{
	struct export_opts e;
	struct import_opts o;
	char cwd[PATH_MAX];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls", "-S", "/s"), EXIT_OK);
	assert_int_equal(tls_mode(&o.ra.tls), DST_TLS_PSK);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000"),
			 EXIT_OK);
	assert_int_equal(tls_mode(&o.ra.tls), DST_TLS_NONE);

	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "[::1]:7000",
			       "--tls-ca", "/dev/null"), EXIT_OK);
	assert_int_equal(tls_mode(&o.ra.tls), DST_TLS_X509);
	assert_string_equal(o.ra.tls.ca, "/dev/null");
	assert_string_equal(o.ra.tls.name, "::1");
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.2:7000",
			       "--tls-ca", ".", "--tls-name", "x.example"), EXIT_OK);
	assert_string_equal(o.ra.tls.ca, cwd);
	assert_string_equal(o.ra.tls.name, "x.example");
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.2:7000",
			       "--tls-ca", "/dev/null"), EXIT_OK);
	assert_string_equal(o.ra.tls.name, "10.0.0.2");
	/* No CA, a certificate without its key, a file that is not there. */
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls-name", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls-ca", "/dev/null", "--tls-cert", "/dev/null"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls-ca", "/nonexistent/ca.pem"), EXIT_USAGE);

	assert_int_equal(PARSE(export_parse, &e, "export", "e0", "-d", "/dev/x", "-l",
			       "127.0.0.1:7000", "--tls-cert", "/dev/null", "--tls-key",
			       "/dev/null"), EXIT_OK);
	assert_int_equal(tls_mode(&e.tls), DST_TLS_X509);
	assert_int_equal(PARSE(export_parse, &e, "export", "e0", "-d", "/dev/x", "-l",
			       "127.0.0.1:7000", "--tls-ca", "/dev/null"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &e, "export", "e0", "-d", "/dev/x", "-l",
			       "127.0.0.1:7000", "--tls"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &e, "export", "e0", "-d", "/dev/x", "-l",
			       "127.0.0.1:7000", "--tls", "-S", "/s"), EXIT_OK);
	assert_int_equal(tls_mode(&e.tls), DST_TLS_PSK);
	assert_int_equal(e.tls.cipher, DST_TLS_CIPHER_ANY);

	/* One cipher: named as the kernel's TLS layer has them, turns TLS on. */
	assert_int_equal(PARSE(export_parse, &e, "export", "e0", "-d", "/dev/x", "-l",
			       "127.0.0.1:7000", "--tls-cipher", "chacha20-poly1305",
			       "-S", "/s"), EXIT_OK);
	assert_int_equal(tls_mode(&e.tls), DST_TLS_PSK);
	assert_int_equal(e.tls.cipher, DST_TLS_CIPHER_CHACHA20_POLY1305);
	/* AES-256-GCM's suite hashes with SHA-384, a PSK with SHA-256. */
	assert_int_equal(PARSE(export_parse, &e, "export", "e0", "-d", "/dev/x", "-l",
			       "127.0.0.1:7000", "--tls-cipher", "aes-256-gcm",
			       "-S", "/s"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls-ca", "/dev/null", "--tls-cipher", "aes-128-gcm"), EXIT_OK);
	assert_int_equal(tls_mode(&o.ra.tls), DST_TLS_X509);
	assert_int_equal(o.ra.tls.cipher, DST_TLS_CIPHER_AES_128_GCM);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls", "-S", "/s", "--tls-cipher", "any"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls", "-S", "/s", "--tls-cipher", "AES-128-GCM"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &o, "import", "r0", "-r", "10.0.0.1:7000",
			       "--tls", "-S", "/s", "--tls-cipher", ""), EXIT_USAGE);
	assert_string_equal(tls_cipher_name(DST_TLS_CIPHER_AES_256_GCM), "aes-256-gcm");
	assert_string_equal(tls_cipher_name(__DST_TLS_CIPHER_MAX), "?");
}

static void test_export_parse(void **state)
{
	struct export_opts o;

	(void)state;
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/ram0",
			       "--listen", "[::1]:7000"), EXIT_OK);
	assert_string_equal(o.name, "e0");
	assert_string_equal(o.device, "/dev/ram0");
	assert_string_equal(o.listen, "[::1]:7000");
	assert_int_equal(o.addr_len, sizeof(struct sockaddr_in6));
	assert_false(o.read_only);
	assert_int_equal(PARSE(export_parse, &o, "export", "-d", "/dev/sdb", "-l", "0.0.0.0:7000",
			       "-r", "e1"), EXIT_OK);
	assert_string_equal(o.name, "e1");
	assert_true(o.read_only);
	assert_int_equal(PARSE(export_parse, &o, "export", "e1", "--read-only", "--device=/dev/sdb",
			       "--listen=1.2.3.4:1"), EXIT_OK);
	assert_true(o.read_only);
	assert_int_equal(PARSE(export_parse, &o, "export", "-h"), EXIT_OK);
	assert_true(o.help);

	assert_int_equal(PARSE(export_parse, &o, "export"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--listen", "1.2.3.4:5"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "", "--listen", "1.2.3.4:5"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x", "--listen", "1.2.3.4:0"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x", "--listen", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "e1", "--device", "/dev/x", "--listen", "1.2.3.4:5"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x", "--listen", "1.2.3.4:5", "--rw"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--read-only=yes", "--device", "/dev/x", "--listen", "1.2.3.4:5"), EXIT_USAGE);
}

static void test_export_security_parse(void **state)
{
	struct export_opts o;
	char buf[64];

	(void)state;
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x",
			       "--listen", "[::]:7000", "--allow", "10.1.2.3/8",
			       "--allow", "2001:db8::1/32,ro", "--allow", "192.0.2.1,rw",
			       "--secret-file", "/etc/dst/e0.key", "--integrity"), EXIT_OK);
	assert_int_equal(o.allow.n, 3);
	assert_int_equal(o.allow.v[0].family, AF_INET);
	assert_int_equal(o.allow.v[0].prefix, 8);
	assert_false(o.allow.v[0].read_only);
	assert_int_equal(format_allow(&o.allow.v[0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "10.0.0.0/8");
	assert_int_equal(o.allow.v[1].family, AF_INET6);
	assert_true(o.allow.v[1].read_only);
	assert_int_equal(format_allow(&o.allow.v[1], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2001:db8::/32");
	assert_int_equal(o.allow.v[2].prefix, 32);
	assert_false(o.allow.v[2].read_only);
	assert_string_equal(o.secret_file, "/etc/dst/e0.key");
	assert_true(o.integrity);
	assert_int_equal(format_allow(&o.allow.v[2], buf, 8), -1);

	static char *const bad[] = { "x", "10.0.0.0/33", "::/129", "10.0.0.0/",
					   "10.0.0.0/08", "10.0.0.0/-1", "10.0.0.1,rx",
					   "", ",ro", "1.2.3.4/1/2", "[::1]", "10.0.0.1,",
					   "10.0.0.1,,ro", "10.0.0.1,ro,rw", "10.0.0.1,name=",
					   "10.0.0.1,name=a,name=b", "10.0.0.1,nam=a" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x",
			  "--listen", "1.2.3.4:5", "--allow", bad[i]) != EXIT_USAGE)
			fail_msg("--allow '%s' accepted", bad[i]);
	/* A certificate name, with X.509 and a CA only. */
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x",
			       "--listen", "1.2.3.4:5", "--allow", "10.0.0.0/8,name=c.example,ro",
			       "--tls-cert", "/dev/null", "--tls-key", "/dev/null",
			       "--tls-ca", "/dev/null"), EXIT_OK);
	assert_string_equal(o.allow.v[0].name, "c.example");
	assert_true(o.allow.v[0].read_only);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x",
			       "--listen", "1.2.3.4:5", "--allow", "10.0.0.0/8,name=c.example",
			       "--tls-cert", "/dev/null", "--tls-key", "/dev/null"), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x",
			       "--listen", "1.2.3.4:5", "--secret-file", ""), EXIT_USAGE);
	assert_int_equal(PARSE(export_parse, &o, "export", "e0", "--device", "/dev/x",
			       "--listen", "1.2.3.4:5", "--integrity=yes"), EXIT_USAGE);
}

static void test_secret_load(void **state)
{
	char dir[] = "/tmp/dstadm-secret-XXXXXX", path[64];
	uint8_t buf[DST_SECRET_MAX];
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("hunter2\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(secret_load(path, buf, &len), 0);
	assert_int_equal(len, 7);
	assert_memory_equal(buf, "hunter2", 7);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(secret_load(path, buf, &len), -1);
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(secret_load(path, buf, &len), -1);
	assert_int_equal(chmod(path, 0600), 0);
	f = fopen(path, "w");
	fputs("\n", f);
	fclose(f);
	assert_int_equal(secret_load(path, buf, &len), -1);
	f = fopen(path, "w");
	for (int i = 0; i < DST_SECRET_MAX + 1; i++)
		fputc('k', f);
	fclose(f);
	assert_int_equal(secret_load(path, buf, &len), -1);
	assert_int_equal(secret_load(dir, buf, &len), -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(secret_load(path, buf, &len), -1);
	assert_int_equal(rmdir(dir), 0);
}

static void test_name_parsers(void **state)
{
	int (*const fns[])(int, char *[], struct name_opts *) = {
		stop_parse, unexport_parse,
	};
	struct name_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		assert_int_equal(PARSE(fns[i], &o, "cmd", "r0"), EXIT_OK);
		assert_string_equal(o.name, "r0");
		assert_false(o.help);
		assert_int_equal(PARSE(fns[i], &o, "cmd", "--", "-r0"), EXIT_OK);
		assert_string_equal(o.name, "-r0");
		assert_int_equal(PARSE(fns[i], &o, "cmd"), EXIT_USAGE);
		assert_int_equal(PARSE(fns[i], &o, "cmd", "a", "b"), EXIT_USAGE);
		assert_int_equal(PARSE(fns[i], &o, "cmd", "--force", "a"), EXIT_USAGE);
		assert_int_equal(PARSE(fns[i], &o, "cmd", "-f", "a"), EXIT_USAGE);
		assert_int_equal(PARSE(fns[i], &o, "cmd", "--help"), EXIT_OK);
		assert_true(o.help);
	}
}

static void test_main_usage_new(void **state)
{
	static const char *const cmds[] = {
		"add", "start", "stop", "import", "export", "unexport",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(dstadm_main(2, ARGV("dstadm", (char *)cmds[i])), EXIT_USAGE);
		assert_int_equal(dstadm_main(3, ARGV("dstadm", (char *)cmds[i], "--help")), EXIT_OK);
		assert_int_equal(dstadm_main(3, ARGV("dstadm", "help", (char *)cmds[i])), EXIT_OK);
		assert_int_equal(dstadm_main(4, ARGV("dstadm", (char *)cmds[i], "--nope", "x")),
				 EXIT_USAGE);
	}
	assert_int_equal(dstadm_main(5, ARGV("dstadm", "add", "r0", "remote", "1.2.3.4")), EXIT_USAGE);
	assert_int_equal(dstadm_main(4, ARGV("dstadm", "status", "a", "b")), EXIT_USAGE);
}

/*
 * Random argument vectors for the parsers: no crash, no leak, and every
 * result is either a usage error or a complete set of options.
 */
static void test_parse_random_argv(void **state)
{
	static char big[8192];
	char *pool[] = { "create", "x", "--alg", "-a", "linear", "--json", "-j",
			 "-h", "--help", "--", "-", "", "--alg=", "-aj", "-ja", big,
			 "--a", "-x", "r0", "%s%n", "--json=1",
			 "remote", "local", "127.0.0.1:7000", "[::1]:7000", "[fe80::1%lo]:1",
			 "1.2.3.4", "::1:7", "--timeout", "-t", "30", "0", "86401", "-t5",
			 "--timeout=", "--remote", "-r", "--device", "-d", "--listen", "-l",
			 "/dev/ram0", "--read-only", "-rd", "--listen=[::1]:7000", "-l1.2.3.4:5",
			 "--chunk-size", "64K", "--chunk-size=1g", "3000", "--assume-clean",
			 "node1", "node", "7", "--dead-timeout", "--dead-timeout=0",
			 "--reconnect-max", "3601", "--reconnect-max=5" };
	const size_t npool = sizeof(pool) / sizeof(pool[0]);
	struct create_opts co;
	struct delete_opts dopt;
	struct status_opts so;
	struct add_opts ao;
	struct import_opts io;
	struct export_opts eo;
	struct name_opts no;
	struct start_opts sto;
	struct resize_opts rso;
	struct remove_opts ro;
	char *argv[10];
	int i, j, argc, ret;

	(void)state;
	memset(big, 'A', sizeof(big) - 1);
	srandom(12345);
	for (i = 0; i < 20000; i++) {
		argc = 1 + random() % 9;
		argv[0] = "cmd";
		for (j = 1; j < argc; j++)
			argv[j] = pool[random() % npool];
		argv[argc] = NULL;

		ret = create_parse(argc, argv, &co);
		assert_true(ret == EXIT_USAGE ||
			    (ret == EXIT_OK && (co.help || (co.name && co.alg))));
		assert_true(!co.chunk_size ||
			    (co.chunk_size >= DST_CHUNK_MIN && co.chunk_size <= DST_CHUNK_MAX &&
			     !(co.chunk_size & (co.chunk_size - 1))));
		ret = delete_parse(argc, argv, &dopt);
		assert_true(ret == EXIT_USAGE || (ret == EXIT_OK && (dopt.help || dopt.name)));
		ret = status_parse(argc, argv, &so);
		assert_true(ret == EXIT_USAGE || ret == EXIT_OK);
		ret = add_parse(argc, argv, &ao);
		assert_true(ret == EXIT_USAGE ||
			    (ret == EXIT_OK && (ao.help ||
			     (ao.name && ((ao.type == DST_NODE_REMOTE && ao.addr_len && !ao.path) ||
					  (ao.type == DST_NODE_LOCAL && ao.path && *ao.path &&
					   !ao.ra.timeout && !ao.ra.has_dead_timeout &&
					   !ao.ra.reconnect_max))))));
		assert_true(ao.ra.timeout <= DST_MAX_TIMEOUT);
		assert_true(ao.ra.dead_timeout <= DST_MAX_TIMEOUT);
		assert_true(ao.ra.reconnect_max <= DST_MAX_RECONNECT);
		ret = import_parse(argc, argv, &io);
		assert_true(ret == EXIT_USAGE ||
			    (ret == EXIT_OK && (io.help || (io.name && io.remote && io.addr_len))));
		ret = export_parse(argc, argv, &eo);
		assert_true(ret == EXIT_USAGE ||
			    (ret == EXIT_OK && (eo.help || (eo.name && eo.device && *eo.device &&
							    eo.addr_len))));
		ret = start_parse(argc, argv, &sto);
		assert_true(ret == EXIT_USAGE || (ret == EXIT_OK && (sto.help || sto.name)));
		ret = resize_parse(argc, argv, &rso);
		assert_true(ret == EXIT_USAGE || (ret == EXIT_OK && (rso.help || rso.name)));
		ret = remove_parse(argc, argv, &ro);
		assert_true(ret == EXIT_USAGE || (ret == EXIT_OK && (ro.help || ro.node)));
		ret = unexport_parse(argc, argv, &no);
		assert_true(ret == EXIT_USAGE || (ret == EXIT_OK && (no.help || no.name)));
	}
}

static struct nlattr *put_storage(struct nlmsghdr *nlh, const char *name,
				  const char *alg, int with_id)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, DST_A_STORAGE);

	if (name)
		mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, name);
	if (alg)
		mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, alg);
	if (with_id)
		mnl_attr_put_u32(nlh, DST_STORAGE_A_ID, 7);
	mnl_attr_put_u32(nlh, DST_STORAGE_A_STATE, DST_STORAGE_RUNNING);
	mnl_attr_put_u64(nlh, DST_STORAGE_A_SIZE, 1ULL << 40);
	mnl_attr_put_u32(nlh, 200, 1);	/* from a newer module: ignored */
	mnl_attr_nest_end(nlh, nest);
	return nest;
}

static void test_storage_info_parse(void **state)
{
	char buf[4096], longname[64];
	struct storage_info si;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	(void)state;
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_storage(nlh, "r0", "mirror", 1);
	assert_int_equal(storage_info_parse(nest, &si), 0);
	assert_string_equal(si.name, "r0");
	assert_string_equal(si.alg, "mirror");
	assert_int_equal(si.id, 7);
	assert_int_equal(si.state, DST_STORAGE_RUNNING);
	assert_true(si.size == 1ULL << 40);

	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(storage_info_parse(put_storage(nlh, "r0", "mirror", 0), &si), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(storage_info_parse(put_storage(nlh, NULL, "mirror", 1), &si), -1);

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(storage_info_parse(put_storage(nlh, longname, "mirror", 1), &si), -1);

	/* A name without its NUL. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	mnl_attr_put(nlh, DST_STORAGE_A_NAME, 2, "ab");
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(storage_info_parse(nest, &si), -1);
}

typedef void (*text_fn)(FILE *, const struct status_set *, const char *);
typedef int (*json_fn)(FILE *, const struct status_set *, const char *);

/* The output of @text or @json for these storages and exports, or @name. */
static char *capture_name(text_fn text, json_fn json, const struct storage_info *si,
			  size_t n, const struct export_info *ei, size_t ne,
			  const char *name)
{
	const struct status_set set = { si, n, ei, ne };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	if (text)
		text(f, &set, name);
	else
		assert_int_equal(json(f, &set, name), 0);
	fclose(f);
	return out;
}

static char *capture(text_fn text, json_fn json, const struct storage_info *si,
		     size_t n, const struct export_info *ei, size_t ne)
{
	return capture_name(text, json, si, n, ei, ne, NULL);
}

static const struct storage_info sample[] = {
	{ .name = "r0", .alg = "mirror", .id = 0, .state = DST_STORAGE_STOPPED,
	  .chunk_size = 65536 },
	{ .name = "big.vol-1", .alg = "linear", .id = 3, .state = DST_STORAGE_RUNNING,
	  .size = 3ULL << 40 },
	{ .name = "q\"uo\\te", .alg = "linear", .id = 4, .state = 99, .size = 512 },
};

static void test_status_json(void **state)
{
	struct json_object *root, *arr, *o, *v;
	char *out;

	(void)state;
	out = capture(NULL, status_print_json, sample, 3, NULL, 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "storages", &arr));
	assert_int_equal(json_object_array_length(arr), 3);

	o = json_object_array_get_idx(arr, 1);
	assert_true(json_object_object_get_ex(o, "name", &v));
	assert_string_equal(json_object_get_string(v), "big.vol-1");
	assert_true(json_object_object_get_ex(o, "id", &v));
	assert_int_equal(json_object_get_int(v), 3);
	assert_true(json_object_object_get_ex(o, "algorithm", &v));
	assert_string_equal(json_object_get_string(v), "linear");
	assert_true(json_object_object_get_ex(o, "state", &v));
	assert_string_equal(json_object_get_string(v), "running");
	assert_true(json_object_object_get_ex(o, "size", &v));
	assert_true(json_object_get_uint64(v) == 3ULL << 40);
	assert_true(json_object_object_get_ex(o, "device", &v));
	assert_string_equal(json_object_get_string(v), "/dev/dst3");
	assert_true(json_object_object_get_ex(o, "nodes", &v));
	assert_int_equal(json_object_array_length(v), 0);

	o = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(o, "device", &v));
	assert_null(v);

	o = json_object_array_get_idx(arr, 2);
	assert_true(json_object_object_get_ex(o, "name", &v));
	assert_string_equal(json_object_get_string(v), "q\"uo\\te");
	assert_true(json_object_object_get_ex(o, "state", &v));
	assert_string_equal(json_object_get_string(v), "unknown");
	assert_true(json_object_object_get_ex(root, "exports", &arr));
	assert_int_equal(json_object_array_length(arr), 0);
	json_object_put(root);
	free(out);

	out = capture(NULL, status_print_json, sample, 0, NULL, 0);
	root = json_tokener_parse(out);
	assert_true(json_object_object_get_ex(root, "storages", &arr));
	assert_int_equal(json_object_array_length(arr), 0);
	json_object_put(root);
	free(out);
}

static void test_status_text(void **state)
{
	char *out;

	(void)state;
	out = capture(status_print_text, NULL, sample, 2, NULL, 0);
	assert_non_null(strstr(out, "storage: r0\n  algorithm: mirror\n  state: stopped\n  size: 0 B\n"
				    "  chunk size: 64.00 KiB\n"));
	assert_non_null(strstr(out, "\nstorage: big.vol-1 (/dev/dst3)\n  algorithm: linear\n  state: running\n"));
	assert_non_null(strstr(out, "size: 3.00 TiB\n"));
	free(out);
}

/* ---- node and export attributes ---- */

enum {
	N_ID = 1 << 0, N_TYPE = 1 << 1, N_STATE = 1 << 2, N_ADDR = 1 << 3,
	N_PATH = 1 << 4, N_STATS = 1 << 5, N_ALL = N_ID | N_TYPE | N_STATE | N_ADDR | N_STATS,
};

/* A DST_A_NODE nest with the parts in @what. */
static struct nlattr *put_node(struct nlmsghdr *nlh, uint32_t id, uint32_t type,
			       const char *addr, const char *path, unsigned int what)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, DST_A_NODE);
	struct sockaddr_storage ss;
	socklen_t len;

	if (what & N_ID)
		mnl_attr_put_u32(nlh, DST_NODE_A_ID, id);
	if (what & N_TYPE)
		mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, type);
	if ((what & N_ADDR) && addr) {
		assert_int_equal(parse_addr(addr, &ss, &len), 0);
		mnl_attr_put(nlh, DST_NODE_A_ADDR, len, &ss);
	}
	if ((what & N_PATH) && path)
		mnl_attr_put_strz(nlh, DST_NODE_A_PATH, path);
	if (what & N_STATE)
		mnl_attr_put_u32(nlh, DST_NODE_A_STATE, DST_NODE_CONNECTED);
	if (what & N_STATS) {
		mnl_attr_put_u32(nlh, DST_NODE_A_TIMEOUT, 30);
		mnl_attr_put_u64(nlh, DST_NODE_A_SIZE, 1ULL << 30);
		mnl_attr_put_u32(nlh, DST_NODE_A_INFLIGHT, 3);
		mnl_attr_put_u64(nlh, DST_NODE_A_READ_BYTES, 4ULL << 20);
		mnl_attr_put_u64(nlh, DST_NODE_A_WRITE_BYTES, 1ULL << 20);
		mnl_attr_put_u32(nlh, DST_NODE_A_TLS_CIPHER_USED,
				 DST_TLS_CIPHER_CHACHA20_POLY1305);
		mnl_attr_put(nlh, DST_NODE_A_PAD, 0, "");
	}
	mnl_attr_put_u32(nlh, 250, 1);	/* from a newer module: ignored */
	mnl_attr_nest_end(nlh, nest);
	return nest;
}

static void test_node_info_parse(void **state)
{
	static char buf[16384];
	const struct sockaddr_in *sin;
	struct sockaddr_in6 sin6;
	struct node_info ni;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char addr[ADDR_STRLEN];

	(void)state;
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 2, DST_NODE_REMOTE, "127.0.0.1:7000", NULL, N_ALL);
	assert_int_equal(node_info_parse(nest, &ni), 0);
	assert_int_equal(ni.id, 2);
	assert_int_equal(ni.type, DST_NODE_REMOTE);
	assert_int_equal(ni.state, DST_NODE_CONNECTED);
	assert_int_equal(ni.timeout, 30);
	assert_int_equal(ni.inflight, 3);
	assert_true(ni.size == 1ULL << 30);
	assert_true(ni.read_bytes == 4ULL << 20);
	assert_true(ni.write_bytes == 1ULL << 20);
	assert_int_equal(ni.tls_cipher_used, DST_TLS_CIPHER_CHACHA20_POLY1305);
	sin = (const struct sockaddr_in *)&ni.addr;
	assert_int_equal(ni.addr_len, sizeof(*sin));
	assert_int_equal(sin->sin_port, htons(7000));
	assert_int_equal(format_addr(&ni.addr, ni.addr_len, addr, sizeof(addr)), 0);
	assert_string_equal(addr, "127.0.0.1:7000");

	/* Statistics are optional. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 0, DST_NODE_REMOTE, "[::1]:7000", NULL, N_ALL & ~N_STATS);
	assert_int_equal(node_info_parse(nest, &ni), 0);
	assert_int_equal(ni.addr_len, sizeof(struct sockaddr_in6));
	assert_int_equal(ni.inflight, 0);
	assert_int_equal(ni.tls_cipher_used, 0);

	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 1, DST_NODE_LOCAL, NULL, "/dev/sdb", N_ID | N_TYPE | N_STATE | N_PATH);
	assert_int_equal(node_info_parse(nest, &ni), 0);
	assert_int_equal(ni.type, DST_NODE_LOCAL);
	assert_string_equal(ni.path, "/dev/sdb");

	/* A node type of a newer module, without address or path. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 1, 77, NULL, NULL, N_ID | N_TYPE | N_STATE);
	assert_int_equal(node_info_parse(nest, &ni), 0);
	assert_string_equal(node_type_name(ni.type), "unknown");

	/* Missing required attributes. */
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_node(nlh, 0, DST_NODE_REMOTE, "1.2.3.4:5", NULL,
						  N_ALL & ~N_ID), &ni), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_node(nlh, 0, DST_NODE_REMOTE, "1.2.3.4:5", NULL,
						  N_ALL & ~N_TYPE), &ni), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_node(nlh, 0, DST_NODE_REMOTE, "1.2.3.4:5", NULL,
						  N_ALL & ~N_STATE), &ni), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_node(nlh, 0, DST_NODE_REMOTE, "1.2.3.4:5", NULL,
						  N_ALL & ~N_ADDR), &ni), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_node(nlh, 0, DST_NODE_LOCAL, NULL, "/dev/x",
						  N_ID | N_TYPE | N_STATE), &ni), -1);

	/* Malformed: a cipher in use beyond the enum. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, DST_A_NODE);
	mnl_attr_put_u32(nlh, DST_NODE_A_ID, 0);
	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_LOCAL);
	mnl_attr_put_u32(nlh, DST_NODE_A_STATE, 0);
	mnl_attr_put_strz(nlh, DST_NODE_A_PATH, "/dev/x");
	mnl_attr_put_u32(nlh, DST_NODE_A_TLS_CIPHER_USED, __DST_TLS_CIPHER_MAX);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(node_info_parse(nest, &ni), -1);

	/* Malformed: addresses of the wrong length or family. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, DST_A_NODE);
	mnl_attr_put_u32(nlh, DST_NODE_A_ID, 0);
	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_REMOTE);
	mnl_attr_put_u32(nlh, DST_NODE_A_STATE, 0);
	mnl_attr_put(nlh, DST_NODE_A_ADDR, 5, "\x02\x00\x1b\x58\x7f");
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(node_info_parse(nest, &ni), -1);

	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET;	/* the length of an IPv6 address */
	sin6.sin6_port = htons(7);
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, DST_A_NODE);
	mnl_attr_put_u32(nlh, DST_NODE_A_ID, 0);
	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_REMOTE);
	mnl_attr_put_u32(nlh, DST_NODE_A_STATE, 0);
	mnl_attr_put(nlh, DST_NODE_A_ADDR, sizeof(sin6), &sin6);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(node_info_parse(nest, &ni), -1);

	/* A longer, too long and an empty address. */
	{
		char big[sizeof(struct sockaddr_storage) + 8];

		memset(big, 0, sizeof(big));
		big[0] = AF_INET6;
		nlh = mnl_nlmsg_put_header(buf);
		nest = mnl_attr_nest_start(nlh, DST_A_NODE);
		mnl_attr_put_u32(nlh, DST_NODE_A_ID, 0);
		mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_REMOTE);
		mnl_attr_put_u32(nlh, DST_NODE_A_STATE, 0);
		mnl_attr_put(nlh, DST_NODE_A_ADDR, sizeof(big), big);
		mnl_attr_nest_end(nlh, nest);
		assert_int_equal(node_info_parse(nest, &ni), -1);

		nlh = mnl_nlmsg_put_header(buf);
		nest = mnl_attr_nest_start(nlh, DST_A_NODE);
		mnl_attr_put_u32(nlh, DST_NODE_A_ID, 0);
		mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_REMOTE);
		mnl_attr_put_u32(nlh, DST_NODE_A_STATE, 0);
		mnl_attr_put(nlh, DST_NODE_A_ADDR, 0, "");
		mnl_attr_nest_end(nlh, nest);
		assert_int_equal(node_info_parse(nest, &ni), -1);
	}

	/* Integers of the wrong size. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 0, DST_NODE_REMOTE, "1.2.3.4:5", NULL, N_ALL & ~N_STATS);
	mnl_attr_put_u32(nlh, DST_NODE_A_SIZE, 1);	/* u64 as u32 */
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(node_info_parse(nest, &ni), -1);
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 0, DST_NODE_REMOTE, "1.2.3.4:5", NULL, N_ALL & ~N_STATS);
	mnl_attr_put_u64(nlh, DST_NODE_A_INFLIGHT, 1);	/* u32 as u64 */
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(node_info_parse(nest, &ni), -1);
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 0, DST_NODE_REMOTE, "1.2.3.4:5", NULL, N_ALL & ~N_STATS);
	mnl_attr_put(nlh, DST_NODE_A_TIMEOUT, 2, "\x01\x02");
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(node_info_parse(nest, &ni), -1);

	/* A path without its NUL, and one too long. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_node(nlh, 0, DST_NODE_LOCAL, NULL, NULL, N_ID | N_TYPE | N_STATE);
	mnl_attr_put(nlh, DST_NODE_A_PATH, 4, "/dev");
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(node_info_parse(nest, &ni), -1);
	{
		char longpath[PATH_MAX + 10];

		memset(longpath, 'p', sizeof(longpath) - 1);
		longpath[sizeof(longpath) - 1] = '\0';
		nlh = mnl_nlmsg_put_header(buf);
		nest = put_node(nlh, 0, DST_NODE_LOCAL, NULL, longpath,
				N_ID | N_TYPE | N_STATE | N_PATH);
		assert_int_equal(node_info_parse(nest, &ni), -1);
	}
}

/* A storage nest whose NODES hold @n nodes; a bad node if @bad >= 0. */
static struct nlattr *put_storage_nodes(struct nlmsghdr *nlh, int n, int bad)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, DST_A_STORAGE), *nodes;
	char addr[32];
	int i;

	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "r0");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "linear");
	mnl_attr_put_u32(nlh, DST_STORAGE_A_ID, 0);
	mnl_attr_put_u32(nlh, DST_STORAGE_A_STATE, DST_STORAGE_RUNNING);
	mnl_attr_put_u64(nlh, DST_STORAGE_A_SIZE, (uint64_t)n << 30);
	nodes = mnl_attr_nest_start(nlh, DST_STORAGE_A_NODES);
	for (i = 0; i < n; i++) {
		snprintf(addr, sizeof(addr), "10.0.0.%d:7000", i + 1);
		put_node(nlh, i, DST_NODE_REMOTE, addr, NULL, i == bad ? N_ALL & ~N_STATE : N_ALL);
	}
	mnl_attr_put_u32(nlh, 99, 0);	/* not a node: skipped */
	mnl_attr_nest_end(nlh, nodes);
	mnl_attr_nest_end(nlh, nest);
	return nest;
}

static void test_storage_nodes_parse(void **state)
{
	static char buf[65536];
	struct storage_info si;
	struct nlmsghdr *nlh;
	char addr[ADDR_STRLEN];

	(void)state;
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(storage_info_parse(put_storage_nodes(nlh, 3, -1), &si), 0);
	assert_int_equal(si.nnodes, 3);
	assert_int_equal(si.nodes[2].id, 2);
	assert_int_equal(format_addr(&si.nodes[2].addr, si.nodes[2].addr_len, addr,
				     sizeof(addr)), 0);
	assert_string_equal(addr, "10.0.0.3:7000");
	storage_info_free(&si);
	assert_null(si.nodes);

	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(storage_info_parse(put_storage_nodes(nlh, 0, -1), &si), 0);
	assert_int_equal(si.nnodes, 0);
	storage_info_free(&si);

	/* One bad node rejects the storage, without a leak. */
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(storage_info_parse(put_storage_nodes(nlh, 3, 1), &si), -1);
	assert_null(si.nodes);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(storage_info_parse(put_storage_nodes(nlh, 1, 0), &si), -1);
}

enum {
	E_NAME = 1 << 0, E_DEV = 1 << 1, E_ADDR = 1 << 2, E_RO = 1 << 3, E_STATS = 1 << 4,
	E_ALL = E_NAME | E_DEV | E_ADDR | E_STATS,
};

static struct nlattr *put_export(struct nlmsghdr *nlh, const char *name,
				 const char *addr, unsigned int what)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, DST_A_EXPORT);
	struct sockaddr_storage ss;
	socklen_t len;

	if (what & E_NAME)
		mnl_attr_put_strz(nlh, DST_EXPORT_A_NAME, name);
	if (what & E_DEV)
		mnl_attr_put_strz(nlh, DST_EXPORT_A_DEVICE, "/dev/ram0");
	if (what & E_ADDR) {
		assert_int_equal(parse_addr(addr, &ss, &len), 0);
		mnl_attr_put(nlh, DST_EXPORT_A_ADDR, len, &ss);
	}
	if (what & E_RO)
		mnl_attr_put(nlh, DST_EXPORT_A_READ_ONLY, 0, "");
	if (what & E_STATS) {
		mnl_attr_put_u64(nlh, DST_EXPORT_A_SIZE, 1ULL << 30);
		mnl_attr_put_u32(nlh, DST_EXPORT_A_CLIENTS, 1);
		mnl_attr_put_u64(nlh, DST_EXPORT_A_REFUSED, 5);
	}
	mnl_attr_put_strz(nlh, 300, "new");	/* from a newer module: ignored */
	mnl_attr_nest_end(nlh, nest);
	return nest;
}

static void test_export_info_parse(void **state)
{
	static char buf[8192];
	struct export_info ei;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char addr[ADDR_STRLEN];

	(void)state;
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(export_info_parse(put_export(nlh, "e0", "[::1]:7000", E_ALL), &ei), 0);
	assert_string_equal(ei.name, "e0");
	assert_string_equal(ei.device, "/dev/ram0");
	assert_false(ei.read_only);
	assert_true(ei.size == 1ULL << 30);
	assert_int_equal(ei.clients, 1);
	assert_int_equal(ei.refused, 5);
	assert_int_equal(format_addr(&ei.addr, ei.addr_len, addr, sizeof(addr)), 0);
	assert_string_equal(addr, "[::1]:7000");

	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(export_info_parse(put_export(nlh, "e1", "0.0.0.0:1",
						      E_NAME | E_DEV | E_ADDR | E_RO), &ei), 0);
	assert_true(ei.read_only);
	assert_int_equal(ei.clients, 0);

	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(export_info_parse(put_export(nlh, "e", "1.2.3.4:5", E_ALL & ~E_NAME), &ei), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(export_info_parse(put_export(nlh, "e", "1.2.3.4:5", E_ALL & ~E_DEV), &ei), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(export_info_parse(put_export(nlh, "e", "1.2.3.4:5", E_ALL & ~E_ADDR), &ei), -1);
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(export_info_parse(put_export(nlh, "a-name-that-is-much-too-long-for-dst",
						      "1.2.3.4:5", E_ALL), &ei), -1);

	/* A flag with a payload, an address of the wrong length. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_export(nlh, "e", "1.2.3.4:5", E_ALL);
	mnl_attr_put_u32(nlh, DST_EXPORT_A_READ_ONLY, 1);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(export_info_parse(nest, &ei), -1);
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_export(nlh, "e", "1.2.3.4:5", E_ALL & ~E_ADDR);
	mnl_attr_put(nlh, DST_EXPORT_A_ADDR, 15, "\x02\x00\x00\x05\x01\x02\x03\x04\0\0\0\0\0\0\0");
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(export_info_parse(nest, &ei), -1);
	nlh = mnl_nlmsg_put_header(buf);
	nest = put_export(nlh, "e", "1.2.3.4:5", E_ALL & ~E_STATS);
	mnl_attr_put_u32(nlh, DST_EXPORT_A_REFUSED, 1);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(export_info_parse(nest, &ei), -1);
}

/* A reply message of the dst family, as the kernel would send it. */
static struct nlmsghdr *reply_msg(char *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = 0x20;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = DST_GENL_VERSION;
	return nlh;
}

static void test_reply_callbacks(void **state)
{
	static char buf[65536];
	struct storage_list sl = { NULL, 0, 0 };
	struct export_list el = { NULL, 0, 0 };
	struct nlmsghdr *nlh;
	int i;

	(void)state;
	/* Many replies: the lists grow; unknown top-level attributes are skipped. */
	for (i = 0; i < 40; i++) {
		nlh = reply_msg(buf, DST_CMD_STORAGE_GET);
		mnl_attr_put_u32(nlh, 100, 1);
		put_storage_nodes(nlh, i % 3, -1);
		assert_int_equal(storage_list_cb(nlh, &sl), MNL_CB_OK);

		nlh = reply_msg(buf, DST_CMD_EXPORT_GET);
		put_export(nlh, "e0", "[::1]:7000", E_ALL);
		mnl_attr_put_u32(nlh, 100, 1);
		assert_int_equal(export_list_cb(nlh, &el), MNL_CB_OK);
	}
	assert_int_equal(sl.n, 40);
	assert_int_equal(sl.v[39].nnodes, 0);
	assert_int_equal(sl.v[38].nnodes, 2);
	assert_int_equal(el.n, 40);

	/* A malformed reply is rejected with EPROTO. */
	nlh = reply_msg(buf, DST_CMD_STORAGE_GET);
	put_storage_nodes(nlh, 2, 1);
	errno = 0;
	assert_int_equal(storage_list_cb(nlh, &sl), MNL_CB_ERROR);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(sl.n, 40);

	nlh = reply_msg(buf, DST_CMD_EXPORT_GET);
	put_export(nlh, "e0", "[::1]:7000", E_ALL & ~E_DEV);
	errno = 0;
	assert_int_equal(export_list_cb(nlh, &el), MNL_CB_ERROR);
	assert_int_equal(errno, EPROTO);

	/* A nest whose length runs past the message is not read past it. */
	nlh = reply_msg(buf, DST_CMD_EXPORT_GET);
	put_export(nlh, "e1", "1.2.3.4:5", E_ALL);
	nlh->nlmsg_len -= 8;
	assert_int_equal(export_list_cb(nlh, &el), MNL_CB_OK);
	assert_int_equal(el.n, 40);

	storage_list_free(&sl);
	assert_null(sl.v);
	free(el.v);
}

/* ---- status output with nodes and exports ---- */

static void sample_full(struct storage_info *si, struct node_info *ni,
			struct export_info *ei)
{
	memset(si, 0, 2 * sizeof(*si));
	memset(ni, 0, 2 * sizeof(*ni));
	memset(ei, 0, 2 * sizeof(*ei));
	strcpy(si[0].name, "r0");
	strcpy(si[0].alg, "linear");
	si[0].id = 0;
	si[0].state = DST_STORAGE_RUNNING;
	si[0].size = 1ULL << 30;
	si[0].nodes = ni;
	si[0].nnodes = 2;
	ni[0].id = 0;
	ni[0].type = DST_NODE_REMOTE;
	ni[0].state = DST_NODE_CONNECTED;
	ni[0].size = 1ULL << 30;
	ni[0].read_bytes = 4ULL << 20;
	ni[0].write_bytes = 1ULL << 20;
	ni[0].timeout = 30;
	assert_int_equal(parse_addr("127.0.0.1:7000", &ni[0].addr, &ni[0].addr_len), 0);
	ni[1].id = 1;
	ni[1].type = DST_NODE_LOCAL;
	ni[1].state = DST_NODE_DEAD;
	ni[1].inflight = 2;
	strcpy(ni[1].path, "/dev/sdb");
	strcpy(si[1].name, "s1");
	strcpy(si[1].alg, "mirror");
	si[1].id = 4;
	si[1].state = DST_STORAGE_STOPPED;

	strcpy(ei[0].name, "e0");
	strcpy(ei[0].device, "/dev/ram0");
	assert_int_equal(parse_addr("[::1]:7000", &ei[0].addr, &ei[0].addr_len), 0);
	ei[0].size = 1ULL << 30;
	ei[0].clients = 1;
	ei[0].auth = true;
	ei[0].integrity = true;
	ei[0].shared = true;
	ei[0].denied = 2;
	ei[0].auth_failed = 3;
	ei[0].crc_errors = 4;
	ei[0].has_allow = true;
	assert_int_equal(parse_allow("10.0.0.0/8", &ei[0].allow.v[0]), 0);
	assert_int_equal(parse_allow("2001:db8::/32", &ei[0].allow.v[1]), 0);
	ei[0].allow.v[1].read_only = true;
	ei[0].allow.n = 2;
	assert_int_equal(parse_addr("10.1.2.3:40000", &ei[0].client[0].addr,
				    &ei[0].client[0].addr_len), 0);
	ei[0].client[0].auth = true;
	ei[0].client[0].integrity = true;
	ei[0].nclient = 1;
	strcpy(ei[1].name, "r0");	/* a namespace of its own */
	strcpy(ei[1].device, "/dev/\"q\"");
	assert_int_equal(parse_addr("0.0.0.0:7001", &ei[1].addr, &ei[1].addr_len), 0);
	ei[1].read_only = true;
	ei[1].refused = 12345678901ULL;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static uint64_t get_num(struct json_object *o, const char *key)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_uint64(v);
}

static bool get_bool(struct json_object *o, const char *key)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	assert_true(json_object_is_type(v, json_type_boolean));
	return json_object_get_boolean(v);
}

static void test_status_json_full(void **state)
{
	struct json_object *root, *arr, *nodes, *o, *v;
	struct storage_info si[2];
	struct node_info ni[2];
	struct export_info ei[2];
	char *out;

	(void)state;
	sample_full(si, ni, ei);
	out = capture(NULL, status_print_json, si, 2, ei, 2);
	root = json_tokener_parse(out);
	assert_non_null(root);

	assert_true(json_object_object_get_ex(root, "storages", &arr));
	assert_int_equal(json_object_array_length(arr), 2);
	o = json_object_array_get_idx(arr, 0);
	assert_string_equal(get_str(o, "name"), "r0");
	assert_string_equal(get_str(o, "device"), "/dev/dst0");
	assert_string_equal(get_str(o, "state"), "running");
	assert_true(json_object_object_get_ex(o, "nodes", &nodes));
	assert_int_equal(json_object_array_length(nodes), 2);
	v = json_object_array_get_idx(nodes, 0);
	assert_int_equal(get_num(v, "id"), 0);
	assert_string_equal(get_str(v, "type"), "remote");
	assert_string_equal(get_str(v, "address"), "127.0.0.1:7000");
	assert_false(json_object_object_get_ex(v, "path", NULL));
	assert_string_equal(get_str(v, "state"), "connected");
	assert_true(get_num(v, "size") == 1ULL << 30);
	assert_int_equal(get_num(v, "inflight"), 0);
	assert_true(get_num(v, "read_bytes") == 4ULL << 20);
	assert_true(get_num(v, "write_bytes") == 1ULL << 20);
	assert_int_equal(get_num(v, "timeout"), 30);
	assert_int_equal(get_num(v, "dead_timeout"), 0);
	assert_int_equal(get_num(v, "reconnects"), 0);
	v = json_object_array_get_idx(nodes, 1);
	{
		struct json_object *n;

		assert_true(json_object_object_get_ex(v, "reconnects", &n));
		assert_null(n);
	}
	assert_string_equal(get_str(v, "type"), "local");
	assert_string_equal(get_str(v, "path"), "/dev/sdb");
	assert_false(json_object_object_get_ex(v, "address", NULL));
	assert_string_equal(get_str(v, "state"), "dead");
	assert_int_equal(get_num(v, "inflight"), 2);
	o = json_object_array_get_idx(arr, 1);
	assert_true(json_object_object_get_ex(o, "device", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "nodes", &nodes));
	assert_int_equal(json_object_array_length(nodes), 0);

	assert_true(json_object_object_get_ex(root, "exports", &arr));
	assert_int_equal(json_object_array_length(arr), 2);
	o = json_object_array_get_idx(arr, 0);
	assert_string_equal(get_str(o, "name"), "e0");
	assert_string_equal(get_str(o, "device"), "/dev/ram0");
	assert_string_equal(get_str(o, "listen"), "[::1]:7000");
	assert_false(get_bool(o, "read_only"));
	assert_true(get_num(o, "size") == 1ULL << 30);
	assert_int_equal(get_num(o, "clients"), 1);
	assert_int_equal(get_num(o, "refused"), 0);
	assert_int_equal(get_num(o, "denied"), 2);
	assert_int_equal(get_num(o, "auth_failed"), 3);
	assert_int_equal(get_num(o, "crc_errors"), 4);
	assert_true(get_bool(o, "secret"));
	assert_string_equal(get_str(o, "integrity"), "crc32c");
	assert_true(get_bool(o, "shared"));
	assert_true(json_object_object_get_ex(o, "allow", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_string_equal(get_str(json_object_array_get_idx(v, 1), "prefix"), "2001:db8::/32");
	assert_true(get_bool(json_object_array_get_idx(v, 1), "read_only"));
	assert_true(json_object_object_get_ex(o, "client_list", &v));
	assert_int_equal(json_object_array_length(v), 1);
	assert_string_equal(get_str(json_object_array_get_idx(v, 0), "address"), "10.1.2.3:40000");
	o = json_object_array_get_idx(arr, 1);
	assert_string_equal(get_str(o, "name"), "r0");
	assert_string_equal(get_str(o, "device"), "/dev/\"q\"");
	assert_string_equal(get_str(o, "listen"), "0.0.0.0:7001");
	assert_true(get_bool(o, "read_only"));
	assert_true(get_num(o, "refused") == 12345678901ULL);
	assert_true(json_object_object_get_ex(o, "allow", &v));
	assert_null(v);
	json_object_put(root);
	free(out);

	/* Only exports. */
	out = capture(NULL, status_print_json, NULL, 0, ei, 1);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "storages", &arr));
	assert_int_equal(json_object_array_length(arr), 0);
	assert_true(json_object_object_get_ex(root, "exports", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	json_object_put(root);
	free(out);
}

static void test_status_text_full(void **state)
{
	struct storage_info si[2];
	struct node_info ni[2];
	struct export_info ei[2];
	char *out;

	(void)state;
	sample_full(si, ni, ei);
	out = capture(status_print_text, NULL, si, 2, ei, 2);
	assert_string_equal(out,
		"storage: r0 (/dev/dst0)\n"
		"  algorithm: linear\n"
		"  state: running\n"
		"  size: 1.00 GiB\n"
		"  |- node0: remote 127.0.0.1:7000\n"
		"  |    state: connected\n"
		"  |    size: 1.00 GiB\n"
		"  |    in flight: 0\n"
		"  |    timeout: 30 s, dead timeout: 0 s, reconnects: 0\n"
		"  |    secret: no, integrity: none, tls: none, checksum errors: 0\n"
		"  |    read: 4.00 MiB, written: 1.00 MiB\n"
		"  `- node1: local /dev/sdb\n"
		"       state: dead\n"
		"       size: 0 B\n"
		"       in flight: 2\n"
		"       read: 0 B, written: 0 B\n"
		"\n"
		"storage: s1\n"
		"  algorithm: mirror\n"
		"  state: stopped\n"
		"  size: 0 B\n"
		"\n"
		"export: e0\n"
		"  device: /dev/ram0\n"
		"  listen: [::1]:7000\n"
		"  read-only: no\n"
		"  size: 1.00 GiB\n"
		"  secret: yes\n"
		"  integrity: crc32c\n"
		"  tls: none\n"
		"  writers: shared\n"
		"  allow: 10.0.0.0/8\n"
		"  allow: 2001:db8::/32 read-only\n"
		"  clients: 1\n"
		"    10.1.2.3:40000 secret crc32c\n"
		"  refused: 0 bad input, 2 not allowed, 3 failed authentication\n"
		"  checksum errors: 4\n"
		"\n"
		"export: r0\n"
		"  device: /dev/\"q\"\n"
		"  listen: 0.0.0.0:7001\n"
		"  read-only: yes\n"
		"  size: 0 B\n"
		"  secret: no\n"
		"  integrity: none\n"
		"  tls: none\n"
		"  writers: one at a time\n"
		"  allow: loopback only (no allow list)\n"
		"  clients: 0\n"
		"  refused: 12345678901 bad input, 0 not allowed, 0 failed authentication\n"
		"  checksum errors: 0\n");
	free(out);

	out = capture(status_print_text, NULL, NULL, 0, ei, 1);
	assert_true(strncmp(out, "export: e0\n  device: /dev/ram0\n", 31) == 0);
	free(out);
	out = capture(status_print_text, NULL, NULL, 0, NULL, 0);
	assert_string_equal(out, "");
	free(out);
}

/* ---- arrays: chunk size, assume-clean, remove, mirror state ---- */

static void test_parse_size(void **state)
{
	static const struct { const char *in; uint64_t out; } good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 },
		{ "64KiB", 65536 }, { "1m", 1 << 20 }, { "1MB", 1 << 20 },
		{ "2G", 2ULL << 30 }, { "3t", 3ULL << 40 },
		{ "18446744073709551615", UINT64_MAX },
		{ "16777215T", 16777215ULL << 40 },
	};
	static const char *const bad[] = {
		"", "k", "-1", "+1", " 1", "1 ", "1x", "1KK", "1KiBx", "1P",
		"18446744073709551616", "16777216T", "0x10", "1.5M", "1iB",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(parse_size(good[i].in, &v), 0);
		assert_true(v == good[i].out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_size(bad[i], &v), -1);
}

static void test_create_chunk_size(void **state)
{
	static const char *const bad[] = {
		"3000", "2K", "0", "6K", "2G", "1T", "x", "", "4097",
	};
	struct create_opts o;
	size_t i;

	(void)state;
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "--alg", "mirror"), EXIT_OK);
	assert_int_equal(o.chunk_size, 0);
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "--alg", "mirror",
			       "--chunk-size", "64K"), EXIT_OK);
	assert_int_equal(o.chunk_size, 65536);
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--chunk-size=4096"), EXIT_OK);
	assert_int_equal(o.chunk_size, DST_CHUNK_MIN);
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--chunk-size", "1G"), EXIT_OK);
	assert_int_equal(o.chunk_size, DST_CHUNK_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
				       "--chunk-size", (char *)bad[i]), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &o, "create", "m", "-a", "mirror",
			       "--chunk-size"), EXIT_USAGE);
}

static void test_start_parse(void **state)
{
	struct start_opts o;

	(void)state;
	assert_int_equal(PARSE(start_parse, &o, "start", "m"), EXIT_OK);
	assert_string_equal(o.name, "m");
	assert_false(o.assume_clean);
	assert_int_equal(PARSE(start_parse, &o, "start", "--assume-clean", "m"), EXIT_OK);
	assert_string_equal(o.name, "m");
	assert_true(o.assume_clean);
	assert_int_equal(PARSE(start_parse, &o, "start", "m", "--assume-clean"), EXIT_OK);
	assert_true(o.assume_clean);
	assert_int_equal(PARSE(start_parse, &o, "start"), EXIT_USAGE);
	assert_int_equal(PARSE(start_parse, &o, "start", "a", "b"), EXIT_USAGE);
	assert_int_equal(PARSE(start_parse, &o, "start", "--assume-clean=1", "a"), EXIT_USAGE);
	assert_int_equal(PARSE(start_parse, &o, "start", "-A", "a"), EXIT_OK);
	assert_true(o.assume_clean);
	assert_int_equal(PARSE(start_parse, &o, "start", "-h"), EXIT_OK);
	assert_true(o.help);
}

static void test_resize_parse(void **state)
{
	struct resize_opts o;

	(void)state;
	assert_int_equal(PARSE(resize_parse, &o, "resize", "m"), EXIT_OK);
	assert_string_equal(o.name, "m");
	assert_false(o.assume_clean);
	assert_int_equal(PARSE(resize_parse, &o, "resize", "-A", "m"), EXIT_OK);
	assert_true(o.assume_clean);
	assert_int_equal(PARSE(resize_parse, &o, "resize", "m", "--assume-clean"), EXIT_OK);
	assert_true(o.assume_clean);
	assert_int_equal(PARSE(resize_parse, &o, "resize"), EXIT_USAGE);
	assert_int_equal(PARSE(resize_parse, &o, "resize", "a", "b"), EXIT_USAGE);
	assert_int_equal(PARSE(resize_parse, &o, "resize", "--size", "1G", "a"), EXIT_USAGE);
	assert_int_equal(PARSE(resize_parse, &o, "resize", "-h"), EXIT_OK);
	assert_true(o.help);
}

static void test_verify_parse(void **state)
{
	struct verify_opts o;

	(void)state;
	assert_int_equal(PARSE(verify_parse, &o, "verify", "m"), EXIT_OK);
	assert_string_equal(o.name, "m");
	assert_false(o.repair);
	assert_int_equal(PARSE(verify_parse, &o, "verify", "--repair", "m"), EXIT_OK);
	assert_true(o.repair);
	assert_int_equal(PARSE(verify_parse, &o, "verify", "-r", "m"), EXIT_OK);
	assert_true(o.repair);
	assert_int_equal(PARSE(verify_parse, &o, "verify"), EXIT_USAGE);
	assert_int_equal(PARSE(verify_parse, &o, "verify", "a", "b"), EXIT_USAGE);
	assert_int_equal(PARSE(verify_parse, &o, "verify", "--check", "a"), EXIT_USAGE);
}

static void test_remove_parse(void **state)
{
	static const char *const bad[] = {
		"", "node", "nodex", "x1", "-1", "node-1", "1x", "node1 ", "4294967296",
		"Node1",
	};
	struct remove_opts o;
	size_t i;

	(void)state;
	assert_int_equal(PARSE(remove_parse, &o, "remove", "m", "node3"), EXIT_OK);
	assert_string_equal(o.name, "m");
	assert_int_equal(o.id, 3);
	assert_int_equal(PARSE(remove_parse, &o, "remove", "m", "12"), EXIT_OK);
	assert_int_equal(o.id, 12);
	assert_int_equal(PARSE(remove_parse, &o, "remove", "m", "4294967295"), EXIT_OK);
	assert_true(o.id == UINT32_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(PARSE(remove_parse, &o, "remove", "m", (char *)bad[i]),
				 EXIT_USAGE);
	assert_int_equal(PARSE(remove_parse, &o, "remove", "m"), EXIT_USAGE);
	assert_int_equal(PARSE(remove_parse, &o, "remove"), EXIT_USAGE);
	assert_int_equal(PARSE(remove_parse, &o, "remove", "m", "1", "2"), EXIT_USAGE);
	assert_int_equal(PARSE(remove_parse, &o, "remove", "--force", "m", "1"), EXIT_USAGE);
	assert_int_equal(PARSE(remove_parse, &o, "remove", "--help"), EXIT_OK);
	assert_true(o.help);
	assert_int_equal(dstadm_main(3, ARGV("dstadm", "remove", "m")), EXIT_USAGE);
}

enum { M_SYNC = 1, M_REGIONS = 2, M_DIRTY = 4, M_ALL = 7 };

/* A local node nest with the mirror leg attributes in @what. */
static struct nlattr *put_leg(struct nlmsghdr *nlh, unsigned int what, uint32_t sync,
			      uint64_t regions, uint64_t dirty)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, DST_A_NODE);

	mnl_attr_put_u32(nlh, DST_NODE_A_ID, 2);
	mnl_attr_put_u32(nlh, DST_NODE_A_TYPE, DST_NODE_LOCAL);
	mnl_attr_put_u32(nlh, DST_NODE_A_STATE, DST_NODE_CONNECTED);
	mnl_attr_put_strz(nlh, DST_NODE_A_PATH, "/dev/ram1");
	if (what & M_SYNC)
		mnl_attr_put_u32(nlh, DST_NODE_A_SYNC, sync);
	if (what & M_REGIONS)
		mnl_attr_put_u64(nlh, DST_NODE_A_REGIONS, regions);
	if (what & M_DIRTY)
		mnl_attr_put_u64(nlh, DST_NODE_A_DIRTY, dirty);
	mnl_attr_nest_end(nlh, nest);
	return nest;
}

static void test_mirror_info_parse(void **state)
{
	char buf[4096];
	struct storage_info si;
	struct node_info ni;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int what;

	(void)state;
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_leg(nlh, M_ALL, DST_SYNC_RESYNCING, 64, 16), &ni), 0);
	assert_true(ni.has_sync);
	assert_int_equal(ni.sync, DST_SYNC_RESYNCING);
	assert_true(ni.regions == 64 && ni.dirty == 16);
	assert_int_equal(sync_percent(&ni), 75);
	assert_string_equal(sync_state_name(ni.sync), "resyncing");

	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_leg(nlh, 0, 0, 0, 0), &ni), 0);
	assert_false(ni.has_sync);

	/* All three or none; never more dirty regions than regions. */
	for (what = 1; what < M_ALL; what++) {
		nlh = mnl_nlmsg_put_header(buf);
		assert_int_equal(node_info_parse(put_leg(nlh, what, 0, 4, 1), &ni), -1);
	}
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_leg(nlh, M_ALL, 0, 4, 5), &ni), -1);
	/* An unknown state parses and prints as unknown. */
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(node_info_parse(put_leg(nlh, M_ALL, 77, 4, 0), &ni), 0);
	assert_string_equal(sync_state_name(ni.sync), "unknown");

	/* Percent: rounded down, 100 only when clean. */
	ni.regions = 1000000;
	ni.dirty = 1;
	assert_int_equal(sync_percent(&ni), 99);
	ni.dirty = 0;
	assert_int_equal(sync_percent(&ni), 100);
	ni.regions = 0;
	assert_int_equal(sync_percent(&ni), 100);
	ni.regions = UINT64_MAX / 50;
	ni.dirty = ni.regions / 2;
	assert_int_equal(sync_percent(&ni), 50);

	/* Chunk size and resync bytes of a storage. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "m");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "mirror");
	mnl_attr_put_u32(nlh, DST_STORAGE_A_ID, 1);
	mnl_attr_put_u32(nlh, DST_STORAGE_A_STATE, DST_STORAGE_RUNNING);
	mnl_attr_put_u64(nlh, DST_STORAGE_A_SIZE, 1 << 20);
	mnl_attr_put_u32(nlh, DST_STORAGE_A_CHUNK_SIZE, 65536);
	mnl_attr_put_u64(nlh, DST_STORAGE_A_RESYNC_BYTES, 5ULL << 32);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(storage_info_parse(nest, &si), 0);
	assert_int_equal(si.chunk_size, 65536);
	assert_true(si.has_resync);
	assert_true(si.resync_bytes == 5ULL << 32);
	storage_info_free(&si);

	/* A chunk size that is not a u32. */
	nlh = mnl_nlmsg_put_header(buf);
	nest = mnl_attr_nest_start(nlh, DST_A_STORAGE);
	mnl_attr_put_strz(nlh, DST_STORAGE_A_NAME, "m");
	mnl_attr_put_strz(nlh, DST_STORAGE_A_ALG, "mirror");
	mnl_attr_put_u32(nlh, DST_STORAGE_A_ID, 1);
	mnl_attr_put_u32(nlh, DST_STORAGE_A_STATE, DST_STORAGE_RUNNING);
	mnl_attr_put_u64(nlh, DST_STORAGE_A_SIZE, 1 << 20);
	mnl_attr_put_u64(nlh, DST_STORAGE_A_CHUNK_SIZE, 65536);
	mnl_attr_nest_end(nlh, nest);
	assert_int_equal(storage_info_parse(nest, &si), -1);
}

/* A mirror m (/dev/dst1) of a local leg and the linear l (/dev/dst2), exported. */
static void sample_tree(struct storage_info *si, struct node_info *mn,
			struct node_info *ln, struct export_info *ei)
{
	memset(si, 0, 2 * sizeof(*si));
	memset(mn, 0, 2 * sizeof(*mn));
	memset(ln, 0, sizeof(*ln));
	memset(ei, 0, sizeof(*ei));
	strcpy(si[0].name, "l");
	strcpy(si[0].alg, "linear");
	si[0].id = 2;
	si[0].state = DST_STORAGE_RUNNING;
	si[0].size = 1 << 20;
	si[0].nodes = ln;
	si[0].nnodes = 1;
	strcpy(ln->path, "/dev/ram2");
	ln->type = DST_NODE_LOCAL;
	ln->size = 1 << 20;

	strcpy(si[1].name, "m");
	strcpy(si[1].alg, "mirror");
	si[1].id = 1;
	si[1].state = DST_STORAGE_RUNNING;
	si[1].size = 1 << 20;
	si[1].chunk_size = 65536;
	si[1].resync_min = 10000;
	si[1].resync_max = 200000;
	si[1].has_resync = true;
	si[1].resync_bytes = 3 << 20;
	si[1].resync_rate = 1 << 20;
	si[1].resync_left = (5 << 20) + 1;
	strcpy(si[1].bitmap, "/var/lib/dst/m.bitmap");
	si[1].has_bitmap_regions = true;
	si[1].bitmap_regions = 4;
	si[1].has_started = true;
	si[1].started = DST_START_UNCLEAN;
	si[1].nodes = mn;
	si[1].nnodes = 2;
	mn[0].type = DST_NODE_LOCAL;
	strcpy(mn[0].path, "/dev/ram0");
	mn[0].has_sync = true;
	mn[0].sync = DST_SYNC_IN_SYNC;
	mn[0].regions = 16;
	mn[1].id = 3;
	mn[1].type = DST_NODE_LOCAL;
	strcpy(mn[1].path, "/dev/dst/l");
	mn[1].has_sync = true;
	mn[1].sync = DST_SYNC_RESYNCING;
	mn[1].regions = 16;
	mn[1].dirty = 4;

	strcpy(ei->name, "mx");
	strcpy(ei->device, "/dev/dst1");
	assert_int_equal(parse_addr("127.0.0.1:7000", &ei->addr, &ei->addr_len), 0);
}

/* status --check: its lines on a memory stream, its result in @rc. */
static char *health(const struct storage_info *si, size_t n, const char *name, int *rc)
{
	const struct status_set set = { si, n, NULL, 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	*rc = health_check(f, &set, NULL, name);
	fclose(f);
	return out;
}

static void test_health_check(void **state)
{
	struct node_info mn[2], ln;
	struct storage_info si[2];
	struct export_info ei;
	char *out;
	int rc;

	(void)state;
	sample_tree(si, mn, &ln, &ei);
	/* A leg resyncing: degraded. */
	out = health(si, 2, NULL, &rc);
	assert_string_equal(out,
		"m: degraded: node3 (/dev/dst/l) resyncing, 4 of 16 regions to copy\n"
		"1 problem(s), degraded\n");
	assert_int_equal(rc, EXIT_DEGRADED);
	free(out);
	out = health(si, 2, "l", &rc);
	assert_string_equal(out, "ok: 1 storage(s) healthy\n");
	assert_int_equal(rc, EXIT_OK);
	free(out);

	mn[1].sync = DST_SYNC_IN_SYNC;
	mn[1].dirty = 0;
	out = health(si, 2, NULL, &rc);
	assert_string_equal(out, "ok: 2 storage(s) healthy\n");
	assert_int_equal(rc, EXIT_OK);
	free(out);

	/* A remote leg down, held or failing: degraded, the mirror serves. */
	mn[0].type = DST_NODE_REMOTE;
	mn[0].addr.ss_family = AF_INET;
	mn[0].addr_len = sizeof(struct sockaddr_in);
	((struct sockaddr_in *)&mn[0].addr)->sin_port = htons(7000);
	((struct sockaddr_in *)&mn[0].addr)->sin_addr.s_addr = htonl(0x0a000002);
	mn[0].state = DST_NODE_RECONNECTING;
	out = health(si, 2, "m", &rc);
	assert_string_equal(out, "m: degraded: node0 (10.0.0.2:7000) reconnecting\n"
			    "1 problem(s), degraded\n");
	assert_int_equal(rc, EXIT_DEGRADED);
	free(out);

	/* No leg in sync: failed. */
	mn[0].state = DST_NODE_CONNECTED;
	mn[0].sync = DST_SYNC_OUT_OF_SYNC;
	mn[1].sync = DST_SYNC_OUT_OF_SYNC;
	out = health(si, 2, "m", &rc);
	assert_non_null(strstr(out, "m: failed: no leg in sync\n"));
	assert_int_equal(rc, EXIT_FAILED);
	free(out);

	/* A linear storage with a node down, and a stopped storage: failed. */
	ln.state = DST_NODE_DEAD;
	out = health(si, 1, NULL, &rc);
	assert_string_equal(out, "l: failed: node0 (/dev/ram2) dead\n1 problem(s), failed\n");
	assert_int_equal(rc, EXIT_FAILED);
	free(out);
	out = health(sample, 1, NULL, &rc);
	assert_string_equal(out, "r0: failed: stopped\n1 problem(s), failed\n");
	assert_int_equal(rc, EXIT_FAILED);
	free(out);

	/* Configured and not there: failed, as mdadm's "missing". */
	ln.state = DST_NODE_CONNECTED;
	{
		static const char conf[] =
			"storage l {\n\talg linear\n\tnode local /dev/ram2\n}\n"
			"storage gone {\n\talg linear\n\tnode local /dev/sdz\n}\n"
			"export mx {\n\tdevice /dev/dst/l\n\tlisten 127.0.0.1:7000\n}\n"
			"export gx {\n\tdevice /dev/dst/l\n\tlisten 127.0.0.1:7001\n\tread-only\n}\n";
		const struct status_set set = { si, 1, &ei, 1 };
		struct dst_config c;
		size_t len = 0;
		FILE *f;

		assert_int_equal(config_parse("t.conf", conf, sizeof(conf) - 1, &c, stderr), 0);
		out = NULL;
		f = open_memstream(&out, &len);
		assert_int_equal(health_check(f, &set, &c, NULL), EXIT_FAILED);
		fclose(f);
		assert_string_equal(out, "gone: failed: configured in t.conf, not there\n"
				    "export gx: failed: configured in t.conf, not there\n"
				    "2 problem(s), failed\n");
		free(out);
		out = NULL;
		f = open_memstream(&out, &len);
		assert_int_equal(health_check(f, &set, &c, "l"), EXIT_OK);
		fclose(f);
		assert_string_equal(out, "ok: 1 storage(s) healthy\n");
		free(out);
		config_free(&c);
	}
}

/* A valid argument for an option whose help calls it @arg. */
static const char *sample_arg(const char *arg)
{
	static const char *const samples[][2] = {
		{ "SIZE", "1M" }, { "RATE", "10M" }, { "S", "5" }, { "SECONDS", "5" },
		{ "PATH", "/x" }, { "FILE", "/x" }, { "ADDR:PORT", "127.0.0.1:7000" },
		{ "PREFIX[,ro]", "10.0.0.0/8" }, { "linear|mirror", "linear" },
		{ "N", "16" }, { "NAME", "example.org" }, { "CIPHER", "aes-256-gcm" },
		{ "PREFIX[,ro][,name=NAME]", "10.0.0.0/8,ro,name=c.example" },
	};
	size_t i;

	for (i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (!strcmp(arg, samples[i][0]))
			return samples[i][1];
	fail_msg("no sample for an argument called %s", arg);
	return NULL;
}

/*
 * The table is the parser's: every option of every command, long and
 * short, is taken (then -h ends the parse before the command runs).
 */
static void test_options_table(void **state)
{
	const struct cmd_option *o;
	char opt[64];
	size_t i;

	(void)state;
	for (i = 0; i < dstadm_ncommands; i++) {
		const struct command *c = &dstadm_commands[i];

		for (o = c->options; o->name; o++) {
			char *argv[] = { "dstadm", (char *)c->name, opt,
					 o->arg ? (char *)sample_arg(o->arg) : "-h", "-h", NULL };
			int argc = o->arg ? 5 : 4;

			snprintf(opt, sizeof(opt), "--%s", o->name);
			if (dstadm_main(argc, argv) != EXIT_OK)
				fail_msg("dstadm %s %s: not taken", c->name, opt);
			if (o->val >= OPT_LONG_ONLY)
				continue;
			snprintf(opt, sizeof(opt), "-%c", o->val);
			if (dstadm_main(argc, argv) != EXIT_OK)
				fail_msg("dstadm %s %s: not taken", c->name, opt);
		}
	}
}

static void test_status_tree(void **state)
{
	struct json_object *root, *arr, *nodes, *o, *v;
	struct node_info mn[2], ln;
	struct storage_info si[2];
	struct export_info ei;
	char *out;

	(void)state;
	sample_tree(si, mn, &ln, &ei);
	out = capture(status_print_text, NULL, si, 2, &ei, 1);
	assert_string_equal(out,
		"storage: m (/dev/dst1)\n"
		"  algorithm: mirror\n"
		"  state: running\n"
		"  size: 1.00 MiB\n"
		"  chunk size: 64.00 KiB\n"
		"  resync speed: 9.77 MiB/s to 195.31 MiB/s\n"
		"  bitmap: /var/lib/dst/m.bitmap, 4 region(s) set\n"
		"  started: after an unclean stop: the bitmap's regions resynced\n"
		"  resynced: 3.00 MiB\n"
		"  resync: 1.00 MiB/s, 5.00 MiB left, about 6 s\n"
		"  exported as: mx\n"
		"  |- node0: local /dev/ram0\n"
		"  |    state: connected\n"
		"  |    sync: in-sync\n"
		"  |    size: 0 B\n"
		"  |    in flight: 0\n"
		"  |    read: 0 B, written: 0 B\n"
		"  `- node3: local /dev/dst/l\n"
		"       state: connected\n"
		"       sync: resyncing 75% (4 of 16 regions dirty)\n"
		"       size: 0 B\n"
		"       in flight: 0\n"
		"       read: 0 B, written: 0 B\n"
		"       storage: l (/dev/dst2)\n"
		"         algorithm: linear\n"
		"         state: running\n"
		"         size: 1.00 MiB\n"
		"         `- node0: local /dev/ram2\n"
		"              state: connected\n"
		"              size: 1.00 MiB\n"
		"              in flight: 0\n"
		"              read: 0 B, written: 0 B\n"
		"\n"
		"export: mx\n"
		"  device: /dev/dst1\n"
		"  listen: 127.0.0.1:7000\n"
		"  read-only: no\n"
		"  size: 0 B\n"
		"  secret: no\n"
		"  integrity: none\n"
		"  tls: none\n"
		"  writers: one at a time\n"
		"  allow: loopback only (no allow list)\n"
		"  clients: 0\n"
		"  refused: 0 bad input, 0 not allowed, 0 failed authentication\n"
		"  checksum errors: 0\n");
	free(out);

	/* The nested storage on its own; the leg out of sync. */
	mn[1].sync = DST_SYNC_OUT_OF_SYNC;
	out = capture_name(status_print_text, NULL, si, 2, &ei, 1, "l");
	assert_true(strncmp(out, "storage: l (/dev/dst2)\n  algorithm: linear\n", 42) == 0);
	assert_null(strstr(out, "storage: m"));
	assert_null(strstr(out, "export"));
	free(out);
	out = capture(status_print_text, NULL, si, 2, NULL, 0);
	assert_non_null(strstr(out, "sync: out-of-sync (4 of 16 regions dirty)\n"));
	free(out);

	/* A storage whose node is itself: printed once, cut at the guard. */
	strcpy(mn[0].path, "/dev/dst1");
	out = capture_name(status_print_text, NULL, si, 2, NULL, 0, "m");
	assert_non_null(strstr(out, "  ...\n"));
	free(out);
	strcpy(mn[0].path, "/dev/ram0");

	out = capture_name(NULL, status_print_json, si, 2, &ei, 1, "m");
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "storages", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	o = json_object_array_get_idx(arr, 0);
	assert_string_equal(get_str(o, "name"), "m");
	assert_int_equal(get_num(o, "chunk_size"), 65536);
	assert_int_equal(get_num(o, "resync_bytes"), 3 << 20);
	assert_int_equal(get_num(o, "resync_min"), 10000 << 10);
	assert_int_equal(get_num(o, "resync_max"), 200000ULL << 10);
	assert_int_equal(get_num(o, "resync_rate"), 1 << 20);
	assert_int_equal(get_num(o, "resync_eta"), 6);
	assert_string_equal(get_str(o, "bitmap"), "/var/lib/dst/m.bitmap");
	assert_int_equal(get_num(o, "bitmap_regions"), 4);
	assert_string_equal(get_str(o, "started"), "unclean");
	assert_true(json_object_object_get_ex(o, "nodes", &nodes));
	v = json_object_array_get_idx(nodes, 1);
	assert_int_equal(get_num(v, "id"), 3);
	assert_string_equal(get_str(v, "sync"), "out-of-sync");
	assert_int_equal(get_num(v, "regions"), 16);
	assert_int_equal(get_num(v, "dirty_regions"), 4);
	assert_int_equal(get_num(v, "sync_percent"), 75);
	assert_true(json_object_object_get_ex(root, "exports", &arr));
	assert_int_equal(json_object_array_length(arr), 0);
	json_object_put(root);
	free(out);

	/* Not a mirror leg, not chunked: null, never missing. */
	out = capture_name(NULL, status_print_json, si, 2, &ei, 1, "l");
	root = json_tokener_parse(out);
	assert_true(json_object_object_get_ex(root, "storages", &arr));
	o = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(o, "chunk_size", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "resync_bytes", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "resync_eta", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "resync_max", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "bitmap", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "started", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "nodes", &nodes));
	o = json_object_array_get_idx(nodes, 0);
	assert_true(json_object_object_get_ex(o, "sync", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "sync_percent", &v));
	assert_null(v);
	json_object_put(root);
	free(out);
}

static void test_remote_args(void **state)
{
	struct import_opts io;
	struct add_opts o;

	(void)state;
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "remote", "127.0.0.1:7000"), EXIT_OK);
	assert_false(o.ra.has_dead_timeout);
	assert_int_equal(o.ra.reconnect_max, 0);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "remote", "127.0.0.1:7000",
			       "--dead-timeout", "0", "--reconnect-max=5"), EXIT_OK);
	assert_true(o.ra.has_dead_timeout);
	assert_int_equal(o.ra.dead_timeout, 0);
	assert_int_equal(o.ra.reconnect_max, 5);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "remote", "127.0.0.1:7000",
			       "--dead-timeout=86400"), EXIT_OK);
	assert_int_equal(o.ra.dead_timeout, 86400);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "remote", "127.0.0.1:7000",
			       "--dead-timeout", "86401"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "remote", "127.0.0.1:7000",
			       "--dead-timeout", "-1"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "remote", "127.0.0.1:7000",
			       "--reconnect-max", "0"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "remote", "127.0.0.1:7000",
			       "--reconnect-max", "3601"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "local", "/dev/x",
			       "--dead-timeout", "5"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "local", "/dev/x",
			       "--reconnect-max", "5"), EXIT_USAGE);
	assert_int_equal(PARSE(add_parse, &o, "add", "m", "local", "dev/x"), EXIT_USAGE);
	assert_int_equal(PARSE(import_parse, &io, "import", "r", "--remote", "[::1]:7",
			       "--dead-timeout", "30"), EXIT_OK);
	assert_true(io.ra.has_dead_timeout);
	assert_int_equal(io.ra.dead_timeout, 30);
}

static void test_resync_options(void **state)
{
	struct storage_info si;
	struct node_info ni[3];
	unsigned int oos;
	struct create_opts co;
	struct wait_opts wo;

	(void)state;
	assert_int_equal(PARSE(create_parse, &co, "create", "m", "-a", "mirror",
			       "--resync-min", "1M", "--resync-max=1G"), EXIT_OK);
	assert_int_equal(co.resync_min, 1024);
	assert_int_equal(co.resync_max, 1 << 20);
	assert_int_equal(PARSE(create_parse, &co, "create", "m", "-a", "mirror",
			       "--resync-min", "1023"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &co, "create", "m", "-a", "mirror",
			       "--resync-max", "5000T"), EXIT_USAGE);
	assert_int_equal(PARSE(create_parse, &co, "create", "m", "-a", "mirror",
			       "--resync-max", "fast"), EXIT_USAGE);

	assert_int_equal(PARSE(wait_parse, &wo, "wait", "m"), EXIT_OK);
	assert_string_equal(wo.name, "m");
	assert_int_equal(wo.timeout, 0);
	assert_int_equal(PARSE(wait_parse, &wo, "wait", "m", "--timeout", "9"), EXIT_OK);
	assert_int_equal(wo.timeout, 9);
	assert_int_equal(PARSE(wait_parse, &wo, "wait"), EXIT_USAGE);
	assert_int_equal(PARSE(wait_parse, &wo, "wait", "a", "b"), EXIT_USAGE);
	assert_int_equal(PARSE(wait_parse, &wo, "wait", "a", "--timeout", "0"), EXIT_USAGE);

	memset(&si, 0, sizeof(si));
	memset(ni, 0, sizeof(ni));
	si.state = DST_STORAGE_RUNNING;
	si.nodes = ni;
	si.nnodes = 3;
	/* Not a mirror: no leg has a sync state. */
	assert_int_equal(wait_progress(&si, &oos), -1);
	ni[0].has_sync = ni[1].has_sync = ni[2].has_sync = true;
	ni[0].regions = ni[1].regions = ni[2].regions = 100;
	assert_int_equal(wait_progress(&si, &oos), 100);
	assert_int_equal(oos, 0);
	ni[1].sync = DST_SYNC_RESYNCING;
	ni[1].dirty = 40;
	ni[2].sync = DST_SYNC_RESYNCING;
	ni[2].dirty = 10;
	assert_int_equal(wait_progress(&si, &oos), 60);
	/* Resyncing with nothing dirty left is not done yet. */
	ni[1].dirty = 0;
	ni[2].dirty = 0;
	assert_int_equal(wait_progress(&si, &oos), 99);
	ni[1].sync = DST_SYNC_OUT_OF_SYNC;
	ni[1].dirty = 100;
	ni[2].sync = DST_SYNC_IN_SYNC;
	assert_int_equal(wait_progress(&si, &oos), 0);
	assert_int_equal(oos, 1);
	si.state = DST_STORAGE_STOPPED;
	assert_int_equal(wait_progress(&si, &oos), -1);
}

/* A multicast message of @cmd with an event or a storage/export nest. */
static struct nlmsghdr *event_msg(char *buf, uint8_t cmd, int type, const char *name,
				  int node, int with_bytes)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	struct nlattr *nest;

	genl->cmd = cmd;
	if (cmd == DST_CMD_EVENT) {
		nest = mnl_attr_nest_start(nlh, DST_A_EVENT);
		if (type >= 0)
			mnl_attr_put_u32(nlh, DST_EVENT_A_TYPE, type);
		if (name)
			mnl_attr_put_strz(nlh, DST_EVENT_A_STORAGE, name);
		if (node >= 0)
			mnl_attr_put_u32(nlh, DST_EVENT_A_NODE, node);
		if (with_bytes)
			mnl_attr_put_u64(nlh, DST_EVENT_A_BYTES, 12345);
		mnl_attr_put_u32(nlh, 99, 1);	/* newer: ignored */
	} else {
		nest = mnl_attr_nest_start(nlh, cmd == DST_CMD_EXPORT_NEW ||
					   cmd == DST_CMD_EXPORT_DEL ? DST_A_EXPORT :
					   DST_A_STORAGE);
		mnl_attr_put_strz(nlh, 1, name);	/* NAME is 1 in both */
	}
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}


/* Parse @text; the error message (empty if none) in @msg. */
static int parse_text(const char *text, struct dst_config *c, char *msg, size_t len)
{
	FILE *f = fmemopen(msg, len, "w");
	int ret;

	assert_non_null(f);
	ret = config_parse("t.conf", text, strlen(text), c, f);
	fclose(f);
	msg[len - 1] = 0;
	return ret;
}

static void test_config_parse(void **state)
{
	struct dst_config c;
	char msg[512] = "";
	const struct conf_storage *s;

	(void)state;
	assert_int_equal(parse_text(
		"# comment\n"
		"storage m0 {   # a mirror\n"
		"\talg mirror\n"
		"\tchunk-size 4M\n"
		"\tresync-min 1M\n"
		"\tresync-max 50M\n"
		"\tbitmap /var/lib/dst/m0.bitmap\n"
		"\n"
		"\tnode local /dev/sdb\n"
		"\tnode remote 192.0.2.7:7000 timeout 10 dead-timeout 0 reconnect-max 5\n"
		"\tnode remote [2001:db8::1]:7001\n"
		"}\n"
		"export m0x {\n device /dev/dst/m0\n listen 0.0.0.0:7000\n read-only\n}",
		&c, msg, sizeof(msg)), 0);
	assert_int_equal(c.nstorages, 1);
	assert_int_equal(c.nexports, 1);
	s = config_storage(&c, "m0");
	assert_non_null(s);
	assert_string_equal(s->alg, "mirror");
	assert_int_equal(s->chunk_size, 4 << 20);
	assert_int_equal(s->resync_min, 1024);
	assert_int_equal(s->resync_max, 50 * 1024);
	assert_string_equal(s->bitmap, "/var/lib/dst/m0.bitmap");
	assert_int_equal(s->nnodes, 3);
	assert_int_equal(s->nodes[0].type, DST_NODE_LOCAL);
	assert_string_equal(s->nodes[0].target, "/dev/sdb");
	assert_int_equal(s->nodes[1].type, DST_NODE_REMOTE);
	assert_int_equal(s->nodes[1].ra.timeout, 10);
	assert_true(s->nodes[1].ra.has_dead_timeout);
	assert_int_equal(s->nodes[1].ra.reconnect_max, 5);
	assert_int_equal(s->nodes[2].addr.ss_family, AF_INET6);
	assert_true(c.exports[0].read_only);
	assert_string_equal(c.exports[0].device, "/dev/dst/m0");
	assert_null(config_storage(&c, "m0x"));
	assert_non_null(config_export(&c, "m0x"));
	config_free(&c);
	assert_int_equal(parse_text("", &c, msg, sizeof(msg)), 0);
	assert_int_equal(c.nstorages + c.nexports, 0);
	config_free(&c);
}

static void test_config_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "storage", "t.conf:1:8: expected a storage name, found end of file" },
		{ "volume x {\n}", "t.conf:1:1: expected 'storage', 'export' or 'include', found 'volume'" },
		{ "storage -x {\n}", "t.conf:1:9: invalid name '-x'" },
		{ "storage x\n{\n}", "t.conf:1:10: expected '{' after the storage name, found end of line" },
		{ "storage x {\n alg linear\n", "t.conf:3:1: expected a setting of storage 'x' or '}', found end of file" },
		{ "storage x {\n alg raid5\n}", "t.conf:2:6: unknown algorithm 'raid5'" },
		{ "storage x {\n alg linear\n alg mirror\n}", "t.conf:3:2: 'alg' given twice" },
		{ "storage x {\n alg linear\n}", "t.conf:1:9: storage 'x' has no node" },
		{ "storage x {\n node local /dev/a\n}", "t.conf:1:9: storage 'x' has no 'alg'" },
		{ "storage x {\n alg linear\n chunk-size 1M\n node local /dev/a\n}",
		  "t.conf:3:2: 'chunk-size' is for mirrors, and storage 'x' is linear" },
		{ "storage x {\n alg mirror\n chunk-size 3M\n}", "t.conf:3:13: invalid chunk size '3M'" },
		{ "storage x {\n alg mirror\n resync-max 1\n}", "t.conf:3:13: invalid resync-max '1'" },
		{ "storage x {\n alg mirror\n bitmap rel\n}", "t.conf:3:9: expected a bitmap file or device (an absolute path), found 'rel'" },
		{ "storage x {\n alg linear\n node local dev\n}", "t.conf:3:13: expected a device (an absolute path)" },
		{ "storage x {\n alg linear\n node disk /a\n}", "t.conf:3:7: expected 'local' or 'remote', found 'disk'" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4\n}", "t.conf:3:14: invalid address '1.2.3.4'" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 tls\n}",
		  "t.conf:3:27: TLS without certificates needs a secret file: its secret is the key" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 tls-cert /c tls-key /k\n}",
		  "t.conf:3:46: TLS with X.509 needs a CA file to check the export" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 tls-ca /a tls-cert /c\n}",
		  "t.conf:3:45: a TLS certificate needs its key, and the reverse" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 tls-ca rel\n}",
		  "t.conf:3:31: expected a PEM file (an absolute path), found 'rel'" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 tls-ca /a tls-ca /b\n}",
		  "t.conf:3:34: 'tls-ca' given twice" },
		{ "storage x {\n alg linear\n node local /a tls\n}",
		  "t.conf:3:16: unknown option 'tls' of a local node" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n tls-ca /c\n}",
		  "t.conf:1:8: TLS with X.509 needs the export's certificate and key" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n tls-name n\n}",
		  "t.conf:4:2: unknown setting 'tls-name' of an export" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n tls-cipher rc4\n}",
		  "t.conf:4:13: unknown cipher 'rc4': expected aes-128-gcm, aes-256-gcm or chacha20-poly1305" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n tls-cipher\n}",
		  "t.conf:4:12: expected a cipher, found end of line" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 tls-cipher aes-128-gcm"
		  " tls-cipher aes-128-gcm\n}", "t.conf:3:47: 'tls-cipher' given twice" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 tls-cipher aes-128-gcm\n}",
		  "t.conf:3:46: TLS without certificates needs a secret file" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 timeout 0\n}", "t.conf:3:32: invalid timeout '0': seconds from 1 to 86400" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 speed 9\n}", "t.conf:3:24: unknown option 'speed' of a remote node" },
		{ "storage x {\n alg linear\n node local /a extra\n}", "t.conf:3:16: unknown option 'extra' of a local node: expected write-mostly or write-behind" },
		{ "storage x {\n alg mirror\n node local /a write-mostly write-behind 0\n}", "t.conf:3:42: invalid write-behind '0': writes from 1 to 16383" },
		{ "storage x {\n alg linear\n node local /a write-mostly\n}", "t.conf:1:9: storage 'x': write-mostly is for the legs of a mirror, and it is linear" },
		{ "storage x {\n alg linear\n node local /a\n} x", "t.conf:4:3: expected end of line after '}', found 'x'" },
		{ "storage x {\n alg linear\n node local /a\n}\nstorage x {\n alg linear\n node local /b\n}",
		  "t.conf:5: storage 'x' defined again (first at t.conf:1)" },
		{ "storage x {\n alg linear\n node local /a\n}\nstorage y {\n alg linear\n node local /a\n}",
		  "t.conf:7: storage 'y': device /a is already a node of storage 'x' (t.conf:3)" },
		{ "export e {\n device /a\n}", "t.conf:1:8: export 'e' has no 'listen'" },
		{ "export e {\n listen 1.2.3.4:5\n}", "t.conf:1:8: export 'e' has no 'device'" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n}\nexport f {\n device /b\n listen 1.2.3.4:5\n}",
		  "t.conf:5: export 'f' listens on 1.2.3.4:5, which export 'e' (1.2.3.4:5) takes" },
		/* The checks across objects, as up would refuse them (review D6). */
		{ "storage a {\n alg linear\n node local /dev/dst/b\n}\nstorage b {\n alg linear\n node local /dev/dst/a\n}",
		  "t.conf:1: storage 'a' is built on itself through its /dev/dst/ nodes\n"
		  "t.conf:5: storage 'b' is built on itself" },
		{ "storage a {\n alg linear\n node local /dev/dst/a\n}",
		  "t.conf:1: storage 'a' is built on itself" },
		{ "storage m {\n alg mirror\n node remote 192.0.2.1:7000\n node remote 192.0.2.1:7000\n}",
		  "t.conf:4: storage 'm': node 192.0.2.1:7000 given twice" },
		{ "storage x {\n alg linear\n node local /dev/sdb\n node local /dev//sdb\n}",
		  "t.conf:4: storage 'x': device /dev//sdb is already a node of storage 'x' (t.conf:3)" },
		{ "storage x {\n alg linear\n node local /dev/sdb\n node local /dev/disk/../sdb\n}",
		  "t.conf:4: storage 'x': device /dev/disk/../sdb is already a node of storage 'x'" },
		{ "storage m {\n alg mirror\n bitmap /dev/sdb\n node local /dev/sdb\n}",
		  "t.conf:1: storage 'm': its bitmap /dev/sdb is one of its nodes" },
		{ "storage m {\n alg mirror\n bitmap /b\n node local /a\n}\nstorage n {\n alg linear\n node local /b\n}",
		  "t.conf:8: storage 'n': device /b is the bitmap of storage 'm'" },
		{ "storage m {\n alg mirror\n node local /dev/sdb\n node local /dev/sdc\n}\n"
		  "export e {\n device /dev/sdb\n listen 127.0.0.1:7000\n}",
		  "t.conf:6: export 'e' serves /dev/sdb, a node of storage 'm': write to it through /dev/dst/m" },
		{ "export e {\n device /dev/sdb\n listen 127.0.0.1:7000\n}\nexport f {\n device /dev/sdb\n listen 127.0.0.1:7001\n}",
		  "t.conf:5: export 'f' serves /dev/sdb read-write, as export 'e' does" },
		{ "export e {\n device /a\n listen 0.0.0.0:7000\n allow 10.0.0.0/8\n}\nexport f {\n device /b\n listen 192.0.2.1:7000\n allow 10.0.0.0/8\n}",
		  "t.conf:6: export 'f' listens on 192.0.2.1:7000, which export 'e' (0.0.0.0:7000) takes" },
		{ "export e {\n device /a\n listen [::]:7000\n allow ::/0\n}\nexport f {\n device /b\n listen 0.0.0.0:7000\n allow 10.0.0.0/8\n}",
		  "t.conf:6: export 'f' listens on 0.0.0.0:7000, which export 'e' ([::]:7000) takes" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow 10.0.0.0/8\n allow 10.0.0.0/8 read-only\n}",
		  "t.conf:1: export 'e': the same prefix allowed twice" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 timeout 5 timeout 10\n}",
		  "t.conf:3:34: 'timeout' given twice" },
		{ "storage x {\n alg mirror\n chunk-size 1M\n chunk-size 2M\n node local /a\n}",
		  "t.conf:4:2: 'chunk-size' given twice" },
		{ "storage x {\n alg mirror\n resync-min 100M\n resync-max 10M\n node local /a\n}",
		  "t.conf:1:9: storage 'x': resync-min is above resync-max" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:0\n}",
		  "t.conf:3:14: invalid address '1.2.3.4:0': port must be a number from 1 to 65535" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n ro\n}", "t.conf:4:2: unknown setting 'ro' of an export" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow 10.0.0.0/33\n}",
		  "t.conf:4:8: invalid prefix '10.0.0.0/33': expected IPV4[/0-32] or IPV6[/0-128]" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow\n}",
		  "t.conf:4:7: expected ADDR or ADDR/LEN, found end of line" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow ::1 rw\n}",
		  "t.conf:4:12: expected 'read-only', 'name NAME' or end of line after the prefix, found 'rw'" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow ::1 read-only x\n}",
		  "t.conf:4:22: expected 'read-only', 'name NAME' or end of line after the prefix, found 'x'" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow ::1 read-only read-only\n}",
		  "t.conf:4:22: expected 'read-only', 'name NAME' or end of line after the prefix, found 'read-only'" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow ::1 name\n}",
		  "t.conf:4:16: expected a certificate name, found end of line" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow ::1 name c.example\n}",
		  "t.conf:1:8: certificate names in the allow list need TLS with X.509 and a CA" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n allow ::1 name c.example\n"
		  " tls-cert /c\n tls-key /k\n}",
		  "t.conf:1:8: certificate names in the allow list need TLS with X.509 and a CA" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n secret-file k\n}",
		  "t.conf:4:14: expected a secret file (an absolute path), found 'k'" },
		{ "export e {\n device /a\n listen 1.2.3.4:5\n secret-file /k\n secret-file /j\n}",
		  "t.conf:5:2: 'secret-file' given twice" },
		{ "storage x {\n alg linear\n node remote 1.2.3.4:5 secret-file\n}",
		  "t.conf:3:35: expected a secret file, found end of line" },
		{ "include /etc/dst.d/*.conf", "t.conf:1:9: include is read only from files" },
		{ "storage x \x01", "t.conf:1:11: unexpected character 0x01" },
		{ "storage donn\xc3\xa9" "es {\n}", "t.conf:1:9: invalid name 'donn\xc3\xa9" "es'" },
		{ "storage x {\n alg\0 linear\n}", "t.conf:2:5: a NUL byte" },
	};
	struct dst_config c;
	char msg[512];
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(msg, 0, sizeof(msg));
		len = strlen(cases[i].text);
		if (strstr(cases[i].msg, "NUL"))
			len = 22;
		{
			FILE *f = fmemopen(msg, sizeof(msg), "w");

			assert_int_equal(config_parse("t.conf", cases[i].text, len, &c, f), -1);
			fclose(f);
		}
		if (strncmp(msg, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: got '%s', want '%s...'", i, msg, cases[i].msg);
		assert_int_equal(c.nstorages + c.nexports, 0);
		config_free(&c);
	}
}

static void test_config_include(void **state)
{
	char dir[] = "/tmp/dstconf.XXXXXX", path[256], msg[512] = "";
	struct dst_config c;
	FILE *f, *err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/dst.d", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dst.d/b.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("storage b {\n alg linear\n node local /dev/b\n}\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/dst.d/a.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("storage a {\n alg linear\n node local /dev/a\n}\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/dst.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("include dst.d/*.conf\ninclude none.d/*.conf\n", f);
	fclose(f);
	assert_int_equal(config_load(path, &c, stderr), 0);
	assert_int_equal(c.nstorages, 2);
	/* In the order of the names. */
	assert_string_equal(c.storages[0].name, "a");
	assert_string_equal(c.storages[1].name, "b");
	config_free(&c);

	/* An error in an included file names that file; nothing is kept. */
	snprintf(path, sizeof(path), "%s/dst.d/b.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("storage b {\n alg linear\n node local /dev/a\n}\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/dst.conf", dir);
	err = fmemopen(msg, sizeof(msg), "w");
	assert_int_equal(config_load(path, &c, err), -1);
	fclose(err);
	assert_non_null(strstr(msg, "dst.d/b.conf:3: storage 'b': device /dev/a is already a node of storage 'a'"));
	assert_int_equal(c.nstorages, 0);
	config_free(&c);

	/* A file named (no pattern) must be there. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("include dst.d/typo.conf\n", f);
	fclose(f);
	err = fmemopen(msg, sizeof(msg), "w");
	assert_int_equal(config_load(path, &c, err), -1);
	fclose(err);
	assert_non_null(strstr(msg, "dst.conf:1:9: cannot include '"));
	assert_non_null(strstr(msg, "dst.d/typo.conf': no such file"));
	config_free(&c);

	/* A secret file up would refuse: open to others, empty, missing. */
	snprintf(path, sizeof(path), "%s/k", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("s3cret\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/dst.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "export e {\n device /a\n listen 127.0.0.1:7000\n secret-file %s/k\n}\n"
		"storage x {\n alg linear\n node remote 127.0.0.1:7001 secret-file %s/nokey\n}\n",
		dir, dir);
	fclose(f);
	err = fmemopen(msg, sizeof(msg), "w");
	assert_int_equal(config_load(path, &c, err), 0);
	assert_int_equal(config_check(&c, err, CONF_CHECK_ALL), -1);
	fclose(err);
	assert_non_null(strstr(msg, "dst.conf:8: secret file "));
	assert_non_null(strstr(msg, "/nokey: No such file or directory"));
	assert_non_null(strstr(msg, "dst.conf:1: secret file "));
	assert_non_null(strstr(msg, "/k: group or others may access it (mode 0644); chmod 600 it"));
	config_free(&c);
	snprintf(path, sizeof(path), "%s/k", dir);
	assert_int_equal(chmod(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/dst.conf", dir);

	/* A file that includes itself. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("include dst.conf\n", f);
	fclose(f);
	err = fmemopen(msg, sizeof(msg), "w");
	assert_int_equal(config_load(path, &c, err), -1);
	fclose(err);
	assert_non_null(strstr(msg, "includes nested more than 8 deep"));
	config_free(&c);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* UTF-8 in paths (udev's by-label links) and a byte order mark are read. */
static void test_config_utf8(void **state)
{
	static const char conf[] =
		"\xef\xbb\xbfstorage s {\n alg linear\n node local /dev/disk/by-label/Donn\xc3\xa9" "es\n}\n";
	struct dst_config c;

	(void)state;
	assert_int_equal(config_parse("t.conf", conf, sizeof(conf) - 1, &c, stderr), 0);
	assert_string_equal(c.storages[0].name, "s");
	assert_string_equal(c.storages[0].nodes[0].target, "/dev/disk/by-label/Donn\xc3\xa9" "es");
	config_free(&c);
}

/* What is allowed but likely wrong: said with CONF_CHECK_WARN alone. */
static void test_config_warnings(void **state)
{
	static const char conf[] =
		"storage x {\n alg linear\n node local /dev/dst/nosuch\n}\n"
		"export e {\n device /dev/sdb\n listen 0.0.0.0:7000\n}\n"
		"export f {\n device /dev/sdc\n listen 127.0.0.1:7001\n}\n";
	struct dst_config c;
	char msg[512] = "";
	FILE *f;

	(void)state;
	f = fmemopen(msg, sizeof(msg), "w");
	assert_int_equal(config_parse("t.conf", conf, sizeof(conf) - 1, &c, f), 0);
	fclose(f);
	assert_string_equal(msg, "");
	f = fmemopen(msg, sizeof(msg), "w");
	assert_int_equal(config_check(&c, f, CONF_CHECK_WARN), 0);
	fclose(f);
	assert_string_equal(msg,
		"t.conf:3: warning: storage 'x': node /dev/dst/nosuch is no storage of this file\n"
		"t.conf:5: warning: export 'e' listens on 0.0.0.0:7000 but has no 'allow': only loopback clients may connect\n");
	config_free(&c);
}

static void test_config_dump(void **state)
{
	const char *text = "storage m {\n\talg mirror\n\tchunk-size 64K\n\tresync-max 50M\n"
			   "\tnode local /dev/a\n\tnode remote [::1]:7000 timeout 5"
			   " secret-file /etc/dst/m.key integrity write-mostly write-behind 64\n}\n\n"
			   "storage t {\n\talg linear\n"
			   "\tnode remote 10.0.0.2:7000 secret-file /etc/dst/t.key tls\n"
			   "\tnode remote 10.0.0.5:7000 secret-file /etc/dst/t.key tls"
			   " tls-cipher chacha20-poly1305\n"
			   "\tnode remote 10.0.0.3:7000 tls-cipher aes-128-gcm tls-cert /c.pem"
			   " tls-key /c.key tls-ca /ca.pem\n"
			   "\tnode remote 10.0.0.4:7000 tls-ca /ca.pem tls-name s4.example\n}\n\n"
			   "export x {\n\tdevice /dev/dst/m\n\tlisten 127.0.0.1:7000\n"
			   "\tallow 10.0.0.0/8\n\tallow 2001:db8::/32 read-only\n"
			   "\tsecret-file /etc/dst/x.key\n\tintegrity\n\tshared\n}\n\n"
			   "export y {\n\tdevice /dev/b\n\tlisten 127.0.0.1:7001\n"
			   "\tallow 10.1.0.0/16 name c1.example\n"
			   "\tallow 10.2.0.0/16 read-only name c2.example\n"
			   "\ttls-cipher aes-256-gcm\n\ttls-cert /s.pem\n\ttls-key /s.key\n"
			   "\ttls-ca /ca.pem\n}\n";
	struct dst_config c;
	char msg[256], *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(parse_text(text, &c, msg, sizeof(msg)), 0);
	f = open_memstream(&out, &len);
	config_dump(f, &c);
	fclose(f);
	assert_string_equal(out, text);
	free(out);
	config_free(&c);
}

static void test_events(void **state)
{
	struct monitor_opts mo;
	struct event_info ev;
	char buf[1024], *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(PARSE(monitor_parse, &mo, "monitor"), EXIT_OK);
	assert_false(mo.json);
	assert_int_equal(PARSE(monitor_parse, &mo, "monitor", "--json"), EXIT_OK);
	assert_true(mo.json);
	assert_int_equal(PARSE(monitor_parse, &mo, "monitor", "x"), EXIT_USAGE);
	assert_int_equal(PARSE(monitor_parse, &mo, "monitor", "-t", "--state", "--program",
			       "/usr/local/bin/alert"), EXIT_OK);
	assert_true(mo.timestamps && mo.state && !mo.json);
	assert_string_equal(mo.program, "/usr/local/bin/alert");
	assert_int_equal(PARSE(monitor_parse, &mo, "monitor", "--program", "alert"), EXIT_USAGE);
	assert_int_equal(PARSE(monitor_parse, &mo, "monitor", "--program"), EXIT_USAGE);

	assert_int_equal(event_parse(event_msg(buf, DST_CMD_EVENT, DST_EVENT_NODE_DOWN,
					       "m", 2, 0), &ev), 0);
	assert_string_equal(ev.what, "node-down");
	assert_string_equal(ev.name, "m");
	assert_true(ev.has_node && ev.node == 2 && !ev.has_bytes && !ev.export);
	f = open_memstream(&out, &len);
	assert_int_equal(event_print(f, &ev, false, 0), 0);
	assert_int_equal(event_parse(event_msg(buf, DST_CMD_EVENT, DST_EVENT_RESYNC_DONE,
					       "m", 1, 1), &ev), 0);
	assert_int_equal(event_print(f, &ev, true, 0), 0);
	assert_int_equal(event_parse(event_msg(buf, DST_CMD_EXPORT_NEW, 0, "e0", -1, 0),
				     &ev), 0);
	assert_int_equal(event_print(f, &ev, false, 0), 0);
	assert_int_equal(event_parse(event_msg(buf, DST_CMD_STORAGE_DEL, 0, "s", -1, 0),
				     &ev), 0);
	assert_int_equal(event_print(f, &ev, true, 0), 0);
	fclose(f);
	assert_string_equal(out,
		"storage m node2: node-down\n"
		"{\"event\":\"resync-done\",\"storage\":\"m\",\"node\":1,\"bytes\":12345}\n"
		"export e0: created\n"
		"{\"event\":\"deleted\",\"storage\":\"s\"}\n");
	free(out);

	/* With the time (here in UTC), and an "exists" line of --state. */
	setenv("TZ", "UTC", 1);
	tzset();
	out = NULL;
	f = open_memstream(&out, &len);
	memset(&ev, 0, sizeof(ev));
	ev.what = "exists";
	strcpy(ev.name, "m");
	ev.has_node = true;
	ev.node = 1;
	ev.state = "connected in-sync";
	assert_int_equal(event_print(f, &ev, false, 1796439600), 0);
	assert_int_equal(event_print(f, &ev, true, 1796439600), 0);
	fclose(f);
	assert_string_equal(out,
		"2026-12-05T03:00:00+0000 storage m node1: exists connected in-sync\n"
		"{\"time\":\"2026-12-05T03:00:00+0000\",\"event\":\"exists\",\"storage\":\"m\","
		"\"node\":1,\"state\":\"connected in-sync\"}\n");
	free(out);

	/* Unknown type, missing parts, other commands: not an event we know. */
	assert_int_equal(event_parse(event_msg(buf, DST_CMD_EVENT, __DST_EVENT_MAX, "m", 1, 0),
				     &ev), -1);
	assert_int_equal(event_parse(event_msg(buf, DST_CMD_EVENT, -1, "m", 1, 0), &ev), -1);
	assert_int_equal(event_parse(event_msg(buf, DST_CMD_EVENT, DST_EVENT_NODE_UP, NULL, 1, 0),
				     &ev), -1);
	assert_int_equal(event_parse(event_msg(buf, DST_CMD_INFO, 0, "m", -1, 0), &ev), -1);
}

static void test_format_size(void **state)
{
	char b[32];

	(void)state;
	format_size(b, sizeof(b), 0);
	assert_string_equal(b, "0 B");
	format_size(b, sizeof(b), 1023);
	assert_string_equal(b, "1023 B");
	format_size(b, sizeof(b), 1024);
	assert_string_equal(b, "1.00 KiB");
	format_size(b, sizeof(b), 1536ULL << 20);
	assert_string_equal(b, "1.50 GiB");
	format_size(b, sizeof(b), UINT64_MAX);
	assert_string_equal(b, "16.00 EiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_parse),
		cmocka_unit_test(test_create_parse_bitmap),
		cmocka_unit_test(test_create_parse_errors),
		cmocka_unit_test(test_delete_parse),
		cmocka_unit_test(test_status_parse),
		cmocka_unit_test(test_main_usage),
		cmocka_unit_test(test_command_table),
		cmocka_unit_test(test_addr_roundtrip),
		cmocka_unit_test(test_addr_reject),
		cmocka_unit_test(test_format_addr_errors),
		cmocka_unit_test(test_add_parse),
		cmocka_unit_test(test_add_parse_errors),
		cmocka_unit_test(test_import_parse),
		cmocka_unit_test(test_export_parse),
		cmocka_unit_test(test_export_security_parse),
		cmocka_unit_test(test_secret_load),
		cmocka_unit_test(test_name_parsers),
		cmocka_unit_test(test_main_usage_new),
		cmocka_unit_test(test_parse_random_argv),
		cmocka_unit_test(test_storage_info_parse),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_node_info_parse),
		cmocka_unit_test(test_storage_nodes_parse),
		cmocka_unit_test(test_export_info_parse),
		cmocka_unit_test(test_reply_callbacks),
		cmocka_unit_test(test_status_json_full),
		cmocka_unit_test(test_status_text_full),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_create_chunk_size),
		cmocka_unit_test(test_start_parse),
		cmocka_unit_test(test_resize_parse),
		cmocka_unit_test(test_verify_parse),
		cmocka_unit_test(test_remove_parse),
		cmocka_unit_test(test_mirror_info_parse),
		cmocka_unit_test(test_status_tree),
		cmocka_unit_test(test_health_check),
		cmocka_unit_test(test_options_table),
		cmocka_unit_test(test_tls_parse),
		cmocka_unit_test(test_remote_args),
		cmocka_unit_test(test_resync_options),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_config_parse),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_include),
		cmocka_unit_test(test_config_utf8),
		cmocka_unit_test(test_config_warnings),
		cmocka_unit_test(test_config_dump),
	};

	return cmocka_run_group_tests_name("dstadm", tests, NULL, NULL);
}
