/*
 * iceberg_fixture.c — build/tools/iceberg_fixture: a test helper (not a user command)
 * that drives floe's Iceberg library on command, so the integration tests can check
 * what it writes with readers floe did not write (PyIceberg, DuckDB's iceberg).
 *
 *   iceberg_fixture [--warehouse DIR] [--name CATALOG] CATALOG.db COMMAND NS.TABLE [ARGS]
 *
 *   create T --column NAME:TYPE[:required] … [--identifier NAME] [--prop K=V] …
 *   append T --sql SELECT [--summary K=V] … [--retries N]
 *   append-loop T --count N --sql SELECT-with-{i} [--retries N]   one commit per i, "ok i id" lines
 *   replace T [--sql SELECT]
 *   rewrite T --remove URI … [--sql SELECT]
 *   delete T --delete URI@POS … [--remove URI …] [--sql SELECT]   a merge-on-read row delta
 *   evolve T (add NAME TYPE | rename OLD NEW | widen NAME TYPE | optional NAME) …
 *   props T [--set K=V] … [--unset K] …
 *   expire T [--older-than-ms N] [--retain-last N] [--snapshot ID] …
 *   orphans T [--older-than-ms N]
 *   plan T [--snapshot ID]          JSON: live files with their stats (bounds in hex)
 *   info T                          JSON: metadata location, snapshots, schema
 *
 * Data files are written by the embedded DuckDB (tests/tools/support/duck_parquet.c) under
 * the table's data/ directory. Exit 0 ok, 1 failure (floe's error on stderr), 2 usage.
 */
#include "duck_parquet.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/log.h"
#include "base/text.h"
#include "engine/engine.h"
#include "iceberg/catalog.h"
#include "iceberg/deletes.h"
#include "iceberg/table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 256

typedef struct args {
	int argc;
	char **argv;
	int pos;
} args;

typedef struct fixture {
	floe_arena *a;
	floe_iceberg_catalog *catalog;
	floe_engine *engine;
	const char *ns, *name;
} fixture;

static int usage(const char *why)
{
	fprintf(stderr, "iceberg_fixture: %s\n", why);
	return 2;
}

static const char *next_arg(args *ar)
{
	return ar->pos < ar->argc ? ar->argv[ar->pos++] : NULL;
}

/* The next "--option value" pair: the option, or NULL at the end; *value NULL if missing. */
static const char *next_option(args *ar, const char **value)
{
	const char *opt = next_arg(ar);
	*value = opt ? next_arg(ar) : NULL;
	return opt;
}

static int64_t num(const char *s)
{
	int64_t v = 0;
	if (!s || floe_text_parse_int64(&v, s, strlen(s), INT64_MIN, INT64_MAX) < 0) {
		fprintf(stderr, "iceberg_fixture: \"%s\" is not a number\n", s ? s : "");
		exit(2);
	}
	return v;
}

/* Split "K=V" into a kv in the arena. */
static floe_iceberg_kv kv_of(floe_arena *a, const char *s)
{
	const char *eq = strchr(s, '=');
	floe_iceberg_kv kv = { s, "" };
	if (eq) {
		kv.key = floe_arena_strndup(a, s, (size_t)(eq - s));
		kv.value = floe_arena_strdup(a, eq + 1);
	}
	return kv;
}

/* ---- writing data files ---- */

static const char *replace_i(floe_arena *a, const char *sql, int64_t i)
{
	floe_buf b = FLOE_BUF_INIT;
	for (const char *p = sql; *p; p++) {
		if (strncmp(p, "{i}", 3) == 0) {
			floe_buf_printf(&b, "%" PRId64, i);
			p += 2;
		} else {
			floe_buf_putc(&b, *p);
		}
	}
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out;
}

static int write_file(fixture *fx, floe_iceberg_table *t, const char *sql,
		      floe_iceberg_data_file *out)
{
	const floe_iceberg_schema *schema =
		floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(t));
	if (!fx->engine && floe_engine_open(&fx->engine, NULL) < 0)
		return -1;
	return fx_parquet_write(out, fx->a, fx->engine, schema, sql,
				floe_iceberg_table_new_data_uri(t, fx->a, "parquet"));
}

