// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: wait until every leg of a mirror is in sync, showing progress.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "dstadm.h"
#include "nl.h"

#define WAIT_POLL_MS	500
#define WAIT_BAR	30

int wait_parse(int argc, char *argv[], struct wait_opts *o)
{
	int c, ret;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, "wait")) != -1) {
		switch (c) {
		case 't':
			ret = parse_timeout("wait", optarg, &o->timeout);
			if (ret)
				return ret;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command("wait"));
			return EXIT_OK;
		default:
			return bad_option("wait", c, argv);
		}
	}
	if (optind >= argc)
		return usage_error("wait", "missing storage name");
	if (optind + 1 < argc)
		return usage_error("wait", "unexpected argument '%s'", argv[optind + 1]);
	o->name = argv[optind];
	return EXIT_OK;
}

/*
 * Where a mirror is: the least synced leg's percent; *@out_of_sync counts
 * legs that wait for their node.  -1 if @si is not a running mirror.
 */
int wait_progress(const struct storage_info *si, unsigned int *out_of_sync)
{
	unsigned int pct = 100, p;
	bool mirror = false;
	size_t i;

	*out_of_sync = 0;
	for (i = 0; i < si->nnodes; i++) {
		if (!si->nodes[i].has_sync)
			continue;
		mirror = true;
		p = si->nodes[i].sync == DST_SYNC_IN_SYNC ? 100 :
		    sync_percent(&si->nodes[i]);
		if (si->nodes[i].sync == DST_SYNC_OUT_OF_SYNC)
			(*out_of_sync)++;
		if (si->nodes[i].sync != DST_SYNC_IN_SYNC && p == 100)
			p = 99;
		if (p < pct)
			pct = p;
	}
	return mirror && si->state == DST_STORAGE_RUNNING ? (int)pct : -1;
}

/* One line of progress: a bar on a terminal, else a line per 10 %. */
static void wait_show(const struct storage_info *si, int pct,
		      unsigned int out_of_sync, bool tty, int *shown)
{
	char left[32], rate[32], bar[WAIT_BAR + 1];
	int n = pct * WAIT_BAR / 100;

	if (!tty && pct / 10 == *shown / 10 && *shown >= 0)
		return;
	*shown = pct;
	memset(bar, '#', n);
	memset(bar + n, '.', WAIT_BAR - n);
	bar[WAIT_BAR] = '\0';
	format_size(left, sizeof(left), si->resync_left);
	format_size(rate, sizeof(rate), si->resync_rate);
	fprintf(stderr, "%s%s: [%s] %3d%%, %s left, %s/s", tty ? "\r" : "",
		si->name, bar, pct, left, rate);
	if (si->resync_rate && si->resync_left)
		fprintf(stderr, ", about %llu s",
			(unsigned long long)resync_eta(si));
	if (out_of_sync)
		fprintf(stderr, ", %u leg(s) out of sync", out_of_sync);
	if (si->verify_left) {
		format_size(left, sizeof(left), si->verify_left);
		fprintf(stderr, ", verify: %s left, %llu block(s) differ", left,
			(unsigned long long)si->mismatches);
	}
	fprintf(stderr, tty ? "\033[K" : "\n");
}

static int wait_get(struct dst_nl *nl, const char *name, struct storage_list *l)
{
	static const struct storage_args none;
	struct nlmsghdr *nlh = dst_nl_msg(nl, DST_CMD_STORAGE_GET, 0);

	if (dst_nl_put_storage(nl, nlh, name, &none) < 0)
		return -1;
	if (dst_nl_request(nl, nlh, storage_list_cb, l) < 0 || l->n != 1) {
		dst_nl_perror(nl, "storage '%s'", name);
		return -1;
	}
	return 0;
}

int cmd_wait(int argc, char *argv[])
{
	const struct timespec tick = { 0, WAIT_POLL_MS * 1000000L };
	bool tty = isatty(STDERR_FILENO);
	unsigned int out_of_sync;
	struct storage_list l;
	struct wait_opts o;
	struct dst_nl nl;
	int ret, pct, shown = -1;
	time_t end;

	ret = wait_parse(argc, argv, &o);
	if (ret || o.help)
		return ret;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;

	end = time(NULL) + o.timeout;
	for (;;) {
		memset(&l, 0, sizeof(l));
		ret = EXIT_FAIL;
		if (wait_get(&nl, o.name, &l) < 0)
			break;
		pct = wait_progress(&l.v[0], &out_of_sync);
		if (pct < 0) {
			fprintf(stderr, "%s: storage '%s': not a running mirror\n",
				PROG, o.name);
			break;
		}
		wait_show(&l.v[0], pct, out_of_sync, tty, &shown);
		ret = EXIT_OK;
		if (pct == 100 && !l.v[0].verify_left)
			break;
		if (o.timeout && time(NULL) >= end) {
			fprintf(stderr, "%s%s: storage '%s': %s after %u s\n",
				tty ? "\n" : "", PROG, o.name,
				pct == 100 ? "verify not done" : "not in sync",
				o.timeout);
			ret = EXIT_FAIL;
			break;
		}
		storage_list_free(&l);
		nanosleep(&tick, NULL);
	}
	if (tty && shown >= 0 && ret == EXIT_OK)
		fputc('\n', stderr);
	storage_list_free(&l);
	dst_nl_close(&nl);
	return ret;
}
