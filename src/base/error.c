/*
 * error.c — per-thread error chain.
 */
#include "base/error.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/secret.h"
#include "base/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local floe_error current;
static _Thread_local int is_set;

static char *vformat(const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		n = 0;
	char *p = floe_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

static void error_free(floe_error *e)
{
	free(e->message);
	free(e->detail);
	free(e->hint);
	free(e->subject);
	for (int i = 0; i < e->n_context; i++)
		free(e->context[i]);
	memset(e, 0, sizeof(*e));
}

void floe_error_clear(void)
{
	error_free(&current);
	is_set = 0;
}

void floe_error_take(floe_error *out)
{
	*out = current;
	memset(&current, 0, sizeof(current));
	is_set = 0;
}

int floe_error_give(floe_error *e)
{
	floe_error_clear();
	if (!e->message)
		return floe_error_set(FLOE_ERR_INTERNAL, "failed on another thread without a reason");
	current = *e;
	memset(e, 0, sizeof(*e));
	is_set = 1;
	return -1;
}

void floe_error_discard(floe_error *e)
{
	error_free(e);
}

static void set_message(floe_error_class cls, char *message)
{
	floe_error_clear();
	current.cls = cls;
	current.message = message;
	is_set = 1;
}

int floe_error_set(floe_error_class cls, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_message(cls, vformat(fmt, ap));
	va_end(ap);
	return -1;
}

int floe_error_set_errno(floe_error_class cls, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	char *head = vformat(fmt, ap);
	va_end(ap);
	const char *why = strerror(saved);
	size_t n = strlen(head) + strlen(why) + 3;
	char *msg = floe_xmalloc(n);
	snprintf(msg, n, "%s: %s", head, why);
	free(head);
	set_message(cls, msg);
	floe_error_errno(saved);
	return -1;
}

void floe_error_errno(int sys_errno)
{
	if (!is_set)
		return;
	current.sys_errno = sys_errno;
	floe_error_code code = floe_error_code_of_errno(sys_errno);
	if (code != FLOE_CODE_NONE && current.code == FLOE_CODE_NONE)
		floe_error_code_set(code, NULL);
}

/*
 * The one table: each code's class (and so its exit code, floe_error_class_exit) and its
 * probable cause — `cause` names the subject (%s), `plain` is said when there is none.
 */
static const struct {
	floe_error_class cls;
	const char *cause;
	const char *plain;
	bool names_disk; /* the subject is a path: the cause names its file system's mount point too */
} codes[FLOE_CODE_COUNT] = {
	[FLOE_CODE_SOURCE_UNREACHABLE] = { .cls = FLOE_ERR_UNREACHABLE,
		.cause = "source unreachable: %s",
		.plain = "source unreachable" },
	[FLOE_CODE_SOURCE_LOGIN] = { .cls = FLOE_ERR_UNREACHABLE,
		.cause = "the source refused floe's login: %s",
		.plain = "the source refused floe's login" },
	[FLOE_CODE_SOURCE_LOST] = { .cls = FLOE_ERR_UNREACHABLE,
		.cause = "the connection to the source broke during the load (%s); run again when the source is reachable",
		.plain = "the connection to the source broke during the load; run again when the source is reachable" },
	[FLOE_CODE_SOURCE_SHUTDOWN] = { .cls = FLOE_ERR_UNREACHABLE,
		.cause = "PostgreSQL shut down or ended floe's session during the load (%s); run again when it is back",
		.plain = "PostgreSQL shut down or ended floe's session during the load; run again when it is back" },
	[FLOE_CODE_SOURCE_CANCELED] = { .cls = FLOE_ERR_CHECK,
		.cause = "the source canceled floe's statement (%s): statement_timeout, or a person canceled it",
		.plain = "the source canceled floe's statement: statement_timeout, or a person canceled it" },
	[FLOE_CODE_SOURCE_ENCODING] = { .cls = FLOE_ERR_CHECK,
		.cause = "the source holds text that is not valid in its encoding for UTF-8 (%s), e.g. non-UTF-8 bytes in "
			"an SQL_ASCII database; fix those values at the source",
		.plain = "the source holds text that is not valid in its encoding for UTF-8, e.g. non-UTF-8 bytes in an "
			"SQL_ASCII database; fix those values at the source" },
	[FLOE_CODE_SOURCE_CHANGED] = { .cls = FLOE_ERR_CONFIG,
		.cause = "the source's columns changed since `floe generate` (%s); run `floe plan`, then `floe generate`",
		.plain = "the source's columns changed since `floe generate`; run `floe plan`, then `floe generate`" },
	[FLOE_CODE_SOURCE_PRIVILEGE] = { .cls = FLOE_ERR_CHECK,
		.cause = "the source role lacks a privilege floe needs (%s); `floe doctor` lists what it can read",
		.plain = "the source role lacks a privilege floe needs; `floe doctor` lists what it can read" },
	[FLOE_CODE_SOURCE_LOCKED] = { .cls = FLOE_ERR_CONFLICT,
		.cause = "a lock in the source blocked floe's read (%s); run again when the other transaction has finished",
		.plain = "a lock in the source blocked floe's read; run again when the other transaction has finished" },
	[FLOE_CODE_SOURCE_SERIALIZATION] = { .cls = FLOE_ERR_CONFLICT,
		.cause = "a concurrent transaction in the source conflicted with floe's read (%s); run again",
		.plain = "a concurrent transaction in the source conflicted with floe's read; run again" },
	[FLOE_CODE_TABLE_BUSY] = { .cls = FLOE_ERR_CONFLICT,
		.cause = "held by %s: another floe run is loading this table; wait for it (or stop it) and run again",
		.plain = "held by another floe run, which is loading this table; wait for it and run again" },
	[FLOE_CODE_DISK_FULL] = { .cls = FLOE_ERR_IO,
		.cause = "disk full at %s: no space left on its file system (or its quota); free space there and run again",
		.plain = "disk full: no space left on a file system floe writes to (or its quota); free space and run again",
		.names_disk = true },
	[FLOE_CODE_FILE_TOO_LARGE] = { .cls = FLOE_ERR_IO,
		.cause = "file too large / disk full at %s: the file-size limit (ulimit -f) or the file system's maximum was "
			"reached",
		.plain = "file too large / disk full: the file-size limit (ulimit -f) or a file system's maximum was reached",
		.names_disk = true },
	[FLOE_CODE_PERMISSION] = { .cls = FLOE_ERR_IO,
		.cause = "permission denied at %s: floe's user may not write there (or the file system is read-only)",
		.plain = "permission denied: floe's user may not write a file it needs (or the file system is read-only)",
		.names_disk = true },
	[FLOE_CODE_IO] = { .cls = FLOE_ERR_IO,
		.cause = "an I/O error at %s: the disk or file system failed; check the system log",
		.plain = "an I/O error: a disk or file system failed; check the system log",
		.names_disk = true },
	[FLOE_CODE_COMMIT_CONFLICT] = { .cls = FLOE_ERR_CONFLICT,
		.cause = "other writers changed %s on every attempt to commit; run again, or raise commit.retry.num-retries",
		.plain = "other writers changed the table on every attempt to commit; run again" },
};

floe_error_code floe_error_code_of_errno(int err)
{
	switch (err) {
	case ENOSPC:
	case EDQUOT:
		return FLOE_CODE_DISK_FULL;
	case EFBIG:
		return FLOE_CODE_FILE_TOO_LARGE;
	case EACCES:
	case EPERM:
	case EROFS:
		return FLOE_CODE_PERMISSION;
	case EIO:
		return FLOE_CODE_IO;
	default:
		return FLOE_CODE_NONE;
	}
}

void floe_error_code_set(floe_error_code code, const char *subject_fmt, ...)
{
	if (!is_set || code <= FLOE_CODE_NONE || code >= FLOE_CODE_COUNT)
		return;
	current.code = code;
	current.cls = codes[code].cls;
	free(current.subject);
	current.subject = NULL;
	if (subject_fmt) {
		va_list ap;
		va_start(ap, subject_fmt);
		current.subject = vformat(subject_fmt, ap);
		va_end(ap);
	}
}

/* Without a code: what a person should look at first, from the class. */
static const char *class_cause(floe_error_class cls)
{
	switch (cls) {
	case FLOE_ERR_UNREACHABLE:
		return "a service floe needs could not be reached";
	case FLOE_ERR_CONFLICT:
		return "a concurrent change to the table or the source's schema";
	case FLOE_ERR_CONFIG:
	case FLOE_ERR_USAGE:
	case FLOE_ERR_EXISTS:
		return "the pipeline or floe.toml needs attention (see the error)";
	case FLOE_ERR_CHECK:
		return "a value floe refuses to load incompletely (see the error)";
	case FLOE_ERR_IO:
		return "the warehouse's file system (see the error)";
	case FLOE_ERR_INTERNAL:
		break;
	}
	return "an internal error in floe (please report it)";
}

int floe_error_put_message(floe_buf *out, const floe_error *e)
{
	if (!e)
		return 0;
	floe_buf_puts(out, e->message);
	if (e->detail)
		floe_buf_printf(out, ": %s", e->detail);
	for (int i = 0; i < e->n_context; i++)
		floe_buf_printf(out, " (%s)", e->context[i]);
	return 0;
}

int floe_error_put_cause(floe_buf *out, const floe_error *e)
{
	if (!e)
		return floe_buf_puts(out, "unknown");
	if (e->code <= FLOE_CODE_NONE || e->code >= FLOE_CODE_COUNT)
		return floe_buf_puts(out, class_cause(e->cls));
	if (!e->subject)
		return floe_buf_puts(out, codes[e->code].plain);
	floe_buf subject = FLOE_BUF_INIT, mount = FLOE_BUF_INIT;
	floe_text_put_printable(&subject, e->subject);
	if (codes[e->code].names_disk && floe_fs_mount_point(&mount, e->subject) == 0) {
		floe_buf_puts(&subject, " (the file system mounted at ");
		floe_text_put_printable(&subject, floe_buf_cstr(&mount));
		floe_buf_putc(&subject, ')');
	}
	int rc = floe_buf_printf(out, codes[e->code].cause, floe_buf_cstr(&subject));
	floe_buf_free(&subject);
	floe_buf_free(&mount);
	return rc;
}

/* Replace one optional text of the current error. */
static void set_text(char **slot, const char *fmt, va_list ap)
{
	if (!is_set)
		return;
	free(*slot);
	*slot = vformat(fmt, ap);
}

void floe_error_subject(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_text(&current.subject, fmt, ap);
	va_end(ap);
}

void floe_error_detail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_text(&current.detail, fmt, ap);
	va_end(ap);
}

