/*
 * tools.c — the tool table and the two tools over the status model: floe_pipeline_status
 * (what `floe status --json` reports, every table and layer) and floe_table_health (one
 * table: its layers' rows of that model, its recent loads and reconciliations from the
 * run ledger). The ledger is opened read-only (floe_status_build_read); nothing is written.
 * The branch tools (schema changes, Pentaho reports) are in branches.c.
 */
#include "mcp/mcp_int.h"
#include "mcp/tools_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "monitor/status.h"
#include "state/state.h"

#include <string.h>

#define HISTORY_DEFAULT 10
#define HISTORY_MAX 100

#define NO_ARGS "{\"type\":\"object\",\"additionalProperties\":false}"
#define ROW_SCHEMA                                                                                           \
	"{\"type\":\"object\",\"properties\":{\"table\":{\"type\":\"string\"},\"layer\":{\"type\":\"string\"},"     \
	"\"state\":{\"type\":\"string\"},\"facts\":{\"type\":[\"string\",\"null\"]}},"                               \
	"\"required\":[\"table\",\"layer\",\"state\"]}"

int mcp_need_project(const floe_mcp *m)
{
	if (m->config)
		return 0;
	floe_error_set(FLOE_ERR_CONFIG, "this MCP server has no floe project");
	floe_error_hint("Start it as `floe mcp serve --workspace DIR`, DIR holding floe.toml.");
	return -1;
}

int mcp_check_args(const floe_json_value *args, const char *const *known, size_t n_known)
{
	for (size_t i = 0; i < floe_json_count(args); i++) {
		floe_slice key = floe_json_key_at(args, i);
		bool ok = false;
		for (size_t k = 0; k < n_known && !ok; k++)
			ok = floe_slice_eq_cstr(key, known[k]);
		if (!ok) {
			floe_buf name = FLOE_BUF_INIT;
			floe_json_put_string(&name, key.ptr, key.len);
			floe_error_set(FLOE_ERR_USAGE, "unknown argument %s", name.ptr);
			floe_buf_clear(&name);
			for (size_t k = 0; k < n_known; k++)
				floe_buf_printf(&name, "%s%s", k ? ", " : "", known[k]);
			floe_error_detail("This tool takes %s%s.", n_known ? "the arguments " : "no arguments",
					  n_known ? name.ptr : "");
			floe_buf_free(&name);
			return -1;
		}
	}
	return 0;
}

void mcp_put_count(floe_buf *out, const char *key, int64_t v)
{
	if (v < 0)
		floe_buf_printf(out, ",\"%s\":null", key);
	else
		floe_buf_printf(out, ",\"%s\":%lld", key, (long long)v);
}

