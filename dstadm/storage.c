// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: create, delete, start and stop storages; import a remote disk.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "dstadm.h"
#include "nl.h"

/* A resync speed: bytes per second with a suffix, at least 1K; in KiB/s. */
static int parse_rate(const char *opt, const char *s, uint32_t *kibs)
{
	uint64_t v;

	if (parse_size(s, &v) < 0 || v < 1024 || v >> 10 > UINT32_MAX)
		return usage_error("create",
				   "invalid %s '%s': bytes per second from 1K, e.g. 50M",
				   opt, s);
	*kibs = (uint32_t)(v >> 10);
	return EXIT_OK;
}

/* A region size: a power of two from DST_CHUNK_MIN to DST_CHUNK_MAX. */
static int parse_chunk_size(const char *s, uint32_t *chunk_size)
{
	uint64_t v;

	if (parse_size(s, &v) < 0 || v < DST_CHUNK_MIN || v > DST_CHUNK_MAX ||
	    (v & (v - 1)))
		return usage_error("create",
				   "invalid chunk size '%s': a power of two from 4K to 1G",
				   s);
	*chunk_size = (uint32_t)v;
	return EXIT_OK;
}

/*
 * The bitmap path, made absolute against the current directory: the
 * kernel opens it, from its own root.
 */
static int parse_bitmap(const char *s, char *path, size_t len)
{
	char cwd[PATH_MAX];
	int n;

	if (!*s)
		return usage_error("create", "empty --bitmap path");
	if (*s == '/') {
		n = snprintf(path, len, "%s", s);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return usage_error("create", "cannot get the current directory: %s",
					   strerror(errno));
		n = snprintf(path, len, "%s/%s", cwd, s);
	}
	if (n < 0 || (size_t)n >= len)
		return usage_error("create", "--bitmap path too long (at most %d bytes)",
				   DST_BITMAP_PATH_MAX - 1);
	return EXIT_OK;
}

int create_parse(int argc, char *argv[], struct create_opts *o)
{
	int c, ret;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "create")) != -1) {
		switch (c) {
		case 'a':
			/* The module knows its algorithms (dstadm version). */
			if (o->alg)
				return usage_error("create", "--alg given twice");
			o->alg = optarg;
			break;
		case 'c':
			ret = parse_chunk_size(optarg, &o->chunk_size);
			if (ret)
				return ret;
			break;
		case 'm':
		case 'M':
			ret = parse_rate(c == 'm' ? "--resync-min" : "--resync-max",
					 optarg, c == 'm' ? &o->resync_min :
							    &o->resync_max);
			if (ret)
				return ret;
			break;
		case 'b':
			ret = parse_bitmap(optarg, o->bitmap, sizeof(o->bitmap));
			if (ret)
				return ret;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("create"));
			return EXIT_OK;
		default:
			return bad_option("create", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("create", "missing storage name");
	if (optind + 1 < argc)
		return usage_error("create", "unexpected argument '%s'", argv[optind + 1]);
	if (!o->alg)
		return usage_error("create", "missing --alg ALG (e.g. linear, mirror)");
	o->name = argv[optind];
	return new_name("create", o->name);
}

/* Send @cmd for the storage @name (with @args); report any error. */
int storage_request(uint8_t cmd, const char *name,
			   const struct storage_args *args)
{
	struct nlmsghdr *nlh;
	struct dst_nl nl;
	int ret = EXIT_FAIL;

	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	nlh = dst_nl_msg(&nl, cmd, 0);
	if (dst_nl_put_storage(&nl, nlh, name, args) < 0)
		goto out;
	if (dst_nl_request(&nl, nlh, NULL, NULL) < 0) {
		dst_nl_perror(&nl, "storage '%s'", name);
		goto out;
	}
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}

int cmd_create(int argc, char *argv[])
{
	struct storage_args args;
	struct create_opts o;
	int ret;

	ret = create_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	args = (struct storage_args){
		.alg = o.alg,
		.chunk_size = o.chunk_size,
		.resync_min = o.resync_min,
		.resync_max = o.resync_max,
		.bitmap = o.bitmap[0] ? o.bitmap : NULL,
	};
	return storage_request(DST_CMD_STORAGE_NEW, o.name, &args);
}

int delete_parse(int argc, char *argv[], struct delete_opts *o)
{
	memset(o, 0, sizeof(*o));
	return name_parse("delete", "storage", argc, argv, &o->help, &o->name);
}

int cmd_delete(int argc, char *argv[])
{
	struct delete_opts o;
	int ret;

	ret = delete_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	return storage_request(DST_CMD_STORAGE_DEL, o.name, NULL);
}

int start_parse(int argc, char *argv[], struct start_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "start")) != -1) {
		switch (c) {
		case 'A':
			o->assume_clean = true;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("start"));
			return EXIT_OK;
		default:
			return bad_option("start", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("start", "missing storage name");
	if (optind + 1 < argc)
		return usage_error("start", "unexpected argument '%s'", argv[optind + 1]);
	o->name = argv[optind];
	return EXIT_OK;
}

int verify_parse(int argc, char *argv[], struct verify_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "verify")) != -1) {
		switch (c) {
		case 'r':
			o->repair = true;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("verify"));
			return EXIT_OK;
		default:
			return bad_option("verify", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("verify", "missing storage name");
	if (optind + 1 < argc)
		return usage_error("verify", "unexpected argument '%s'", argv[optind + 1]);
	o->name = argv[optind];
	return EXIT_OK;
}

int cmd_verify(int argc, char *argv[])
{
	struct storage_args args;
	struct verify_opts o;
	int ret;

	ret = verify_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	args = (struct storage_args){ .repair = o.repair };
	return storage_request(DST_CMD_STORAGE_VERIFY, o.name, &args);
}

int stop_parse(int argc, char *argv[], struct name_opts *o)
{
	memset(o, 0, sizeof(*o));
	return name_parse("stop", "storage", argc, argv, &o->help, &o->name);
}

int cmd_start(int argc, char *argv[])
{
	struct storage_args args;
	struct start_opts o;
	int ret;

	ret = start_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	args = (struct storage_args){ .assume_clean = o.assume_clean };
	return storage_request(DST_CMD_STORAGE_START, o.name, &args);
}

int cmd_stop(int argc, char *argv[])
{
	struct name_opts o;
	int ret;

	ret = stop_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	return storage_request(DST_CMD_STORAGE_STOP, o.name, NULL);
}

int import_parse(int argc, char *argv[], struct import_opts *o)
{
	int c, ret;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "import")) != -1) {
		switch (c) {
		case 'r':
			o->remote = optarg;
			break;
		case 't':
		case 'D':
		case 'R':
		case 'S':
		case 'I':
		case 'T':
		case OPT_TLS_CERT:
		case OPT_TLS_KEY:
		case OPT_TLS_CA:
		case OPT_TLS_CIPHER:
		case OPT_TLS_NAME:
			ret = parse_remote_arg("import", c, optarg, &o->ra);
			if (ret)
				return ret;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("import"));
			return EXIT_OK;
		default:
			return bad_option("import", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("import", "missing storage name");
	if (optind + 1 < argc)
		return usage_error("import", "unexpected argument '%s'", argv[optind + 1]);
	if (!o->remote)
		return usage_error("import", "missing --remote ADDR:PORT");
	ret = parse_addr_arg("import", "remote address", o->remote, &o->addr,
			     &o->addr_len) ?:
	      tls_args_check("import", &o->ra.tls, o->ra.secret_file, o->remote);
	if (ret)
		return ret;
	o->name = argv[optind];
	return new_name("import", o->name);
}

static int storage_id_cb(const struct nlmsghdr *nlh, void *data)
{
	struct storage_info si;
	const struct nlattr *attr;
	uint32_t *id = data;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != DST_A_STORAGE)
			continue;
		if (storage_info_parse(attr, &si) < 0) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		*id = si.id;
		storage_info_free(&si);
		return MNL_CB_OK;
	}
	errno = EPROTO;
	return MNL_CB_ERROR;
}

