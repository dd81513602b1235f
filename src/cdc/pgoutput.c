/*
 * pgoutput.c — frames and pgoutput messages decoded from bytes (pgoutput.h). A reader
 * walks the message with bounds checks; the first short read marks it bad and every
 * later read returns zero, so each decoder reads straight through and checks once.
 */
#include "cdc/pgoutput.h"
#include "base/arena.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
	const uint8_t *p;
	size_t n, at;
	bool bad;
} reader;

static const uint8_t *take(reader *r, size_t len)
{
	if (r->bad || r->n - r->at < len) {
		r->bad = true;
		return NULL;
	}
	const uint8_t *at = r->p + r->at;
	r->at += len;
	return at;
}

static uint64_t be(reader *r, size_t len)
{
	const uint8_t *b = take(r, len);
	uint64_t v = 0;
	for (size_t i = 0; b && i < len; i++)
		v = v << 8 | b[i];
	return v;
}

static uint8_t u8(reader *r) { return (uint8_t)be(r, 1); }
static uint16_t u16(reader *r) { return (uint16_t)be(r, 2); }
static uint32_t u32(reader *r) { return (uint32_t)be(r, 4); }
static uint64_t u64(reader *r) { return be(r, 8); }

/* A NUL-terminated string inside the message. */
static const char *str(reader *r)
{
	const uint8_t *nul = r->bad ? NULL : memchr(r->p + r->at, 0, r->n - r->at);
	if (!nul) {
		r->bad = true;
		return "";
	}
	const char *s = (const char *)(r->p + r->at);
	r->at = (size_t)(nul - r->p) + 1;
	return s;
}

static int malformed(const char *what, char kind)
{
	return floe_error_set(FLOE_ERR_INTERNAL, "malformed %s in the replication stream (message '%c')", what,
			      kind >= 32 && kind < 127 ? kind : '?');
}

void *floe_cdc_room(void *items, size_t *cap, size_t n, size_t size)
{
	if (n <= *cap)
		return items;
	size_t want = *cap ? *cap : 16;
	while (want < n)
		want *= 2;
	*cap = want;
	return floe_xrealloc(items, want * size);
}

int floe_cdc_frame_decode(floe_cdc_frame *out, const uint8_t *p, size_t n)
{
	reader r = { p, n, 0, false };
	memset(out, 0, sizeof(*out));
	out->kind = (char)u8(&r);
	if (out->kind == 'w') {
		out->start = u64(&r);
		out->end = u64(&r);
		out->time = (int64_t)u64(&r);
		out->data = r.bad ? NULL : p + r.at;
		out->len = r.bad ? 0 : n - r.at;
	} else if (out->kind == 'k') {
		out->end = u64(&r);
		out->time = (int64_t)u64(&r);
		out->reply = u8(&r) != 0;
		if (!r.bad && r.at != n)
			r.bad = true;
	} else {
		return malformed("frame", out->kind);
	}
	return r.bad ? malformed("frame", out->kind) : 0;
}

static void put_be(floe_buf *out, uint64_t v, int len)
{
	for (int i = len - 1; i >= 0; i--)
		floe_buf_putc(out, (char)(v >> (8 * i) & 0xff));
}

void floe_cdc_status_encode(floe_buf *out, uint64_t write, uint64_t flush, uint64_t apply, int64_t time,
			    bool reply)
{
	floe_buf_putc(out, 'r');
	put_be(out, write, 8);
	put_be(out, flush, 8);
	put_be(out, apply, 8);
	put_be(out, (uint64_t)time, 8);
	put_be(out, reply ? 1 : 0, 1);
}

