/*
 * lake.c — the lake side of reconciliation: DuckDB over exactly the data files
 * of one bronze Iceberg snapshot.
 *
 * `read_parquet` reads the files with a schema that maps each Iceberg field id to
 * the name c<id> and the type the lock gives it, so a renamed column is still the
 * same column, and a column a file lacks reads as NULL. floe's own Parquet reader
 * is never used: a writer bug must not hide behind a matching reader bug.
 *
 * One pass over the files aggregates every measure per bucket into a temporary
 * table `parts`; the whole-table numbers combine the buckets, and the planted
 * control (control.c) combines them with one bucket replaced by its altered copy.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct rc_lake {
	floe_engine *engine;
	const rc_table *t;
	int64_t buckets;
	bool measured;         /* the first pass ran (it keeps one bucket's rows) */
	int64_t kept;          /* the bucket whose rows lake_kept holds, -1: none */
};

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run `sql` (a statement when `out` is NULL), its duration in the debug log. */
static int timed(floe_engine_result **out, rc_lake *lake, const char *what, const char *sql)
{
	double t0 = now_seconds();
	int rc = out ? floe_engine_query(lake->engine, out, sql) : floe_engine_exec(lake->engine, sql);
	floe_log_debug("reconcile: lake %s in %.3f s", what, now_seconds() - t0);
	return rc;
}

/* The files as a DuckDB list of strings. */
static void path_list(floe_buf *q, const char *const *paths, size_t n_paths)
{
	floe_buf_putc(q, '[');
	for (size_t i = 0; i < n_paths; i++) {
		floe_buf_puts(q, i ? ", " : "");
		floe_buf_put_quoted(q, paths[i], '\'');
	}
	floe_buf_putc(q, ']');
}

void rc_table_deleted(rc_table *t, floe_arena *arena, const floe_iceberg_scan *scan)
{
	size_t n = 0;
	for (size_t i = 0; i < scan->n_files; i++)
		n += scan->files[i].n_deleted;
	int64_t *rids = floe_arena_alloc(arena, (n + 1) * sizeof(int64_t));
	n = 0;
	for (size_t i = 0; i < scan->n_files; i++)
		for (size_t k = 0; k < scan->files[i].n_deleted; k++)
			rids[n++] = (int64_t)i * 4294967296 + scan->files[i].deleted[k];
	t->deleted_rids = rids;
	t->n_deleted_rids = n;
}

/* The table `lake_deleted` of the rows position deletes remove, when there are any. */
static void deleted_table(floe_buf *q, const rc_table *t)
{
	if (!t->n_deleted_rids)
		return;
	floe_buf_puts(q, "CREATE TEMP TABLE lake_deleted AS SELECT rid FROM (");
	floe_engine_put_int64_rows(q, t->deleted_rids, t->n_deleted_rids);
	floe_buf_puts(q, ") AS floe_rids(rid); ");
}

/* The view `lake`: rid (file index << 32 | row number) and c<id> for every live row's column read. */
static void lake_view(floe_buf *q, const rc_table *t, const char *const *paths, size_t n_paths)
{
	deleted_table(q, t);
	floe_buf_puts(q, "CREATE TEMP VIEW lake AS SELECT ");
	if (n_paths == 0) {
		floe_buf_puts(q, "NULL::BIGINT AS rid");
		for (size_t i = 0; i < t->n; i++)
			if (t->cols[i].duck_type)
				floe_buf_printf(q, ", NULL::%s AS %s", t->cols[i].duck_type, t->cols[i].ident);
		floe_buf_puts(q, " WHERE false");
		return;
	}
	floe_buf_puts(q, "CAST(file_index AS BIGINT) * 4294967296 + file_row_number AS rid");
	for (size_t i = 0; i < t->n; i++)
		if (t->cols[i].duck_type)
			floe_buf_printf(q, ", %s", t->cols[i].ident);
	floe_buf_puts(q, " FROM read_parquet(");
	path_list(q, paths, n_paths);
	floe_buf_puts(q, ", file_row_number = true, schema = MAP {");
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const rc_column *c = &t->cols[i];
		if (!c->duck_type)
			continue;
		floe_buf_printf(q, "%s%d: {name: '%s', type: ", n++ ? ", " : "", c->field_id, c->ident);
		floe_buf_put_quoted(q, c->duck_type, '\''); /* a struct's field names are the user's */
		floe_buf_puts(q, ", default_value: NULL}");
	}
	floe_buf_puts(q, "})");
	if (t->n_deleted_rids) /* merge-on-read: rows a position delete removed are not the table's */
		floe_buf_puts(q, " WHERE CAST(file_index AS BIGINT) * 4294967296 + file_row_number NOT IN "
				 "(SELECT rid FROM lake_deleted)");
}

