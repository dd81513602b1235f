/*
 * history.c — silver.X_history from bronze.X's snapshots, the dbt snapshot way.
 *
 * The whole history is loaded into an in-memory DuckDB table; each new bronze snapshot is a
 * view over its files (query.h), compared with the current versions on every column; versions
 * no longer seen are closed and rows not seen before open versions. When anything changed, the
 * table is written as one Parquet file with the history schema's field ids and committed,
 * replacing the previous file, on top of exactly the history snapshot it was computed from.
 */
#include "silver/history.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/text.h"
#include "engine/engine.h"
#include "format/parquet.h"
#include "iceberg/catalog.h"
#include "iceberg/deletes.h"
#include "iceberg/storage.h"
#include "iceberg/table.h"
#include "query/query.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUMMARY_SNAPSHOT "floe.history-bronze-snapshot"
#define SUMMARY_SEQUENCE "floe.history-bronze-sequence"
#define SUMMARY_TABLE "floe.history-bronze-table-uuid"

static const char *const dbt_columns[] = { "dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to" };
#define N_DBT 4

/* Everything one build holds. */
typedef struct build {
	floe_arena *arena;
	const char **key;                   /* dbt's unique_key: the silver section's, else bronze's */
	size_t n_key;
	floe_iceberg_catalog *catalog;
	floe_iceberg_table *bronze, *history;
	floe_engine *engine;
	const floe_iceberg_schema *columns; /* bronze's current schema: the history's data columns */
	floe_buf all_equal;                 /* SQL: every data column of o equals h's */
	floe_buf scd_key;                   /* SQL: the key's part of dbt_scd_id, over o */
	floe_buf key_cols;                  /* SQL: the key columns of h */
	floe_buf key_equal;                 /* SQL: floe_history's key equals c's */
	const char *name;                   /* "silver.X_history" */
} build;

/* The history table's schema: bronze's columns, then dbt's, all optional; ids assigned at create. */
static floe_iceberg_schema *history_schema(floe_arena *a, const floe_iceberg_schema *bronze)
{
	floe_iceberg_schema *s = floe_iceberg_schema_copy(a, bronze);
	floe_iceberg_field *f = floe_arena_alloc(a, (s->n_fields + N_DBT) * sizeof(*f));
	memcpy(f, s->fields, s->n_fields * sizeof(*f));
	for (size_t i = 0; i < s->n_fields; i++)
		f[i].required = false;
	for (size_t i = 0; i < N_DBT; i++)
		f[s->n_fields + i] = (floe_iceberg_field){
			.id = floe_iceberg_schema_max_id(bronze) + 1 + (int32_t)i,
			.name = dbt_columns[i],
			.type = floe_iceberg_type_new(a, i == 0 ? FLOE_ICEBERG_STRING : FLOE_ICEBERG_TIMESTAMP),
		};
	s->fields = f;
	s->n_fields += N_DBT;
	s->n_identifier_ids = 0;
	return s;
}

/* Whether the history table's data columns are bronze's: same names and type kinds, in order. */
static bool same_columns(const floe_iceberg_schema *history, const floe_iceberg_schema *bronze)
{
	if (history->n_fields != bronze->n_fields + N_DBT)
		return false;
	for (size_t i = 0; i < bronze->n_fields; i++) {
		const floe_iceberg_type *h = history->fields[i].type, *b = bronze->fields[i].type;
		if (strcmp(history->fields[i].name, bronze->fields[i].name) != 0 || h->id != b->id ||
		    h->precision != b->precision || h->scale != b->scale || h->n_fields != b->n_fields)
			return false;
	}
	return true;
}

