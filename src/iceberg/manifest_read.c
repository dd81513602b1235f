/*
 * manifest_read.c — reading manifests and manifest lists by field id.
 *
 * The writer's schema in the file decides where each field is; floe finds fields by
 * their `field-id` (by name when a file carries no ids), so field order and extra
 * fields of other writers do not matter. Required fields missing, or of the wrong
 * Avro type, make the file invalid with a message naming the field.
 */
#include "iceberg/manifest.h"

#include "base/error.h"
#include "format/avro.h"

#include <string.h>

typedef struct field_ref {
	int64_t id;
	const char *name;
	bool required;
} field_ref;

/* Index of each wanted field in `record`'s type; -1 for absent optional ones. */
static int resolve(int *idx, const floe_avro_type *record, const field_ref *want, size_t n,
		   const char *what)
{
	if (!record || floe_avro_type_kind(record) != FLOE_AVRO_RECORD)
		return floe_error_set(FLOE_ERR_IO, "%s: the avro schema is not a record", what);
	for (size_t i = 0; i < n; i++) {
		idx[i] = floe_avro_field_find(record, want[i].id, want[i].name);
		if (idx[i] < 0 && want[i].required)
			return floe_error_set(FLOE_ERR_IO, "%s: required field \"%s\" (id %lld) is missing",
					      what, want[i].name, (long long)want[i].id);
	}
	return 0;
}

static const floe_avro_value *at(const floe_avro_value *rec, int idx)
{
	const floe_avro_value *v = idx < 0 ? NULL : floe_avro_value_at(rec, (size_t)idx);
	return v && v->kind != FLOE_AVRO_NULL ? v : NULL;
}

static int get_long(int64_t *out, const floe_avro_value *rec, int idx, int64_t absent)
{
	const floe_avro_value *v = at(rec, idx);
	if (!v) {
		*out = absent;
		return 0;
	}
	if (v->kind != FLOE_AVRO_INT && v->kind != FLOE_AVRO_LONG)
		return -1;
	*out = v->u.integer;
	return 0;
}

static int get_int(int32_t *out, const floe_avro_value *rec, int idx, int32_t absent)
{
	int64_t v;
	if (get_long(&v, rec, idx, absent) < 0 || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int32_t)v;
	return 0;
}

static const char *get_string(floe_arena *a, const floe_avro_value *rec, int idx)
{
	const floe_avro_value *v = at(rec, idx);
	if (!v || (v->kind != FLOE_AVRO_STRING && v->kind != FLOE_AVRO_BYTES))
		return NULL;
	return floe_arena_strndup(a, (const char *)v->u.bytes.ptr, v->u.bytes.len);
}

static int invalid(const char *what, const char *field)
{
	return floe_error_set(FLOE_ERR_IO, "%s: field \"%s\" has a value of the wrong type", what, field);
}

/* ---- manifest entries ---- */

enum { E_STATUS, E_SNAPSHOT, E_SEQ, E_FILE_SEQ, E_DATA_FILE, E_COUNT };
static const field_ref entry_fields[E_COUNT] = {
	{ 0, "status", true },		 { 1, "snapshot_id", false },
	{ 3, "sequence_number", false }, { 4, "file_sequence_number", false },
	{ 2, "data_file", true },
};

enum { F_CONTENT, F_PATH, F_FORMAT, F_RECORDS, F_SIZE, F_COL_SIZES, F_VALUES, F_NULLS, F_NANS,
       F_LOWER, F_UPPER, F_SPLITS, F_EQ_IDS, F_SORT, F_COUNT };
static const field_ref file_fields[F_COUNT] = {
	{ 134, "content", false },	  { 100, "file_path", true },
	{ 101, "file_format", true },	  { 103, "record_count", true },
	{ 104, "file_size_in_bytes", true }, { 108, "column_sizes", false },
	{ 109, "value_counts", false },	  { 110, "null_value_counts", false },
	{ 137, "nan_value_counts", false }, { 125, "lower_bounds", false },
	{ 128, "upper_bounds", false },	  { 132, "split_offsets", false },
	{ 135, "equality_ids", false },	  { 140, "sort_order_id", false },
};

