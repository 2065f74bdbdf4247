/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dstadm: administration of dst storages.
 */
#ifndef DSTADM_H
#define DSTADM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uapi/dst.h"

#define PROG "dstadm"

/* Exit codes, documented in dstadm(8). */
enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,
	EXIT_USAGE	= 2,
};

struct command {
	const char *name;
	int (*run)(int argc, char *argv[]);
	const char *args;
	const char *summary;
};

extern const struct command dstadm_commands[];
extern const size_t dstadm_ncommands;

int dstadm_main(int argc, char *argv[]);
const struct command *find_command(const char *name);
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void print_command_usage(FILE *f, const struct command *c);

/* One command per subcommand family file. */
int cmd_create(int argc, char *argv[]);
int cmd_delete(int argc, char *argv[]);
int cmd_status(int argc, char *argv[]);
int cmd_version(int argc, char *argv[]);
int cmd_help(int argc, char *argv[]);

/* Argument parsing, split from the commands so that it can be unit tested. */
/*
 * Each returns EXIT_OK with the options filled in (o->help set for -h,
 * after the help has been printed), or EXIT_USAGE after saying why.
 */
struct create_opts {
	bool help;
	const char *name;
	const char *alg;
};

struct delete_opts {
	bool help;
	const char *name;
};

struct status_opts {
	bool help;
	bool json;
	const char *name;
};

int create_parse(int argc, char *argv[], struct create_opts *o);
int delete_parse(int argc, char *argv[], struct delete_opts *o);
int status_parse(int argc, char *argv[], struct status_opts *o);
int bad_option(const char *cmd, int c, char *argv[]);

/* A storage as reported by the kernel. */
struct storage_info {
	char name[DST_NAME_MAX];
	char alg[DST_ALG_NAME_MAX];
	uint32_t id;
	uint32_t state;
	uint64_t size;
};

struct nlattr;
int storage_info_parse(const struct nlattr *nest, struct storage_info *si);
const char *storage_state_name(uint32_t state);
void status_print_text(FILE *f, const struct storage_info *si, size_t n);
int status_print_json(FILE *f, const struct storage_info *si, size_t n);
void format_size(char *buf, size_t len, uint64_t bytes);

#endif /* DSTADM_H */