/* Load bronze.X (it must exist) and silver.X_history (created when missing). */
static int open_tables(build *b, const floe_config *config, const char *x)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_iceberg_create_opts cr = FLOE_ICEBERG_CREATE_OPTS_INIT;
	const char *hname = floe_arena_printf(b->arena, "%s_history", x);
	floe_buf where = FLOE_BUF_INIT;
	int found, error = -1;
	co.warehouse = floe_config_warehouse_dir(config);
	if (floe_iceberg_catalog_open_sql(&b->catalog, floe_arena_printf(b->arena, "%s/catalog.db", co.warehouse),
					  &co) < 0 ||
	    floe_iceberg_table_load(&b->bronze, b->catalog, "bronze", x) < 0)
		goto cleanup;
	b->columns = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(b->bronze));
	found = floe_iceberg_catalog_load(b->catalog, &where, "silver", hname);
	if (found < 0)
		goto cleanup;
	cr.assign_ids = true;
	if (found == 0)
		error = floe_iceberg_table_create(&b->history, b->catalog, "silver", hname,
						  history_schema(b->arena, b->columns), &cr);
	if (found == 1 || (error < 0 && floe_error_last()->cls == FLOE_ERR_EXISTS)) {
		floe_error_clear(); /* there, or created meanwhile by another build */
		error = floe_iceberg_table_load(&b->history, b->catalog, "silver", hname);
	}
	if (error == 0 &&
	    !same_columns(floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(b->history)), b->columns)) {
		error = floe_error_set(FLOE_ERR_CONFIG, "the columns of %s no longer match those of %s", b->name,
				       floe_iceberg_table_name(b->bronze));
		floe_error_detail("History does not follow schema changes yet.");
		floe_error_hint("Drop %s to rebuild it from the bronze snapshots still kept.", b->name);
	}
cleanup:
	floe_buf_free(&where);
	return error;
}

/* SQL shared by every observation: the all-columns comparison and the key's part of dbt_scd_id. */
static int build_predicates(build *b)
{
	floe_buf name = FLOE_BUF_INIT;
	for (size_t i = 0; i < b->columns->n_fields; i++) {
		floe_buf_clear(&name);
		floe_buf_put_quoted(&name, b->columns->fields[i].name, '"');
		floe_buf_printf(&b->all_equal, "%sfloe_o.%s IS NOT DISTINCT FROM floe_h.%s", i ? " AND " : "", floe_buf_cstr(&name),
				floe_buf_cstr(&name));
	}
	for (size_t i = 0; i < b->n_key; i++) {
		if (!floe_iceberg_schema_field(b->columns, b->key[i])) {
			floe_buf_free(&name);
			return floe_error_set(FLOE_ERR_CONFIG, "key column \"%s\" is not a column of %s", b->key[i],
					      floe_iceberg_table_name(b->bronze));
		}
		floe_buf_clear(&name);
		floe_buf_put_quoted(&name, b->key[i], '"');
		floe_buf_printf(&b->scd_key, "coalesce(cast(floe_o.%s as varchar), '') || '|' || ", floe_buf_cstr(&name));
		floe_buf_printf(&b->key_cols, "%sfloe_h.%s", i ? ", " : "", floe_buf_cstr(&name));
		floe_buf_printf(&b->key_equal, "%sfloe_history.%s IS NOT DISTINCT FROM floe_c.%s", i ? " AND " : "",
				floe_buf_cstr(&name), floe_buf_cstr(&name));
	}
	floe_buf_free(&name);
	return 0;
}

/*
 * The sequence number of the newest bronze snapshot the history reflects, into *out: 0 when the
 * history has no snapshot yet, or when its position is in another bronze table of that name
 * (dropped and created again: its snapshots are all new observations, and sequence numbers
 * start over). A history snapshot without a readable position is refused: reading old
 * observations again over newer versions would corrupt it.
 */