/* ---- JSON output ---- */

static void put_hex(floe_buf *b, const uint8_t *p, size_t n)
{
	floe_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++)
		floe_buf_printf(b, "%02x", p[i]);
	floe_buf_putc(b, '"');
}

static void put_stats(floe_buf *b, const floe_iceberg_column_stats *c)
{
	floe_buf_printf(b, "{\"id\":%d,\"column_size\":%" PRId64 ",\"value_count\":%" PRId64
			",\"null_count\":%" PRId64 ",\"nan_count\":%" PRId64 ",\"lower\":",
			c->field_id, c->column_size, c->value_count, c->null_value_count,
			c->nan_value_count);
	if (c->has_lower)
		put_hex(b, c->lower, c->lower_len);
	else
		floe_buf_puts(b, "null");
	floe_buf_puts(b, ",\"upper\":");
	if (c->has_upper)
		put_hex(b, c->upper, c->upper_len);
	else
		floe_buf_puts(b, "null");
	floe_buf_putc(b, '}');
}

static void put_file(floe_buf *b, const floe_iceberg_scan_file *f)
{
	floe_buf_puts(b, "{\"path\":");
	floe_json_put_cstr(b, f->file.path);
	floe_buf_printf(b, ",\"record_count\":%" PRId64 ",\"file_size\":%" PRId64
			",\"snapshot_id\":%" PRId64 ",\"sequence_number\":%" PRId64
			",\"split_offsets\":[", f->file.record_count, f->file.file_size_in_bytes,
			f->snapshot_id, f->data_sequence_number);
	for (size_t i = 0; i < f->file.n_split_offsets; i++)
		floe_buf_printf(b, "%s%" PRId64, i ? "," : "", f->file.split_offsets[i]);
	floe_buf_puts(b, "],\"columns\":[");
	for (size_t i = 0; i < f->file.n_columns; i++) {
		if (i)
			floe_buf_putc(b, ',');
		put_stats(b, &f->file.columns[i]);
	}
	floe_buf_puts(b, "]}");
}

static void print_buf(floe_buf *b)
{
	fputs(floe_buf_cstr(b), stdout);
	fputc('\n', stdout);
	fflush(stdout);
	floe_buf_free(b);
}

/* ---- commands ---- */

static int cmd_create(fixture *fx, args *ar)
{
	floe_iceberg_field fields[MAX_ITEMS];
	floe_iceberg_kv props[MAX_ITEMS];
	int32_t ident[MAX_ITEMS];
	const char *ident_names[MAX_ITEMS];
	size_t nf = 0, np = 0, ni = 0;
	const char *opt, *v;
	floe_iceberg_table *t = NULL;
	while ((opt = next_option(ar, &v)) != NULL) {
		if (!v)
			return usage("an option lacks its value");
		if (strcmp(opt, "--column") == 0 && nf < MAX_ITEMS) {
			char *spec = floe_arena_strdup(fx->a, v), *c1 = strchr(spec, ':'), *c2;
			if (!c1)
				return usage("--column takes NAME:TYPE[:required]");
			*c1++ = '\0';
			c2 = strrchr(c1, ':');
			fields[nf].required = c2 && strcmp(c2 + 1, "required") == 0;
			if (fields[nf].required)
				*c2 = '\0';
			fields[nf].name = spec;
			fields[nf].id = (int32_t)nf + 1;
			fields[nf].doc = NULL;
			if (floe_iceberg_type_parse(&fields[nf].type, fx->a, c1, strlen(c1)) < 0)
				return 1;
			nf++;
		} else if (strcmp(opt, "--prop") == 0 && np < MAX_ITEMS) {
			props[np++] = kv_of(fx->a, v);
		} else if (strcmp(opt, "--identifier") == 0 && ni < MAX_ITEMS) {
			ident_names[ni++] = v;
		} else {
			return usage("create: unknown option");
		}
	}
	for (size_t i = 0; i < ni; i++) {
		ident[i] = 0;
		for (size_t j = 0; j < nf; j++)
			if (strcmp(fields[j].name, ident_names[i]) == 0)
				ident[i] = fields[j].id;
	}
	floe_iceberg_schema schema = { 0, nf, fields, ni, ident };
	floe_iceberg_create_opts opts = FLOE_ICEBERG_CREATE_OPTS_INIT;
	opts.properties = props;
	opts.n_properties = np;
	if (floe_iceberg_table_create(&t, fx->catalog, fx->ns, fx->name, &schema, &opts) < 0)
		return 1;
	printf("{\"metadata_location\":\"%s\"}\n", floe_iceberg_table_metadata_location(t));
	floe_iceberg_table_free(t);
	return 0;
}

