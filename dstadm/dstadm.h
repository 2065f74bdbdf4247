/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dstadm: administration of dst storages.
 */
#ifndef DSTADM_H
#define DSTADM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <limits.h>
#include <sys/socket.h>

#include "uapi/dst.h"

#define PROG "dstadm"

/* Exit codes, documented in dstadm(8). */
enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,
	EXIT_USAGE	= 2,
	EXIT_DEGRADED	= 3,	/* status --check */
	EXIT_FAILED	= 4,	/* status --check */
};

/*
 * An option of a command.  The tables of dstadm.c are the one source of
 * the commands' parsers (cmd_getopt()), their usage lines and --help, and
 * through "dstadm help COMMAND" of the bash completion and of the host
 * test that checks dstadm(8).  @val is the option's short form, a letter,
 * or from OPT_LONG_ONLY up for an option with none.
 */
struct cmd_option {
	const char *name;
	int val;
	const char *arg;		/* its argument, NULL: takes none */
	bool required;
	const char *help;
};

enum {
	OPT_LONG_ONLY = 256,
	OPT_CHECK = OPT_LONG_ONLY,	/* status --check */
	OPT_TLS_CERT,
	OPT_TLS_KEY,
	OPT_TLS_CA,
	OPT_TLS_CIPHER,
	OPT_TLS_NAME,
};

struct command {
	const char *name;
	int (*run)(int argc, char *argv[]);
	const char *args;		/* the arguments that are not options */
	const struct cmd_option *options; /* up to { NULL }; -h, --help implied */
	const char *summary;
};

extern const struct command dstadm_commands[];
extern const size_t dstadm_ncommands;

int dstadm_main(int argc, char *argv[]);
const struct command *find_command(const char *name);
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The usage line of @c, from its table. */
void print_command_usage(FILE *f, const struct command *c);
/* -h, --help and "help COMMAND": the usage line, what it does, its options. */
void print_command_help(FILE *f, const struct command *c);
/*
 * getopt_long() over the options of the command @cmd and -h/--help:
 * returns the val of the next option ('h' for help), ':' or '?' as
 * getopt_long() does, -1 at the end.  The caller resets optind.
 */
int cmd_getopt(int argc, char *argv[], const char *cmd);

/* One command per subcommand family file. */
int cmd_create(int argc, char *argv[]);
int cmd_delete(int argc, char *argv[]);
int cmd_start(int argc, char *argv[]);
int cmd_stop(int argc, char *argv[]);
int cmd_resize(int argc, char *argv[]);
int cmd_verify(int argc, char *argv[]);
int cmd_add(int argc, char *argv[]);
int cmd_remove(int argc, char *argv[]);
int cmd_wait(int argc, char *argv[]);
int cmd_monitor(int argc, char *argv[]);
int cmd_import(int argc, char *argv[]);
int cmd_export(int argc, char *argv[]);
int cmd_unexport(int argc, char *argv[]);
int cmd_status(int argc, char *argv[]);
int cmd_version(int argc, char *argv[]);
int cmd_help(int argc, char *argv[]);
int cmd_up(int argc, char *argv[]);
int cmd_down(int argc, char *argv[]);
int cmd_check_config(int argc, char *argv[]);
int cmd_dump(int argc, char *argv[]);
int cmd_showconf(int argc, char *argv[]);
int cmd_adjust(int argc, char *argv[]);
int cmd_tlsd(int argc, char *argv[]);

/* Argument parsing, split from the commands so that it can be unit tested. */
/*
 * Each returns EXIT_OK with the options filled in (o->help set for -h,
 * after the help has been printed), or EXIT_USAGE after saying why.
 */
struct create_opts {
	bool help;
	const char *name;
	const char *alg;
	uint32_t chunk_size;		/* 0: not given */
	uint32_t resync_min;		/* KiB/s, 0: not given */
	uint32_t resync_max;		/* KiB/s, 0: not given */
	char bitmap[DST_BITMAP_PATH_MAX]; /* absolute, "": not given */
};

struct monitor_opts {
	bool help;
	bool json;
	bool timestamps;		/* -t: each line starts with the time */
	bool state;			/* -s: "exists" lines for what is there first */
	const char *program;		/* -p: run for each event */
};