static int last_sequence(const build *b, int64_t *out)
{
	const floe_iceberg_snapshot *s = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(b->history));
	const char *seq = s ? floe_iceberg_snapshot_summary(s, SUMMARY_SEQUENCE) : NULL;
	const char *uuid = s ? floe_iceberg_snapshot_summary(s, SUMMARY_TABLE) : NULL;
	*out = 0;
	if (!s)
		return 0;
	if (!uuid || !seq || floe_text_parse_int64(out, seq, strlen(seq), 0, INT64_MAX) < 0) {
		floe_error_set(FLOE_ERR_CONFIG, "snapshot %" PRId64 " of %s does not say which bronze snapshot it reflects",
			       s->snapshot_id, b->name);
		floe_error_detail("Its summary lacks %s or %s, which floe writes with every history commit.",
				  SUMMARY_TABLE, SUMMARY_SEQUENCE);
		floe_error_hint("Drop %s to rebuild it from the bronze snapshots still kept.", b->name);
		return -1;
	}
	if (strcmp(uuid, floe_iceberg_table_metadata(b->bronze)->table_uuid) != 0)
		*out = 0;
	return 0;
}

/* Bronze's snapshots on main after sequence number `after`, oldest first, compactions left out. */
static size_t pending(build *b, int64_t after, const floe_iceberg_snapshot ***out)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(b->bronze);
	const floe_iceberg_snapshot *s = floe_iceberg_metadata_current_snapshot(m);
	const floe_iceberg_snapshot **list = NULL;
	size_t n = 0, cap = 0;
	for (; s && s->sequence_number > after;
	     s = s->has_parent ? floe_iceberg_metadata_snapshot(m, s->parent_id) : NULL)
		if (!s->operation || strcmp(s->operation, "replace") != 0)
			*FLOE_ARENA_PUSH(b->arena, list, n, cap) = s;
	for (size_t i = 0; i < n / 2; i++) { /* newest first → oldest first */
		const floe_iceberg_snapshot *t = list[i];
		list[i] = list[n - 1 - i];
		list[n - 1 - i] = t;
	}
	*out = list;
	return n;
}

/*
 * (Re)define view main.`name` over snapshot `snapshot_id` (-1: current) of `t`, the columns of
 * its current schema by field id; a snapshot without files (an emptied table) is a view of no rows.
 */