/*
 * `rows` (lake's shape) with the row's two hash parts k and x, each computed once, and
 * its bucket b: lake_b's shape. DuckDB drops x where a query does not read it.
 */
static void hashed_rows(floe_buf *q, const rc_lake *lake, const char *rows)
{
	floe_buf_puts(q, "SELECT *, ");
	rc_bucket_of(q, "k", lake->buckets);
	floe_buf_puts(q, " AS b FROM (SELECT *, ");
	rc_row_key_hash(q, lake->t, RC_DUCK);
	floe_buf_puts(q, " AS k, ");
	rc_row_rest_hash_covered(q, lake->t, RC_DUCK, lake->buckets);
	floe_buf_printf(q, " AS x FROM %s) AS hashed", rows);
}

int rc_lake_open(rc_lake **out, floe_arena *arena, const rc_table *t, const char *const *paths, size_t n_paths,
		 int64_t buckets)
{
	rc_lake *lake = floe_xcalloc(1, sizeof(*lake));
	floe_buf q = FLOE_BUF_INIT;
	int error = -1;
	(void)arena;
	*out = NULL;
	lake->t = t;
	lake->buckets = buckets;
	lake->kept = -1;
	/*
	 * DuckDB reads one file given an explicit schema on one thread, and the calling
	 * thread busy-waits on the others meanwhile: with a single file a second thread only
	 * burns a CPU that PostgreSQL may need (measured: 20 % slower on two cores).
	 */
	if (floe_engine_open(&lake->engine, NULL) < 0 ||
	    (n_paths <= 1 && floe_engine_exec(lake->engine, "SET threads = 1") < 0))
		goto cleanup;
	lake_view(&q, t, paths, n_paths);
	floe_buf_puts(&q, "; CREATE TEMP VIEW lake_b AS ");
	hashed_rows(&q, lake, "lake");
	if (floe_engine_exec(lake->engine, floe_buf_cstr(&q)) < 0)
		goto cleanup;
	*out = lake;
	lake = NULL;
	error = 0;
cleanup:
	floe_buf_free(&q);
	rc_lake_close(lake);
	return error;
}

/* `, list(struct_pack(rid := rid, c<id> := c<id>, …)) FILTER (WHERE b = <kept>) AS kept_rows` */
static void kept_rows(floe_buf *q, const rc_lake *lake)
{
	floe_buf_puts(q, ", list(struct_pack(rid := rid");
	for (size_t i = 0; i < lake->t->n; i++)
		if (lake->t->cols[i].duck_type)
			floe_buf_printf(q, ", %s := %s", lake->t->cols[i].ident, lake->t->cols[i].ident);
	floe_buf_printf(q, ")) FILTER (WHERE b = %lld) AS kept_rows", (long long)lake->kept);
}

/*
 * `SELECT b, <partials>[, sum(<hash>) AS hs][, kept_rows] FROM <rows> GROUP BY b`; `rows`
 * has lake_b's shape. `keep`: the rows of bucket lake->kept too, for the control.
 */
static void parts_select(floe_buf *q, const rc_lake *lake, const rc_metric *metrics, size_t n,
			 floe_reconcile_tier tier, const char *rows, bool keep)
{
	floe_buf_puts(q, "SELECT b");
	for (size_t i = 0; i < n; i++) {
		if (metrics[i].distinct)
			continue;
		floe_buf_puts(q, ", ");
		rc_metric_partial(q, lake->t, RC_DUCK, &metrics[i], i);
	}
	if (tier >= FLOE_RECONCILE_V3) {
		floe_buf_puts(q, ", sum(");
		rc_hash_of(q, RC_DUCK, "k", "x");
		floe_buf_puts(q, ") AS hs");
	}
	if (keep)
		kept_rows(q, lake);
	floe_buf_printf(q, " FROM %s GROUP BY b", rows);
}