/* TupleData into the decoder's values array `which` (0 old, 1 new). */
static void tuple(reader *r, floe_cdc_decoder *d, int which, floe_cdc_tuple *out)
{
	uint16_t n = u16(r);
	if (r->bad || (size_t)n > r->n - r->at) { /* each column takes at least one byte */
		r->bad = true;
		return;
	}
	d->values[which] = floe_cdc_room(d->values[which], &d->cap_values[which], n, sizeof(floe_cdc_value));
	for (uint16_t i = 0; i < n && !r->bad; i++) {
		floe_cdc_value *v = &d->values[which][i];
		v->kind = (char)u8(r);
		v->data = NULL;
		v->len = 0;
		if (v->kind == 't' || v->kind == 'b') {
			v->len = u32(r);
			v->data = (const char *)take(r, v->len);
		} else if (v->kind != 'n' && v->kind != 'u') {
			r->bad = true;
		}
	}
	out->n = n;
	out->values = d->values[which];
}

static void relation(reader *r, floe_cdc_decoder *d, floe_cdc_msg *m)
{
	m->relid = u32(r);
	m->nspname = str(r);
	m->relname = str(r);
	m->replident = (char)u8(r);
	m->n_columns = u16(r);
	if (r->bad || (size_t)m->n_columns > r->n - r->at) {
		r->bad = true;
		return;
	}
	d->columns = floe_cdc_room(d->columns, &d->cap_columns, m->n_columns, sizeof(floe_cdc_column));
	for (uint16_t i = 0; i < m->n_columns && !r->bad; i++) {
		floe_cdc_column *c = &d->columns[i];
		c->key = (u8(r) & 1) != 0;
		c->name = str(r);
		c->type = u32(r);
		c->typmod = (int32_t)u32(r);
	}
	m->columns = d->columns;
}

/* Update and Delete: an optional old tuple ('K' key or 'O' row), then for Update the new one. */
static void change(reader *r, floe_cdc_decoder *d, floe_cdc_msg *m)
{
	m->relid = u32(r);
	char tag = (char)u8(r);
	if (tag == 'K' || tag == 'O') {
		m->old_kind = tag;
		tuple(r, d, 0, &m->old_tuple);
		if (m->kind == FLOE_CDC_DELETE)
			return;
		tag = (char)u8(r);
	} else if (m->kind == FLOE_CDC_DELETE) {
		r->bad = true;
	}
	if (tag != 'N')
		r->bad = true;
	tuple(r, d, 1, &m->new_tuple);
}

static void truncate_(reader *r, floe_cdc_decoder *d, floe_cdc_msg *m)
{
	m->n_relids = u32(r);
	m->flags = u8(r);
	if (r->bad || (size_t)m->n_relids > (r->n - r->at) / 4) {
		r->bad = true;
		return;
	}
	d->relids = floe_cdc_room(d->relids, &d->cap_relids, m->n_relids ? m->n_relids : 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < m->n_relids; i++)
		d->relids[i] = u32(r);
	m->relids = d->relids;
}

/* The transaction-level messages: begin, commits, stream control, two-phase. */
static bool control(reader *r, floe_cdc_decoder *d, floe_cdc_msg *m)
{
	switch (m->kind) {
	case FLOE_CDC_BEGIN:
		m->lsn = u64(r), m->time = (int64_t)u64(r), m->xid = u32(r);
		return true;
	case FLOE_CDC_COMMIT:
		m->flags = u8(r), m->lsn = u64(r), m->end_lsn = u64(r), m->time = (int64_t)u64(r);
		return true;
	case FLOE_CDC_ORIGIN:
		m->lsn = u64(r), m->nspname = str(r);
		return true;
	case FLOE_CDC_STREAM_START:
		m->xid = u32(r), m->flags = u8(r);
		d->in_stream = true;
		return true;
	case FLOE_CDC_STREAM_STOP:
		d->in_stream = false;
		return true;
	case FLOE_CDC_STREAM_COMMIT:
		m->xid = u32(r), m->flags = u8(r), m->lsn = u64(r), m->end_lsn = u64(r), m->time = (int64_t)u64(r);
		return true;
	case FLOE_CDC_STREAM_ABORT:
		m->xid = u32(r), m->subxid = u32(r);
		if (d->proto >= 4 && r->n - r->at == 16) /* streaming = parallel adds where and when */
			m->lsn = u64(r), m->time = (int64_t)u64(r);
		return true;
	case FLOE_CDC_BEGIN_PREPARE:
		m->lsn = u64(r), m->end_lsn = u64(r), m->time = (int64_t)u64(r), m->xid = u32(r), m->gid = str(r);
		return true;
	case FLOE_CDC_PREPARE: case FLOE_CDC_COMMIT_PREPARED: case FLOE_CDC_STREAM_PREPARE:
		m->flags = u8(r), m->lsn = u64(r), m->end_lsn = u64(r), m->time = (int64_t)u64(r);
		m->xid = u32(r), m->gid = str(r);
		return true;
	case FLOE_CDC_ROLLBACK_PREPARED:
		m->flags = u8(r), m->lsn = u64(r), m->end_lsn = u64(r), m->time = (int64_t)u64(r);
		u64(r); /* the rollback's timestamp; `time` keeps the prepare's */
		m->xid = u32(r), m->gid = str(r);
		return true;
	default:
		return false;
	}
}

