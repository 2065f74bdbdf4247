// SPDX-License-Identifier: GPL-2.0
/*
 * dstadm: the commands of the configuration file: check-config, dump, up
 * and down.  up and down go in dependency order: a storage whose local
 * node is /dev/dst/NAME after NAME, an export after the storage it
 * serves; down the other way round.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/genetlink.h>

#include "config.h"
#include "nl.h"

struct conf_opts {
	bool help;
	bool dry_run;			/* adjust */
	bool nothing;			/* up, down: nothing configured */
	const char *file;
	const char *name;
};

/*
 * CMD [-c FILE] [NAME]; check-config [-c FILE | FILE]; dump and adjust
 * take no NAME.  The options each takes are those of its table.
 */
static int conf_parse(const char *cmd, int argc, char *argv[],
		      struct conf_opts *o, bool file_arg)
{
	bool named = !strcmp(cmd, "up") || !strcmp(cmd, "down");
	bool file_given = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->file = DST_CONFIG_FILE;
	optind = 0;
	opterr = 0;
	while ((c = cmd_getopt(argc, argv, cmd)) != -1) {
		switch (c) {
		case 'c':
			o->file = optarg;
			file_given = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'h':
			o->help = true;
			print_command_help(stdout, find_command(cmd));
			return EXIT_OK;
		default:
			return bad_option(cmd, c, argv);
		}
	}
	if (optind + 1 < argc || (optind < argc && !named && !file_arg))
		return usage_error(cmd, "unexpected argument '%s'", argv[argc - 1]);
	if (optind < argc && file_arg && file_given)
		return usage_error(cmd, "the file given twice: '%s' and '%s'", o->file,
				   argv[optind]);
	if (optind < argc) {
		if (file_arg)
			o->file = argv[optind];
		else
			o->name = argv[optind];
	}
	return EXIT_OK;
}

int cmd_check_config(int argc, char *argv[])
{
	struct dst_config c;
	struct conf_opts o;
	int ret;

	ret = conf_parse("check-config", argc, argv, &o, true);
	if (ret || o.help)
		return ret;
	if (config_load(o.file, &c, stderr) < 0)
		return EXIT_FAIL;
	if (config_check(&c, stderr, CONF_CHECK_ALL) < 0) {
		config_free(&c);
		return EXIT_FAIL;
	}
	printf("%s: %zu storage(s), %zu export(s): ok\n", o.file, c.nstorages,
	       c.nexports);
	config_free(&c);
	return EXIT_OK;
}

int cmd_dump(int argc, char *argv[])
{
	struct dst_config c;
	struct conf_opts o;
	int ret;

	ret = conf_parse("dump", argc, argv, &o, false);
	if (ret || o.help)
		return ret;
	if (config_load(o.file, &c, stderr) < 0)
		return EXIT_FAIL;
	config_dump(stdout, &c);
	config_free(&c);
	return EXIT_OK;
}

/*
 * Storages in dependency order into @order (c->nstorages entries); -1
 * after saying so on a cycle.
 */
static int storage_order(const struct dst_config *c, size_t *order)
{
	unsigned char *state = calloc(c->nstorages ? c->nstorages : 1, 1);
	size_t n = 0, i, j, k;
	bool progress = true;
	const struct conf_storage *dep;
	bool ready;

	if (!state) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		return -1;
	}
	while (n < c->nstorages && progress) {
		progress = false;
		for (i = 0; i < c->nstorages; i++) {
			if (state[i])
				continue;
			ready = true;
			for (j = 0; j < c->storages[i].nnodes && ready; j++) {
				if (c->storages[i].nodes[j].type != DST_NODE_LOCAL)
					continue;
				dep = config_dev_storage(c, c->storages[i].nodes[j].target);
				k = dep ? (size_t)(dep - c->storages) : 0;
				ready = !dep || state[k];
			}
			if (ready) {
				state[i] = 1;
				order[n++] = i;
				progress = true;
			}
		}
	}
	free(state);
	if (n < c->nstorages) {
		fprintf(stderr, "%s: the storages' local nodes /dev/dst/NAME make a cycle\n", PROG);
		return -1;
	}
	return 0;
}

