/*
 * buf.h — one growable byte buffer with a maximum size, and length-carrying slices.
 *
 * A floe_buf always keeps a NUL after its contents so it can be handed to C APIs,
 * but its length is authoritative. Appends past `max` fail with -1 and leave the
 * buffer unchanged, so a hostile input cannot grow memory without bound.
 */
#ifndef FLOE_BASE_BUF_H
#define FLOE_BASE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct floe_slice {
	const char *ptr;
	size_t len;
} floe_slice;

#define FLOE_SLICE(lit) ((floe_slice){ (lit), sizeof(lit) - 1 })

floe_slice floe_slice_from(const char *cstr);
bool floe_slice_eq(floe_slice a, floe_slice b);
bool floe_slice_eq_cstr(floe_slice a, const char *cstr);

typedef struct floe_buf {
	char *ptr;
	size_t len;
	size_t cap;
	size_t max;
} floe_buf;

#define FLOE_BUF_DEFAULT_MAX ((size_t)1 << 30)
#define FLOE_BUF_INIT { .max = FLOE_BUF_DEFAULT_MAX }

void floe_buf_init(floe_buf *buf, size_t max);
void floe_buf_free(floe_buf *buf);
void floe_buf_clear(floe_buf *buf);

/*
 * Make room for `extra` more bytes (plus the NUL) without changing the contents,
 * for writers that fill buf->ptr + buf->len directly and then advance buf->len.
 * Fails like an append past `max`.
 */
int floe_buf_reserve(floe_buf *buf, size_t extra);

int floe_buf_put(floe_buf *buf, const void *data, size_t len);
int floe_buf_puts(floe_buf *buf, const char *cstr);
int floe_buf_putc(floe_buf *buf, char c);
/* `cstr` between two `quote`s, a `quote` inside doubled: an SQL literal ('), identifier (") or CSV field ("). */
int floe_buf_put_quoted(floe_buf *buf, const char *cstr, char quote);
int floe_buf_printf(floe_buf *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int floe_buf_vprintf(floe_buf *buf, const char *fmt, va_list ap);

/* Contents as a C string; "" for an empty buffer. Borrowed until the next append. */
const char *floe_buf_cstr(const floe_buf *buf);

/* Hand the contents to the caller (free() them); the buffer is left empty. */
char *floe_buf_detach(floe_buf *buf, size_t *len_out);

#endif