/* An event of the "events" group. */
struct event_info {
	const char *what;		/* "created", "node-down", ..., "exists" */
	const char *state;		/* "exists": its state in words */
	char name[DST_NAME_MAX];	/* the storage or export */
	bool export;
	bool has_node;
	uint32_t node;
	bool has_bytes;
	uint64_t bytes;
	bool has_mismatches;
	uint64_t mismatches;		/* verify-done: blocks that differed */
};

struct wait_opts {
	bool help;
	const char *name;
	uint32_t timeout;		/* seconds, 0: none */
};

struct start_opts {
	bool help;
	bool assume_clean;
	const char *name;
};

struct verify_opts {
	bool help;
	bool repair;
	const char *name;
};

struct resize_opts {
	bool help;
	bool assume_clean;
	const char *name;
};

struct remove_opts {
	bool help;
	const char *name;
	const char *node;		/* as given */
	uint32_t id;
};

struct delete_opts {
	bool help;
	const char *name;
};

struct status_opts {
	bool help;
	bool json;
	bool check;
	const char *config;		/* --check: NULL, the default if there */
	const char *name;
};

/* stop, unexport: just a name. */
struct name_opts {
	bool help;
	const char *name;
};

/*
 * TLS of a remote node or an export: --tls alone takes the secret as PSK,
 * any file makes it X.509.  Paths are made absolute, for the agent.
 */
struct tls_args {
	bool on;
	char cert[DST_TLS_PATH_MAX];	/* "": none */
	char key[DST_TLS_PATH_MAX];
	char ca[DST_TLS_PATH_MAX];
	char name[DST_TLS_PATH_MAX];	/* node: the export's name, "": its host */
	uint32_t cipher;		/* enum dst_tls_cipher */
};

/* "none", "psk" or "x509": status, JSON and dst.conf. */
const char *tls_mode_name(uint32_t mode);
/* "any", "aes-128-gcm", "aes-256-gcm" or "chacha20-poly1305". */
const char *tls_cipher_name(uint32_t cipher);
/* The enum dst_tls_cipher named @name (not "any"), or -1. */
int tls_cipher_parse(const char *name);
/* enum dst_tls_mode of @t. */
uint32_t tls_mode(const struct tls_args *t);
/* --tls and --tls-*: 1 if @c is none of them (dstadm.c). */
int parse_tls_arg(const char *cmd, int c, const char *arg, struct tls_args *t);
/*
 * What is wrong with @t, or NULL: PSK needs a secret (@has_secret); with
 * X.509 a certificate needs its key, an export (@host NULL) needs both,
 * a node (@host its ADDR:PORT) the CA, and checks the export by @host's
 * address unless given a name, which this fills in.
 */
const char *tls_args_problem(struct tls_args *t, bool has_secret, const char *host);
/* The same after the options of @cmd, with the files made absolute. */
int tls_args_check(const char *cmd, struct tls_args *t, const char *secret_file,
		   const char *host);
/* Whether @a and @b ask for the same TLS. */
bool tls_args_same(const struct tls_args *a, const struct tls_args *b);

/* Options of a remote node; 0 or false where not given. */
struct remote_args {
	uint32_t timeout;		/* seconds a request may take */
	bool has_dead_timeout;
	uint32_t dead_timeout;		/* seconds I/O is held while down */
	uint32_t reconnect_max;		/* most seconds between reconnects */
	const char *secret_file;	/* NULL: no secret */
	bool integrity;			/* CRC32C on every message */
	struct tls_args tls;
};

/* What a mirror leg may be, local or remote (md's write-mostly). */
struct leg_args {
	bool write_mostly;		/* reads avoid it while others can */
	uint32_t write_behind;		/* writes it may be behind, 0: none */
};

/* An entry of an export's allow list: ADDR[/LEN] (addr.c). */
struct allow_entry {
	sa_family_t family;		/* AF_INET or AF_INET6 */
	uint8_t prefix;			/* leading bits that count */
	bool read_only;
	uint8_t addr[16];		/* 4 or 16 bytes, network order */
	char name[DST_TLS_PATH_MAX];	/* its clients' certificates', or "" */
};

