/*
 * topic_decode.c — a Kafka message's JSON value as one bronze row, and the
 * `floe.kafka.offsets` summary value. Pure: no I/O, so the unit tests and the fuzz
 * target (fuzz/fuzz_kafka_decode.c) call it directly.
 */
#include "bronze/topic_int.h"
#include "base/civil.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- columns ---- */

static const struct { const char *name; floe_vec_type vec; bool required; } meta[TOPIC_META_COLUMNS] = {
	{ "_kafka_partition", FLOE_VEC_INT, true }, { "_kafka_offset", FLOE_VEC_LONG, true },
	{ "_kafka_timestamp", FLOE_VEC_TIMESTAMPTZ, false }, { "_kafka_key", FLOE_VEC_STRING, false },
};

static floe_iceberg_type_id iceberg_of(floe_vec_type v)
{
	static const floe_iceberg_type_id map[] = {
		[FLOE_VEC_BOOLEAN] = FLOE_ICEBERG_BOOLEAN, [FLOE_VEC_INT] = FLOE_ICEBERG_INT,
		[FLOE_VEC_LONG] = FLOE_ICEBERG_LONG, [FLOE_VEC_DOUBLE] = FLOE_ICEBERG_DOUBLE,
		[FLOE_VEC_DECIMAL] = FLOE_ICEBERG_DECIMAL, [FLOE_VEC_DATE] = FLOE_ICEBERG_DATE,
		[FLOE_VEC_TIMESTAMP] = FLOE_ICEBERG_TIMESTAMP, [FLOE_VEC_TIMESTAMPTZ] = FLOE_ICEBERG_TIMESTAMPTZ,
		[FLOE_VEC_STRING] = FLOE_ICEBERG_STRING, [FLOE_VEC_UUID] = FLOE_ICEBERG_UUID,
	};
	return map[v];
}

static void set_column(bronze_columns *c, floe_arena *a, size_t i, const char *name, floe_iceberg_type *t,
		       floe_vec_type vec, bool required)
{
	c->schema->fields[i] = (floe_iceberg_field){ .id = (int32_t)i + 1, .name = name, .required = required, .type = t };
	c->fields[i] = (floe_parquet_field){ .name = name, .id = (int32_t)i + 1, .required = required, .type = vec,
					     .precision = t->precision, .scale = t->scale,
					     .length = vec == FLOE_VEC_UUID ? 16 : 0 };
	/* the vectors' shape (bronze_vectors_new); nothing here is decoded from COPY */
	c->copy[i] = (floe_pg_copy_column){ .name = name, .vec = vec, .width = c->fields[i].length,
					    .precision = t->precision, .scale = t->scale };
	(void)a;
}

static void columns_alloc(bronze_columns *c, floe_arena *a, size_t n)
{
	c->n = n;
	c->schema = floe_arena_alloc(a, sizeof(*c->schema));
	memset(c->schema, 0, sizeof(*c->schema));
	c->schema->n_fields = n;
	c->schema->fields = floe_arena_alloc(a, (n + 1) * sizeof(floe_iceberg_field));
	c->fields = floe_arena_alloc(a, (n + 1) * sizeof(floe_parquet_field));
	c->copy = floe_arena_alloc(a, (n + 1) * sizeof(floe_pg_copy_column));
	for (size_t i = 0; i < TOPIC_META_COLUMNS; i++)
		set_column(c, a, i, meta[i].name, floe_iceberg_type_new(a, iceberg_of(meta[i].vec)), meta[i].vec,
			   meta[i].required);
}

static int vec_of(floe_vec_type *out, const floe_iceberg_type *t)
{
	for (int v = FLOE_VEC_BOOLEAN; v <= FLOE_VEC_UUID; v++)
		if (v != FLOE_VEC_FLOAT && v != FLOE_VEC_TIME && iceberg_of((floe_vec_type)v) == t->id) {
			*out = (floe_vec_type)v;
			return 0;
		}
	return -1;
}

