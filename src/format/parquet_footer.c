/*
 * parquet_footer.c — the Parquet footer: FileMetaData (Thrift compact) encoded from what the
 * writer recorded (schema with field ids, logical and converted types, row groups with their
 * column chunks and statistics, key/values, column orders), and decoded into
 * floe_parquet_meta for the reader. Decoding trusts nothing: unknown fields are skipped,
 * fields of an unexpected wire type are skipped as unknown, and every count is bounded by the
 * bytes that encode it. Everything decoded lives in the caller's arena.
 */
#include "format/parquet_reader_int.h"
#include "format/parquet_writer_int.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/version.h"
#include "format/thrift_compact.h"

#include <string.h>

/* ======== encoding ======== */


static void put_time_unit(floe_thrift_writer *t, int16_t id, bool utc)
{
	floe_thrift_field_struct(t, id);
	floe_thrift_field_bool(t, 1, utc);
	floe_thrift_field_struct(t, 2); /* TimeUnit union */
	floe_thrift_field_struct(t, 2); /* MICROS */
	floe_thrift_struct_end(t);
	floe_thrift_struct_end(t);
	floe_thrift_struct_end(t);
}

/* Converted type (-1 none) of a leaf, and its LogicalType union as field 10. */
static int converted_of(const pq_col *c)
{
	switch (c->vtype) {
	case FLOE_VEC_STRING: return PQ_CT_UTF8;
	case FLOE_VEC_DECIMAL: return PQ_CT_DECIMAL;
	case FLOE_VEC_DATE: return PQ_CT_DATE;
	case FLOE_VEC_TIME: return PQ_CT_TIME_MICROS;
	/* As Iceberg's Java writer (parquet-java) does for both timestamp kinds. */
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ: return PQ_CT_TIMESTAMP_MICROS;
	default: return -1;
	}
}

static void put_logical(floe_thrift_writer *t, const pq_col *c)
{
	int16_t member;
	switch (c->vtype) {
	case FLOE_VEC_STRING: member = FLOE_PQ_LT_STRING; break;
	case FLOE_VEC_DECIMAL: member = FLOE_PQ_LT_DECIMAL; break;
	case FLOE_VEC_DATE: member = FLOE_PQ_LT_DATE; break;
	case FLOE_VEC_TIME: member = FLOE_PQ_LT_TIME; break;
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ: member = FLOE_PQ_LT_TIMESTAMP; break;
	case FLOE_VEC_UUID: member = FLOE_PQ_LT_UUID; break;
	default: return;
	}
	floe_thrift_field_struct(t, 10);
	if (member == FLOE_PQ_LT_TIME || member == FLOE_PQ_LT_TIMESTAMP) {
		put_time_unit(t, member, c->vtype == FLOE_VEC_TIMESTAMPTZ);
	} else {
		floe_thrift_field_struct(t, member);
		if (member == FLOE_PQ_LT_DECIMAL) {
			floe_thrift_field_i32(t, 1, c->scale);
			floe_thrift_field_i32(t, 2, c->precision);
		}
		floe_thrift_struct_end(t);
	}
	floe_thrift_struct_end(t);
}

static void put_leaf_element(floe_thrift_writer *t, const pq_col *c, const char *name,
			     bool optional)
{
	int ct = converted_of(c);
	floe_thrift_struct_begin(t);
	floe_thrift_field_i32(t, 1, c->physical);
	if (c->physical == FLOE_PQ_FIXED_LEN_BYTE_ARRAY)
		floe_thrift_field_i32(t, 2, c->type_length);
	floe_thrift_field_i32(t, 3, optional ? FLOE_PQ_OPTIONAL : FLOE_PQ_REQUIRED);
	floe_thrift_field_binary(t, 4, name, strlen(name));
	if (ct >= 0)
		floe_thrift_field_i32(t, 6, ct);
	if (c->vtype == FLOE_VEC_DECIMAL) {
		floe_thrift_field_i32(t, 7, c->scale);
		floe_thrift_field_i32(t, 8, c->precision);
	}
	floe_thrift_field_i32(t, 9, c->field_id);
	put_logical(t, c);
	floe_thrift_struct_end(t);
}