/*
 * Whether up acts on @s: all of them, or those that the storage or export
 * @only needs.
 */
static bool storage_wanted(const struct dst_config *c, const char *only,
			   const struct conf_storage *s)
{
	const struct conf_storage *root = NULL;
	const struct conf_export *e;

	if (!only)
		return true;
	root = config_storage(c, only);
	e = config_export(c, only);
	if (!root && e)
		root = config_dev_storage(c, e->device);
	return root && (root == s || config_built_on(c, root, s));
}

/* Whether up or down act on @e: all, the export @only, or @only's exports. */
static bool export_wanted(const struct dst_config *c, const char *only,
			  const struct conf_export *e)
{
	return !only || !strcmp(only, e->name) ||
	       (config_storage(c, only) &&
		config_dev_storage(c, e->device) == config_storage(c, only));
}

struct kernel_state {
	struct storage_list sl;
	struct export_list el;
};

static int kernel_state(struct kernel_state *k)
{
	struct dst_nl nl;
	int ret = 0;

	memset(k, 0, sizeof(*k));
	if (dst_nl_open(&nl) < 0)
		return -1;
	if (status_dump(&nl, DST_CMD_STORAGE_GET, storage_list_cb, &k->sl) < 0 ||
	    status_dump(&nl, DST_CMD_EXPORT_GET, export_list_cb, &k->el) < 0)
		ret = -1;
	dst_nl_close(&nl);
	return ret;
}

static void kernel_state_free(struct kernel_state *k)
{
	storage_list_free(&k->sl);
	free(k->el.v);
}

static const struct export_info *kernel_export(const struct kernel_state *k,
					       const char *name)
{
	size_t i;

	for (i = 0; i < k->el.n; i++)
		if (!strcmp(k->el.v[i].name, name))
			return &k->el.v[i];
	return NULL;
}

static const struct storage_info *kernel_storage(const struct kernel_state *k,
						  const char *name)
{
	size_t i;

	for (i = 0; i < k->sl.n; i++)
		if (!strcmp(k->sl.v[i].name, name))
			return &k->sl.v[i];
	return NULL;
}

/* udev makes /dev/dst/NAME shortly after the start: wait for it. */
static void wait_for_link(const char *dev)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	struct stat st;
	int i;

	for (i = 0; i < 100 && stat(dev, &st) < 0; i++)
		nanosleep(&ts, NULL);
}

/* Add the configured node @n to the storage @s. */
static int conf_node_add(const struct dst_config *c, const struct conf_storage *s,
			 const struct conf_node *n)
{
	struct add_opts ao = {
		.name = s->name, .type = n->type, .target = n->target,
		.addr = n->addr, .addr_len = n->addr_len, .ra = n->ra,
		.la = n->la,
	};
	uint32_t id;

	if (n->type == DST_NODE_LOCAL) {
		if (config_dev_storage(c, n->target))
			wait_for_link(n->target);
		ao.path = n->target;
	}
	return node_add(&ao, &id);
}

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_port == b4->sin_port &&
		       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return a6->sin6_port == b6->sin6_port &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

static bool same_node(const struct conf_node *cn, const struct node_info *ni)
{
	if (cn->type != ni->type ||
	    cn->la.write_mostly != ni->la.write_mostly ||
	    cn->la.write_behind != ni->la.write_behind)
		return false;
	if (cn->type == DST_NODE_LOCAL)
		return !strcmp(cn->target, ni->path);
	/* As for exports, a secret counts only as being there or not. */
	return same_addr(&cn->addr, &ni->addr) && cn->ra.integrity == ni->integrity &&
	       !!cn->secret_file == ni->auth && tls_args_same(&cn->ra.tls, &ni->tls);
}

static bool conf_has_node(const struct conf_storage *s, const struct node_info *ni)
{
	size_t j;

	for (j = 0; j < s->nnodes; j++)
		if (same_node(&s->nodes[j], ni))
			return true;
	return false;
}

static bool kernel_has_node(const struct storage_info *si, const struct conf_node *cn)
{
	size_t j;

	for (j = 0; j < si->nnodes; j++)
		if (same_node(cn, &si->nodes[j]))
			return true;
	return false;
}

