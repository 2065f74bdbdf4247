// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: print the module's events as they happen, optionally after the
 * state of everything first, and run a program for each (as mdadm
 * --monitor runs its PROGRAM).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
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
	[DST_EVENT_RESIZE] = "resize",
	[DST_EVENT_VERIFY_START] = "verify-start",
	[DST_EVENT_VERIFY_DONE] = "verify-done",
	[DST_EVENT_RESYNC_ABORT] = "resync-abort",
};

int monitor_parse(int argc, char *argv[], struct monitor_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "monitor")) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 't':
			o->timestamps = true;
			break;
		case 's':
			o->state = true;
			break;
		case 'p':
			if (optarg[0] != '/')
				return usage_error("monitor", "--program needs an absolute path, not '%s'",
						   optarg);
			o->program = optarg;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("monitor"));
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
		case DST_EVENT_A_MISMATCHES:
			if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
				return -1;
			ev->has_mismatches = true;
			ev->mismatches = mnl_attr_get_u64(attr);
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

int event_print(FILE *f, const struct event_info *ev, bool json, time_t when)
{
	struct json_object *o;
	char stamp[40] = "";
	struct tm tm;
	const char *s;
	int ret = -1;

	if (when && localtime_r(&when, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S%z", &tm);
	if (!json) {
		if (stamp[0])
			fprintf(f, "%s ", stamp);
		fprintf(f, "%s %s", ev->export ? "export" : "storage", ev->name);
		if (ev->has_node)
			fprintf(f, " node%u", ev->node);
		fprintf(f, ": %s", ev->what);
		if (ev->state)
			fprintf(f, " %s", ev->state);
		if (ev->has_bytes)
			fprintf(f, " (%llu bytes%s)", (unsigned long long)ev->bytes,
				strcmp(ev->what, "resize") ? " resynced" : "");
		if (ev->has_mismatches)
			fprintf(f, " (%llu mismatched blocks)",
				(unsigned long long)ev->mismatches);
		fputc('\n', f);
		return fflush(f) ? -1 : 0;
	}
	o = json_object_new_object();
	if (!o ||
	    (stamp[0] && json_object_object_add(o, "time", json_object_new_string(stamp))) ||
	    json_object_object_add(o, "event", json_object_new_string(ev->what)) ||
	    json_object_object_add(o, ev->export ? "export" : "storage",
				   json_object_new_string(ev->name)) ||
	    (ev->has_node &&
	     json_object_object_add(o, "node", json_object_new_int64(ev->node))) ||
	    (ev->state &&
	     json_object_object_add(o, "state", json_object_new_string(ev->state))) ||
	    (ev->has_bytes &&
	     json_object_object_add(o, "bytes", json_object_new_uint64(ev->bytes))) ||
	    (ev->has_mismatches &&
	     json_object_object_add(o, "mismatches",
				    json_object_new_uint64(ev->mismatches))))
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

/*
 * --program: PROGRAM EVENT NAME [NODE], with the event in the environment
 * too; waited for, so that programs never pile up.  Its failure is said,
 * and monitoring goes on.
 */
static void run_program(const char *program, const struct event_info *ev)
{
	char node[16] = "", bytes[24] = "", mismatches[24] = "";
	int status;
	pid_t pid;

	if (ev->has_node)
		snprintf(node, sizeof(node), "%u", ev->node);
	if (ev->has_bytes)
		snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)ev->bytes);
	if (ev->has_mismatches)
		snprintf(mismatches, sizeof(mismatches), "%llu",
			 (unsigned long long)ev->mismatches);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: run %s: %s\n", PROG, program, strerror(errno));
		return;
	}
	if (pid == 0) {
		setenv("DST_EVENT", ev->what, 1);
		setenv(ev->export ? "DST_EXPORT" : "DST_STORAGE", ev->name, 1);
		if (node[0])
			setenv("DST_NODE", node, 1);
		if (bytes[0])
			setenv("DST_BYTES", bytes, 1);
		if (mismatches[0])
			setenv("DST_MISMATCHES", mismatches, 1);
		execl(program, program, ev->what, ev->name, node[0] ? node : NULL,
		      (char *)NULL);
		fprintf(stderr, "%s: run %s: %s\n", PROG, program, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "%s: %s %s %s: exit status %d\n", PROG, program,
			ev->what, ev->name, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "%s: %s %s %s: killed by signal %d\n", PROG, program,
			ev->what, ev->name, WTERMSIG(status));
}

static int emit(const struct monitor_opts *o, const struct event_info *ev)
{
	if (event_print(stdout, ev, o->json, o->timestamps ? time(NULL) : 0) < 0)
		return -1;
	if (o->program && strcmp(ev->what, "exists"))
		run_program(o->program, ev);
	return 0;
}

/*
 * --state: an "exists" line for each storage, node and export, read on a
 * socket of its own (the events queue meanwhile on the other).
 */
static int print_state(const struct monitor_opts *o)
{
	struct storage_list sl = { NULL, 0, 0 };
	struct export_list el = { NULL, 0, 0 };
	struct event_info ev;
	struct dst_nl nl;
	char state[64];
	size_t i, j;
	int ret = -1;

	if (dst_nl_open(&nl) < 0)
		return -1;
	if (status_dump(&nl, DST_CMD_STORAGE_GET, storage_list_cb, &sl) < 0 ||
	    status_dump(&nl, DST_CMD_EXPORT_GET, export_list_cb, &el) < 0)
		goto out;
	for (i = 0; i < sl.n; i++) {
		const struct storage_info *si = &sl.v[i];

		memset(&ev, 0, sizeof(ev));
		ev.what = "exists";
		strcpy(ev.name, si->name);
		ev.state = storage_state_name(si->state);
		if (emit(o, &ev) < 0)
			goto write_error;
		for (j = 0; j < si->nnodes; j++) {
			const struct node_info *ni = &si->nodes[j];

			snprintf(state, sizeof(state), "%s%s%s", node_state_name(ni->state),
				 ni->has_sync ? " " : "",
				 ni->has_sync ? sync_state_name(ni->sync) : "");
			ev.has_node = true;
			ev.node = ni->id;
			ev.state = state;
			if (emit(o, &ev) < 0)
				goto write_error;
		}
	}
	for (i = 0; i < el.n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.what = "exists";
		ev.export = true;
		strcpy(ev.name, el.v[i].name);
		ev.state = "listening";
		if (emit(o, &ev) < 0)
			goto write_error;
	}
	ret = 0;
	goto out;
write_error:
	fprintf(stderr, "%s: write: %s\n", PROG, strerror(errno));
out:
	storage_list_free(&sl);
	free(el.v);
	dst_nl_close(&nl);
	return ret;
}

static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct monitor_opts *o = data;
	struct event_info ev;

	/* Events of a newer module that this dstadm does not know: skipped. */
	if (event_parse(nlh, &ev) < 0)
		return MNL_CB_OK;
	return emit(o, &ev) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
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
	/* Joined first: no event is lost between the state and the events. */
	if (o.state && print_state(&o) < 0)
		goto out;
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