struct allow_list {
	struct allow_entry v[DST_ALLOW_MAX];
	unsigned int n;
};

/* ADDR or ADDR/LEN, IPv4 or IPv6, host bits dropped; -1 if malformed. */
int parse_allow(const char *s, struct allow_entry *e);
/* "ADDR/LEN" into @buf; -1 if it does not fit. */
int format_allow(const struct allow_entry *e, char *buf, size_t size);
/* Why @l cannot name certificates with @t (X.509 with a CA), or NULL. */
const char *allow_names_problem(const struct allow_list *l, const struct tls_args *t);

/*
 * Read a shared secret from @path into @buf (DST_SECRET_MAX bytes): 1 to
 * DST_SECRET_MAX bytes, one trailing newline dropped; refused if the file
 * is not a regular file or group or others may access it.  Prints the
 * error and returns -1 (secret.c).
 */
int secret_load(const char *path, uint8_t *buf, size_t *len);
/* The same, saying what is wrong in @why instead of on stderr. */
int secret_read(const char *path, uint8_t *buf, size_t *len, char *why, size_t wlen);

struct add_opts {
	bool help;
	const char *name;
	uint32_t type;			/* enum dst_node_type */
	const char *target;		/* ADDR:PORT or PATH as given */
	const char *path;		/* local */
	struct sockaddr_storage addr;	/* remote */
	socklen_t addr_len;
	struct remote_args ra;		/* remote */
	struct leg_args la;
};

struct import_opts {
	bool help;
	const char *name;
	const char *remote;		/* as given */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	struct remote_args ra;
};

struct export_opts {
	bool help;
	bool read_only;
	bool integrity;			/* clients must use CRC32C */
	bool shared;			/* many writers at once */
	const char *name;
	const char *device;
	const char *listen;		/* as given */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	const char *secret_file;	/* NULL: no secret */
	struct allow_list allow;	/* none: loopback clients only */
	struct tls_args tls;
};

int create_parse(int argc, char *argv[], struct create_opts *o);
int delete_parse(int argc, char *argv[], struct delete_opts *o);
int status_parse(int argc, char *argv[], struct status_opts *o);
int start_parse(int argc, char *argv[], struct start_opts *o);
int stop_parse(int argc, char *argv[], struct name_opts *o);
int resize_parse(int argc, char *argv[], struct resize_opts *o);
int verify_parse(int argc, char *argv[], struct verify_opts *o);
int unexport_parse(int argc, char *argv[], struct name_opts *o);
int add_parse(int argc, char *argv[], struct add_opts *o);
int remove_parse(int argc, char *argv[], struct remove_opts *o);
int wait_parse(int argc, char *argv[], struct wait_opts *o);
int monitor_parse(int argc, char *argv[], struct monitor_opts *o);
struct nlmsghdr;
/* Fill @ev from a multicast message; -1 if it is none we know. */
int event_parse(const struct nlmsghdr *nlh, struct event_info *ev);
/*
 * One line, text or JSON, flushed, starting with the time @when (if not
 * 0); -1 on a write error.
 */
int event_print(FILE *f, const struct event_info *ev, bool json, time_t when);
int import_parse(int argc, char *argv[], struct import_opts *o);
int export_parse(int argc, char *argv[], struct export_opts *o);
/* The requests behind the commands, each reporting its own error. */
struct storage_args;
int storage_request(uint8_t cmd, const char *name,
		    const struct storage_args *args);
int export_request(uint8_t cmd, const struct export_opts *o);
int node_add(const struct add_opts *o, uint32_t *id);
int node_del(const char *name, uint32_t id);
int bad_option(const char *cmd, int c, char *argv[]);
int name_parse(const char *cmd, const char *what, int argc, char *argv[],
	       bool *help, const char **name);
int parse_timeout(const char *cmd, const char *s, uint32_t *timeout);
/* Decimal seconds from @min to @max; -1 if not. */
int parse_seconds(const char *s, unsigned long min, unsigned long max,
		  uint32_t *v);
