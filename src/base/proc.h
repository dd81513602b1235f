/*
 * proc.h — run a child program and capture what it prints.
 *
 * Used for the few programs floe drives rather than links (initdb, pg_ctl, runuser).
 * No shell is involved: argv is passed as it is.
 */
#ifndef FLOE_BASE_PROC_H
#define FLOE_BASE_PROC_H

#include "base/buf.h"

#include <stdbool.h>

typedef struct floe_proc_opts {
	const char *cwd;           /* NULL: inherit */
	const char *const *env_add; /* "NAME=value" entries added to the environment, NULL-terminated */
	bool inherit_stdio;        /* true: child writes to our stdout/stderr, nothing captured */
	const char *stdin_text;    /* fed to the child's stdin, NULL: /dev/null */
} floe_proc_opts;

#define FLOE_PROC_OPTS_INIT { .cwd = NULL }

typedef struct floe_proc_result {
	int exit_code;     /* 0..255, or 128+signal */
	floe_buf out;      /* captured stdout */
	floe_buf err;      /* captured stderr */
} floe_proc_result;

/*
 * Run argv[0] (searched in PATH) to completion. Returns 0 when the program ran,
 * whatever its exit code (read result->exit_code); -1 when it could not be started.
 * The caller frees result with floe_proc_result_free().
 */
int floe_proc_run(floe_proc_result *result, const char *const argv[], const floe_proc_opts *opts);
void floe_proc_result_free(floe_proc_result *result);

/*
 * Start `path` (no PATH search) in a process group of its own, in `cwd`, with stdin from
 * /dev/null and stdout and stderr appended to `log_path` (created 0600); do not wait. The
 * caller reaps it with floe_proc_poll and may signal the group with kill(-pid, sig).
 */
int floe_proc_start(int *pid, const char *path, const char *const argv[], const char *cwd, const char *log_path);

/* Whether child `pid` ended (*exit_code: 0..255, or 128+signal), without waiting. */
bool floe_proc_poll(int pid, int *exit_code);

/* True when `name` resolves to an executable in PATH (or is a path to one). */
bool floe_proc_have(const char *name);

#endif
