// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: showconf, what runs printed as a dst.conf (as wg showconf and
 * drbdsetup show do), so that storages made by hand can be kept in
 * /etc/dst.conf.  Values that are the module's defaults are left out;
 * secrets, which the kernel never shows back, are a comment.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "nl.h"

static char *addr_text(const struct sockaddr_storage *ss, socklen_t len)
{
	char buf[ADDR_STRLEN];

	if (format_addr(ss, len, buf, sizeof(buf)) < 0)
		return NULL;
	return strdup(buf);
}

static int storage_conf(struct conf_storage *s, const struct storage_info *si)
{
	bool mirror = !strcmp(si->alg, "mirror");
	size_t j;

	snprintf(s->name, sizeof(s->name), "%s", si->name);
	snprintf(s->alg, sizeof(s->alg), "%s", si->alg);
	if (mirror && si->chunk_size != DST_CHUNK_DEFAULT)
		s->chunk_size = si->chunk_size;
	if (mirror && si->resync_min != DST_RESYNC_MIN_DEFAULT)
		s->resync_min = si->resync_min;
	if (mirror && si->resync_max != DST_RESYNC_MAX_DEFAULT)
		s->resync_max = si->resync_max;
	if (si->bitmap[0] && !(s->bitmap = strdup(si->bitmap)))
		return -1;
	s->nodes = calloc(si->nnodes ? si->nnodes : 1, sizeof(*s->nodes));
	if (!s->nodes)
		return -1;
	for (j = 0; j < si->nnodes; j++) {
		const struct node_info *ni = &si->nodes[j];
		struct conf_node *n = &s->nodes[s->nnodes++];

		n->type = ni->type;
		n->la = ni->la;
		if (ni->type == DST_NODE_LOCAL) {
			n->target = strdup(ni->path);
		} else {
			n->target = addr_text(&ni->addr, ni->addr_len);
			if (ni->timeout != DST_DEFAULT_TIMEOUT)
				n->ra.timeout = ni->timeout;
			n->ra.has_dead_timeout = ni->dead_timeout != 0;
			n->ra.dead_timeout = ni->dead_timeout;
			if (ni->reconnect_max != DST_DEFAULT_RECONNECT_MAX)
				n->ra.reconnect_max = ni->reconnect_max;
			n->ra.integrity = ni->integrity;
			n->ra.tls = ni->tls;
			n->secret_hidden = ni->auth;
		}
		if (!n->target)
			return -1;
	}
	return 0;
}

static int export_conf(struct conf_export *e, const struct export_info *ei)
{
	snprintf(e->name, sizeof(e->name), "%s", ei->name);
	e->device = strdup(ei->device);
	e->listen = addr_text(&ei->addr, ei->addr_len);
	e->read_only = ei->read_only;
	e->integrity = ei->integrity;
	e->shared = ei->shared;
	e->tls = ei->tls;
	e->secret_hidden = ei->auth;
	if (ei->has_allow)
		e->allow = ei->allow;
	return e->device && e->listen ? 0 : -1;
}

int cmd_showconf(int argc, char *argv[])
{
	struct storage_list sl = { NULL, 0, 0 };
	struct export_list el = { NULL, 0, 0 };
	struct dst_config c = { 0 };
	const char *name;
	struct dst_nl nl;
	int ret = EXIT_FAIL;
	bool help;
	size_t i;

	ret = name_parse("showconf", NULL, argc, argv, &help, &name);
	if (ret || help)
		return ret;
	ret = EXIT_FAIL;
	if (dst_nl_open(&nl) < 0)
		return EXIT_FAIL;
	if (status_dump(&nl, DST_CMD_STORAGE_GET, storage_list_cb, &sl) < 0 ||
	    status_dump(&nl, DST_CMD_EXPORT_GET, export_list_cb, &el) < 0)
		goto out;
	c.storages = calloc(sl.n ? sl.n : 1, sizeof(*c.storages));
	c.exports = calloc(el.n ? el.n : 1, sizeof(*c.exports));
	if (!c.storages || !c.exports)
		goto nomem;
	for (i = 0; i < sl.n; i++, c.nstorages++)
		if (storage_conf(&c.storages[i], &sl.v[i]) < 0)
			goto nomem;
	for (i = 0; i < el.n; i++, c.nexports++)
		if (export_conf(&c.exports[i], &el.v[i]) < 0)
			goto nomem;
	printf("# What runs, from dstadm showconf.\n");
	config_dump(stdout, &c);
	ret = EXIT_OK;
	goto out;
nomem:
	fprintf(stderr, "%s: out of memory\n", PROG);
out:
	config_free(&c);
	storage_list_free(&sl);
	free(el.v);
	dst_nl_close(&nl);
	return ret;
}