/*
 * The options of a remote node, for getopt's @c and @arg: 1 if @c is not
 * one of them, else EXIT_OK or EXIT_USAGE.
 */
int parse_leg_arg(const char *cmd, int c, const char *arg, struct leg_args *la);
int parse_remote_arg(const char *cmd, int c, const char *arg,
		     struct remote_args *ra);
/*
 * A size in bytes: decimal digits with an optional binary suffix K, M, G,
 * T (or KiB, MiB, ...; any case).  0, or -1 if malformed or over 2^64-1.
 */
int parse_size(const char *s, uint64_t *bytes);
/*
 * A storage or export name as the module takes it: 1 to DST_NAME_MAX - 1
 * of A-Z a-z 0-9 _ . -, not starting with . or -.
 */
bool name_valid(const char *s);
/* The name of a storage or export to make: EXIT_OK, or a usage error. */
int new_name(const char *cmd, const char *name);
/* A node: "nodeN" or "N".  0, or -1 if malformed. */
int parse_node_id(const char *s, uint32_t *id);
int parse_addr_arg(const char *cmd, const char *what, const char *s,
		   struct sockaddr_storage *ss, socklen_t *len);

/*
 * Socket addresses as text: IPV4:PORT or [IPV6]:PORT, IPv6 with an
 * optional %SCOPE (interface name or index).  Only numeric hosts.
 */
#define ADDR_STRLEN	96	/* longest text accepted or made, with NUL */
enum {
	ADDR_E_LONG = 1,
	ADDR_E_NOPORT,
	ADDR_E_NOHOST,
	ADDR_E_PORT,
	ADDR_E_IPV6,
	ADDR_E_SYNTAX,
	ADDR_E_HOST,
};
/* Returns 0, or -ADDR_E_* (see addr_strerror()). */
int parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len);
const char *addr_strerror(int err);
/* Returns 0, or -1 for an address that is not IPv4/IPv6 or a short @buf. */
int format_addr(const struct sockaddr_storage *ss, socklen_t len, char *buf,
		size_t size);

/* A node of a storage as reported by the kernel. */
struct node_info {
	uint32_t id;
	uint32_t type;			/* enum dst_node_type */
	uint32_t state;			/* enum dst_node_state */
	uint32_t inflight;
	uint32_t timeout;		/* seconds */
	uint32_t dead_timeout;		/* seconds */
	uint32_t reconnect_max;		/* seconds */
	uint32_t reconnects;
	uint64_t size;
	uint64_t read_bytes;
	uint64_t write_bytes;
	bool has_sync;			/* a leg of a running mirror: */
	uint32_t sync;			/* enum dst_sync_state */
	uint64_t regions;		/* of the mirror's bitmap */
	uint64_t dirty;			/* regions this leg lacks */
	struct sockaddr_storage addr;	/* remote */
	socklen_t addr_len;
	bool auth;			/* remote: has a secret */
	bool integrity;			/* remote: CRC32C */
	struct tls_args tls;		/* remote */
	uint32_t tls_cipher_used;	/* remote: of the connection, 0: none */
	uint64_t crc_errors;		/* remote */
	char path[PATH_MAX];		/* local */
	struct leg_args la;
	bool has_behind;		/* a write-behind leg of a running mirror: */
	uint32_t behind;		/* writes it is behind now */
};

/* A storage as reported by the kernel. */
struct storage_info {
	char name[DST_NAME_MAX];
	char alg[DST_ALG_NAME_MAX];
	uint32_t id;
	uint32_t state;
	uint64_t size;
	uint32_t chunk_size;		/* 0: the algorithm has none */
	uint32_t resync_min;		/* KiB/s, with a chunk size */
	uint32_t resync_max;
	bool has_resync;		/* running mirror: */
	uint64_t resync_bytes;		/* copied by resync since start */
	uint64_t resync_rate;		/* bytes/s now */
	uint64_t resync_left;		/* bytes left to copy */
	char bitmap[DST_BITMAP_PATH_MAX]; /* "": none */
	bool has_started;		/* running mirror: */
	uint32_t started;		/* enum dst_start */
	bool has_bitmap_regions;	/* running, with a bitmap: */
	uint64_t bitmap_regions;	/* regions set in it */
	bool has_verify;		/* running mirror: */
	uint64_t mismatches;		/* blocks that differed, last verify */
	uint64_t verify_left;		/* bytes the running verify has left */
	bool verify_repair;		/* it repairs */
	struct node_info *nodes;	/* malloc()ed; storage_info_free() */
	size_t nnodes;
};