void floe_error_hint(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_text(&current.hint, fmt, ap);
	va_end(ap);
}

int floe_error_context(const char *fmt, ...)
{
	if (!is_set || current.n_context == FLOE_ERROR_MAX_CONTEXT)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	current.context[current.n_context++] = vformat(fmt, ap);
	va_end(ap);
	return -1;
}

const floe_error *floe_error_last(void)
{
	return is_set ? &current : NULL;
}

floe_exit_code floe_error_exit_code(void)
{
	return is_set ? floe_error_class_exit(current.cls) : FLOE_EXIT_OK;
}

floe_exit_code floe_error_class_exit(floe_error_class cls)
{
	switch (cls) {
	case FLOE_ERR_USAGE:
	case FLOE_ERR_CONFIG:
	case FLOE_ERR_EXISTS:
		return FLOE_EXIT_USAGE;
	case FLOE_ERR_UNREACHABLE:
		return FLOE_EXIT_UNREACHABLE;
	case FLOE_ERR_CHECK:
	case FLOE_ERR_CONFLICT:
		return FLOE_EXIT_CHECK_FAILED;
	case FLOE_ERR_IO:
	case FLOE_ERR_INTERNAL:
		break;
	}
	return FLOE_EXIT_INTERNAL;
}

/*
 * One line of the printed error: secrets scrubbed from the raw text first (so an escape
 * cannot hide one), then shown printable — a message may quote a table or column name.
 */
