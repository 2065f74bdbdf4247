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

#include "dstadm.h"

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

	assert_int_equal(PARSE(create_parse, &o, "create", "--help"), EXIT_OK);
	assert_true(o.help);
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

/*
 * Random argument vectors for the parsers: no crash, no leak, and every
 * result is either a usage error or a complete set of options.
 */
static void test_parse_random_argv(void **state)
{
	static char big[8192];
	char *pool[] = { "create", "x", "--alg", "-a", "linear", "--json", "-j",
			 "-h", "--help", "--", "-", "", "--alg=", "-aj", "-ja", big,
			 "--a", "-x", "r0", "%s%n", "--json=1" };
	const size_t npool = sizeof(pool) / sizeof(pool[0]);
	struct create_opts co;
	struct delete_opts dopt;
	struct status_opts so;
	char *argv[8];
	int i, j, argc, ret;

	(void)state;
	memset(big, 'A', sizeof(big) - 1);
	srandom(12345);
	for (i = 0; i < 20000; i++) {
		argc = 1 + random() % 6;
		argv[0] = "cmd";
		for (j = 1; j < argc; j++)
			argv[j] = pool[random() % npool];
		argv[argc] = NULL;

		ret = create_parse(argc, argv, &co);
		assert_true(ret == EXIT_USAGE ||
			    (ret == EXIT_OK && (co.help || (co.name && co.alg))));
		ret = delete_parse(argc, argv, &dopt);
		assert_true(ret == EXIT_USAGE || (ret == EXIT_OK && (dopt.help || dopt.name)));
		ret = status_parse(argc, argv, &so);
		assert_true(ret == EXIT_USAGE || ret == EXIT_OK);
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

typedef void (*text_fn)(FILE *, const struct storage_info *, size_t,
			const struct export_info *, size_t);
typedef int (*json_fn)(FILE *, const struct storage_info *, size_t,
		       const struct export_info *, size_t);

static char *capture(text_fn text, json_fn json, const struct storage_info *si,
		     size_t n, const struct export_info *ei, size_t ne)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	if (text)
		text(f, si, n, ei, ne);
	else
		assert_int_equal(json(f, si, n, ei, ne), 0);
	fclose(f);
	return out;
}

static const struct storage_info sample[] = {
	{ "r0", "mirror", 0, DST_STORAGE_STOPPED, 0, NULL, 0 },
	{ "big.vol-1", "linear", 3, DST_STORAGE_RUNNING, 3ULL << 40, NULL, 0 },
	{ "q\"uo\\te", "linear", 4, 99, 512, NULL, 0 },
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
	assert_non_null(strstr(out, "storage: r0\n  algorithm: mirror\n  state: stopped\n  size: 0 B\n"));
	assert_non_null(strstr(out, "\nstorage: big.vol-1 (/dev/dst3)\n  algorithm: linear\n  state: running\n"));
	assert_non_null(strstr(out, "size: 3.00 TiB\n"));
	free(out);
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
		cmocka_unit_test(test_create_parse_errors),
		cmocka_unit_test(test_delete_parse),
		cmocka_unit_test(test_status_parse),
		cmocka_unit_test(test_main_usage),
		cmocka_unit_test(test_command_table),
		cmocka_unit_test(test_parse_random_argv),
		cmocka_unit_test(test_storage_info_parse),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_format_size),
	};

	return cmocka_run_group_tests_name("dstadm", tests, NULL, NULL);
}
