/*
 * copy_probe.c — test tool: run a query through floe's binary COPY decoder and print
 * every value as JSON, one array per row, so tests can compare with what psycopg
 * reads. Not part of floe's command line.
 *
 *   copy_probe CONNINFO-PORT HOST DB USER SQL TYPE...
 * TYPE per result column: oid[:vec[:precision:scale]] with vec one of the names of
 * floe_vec_type_name (int, long, decimal, ...), or list/<elem oid>/<elem vec>.
 * Password: $PGPASSWORD. Prints "rows=N bytes=N" last, on stderr.
 */
#include "base/buf.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "vector/vector.h"
#include "pg/copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static floe_vec_type vec_named(const char *name)
{
	for (int t = FLOE_VEC_BOOLEAN; t <= FLOE_VEC_LIST; t++)
		if (strcmp(floe_vec_type_name((floe_vec_type)t), name) == 0)
			return (floe_vec_type)t;
	fprintf(stderr, "unknown vector type %s\n", name);
	exit(2);
}

static long num(const char *s)
{
	int64_t v = 0;
	if (floe_text_parse_int64(&v, s, strlen(s), INT32_MIN, INT32_MAX) < 0) {
		fprintf(stderr, "bad number %s\n", s);
		exit(2);
	}
	return (long)v;
}

/* "oid:vec:p:s" or "oid:list:elemoid:elemvec:p:s" */
static void parse_spec(floe_pg_copy_column *c, char *spec)
{
	char *parts[8] = { 0 };
	int n = 0;
	for (char *p = spec; p && n < 8; n++) {
		parts[n] = p;
		p = strchr(p, ':');
		if (p)
			*p++ = '\0';
	}
	c->type_oid = (uint32_t)num(parts[0]);
	c->vec = vec_named(parts[1]);
	if (c->vec == FLOE_VEC_LIST) {
		c->elem_oid = (uint32_t)num(parts[2]);
		c->elem_vec = vec_named(parts[3]);
		c->elem_precision = parts[4] ? (int32_t)num(parts[4]) : 0;
		c->elem_scale = parts[5] ? (int32_t)num(parts[5]) : 0;
	} else {
		c->precision = parts[2] ? (int32_t)num(parts[2]) : 0;
		c->scale = parts[3] ? (int32_t)num(parts[3]) : 0;
	}
	c->width = c->vec == FLOE_VEC_UUID ? 16 : 0;
}