typedef struct stats_builder {
	floe_iceberg_column_stats *cols;
	size_t n, cap;
} stats_builder;

static floe_iceberg_column_stats *stats_for(floe_arena *a, stats_builder *b, int32_t id)
{
	floe_iceberg_column_stats init = FLOE_ICEBERG_COLUMN_STATS_INIT, *c;
	for (size_t i = 0; i < b->n; i++)
		if (b->cols[i].field_id == id)
			return &b->cols[i];
	c = FLOE_ARENA_PUSH(a, b->cols, b->n, b->cap);
	*c = init;
	c->field_id = id;
	return c;
}

/* One int-keyed map (an array of key/value records) into the stats. */
static int read_stats_map(floe_arena *a, stats_builder *b, const floe_avro_value *map, int kind)
{
	if (!map)
		return 0;
	if (map->kind != FLOE_AVRO_ARRAY)
		return -1;
	for (size_t i = 0; i < map->u.list.len; i++) {
		const floe_avro_value *kv = map->u.list.items[i], *k, *v;
		if (!kv || kv->kind != FLOE_AVRO_RECORD || kv->u.list.len < 2)
			return -1;
		k = kv->u.list.items[0];
		v = kv->u.list.items[1];
		if (!k || k->kind != FLOE_AVRO_INT || !v)
			return -1;
		floe_iceberg_column_stats *c = stats_for(a, b, (int32_t)k->u.integer);
		if (kind < 4) {
			if (v->kind != FLOE_AVRO_LONG && v->kind != FLOE_AVRO_INT)
				return -1;
			int64_t *slot[4] = { &c->column_size, &c->value_count, &c->null_value_count,
					     &c->nan_value_count };
			*slot[kind] = v->u.integer;
		} else {
			if (v->kind != FLOE_AVRO_BYTES)
				return -1;
			if (kind == 4) {
				c->has_lower = true;
				c->lower = v->u.bytes.ptr;
				c->lower_len = v->u.bytes.len;
			} else {
				c->has_upper = true;
				c->upper = v->u.bytes.ptr;
				c->upper_len = v->u.bytes.len;
			}
		}
	}
	return 0;
}

static int read_long_list(floe_arena *a, const floe_avro_value *arr, int64_t **out, size_t *n)
{
	*n = 0;
	*out = NULL;
	if (!arr)
		return 0;
	if (arr->kind != FLOE_AVRO_ARRAY)
		return -1;
	*out = floe_arena_alloc(a, (arr->u.list.len + 1) * sizeof(**out));
	for (size_t i = 0; i < arr->u.list.len; i++) {
		const floe_avro_value *v = arr->u.list.items[i];
		if (!v || (v->kind != FLOE_AVRO_LONG && v->kind != FLOE_AVRO_INT))
			return -1;
		(*out)[i] = v->u.integer;
	}
	*n = arr->u.list.len;
	return 0;
}

static int read_data_file(floe_arena *a, floe_iceberg_data_file *f, const floe_avro_value *df,
			  const int *idx)
{
	static const char *what = "manifest";
	stats_builder sb = { NULL, 0, 0 };
	int64_t *splits, *eq;
	int32_t content;
	if (get_int(&content, df, idx[F_CONTENT], 0) < 0 || content < 0 || content > 2)
		return invalid(what, "content");
	f->content = (floe_iceberg_content)content;
	f->path = get_string(a, df, idx[F_PATH]);
	f->format = get_string(a, df, idx[F_FORMAT]);
	if (!f->path || !f->format)
		return invalid(what, !f->path ? "file_path" : "file_format");
	if (get_long(&f->record_count, df, idx[F_RECORDS], -1) < 0 || f->record_count < 0)
		return invalid(what, "record_count");
	if (get_long(&f->file_size_in_bytes, df, idx[F_SIZE], -1) < 0 || f->file_size_in_bytes < 0)
		return invalid(what, "file_size_in_bytes");
	for (int k = 0; k < 6; k++)
		if (read_stats_map(a, &sb, at(df, idx[F_COL_SIZES + k]), k) < 0)
			return invalid(what, file_fields[F_COL_SIZES + k].name);
	f->columns = sb.cols;
	f->n_columns = sb.n;
	if (read_long_list(a, at(df, idx[F_SPLITS]), &splits, &f->n_split_offsets) < 0)
		return invalid(what, "split_offsets");
	f->split_offsets = splits;
	if (read_long_list(a, at(df, idx[F_EQ_IDS]), &eq, &f->n_equality_ids) < 0)
		return invalid(what, "equality_ids");
	if (f->n_equality_ids) {
		int32_t *ids = floe_arena_alloc(a, f->n_equality_ids * sizeof(*ids));
		for (size_t i = 0; i < f->n_equality_ids; i++)
			ids[i] = (int32_t)eq[i];
		f->equality_ids = ids;
	}
	f->has_sort_order_id = at(df, idx[F_SORT]) != NULL;
	if (get_int(&f->sort_order_id, df, idx[F_SORT], 0) < 0)
		return invalid(what, "sort_order_id");
	return 0;
}

