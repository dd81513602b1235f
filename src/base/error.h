/*
 * error.h — the error chain: one message set where the failure happened, a detail
 * and a hint as full sentences, and context lines pushed by callers on the way up.
 *
 * The chain is per thread. Functions report failure by returning a negative int
 * after calling floe_error_set() (which itself returns -1, so `return
 * floe_error_set(...)` reads naturally). Callers add context with
 * floe_error_context() and never overwrite the message. The error's class decides
 * the process exit code (see floe_exit_code and README "Exit codes").
 */
#ifndef FLOE_BASE_ERROR_H
#define FLOE_BASE_ERROR_H

#include <stdio.h>

/* Process exit codes, documented in README.md. */
typedef enum floe_exit_code {
	FLOE_EXIT_OK = 0,
	FLOE_EXIT_CHECK_FAILED = 1, /* a check failed or data diverged */
	FLOE_EXIT_USAGE = 2,        /* bad command line or configuration */
	FLOE_EXIT_UNREACHABLE = 3,  /* a service (PostgreSQL, catalog) could not be reached */
	FLOE_EXIT_INTERNAL = 4      /* a bug, or the machine failed us (disk, memory) */
} floe_exit_code;

typedef enum floe_error_class {
	FLOE_ERR_INTERNAL = 0,
	FLOE_ERR_USAGE,       /* command line */
	FLOE_ERR_CONFIG,      /* floe.toml and other user files */
	FLOE_ERR_UNREACHABLE, /* connection refused, authentication failed, DNS */
	FLOE_ERR_CHECK,       /* a verification failed */
	FLOE_ERR_IO,          /* file system */
	FLOE_ERR_EXISTS,      /* refusing to overwrite */
	FLOE_ERR_CONFLICT     /* a concurrent change won (e.g. a table commit lost its race) */
} floe_error_class;

#define FLOE_ERROR_MAX_CONTEXT 16

typedef struct floe_error {
	floe_error_class cls;
	int sys_errno; /* the errno behind it (floe_error_set_errno, floe_error_errno), else 0 */
	char *message;
	char *detail;
	char *hint;
	int n_context;
	char *context[FLOE_ERROR_MAX_CONTEXT];
} floe_error;

/* Replace any previous error with a new one. Returns -1. */
int floe_error_set(floe_error_class cls, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like floe_error_set, appending ": <strerror(errno)>" (errno read on entry). */
int floe_error_set_errno(floe_error_class cls, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Record the errno that caused the current error, for callers that classify the
 * cause (e.g. floe_iceberg_storage_error_kind); the class and exit code stay.
 */
void floe_error_errno(int sys_errno);

/* Attach a detail or a hint to the current error (full sentences). */
void floe_error_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void floe_error_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Push a context line ("while reading floe.toml"). Returns -1. */
int floe_error_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The current error, or NULL when none is set. Borrowed. */
const floe_error *floe_error_last(void);

void floe_error_clear(void);

floe_exit_code floe_error_exit_code(void);

/* "floe: error: message\n  detail\n  hint: ...\n  while ..." */
void floe_error_print(FILE *out);

#endif