static void put_group(floe_thrift_writer *t, const char *name, int repetition, int32_t children,
		      int converted, int32_t field_id)
{
	floe_thrift_struct_begin(t);
	floe_thrift_field_i32(t, 3, repetition);
	floe_thrift_field_binary(t, 4, name, strlen(name));
	floe_thrift_field_i32(t, 5, children);
	if (converted >= 0)
		floe_thrift_field_i32(t, 6, converted);
	if (field_id >= 0)
		floe_thrift_field_i32(t, 9, field_id);
	if (converted == PQ_CT_LIST) {
		floe_thrift_field_struct(t, 10);
		floe_thrift_field_struct(t, FLOE_PQ_LT_LIST);
		floe_thrift_struct_end(t);
		floe_thrift_struct_end(t);
	}
	floe_thrift_struct_end(t);
}

/*
 * A field's schema elements, depth-first: a leaf; a struct as a group of its fields; a list as
 * <name> (LIST) { repeated group list { <element> } }. `leaf` counts the leaves written.
 */
static void put_field(floe_thrift_writer *t, const floe_parquet_writer *w, const floe_parquet_field *f,
		      const char *name, size_t *leaf)
{
	int rep = f->required ? FLOE_PQ_REQUIRED : FLOE_PQ_OPTIONAL;
	if (f->type == FLOE_VEC_STRUCT) {
		put_group(t, name, rep, (int32_t)f->n_children, -1, f->id);
		for (size_t i = 0; i < f->n_children; i++)
			put_field(t, w, &f->children[i], f->children[i].name, leaf);
	} else if (f->type == FLOE_VEC_LIST) {
		put_group(t, name, rep, 1, PQ_CT_LIST, f->id);
		put_group(t, "list", FLOE_PQ_REPEATED, 1, -1, -1);
		put_field(t, w, f->element, "element", leaf);
	} else {
		put_leaf_element(t, &w->cols[(*leaf)++], name, !f->required);
	}
}

static uint32_t count_elements(const floe_parquet_field *f)
{
	if (f->type == FLOE_VEC_LIST)
		return 2 + count_elements(f->element);
	uint32_t n = 1;
	for (size_t i = 0; f->type == FLOE_VEC_STRUCT && i < f->n_children; i++)
		n += count_elements(&f->children[i]);
	return n;
}

static void put_schema(floe_thrift_writer *t, const floe_parquet_writer *w)
{
	uint32_t n = 1;
	size_t leaf = 0;
	for (size_t i = 0; i < w->n_fields; i++)
		n += count_elements(&w->fields[i]);
	floe_thrift_field_list(t, 2, FLOE_THRIFT_STRUCT, n);
	floe_thrift_struct_begin(t);
	floe_thrift_field_binary(t, 4, "table", 5);
	floe_thrift_field_i32(t, 5, (int32_t)w->n_fields);
	floe_thrift_struct_end(t);
	for (size_t i = 0; i < w->n_fields; i++)
		put_field(t, w, &w->fields[i], w->fields[i].name, &leaf);
}

static void put_statistics(floe_thrift_writer *t, const pq_col *c, const pq_chunk_rec *rec)
{
	floe_thrift_field_struct(t, 12);
	floe_thrift_field_i64(t, 3, rec->nulls);
	if (rec->has_minmax) {
		if (rec->max_ok)
			floe_thrift_field_binary(t, 5, rec->max, rec->max_len);
		floe_thrift_field_binary(t, 6, rec->min, rec->min_len);
		if (rec->max_ok)
			floe_thrift_field_bool(t, 7, rec->max_exact);
		floe_thrift_field_bool(t, 8, rec->min_exact);
	}
	if (c->kind == PQ_K_FLOAT)
		floe_thrift_field_i64(t, 9, rec->nans);
	floe_thrift_struct_end(t);
}