/* Inherit what the spec says an entry inherits from its manifest list entry. */
static void inherit(floe_iceberg_manifest_entry *e, const floe_iceberg_manifest_file *from)
{
	if (!from)
		return;
	if (e->snapshot_id < 0)
		e->snapshot_id = from->added_snapshot_id;
	if (e->sequence_number < 0 && (e->status == FLOE_ICEBERG_ADDED || from->sequence_number == 0))
		e->sequence_number = from->sequence_number;
	if (e->file_sequence_number < 0 &&
	    (e->status == FLOE_ICEBERG_ADDED || from->sequence_number == 0))
		e->file_sequence_number = from->sequence_number;
}

typedef struct entry_vec {
	floe_iceberg_manifest_entry *items;
	size_t n, cap;
} entry_vec;

static int read_entry(floe_arena *a, floe_iceberg_manifest_entry *e, const floe_avro_value *rec,
		      const int *ei, const int *fi)
{
	int32_t status;
	if (get_int(&status, rec, ei[E_STATUS], -1) < 0 || status < 0 || status > 2)
		return invalid("manifest", "status");
	e->status = (floe_iceberg_entry_status)status;
	if (get_long(&e->snapshot_id, rec, ei[E_SNAPSHOT], -1) < 0)
		return invalid("manifest", "snapshot_id");
	if (get_long(&e->sequence_number, rec, ei[E_SEQ], -1) < 0)
		return invalid("manifest", "sequence_number");
	if (get_long(&e->file_sequence_number, rec, ei[E_FILE_SEQ], -1) < 0)
		return invalid("manifest", "file_sequence_number");
	const floe_avro_value *df = at(rec, ei[E_DATA_FILE]);
	if (!df || df->kind != FLOE_AVRO_RECORD)
		return invalid("manifest", "data_file");
	return read_data_file(a, &e->file, df, fi);
}

int floe_iceberg_manifest_read(floe_iceberg_manifest_entry **out, size_t *n, floe_arena *arena,
			       const void *data, size_t len, const floe_iceberg_manifest_file *from)
{
	floe_avro_reader *r = NULL;
	const floe_avro_type *root, *df_type;
	const floe_avro_value *rec;
	entry_vec vec = { NULL, 0, 0 };
	int ei[E_COUNT], fi[F_COUNT], rc, error = -1;
	*out = NULL;
	*n = 0;
	if (floe_avro_reader_open(&r, data, len) < 0)
		goto cleanup;
	root = floe_avro_schema_root(floe_avro_reader_schema(r));
	if (resolve(ei, root, entry_fields, E_COUNT, "manifest") < 0)
		goto cleanup;
	df_type = floe_avro_type_child(root, (size_t)ei[E_DATA_FILE]);
	if (resolve(fi, df_type, file_fields, F_COUNT, "manifest data_file") < 0)
		goto cleanup;
	while ((rc = floe_avro_reader_next(r, arena, &rec)) == 1) {
		floe_iceberg_manifest_entry *e = FLOE_ARENA_PUSH(arena, vec.items, vec.n, vec.cap);
		if (read_entry(arena, e, rec, ei, fi) < 0)
			goto cleanup;
		inherit(e, from);
	}
	if (rc < 0)
		goto cleanup;
	*out = vec.items ? vec.items : floe_arena_alloc(arena, sizeof(**out));
	*n = vec.n;
	error = 0;
cleanup:
	floe_avro_reader_free(r);
	return error;
}