static void put_dec(floe_buf *out, floe_dec128 d, int scale)
{
	unsigned __int128 u = ((unsigned __int128)(uint64_t)d.hi << 64) | d.lo;
	int neg = d.hi < 0;
	if (neg)
		u = ~u + 1;
	char digits[64];
	int n = 0;
	do {
		digits[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	while (n <= scale)
		digits[n++] = '0';
	floe_buf_printf(out, "\"%s", neg ? "-" : "");
	for (int i = n - 1; i >= 0; i--) {
		floe_buf_putc(out, digits[i]);
		if (i == scale && scale > 0)
			floe_buf_putc(out, '.');
	}
	floe_buf_putc(out, '"');
}

static void put_value(floe_buf *out, const floe_vector *v, size_t i, int scale)
{
	size_t len;
	if (!floe_vector_is_valid(v, i)) {
		floe_buf_puts(out, "null");
		return;
	}
	switch (v->type) {
	case FLOE_VEC_BOOLEAN: floe_buf_puts(out, v->v.u8[i] ? "true" : "false"); break;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: floe_buf_printf(out, "%d", v->v.i32[i]); break;
	case FLOE_VEC_LONG:
	case FLOE_VEC_TIME:
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ: floe_buf_printf(out, "%lld", (long long)v->v.i64[i]); break;
	case FLOE_VEC_FLOAT: floe_buf_printf(out, "\"%.9g\"", (double)v->v.f32[i]); break;
	case FLOE_VEC_DOUBLE: floe_buf_printf(out, "\"%.17g\"", v->v.f64[i]); break;
	case FLOE_VEC_DECIMAL: put_dec(out, v->v.dec[i], scale); break;
	case FLOE_VEC_UUID:
		floe_buf_putc(out, '"');
		for (int k = 0; k < 16; k++)
			floe_buf_printf(out, "%02x", v->v.fixed[i * 16 + (size_t)k]);
		floe_buf_putc(out, '"');
		break;
	case FLOE_VEC_BINARY: {
		const uint8_t *b = floe_vector_bytes(v, i, &len);
		floe_buf_putc(out, '"');
		for (size_t k = 0; k < len; k++)
			floe_buf_printf(out, "%02x", b[k]);
		floe_buf_putc(out, '"');
		break;
	}
	case FLOE_VEC_LIST:
		floe_buf_putc(out, '[');
		for (int64_t k = v->offsets[i]; k < v->offsets[i + 1]; k++) {
			if (k > v->offsets[i])
				floe_buf_putc(out, ',');
			put_value(out, v->child, (size_t)k, scale);
		}
		floe_buf_putc(out, ']');
		break;
	default: {
		const uint8_t *b = floe_vector_bytes(v, i, &len);
		floe_json_put_string(out, (const char *)b, len);
	}
	}
}

int main(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr, "usage: copy_probe PORT HOST DB USER SQL TYPE...\n");
		return 2;
	}
	size_t ncols = (size_t)argc - 6;
	floe_pg_copy_column *cols = calloc(ncols, sizeof(*cols));
	floe_vector *vecs = calloc(ncols, sizeof(*vecs));
	for (size_t i = 0; i < ncols; i++) {
		cols[i].name = "c";
		parse_spec(&cols[i], argv[6 + i]);
		if (cols[i].vec == FLOE_VEC_LIST)
			floe_vector_init_list(&vecs[i], cols[i].elem_vec, cols[i].elem_vec == FLOE_VEC_UUID ? 16 : 0);
		else
			floe_vector_init(&vecs[i], cols[i].vec, cols[i].width);
	}
	floe_pg_target t = FLOE_PG_TARGET_INIT;
	t.port = (int)num(argv[1]);
	t.host = argv[2];
	t.database = argv[3];
	t.user = argv[4];
	t.password = getenv("PGPASSWORD");
	floe_pg *pg = NULL;
	floe_pg_copy *copy = NULL;
	floe_buf out = FLOE_BUF_INIT;
	size_t rows = 0;
	int rc = 1;
	if (floe_pg_connect(&pg, &t) < 0 || floe_pg_copy_begin(&copy, pg, argv[5], cols, ncols) < 0)
		goto cleanup;
	do {
		for (size_t i = 0; i < ncols; i++)
			floe_vector_clear(&vecs[i]);
		if (floe_pg_copy_next(copy, vecs, 1000, 1 << 20, &rows) < 0)
			goto cleanup;
		for (size_t r = 0; r < rows; r++) {
			floe_buf_clear(&out);
			floe_buf_putc(&out, '[');
			for (size_t i = 0; i < ncols; i++) {
				if (i)
					floe_buf_putc(&out, ',');
				put_value(&out, &vecs[i], r, vecs[i].type == FLOE_VEC_LIST ? cols[i].elem_scale : cols[i].scale);
			}
			floe_buf_puts(&out, "]\n");
			fputs(floe_buf_cstr(&out), stdout);
		}
	} while (rows > 0);
	fprintf(stderr, "rows=%llu bytes=%llu\n", (unsigned long long)floe_pg_copy_rows(copy),
		(unsigned long long)floe_pg_copy_bytes(copy));
	rc = 0;
cleanup:
	if (rc)
		floe_error_print(stderr);
	floe_pg_copy_free(copy);
	floe_pg_close(pg);
	for (size_t i = 0; i < ncols; i++)
		floe_vector_free(&vecs[i]);
	free(vecs);
	free(cols);
	floe_buf_free(&out);
	return rc;
}
