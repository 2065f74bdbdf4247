// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: status --check, the health of storages as an exit status, as
 * mdadm --detail --test gives it: 0 all well, 3 degraded (still serving
 * every block, with less redundancy than configured), 4 failed (a
 * storage that does not serve all of its blocks, or a configured storage
 * or export that is not there: mdadm's "missing").
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "dstadm.h"

static void node_name(char *buf, size_t len, const struct node_info *ni)
{
	char addr[80];

	if (ni->type == DST_NODE_LOCAL) {
		snprintf(buf, len, "node%u (%s)", ni->id, ni->path);
		return;
	}
	if (format_addr(&ni->addr, ni->addr_len, addr, sizeof(addr)) < 0)
		snprintf(addr, sizeof(addr), "remote");
	snprintf(buf, len, "node%u (%s)", ni->id, addr);
}

/* One storage: prints its problems on @f, returns its health. */
static int storage_health(FILE *f, const struct storage_info *si)
{
	bool mirror = !strcmp(si->alg, "mirror");
	size_t j, in_sync = 0;
	char what[PATH_MAX + 32];
	int health = EXIT_OK;

	if (si->state != DST_STORAGE_RUNNING) {
		fprintf(f, "%s: failed: %s\n", si->name, storage_state_name(si->state));
		return EXIT_FAILED;
	}
	for (j = 0; j < si->nnodes; j++) {
		const struct node_info *ni = &si->nodes[j];

		node_name(what, sizeof(what), ni);
		if (mirror && ni->has_sync && ni->sync != DST_SYNC_IN_SYNC) {
			fprintf(f, "%s: degraded: %s %s, %llu of %llu regions to copy\n",
				si->name, what, sync_state_name(ni->sync),
				(unsigned long long)ni->dirty, (unsigned long long)ni->regions);
			health = EXIT_DEGRADED;
		} else if (ni->state != DST_NODE_CONNECTED) {
			fprintf(f, "%s: %s: %s %s\n", si->name, mirror ? "degraded" : "failed",
				what, node_state_name(ni->state));
			health = mirror ? EXIT_DEGRADED : EXIT_FAILED;
			if (!mirror)
				return EXIT_FAILED;
		} else {
			in_sync++;
		}
	}
	if (mirror && !in_sync) {
		fprintf(f, "%s: failed: no leg in sync\n", si->name);
		return EXIT_FAILED;
	}
	return health;
}

static bool has_storage(const struct status_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!strcmp(set->si[i].name, name))
			return true;
	return false;
}

static bool has_export(const struct status_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->ne; i++)
		if (!strcmp(set->ei[i].name, name))
			return true;
	return false;
}

int health_check(FILE *f, const struct status_set *set,
		 const struct dst_config *conf, const char *name)
{
	size_t i, n = 0, bad = 0;
	int health = EXIT_OK, h;

	for (i = 0; conf && i < conf->nstorages; i++) {
		const char *cs = conf->storages[i].name;

		if ((name && strcmp(cs, name)) || has_storage(set, cs))
			continue;
		fprintf(f, "%s: failed: configured in %s, not there\n", cs, conf->files[0]);
		n++;
		bad++;
		health = EXIT_FAILED;
	}
	for (i = 0; conf && i < conf->nexports; i++) {
		const char *ce = conf->exports[i].name;

		if ((name && strcmp(ce, name)) || has_export(set, ce))
			continue;
		fprintf(f, "export %s: failed: configured in %s, not there\n", ce,
			conf->files[0]);
		bad++;
		health = EXIT_FAILED;
	}
	for (i = 0; i < set->n; i++) {
		if (name && strcmp(set->si[i].name, name))
			continue;
		n++;
		h = storage_health(f, &set->si[i]);
		if (h != EXIT_OK)
			bad++;
		if (h > health)
			health = h;
	}
	if (health == EXIT_OK)
		fprintf(f, "ok: %zu storage(s) healthy\n", n);
	else
		fprintf(f, "%zu problem(s), %s\n", bad,
			health == EXIT_FAILED ? "failed" : "degraded");
	return health;
}