static void put_column_chunk(floe_thrift_writer *t, const pq_col *c, const pq_chunk_rec *rec,
			     int codec)
{
	uint32_t n_enc = 0;
	for (int e = 0; e < 32; e++)
		n_enc += (rec->encodings >> e) & 1;
	floe_thrift_struct_begin(t);
	floe_thrift_field_i64(t, 2, 0);
	floe_thrift_field_struct(t, 3);
	floe_thrift_field_i32(t, 1, c->physical);
	floe_thrift_field_list(t, 2, FLOE_THRIFT_I32, n_enc);
	for (int e = 0; e < 32; e++)
		if ((rec->encodings >> e) & 1)
			floe_thrift_write_i32(t, e);
	floe_thrift_field_list(t, 3, FLOE_THRIFT_BINARY, (uint32_t)c->n_schema_path);
	for (size_t i = 0; i < c->n_schema_path; i++)
		floe_thrift_write_binary(t, c->schema_path[i], strlen(c->schema_path[i]));
	floe_thrift_field_i32(t, 4, codec);
	floe_thrift_field_i64(t, 5, rec->num_values);
	floe_thrift_field_i64(t, 6, rec->uncompressed);
	floe_thrift_field_i64(t, 7, rec->compressed);
	floe_thrift_field_i64(t, 9, rec->data_offset);
	if (rec->dict_offset >= 0)
		floe_thrift_field_i64(t, 11, rec->dict_offset);
	put_statistics(t, c, rec);
	floe_thrift_struct_end(t);
	floe_thrift_struct_end(t);
}

static void put_row_groups(floe_thrift_writer *t, const floe_parquet_writer *w)
{
	floe_thrift_field_list(t, 4, FLOE_THRIFT_STRUCT, (uint32_t)w->n_rgs);
	for (size_t g = 0; g < w->n_rgs; g++) {
		const pq_rg_rec *rg = &w->rgs[g];
		floe_thrift_struct_begin(t);
		floe_thrift_field_list(t, 1, FLOE_THRIFT_STRUCT, (uint32_t)w->n_cols);
		for (size_t i = 0; i < w->n_cols; i++)
			put_column_chunk(t, &w->cols[i], &rg->chunks[i], w->opts.codec);
		floe_thrift_field_i64(t, 2, rg->total_byte_size);
		floe_thrift_field_i64(t, 3, rg->num_rows);
		floe_thrift_field_i64(t, 5, rg->file_offset);
		floe_thrift_field_i64(t, 6, rg->total_compressed);
		floe_thrift_field_i16(t, 7, (int16_t)g);
		floe_thrift_struct_end(t);
	}
}

static void put_key_values(floe_thrift_writer *t, const floe_parquet_writer *w)
{
	const char *const *kv = w->opts.metadata;
	uint32_t n = 0;
	while (kv && kv[2 * n])
		n++;
	if (n == 0)
		return;
	floe_thrift_field_list(t, 5, FLOE_THRIFT_STRUCT, n);
	for (uint32_t i = 0; i < n; i++) {
		floe_thrift_struct_begin(t);
		floe_thrift_field_binary(t, 1, kv[2 * i], strlen(kv[2 * i]));
		if (kv[2 * i + 1])
			floe_thrift_field_binary(t, 2, kv[2 * i + 1], strlen(kv[2 * i + 1]));
		floe_thrift_struct_end(t);
	}
}

int pq_footer_encode(floe_buf *meta, const floe_parquet_writer *w)
{
	floe_thrift_writer t;
	const char *created_by = w->opts.created_by ? w->opts.created_by
						    : "floe version " FLOE_VERSION;
	floe_thrift_writer_init(&t, meta);
	floe_thrift_struct_begin(&t);
	floe_thrift_field_i32(&t, 1, 1);
	put_schema(&t, w);
	floe_thrift_field_i64(&t, 3, w->total_rows);
	put_row_groups(&t, w);
	put_key_values(&t, w);
	floe_thrift_field_binary(&t, 6, created_by, strlen(created_by));
	floe_thrift_field_list(&t, 7, FLOE_THRIFT_STRUCT, (uint32_t)w->n_cols);
	for (size_t i = 0; i < w->n_cols; i++) {
		floe_thrift_struct_begin(&t); /* ColumnOrder union */
		floe_thrift_field_struct(&t, 1); /* TYPE_ORDER */
		floe_thrift_struct_end(&t);
		floe_thrift_struct_end(&t);
	}
	floe_thrift_struct_end(&t);
	if (floe_thrift_writer_finish(&t) < 0)
		return -1;
	if (meta->len > UINT32_MAX)
		return floe_error_set(FLOE_ERR_USAGE, "the Parquet footer would exceed 4 GiB");
	return 0;
}

/* ======== decoding ======== */

/* ---- thrift field helpers: read when the wire type matches, else skip ---- */

static int f_bin(floe_thrift_reader *t, int type, const uint8_t **p, size_t *len, bool *seen)
{
	if (type != FLOE_THRIFT_BINARY)
		return floe_thrift_skip(t, type);
	if (seen)
		*seen = true;
	return floe_thrift_read_binary(t, p, len);
}