/* An upsert topic's key: its columns' indexes, and the schema's identifier fields. */
static int key_columns(topic_columns *out, floe_arena *a, const floe_config_kafka_topic *t)
{
	out->n_key = 0;
	out->key = floe_arena_alloc(a, (t->n_key + 1) * sizeof(size_t));
	if (t->mode != FLOE_KAFKA_UPSERT)
		return 0;
	for (size_t k = 0; k < t->n_key; k++)
		for (size_t i = 0; i < t->n_columns; i++)
			if (strcmp(t->key[k], t->columns[i].name) == 0)
				out->key[out->n_key++] = TOPIC_META_COLUMNS + i;
	if (out->n_key != t->n_key || out->n_key == 0) {
		floe_error_set(FLOE_ERR_CONFIG, "the key of upsert topic \"%s\" must name declared columns", t->topic);
		return -1;
	}
	return 0;
}

int topic_columns_build(topic_columns *out, floe_arena *a, const floe_config_kafka_topic *t)
{
	columns_alloc(&out->cols, a, TOPIC_META_COLUMNS + t->n_columns);
	out->n_user = t->n_columns;
	for (size_t i = 0; i < t->n_columns; i++) {
		floe_iceberg_type *type = NULL;
		floe_vec_type vec;
		const char *ty = t->columns[i].type;
		if (floe_iceberg_type_parse(&type, a, ty, strlen(ty)) < 0 || vec_of(&vec, type) < 0 ||
		    (vec == FLOE_VEC_DECIMAL && type->precision > 18)) {
			floe_error_clear();
			floe_error_set(FLOE_ERR_CONFIG, "column \"%s\" of kafka topic \"%s\" has type \"%s\", which floe "
				       "does not read from JSON", t->columns[i].name, t->topic, ty);
			floe_error_hint("Use string, int, long, double, boolean, uuid, date, timestamp, timestamptz or "
					"decimal(P,S) with P up to 18.");
			return -1;
		}
		set_column(&out->cols, a, TOPIC_META_COLUMNS + i, t->columns[i].name, type, vec, false);
	}
	return key_columns(out, a, t);
}

void topic_rejected_columns(bronze_columns *out, floe_arena *a)
{
	columns_alloc(out, a, TOPIC_META_COLUMNS + 2);
	set_column(out, a, TOPIC_META_COLUMNS, "reason", floe_iceberg_type_new(a, FLOE_ICEBERG_STRING), FLOE_VEC_STRING,
		   true);
	set_column(out, a, TOPIC_META_COLUMNS + 1, "raw_value", floe_iceberg_type_new(a, FLOE_ICEBERG_STRING),
		   FLOE_VEC_STRING, false);
}

/* ---- values ---- */

typedef struct cell {
	bool null;
	int64_t i;
	double d;
	floe_slice s;
	uint8_t uuid[16];
} cell;