/* The status model as `floe status --json` writes it, parsed: *doc owns it. */
static int status_doc(floe_json_doc **doc, const floe_config *config)
{
	floe_status st = { 0 };
	floe_buf json = FLOE_BUF_INIT;
	floe_json_error jerr;
	int error = -1;
	if (floe_status_build_read(&st, config) < 0 || floe_status_render_json(&json, &st) < 0)
		goto cleanup;
	if (floe_json_parse(doc, json.ptr, json.len, &jerr) < 0) {
		floe_error_set(FLOE_ERR_INTERNAL, "the status model's JSON does not parse: %s", jerr.message);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_status_free(&st);
	floe_buf_free(&json);
	return error;
}

static int pipeline_status(floe_buf *out, const floe_mcp *m, const floe_json_value *args)
{
	floe_json_doc *doc = NULL;
	int error = -1;
	if (mcp_check_args(args, NULL, 0) < 0 || mcp_need_project(m) < 0 || status_doc(&doc, m->config) < 0)
		goto cleanup;
	error = mcp_put_json(out, floe_json_root(doc));
cleanup:
	floe_json_free(doc);
	return error;
}

static bool member_is(const floe_json_value *row, const char *key, floe_slice name, bool bare)
{
	const floe_json_value *v = floe_json_get(row, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_STRING)
		return false;
	floe_slice s = floe_json_string(v);
	const char *dot = memchr(s.ptr, '.', s.len);
	if (bare && dot)
		s = (floe_slice){ dot + 1, s.len - (size_t)(dot + 1 - s.ptr) };
	return floe_slice_eq(s, name);
}

/*
 * Whether status row `row` is what `name` asks for: "orders" every layer of it, "bronze.orders"
 * that table, and a source's "public.orders" its bronze table (when no table has that name).
 */
static bool row_is(const floe_json_value *row, floe_slice name, bool by_source)
{
	if (!memchr(name.ptr, '.', name.len))
		return member_is(row, "table", name, true);
	return member_is(row, by_source ? "source" : "table", name, false) &&
	       (!by_source || member_is(row, "layer", floe_slice_from("bronze"), false));
}

static void put_load(floe_buf *out, const floe_state_table_run *r)
{
	floe_buf_putc(out, '{');
	floe_json_put_member(out, "run_id", r->run_id);
	floe_json_put_member(out, "table", r->table_name);
	floe_json_put_member(out, "layer", r->layer);
	floe_json_put_member(out, "mode", r->mode);
	floe_json_put_member(out, "state", floe_table_state_name(r->state));
	floe_json_put_member(out, "started_at", r->started_at);
	floe_json_put_member(out, "finished_at", r->finished_at);
	floe_json_put_member(out, "snapshot_id", r->snapshot_id);
	mcp_put_count(out, "rows", r->rows);
	mcp_put_count(out, "bytes", r->bytes);
	mcp_put_count(out, "tests_passed", r->tests_passed);
	mcp_put_count(out, "tests_failed", r->tests_failed);
	mcp_put_count(out, "tests_warned", r->tests_warned);
	mcp_put_count(out, "quarantined_rows", r->quarantined);
	floe_json_put_member(out, "detail", r->detail);
	floe_json_put_member(out, "error", r->error);
	floe_json_put_member(out, "cause", r->cause);
	floe_buf_putc(out, '}');
}

static void put_reconciliation(floe_buf *out, const floe_state_reconcile *r)
{
	floe_buf_putc(out, '{');
	floe_json_put_member(out, "run_id", r->run_id);
	floe_json_put_member(out, "table", r->table_name);
	floe_json_put_member(out, "tier", r->tier);
	floe_json_put_member(out, "outcome", floe_reconcile_outcome_name(r->outcome));
	floe_json_put_member(out, "snapshot_id", r->snapshot_id);
	mcp_put_count(out, "source_rows", r->source_rows);
	mcp_put_count(out, "lake_rows", r->lake_rows);
	floe_json_put_member(out, "control", r->control);
	floe_buf_printf(out, ",\"control_fired\":%s", r->control_fired < 0 ? "null" : r->control_fired ? "true" : "false");
	mcp_put_count(out, "diverged_buckets", r->diverged_buckets);
	floe_json_put_member(out, "excluded", r->excluded);
	floe_json_put_member(out, "detail", r->detail);
	floe_json_put_member(out, "error", r->error);
	floe_json_put_member(out, "started_at", r->started_at);
	floe_json_put_member(out, "finished_at", r->finished_at);
	floe_buf_printf(out, ",\"attempt\":%d}", r->attempt);
}

/* The loads and reconciliations of every matched layer, newest first per table. */
static int put_history(floe_buf *loads, floe_buf *recs, const floe_config *config, const floe_json_value *rows,
		       int limit)
{
	floe_state *st = NULL;
	floe_arena *a = floe_arena_new();
	int error = -1;
	if (floe_state_open_read(&st, config->project_dir) < 0)
		goto cleanup;
	for (size_t i = 0; i < floe_json_count(rows); i++) {
		const floe_json_value *name = floe_json_get(floe_json_value_at(rows, i), "table");
		if (!name || floe_json_type_of(name) != FLOE_JSON_STRING)
			continue;
		const char *table = floe_json_string(name).ptr;
		floe_state_table_run *runs = NULL;
		floe_state_reconcile *rs = NULL;
		size_t n_runs = 0, n_rs = 0;
		if (floe_state_table_history(st, a, table, limit, &runs, &n_runs) < 0 ||
		    floe_state_reconcile_history(st, a, table, limit, &rs, &n_rs) < 0)
			goto cleanup;
		for (size_t k = 0; k < n_runs; k++) {
			floe_buf_puts(loads, loads->len ? "," : "");
			put_load(loads, &runs[k]);
		}
		for (size_t k = 0; k < n_rs; k++) {
			floe_buf_puts(recs, recs->len ? "," : "");
			put_reconciliation(recs, &rs[k]);
		}
	}
	error = 0;
cleanup:
	floe_state_close(st);
	floe_arena_free(a);
	return error;
}

/* The arguments of floe_table_health: the table, and how many records of history (1…100). */
static int health_args(floe_slice *table, int *limit, const floe_json_value *args)
{
	static const char *const known[] = { "table", "history" };
	const floe_json_value *t = floe_json_get(args, "table");
	const floe_json_value *h = floe_json_get(args, "history");
	int64_t n = HISTORY_DEFAULT;
	if (mcp_check_args(args, known, 2) < 0)
		return -1;
	if (!t || floe_json_type_of(t) != FLOE_JSON_STRING || floe_json_string(t).len == 0) {
		floe_error_set(FLOE_ERR_USAGE, "argument \"table\" is required: a table's name");
		floe_error_detail("For example \"bronze.orders\", \"silver.orders\", its source \"public.orders\", or "
				  "\"orders\" for every layer of it; floe_pipeline_status lists the tables.");
		return -1;
	}
	if (h && (floe_json_type_of(h) != FLOE_JSON_NUMBER || floe_json_int64(&n, h) < 0 || n < 1 || n > HISTORY_MAX)) {
		floe_error_set(FLOE_ERR_USAGE, "argument \"history\" must be an integer from 1 to %d", HISTORY_MAX);
		return -1;
	}
	*table = floe_json_string(t);
	*limit = (int)n;
	return 0;
}

/* No row matched: say so, and name the tables there are. */
static int no_such_table(floe_slice name, const floe_json_value *tables)
{
	floe_buf quoted = FLOE_BUF_INIT, names = FLOE_BUF_INIT;
	floe_json_put_string(&quoted, name.ptr, name.len);
	for (size_t i = 0; i < floe_json_count(tables) && i < 200; i++) {
		const floe_json_value *t = floe_json_get(floe_json_value_at(tables, i), "table");
		if (t && floe_json_type_of(t) == FLOE_JSON_STRING)
			floe_buf_printf(&names, "%s%s", names.len ? ", " : "", floe_json_string(t).ptr);
	}
	floe_error_set(FLOE_ERR_USAGE, "no table %s in the deployed plan", quoted.ptr);
	floe_error_detail("The tables are: %s.", names.len ? names.ptr : "(none)");
	floe_buf_free(&quoted);
	floe_buf_free(&names);
	return -1;
}

static int table_health(floe_buf *out, const floe_mcp *m, const floe_json_value *args)
{
	floe_json_doc *doc = NULL;
	floe_buf layers = FLOE_BUF_INIT, loads = FLOE_BUF_INIT, recs = FLOE_BUF_INIT;
	floe_slice name;
	int limit = 0, error = -1;
	if (health_args(&name, &limit, args) < 0 || mcp_need_project(m) < 0 || status_doc(&doc, m->config) < 0)
		goto cleanup;
	const floe_json_value *tables = floe_json_get(floe_json_root(doc), "tables");
	floe_buf_putc(&layers, '[');
	for (int by_source = 0; by_source < 2 && layers.len == 1; by_source++)
		for (size_t i = 0; i < floe_json_count(tables); i++)
			if (row_is(floe_json_value_at(tables, i), name, by_source)) {
				floe_buf_puts(&layers, layers.len > 1 ? "," : "");
				mcp_put_json(&layers, floe_json_value_at(tables, i));
			}
	floe_buf_putc(&layers, ']');
	floe_json_doc *matched = NULL;
	floe_json_error jerr;
	if (layers.len == 2) {
		no_such_table(name, tables);
		goto cleanup;
	}
	if (floe_json_parse(&matched, layers.ptr, layers.len, &jerr) < 0 ||
	    put_history(&loads, &recs, m->config, floe_json_root(matched), limit) < 0) {
		floe_json_free(matched);
		goto cleanup;
	}
	floe_json_free(matched);
	floe_buf_puts(out, "{\"table\":");
	floe_json_put_string(out, name.ptr, name.len);
	floe_buf_printf(out, ",\"layers\":%s,\"loads\":[%s],\"reconciliations\":[%s]}", layers.ptr,
			loads.ptr ? loads.ptr : "", recs.ptr ? recs.ptr : "");
	error = 0;
cleanup:
	floe_json_free(doc);
	floe_buf_free(&layers);
	floe_buf_free(&loads);
	floe_buf_free(&recs);
	return error;
}

const mcp_tool mcp_tools[] = {
	{
		.name = "floe_pipeline_status",
		.title = "Pipeline status",
		.description =
			"Every table of the deployed plan in every layer (bronze, silver, gold): its state (never "
			"loaded, loaded, failed, refused, paused, interrupted; verified, diverged or unverified once "
			"its current snapshot was reconciled against the source), the facts behind it, the last run, "
			"rows and age of the last good load, silver's test counts, drift of hand-edited pipeline files, "
			"and the newest reconciliation. The same model as `floe status --json`. Reads only.",
		.input_schema = NO_ARGS,
		.output_schema = "{\"type\":\"object\",\"properties\":{\"tables\":{\"type\":\"array\",\"items\":" ROW_SCHEMA
				 "},\"failed\":{\"type\":\"integer\"},\"diverged\":{\"type\":\"integer\"},"
				 "\"unverified\":{\"type\":\"integer\"}},\"required\":[\"tables\"]}",
		.call = pipeline_status,
	},
	{
		.name = "floe_table_health",
		.title = "Table health",
		.description =
			"One table's health in each layer it has: its state and facts, the load (mode, rows, "
			"freshness as age_seconds), the reconciliation (tier V1/V2/V3, outcome, the planted control "
			"and whether it fired), silver's tests, and the history of its recent loads and "
			"reconciliations from the run ledger, newest first. Reads only.",
		.input_schema =
			"{\"type\":\"object\",\"properties\":{\"table\":{\"type\":\"string\",\"description\":"
			"\"bronze.orders or silver.orders for that table, orders for every layer of it, the "
			"source's public.orders for its bronze table\"},"
			"\"history\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,\"description\":"
			"\"how many loads and reconciliations to list per layer (default 10)\"}},"
			"\"required\":[\"table\"],\"additionalProperties\":false}",
		.output_schema = "{\"type\":\"object\",\"properties\":{\"table\":{\"type\":\"string\"},\"layers\":{\"type\":"
				 "\"array\",\"items\":" ROW_SCHEMA "},\"loads\":{\"type\":\"array\"},\"reconciliations\":{"
				 "\"type\":\"array\"}},\"required\":[\"table\",\"layers\",\"loads\",\"reconciliations\"]}",
		.call = table_health,
	},
	{
		.name = "floe_schema_changes",
		.title = "Schema changes and marts waiting for approval",
		.description =
			"The open branches of the pipeline repository that wait for a person to merge them: schema "
			"changes floe sync proposed (floe/change/<table>/<id>, with the proposal text: what changed, "
			"what it does to bronze and silver, whether the table's loads are paused) and marts floe gold "
			"draft proposed (floe/mart/<name>). Merging a branch is the approval; this tool never merges. "
			"Reads only.",
		.input_schema = NO_ARGS,
		.output_schema = MCP_BRANCHES_SCHEMA,
		.call = mcp_schema_changes,
	},
	{
		.name = "floe_pentaho_translation",
		.title = "Pentaho translation report",
		.description =
			"The latest report of `floe pentaho translate` as committed on branch floe/pentaho/<name>: "
			"coverage per step type (mapped, partial, unmapped), the unmapped steps with reasons, the "
			"files and the `-- floe: check` markers. Without a name, every translation's report. Reads only.",
		.input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"description\":"
				"\"the translation's name (floe pentaho translate --name); omit for all\"}},"
				"\"additionalProperties\":false}",
		.output_schema = MCP_PENTAHO_SCHEMA,
		.call = mcp_pentaho_translation,
	},
};

const size_t mcp_n_tools = sizeof(mcp_tools) / sizeof(*mcp_tools);