/* One step of import: @cmd for the storage @o->name; 0 or -1. */
static int import_step(struct dst_nl *nl, const struct import_opts *o,
		       uint8_t cmd, mnl_cb_t cb, void *data)
{
	static const struct storage_args linear = { .alg = "linear" };
	struct nlmsghdr *nlh = dst_nl_msg(nl, cmd, 0);

	if (dst_nl_put_storage(nl, nlh, o->name, cmd == DST_CMD_STORAGE_NEW ?
			       &linear : NULL) < 0)
		return -1;
	if (cmd == DST_CMD_NODE_ADD &&
	    dst_nl_put_node(nl, nlh, DST_NODE_REMOTE, &o->addr, o->addr_len,
			    NULL, &o->ra, NULL) < 0)
		return -1;
	if (dst_nl_request(nl, nlh, cb, data) < 0) {
		switch (cmd) {
		case DST_CMD_STORAGE_NEW:
			dst_nl_perror(nl, "storage '%s'", o->name);
			break;
		case DST_CMD_NODE_ADD:
			dst_nl_perror(nl, "storage '%s': node %s", o->name, o->remote);
			break;
		case DST_CMD_STORAGE_START:
			dst_nl_perror(nl, "storage '%s': start", o->name);
			break;
		case DST_CMD_STORAGE_DEL:
			dst_nl_perror(nl, "storage '%s': delete after failure", o->name);
			break;
		default:
			dst_nl_perror(nl, "storage '%s': get", o->name);
			break;
		}
		return -1;
	}
	return 0;
}

int cmd_import(int argc, char *argv[])
{
	struct import_opts o;
	struct dst_nl nl;
	uint32_t id = 0;
	int ret;

	ret = import_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	ret = EXIT_FAIL;
	if (import_step(&nl, &o, DST_CMD_STORAGE_NEW, NULL, NULL) < 0)
		goto out;
	if (import_step(&nl, &o, DST_CMD_NODE_ADD, NULL, NULL) < 0 ||
	    import_step(&nl, &o, DST_CMD_STORAGE_START, NULL, NULL) < 0) {
		/* Undo the create; the failing step has been reported. */
		if (import_step(&nl, &o, DST_CMD_STORAGE_DEL, NULL, NULL) < 0)
			fprintf(stderr, "%s: storage '%s' is left over; 'dstadm delete %s' removes it\n",
				PROG, o.name, o.name);
		goto out;
	}
	if (import_step(&nl, &o, DST_CMD_STORAGE_GET, storage_id_cb, &id) < 0)
		goto out;
	printf("/dev/dst%u\n", id);
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}
