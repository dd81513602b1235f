/*
 * error.c — per-thread error chain.
 */
#include "base/error.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/secret.h"

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

void floe_error_clear(void)
{
	free(current.message);
	free(current.detail);
	free(current.hint);
	for (int i = 0; i < current.n_context; i++)
		free(current.context[i]);
	memset(&current, 0, sizeof(current));
	is_set = 0;
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
	current.sys_errno = saved;
	return -1;
}

void floe_error_errno(int sys_errno)
{
	if (is_set)
		current.sys_errno = sys_errno;
}

/* Replace one optional text of the current error. */
static void set_text(char **slot, const char *fmt, va_list ap)
{
	if (!is_set)
		return;
	free(*slot);
	*slot = vformat(fmt, ap);
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
	if (!is_set)
		return FLOE_EXIT_OK;
	switch (current.cls) {
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

void floe_error_print(FILE *out)
{
	if (!is_set)
		return;
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "floe: error: %s\n", current.message);
	if (current.detail)
		floe_buf_printf(&b, "  detail: %s\n", current.detail);
	if (current.hint)
		floe_buf_printf(&b, "  hint: %s\n", current.hint);
	/* Innermost context was pushed first; print it first, like a stack. */
	for (int i = 0; i < current.n_context; i++)
		floe_buf_printf(&b, "  %s\n", current.context[i]);
	floe_secret_scrub_buf(&b);
	fputs(floe_buf_cstr(&b), out);
	floe_buf_free(&b);
}
