/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dstadm: /etc/dst.conf, parsed and checked (config.c).  The format is in
 * dst.conf(5) and docs/CONFIG.md.
 */
#ifndef DSTADM_CONFIG_H
#define DSTADM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "dstadm.h"

#define DST_CONFIG_FILE		"/etc/dst.conf"
#define CONF_MAX_INCLUDE_DEPTH	8
#define CONF_MAX_FILE_SIZE	(1 << 20)

struct conf_node {
	uint32_t type;			/* enum dst_node_type */
	char *target;			/* the path, or ADDR:PORT as written */
	struct sockaddr_storage addr;	/* remote */
	socklen_t addr_len;
	struct remote_args ra;		/* remote; ra.secret_file is secret_file */
	struct leg_args la;
	char *secret_file;		/* remote, NULL: none */
	bool secret_hidden;		/* showconf: it has one, not shown */
	unsigned int line;		/* in its storage's file */
};

struct conf_storage {
	char name[DST_NAME_MAX];
	char alg[DST_ALG_NAME_MAX];
	uint32_t chunk_size;		/* 0: not given */
	uint32_t resync_min;		/* KiB/s, 0: not given */
	uint32_t resync_max;
	char *bitmap;			/* NULL: none */
	bool start_degraded;		/* up may start it with legs missing */
	struct conf_node *nodes;
	size_t nnodes;
	const char *file;		/* where it is defined */
	unsigned int line;
};

struct conf_export {
	char name[DST_NAME_MAX];
	char *device;
	char *listen;			/* as written */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	bool read_only;
	bool integrity;
	bool shared;			/* many writers at once */
	char *secret_file;		/* NULL: none */
	bool secret_hidden;		/* showconf: it has one, not shown */
	struct allow_list allow;	/* none: loopback clients only */
	struct tls_args tls;
	const char *file;
	unsigned int line;
};

struct dst_config {
	struct conf_storage *storages;
	size_t nstorages;
	struct conf_export *exports;
	size_t nexports;
	char **files;			/* every file read, for messages */
	size_t nfiles;
};

/*
 * Read @path and the files it includes into @c (zeroed first).  On the
 * first error, prints "FILE:LINE:COLUMN: what was expected" to @err and
 * returns -1; @c is then empty.  Free with config_free() in any case.
 */
int config_load(const char *path, struct dst_config *c, FILE *err);

enum {
	CONF_CHECK_FILES = 1,	/* compare devices by number too */
	CONF_CHECK_SECRETS = 2,	/* read the secret files as up would */
	CONF_CHECK_WARN = 4,	/* also say what is allowed but likely wrong */
	CONF_CHECK_ALL = CONF_CHECK_FILES | CONF_CHECK_SECRETS | CONF_CHECK_WARN,
};
/*
 * The checks across the whole of @c (config_check.c), each reported as
 * "FILE:LINE: ..." on @err; -1 if any error.  config_load() runs them
 * with CONF_CHECK_FILES, config_parse() without; check-config then with
 * all, up and adjust for the warnings.
 */
int config_check(const struct dst_config *c, FILE *err, unsigned int flags);
/* The same from a buffer named @name, which may not include files. */
int config_parse(const char *name, const char *buf, size_t len,
		 struct dst_config *c, FILE *err);
void config_free(struct dst_config *c);
/* The config as dstadm understood it, in the file format. */
void config_dump(FILE *f, const struct dst_config *c);

const struct conf_storage *config_storage(const struct dst_config *c,
					  const char *name);
/* @path without "//", "." and ".." (lexically) in @out. */
void config_clean_path(const char *path, char *out, size_t len);
/* The configured storage that /dev/dst/NAME (path cleaned) names, or NULL. */
const struct conf_storage *config_dev_storage(const struct dst_config *c,
					      const char *dev);
/* Whether @s is built, through its local nodes /dev/dst/NAME, on @on. */
bool config_built_on(const struct dst_config *c, const struct conf_storage *s,
		     const struct conf_storage *on);
const struct conf_export *config_export(const struct dst_config *c,
					const char *name);

#endif /* DSTADM_CONFIG_H */