/*
 * Whether the storage @si made by an earlier up holds the first of @s's
 * nodes in their order: a linear storage's nodes are its address space.
 */
static bool linear_prefix(const struct conf_storage *s, const struct storage_info *si)
{
	size_t j;

	if (si->nnodes > s->nnodes)
		return false;
	for (j = 0; j < si->nnodes; j++)
		if (!same_node(&s->nodes[j], &si->nodes[j]))
			return false;
	return true;
}

/*
 * Bring @s up: create it if it is missing, add the configured nodes it
 * lacks, start it.  A storage is started only whole, but a mirror that
 * the file marks start-degraded starts with the legs it got (and a later
 * up adds the others, to it running).  A linear storage short of a node
 * is deleted again; a mirror is left stopped with the legs it has, for
 * the next up.  Returns EXIT_FAIL after saying what it could not do, or
 * EXIT_DEGRADED for a mirror that runs short of legs.
 */
static int storage_up(const struct dst_config *c, const struct conf_storage *s,
		      const struct kernel_state *k)
{
	const struct storage_info *si = kernel_storage(k, s->name);
	bool mirror = !strcmp(s->alg, "mirror");
	struct storage_args args = { 0 };
	size_t j, added = 0, missing = 0;

	if (si && !mirror && !linear_prefix(s, si)) {
		fprintf(stderr, "%s: storage '%s' has other nodes than %s says: down and up to change them\n",
			PROG, s->name, c->files[0]);
		return EXIT_FAIL;
	}
	if (si && si->state == DST_STORAGE_RUNNING && !mirror)
		return EXIT_OK;
	if (!si) {
		args = (struct storage_args){
			.alg = s->alg, .chunk_size = s->chunk_size,
			.resync_min = s->resync_min, .resync_max = s->resync_max,
			.bitmap = s->bitmap,
		};
		if (storage_request(DST_CMD_STORAGE_NEW, s->name, &args))
			return EXIT_FAIL;
	}
	for (j = 0; j < s->nnodes; j++) {
		if (si && kernel_has_node(si, &s->nodes[j]))
			continue;
		/* Past a gap, a linear storage's nodes would land elsewhere. */
		if (missing && !mirror)
			missing++;
		else if (conf_node_add(c, s, &s->nodes[j]))
			missing++;
		else
			added++;
	}
	if (!si)
		printf("%s: created with %zu node(s)\n", s->name, added);
	else if (added)
		printf("%s: %zu node(s) added\n", s->name, added);
	if (missing && !mirror) {
		fprintf(stderr, "%s: storage '%s': %zu of its %zu nodes missing: not started (a linear storage starts only whole)\n",
			PROG, s->name, missing, s->nnodes);
		if (!storage_request(DST_CMD_STORAGE_DEL, s->name, NULL))
			printf("%s: deleted again, for the next up\n", s->name);
		return EXIT_FAIL;
	}
	if (si && si->state == DST_STORAGE_RUNNING) {
		if (!missing)
			return EXIT_OK;
		fprintf(stderr, "%s: %sstorage '%s' runs degraded, %zu of its %zu legs missing\n",
			PROG, s->start_degraded ? "warning: " : "", s->name, missing, s->nnodes);
		return s->start_degraded ? EXIT_DEGRADED : EXIT_FAIL;
	}
	if (missing && (!s->start_degraded || missing == s->nnodes)) {
		fprintf(stderr, "%s: storage '%s': %zu of its %zu legs missing: not started (start-degraded is not set)\n",
			PROG, s->name, missing, s->nnodes);
		return EXIT_FAIL;
	}
	if (missing)
		fprintf(stderr, "%s: warning: storage '%s' starts degraded, %zu of its %zu legs missing (start-degraded)\n",
			PROG, s->name, missing, s->nnodes);
	memset(&args, 0, sizeof(args));
	if (storage_request(DST_CMD_STORAGE_START, s->name, &args))
		return EXIT_FAIL;
	printf("%s: started%s\n", s->name, missing ? " degraded" : "");
	return missing ? EXIT_DEGRADED : EXIT_OK;
}

