// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: print the module's events as they happen.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "dstadm.h"
#include "nl.h"

static const char *const event_names[] = {
	[DST_EVENT_NODE_DOWN] = "node-down",
	[DST_EVENT_NODE_UP] = "node-up",
	[DST_EVENT_LEG_OUT_OF_SYNC] = "out-of-sync",
	[DST_EVENT_RESYNC_START] = "resync-start",
	[DST_EVENT_RESYNC_DONE] = "resync-done",
	[DST_EVENT_RESYNC_ABORT] = "resync-abort",
};

static const struct option monitor_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int monitor_parse(int argc, char *argv[], struct monitor_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", monitor_options, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'h':
			o->help = true;
			print_command_usage(stdout, find_command("monitor"));
			return EXIT_OK;
		default:
			return bad_option("monitor", c, argv);
		}
	}
	if (optind < argc)
		return usage_error("monitor", "unexpected argument '%s'", argv[optind]);
	return EXIT_OK;
}

/* The name of a nest's first string attribute of type @type, or NULL. */
static const char *nest_name(const struct nlattr *nest, uint16_t type)
{
	const struct nlattr *attr;

	mnl_attr_for_each_nested(attr, nest)
		if (mnl_attr_get_type(attr) == type &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			return mnl_attr_get_str(attr);
	return NULL;
}

static int event_attrs(const struct nlattr *nest, struct event_info *ev)
{
	const struct nlattr *attr;
	const char *name;

	mnl_attr_for_each_nested(attr, nest) {
		switch (mnl_attr_get_type(attr)) {
		case DST_EVENT_A_TYPE:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0 ||
			    mnl_attr_get_u32(attr) >= __DST_EVENT_MAX)
				return -1;
			ev->what = event_names[mnl_attr_get_u32(attr)];
			break;
		case DST_EVENT_A_STORAGE:
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
				return -1;
			name = mnl_attr_get_str(attr);
			if (strlen(name) >= sizeof(ev->name))
				return -1;
			strcpy(ev->name, name);
			break;
		case DST_EVENT_A_NODE:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
				return -1;
			ev->has_node = true;
			ev->node = mnl_attr_get_u32(attr);
			break;
		case DST_EVENT_A_BYTES:
			if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
				return -1;
			ev->has_bytes = true;
			ev->bytes = mnl_attr_get_u64(attr);
			break;
		}
	}
	return ev->what && ev->name[0] ? 0 : -1;
}

int event_parse(const struct nlmsghdr *nlh, struct event_info *ev)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	const char *name;

	memset(ev, 0, sizeof(*ev));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*genl)))
		return -1;
	mnl_attr_for_each(attr, nlh, sizeof(*genl)) {
		switch (genl->cmd) {
		case DST_CMD_EVENT:
			if (mnl_attr_get_type(attr) == DST_A_EVENT)
				return event_attrs(attr, ev);
			break;
		case DST_CMD_STORAGE_NEW:
		case DST_CMD_STORAGE_DEL:
		case DST_CMD_EXPORT_NEW:
		case DST_CMD_EXPORT_DEL:
			if (mnl_attr_get_type(attr) != DST_A_STORAGE &&
			    mnl_attr_get_type(attr) != DST_A_EXPORT)
				break;
			ev->export = mnl_attr_get_type(attr) == DST_A_EXPORT;
			name = nest_name(attr, ev->export ? DST_EXPORT_A_NAME :
							    DST_STORAGE_A_NAME);
			if (!name || strlen(name) >= sizeof(ev->name))
				return -1;
			strcpy(ev->name, name);
			ev->what = genl->cmd == DST_CMD_STORAGE_NEW ||
				   genl->cmd == DST_CMD_EXPORT_NEW ?
				   "created" : "deleted";
			return 0;
		}
	}
	return -1;
}

int event_print(FILE *f, const struct event_info *ev, bool json)
{
	struct json_object *o;
	const char *s;
	int ret = -1;

	if (!json) {
		fprintf(f, "%s %s", ev->export ? "export" : "storage", ev->name);
		if (ev->has_node)
			fprintf(f, " node%u", ev->node);
		fprintf(f, ": %s", ev->what);
		if (ev->has_bytes)
			fprintf(f, " (%llu bytes resynced)",
				(unsigned long long)ev->bytes);
		fputc('\n', f);
		return fflush(f) ? -1 : 0;
	}
	o = json_object_new_object();
	if (!o ||
	    json_object_object_add(o, "event", json_object_new_string(ev->what)) ||
	    json_object_object_add(o, ev->export ? "export" : "storage",
				   json_object_new_string(ev->name)) ||
	    (ev->has_node &&
	     json_object_object_add(o, "node", json_object_new_int64(ev->node))) ||
	    (ev->has_bytes &&
	     json_object_object_add(o, "bytes", json_object_new_uint64(ev->bytes))))
		goto out;
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (s) {
		fprintf(f, "%s\n", s);
		ret = fflush(f) ? -1 : 0;
	}
out:
	json_object_put(o);
	return ret;
}

static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct monitor_opts *o = data;
	struct event_info ev;

	/* Events of a newer module that this dstadm does not know: skipped. */
	if (event_parse(nlh, &ev) < 0)
		return MNL_CB_OK;
	return event_print(stdout, &ev, o->json) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

int cmd_monitor(int argc, char *argv[])
{
	struct monitor_opts o;
	struct dst_nl nl;
	ssize_t len;
	int ret;

	ret = monitor_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;
	ret = EXIT_FAIL;
	if (!nl.events_group) {
		fprintf(stderr, "%s: the dst module has no events group\n", PROG);
		goto out;
	}
	if (mnl_socket_setsockopt(nl.sock, NETLINK_ADD_MEMBERSHIP,
				  &nl.events_group, sizeof(nl.events_group)) < 0) {
		fprintf(stderr, "%s: join the events group: %s\n", PROG,
			strerror(errno));
		goto out;
	}
	for (;;) {
		len = mnl_socket_recvfrom(nl.sock, nl.buf, sizeof(nl.buf));
		if (len < 0) {
			/* Lost events are said, not hidden; then go on. */
			if (errno == ENOBUFS) {
				fprintf(stderr, "%s: events lost (receive buffer full)\n",
					PROG);
				continue;
			}
			fprintf(stderr, "%s: receive: %s\n", PROG, strerror(errno));
			break;
		}
		if (mnl_cb_run(nl.buf, len, 0, 0, monitor_cb, &o) < 0) {
			fprintf(stderr, "%s: write: %s\n", PROG, strerror(errno));
			break;
		}
	}
out:
	dst_nl_close(&nl);
	return ret;
}