static int parse_decimal(int64_t *out, floe_slice t, int scale)
{
	size_t i = 0;
	int64_t v = 0;
	int frac = -1;
	bool neg = t.len && t.ptr[0] == '-', digits = false;
	for (i = neg; i < t.len; i++) {
		char c = t.ptr[i];
		if (c == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (c < '0' || c > '9' || (frac >= 0 && ++frac > scale) || v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (c - '0');
		digits = true;
	}
	for (int k = frac < 0 ? 0 : frac; k < scale; k++) {
		if (v > INT64_MAX / 10)
			return -1;
		v *= 10;
	}
	*out = neg ? -v : v;
	return digits ? 0 : -1;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int parse_uuid(uint8_t out[16], floe_slice s)
{
	size_t n = 0;
	for (size_t i = 0; i < s.len && n < 32; i++) {
		if (s.ptr[i] == '-' && (i == 8 || i == 13 || i == 18 || i == 23))
			continue;
		int h = hexval(s.ptr[i]);
		if (h < 0)
			return -1;
		out[n / 2] = (uint8_t)(n % 2 ? (out[n / 2] | h) : h << 4);
		n++;
	}
	return n == 32 && s.len == 36 ? 0 : -1;
}

/* "YYYY-MM-DD[ T]HH:MM:SS[.f]" with, for timestamptz, "Z", "+00" or "±HH:MM". */
static int parse_time(int64_t *out, floe_slice s, bool tz)
{
	char text[64];
	int64_t shift = 0;
	if (s.len < 19 || s.len >= sizeof(text))
		return -1;
	memcpy(text, s.ptr, s.len);
	text[s.len] = '\0';
	if (text[10] == 'T')
		text[10] = ' ';
	size_t n = s.len;
	if (tz && n >= 25 && (text[n - 6] == '+' || text[n - 6] == '-') && text[n - 3] == ':') {
		int h = (text[n - 5] - '0') * 10 + (text[n - 4] - '0'), m = (text[n - 2] - '0') * 10 + (text[n - 1] - '0');
		if (h < 0 || h > 23 || m < 0 || m > 59)
			return -1;
		shift = (text[n - 6] == '+' ? -1 : 1) * ((int64_t)h * 3600 + m * 60) * 1000000;
		text[n - 6] = '\0';
	} else if (!tz && (text[n - 1] == 'Z' || strstr(text, "+"))) {
		return -1;
	}
	if (floe_civil_parse_micros(out, text) < 0)
		return -1;
	*out += shift;
	return 0;
}

static const char *convert(cell *c, const floe_parquet_field *f, const floe_json_value *v, const floe_iceberg_type *t)
{
	floe_json_type jt = v ? floe_json_type_of(v) : FLOE_JSON_NULL;
	c->null = jt == FLOE_JSON_NULL;
	if (c->null)
		return NULL;
	switch (f->type) {
	case FLOE_VEC_BOOLEAN:
		if (jt != FLOE_JSON_BOOL)
			return "not a boolean";
		c->i = floe_json_bool(v);
		return NULL;
	case FLOE_VEC_INT:
	case FLOE_VEC_LONG:
		if (jt != FLOE_JSON_NUMBER || floe_json_int64(&c->i, v) < 0)
			return "not a whole number";
		if (f->type == FLOE_VEC_INT && (c->i < INT32_MIN || c->i > INT32_MAX))
			return "out of range for int";
		return NULL;
	case FLOE_VEC_DOUBLE:
		if (jt != FLOE_JSON_NUMBER)
			return "not a number";
		c->d = floe_json_number(v);
		return NULL;
	case FLOE_VEC_DECIMAL:
		if (jt != FLOE_JSON_NUMBER && jt != FLOE_JSON_STRING)
			return "not a decimal number";
		if (parse_decimal(&c->i, jt == FLOE_JSON_STRING ? floe_json_string(v) : floe_json_number_text(v), t->scale) < 0 ||
		    !floe_dec128_fits(floe_dec128_from_i64(c->i), t->precision))
			return "not a decimal that fits the column's precision and scale without rounding";
		return NULL;
	default:
		break;
	}
	if (jt != FLOE_JSON_STRING)
		return "not a string";
	c->s = floe_json_string(v);
	switch (f->type) {
	case FLOE_VEC_UUID:
		return parse_uuid(c->uuid, c->s) < 0 ? "not a uuid" : NULL;
	case FLOE_VEC_DATE: {
		char text[16];
		if (c->s.len != 10)
			return "not a date (YYYY-MM-DD)";
		memcpy(text, c->s.ptr, 10);
		text[10] = '\0';
		return floe_civil_parse_days(&c->i, text) < 0 ? "not a date (YYYY-MM-DD)" : NULL;
	}
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ:
		return parse_time(&c->i, c->s, f->type == FLOE_VEC_TIMESTAMPTZ) < 0 ? "not a timestamp of the column's kind" : NULL;
	default:
		return NULL; /* string */
	}
}

static void append(floe_vector *vec, const cell *c)
{
	if (c->null) {
		floe_vector_append_null(vec);
		return;
	}
	switch (vec->type) {
	case FLOE_VEC_BOOLEAN: floe_vector_append_bool(vec, c->i != 0); break;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: floe_vector_append_i32(vec, (int32_t)c->i); break;
	case FLOE_VEC_DOUBLE: floe_vector_append_f64(vec, c->d); break;
	case FLOE_VEC_DECIMAL: floe_vector_append_dec(vec, floe_dec128_from_i64(c->i)); break;
	case FLOE_VEC_UUID: floe_vector_append_fixed(vec, c->uuid); break;
	case FLOE_VEC_STRING: floe_vector_append_bytes(vec, c->s.ptr, c->s.len); break;
	default: floe_vector_append_i64(vec, c->i); break;
	}
}

static bool utf8_valid(const char *p, size_t n)
{
	for (size_t i = 0, l; i < n; i += l)
		if ((l = floe_utf8_len(p + i, n - i)) == 0)
			return false;
	return true;
}

static void append_meta(floe_vector *vec, const topic_message *m)
{
	floe_vector_append_i32(&vec[0], m->partition);
	floe_vector_append_i64(&vec[1], m->offset);
	if (m->timestamp_ms >= 0)
		floe_vector_append_i64(&vec[2], m->timestamp_ms * 1000);
	else
		floe_vector_append_null(&vec[2]);
	if (m->key)
		floe_vector_append_bytes(&vec[3], m->key, m->key_len);
	else
		floe_vector_append_null(&vec[3]);
}

/*
 * A tombstone's key columns from the message key: a JSON object of them, or (one key
 * column) the key as that column's value — a JSON scalar when it is one ("42"), else text.
 */
static int key_doc(floe_json_doc **out, const topic_columns *tc, const topic_message *m, floe_arena *a, const char **why)
{
	floe_json_error jerr;
	floe_json_doc *k = NULL;
	floe_buf text = FLOE_BUF_INIT;
	int rc = -1;
	if (!m->key) {
		*why = "a tombstone without a key deletes nothing";
		return -1;
	}
	bool object = floe_json_parse(&k, m->key, m->key_len, &jerr) == 0 &&
		      floe_json_type_of(floe_json_root(k)) == FLOE_JSON_OBJECT;
	floe_error_clear();
	if (!object && tc->n_key != 1) {
		*why = "the key of a tombstone in a topic keyed by several columns must be a JSON object of them";
		goto cleanup;
	}
	if (object) {
		*out = k;
		k = NULL;
		rc = 0;
		goto cleanup;
	}
	floe_buf_putc(&text, '{');
	floe_json_put_cstr(&text, tc->cols.fields[tc->key[0]].name);
	floe_buf_putc(&text, ':');
	if (k && floe_json_type_of(floe_json_root(k)) != FLOE_JSON_STRING && floe_json_type_of(floe_json_root(k)) != FLOE_JSON_ARRAY)
		floe_buf_put(&text, m->key, m->key_len);
	else
		floe_json_put_string(&text, m->key, m->key_len);
	floe_buf_putc(&text, '}');
	if (floe_json_parse(out, text.ptr, text.len, &jerr) < 0) {
		floe_error_clear();
		*why = floe_arena_printf(a, "the tombstone's key is not usable (%s)", jerr.message);
		goto cleanup;
	}
	rc = 0;
cleanup:
	floe_json_free(k);
	floe_buf_free(&text);
	return rc;
}

int topic_decode(floe_vector *vec, const topic_columns *tc, const topic_message *m, floe_arena *a, const char **why)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	cell *cells = floe_arena_alloc(a, (tc->n_user + 1) * sizeof(cell));
	int rc = 1;
	if (m->key && !utf8_valid(m->key, m->key_len)) {
		*why = "the key is not UTF-8 text";
		goto cleanup;
	}
	if (m->value && floe_json_parse(&doc, m->value, m->value_len, &jerr) < 0) {
		floe_error_clear();
		*why = floe_arena_printf(a, "the value is not JSON (%s at byte %zu)", jerr.message, jerr.offset);
		goto cleanup;
	}
	if (!m->value && tc->n_key && key_doc(&doc, tc, m, a, why) < 0)
		goto cleanup;
	const floe_json_value *root = doc ? floe_json_root(doc) : NULL;
	if (root && floe_json_type_of(root) != FLOE_JSON_OBJECT) {
		*why = floe_arena_printf(a, "the value is a JSON %s, not an object", floe_json_type_name(floe_json_type_of(root)));
		goto cleanup;
	}
	for (size_t i = 0; i < tc->n_user; i++) {
		const floe_parquet_field *f = &tc->cols.fields[TOPIC_META_COLUMNS + i];
		const char *bad = convert(&cells[i], f, root ? floe_json_get(root, f->name) : NULL,
					  tc->cols.schema->fields[TOPIC_META_COLUMNS + i].type);
		if (bad) {
			*why = floe_arena_printf(a, "member \"%s\" is %s", f->name, bad);
			goto cleanup;
		}
	}
	for (size_t k = 0; k < tc->n_key; k++)
		if (cells[tc->key[k] - TOPIC_META_COLUMNS].null) {
			*why = floe_arena_printf(a, "key column \"%s\" is missing or null", tc->cols.fields[tc->key[k]].name);
			goto cleanup;
		}
	append_meta(vec, m);
	for (size_t i = 0; i < tc->n_user; i++)
		append(&vec[TOPIC_META_COLUMNS + i], &cells[i]);
	rc = 0;
cleanup:
	floe_json_free(doc);
	return rc;
}

/* Bytes that are not UTF-8 become \xNN (and a backslash \\), so the raw value is text a reader can show. */
static void put_escaped(floe_buf *out, const char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t l = floe_utf8_len(p + i, n - i);
		if (l == 0) {
			floe_buf_printf(out, "\\x%02x", (unsigned char)p[i]);
			i++;
		} else if (p[i] == '\\') {
			floe_buf_puts(out, "\\\\");
			i++;
		} else {
			floe_buf_put(out, p + i, l);
			i += l;
		}
	}
}

void topic_reject_row(floe_vector *vec, const topic_message *m, const char *why)
{
	floe_buf raw = FLOE_BUF_INIT;
	topic_message safe = *m;
	floe_buf key = FLOE_BUF_INIT;
	if (m->key) {
		put_escaped(&key, m->key, m->key_len);
		safe.key = key.ptr ? key.ptr : "";
		safe.key_len = key.len;
	}
	append_meta(vec, &safe);
	floe_vector_append_bytes(&vec[TOPIC_META_COLUMNS], why, strlen(why));
	if (m->value) {
		put_escaped(&raw, m->value, m->value_len);
		floe_vector_append_bytes(&vec[TOPIC_META_COLUMNS + 1], raw.ptr ? raw.ptr : "", raw.len);
	} else {
		floe_vector_append_null(&vec[TOPIC_META_COLUMNS + 1]);
	}
	floe_buf_free(&raw);
	floe_buf_free(&key);
}

/* ---- offsets ---- */

int topic_offsets_parse(topic_offsets *out, floe_arena *a, const char *json, size_t len, const char *topic)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	int rc = -1;
	memset(out, 0, sizeof(*out));
	if (floe_json_parse(&doc, json, len, &jerr) < 0 || floe_json_type_of(floe_json_root(doc)) != FLOE_JSON_OBJECT) {
		floe_error_clear();
		floe_error_set(FLOE_ERR_CHECK, "snapshot summary " TOPIC_SUMMARY_KEY " is not a JSON object of topics");
		goto cleanup;
	}
	const floe_json_value *parts = floe_json_get(floe_json_root(doc), topic);
	if (!parts) {
		rc = 0;
		goto cleanup;
	}
	size_t n = floe_json_type_of(parts) == FLOE_JSON_OBJECT ? floe_json_count(parts) : 0;
	out->partition = floe_arena_alloc(a, (n + 1) * sizeof(int32_t));
	out->next = floe_arena_alloc(a, (n + 1) * sizeof(int64_t));
	for (size_t i = 0; i < n; i++) {
		floe_slice k = floe_json_key_at(parts, i);
		int64_t p, next;
		if (floe_text_parse_int64(&p, k.ptr, k.len, 0, INT32_MAX) < 0 ||
		    floe_json_type_of(floe_json_value_at(parts, i)) != FLOE_JSON_NUMBER ||
		    floe_json_int64(&next, floe_json_value_at(parts, i)) < 0 || next < 0) {
			floe_error_clear();
			floe_error_set(FLOE_ERR_CHECK, "snapshot summary " TOPIC_SUMMARY_KEY " has a bad entry for topic \"%s\"",
				       topic);
			goto cleanup;
		}
		out->partition[out->n] = (int32_t)p;
		out->next[out->n++] = next;
	}
	if (floe_json_type_of(parts) != FLOE_JSON_OBJECT) {
		floe_error_set(FLOE_ERR_CHECK, "snapshot summary " TOPIC_SUMMARY_KEY " of topic \"%s\" is not an object", topic);
		goto cleanup;
	}
	rc = 0;
cleanup:
	floe_json_free(doc);
	return rc;
}

int64_t topic_offsets_get(const topic_offsets *o, int32_t partition, int64_t dflt)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->partition[i] == partition)
			return o->next[i];
	return dflt;
}

void topic_offsets_format(floe_buf *out, const topic_offsets *o, const char *topic)
{
	floe_json_writer j;
	char num[16];
	floe_json_write_init(&j, out, false);
	floe_json_write_begin_object(&j, true);
	floe_json_write_key(&j, topic);
	floe_json_write_begin_object(&j, true);
	for (size_t i = 0; i < o->n; i++) {
		snprintf(num, sizeof(num), "%d", (int)o->partition[i]);
		floe_json_write_member_int(&j, num, o->next[i]);
	}
	floe_json_write_end_object(&j);
	floe_json_write_end_object(&j);
	floe_json_write_finish(&j);
}
