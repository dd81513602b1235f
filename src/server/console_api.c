/*
 * console_api.c — what the console's panels read (console.h): GET /api/status (the status
 * model `floe status --json` renders, rendered the same way), /api/branches (floe/change/…,
 * floe/mart/…, floe/pentaho/… waiting for a merge), /api/tables (how each table loads and
 * why: the deployed lock as written), /api/stack (where things run; never a credential).
 */
#include "server/console.h"
#include "auth/auth.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "monitor/status.h"
#include "repo/repo.h"
#include "server/api.h"
#include "state/console.h"

#include <stdatomic.h>
#include <string.h>

static int status(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	floe_status st = { 0 };
	int error = floe_status_build(&st, c->config) < 0 ? -1 : floe_status_render_json(&res->body, &st);
	res->content_type = FLOE_API_JSON;
	floe_status_free(&st);
	return error;
}

static const char *const branch_kinds[][2] = {
	{ "floe/change/", "schema change" }, { "floe/mart/", "gold mart" }, { "floe/pentaho/", "pentaho translation" }
};

/* Each branch of one prefix, with whether main has merged it. */
static int write_branches(floe_json_writer *w, floe_arena *a, floe_repo *repo, int kind)
{
	const char **names = NULL;
	size_t n = 0;
	if (floe_repo_branch_names(&names, &n, a, repo, branch_kinds[kind][0]) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char hex[41];
		bool exists = false, merged = false;
		if (floe_repo_branch_tip(&exists, hex, repo, names[i]) < 0 || (exists && floe_repo_merged(&merged, repo, hex) < 0))
			return -1;
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "branch", names[i]);
		floe_json_write_member_cstr(w, "kind", branch_kinds[kind][1]);
		floe_json_write_member_cstr(w, "tip", hex);
		floe_json_write_member_bool(w, "waiting", !merged);
		floe_json_write_end_object(w);
	}
	return 0;
}

static int branches(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	floe_arena *a = floe_arena_new();
	floe_repo *repo = NULL;
	floe_json_writer w;
	const char *dir = floe_config_pipeline_dir(a, c->config);
	int error = -1;
	res->content_type = FLOE_API_JSON;
	floe_json_write_init(&w, &res->body, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_bool(&w, "repository", floe_repo_exists(dir));
	floe_json_write_key(&w, "branches");
	floe_json_write_begin_array(&w, false);
	if (floe_repo_exists(dir) && floe_repo_open(&repo, dir, false) < 0)
		goto cleanup;
	for (int k = 0; repo && k < 3; k++)
		if (write_branches(&w, a, repo, k) < 0)
			goto cleanup;
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	error = floe_json_write_finish(&w);
cleanup:
	floe_repo_close(repo);
	floe_arena_free(a);
	return error;
}

/* The deployed lock as written (modes, reasons, keys, watermarks; no credential), or {"tables":[]}. */
static int tables(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	floe_arena *a = floe_arena_new();
	const char *path = floe_config_lock_path(a, c->config);
	int error = 0;
	res->content_type = FLOE_API_JSON;
	if (floe_fs_exists(path))
		error = floe_fs_read_file(&res->body, path);
	else
		floe_buf_puts(&res->body, "{\"tables\":[]}");
	floe_arena_free(a);
	return error;
}

static int stack(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	const floe_config *cf = c->config;
	floe_json_writer w;
	res->content_type = FLOE_API_JSON;
	floe_json_write_init(&w, &res->body, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "project", cf->project_name);
	floe_json_write_key(&w, "source");
	floe_json_write_begin_object(&w, true);
	floe_json_write_member_cstr(&w, "host", cf->source.host);
	floe_json_write_member_int(&w, "port", cf->source.port);
	floe_json_write_member_cstr(&w, "database", cf->source.database);
	floe_json_write_member_strings(&w, "schemas", cf->source.schemas.items, cf->source.schemas.count);
	floe_json_write_end_object(&w);
	floe_json_write_key(&w, "catalog");
	floe_json_write_begin_object(&w, true);
	floe_json_write_member_cstr(&w, "kind", cf->warehouse.catalog);
	floe_json_write_member_cstr(&w, "warehouse", cf->warehouse.location);
	floe_json_write_member_cstr(&w, "endpoint", cf->warehouse.endpoint);
	floe_json_write_end_object(&w);
	floe_json_write_member_cstr(&w, "serve", atomic_load(&c->listen_url));
	floe_json_write_member_cstr(&w, "role", floe_auth_role_name((floe_role)req->role));
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}

static void write_run(floe_json_writer *w, const floe_state_run_summary *r)
{
	floe_json_write_begin_object(w, false);
	floe_json_write_member_cstr(w, "run_id", r->run_id);
	floe_json_write_member_cstr(w, "command", r->command);
	floe_json_write_member_cstr(w, "status", r->status);
	floe_json_write_member_cstr(w, "started_at", r->started_at);
	floe_json_write_member_cstr(w, "finished_at", r->finished_at);
	floe_json_write_key(w, "tables");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_tables; i++) {
		const floe_state_run_table *t = &r->tables[i];
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "table", t->table_name);
		floe_json_write_member_cstr(w, "layer", t->layer);
		floe_json_write_member_cstr(w, "state", t->state);
		floe_json_write_key(w, "rows");
		if (t->rows < 0)
			floe_json_write_null(w);
		else
			floe_json_write_int(w, t->rows);
		floe_json_write_member_cstr(w, "error", t->error);
		floe_json_write_member_cstr(w, "cause", t->cause);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
	floe_json_write_end_object(w);
}

/* The newest runs of the ledger (CLI, scheduler, console), each with what it did per table. */
static int runs(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	floe_arena *a = floe_arena_new();
	floe_state *st = NULL;
	floe_state_run_summary *list = NULL;
	size_t n = 0;
	floe_json_writer w;
	int error = -1;
	if (floe_state_open(&st, c->config->project_dir) < 0 || floe_state_run_list(st, a, 30, &list, &n) < 0)
		goto cleanup;
	res->content_type = FLOE_API_JSON;
	floe_json_write_init(&w, &res->body, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_key(&w, "runs");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < n; i++)
		write_run(&w, &list[i]);
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	error = floe_json_write_finish(&w);
cleanup:
	floe_state_close(st);
	floe_arena_free(a);
	return error;
}

void floe_server_console_api_routes(floe_http_server *server, floe_server_console *c)
{
	floe_http_route_add_role(server, "GET", "/api/status", FLOE_ROLE_VIEWER, status, c);
	floe_http_route_add_role(server, "GET", "/api/branches", FLOE_ROLE_VIEWER, branches, c);
	floe_http_route_add_role(server, "GET", "/api/tables", FLOE_ROLE_VIEWER, tables, c);
	floe_http_route_add_role(server, "GET", "/api/stack", FLOE_ROLE_VIEWER, stack, c);
	floe_http_route_add_role(server, "GET", "/api/runs", FLOE_ROLE_VIEWER, runs, c);
}
