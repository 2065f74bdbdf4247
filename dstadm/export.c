// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: serve block devices over the network, and stop serving them.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "dstadm.h"
#include "nl.h"

/* --allow ADDR[/LEN][,ro|,rw][,name=NAME], the last two in any order */
static int allow_arg(const char *arg, struct allow_list *l)
{
	char buf[INET6_ADDRSTRLEN + DST_TLS_PATH_MAX + 16], *word, *rest = buf;
	struct allow_entry *e;
	bool mode = false;

	if (l->n == DST_ALLOW_MAX)
		return usage_error("export", "more than %d --allow entries", DST_ALLOW_MAX);
	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	if (parse_allow(strsep(&rest, ","), e) < 0)
		goto bad;
	while ((word = strsep(&rest, ","))) {
		if (!mode && (!strcmp(word, "ro") || !strcmp(word, "rw"))) {
			e->read_only = word[1] == 'o';
			mode = true;
		} else if (!*e->name && !strncmp(word, "name=", 5) && word[5] &&
			   strlen(word + 5) < sizeof(e->name)) {
			strcpy(e->name, word + 5);
		} else {
			goto bad;
		}
	}
	l->n++;
	return EXIT_OK;
bad:
	return usage_error("export", "invalid --allow '%s': expected ADDR[/LEN][,ro][,name=NAME]",
			   arg);
}

int export_parse(int argc, char *argv[], struct export_opts *o)
{
	const char *why;
	int c, ret;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "export")) != -1) {
		switch (c) {
		case 'd':
			o->device = optarg;
			break;
		case 'l':
			o->listen = optarg;
			break;
		case 'r':
			o->read_only = true;
			break;
		case 'a':
			ret = allow_arg(optarg, &o->allow);
			if (ret)
				return ret;
			break;
		case 'S':
			if (!*optarg)
				return usage_error("export", "empty secret file name");
			o->secret_file = optarg;
			break;
		case 'I':
			o->integrity = true;
			break;
		case 's':
			o->shared = true;
			break;
		case 'T':
		case OPT_TLS_CERT:
		case OPT_TLS_KEY:
		case OPT_TLS_CA:
		case OPT_TLS_CIPHER:
			ret = parse_tls_arg("export", c, optarg, &o->tls);
			if (ret)
				return ret;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("export"));
			return EXIT_OK;
		default:
			return bad_option("export", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("export", "missing export name");
	if (optind + 1 < argc)
		return usage_error("export", "unexpected argument '%s'", argv[optind + 1]);
	if (!o->device || !*o->device)
		return usage_error("export", "missing --device PATH");
	if (!o->listen)
		return usage_error("export", "missing --listen ADDR:PORT");
	o->name = argv[optind];
	if (new_name("export", o->name) ||
	    tls_args_check("export", &o->tls, o->secret_file, NULL))
		return EXIT_USAGE;
	why = allow_names_problem(&o->allow, &o->tls);
	if (why)
		return usage_error("export", "%s", why);
	return parse_addr_arg("export", "listen address", o->listen, &o->addr,
			      &o->addr_len);
}

int unexport_parse(int argc, char *argv[], struct name_opts *o)
{
	memset(o, 0, sizeof(*o));
	return name_parse("unexport", "export", argc, argv, &o->help, &o->name);
}

/* Send @cmd for the export @o; report any error. */
int export_request(uint8_t cmd, const struct export_opts *o)
{
	struct nlmsghdr *nlh;
	struct dst_nl nl;
	int ret = EXIT_FAIL;

	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	nlh = dst_nl_msg(&nl, cmd, 0);
	if (dst_nl_put_export(&nl, nlh, o) < 0)
		goto out;
	if (dst_nl_request(&nl, nlh, NULL, NULL) < 0) {
		dst_nl_perror(&nl, "export '%s'", o->name);
		goto out;
	}
	ret = EXIT_OK;
out:
	dst_nl_close(&nl);
	return ret;
}

int cmd_export(int argc, char *argv[])
{
	struct export_opts o;
	int ret;

	ret = export_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	ret = export_request(DST_CMD_EXPORT_NEW, &o);
	if (!ret && !o.allow.n)
		fprintf(stderr, "%s: export '%s': no --allow given: only loopback clients may connect\n",
			PROG, o.name);
	return ret;
}

int cmd_unexport(int argc, char *argv[])
{
	struct export_opts eo = { 0 };
	struct name_opts o;
	int ret;

	ret = unexport_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	eo.name = o.name;
	return export_request(DST_CMD_EXPORT_DEL, &eo);
}
