/*
 * stack.h — `floe stack`: a private PostgreSQL cluster for demos and tests.
 *
 * The cluster lives under the project (.floe/pg/data), listens on 127.0.0.1 at a
 * free port chosen on first start (kept in .floe/pg/port) and on a socket inside
 * the project (.floe/pg/run). When invoked as root it runs as an unprivileged OS
 * user (default `postgres`), since PostgreSQL refuses to run as root. Local
 * socket connections are trusted (the cluster's superuser is `postgres`); TCP
 * connections need a SCRAM password, as a real source would.
 */
#ifndef FLOE_STACK_STACK_H
#define FLOE_STACK_STACK_H

#include <stdbool.h>

#define FLOE_STACK_PATH_MAX 1024

typedef struct floe_stack_info {
	char data_dir[FLOE_STACK_PATH_MAX];
	char socket_dir[FLOE_STACK_PATH_MAX];
	char log_file[FLOE_STACK_PATH_MAX];
	char bin_dir[FLOE_STACK_PATH_MAX];
	char os_user[64];   /* "" when running as the invoking user */
	int port;           /* 0 when never started */
	bool initialized;
	bool running;
} floe_stack_info;

typedef struct floe_stack_opts {
	const char *os_user;  /* when root; NULL: "postgres" */
	int port;             /* 0: keep the previous one or choose a free one */
} floe_stack_opts;

#define FLOE_STACK_OPTS_INIT { .os_user = NULL }

/* Initialise (first time) and start the cluster; a running cluster is left as it is. */
int floe_stack_up(floe_stack_info *out, const char *project_dir, const floe_stack_opts *opts);

/* Stop the cluster (fast shutdown). Not running is not an error. */
int floe_stack_down(floe_stack_info *out, const char *project_dir);

/* What is there and whether it runs. */
int floe_stack_status(floe_stack_info *out, const char *project_dir);

/* Remove the cluster's files (it must be stopped). */
int floe_stack_destroy(const char *project_dir);

/*
 * Create `database` if missing, and `reader` as a LOGIN role with `password`
 * that may read every table of the database's public schema (now and later) and
 * nothing else. Either may be NULL.
 */
int floe_stack_provision(const floe_stack_info *info, const char *database, const char *reader,
			 const char *password);

#endif