/* The whole-table values from the parts in `from`; distinct counts from `distinct` (per metric, or NULL). */
static int read_values(rc_side *out, rc_lake *lake, floe_arena *arena, const rc_metric *metrics, size_t n,
		       const char *from, const char *const *distinct)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	floe_buf_puts(&q, "SELECT 0");
	for (size_t i = 0; i < n; i++) {
		if (metrics[i].distinct)
			continue;
		floe_buf_puts(&q, ", ");
		rc_metric_final(&q, lake->t, RC_DUCK, &metrics[i], i);
	}
	floe_buf_printf(&q, " FROM %s", from);
	if (timed(&r, lake, "values", floe_buf_cstr(&q)) < 0)
		goto cleanup;
	out->values = floe_arena_alloc(arena, (n + 1) * sizeof(char *));
	size_t col = 1;
	for (size_t i = 0; i < n; i++) {
		const char *v = metrics[i].distinct ? (distinct ? distinct[i] : NULL)
						    : floe_engine_result_text(r, 0, col++);
		out->values[i] = v ? floe_arena_strdup(arena, v) : NULL;
	}
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&q);
	return error;
}

static int read_buckets(rc_side *out, rc_lake *lake, floe_arena *arena, const char *from)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	/* m0 is the row count: the first metric is always "rows". */
	floe_buf_printf(&q, "SELECT b, m0, hs::VARCHAR FROM %s ORDER BY b", from);
	if (timed(&r, lake, "buckets", floe_buf_cstr(&q)) < 0)
		goto cleanup;
	out->n_buckets = floe_engine_result_rows(r);
	out->buckets = floe_arena_alloc(arena, (out->n_buckets + 1) * sizeof(rc_bucket_row));
	for (size_t i = 0; i < out->n_buckets; i++) {
		out->buckets[i].bucket = strtoll(floe_engine_result_text(r, i, 0), NULL, 10);
		out->buckets[i].rows = strtoll(floe_engine_result_text(r, i, 1), NULL, 10);
		const char *sum = floe_engine_result_text(r, i, 2);
		out->buckets[i].sum = floe_arena_strdup(arena, sum ? sum : "0");
	}
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&q);
	return error;
}

/* count(DISTINCT …) over the whole lake, per distinct metric (NULL elsewhere). */
static int read_distinct(const char ***out, rc_lake *lake, floe_arena *arena, const rc_metric *metrics, size_t n)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	const char **values = floe_arena_alloc(arena, (n + 1) * sizeof(char *));
	size_t wanted = 0;
	*out = values;
	floe_buf_puts(&q, "SELECT 0");
	for (size_t i = 0; i < n; i++) {
		if (!metrics[i].distinct)
			continue;
		floe_buf_puts(&q, ", ");
		rc_metric_partial(&q, lake->t, RC_DUCK, &metrics[i], i);
		wanted++;
	}
	if (wanted == 0) {
		error = 0;
		goto cleanup;
	}
	floe_buf_puts(&q, " FROM lake");
	if (timed(&r, lake, "distinct counts", floe_buf_cstr(&q)) < 0)
		goto cleanup;
	size_t col = 1;
	for (size_t i = 0; i < n; i++)
		if (metrics[i].distinct)
			values[i] = floe_arena_strdup(arena, floe_engine_result_text(r, 0, col++));
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&q);
	return error;
}

/*
 * The bucket whose rows the first pass keeps for the planted control (the first row's; a
 * covered one under a rotating V3), so planting reads a bucket's rows instead of the files
 * again. No row: none kept. An error here only costs the saving.
 */
static int choose_kept(rc_lake *lake)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	floe_buf_puts(&q, "SELECT b FROM lake_b");
	if (lake->t->cover)
		floe_buf_printf(&q, " WHERE b%s", lake->t->cover);
	floe_buf_puts(&q, " LIMIT 1");
	if (timed(&r, lake, "kept bucket", floe_buf_cstr(&q)) < 0) {
		floe_error_clear();
		goto cleanup;
	}
	if (floe_engine_result_rows(r) > 0)
		lake->kept = strtoll(floe_engine_result_text(r, 0, 0), NULL, 10);
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&q);
	return error;
}