/* An export as reported by the kernel. */
/* A connected client of an export. */
struct client_info {
	struct sockaddr_storage addr;
	socklen_t addr_len;
	bool read_only;
	bool auth;
	bool integrity;
	bool tls;
	uint32_t tls_cipher;		/* enum dst_tls_cipher, with TLS */
};


struct export_info {
	char name[DST_NAME_MAX];
	char device[PATH_MAX];
	struct sockaddr_storage addr;
	socklen_t addr_len;
	bool read_only;
	uint64_t size;
	uint32_t clients;
	uint64_t refused;
	uint64_t denied;		/* not on the allow list */
	uint64_t auth_failed;
	uint64_t crc_errors;
	bool auth;			/* has a secret */
	bool integrity;
	struct tls_args tls;
	bool shared;			/* many writers at once */
	bool has_allow;			/* else loopback clients only */
	struct allow_list allow;
	struct client_info client[DST_CLIENT_LIST_MAX];
	size_t nclient;			/* entries of @client used */
};

struct nlattr;
/* Each fills its argument from a nest; -1 if it is malformed. */
int storage_info_parse(const struct nlattr *nest, struct storage_info *si);
void storage_info_free(struct storage_info *si);
int node_info_parse(const struct nlattr *nest, struct node_info *ni);
int export_info_parse(const struct nlattr *nest, struct export_info *ei);
/* A DST_NODE_A_ADDR or DST_EXPORT_A_ADDR attribute; -1 if malformed. */
int sockaddr_attr_parse(const struct nlattr *attr, struct sockaddr_storage *ss,
			socklen_t *len);
/*
 * Lists of storages and exports, filled by the callbacks from each reply
 * message of a get or dump; a malformed reply fails with EPROTO.
 */
struct storage_list {
	struct storage_info *v;
	size_t n;
	size_t cap;
};

struct export_list {
	struct export_info *v;
	size_t n;
	size_t cap;
};

struct nlmsghdr;
int storage_list_cb(const struct nlmsghdr *nlh, void *data);
int export_list_cb(const struct nlmsghdr *nlh, void *data);
void storage_list_free(struct storage_list *l);
const char *storage_state_name(uint32_t state);
const char *start_name(uint32_t start, bool text);
const char *node_type_name(uint32_t type);
const char *node_state_name(uint32_t state);
const char *sync_state_name(uint32_t sync);
/*
 * Where a mirror is in its resync: the least synced leg's percent (100:
 * all in sync), and how many legs are out of sync; -1 if not a running
 * mirror.
 */
int wait_progress(const struct storage_info *si, unsigned int *out_of_sync);
/* Seconds resync needs at its current rate, rounded up; 0 if unknown. */
uint64_t resync_eta(const struct storage_info *si);
/* How much of a mirror leg is in sync, in percent rounded down. */
unsigned int sync_percent(const struct node_info *ni);

/* What status shows: all storages and exports the kernel has. */
struct status_set {
	const struct storage_info *si;
	size_t n;
	const struct export_info *ei;
	size_t ne;
};

/* Print @set, or only the storage and export called @name if not NULL. */
void status_print_text(FILE *f, const struct status_set *set, const char *name);

struct dst_config;
/*
 * status --check: the problems of the storages of @set (or of @name) on
 * @f, one per line, and of the storages and exports of @conf (if not
 * NULL) that are not there; EXIT_OK, EXIT_DEGRADED or EXIT_FAILED.
 */
int health_check(FILE *f, const struct status_set *set,
		 const struct dst_config *conf, const char *name);
int status_print_json(FILE *f, const struct status_set *set, const char *name);
void format_size(char *buf, size_t len, uint64_t bytes);

#endif /* DSTADM_H */