static void put_line(floe_buf *out, const char *label, const char *text)
{
	floe_buf raw = FLOE_BUF_INIT;
	floe_buf_puts(&raw, text);
	floe_secret_scrub_buf(&raw);
	floe_buf_puts(out, label);
	floe_text_put_printable(out, floe_buf_cstr(&raw));
	floe_buf_putc(out, '\n');
	floe_buf_free(&raw);
}

void floe_error_print(FILE *out)
{
	if (!is_set)
		return;
	floe_buf b = FLOE_BUF_INIT;
	put_line(&b, "floe: error: ", current.message);
	if (current.detail)
		put_line(&b, "  detail: ", current.detail);
	if (current.hint)
		put_line(&b, "  hint: ", current.hint);
	/* Innermost context was pushed first; print it first, like a stack. */
	for (int i = 0; i < current.n_context; i++)
		put_line(&b, "  ", current.context[i]);
	fputs(floe_buf_cstr(&b), out);
	floe_buf_free(&b);
}

void floe_error_save(floe_error_saved *out, floe_arena *arena)
{
	const floe_error *e = floe_error_last();
	memset(out, 0, sizeof(*out));
	if (!e)
		return;
	out->cls = e->cls;
	out->code = e->code;
	out->message = floe_arena_strdup(arena, e->message ? e->message : "");
	out->detail = e->detail ? floe_arena_strdup(arena, e->detail) : NULL;
	out->hint = e->hint ? floe_arena_strdup(arena, e->hint) : NULL;
	out->context = e->n_context ? floe_arena_strdup(arena, e->context[0]) : NULL;
	out->subject = e->subject ? floe_arena_strdup(arena, e->subject) : NULL;
}

int floe_error_raise(const floe_error_saved *e, const char *fallback)
{
	floe_error_set(e->message ? e->cls : FLOE_ERR_INTERNAL, "%s", e->message ? e->message : fallback);
	if (e->detail)
		floe_error_detail("%s", e->detail);
	if (e->hint)
		floe_error_hint("%s", e->hint);
	if (e->message)
		floe_error_code_set(e->code, e->subject ? "%s" : NULL, e->subject);
	if (e->context)
		floe_error_context("%s", e->context);
	return -1;
}