/* The kept rows into lake_kept (lake_b's columns: rid, c<id>…, b), and out of parts. */
static int keep_bucket(rc_lake *lake)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_buf_puts(&q, "CREATE OR REPLACE TEMP TABLE lake_kept AS SELECT r.rid AS rid");
	for (size_t i = 0; i < lake->t->n; i++)
		if (lake->t->cols[i].duck_type)
			floe_buf_printf(&q, ", r.%s AS %s", lake->t->cols[i].ident, lake->t->cols[i].ident);
	floe_buf_printf(&q, ", CAST(%lld AS BIGINT) AS b FROM (SELECT unnest(kept_rows) AS r FROM parts WHERE b = %lld) "
			    "AS u; ALTER TABLE parts DROP COLUMN kept_rows", (long long)lake->kept, (long long)lake->kept);
	int rc = timed(NULL, lake, "kept rows", floe_buf_cstr(&q));
	floe_buf_free(&q);
	return rc;
}

const char *rc_lake_rows_of(const rc_lake *lake, int64_t bucket)
{
	return bucket >= 0 && bucket == lake->kept ? "lake_kept" : "lake_b";
}

int64_t rc_lake_kept(const rc_lake *lake)
{
	return lake->kept;
}

int rc_lake_measure(rc_side *out, rc_lake *lake, floe_arena *arena, const rc_metric *metrics, size_t n_metrics,
		    floe_reconcile_tier tier)
{
	floe_buf q = FLOE_BUF_INIT;
	const char **distinct = NULL;
	double t0 = now_seconds();
	int error = -1;
	memset(out, 0, sizeof(*out));
	/* one bucket (V1) would keep the whole table: its control reads the rows it needs instead */
	bool keep = !lake->measured && lake->buckets > 1 && choose_kept(lake) == 0 && lake->kept >= 0;
	lake->measured = true;
	floe_buf_puts(&q, "CREATE OR REPLACE TEMP TABLE parts AS ");
	parts_select(&q, lake, metrics, n_metrics, tier, "lake_b", keep);
	if (timed(NULL, lake, "parts", floe_buf_cstr(&q)) < 0 || (keep && keep_bucket(lake) < 0) ||
	    read_distinct(&distinct, lake, arena, metrics, n_metrics) < 0 ||
	    read_values(out, lake, arena, metrics, n_metrics, "parts", distinct) < 0 ||
	    (tier >= FLOE_RECONCILE_V3 && read_buckets(out, lake, arena, "parts") < 0)) {
		floe_error_context("while measuring the lake side");
		goto cleanup;
	}
	out->seconds = now_seconds() - t0;
	error = 0;
cleanup:
	floe_buf_free(&q);
	return error;
}

int rc_lake_measure_altered(rc_side *out, rc_lake *lake, floe_arena *arena, const rc_metric *metrics,
			    size_t n_metrics, floe_reconcile_tier tier, int64_t bucket, const char *altered_sql,
			    const rc_side *real)
{
	floe_buf q = FLOE_BUF_INIT, rows = FLOE_BUF_INIT;
	char from[96];
	int error = -1;
	memset(out, 0, sizeof(*out));
	/* The altered rows get their bucket from their own (possibly altered) values. */
	floe_buf_printf(&q, "(%s) AS altered", altered_sql);
	floe_buf_puts(&rows, "(");
	hashed_rows(&rows, lake, floe_buf_cstr(&q));
	floe_buf_puts(&rows, ") AS altered_b");
	floe_buf_clear(&q);
	floe_buf_puts(&q, "CREATE OR REPLACE TEMP TABLE altered_parts AS ");
	parts_select(&q, lake, metrics, n_metrics, tier, floe_buf_cstr(&rows), false);
	snprintf(from, sizeof(from), "(SELECT * FROM parts WHERE b <> %lld UNION ALL SELECT * FROM altered_parts) AS x",
		 (long long)bucket);
	if (timed(NULL, lake, "altered parts", floe_buf_cstr(&q)) < 0 ||
	    read_values(out, lake, arena, metrics, n_metrics, from, real->values) < 0 ||
	    (tier >= FLOE_RECONCILE_V3 && read_buckets(out, lake, arena, from) < 0)) {
		floe_error_context("while measuring the planted control");
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&q);
	floe_buf_free(&rows);
	return error;
}

