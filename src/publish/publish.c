/*
 * publish.c — floe_publish_run: the warehouse session, the list of marts, and each
 * mart's load and swap (publish.h); the report and its rendering.
 */
#include "publish/publish_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/secret.h"
#include "base/text.h"
#include "iceberg/catalog.h"
#include "iceberg/metadata.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define GOLD_NS "gold"
#define PG_NAME_MAX 63
#define NEW_SUFFIX "__floe_new"

static int no_section(void)
{
	floe_error_set(FLOE_ERR_CONFIG, "floe.toml has no [publish] section: there is no warehouse to publish to");
	floe_error_hint("Add [publish] with host, port, database, schema, user and password-env "
			"(docs/publish.md).");
	return -1;
}

static int connect_warehouse(floe_pg **out, const floe_config_publish *p)
{
	floe_pg_target t = FLOE_PG_TARGET_INIT;
	const char *password = getenv(p->password_env);
	if (password && password[0])
		floe_secret_register(password);
	t.host = p->host;
	t.port = p->port;
	t.database = p->database;
	t.user = p->user;
	t.password = password && password[0] ? password : NULL;
	t.read_only = false;
	t.password_env = p->password_env;
	if (floe_pg_connect(out, &t) < 0)
		return floe_error_context("while connecting to the publish warehouse");
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_printf(&sql, "SET lock_timeout = %" PRId64, p->lock_timeout_ms);
	int error = floe_pg_exec(*out, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/* The target schema must exist and take new tables from the publishing role. */
static int check_schema(floe_pg *pg, const floe_config_publish *p)
{
	floe_pg_result *r = NULL;
	const char *params[] = { p->schema };
	int error = floe_pg_query(&r, pg, "SELECT has_schema_privilege(oid, 'CREATE') FROM pg_namespace "
				  "WHERE nspname = $1", 1, params);
	if (error == 0 && floe_pg_result_rows(r) == 0) {
		error = floe_error_set(FLOE_ERR_CONFIG, "schema \"%s\" does not exist in the warehouse %s", p->schema,
				       floe_pg_describe(pg));
		floe_error_hint("Create it (CREATE SCHEMA %s AUTHORIZATION %s), or name another in [publish] schema.",
				p->schema, p->user);
	} else if (error == 0 && !floe_pg_result_bool(r, 0, 0)) {
		error = floe_error_set(FLOE_ERR_CONFIG, "role \"%s\" may not create tables in schema \"%s\"", p->user,
				       p->schema);
		floe_error_hint("GRANT CREATE ON SCHEMA %s TO %s (publishing replaces tables there).", p->schema, p->user);
	}
	floe_pg_result_free(r);
	return error;
}

static int open_catalog(floe_iceberg_catalog **out, floe_arena *a, const floe_config *config)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	co.warehouse = floe_config_warehouse_dir(config);
	return floe_iceberg_catalog_open_sql(out, floe_config_catalog_path(a, config), &co);
}

static bool is_mart_name(const char *name)
{
	size_t n = strlen(name), q = strlen("__quarantine");
	return !(n > q && strcmp(name + n - q, "__quarantine") == 0);
}

/* The marts asked for (without "gold."), or every table of the gold namespace. */
static int list_marts(const char ***out, size_t *n, floe_iceberg_catalog *cat, floe_arena *a,
		      const floe_publish_opts *opts)
{
	const char **names = NULL;
	size_t count = 0;
	bool exists = false;
	if (opts && opts->n_marts) {
		names = (const char **)opts->marts;
		count = opts->n_marts;
	} else if (floe_iceberg_catalog_namespace_exists(cat, GOLD_NS, &exists) < 0 ||
		   (exists && floe_iceberg_catalog_list_tables(cat, GOLD_NS, a, &names, &count) < 0)) {
		return -1;
	}
	*out = floe_arena_alloc(a, (count + 1) * sizeof(char *));
	*n = 0;
	for (size_t i = 0; i < count; i++) {
		const char *m = strncmp(names[i], GOLD_NS ".", 5) == 0 ? names[i] + 5 : names[i];
		if ((opts && opts->n_marts) || is_mart_name(m))
			(*out)[(*n)++] = m;
	}
	return 0;
}

static const char *quoted_in_schema(publish_job *job, const char *name)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *s = NULL;
	floe_buf_printf(&b, "%s.", job->quoted_schema);
	if (floe_pg_quote_ident(&b, job->pg, name) == 0)
		s = floe_arena_strdup(job->arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

static int name_job(publish_job *job)
{
	if (strlen(job->mart) + strlen(NEW_SUFFIX) > PG_NAME_MAX) {
		floe_error_set(FLOE_ERR_USAGE, "mart name \"%s\" is too long to publish", job->mart);
		floe_error_detail("PostgreSQL names hold %d bytes and floe loads into \"<mart>%s\" first.",
				  PG_NAME_MAX, NEW_SUFFIX);
		floe_error_hint("Give the mart a name of at most %d bytes.", PG_NAME_MAX - (int)strlen(NEW_SUFFIX));
		return -1;
	}
	floe_buf b = FLOE_BUF_INIT;
	int error = floe_pg_quote_ident(&b, job->pg, job->conf->schema);
	job->quoted_schema = floe_arena_strdup(job->arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
	job->new_name = floe_arena_printf(job->arena, "%s" NEW_SUFFIX, job->mart);
	job->quoted_target = quoted_in_schema(job, job->mart);
	job->quoted_new = quoted_in_schema(job, job->new_name);
	job->quoted_old = quoted_in_schema(job, floe_arena_printf(job->arena, "%s__floe_old", job->mart));
	return error < 0 || !job->quoted_target || !job->quoted_new || !job->quoted_old ? -1 : 0;
}

/* The current error into the result (one line, and its hint), then cleared. */
static void record_failure(floe_publish_result *res, floe_arena *a)
{
	const floe_error *e = floe_error_last();
	floe_buf line = FLOE_BUF_INIT;
	floe_error_put_message(&line, e);
	floe_secret_scrub_buf(&line);
	res->error = floe_arena_strdup(a, line.len ? floe_buf_cstr(&line) : "unknown failure");
	res->hint = e && e->hint ? floe_arena_strdup(a, e->hint) : NULL;
	res->exit_code = e ? (int)floe_error_exit_code() : FLOE_EXIT_INTERNAL;
	floe_buf_free(&line);
	floe_error_clear();
}

static void publish_one(floe_publish_result *res, publish_job *job, floe_iceberg_catalog *cat)
{
	floe_iceberg_scan *scan = NULL;
	bool loaded = false;
	res->snapshot_id = -1;
	if (name_job(job) < 0 || floe_iceberg_table_load(&job->table, cat, GOLD_NS, job->mart) < 0 ||
	    floe_iceberg_table_plan(&scan, job->arena, job->table, -1) < 0)
		goto failed;
	job->scan = scan;
	job->schema = scan->schema;
	res->snapshot_id = scan->snapshot_id;
	res->target = floe_arena_printf(job->arena, "%s.%s", job->conf->schema, job->mart);
	if (publish_load(&res->rows, &res->cleaned_up, job) < 0)
		goto failed;
	loaded = true;
	if (publish_swap(job) < 0)
		goto failed;
	res->published = true;
	goto done;
failed:
	if (floe_error_last() && floe_error_last()->code == FLOE_CODE_SOURCE_LOCKED)
		floe_error_hint("A session holds a lock on %s past [publish] lock-timeout (%lld ms); the previous "
				"table is unchanged. Publish again when it has finished, or raise lock-timeout.",
				job->quoted_target, (long long)job->conf->lock_timeout_ms);
	floe_error_context("while publishing gold.%s", job->mart);
	record_failure(res, job->arena);
	if (loaded)
		publish_drop_new(job);
done:
	floe_iceberg_table_free(job->table);
	job->table = NULL;
}

int floe_publish_run(floe_publish_report *out, const floe_config *config, const floe_publish_opts *opts)
{
	floe_iceberg_catalog *cat = NULL;
	floe_pg *pg = NULL;
	const char **marts = NULL;
	size_t n = 0;
	int error = -1;
	memset(out, 0, sizeof(*out));
	out->arena = floe_arena_new();
	const floe_config_publish *p = config->publish;
	if (!p)
		return no_section();
	out->schema = p->schema;
	out->warehouse = floe_arena_printf(out->arena, "%s:%d/%s", p->host, p->port, p->database);
	if (open_catalog(&cat, out->arena, config) < 0 || list_marts(&marts, &n, cat, out->arena, opts) < 0 ||
	    connect_warehouse(&pg, p) < 0 || check_schema(pg, p) < 0)
		goto cleanup;
	out->results = floe_arena_alloc(out->arena, (n + 1) * sizeof(*out->results));
	memset(out->results, 0, (n + 1) * sizeof(*out->results));
	for (size_t i = 0; i < n; i++) {
		publish_job job = { .arena = out->arena, .pg = pg, .conf = p, .mart = marts[i] };
		floe_publish_result *res = &out->results[out->n_results++];
		res->mart = marts[i];
		publish_one(res, &job, cat);
		out->n_failed += !res->published;
		out->exit_code = res->exit_code > out->exit_code ? res->exit_code : out->exit_code;
	}
	error = 0;
cleanup:
	floe_pg_close(pg);
	floe_iceberg_catalog_free(cat);
	return error;
}

void floe_publish_report_free(floe_publish_report *rep)
{
	if (rep && rep->arena)
		floe_arena_free(rep->arena);
	if (rep)
		memset(rep, 0, sizeof(*rep));
}

static void render_json(floe_buf *out, const floe_publish_report *rep)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "warehouse", rep->warehouse);
	floe_json_write_member_cstr(&w, "schema", rep->schema);
	floe_json_write_key(&w, "marts");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_publish_result *r = &rep->results[i];
		floe_json_write_begin_object(&w, true);
		floe_json_write_member_cstr(&w, "mart", r->mart);
		floe_json_write_member_cstr(&w, "table", r->target);
		floe_json_write_member_cstr(&w, "state", r->published ? "published" : "failed");
		floe_json_write_member_int(&w, "rows", r->rows);
		floe_json_write_key(&w, "snapshot_id");
		if (r->snapshot_id >= 0)
			floe_json_write_int(&w, r->snapshot_id);
		else
			floe_json_write_null(&w);
		floe_json_write_member_bool(&w, "cleaned_up", r->cleaned_up);
		floe_json_write_member_cstr(&w, "error", r->error);
		floe_json_write_member_cstr(&w, "hint", r->hint);
		floe_json_write_member_int(&w, "exit_code", r->exit_code);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_member_int(&w, "published", (int64_t)(rep->n_results - rep->n_failed));
	floe_json_write_member_int(&w, "failed", (int64_t)rep->n_failed);
	floe_json_write_end_object(&w);
	floe_json_write_finish(&w);
	floe_buf_putc(out, '\n');
}

static void render_text(floe_buf *out, const floe_publish_report *rep)
{
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_publish_result *r = &rep->results[i];
		floe_buf_puts(out, r->published ? "published gold." : "failed    gold.");
		floe_text_put_printable(out, r->mart);
		if (r->published) {
			floe_buf_puts(out, " → ");
			floe_text_put_printable(out, r->target);
			floe_buf_printf(out, ": %lld rows (snapshot %" PRId64 ")%s\n", r->rows, r->snapshot_id,
					r->cleaned_up ? "; dropped a leftover of an interrupted publish" : "");
			continue;
		}
		floe_buf_puts(out, ": ");
		floe_text_put_printable(out, r->error);
		floe_buf_puts(out, "\n");
		if (r->hint) {
			floe_buf_puts(out, "  hint: ");
			floe_text_put_printable(out, r->hint);
			floe_buf_puts(out, "\n");
		}
	}
	if (rep->n_results == 0)
		floe_buf_puts(out, "no gold marts to publish (the catalog has no gold tables)\n");
	else
		floe_buf_printf(out, "%zu mart%s published to %s, schema %s; %zu failed%s\n",
				rep->n_results - rep->n_failed, rep->n_results - rep->n_failed == 1 ? "" : "s",
				rep->warehouse, rep->schema, rep->n_failed,
				rep->n_failed ? " (the previous table of each failed mart is unchanged)" : "");
}

void floe_publish_render(floe_buf *out, const floe_publish_report *rep, bool json)
{
	if (json)
		render_json(out, rep);
	else
		render_text(out, rep);
}