static void print_commit(floe_iceberg_table *t, const floe_iceberg_data_file *f)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "{\"snapshot_id\":%" PRId64 ",\"metadata_location\":",
			floe_iceberg_table_metadata(t)->current_snapshot_id);
	floe_json_put_cstr(&b, floe_iceberg_table_metadata_location(t));
	floe_buf_puts(&b, ",\"file\":");
	floe_json_put_cstr(&b, f ? f->path : NULL);
	floe_buf_putc(&b, '}');
	print_buf(&b);
}

/* "URI@POS" as a position delete, into `out`; -1 when malformed. */
static int delete_of(floe_arena *a, const char *v, floe_iceberg_position_delete *out)
{
	const char *at = strrchr(v, '@');
	if (!at || at == v || !at[1])
		return -1;
	out->path = floe_arena_strndup(a, v, (size_t)(at - v));
	out->pos = num(at + 1);
	return 0;
}

/* Write the deletes (if any) and commit them with the rest as one row delta. */
static int commit_delta(fixture *fx, floe_iceberg_table *t, const char *const *remove, size_t nr,
			const floe_iceberg_data_file *file, size_t nf, floe_iceberg_position_delete *dels,
			size_t nd, const floe_iceberg_commit_opts *opts)
{
	floe_iceberg_data_file del;
	if (nd && floe_iceberg_position_deletes_write(&del, fx->a, t, dels, nd, NULL) < 0)
		return -1;
	return floe_iceberg_table_row_delta(t, remove, nr, file, nf, &del, nd ? 1 : 0, opts);
}

/* append, replace, rewrite and delete share their options. */
static int cmd_data(fixture *fx, floe_iceberg_table *t, args *ar, const char *cmd)
{
	floe_iceberg_kv summary[MAX_ITEMS];
	const char *remove[MAX_ITEMS], *sql = NULL, *opt, *v;
	floe_iceberg_position_delete dels[MAX_ITEMS];
	size_t ns = 0, nr = 0, nd = 0;
	floe_iceberg_commit_opts opts = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	floe_iceberg_data_file file;
	int rc;
	while ((opt = next_option(ar, &v)) != NULL) {
		if (!v)
			return usage("an option lacks its value");
		if (strcmp(opt, "--sql") == 0)
			sql = v;
		else if (strcmp(opt, "--summary") == 0 && ns < MAX_ITEMS)
			summary[ns++] = kv_of(fx->a, v);
		else if (strcmp(opt, "--remove") == 0 && nr < MAX_ITEMS)
			remove[nr++] = v;
		else if (strcmp(opt, "--delete") == 0 && nd < MAX_ITEMS && delete_of(fx->a, v, &dels[nd]) == 0)
			nd++;
		else if (strcmp(opt, "--retries") == 0)
			opts.max_retries = (int)num(v);
		else if (strcmp(opt, "--operation") == 0)
			opts.operation = v;
		else
			return usage("unknown option");
	}
	opts.summary = summary;
	opts.n_summary = ns;
	if (sql && write_file(fx, t, sql, &file) < 0)
		return 1;
	if (strcmp(cmd, "append") == 0)
		rc = floe_iceberg_table_append(t, &file, sql ? 1 : 0, &opts);
	else if (strcmp(cmd, "replace") == 0)
		rc = floe_iceberg_table_replace(t, &file, sql ? 1 : 0, &opts);
	else if (strcmp(cmd, "delete") == 0)
		rc = commit_delta(fx, t, remove, nr, &file, sql ? 1 : 0, dels, nd, &opts);
	else
		rc = floe_iceberg_table_rewrite(t, remove, nr, &file, sql ? 1 : 0, &opts);
	if (rc < 0)
		return 1;
	print_commit(t, sql ? &file : NULL);
	return 0;
}

