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

#include "base/buf.h"

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

/*
 * What failed, finer than the class, for the probable cause people read in `floe run` and
 * `floe status`. Set once where the failure is known: from a SQLSTATE in src/pg, from errno
 * in floe_error_set_errno (and the modules that read an errno another way), by the load lock
 * and the catalog commit. One table in error.c gives each code its class — and so the exit
 * code — and its probable cause; classification never reads message text.
 */
typedef enum floe_error_code {
	FLOE_CODE_NONE = 0,
	FLOE_CODE_SOURCE_UNREACHABLE,   /* could not connect (refused, DNS, timeout) */
	FLOE_CODE_SOURCE_LOGIN,         /* the server asked for a password and refused the one given, or had none */
	FLOE_CODE_SOURCE_LOST,          /* the connection broke mid-session: SQLSTATE class 08, CONNECTION_BAD */
	FLOE_CODE_SOURCE_SHUTDOWN,      /* 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now */
	FLOE_CODE_SOURCE_CANCELED,      /* 57014 query_canceled: statement_timeout, or a person */
	FLOE_CODE_SOURCE_ENCODING,      /* 22021 character_not_in_repertoire, 22P05 untranslatable_character */
	FLOE_CODE_SOURCE_CHANGED,       /* 42703 undefined_column, 42P01 undefined_table, a result type the plan does not expect */
	FLOE_CODE_SOURCE_PRIVILEGE,     /* 42501 insufficient_privilege */
	FLOE_CODE_SOURCE_LOCKED,        /* 55P03 lock_not_available */
	FLOE_CODE_SOURCE_SERIALIZATION, /* 40001 serialization_failure, 40P01 deadlock_detected */
	FLOE_CODE_TABLE_BUSY,           /* another run holds the table's load lock */
	FLOE_CODE_DISK_FULL,            /* ENOSPC, EDQUOT */
	FLOE_CODE_FILE_TOO_LARGE,       /* EFBIG: the file-size limit (ulimit -f) or the file system's */
	FLOE_CODE_PERMISSION,           /* EACCES, EPERM, EROFS */
	FLOE_CODE_IO,                   /* EIO */
	FLOE_CODE_COMMIT_CONFLICT,      /* other writers won every compare-and-swap of a table commit */
	FLOE_CODE_COUNT
} floe_error_code;

#define FLOE_ERROR_MAX_CONTEXT 16

typedef struct floe_error {
	floe_error_class cls;
	floe_error_code code;
	char *subject;   /* what the cause names: a path, a lock's holder, the server's words; NULL */
	int sys_errno; /* the errno behind it (floe_error_set_errno, floe_error_errno), else 0 */
	char *message;
	char *detail;
	char *hint;
	int n_context;
	char *context[FLOE_ERROR_MAX_CONTEXT];
} floe_error;

/*
 * Across threads: floe_error_take moves this thread's error (all of it; zeros when there is
 * none) into *out and clears this thread's; floe_error_give makes a taken error the calling
 * thread's (ownership moves, *e is zeroed) and returns -1; floe_error_discard frees one unused.
 */
void floe_error_take(floe_error *out);
int floe_error_give(floe_error *e);
void floe_error_discard(floe_error *e);

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

/*
 * Give the current error its code (which sets its class from the table in error.c) and the
 * subject its probable cause names (printf format; NULL: none). Source-derived text in the
 * subject is made printable when the cause is rendered.
 */
void floe_error_code_set(floe_error_code code, const char *subject_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Name the subject of the current error's cause (e.g. the path an errno failure was at). */
void floe_error_subject(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The code for an errno value (FLOE_CODE_NONE for one without a cause of its own). */
floe_error_code floe_error_code_of_errno(int err);

/*
 * The probable cause of `e`, for people, appended to `out`: from its code when it has one
 * (naming its subject), else from its class. NULL `e`: "unknown".
 */
int floe_error_put_cause(floe_buf *out, const floe_error *e);

/* `e` on one line, appended to `out`: "message: detail (context) (context)"; NULL `e`: nothing. */
int floe_error_put_message(floe_buf *out, const floe_error *e);

/* The exit code of an error of class `cls` (README "Exit codes"). */
floe_exit_code floe_error_class_exit(floe_error_class cls);

/* Push a context line ("while reading floe.toml"). Returns -1. */
int floe_error_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The current error, or NULL when none is set. Borrowed. */
const floe_error *floe_error_last(void);

void floe_error_clear(void);

floe_exit_code floe_error_exit_code(void);

/* "floe: error: message\n  detail\n  hint: ...\n  while ..." */
void floe_error_print(FILE *out);

/*
 * An error carried from one thread's chain to another's (the chain is per thread): a worker
 * saves its error before it ends, the thread that joins it raises it again. Strings are copied
 * into `arena`; `message` is NULL when no error was set.
 */
typedef struct floe_arena floe_arena;
typedef struct floe_error_saved {
	floe_error_class cls;
	floe_error_code code;
	const char *message, *detail, *hint, *context, *subject; /* context: the innermost line */
} floe_error_saved;

/* Copy this thread's current error (if any) into *out, in `arena`; the chain is left as it is. */
void floe_error_save(floe_error_saved *out, floe_arena *arena);
/* Set `e` as this thread's error (`fallback` as the message when none was saved). Returns -1. */
int floe_error_raise(const floe_error_saved *e, const char *fallback);

#endif