static int f_str(floe_thrift_reader *t, int type, floe_arena *a, const char **out)
{
	const uint8_t *p;
	size_t len;
	if (type != FLOE_THRIFT_BINARY)
		return floe_thrift_skip(t, type);
	if (floe_thrift_read_binary(t, &p, &len) < 0)
		return -1;
	*out = floe_arena_strndup(a, (const char *)p, len);
	return 0;
}

/* A list header of structs (or of `want`); a list of another element type is skipped and
 * reported as empty. */
static int f_list(floe_thrift_reader *t, int type, int want, uint32_t *n, bool *skipped)
{
	int et;
	*n = 0;
	*skipped = false;
	if (type != FLOE_THRIFT_LIST && type != FLOE_THRIFT_SET) {
		*skipped = true;
		return floe_thrift_skip(t, type);
	}
	if (floe_thrift_read_list_begin(t, &et, n) < 0)
		return -1;
	if (et != want && !(floe_thrift_type_is_bool(et) && floe_thrift_type_is_bool(want))) {
		for (uint32_t i = 0; i < *n; i++)
			if (floe_thrift_skip(t, et) < 0)
				return -1;
		*n = 0;
		*skipped = true;
	}
	return 0;
}

/* Skip a struct whose content floe does not need (empty structs of unions). */
static int skip_struct_value(floe_thrift_reader *t)
{
	return floe_thrift_skip(t, FLOE_THRIFT_STRUCT);
}

/* ---- LogicalType ---- */