static int cmd_append_loop(fixture *fx, floe_iceberg_table *t, args *ar)
{
	const char *sql = NULL, *opt, *v;
	int64_t count = 1, start = 0;
	floe_iceberg_commit_opts opts = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	while ((opt = next_option(ar, &v)) != NULL) {
		if (!v)
			return usage("an option lacks its value");
		if (strcmp(opt, "--sql") == 0)
			sql = v;
		else if (strcmp(opt, "--count") == 0)
			count = num(v);
		else if (strcmp(opt, "--start") == 0)
			start = num(v);
		else if (strcmp(opt, "--retries") == 0)
			opts.max_retries = (int)num(v);
		else
			return usage("unknown option");
	}
	if (!sql)
		return usage("append-loop needs --sql");
	for (int64_t i = start; i < start + count; i++) {
		floe_iceberg_data_file file;
		floe_arena_free(fx->a); /* one arena per commit keeps memory flat */
		fx->a = floe_arena_new();
		floe_iceberg_kv tag = { "floe.test-index", floe_arena_printf(fx->a, "%" PRId64, i) };
		opts.summary = &tag;
		opts.n_summary = 1;
		if (write_file(fx, t, replace_i(fx->a, sql, i), &file) < 0 ||
		    floe_iceberg_table_append(t, &file, 1, &opts) < 0)
			return 1;
		printf("ok %" PRId64 " %" PRId64 "\n", i, floe_iceberg_table_metadata(t)->current_snapshot_id);
		fflush(stdout);
	}
	return 0;
}

static int cmd_evolve(fixture *fx, floe_iceberg_table *t, args *ar)
{
	floe_iceberg_schema_change changes[MAX_ITEMS];
	size_t n = 0;
	const char *verb;
	while ((verb = next_arg(ar)) != NULL && n < MAX_ITEMS) {
		floe_iceberg_schema_change *c = &changes[n++];
		const char *a1 = next_arg(ar), *a2 = NULL;
		memset(c, 0, sizeof(*c));
		c->name = a1;
		if (!a1)
			return usage("evolve: a change lacks its column");
		if (strcmp(verb, "add") == 0 || strcmp(verb, "widen") == 0 || strcmp(verb, "rename") == 0)
			if (!(a2 = next_arg(ar)))
				return usage("evolve: a change lacks its argument");
		if (strcmp(verb, "add") == 0 || strcmp(verb, "widen") == 0) {
			floe_iceberg_type *type;
			c->kind = verb[0] == 'a' ? FLOE_ICEBERG_ADD_COLUMN : FLOE_ICEBERG_WIDEN_COLUMN;
			if (floe_iceberg_type_parse(&type, fx->a, a2, strlen(a2)) < 0)
				return 1;
			c->type = type;
		} else if (strcmp(verb, "rename") == 0) {
			c->kind = FLOE_ICEBERG_RENAME_COLUMN;
			c->new_name = a2;
		} else if (strcmp(verb, "optional") == 0) {
			c->kind = FLOE_ICEBERG_MAKE_OPTIONAL;
		} else {
			return usage("evolve: unknown change");
		}
	}
	if (floe_iceberg_table_update_schema(t, changes, n, NULL) < 0)
		return 1;
	printf("{\"schema_id\":%d}\n", floe_iceberg_table_metadata(t)->current_schema_id);
	return 0;
}