static int export_up_fresh(const struct dst_config *c, const struct conf_export *e)
{
	struct export_opts eo = { 0 };

	if (config_dev_storage(c, e->device))
		wait_for_link(e->device);
	eo.name = e->name;
	eo.device = e->device;
	eo.listen = e->listen;
	eo.addr = e->addr;
	eo.addr_len = e->addr_len;
	eo.read_only = e->read_only;
	eo.integrity = e->integrity;
	eo.shared = e->shared;
	eo.secret_file = e->secret_file;
	eo.allow = e->allow;
	eo.tls = e->tls;
	if (export_request(DST_CMD_EXPORT_NEW, &eo))
		return EXIT_FAIL;
	printf("%s: exported on %s\n", e->name, e->listen);
	return EXIT_OK;
}

static int export_up(const struct dst_config *c, const struct conf_export *e,
		     const struct kernel_state *k)
{
	if (kernel_export(k, e->name))
		return EXIT_OK;
	return export_up_fresh(c, e);
}

/* Load the config and the kernel's state, and order the storages. */
static int conf_begin(const char *cmd, int argc, char *argv[], struct conf_opts *o,
		      struct dst_config *c, struct kernel_state *k, size_t **order)
{
	int ret = conf_parse(cmd, argc, argv, o, false);