/* The data messages, each with the transaction's xid first inside a streamed block (proto >= 2). */
static bool data(reader *r, floe_cdc_decoder *d, floe_cdc_msg *m)
{
	bool known = strchr("RYIUDTM", (char)m->kind) != NULL;
	if (!known)
		return false;
	if (d->in_stream && d->proto >= 2)
		m->xid = u32(r);
	switch (m->kind) {
	case FLOE_CDC_RELATION:
		relation(r, d, m);
		break;
	case FLOE_CDC_TYPE:
		m->relid = u32(r), m->nspname = str(r), m->relname = str(r);
		break;
	case FLOE_CDC_INSERT:
		m->relid = u32(r);
		if (u8(r) != 'N')
			r->bad = true;
		tuple(r, d, 1, &m->new_tuple);
		break;
	case FLOE_CDC_UPDATE: case FLOE_CDC_DELETE:
		change(r, d, m);
		break;
	case FLOE_CDC_TRUNCATE:
		truncate_(r, d, m);
		break;
	default: /* M */
		m->flags = u8(r), m->lsn = u64(r), m->prefix = str(r), m->content_len = u32(r);
		m->content = take(r, m->content_len);
		break;
	}
	return true;
}

int floe_cdc_decode(floe_cdc_msg *out, floe_cdc_decoder *d, const uint8_t *p, size_t n)
{
	reader r = { p, n, 0, false };
	memset(out, 0, sizeof(*out));
	out->kind = (floe_cdc_kind)u8(&r);
	if (r.bad)
		return malformed("message (empty)", 0);
	if (!control(&r, d, out) && !data(&r, d, out))
		return malformed("message (unknown type)", (char)out->kind);
	if (r.bad || r.at != n)
		return malformed(r.bad ? "message (truncated)" : "message (trailing bytes)", (char)out->kind);
	return 0;
}

void floe_cdc_decoder_free(floe_cdc_decoder *d)
{
	if (!d)
		return;
	free(d->values[0]);
	free(d->values[1]);
	free(d->columns);
	free(d->relids);
	memset(d->values, 0, sizeof(d->values));
	d->columns = NULL;
	d->relids = NULL;
	d->cap_values[0] = d->cap_values[1] = d->cap_columns = d->cap_relids = 0;
}

static int hex_part(uint32_t *out, const char *s, size_t len)
{
	uint32_t v = 0;
	if (len == 0 || len > 8)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		int x = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
			: c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (x < 0)
			return -1;
		v = v << 4 | (uint32_t)x;
	}
	*out = v;
	return 0;
}

int floe_cdc_lsn_parse(uint64_t *out, const char *text)
{
	const char *slash = text ? strchr(text, '/') : NULL;
	uint32_t hi = 0, lo = 0;
	if (!slash || hex_part(&hi, text, (size_t)(slash - text)) < 0 || hex_part(&lo, slash + 1, strlen(slash + 1)) < 0)
		return -1;
	*out = (uint64_t)hi << 32 | lo;
	return 0;
}

void floe_cdc_lsn_format(char out[24], uint64_t lsn)
{
	snprintf(out, 24, "%X/%X", (unsigned)(lsn >> 32), (unsigned)(lsn & 0xffffffffu));
}