static int cmd_props(fixture *fx, floe_iceberg_table *t, args *ar)
{
	floe_iceberg_kv set[MAX_ITEMS];
	const char *unset[MAX_ITEMS], *opt, *v;
	size_t ns = 0, nu = 0;
	while ((opt = next_option(ar, &v)) != NULL) {
		if (!v)
			return usage("an option lacks its value");
		if (strcmp(opt, "--set") == 0 && ns < MAX_ITEMS)
			set[ns++] = kv_of(fx->a, v);
		else if (strcmp(opt, "--unset") == 0 && nu < MAX_ITEMS)
			unset[nu++] = v;
		else
			return usage("props: unknown option");
	}
	return floe_iceberg_table_set_properties(t, set, ns, unset, nu) < 0 ? 1 : 0;
}

static void print_cleanup(const floe_iceberg_cleanup_result *r)
{
	printf("{\"expired_snapshots\":%zu,\"deleted_data_files\":%zu,\"deleted_manifests\":%zu,"
	       "\"deleted_manifest_lists\":%zu,\"deleted_metadata_files\":%zu,"
	       "\"deleted_other_files\":%zu}\n", r->expired_snapshots, r->deleted_data_files,
	       r->deleted_manifests, r->deleted_manifest_lists, r->deleted_metadata_files,
	       r->deleted_other_files);
}

static int cmd_expire(floe_iceberg_table *t, args *ar, bool orphans)
{
	floe_iceberg_expire_opts opts = FLOE_ICEBERG_EXPIRE_OPTS_INIT;
	floe_iceberg_cleanup_result res;
	int64_t ids[MAX_ITEMS];
	const char *opt, *v;
	while ((opt = next_option(ar, &v)) != NULL) {
		if (!v)
			return usage("an option lacks its value");
		if (strcmp(opt, "--older-than-ms") == 0)
			opts.older_than_ms = num(v);
		else if (strcmp(opt, "--retain-last") == 0)
			opts.retain_last = (int)num(v);
		else if (strcmp(opt, "--snapshot") == 0 && opts.n_snapshot_ids < MAX_ITEMS)
			ids[opts.n_snapshot_ids++] = num(v);
		else
			return usage("expire: unknown option");
	}
	opts.snapshot_ids = ids;
	if (orphans) {
		int64_t cut = opts.older_than_ms >= 0 ? opts.older_than_ms : floe_iceberg_now_ms() + 1;
		if (floe_iceberg_table_remove_orphans(t, cut, &res) < 0)
			return 1;
	} else if (floe_iceberg_table_expire(t, &opts, &res) < 0) {
		return 1;
	}
	print_cleanup(&res);
	return 0;
}

static int cmd_plan(fixture *fx, floe_iceberg_table *t, args *ar)
{
	floe_iceberg_scan *scan = NULL;
	int64_t snapshot = -1;
	const char *opt;
	floe_buf b = FLOE_BUF_INIT;
	while ((opt = next_arg(ar)) != NULL) {
		if (strcmp(opt, "--snapshot") != 0)
			return usage("plan: unknown option");
		snapshot = num(next_arg(ar));
	}
	if (floe_iceberg_table_plan_deletes(&scan, fx->a, t, snapshot) < 0 ||
	    floe_iceberg_scan_load_deletes(fx->a, t, scan) < 0)
		return 1;
	floe_buf_printf(&b, "{\"snapshot_id\":%" PRId64 ",\"schema_id\":%d,\"record_count\":%" PRId64
			",\"live_rows\":%" PRId64 ",\"delete_files\":%zu,\"files\":[", scan->snapshot_id,
			scan->schema->schema_id, scan->record_count, floe_iceberg_scan_live_rows(scan), scan->n_deletes);
	for (size_t i = 0; i < scan->n_files; i++) {
		if (i)
			floe_buf_putc(&b, ',');
		put_file(&b, &scan->files[i]);
	}
	floe_buf_puts(&b, "]}");
	print_buf(&b);
	return 0;
}