	if (ret || o->help)
		return ret;
	if (config_load(o->file, c, stderr) < 0)
		return EXIT_FAIL;
	/*
	 * Warnings only: a secret file that cannot be read fails its own
	 * object when it is used, not the whole file (check-config says it).
	 */
	if (strcmp(cmd, "down"))
		config_check(c, stderr, CONF_CHECK_FILES | CONF_CHECK_WARN);
	/* Nothing configured: nothing to ask the kernel, which may lack dst. */
	if (!c->nstorages && !c->nexports && !o->name) {
		config_free(c);
		o->nothing = true;
		return EXIT_OK;
	}
	if (o->name && !config_storage(c, o->name) && !config_export(c, o->name)) {
		fprintf(stderr, "%s: '%s' is not in %s\n", PROG, o->name, o->file);
		config_free(c);
		return EXIT_FAIL;
	}
	*order = calloc(c->nstorages ? c->nstorages : 1, sizeof(**order));
	if (!*order || storage_order(c, *order) < 0 || kernel_state(k) < 0) {
		free(*order);
		config_free(c);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* The configured storage that @s is built on and that is not up, if any. */
static const struct conf_storage *failed_below(const struct dst_config *c,
					       const struct conf_storage *s,
					       const bool *failed)
{
	const struct conf_storage *dep;
	size_t j;

	for (j = 0; j < s->nnodes; j++) {
		dep = s->nodes[j].type == DST_NODE_LOCAL ?
		      config_dev_storage(c, s->nodes[j].target) : NULL;
		if (dep && failed[dep - c->storages])
			return dep;
	}
	return NULL;
}

/* Adds @name to the list of what failed, for the last line. */
static void note_failed(char *list, size_t size, const char *name)
{
	size_t len = strlen(list);

	snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

/*
 * Everything configured (or @name and what it needs), each object on its
 * own: one that fails, and what is built on it, is left out, and the rest
 * still comes up.  Exits 1 naming all that is not up, or up degraded.
 */
int cmd_up(int argc, char *argv[])
{
	const struct conf_storage *s, *dep;
	char failures[1024] = "", degraded[1024] = "";
	struct kernel_state k;
	struct dst_config c;
	struct conf_opts o;
	size_t *order, i;
	bool *failed;
	int ret;

	ret = conf_begin("up", argc, argv, &o, &c, &k, &order);
	if (ret || o.help || o.nothing)
		return ret;
	failed = calloc(c.nstorages ? c.nstorages : 1, sizeof(*failed));
	if (!failed) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		ret = EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < c.nstorages; i++) {
		s = &c.storages[order[i]];
		if (!storage_wanted(&c, o.name, s))
			continue;
		dep = failed_below(&c, s, failed);
		if (dep)
			fprintf(stderr, "%s: storage '%s' is built on '%s', which is not up: left out\n",
				PROG, s->name, dep->name);
		ret = dep ? EXIT_FAIL : storage_up(&c, s, &k);
		if (ret == EXIT_DEGRADED) {
			note_failed(degraded, sizeof(degraded), s->name);
		} else if (ret) {
			failed[order[i]] = true;
			note_failed(failures, sizeof(failures), s->name);
		}
	}
	ret = EXIT_OK;
	for (i = 0; i < c.nexports; i++) {
		if (!export_wanted(&c, o.name, &c.exports[i]))
			continue;
		dep = config_dev_storage(&c, c.exports[i].device);
		if (dep && failed[dep - c.storages])
			fprintf(stderr, "%s: export '%s' serves '%s', which is not up: left out\n",
				PROG, c.exports[i].name, dep->name);
		if ((dep && failed[dep - c.storages]) || export_up(&c, &c.exports[i], &k))
			note_failed(failures, sizeof(failures), c.exports[i].name);
	}
	/* Degraded counts too: dst.service then tries again for the legs. */
	if (degraded[0])
		fprintf(stderr, "%s: up, degraded: %s\n", PROG, degraded);
	if (failures[0])
		fprintf(stderr, "%s: not up: %s\n", PROG, failures);
	if (failures[0] || degraded[0])
		ret = EXIT_FAIL;
	free(failed);
out:
	kernel_state_free(&k);
	free(order);
	config_free(&c);
	return ret;
}

/*
 * Exports first, then storages, the last made first; past one that fails
 * (a storage still open, say) to all the others.  Exits 1 naming all that
 * is still there.
 */
int cmd_down(int argc, char *argv[])
{
	const struct conf_storage *s;
	char failures[1024] = "";
	struct export_opts eo;
	struct kernel_state k;
	struct dst_config c;
	struct conf_opts o;
	size_t *order, i;
	int ret;

	ret = conf_begin("down", argc, argv, &o, &c, &k, &order);
	if (ret || o.help || o.nothing)
		return ret;
	for (i = c.nexports; i-- > 0;) {
		if (!kernel_export(&k, c.exports[i].name) ||
		    !export_wanted(&c, o.name, &c.exports[i]))
			continue;
		memset(&eo, 0, sizeof(eo));
		eo.name = c.exports[i].name;
		if (export_request(DST_CMD_EXPORT_DEL, &eo))
			note_failed(failures, sizeof(failures), eo.name);
		else
			printf("%s: unexported\n", eo.name);
	}
	for (i = c.nstorages; i-- > 0;) {
		s = &c.storages[order[i]];
		if (!kernel_storage(&k, s->name) || (o.name && strcmp(o.name, s->name)))
			continue;
		if (storage_request(DST_CMD_STORAGE_DEL, s->name, NULL))
			note_failed(failures, sizeof(failures), s->name);
		else
			printf("%s: stopped and deleted\n", s->name);
	}
	if (failures[0]) {
		fprintf(stderr, "%s: still up: %s\n", PROG, failures);
		ret = EXIT_FAIL;
	}
	kernel_state_free(&k);
	free(order);
	config_free(&c);
	return ret;
}

/*
 * A storage that exists: its nodes (a mirror's legs can change while it
 * runs, a stopped storage's too), then start it.  What cannot change
 * without stopping it (algorithm, chunk size, bitmap, a running linear
 * storage's nodes) is reported and counts as a failure.
 */
static int storage_adjust(const struct dst_config *c, const struct conf_storage *s,
			  const struct storage_info *si, bool dry)
{
	bool running = si->state == DST_STORAGE_RUNNING;
	uint32_t chunk = s->chunk_size ? s->chunk_size :
			 !strcmp(s->alg, "mirror") ? DST_CHUNK_DEFAULT : 0;
	struct storage_args args = { 0 };
	size_t j, nadd = 0, ndel = 0;

	if (strcmp(si->alg, s->alg) || si->chunk_size != chunk ||
	    strcmp(si->bitmap, s->bitmap ? s->bitmap : "")) {
		fprintf(stderr, "%s: storage '%s' runs with another algorithm, chunk size or bitmap than %s: down and up to change them\n",
			PROG, s->name, c->files[0]);
		return EXIT_FAIL;
	}
	for (j = 0; j < s->nnodes; j++)
		nadd += !kernel_has_node(si, &s->nodes[j]);
	for (j = 0; j < si->nnodes; j++)
		ndel += !conf_has_node(s, &si->nodes[j]);
	if ((nadd || ndel) && running && strcmp(s->alg, "mirror")) {
		fprintf(stderr, "%s: storage '%s' is running: its nodes change only while stopped (down and up)\n",
			PROG, s->name);
		return EXIT_FAIL;
	}
	/* New legs first, so that a mirror keeps its copies meanwhile. */
	for (j = 0; j < s->nnodes; j++) {
		if (kernel_has_node(si, &s->nodes[j]))
			continue;
		printf("%s: add %s %s\n", s->name,
		       s->nodes[j].type == DST_NODE_LOCAL ? "local" : "remote",
		       s->nodes[j].target);
		if (!dry && conf_node_add(c, s, &s->nodes[j]))
			return EXIT_FAIL;
	}
	for (j = 0; j < si->nnodes; j++) {
		if (conf_has_node(s, &si->nodes[j]))
			continue;
		printf("%s: remove node%u\n", s->name, si->nodes[j].id);
		if (!dry && node_del(s->name, si->nodes[j].id))
			return EXIT_FAIL;
	}
	if (!running) {
		printf("%s: start\n", s->name);
		if (!dry && storage_request(DST_CMD_STORAGE_START, s->name, &args))
			return EXIT_FAIL;
	}
	return EXIT_OK;
}

static bool same_allow(const struct allow_list *a, const struct allow_list *b)
{
	unsigned int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->v[i].family != b->v[i].family || a->v[i].prefix != b->v[i].prefix ||
		    a->v[i].read_only != b->v[i].read_only ||
		    strcmp(a->v[i].name, b->v[i].name) ||
		    memcmp(a->v[i].addr, b->v[i].addr, a->v[i].family == AF_INET ? 4 : 16))
			return false;
	return true;
}

/*
 * Whether the running export is the configured one.  A secret cannot be
 * read back: only whether there is one counts.
 */
static bool export_same(const struct export_info *ei, const struct conf_export *e)
{
	return !strcmp(ei->device, e->device) && ei->read_only == e->read_only &&
	       same_addr(&ei->addr, &e->addr) && ei->integrity == e->integrity &&
	       ei->shared == e->shared && ei->auth == !!e->secret_file &&
	       same_allow(&ei->allow, &e->allow) && tls_args_same(&ei->tls, &e->tls);
}

int cmd_adjust(int argc, char *argv[])
{
	const struct storage_info *si;
	const struct export_info *ei;
	const struct conf_storage *s;
	const struct conf_export *e;
	struct export_opts eo;
	struct kernel_state k;
	struct dst_config c;
	struct conf_opts o;
	size_t *order, i;
	int ret, rc = EXIT_OK;

	ret = conf_begin("adjust", argc, argv, &o, &c, &k, &order);
	if (ret || o.help || o.nothing)
		return ret;
	for (i = 0; i < c.nstorages; i++) {
		s = &c.storages[order[i]];
		si = kernel_storage(&k, s->name);
		if (!si && o.dry_run) {
			printf("%s: create with %zu node(s) and start\n", s->name, s->nnodes);
			ret = EXIT_OK;
		} else if (!si) {
			ret = storage_up(&c, s, &k) ? EXIT_FAIL : EXIT_OK;
		} else {
			ret = storage_adjust(&c, s, si, o.dry_run);
		}
		if (ret)
			rc = ret;
	}
	for (i = 0; i < c.nexports; i++) {
		e = &c.exports[i];
		ei = kernel_export(&k, e->name);
		if (ei && export_same(ei, e))
			continue;
		if (ei) {
			printf("%s: unexport, to export it again as configured\n", e->name);
			memset(&eo, 0, sizeof(eo));
			eo.name = e->name;
			if (!o.dry_run && export_request(DST_CMD_EXPORT_DEL, &eo)) {
				rc = EXIT_FAIL;
				continue;
			}
		}
		if (o.dry_run) {
			printf("%s: export on %s\n", e->name, e->listen);
			continue;
		}
		if (export_up_fresh(&c, e))
			rc = EXIT_FAIL;
	}
	kernel_state_free(&k);
	free(order);
	config_free(&c);
	return rc;
}
