/*
 * project.h — a floe project on disk: `floe init` creates floe.toml and the
 * layout (marts/, .floe/, warehouse/ with its catalog), discovering what it can
 * from the source and never overwriting a file that exists.
 */
#ifndef FLOE_PROJECT_PROJECT_H
#define FLOE_PROJECT_PROJECT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_init_opts {
	const char *dir;            /* project directory (created if missing) */
	const char *host;           /* NULL: discover (PGHOST, local stack, 127.0.0.1) */
	int port;                   /* 0: discover */
	const char *database;       /* NULL: PGDATABASE */
	const char *user;           /* NULL: PGUSER, else the OS user */
	const char *password_env;   /* NULL: FLOE_SOURCE_PASSWORD */
	bool save_password;         /* copy the password into .floe/secrets/ (0600) */
} floe_init_opts;

#define FLOE_INIT_OPTS_INIT { .dir = "." }

#define FLOE_INIT_MAX_NOTES 16

typedef struct floe_init_result {
	char config_path[1024];
	bool config_written;      /* false: floe.toml existed and was left as it is */
	bool discovered;          /* the source answered */
	char source_version[32];
	size_t n_schemas;
	long long n_tables;
	char schemas[512];        /* "public (9 tables), sales (3 tables)" */
	const char *notes[FLOE_INIT_MAX_NOTES]; /* what was created, kept, or could not be done */
	size_t n_notes;
	void *owned;              /* internal */
} floe_init_result;

int floe_project_init(floe_init_result *out, const floe_init_opts *opts);
void floe_init_result_free(floe_init_result *result);

#endif