static int snapshot_view(build *b, floe_iceberg_table *t, int64_t snapshot_id, const char *name)
{
	const floe_iceberg_schema *schema = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(t));
	floe_iceberg_scan *scan = NULL;
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	floe_buf_printf(&sql, "DROP VIEW IF EXISTS main.%s", name);
	if (floe_iceberg_table_plan_live(&scan, b->arena, t, snapshot_id) < 0 || floe_engine_exec(b->engine, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	error = floe_query_view(b->engine, b->arena, "main", name, floe_iceberg_table_storage(t), scan, schema); /* no files: no rows */
cleanup:
	floe_buf_free(&sql);
	return error;
}

/* `sql`'s single number. */
static int query_count(floe_engine *e, int64_t *out, const char *sql)
{
	floe_buf text = FLOE_BUF_INIT;
	int error = floe_engine_query_text(e, &text, sql);
	if (error == 0 && floe_text_parse_int64(out, text.ptr, text.len, 0, INT64_MAX) < 0)
		error = floe_error_set(FLOE_ERR_INTERNAL, "DuckDB returned \"%s\" for a count", floe_buf_cstr(&text));
	floe_buf_free(&text);
	return error;
}

/*
 * One observation: bronze snapshot `s` as view floe_obs. Current versions whose row it does not
 * hold close at its time; its rows without an equal current version open one (dbt's check
 * strategy on all columns: a changed row closes and opens, a gone key closes, a new or returning
 * key opens).
 */
static int observe(build *b, const floe_iceberg_snapshot *s, floe_silver_history_result *r)
{
	floe_buf sql = FLOE_BUF_INIT, at = FLOE_BUF_INIT;
	int64_t closing = 0, opening = 0;
	int error = -1;
	floe_buf_printf(&at, "make_timestamp(CAST(%" PRId64 " AS BIGINT))", s->timestamp_ms * 1000);
	if (snapshot_view(b, b->bronze, s->snapshot_id, "floe_obs") < 0)
		goto cleanup;
	floe_buf_printf(&sql,
			"CREATE OR REPLACE TEMP TABLE floe_closing AS SELECT %s FROM floe_history floe_h "
			"WHERE floe_h.dbt_valid_to IS NULL AND NOT EXISTS (SELECT 1 FROM floe_obs floe_o WHERE %s);"
			"CREATE OR REPLACE TEMP TABLE floe_opening AS SELECT floe_o.* FROM floe_obs floe_o "
			"WHERE NOT EXISTS (SELECT 1 FROM floe_history floe_h WHERE floe_h.dbt_valid_to IS NULL AND %s);",
			floe_buf_cstr(&b->key_cols), floe_buf_cstr(&b->all_equal), floe_buf_cstr(&b->all_equal));
	if (floe_engine_exec(b->engine, floe_buf_cstr(&sql)) < 0 ||
	    query_count(b->engine, &closing, "SELECT count(*) FROM floe_closing") < 0 ||
	    query_count(b->engine, &opening, "SELECT count(*) FROM floe_opening") < 0)
		goto cleanup;
	floe_buf_clear(&sql);
	floe_buf_printf(&sql,
			"UPDATE floe_history SET dbt_valid_to = %s FROM floe_closing floe_c "
			"WHERE floe_history.dbt_valid_to IS NULL AND %s;" /* one open version per key */
			"INSERT INTO floe_history SELECT floe_o.*, md5(%scoalesce(cast(%s as varchar), '')), %s, %s, "
			"CAST(NULL AS TIMESTAMP) FROM floe_opening floe_o;",
			floe_buf_cstr(&at), floe_buf_cstr(&b->key_equal), floe_buf_cstr(&b->scd_key), floe_buf_cstr(&at),
			floe_buf_cstr(&at), floe_buf_cstr(&at));
	if ((closing || opening) && floe_engine_exec(b->engine, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	r->closed += closing;
	r->opened += opening;
	r->observations++;
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while reading snapshot %" PRId64 " of %s", s->snapshot_id,
				   floe_iceberg_table_name(b->bronze));
	floe_buf_free(&sql);
	floe_buf_free(&at);
	return error;
}

/* DuckDB's FIELD_IDS value for a column of type `t` with id `id` (nested ids included). */
static void put_ids(floe_buf *out, int32_t id, const floe_iceberg_type *t)
{
	if (t->id != FLOE_ICEBERG_STRUCT && t->id != FLOE_ICEBERG_LIST && t->id != FLOE_ICEBERG_MAP) {
		floe_buf_printf(out, "%d", (int)id);
		return;
	}
	floe_buf_printf(out, "{__duckdb_field_id: %d", (int)id);
	for (size_t i = 0; t->id == FLOE_ICEBERG_STRUCT && i < t->n_fields; i++) {
		floe_buf_puts(out, ", ");
		floe_buf_put_quoted(out, t->fields[i].name, '\'');
		floe_buf_puts(out, ": ");
		put_ids(out, t->fields[i].id, t->fields[i].type);
	}
	if (t->id == FLOE_ICEBERG_LIST) {
		floe_buf_puts(out, ", element: ");
		put_ids(out, t->element_id, t->element);
	} else if (t->id == FLOE_ICEBERG_MAP) {
		floe_buf_puts(out, ", key: ");
		put_ids(out, t->key_id, t->key);
		floe_buf_puts(out, ", value: ");
		put_ids(out, t->value_id, t->value);
	}
	floe_buf_putc(out, '}');
}

/* COPY the whole history, ordered by key and time, into `path` with the history schema's field ids. */
static int write_file(build *b, const char *path)
{
	const floe_iceberg_schema *hs = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(b->history));
	floe_buf sql = FLOE_BUF_INIT;
	int error;
	floe_buf_puts(&sql, "COPY (SELECT * FROM floe_history ORDER BY ");
	for (size_t i = 0; i < b->n_key; i++) {
		floe_buf_put_quoted(&sql, b->key[i], '"');
		floe_buf_puts(&sql, ", ");
	}
	floe_buf_puts(&sql, "dbt_valid_from) TO ");
	floe_buf_put_quoted(&sql, path, '\'');
	floe_buf_puts(&sql, " (FORMAT parquet, COMPRESSION zstd, FIELD_IDS {");
	for (size_t i = 0; i < hs->n_fields; i++) {
		floe_buf_puts(&sql, i ? ", " : "");
		floe_buf_put_quoted(&sql, hs->fields[i].name, '\'');
		floe_buf_puts(&sql, ": ");
		put_ids(&sql, hs->fields[i].id, hs->fields[i].type);
	}
	floe_buf_puts(&sql, "})");
	error = floe_engine_exec(b->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/*
 * DuckDB writes the history into a private temporary directory; its bytes then go to the table's
 * storage at `uri` (storage.h: created durably, never replacing a file), and `out` describes
 * them from the footer. The temporary file is removed either way.
 */
static int store(build *b, floe_iceberg_data_file *out, const char *uri, floe_buf *bytes)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = floe_arena_printf(b->arena, "%s/floe-history-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	floe_iceberg_storage *local = floe_iceberg_storage_local();
	floe_parquet_reader *r = NULL;
	floe_parquet_file_stats st;
	const char *file = NULL;
	int error = -1;
	if (!mkdtemp(dir)) {
		floe_error_set_errno(FLOE_ERR_IO, "could not create a temporary directory under \"%s\"",
				     tmp && tmp[0] ? tmp : "/tmp");
		goto cleanup;
	}
	file = floe_arena_printf(b->arena, "%s/history.parquet", dir);
	if (write_file(b, file) < 0 ||
	    floe_iceberg_storage_read(local, bytes, floe_iceberg_path_to_uri(b->arena, file)) < 0 ||
	    floe_parquet_reader_open_mem(&r, bytes->ptr, bytes->len, NULL) < 0 ||
	    floe_parquet_reader_file_stats(&st, r, b->arena) < 0 ||
	    floe_iceberg_storage_create(floe_iceberg_table_storage(b->history), uri, bytes->ptr, bytes->len) < 0)
		goto cleanup;
	floe_iceberg_data_file_from_parquet(out, b->arena, uri, &st);
	error = 0;
cleanup:
	if (file)
		floe_iceberg_storage_remove(local, floe_iceberg_path_to_uri(b->arena, file));
	if (file)
		rmdir(dir);
	floe_parquet_reader_free(r);
	floe_iceberg_storage_free(local);
	return error;
}

/*
 * Write the history and commit it as the table's only data file, on top of exactly the snapshot
 * it was computed from, recording `last` as the newest bronze snapshot reflected.
 */
static int commit(build *b, const floe_iceberg_snapshot *last, int64_t expect, const floe_silver_history_opts *o)
{
	floe_iceberg_commit_opts co = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	floe_iceberg_data_file file;
	floe_iceberg_kv summary[4] = {
		{ SUMMARY_SNAPSHOT, floe_arena_printf(b->arena, "%" PRId64, last->snapshot_id) },
		{ SUMMARY_SEQUENCE, floe_arena_printf(b->arena, "%" PRId64, last->sequence_number) },
		{ SUMMARY_TABLE, floe_iceberg_table_metadata(b->bronze)->table_uuid },
		{ "floe.run-id", o->run_id },
	};
	const char *uri = floe_iceberg_table_new_data_uri(b->history, b->arena, "parquet");
	floe_buf bytes = FLOE_BUF_INIT;
	int error = 0;
	co.summary = summary;
	co.n_summary = o->run_id ? 4 : 3;
	co.expect_snapshot_id = expect;
	if (store(b, &file, uri, &bytes) < 0) {
		error = -1;
	} else if (floe_iceberg_table_replace(b->history, &file, 1, &co) < 0) {
		if (!floe_iceberg_table_may_have_landed(b->history))
			floe_iceberg_storage_remove(floe_iceberg_table_storage(b->history), uri);
		error = -1;
	}
	floe_buf_free(&bytes); /* the descriptor's statistics live in the arena, not here */
	if (error < 0)
		floe_error_context("while committing %s", b->name);
	return error;
}

/* Load the current history into floe_history, read each pending snapshot, commit when changed. */
static int run(build *b, floe_silver_history_result *r, const floe_silver_history_opts *o)
{
	const floe_iceberg_metadata *hm = floe_iceberg_table_metadata(b->history);
	int64_t expect = hm->has_current_snapshot ? hm->current_snapshot_id : FLOE_ICEBERG_NO_SNAPSHOT;
	const floe_iceberg_snapshot **snaps = NULL;
	int64_t after = 0;
	size_t n = 0;
	if (last_sequence(b, &after) < 0)
		return -1;
	n = pending(b, after, &snaps);
	if (floe_engine_open(&b->engine, NULL) < 0)
		return -1;
	floe_engine_hide_data_in_errors(b->engine); /* its errors never quote a row's value */
	if (build_predicates(b) < 0 ||
	    snapshot_view(b, b->history, -1, "floe_history_now") < 0 ||
	    floe_engine_exec(b->engine, "CREATE TABLE floe_history AS SELECT * FROM floe_history_now") < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (observe(b, snaps[i], r) < 0)
			return -1;
	if (n > 0)
		r->bronze_snapshot_id = snaps[n - 1]->snapshot_id;
	if ((r->opened || r->closed) && commit(b, snaps[n - 1], expect, o) < 0)
		return -1;
	if (r->opened || r->closed)
		r->snapshot_id = floe_iceberg_table_metadata(b->history)->current_snapshot_id;
	return query_count(b->engine, &r->rows, "SELECT count(*) FROM floe_history");
}

int floe_silver_history_build(floe_silver_history_result *out, const floe_config *config,
			      const floe_lock_table *table, const floe_silver_history_opts *opts)
{
	floe_silver_history_opts none = FLOE_SILVER_HISTORY_OPTS_INIT;
	const char *dot = strchr(table->bronze, '.');
	const char *x = dot ? dot + 1 : table->bronze;
	build b = { .arena = floe_arena_new(), .all_equal = FLOE_BUF_INIT, .scd_key = FLOE_BUF_INIT,
		    .key_cols = FLOE_BUF_INIT, .key_equal = FLOE_BUF_INIT };
	floe_silver_history_result r = { .snapshot_id = -1, .bronze_snapshot_id = -1 };
	int error = -1;
	b.name = floe_arena_printf(b.arena, "silver.%s_history", x);
	b.key = table->silver ? table->silver->unique_key : table->key;
	b.n_key = table->silver ? table->silver->n_unique_key : table->n_key;
	if (b.n_key == 0) {
		floe_error_set(FLOE_ERR_CONFIG, "%s.%s has no key, so it cannot keep history", table->schema, table->name);
		floe_error_detail("A history version is found by its key (dbt's unique_key): the table's primary key.");
		floe_error_hint("Give the table a primary key, or remove it from [silver] history in floe.toml.");
		goto cleanup;
	}
	if (open_tables(&b, config, x) < 0 || run(&b, &r, opts ? opts : &none) < 0)
		goto cleanup;
	*out = r;
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while building %s", b.name);
	floe_engine_close(b.engine);
	floe_iceberg_table_free(b.history);
	floe_iceberg_table_free(b.bronze);
	floe_iceberg_catalog_free(b.catalog);
	floe_buf_free(&b.all_equal);
	floe_buf_free(&b.scd_key);
	floe_buf_free(&b.key_cols);
	floe_buf_free(&b.key_equal);
	floe_arena_free(b.arena);
	return error;
}