/* ---- nested fields: DuckDB matches them by name ---- */

#define NO_NODE ((size_t)-1)

/* One element of a file's Parquet schema (pre-order, as parquet_schema lists them). */
typedef struct pq_node {
	const char *name;
	int field_id;          /* -1: none */
	bool repeated;
	size_t n_children, filled;
	size_t *children;
} pq_node;

typedef struct pq_file {
	const char *path;
	pq_node *nodes;
	size_t n;
} pq_file;

/* Each node's children from the pre-order list, without recursing on the file's depth. 0: malformed. */
static int link_children(pq_file *f, floe_arena *arena)
{
	size_t *stack = floe_arena_alloc(arena, (f->n + 1) * sizeof(size_t)), top = 0;
	for (size_t i = 0; i < f->n; i++)
		f->nodes[i].children = floe_arena_alloc(arena, (f->nodes[i].n_children + 1) * sizeof(size_t));
	if (f->n > 0)
		stack[top++] = 0;
	for (size_t i = 1; i < f->n; i++) {
		while (top > 0 && f->nodes[stack[top - 1]].filled == f->nodes[stack[top - 1]].n_children)
			top--;
		if (top == 0)
			return 0;
		pq_node *parent = &f->nodes[stack[top - 1]];
		parent->children[parent->filled++] = i;
		if (f->nodes[i].n_children > 0)
			stack[top++] = i;
	}
	return 1;
}

/* The element of the list at `node`: three levels (list → repeated group → element) or two (the repeated node). */
static size_t list_element(const pq_file *f, size_t node)
{
	const pq_node *p = &f->nodes[node];
	if (p->n_children != 1)
		return NO_NODE;
	const pq_node *rep = &f->nodes[p->children[0]];
	if (rep->repeated && rep->n_children == 1)
		return rep->children[0];
	return rep->repeated ? p->children[0] : NO_NODE;
}

/*
 * NULL, or why DuckDB would read the file's value at `node` (of the lock's `type`, at
 * `path`) other than by the lock's field ids: a struct's field DuckDB finds by name must
 * be the one the lock's field id names, and a field the lock's id names must be found.
 */
static const char *field_mismatch(floe_arena *arena, const pq_file *f, size_t node, const rc_type *type,
				  const char *path)
{
	if (type->kind == RC_LIST) {
		size_t el = list_element(f, node);
		const char *at = floe_arena_printf(arena, "%s.element", path);
		return el == NO_NODE ? NULL : field_mismatch(arena, f, el, type->element, at);
	}
	for (size_t i = 0; type->kind == RC_STRUCT && i < type->n_fields; i++) {
		const rc_field *fl = &type->fields[i];
		const pq_node *p = &f->nodes[node];
		size_t by_name = NO_NODE, by_id = NO_NODE, named = 0;
		for (size_t k = 0; k < p->n_children; k++) {
			const pq_node *ch = &f->nodes[p->children[k]];
			if (strcasecmp(ch->name, fl->name) == 0 && named++ == 0)
				by_name = p->children[k];
			if (ch->field_id == fl->field_id)
				by_id = p->children[k];
		}
		const char *at = floe_arena_printf(arena, "%s.%s", path, fl->name);
		if (named > 1)
			return floe_arena_printf(arena, "%s: data file %s holds more than one field named \"%s\" in any "
						 "case, and DuckDB reads a struct's fields by name", at, f->path, fl->name);
		if (by_name != by_id && by_id != NO_NODE)
			return floe_arena_printf(arena, "%s: data file %s holds field id %d as \"%s\", and DuckDB reads a "
						 "struct's fields by name, not by id", at, f->path, fl->field_id,
						 f->nodes[by_id].name);
		if (by_name != by_id)
			return floe_arena_printf(arena, "%s: data file %s holds \"%s\" with field id %d, not %d, and DuckDB "
						 "reads a struct's fields by name, not by id", at, f->path,
						 f->nodes[by_name].name, f->nodes[by_name].field_id, fl->field_id);
		const char *why = by_name == NO_NODE ? NULL : field_mismatch(arena, f, by_name, &fl->type, at);
		if (why)
			return why;
	}
	return NULL;
}