static int cmd_info(floe_iceberg_table *t)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(t);
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_puts(&b, "{\"metadata_location\":");
	floe_json_put_cstr(&b, floe_iceberg_table_metadata_location(t));
	floe_buf_printf(&b, ",\"current_snapshot_id\":%" PRId64 ",\"schema_id\":%d,"
			"\"last_sequence_number\":%" PRId64 ",\"snapshots\":[",
			m->has_current_snapshot ? m->current_snapshot_id : -1, m->current_schema_id,
			m->last_sequence_number);
	for (size_t i = 0; i < m->n_snapshots; i++) {
		const floe_iceberg_snapshot *s = &m->snapshots[i];
		floe_buf_printf(&b, "%s{\"id\":%" PRId64 ",\"parent\":%" PRId64 ",\"sequence_number\":%"
				PRId64 ",\"operation\":\"%s\"}", i ? "," : "", s->snapshot_id,
				s->has_parent ? s->parent_id : -1, s->sequence_number, s->operation);
	}
	floe_buf_puts(&b, "]}");
	print_buf(&b);
	return 0;
}

static int run_table_command(fixture *fx, const char *cmd, args *ar)
{
	floe_iceberg_table *t = NULL;
	int rc;
	if (strcmp(cmd, "create") == 0)
		return cmd_create(fx, ar);
	if (floe_iceberg_table_load(&t, fx->catalog, fx->ns, fx->name) < 0)
		return 1;
	if (strcmp(cmd, "append") == 0 || strcmp(cmd, "replace") == 0 || strcmp(cmd, "rewrite") == 0 ||
	    strcmp(cmd, "delete") == 0)
		rc = cmd_data(fx, t, ar, cmd);
	else if (strcmp(cmd, "append-loop") == 0)
		rc = cmd_append_loop(fx, t, ar);
	else if (strcmp(cmd, "evolve") == 0)
		rc = cmd_evolve(fx, t, ar);
	else if (strcmp(cmd, "props") == 0)
		rc = cmd_props(fx, t, ar);
	else if (strcmp(cmd, "expire") == 0 || strcmp(cmd, "orphans") == 0)
		rc = cmd_expire(t, ar, cmd[0] == 'o');
	else if (strcmp(cmd, "plan") == 0)
		rc = cmd_plan(fx, t, ar);
	else if (strcmp(cmd, "info") == 0)
		rc = cmd_info(t);
	else
		rc = usage("unknown command");
	floe_iceberg_table_free(t);
	return rc;
}

int main(int argc, char **argv)
{
	args ar = { argc, argv, 1 };
	floe_iceberg_catalog_opts copts = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	fixture fx = { floe_arena_new(), NULL, NULL, NULL, NULL };
	const char *db, *cmd, *table;
	char *dot;
	int rc = 1;
	copts.create = true;
	if (getenv("FLOE_FIXTURE_DEBUG"))
		floe_log_configure(FLOE_LOG_DEBUG, false);
	while (ar.pos < argc && strncmp(argv[ar.pos], "--", 2) == 0) {
		const char *opt = next_arg(&ar), *v = next_arg(&ar);
		if (!v)
			return usage("an option lacks its value");
		if (strcmp(opt, "--warehouse") == 0)
			copts.warehouse = v;
		else if (strcmp(opt, "--name") == 0)
			copts.name = v;
		else
			return usage("unknown global option");
	}
	db = next_arg(&ar);
	cmd = next_arg(&ar);
	table = next_arg(&ar);
	if (!db || !cmd || !table || !(dot = strrchr(table, '.')))
		return usage("usage: iceberg_fixture [--warehouse DIR] CATALOG.db COMMAND NS.TABLE …");
	char *ns = floe_xstrndup(table, (size_t)(dot - table)); /* outlives fx.a, which loops reset */
	fx.ns = ns;
	fx.name = dot + 1;
	if (floe_iceberg_catalog_open_sql(&fx.catalog, db, &copts) == 0)
		rc = run_table_command(&fx, cmd, &ar);
	if (rc == 1)
		floe_error_print(stderr);
	floe_engine_close(fx.engine);
	floe_iceberg_catalog_free(fx.catalog);
	floe_arena_free(fx.a);
	free(ns);
	return rc;
}