/* ---- manifest lists ---- */

enum { L_PATH, L_LENGTH, L_SPEC, L_CONTENT, L_SEQ, L_MIN_SEQ, L_SNAPSHOT, L_ADDED_F, L_EXISTING_F,
       L_DELETED_F, L_ADDED_R, L_EXISTING_R, L_DELETED_R, L_COUNT };
static const field_ref list_fields[L_COUNT] = {
	{ 500, "manifest_path", true },	       { 501, "manifest_length", true },
	{ 502, "partition_spec_id", true },     { 517, "content", false },
	{ 515, "sequence_number", false },      { 516, "min_sequence_number", false },
	{ 503, "added_snapshot_id", true },     { 504, "added_files_count", false },
	{ 505, "existing_files_count", false }, { 506, "deleted_files_count", false },
	{ 512, "added_rows_count", false },     { 513, "existing_rows_count", false },
	{ 514, "deleted_rows_count", false },
};

static int read_list_entry(floe_arena *a, floe_iceberg_manifest_file *m, const floe_avro_value *rec,
			   const int *li)
{
	int32_t content;
	m->path = get_string(a, rec, li[L_PATH]);
	if (!m->path)
		return invalid("manifest list", "manifest_path");
	if (get_long(&m->length, rec, li[L_LENGTH], -1) < 0 || m->length < 0)
		return invalid("manifest list", "manifest_length");
	if (get_int(&m->spec_id, rec, li[L_SPEC], 0) < 0)
		return invalid("manifest list", "partition_spec_id");
	if (get_int(&content, rec, li[L_CONTENT], 0) < 0 || content < 0 || content > 1)
		return invalid("manifest list", "content");
	m->content = (floe_iceberg_content)content;
	if (get_long(&m->sequence_number, rec, li[L_SEQ], 0) < 0 ||
	    get_long(&m->min_sequence_number, rec, li[L_MIN_SEQ], 0) < 0 ||
	    get_long(&m->added_snapshot_id, rec, li[L_SNAPSHOT], -1) < 0 ||
	    get_int(&m->added_files, rec, li[L_ADDED_F], 0) < 0 ||
	    get_int(&m->existing_files, rec, li[L_EXISTING_F], 0) < 0 ||
	    get_int(&m->deleted_files, rec, li[L_DELETED_F], 0) < 0 ||
	    get_long(&m->added_rows, rec, li[L_ADDED_R], 0) < 0 ||
	    get_long(&m->existing_rows, rec, li[L_EXISTING_R], 0) < 0 ||
	    get_long(&m->deleted_rows, rec, li[L_DELETED_R], 0) < 0)
		return invalid("manifest list", "a count or sequence number");
	return 0;
}

int floe_iceberg_manifest_list_read(floe_iceberg_manifest_file **out, size_t *n, floe_arena *arena,
				    const void *data, size_t len)
{
	floe_avro_reader *r = NULL;
	const floe_avro_value *rec;
	floe_iceberg_manifest_file *items = NULL;
	size_t count = 0, cap = 0;
	int li[L_COUNT], rc, error = -1;
	*out = NULL;
	*n = 0;
	if (floe_avro_reader_open(&r, data, len) < 0 ||
	    resolve(li, floe_avro_schema_root(floe_avro_reader_schema(r)), list_fields, L_COUNT,
		    "manifest list") < 0)
		goto cleanup;
	while ((rc = floe_avro_reader_next(r, arena, &rec)) == 1)
		if (read_list_entry(arena, FLOE_ARENA_PUSH(arena, items, count, cap), rec, li) < 0)
			goto cleanup;
	if (rc < 0)
		goto cleanup;
	*out = items ? items : floe_arena_alloc(arena, sizeof(**out));
	*n = count;
	error = 0;
cleanup:
	floe_avro_reader_free(r);
	return error;
}