/* Every struct column of `t` checked against one file; a mismatch excludes the column. */
static void check_file(rc_table *t, floe_arena *arena, const pq_file *f)
{
	for (size_t i = 0; f->n > 0 && i < t->n; i++) {
		rc_column *c = &t->cols[i];
		const pq_node *root = &f->nodes[0];
		if (!c->duck_type || !rc_type_holds_struct(&c->type))
			continue;
		for (size_t k = 0; k < root->n_children; k++) {
			if (f->nodes[root->children[k]].field_id != c->field_id)
				continue;
			const char *why = field_mismatch(arena, f, root->children[k], &c->type, c->name);
			if (why) {
				c->excluded = floe_arena_printf(arena, "%s (not read)", why);
				c->duck_type = NULL;
				c->hashed = false;
			}
		}
	}
}

/* The files' schemas, one pq_file at a time (rows ordered by file and position). */
static void check_schemas(rc_table *t, floe_arena *arena, const floe_engine_result *r)
{
	size_t rows = floe_engine_result_rows(r);
	for (size_t start = 0, end; start < rows; start = end) {
		const char *path = floe_engine_result_text(r, start, 0);
		for (end = start; end < rows && strcmp(floe_engine_result_text(r, end, 0), path) == 0; end++)
			;
		pq_file f = { .path = path, .n = end - start };
		f.nodes = floe_arena_alloc(arena, (f.n + 1) * sizeof(pq_node));
		for (size_t i = 0; i < f.n; i++) {
			const char *id = floe_engine_result_text(r, start + i, 2), *kids = floe_engine_result_text(r, start + i, 3);
			const char *rep = floe_engine_result_text(r, start + i, 4);
			f.nodes[i].name = floe_engine_result_text(r, start + i, 1);
			f.nodes[i].field_id = id ? (int)strtol(id, NULL, 10) : -1;
			f.nodes[i].n_children = kids ? (size_t)strtoull(kids, NULL, 10) : 0;
			f.nodes[i].repeated = rep && strcmp(rep, "REPEATED") == 0;
			if (!f.nodes[i].name)
				f.nodes[i].name = "";
		}
		if (link_children(&f, arena))
			check_file(t, arena, &f);
	}
}

int rc_lake_check_fields(rc_table *t, floe_arena *arena, const char *const *paths, size_t n_paths)
{
	floe_engine *engine = NULL;
	floe_engine_result *r = NULL;
	floe_buf q = FLOE_BUF_INIT;
	bool nested = false;
	int error = -1;
	for (size_t i = 0; i < t->n; i++)
		nested |= t->cols[i].duck_type && rc_type_holds_struct(&t->cols[i].type);
	if (!nested || n_paths == 0)
		return 0;
	floe_buf_puts(&q, "SELECT file_name, name, field_id::VARCHAR, num_children::VARCHAR, repetition_type "
			  "FROM parquet_schema(");
	path_list(&q, paths, n_paths);
	floe_buf_puts(&q, ") ORDER BY file_name, column_id");
	if (floe_engine_open(&engine, NULL) < 0 || floe_engine_query(engine, &r, floe_buf_cstr(&q)) < 0) {
		floe_error_context("while reading the data files' schemas");
		goto cleanup;
	}
	check_schemas(t, arena, r);
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_engine_close(engine);
	floe_buf_free(&q);
	return error;
}

int rc_lake_query(floe_engine_result **out, rc_lake *lake, const char *sql)
{
	return timed(out, lake, "probe", sql);
}

const rc_table *rc_lake_table(const rc_lake *lake)
{
	return lake->t;
}

int64_t rc_lake_buckets(const rc_lake *lake)
{
	return lake->buckets;
}

void rc_lake_close(rc_lake *lake)
{
	if (!lake)
		return;
	floe_engine_close(lake->engine);
	free(lake);
}