/* TimeType / TimestampType: isAdjustedToUTC and the TimeUnit union. */
static int parse_time_unit(floe_thrift_reader *t, floe_parquet_schema_element *e)
{
	int16_t id;
	int type, more;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		if (id == 1) {
			rc = floe_thrift_take_bool(t, type, &e->utc, NULL);
		} else if (id == 2 && type == FLOE_THRIFT_STRUCT) {
			int16_t uid;
			int utype, umore = 0;
			rc = floe_thrift_read_struct_begin(t);
			while (rc == 0 && (umore = floe_thrift_next_field(t, &uid, &utype)) > 0) {
				if (uid >= 1 && uid <= 3 && utype == FLOE_THRIFT_STRUCT)
					e->unit = uid;
				rc = floe_thrift_skip(t, utype);
			}
			if (rc == 0 && umore < 0)
				rc = -1;
		} else {
			rc = floe_thrift_skip(t, type);
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

static int parse_decimal_type(floe_thrift_reader *t, floe_parquet_schema_element *e)
{
	int16_t id;
	int type, more;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc = id == 1 ? floe_thrift_take_i32(t, type, &e->lt_scale, NULL)
			 : id == 2 ? floe_thrift_take_i32(t, type, &e->lt_precision, NULL)
				   : floe_thrift_skip(t, type);
		if (rc < 0)
			return -1;
	}
	return more;
}

static int parse_int_type(floe_thrift_reader *t, floe_parquet_schema_element *e)
{
	int16_t id;
	int type, more;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		if (id == 1 && type == FLOE_THRIFT_I8) {
			int8_t bits;
			rc = floe_thrift_read_i8(t, &bits);
			e->lt_bit_width = bits;
		} else if (id == 2) {
			rc = floe_thrift_take_bool(t, type, &e->lt_signed, NULL);
		} else {
			rc = floe_thrift_skip(t, type);
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

static int parse_logical(floe_thrift_reader *t, floe_parquet_schema_element *e)
{
	int16_t id;
	int type, more;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		if (type != FLOE_THRIFT_STRUCT) {
			rc = floe_thrift_skip(t, type);
		} else if (id == FLOE_PQ_LT_DECIMAL) {
			e->logical = id;
			rc = parse_decimal_type(t, e);
		} else if (id == FLOE_PQ_LT_TIME || id == FLOE_PQ_LT_TIMESTAMP) {
			e->logical = id;
			rc = parse_time_unit(t, e);
		} else if (id == FLOE_PQ_LT_INTEGER) {
			e->logical = id;
			rc = parse_int_type(t, e);
		} else {
			bool known = (id >= 1 && id <= 8) || (id >= 10 && id <= 15);
			e->logical = known ? id : FLOE_PQ_LT_OTHER;
			rc = skip_struct_value(t);
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

/* ---- SchemaElement ---- */

static int parse_schema_element(floe_thrift_reader *t, floe_arena *a, floe_parquet_schema_element *e)
{
	int16_t id;
	int type, more;
	int32_t v;
	bool seen;
	memset(e, 0, sizeof(*e));
	e->type = e->repetition = e->converted_type = -1;
	e->type_length = e->scale = e->precision = -1;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		seen = false;
		switch (id) {
		case 1: rc = floe_thrift_take_i32(t, type, &v, &seen); if (seen) e->type = v; break;
		case 2: rc = floe_thrift_take_i32(t, type, &e->type_length, NULL); break;
		case 3: rc = floe_thrift_take_i32(t, type, &v, &seen); if (seen) e->repetition = v; break;
		case 4: rc = f_str(t, type, a, &e->name); break;
		case 5: rc = floe_thrift_take_i32(t, type, &e->num_children, NULL); break;
		case 6: rc = floe_thrift_take_i32(t, type, &v, &seen); if (seen) e->converted_type = v; break;
		case 7: rc = floe_thrift_take_i32(t, type, &e->scale, NULL); break;
		case 8: rc = floe_thrift_take_i32(t, type, &e->precision, NULL); break;
		case 9: rc = floe_thrift_take_i32(t, type, &e->field_id, &e->has_field_id); break;
		case 10:
			rc = type == FLOE_THRIFT_STRUCT ? parse_logical(t, e) : floe_thrift_skip(t, type);
			break;
		default: rc = floe_thrift_skip(t, type); break;
		}
		if (rc < 0)
			return -1;
	}
	if (more == 0 && !e->name)
		e->name = "";
	return more;
}

/* ---- Statistics, ColumnMetaData, ColumnChunk, RowGroup ---- */

static int parse_statistics(floe_thrift_reader *t, floe_parquet_statistics *s)
{
	int16_t id;
	int type, more;
	memset(s, 0, sizeof(*s));
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		switch (id) {
		case 1: rc = f_bin(t, type, &s->legacy_max, &s->legacy_max_len, &s->has_legacy_max); break;
		case 2: rc = f_bin(t, type, &s->legacy_min, &s->legacy_min_len, &s->has_legacy_min); break;
		case 3: rc = floe_thrift_take_i64(t, type, &s->null_count, &s->has_null_count); break;
		case 4: rc = floe_thrift_take_i64(t, type, &s->distinct_count, &s->has_distinct_count); break;
		case 5: rc = f_bin(t, type, &s->max, &s->max_len, &s->has_max); break;
		case 6: rc = f_bin(t, type, &s->min, &s->min_len, &s->has_min); break;
		case 7: rc = floe_thrift_take_bool(t, type, &s->max_exact, &s->has_max_exact); break;
		case 8: rc = floe_thrift_take_bool(t, type, &s->min_exact, &s->has_min_exact); break;
		case 9: rc = floe_thrift_take_i64(t, type, &s->nan_count, &s->has_nan_count); break;
		default: rc = floe_thrift_skip(t, type); break;
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

static int parse_encodings(floe_thrift_reader *t, int type, uint32_t *mask)
{
	uint32_t n;
	bool skipped;
	if (f_list(t, type, FLOE_THRIFT_I32, &n, &skipped) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		int32_t e;
		if (floe_thrift_read_i32(t, &e) < 0)
			return -1;
		if (e >= 0 && e < 32)
			*mask |= 1u << e;
	}
	return 0;
}

static int parse_path(floe_thrift_reader *t, int type, floe_arena *a, floe_parquet_column_chunk *cc)
{
	uint32_t n;
	bool skipped;
	if (f_list(t, type, FLOE_THRIFT_BINARY, &n, &skipped) < 0)
		return -1;
	const char **path = floe_arena_alloc(a, (n + 1) * sizeof(char *));
	for (uint32_t i = 0; i < n; i++)
		if (f_str(t, FLOE_THRIFT_BINARY, a, &path[i]) < 0)
			return -1;
	cc->path = path;
	cc->path_len = n;
	return 0;
}

/* Required fields of ColumnMetaData, as bits. */
enum { CM_TYPE = 1, CM_CODEC = 2, CM_NUM = 4, CM_UNC = 8, CM_COMP = 16, CM_DATA = 32 };

static int parse_column_meta(floe_thrift_reader *t, floe_arena *a, floe_parquet_column_chunk *cc,
			     unsigned *seen)
{
	int16_t id;
	int type, more;
	int32_t v;
	bool got;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		got = false;
		switch (id) {
		case 1: rc = floe_thrift_take_i32(t, type, &v, &got); if (got) cc->type = v, *seen |= CM_TYPE; break;
		case 2: rc = parse_encodings(t, type, &cc->encodings); break;
		case 3: rc = parse_path(t, type, a, cc); break;
		case 4: rc = floe_thrift_take_i32(t, type, &v, &got); if (got) cc->codec = v, *seen |= CM_CODEC; break;
		case 5: rc = floe_thrift_take_i64(t, type, &cc->num_values, &got); if (got) *seen |= CM_NUM; break;
		case 6: rc = floe_thrift_take_i64(t, type, &cc->total_uncompressed_size, &got); if (got) *seen |= CM_UNC; break;
		case 7: rc = floe_thrift_take_i64(t, type, &cc->total_compressed_size, &got); if (got) *seen |= CM_COMP; break;
		case 9: rc = floe_thrift_take_i64(t, type, &cc->data_page_offset, &got); if (got) *seen |= CM_DATA; break;
		case 11:
			rc = floe_thrift_take_i64(t, type, &cc->dictionary_page_offset, &cc->has_dictionary_page_offset);
			break;
		case 12:
			if (type == FLOE_THRIFT_STRUCT) {
				cc->has_statistics = true;
				rc = parse_statistics(t, &cc->statistics);
			} else {
				rc = floe_thrift_skip(t, type);
			}
			break;
		default: rc = floe_thrift_skip(t, type); break;
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

static int parse_column_chunk(floe_thrift_reader *t, floe_arena *a, floe_parquet_column_chunk *cc,
			      unsigned *seen)
{
	int16_t id;
	int type, more;
	memset(cc, 0, sizeof(*cc));
	*seen = 0;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		if (id == 3 && type == FLOE_THRIFT_STRUCT) {
			rc = parse_column_meta(t, a, cc, seen);
		} else if (id == 1 && type == FLOE_THRIFT_BINARY) {
			/* Column data in another file: floe does not follow it. */
			*seen |= 0x100;
			rc = floe_thrift_skip(t, type);
		} else {
			rc = floe_thrift_skip(t, type);
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

static int parse_row_group(floe_thrift_reader *t, floe_arena *a, rg_parse *p)
{
	int16_t id;
	int type, more;
	floe_parquet_row_group *rg = p->rg;
	memset(rg, 0, sizeof(*rg));
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc = 0;
		switch (id) {
		case 1: {
			uint32_t n;
			bool skipped;
			if (f_list(t, type, FLOE_THRIFT_STRUCT, &n, &skipped) < 0)
				return -1;
			floe_parquet_column_chunk *cols = floe_arena_alloc(a, (n + 1) * sizeof(*cols));
			p->chunk_seen = floe_arena_alloc(a, (n + 1) * sizeof(unsigned));
			for (uint32_t i = 0; i < n && rc == 0; i++)
				rc = parse_column_chunk(t, a, &cols[i], &p->chunk_seen[i]) < 0 ? -1 : 0;
			rg->columns = cols;
			rg->n_columns = n;
			p->has_columns = !skipped;
			break;
		}
		case 2: rc = floe_thrift_take_i64(t, type, &rg->total_byte_size, &p->has_total); break;
		case 3: rc = floe_thrift_take_i64(t, type, &rg->num_rows, &p->has_rows); break;
		case 5: rc = floe_thrift_take_i64(t, type, &rg->file_offset, &rg->has_file_offset); break;
		case 6: rc = floe_thrift_take_i64(t, type, &rg->total_compressed_size, &rg->has_total_compressed_size); break;
		case 7:
			if (type == FLOE_THRIFT_I16) {
				rg->has_ordinal = true;
				rc = floe_thrift_read_i16(t, &rg->ordinal);
			} else {
				rc = floe_thrift_skip(t, type);
			}
			break;
		default: rc = floe_thrift_skip(t, type); break;
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

/* ---- FileMetaData ---- */

static int parse_schema_list(floe_thrift_reader *t, int type, floe_arena *a, fm_parse *p)
{
	uint32_t n;
	bool skipped;
	if (f_list(t, type, FLOE_THRIFT_STRUCT, &n, &skipped) < 0)
		return -1;
	floe_parquet_schema_element *s = floe_arena_alloc(a, (n + 1) * sizeof(*s));
	for (uint32_t i = 0; i < n; i++)
		if (parse_schema_element(t, a, &s[i]) < 0)
			return -1;
	p->m->schema = s;
	p->m->n_schema = n;
	p->has_schema = !skipped;
	return 0;
}

static int parse_row_group_list(floe_thrift_reader *t, int type, floe_arena *a, fm_parse *p)
{
	uint32_t n;
	bool skipped;
	if (f_list(t, type, FLOE_THRIFT_STRUCT, &n, &skipped) < 0)
		return -1;
	floe_parquet_row_group *rgs = floe_arena_alloc(a, (n + 1) * sizeof(*rgs));
	p->rgs = floe_arena_alloc(a, (n + 1) * sizeof(rg_parse));
	for (uint32_t i = 0; i < n; i++) {
		p->rgs[i].rg = &rgs[i];
		if (parse_row_group(t, a, &p->rgs[i]) < 0)
			return -1;
	}
	p->m->row_groups = rgs;
	p->m->n_row_groups = n;
	p->has_row_groups = !skipped;
	return 0;
}

static int parse_key_value(floe_thrift_reader *t, floe_arena *a, const char **k, const char **v)
{
	int16_t id;
	int type, more;
	*k = *v = NULL;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc = id == 1 ? f_str(t, type, a, k) : id == 2 ? f_str(t, type, a, v)
								    : floe_thrift_skip(t, type);
		if (rc < 0)
			return -1;
	}
	if (!*k)
		*k = "";
	return more;
}

static int parse_kv_list(floe_thrift_reader *t, int type, floe_arena *a, floe_parquet_meta *m)
{
	uint32_t n;
	bool skipped;
	if (f_list(t, type, FLOE_THRIFT_STRUCT, &n, &skipped) < 0)
		return -1;
	const char **keys = floe_arena_alloc(a, (n + 1) * sizeof(char *));
	const char **values = floe_arena_alloc(a, (n + 1) * sizeof(char *));
	for (uint32_t i = 0; i < n; i++)
		if (parse_key_value(t, a, &keys[i], &values[i]) < 0)
			return -1;
	m->kv_keys = keys;
	m->kv_values = values;
	m->n_kv = n;
	return 0;
}

/* ColumnOrder union: 1 TYPE_ORDER, 2 IEEE_754_TOTAL_ORDER, others 0. */
static int parse_column_orders(floe_thrift_reader *t, int type, floe_arena *a, floe_parquet_meta *m)
{
	uint32_t n;
	bool skipped;
	if (f_list(t, type, FLOE_THRIFT_STRUCT, &n, &skipped) < 0)
		return -1;
	int *orders = floe_arena_alloc(a, (n + 1) * sizeof(int));
	for (uint32_t i = 0; i < n; i++) {
		int16_t id;
		int ft, more;
		if (floe_thrift_read_struct_begin(t) < 0)
			return -1;
		while ((more = floe_thrift_next_field(t, &id, &ft)) > 0) {
			if (ft == FLOE_THRIFT_STRUCT && (id == 1 || id == 2))
				orders[i] = id;
			if (floe_thrift_skip(t, ft) < 0)
				return -1;
		}
		if (more < 0)
			return -1;
	}
	m->column_orders = orders;
	m->n_column_orders = n;
	return 0;
}

int pq_footer_decode(floe_thrift_reader *t, floe_arena *a, fm_parse *p)
{
	int16_t id;
	int type, more;
	floe_parquet_meta *m = p->m;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		switch (id) {
		case 1: rc = floe_thrift_take_i32(t, type, &m->version, &p->has_version); break;
		case 2: rc = parse_schema_list(t, type, a, p); break;
		case 3: rc = floe_thrift_take_i64(t, type, &m->num_rows, &p->has_rows); break;
		case 4: rc = parse_row_group_list(t, type, a, p); break;
		case 5: rc = parse_kv_list(t, type, a, m); break;
		case 6: rc = f_str(t, type, a, &m->created_by); break;
		case 7: rc = parse_column_orders(t, type, a, m); break;
		default: rc = floe_thrift_skip(t, type); break;
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

