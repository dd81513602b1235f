/*
 * cmd_run.c — `floe run [--table T …] [--jobs N]`: load bronze for the deployed plan.
 */
#include "cli/cli.h"
#include "monitor/alert.h"
#include "schedule/clock.h"
#include "doctor/doctor.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/text.h"
#include "bronze/bronze.h"
#include "config/scale.h"
#include "reconcile/reconcile.h"
#include "silver/silver.h"
#include "sync/sync.h"
#include "publish/publish.h"
#include "gold/gold.h"
#include "pg/introspect.h"
#include "pg/pg.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TABLES 256

static const floe_cli_option options[] = {
	{ "table", 't', "TABLE", "load only this table (bronze.NAME or SCHEMA.NAME); repeatable, or comma-separated" },
	{ "jobs", 'j', "N", "tables loaded, and silver tables built, at once (default 2)" },
	{ "parallel", 0, "N", "connections reading each table's full load, by key ranges (default: floe.toml's [bronze] parallel)" },
	{ "tier", 0, "V1|V2|V3", "how each load is reconciled with its source (default V3)" },
	{ "no-reconcile", 0, NULL, "load without reconciling (tables stay unverified)" },
	{ "layer", 0, "bronze|silver|gold", "run one layer only (default: bronze, then silver over what was verified, then gold)" },
	{ "full-refresh", 0, NULL, "rebuild silver tables in full, changed or not" },
	{ "no-sync", 0, NULL, "do not run `floe sync` first (load the plan deployed on main as it is)" },
	{ "json", 0, NULL, "print the outcome as JSON" },
	{ "follow", 0, NULL, "CDC tables only: keep applying their streams, batch after batch, until SIGINT/SIGTERM" },
	{ NULL, 0, NULL, NULL },
};

/* --parallel N: 1 to 64 (FLOE_CONFIG_PARALLEL_MAX); absent leaves *out alone. */
static int parse_parallel(int *out, const char *text)
{
	int64_t n;
	if (!text)
		return 0;
	if (floe_text_parse_int64(&n, text, strlen(text), 1, FLOE_CONFIG_PARALLEL_MAX) < 0) {
		floe_error_set(FLOE_ERR_USAGE, "--parallel \"%s\" is not a number from 1 to %d", text,
			       FLOE_CONFIG_PARALLEL_MAX);
		floe_error_hint("Give the number of connections that read one table, e.g. --parallel 4.");
		return -1;
	}
	*out = (int)n;
	return 0;
}

static void human_bytes(floe_buf *out, int64_t b)
{
	if (b < 0)
		floe_buf_puts(out, "-");
	else if (b < (1 << 20))
		floe_buf_printf(out, "%.1f kB", (double)b / 1e3);
	else
		floe_buf_printf(out, "%.1f MB", (double)b / 1e6);
}

/* The detail without its "; source snapshot …" parts (the JSON keeps them), shown printable. */
static void put_detail(floe_buf *out, const char *detail)
{
	static const char marker[] = "; source snapshot ";
	floe_buf kept = FLOE_BUF_INIT;
	while (*detail) {
		const char *at = strstr(detail, marker);
		if (!at) {
			floe_buf_puts(&kept, detail);
			break;
		}
		floe_buf_put(&kept, detail, (size_t)(at - detail));
		detail = at + sizeof(marker) - 1;
		while (*detail && *detail != ';' && *detail != ' ')
			detail++;
	}
	floe_text_put_printable(out, floe_buf_cstr(&kept));
	floe_buf_free(&kept);
}

/* `label` then `text` shown printable, on a line of its own. */
static void put_line(floe_buf *out, const char *label, const char *text)
{
	floe_buf_puts(out, label);
	floe_text_put_printable(out, text ? text : "");
	floe_buf_putc(out, '\n');
}

static void render_text(floe_buf *out, const floe_bronze_report *rep)
{
	floe_buf_printf(out, "run %s\n", rep->run_id);
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_bronze_result *r = &rep->results[i];
		floe_buf_printf(out, "  %-8s ", floe_table_state_name(r->state));
		floe_text_put_printable_padded(out, r->table, 32);
		floe_buf_putc(out, ' ');
		if (r->state == FLOE_TABLE_LOADED) {
			floe_buf_printf(out, "%lld rows, ", (long long)r->rows);
			human_bytes(out, r->bytes);
			floe_buf_printf(out, " read in %.1f s (", r->seconds);
			human_bytes(out, r->seconds > 0 ? (int64_t)((double)r->bytes / r->seconds) : 0);
			floe_buf_printf(out, "/s), %lld file%s, snapshot %lld\n", (long long)r->files, r->files == 1 ? "" : "s",
					(long long)r->snapshot_id);
			if ((r->mode == FLOE_LOAD_INCREMENTAL || r->repaired) && r->detail) {
				floe_buf_puts(out, "           ");
				put_detail(out, r->detail);
				floe_buf_putc(out, '\n');
			}
			if (r->checked) {
				floe_buf_printf(out, "           %s%s: ", floe_reconcile_outcome_name(r->check_state),
						r->repaired ? " after a repair" : "");
				put_line(out, "", r->check_detail);
			}
		} else if (r->state == FLOE_TABLE_FAILED) {
			put_line(out, "", r->error);
			put_line(out, "           probable cause: ", r->cause);
		} else {
			put_line(out, "", r->detail);
		}
	}
	floe_buf_printf(out, "%zu table%s, %zu failed, ", rep->n_results, rep->n_results == 1 ? "" : "s", rep->n_failed);
	if (rep->n_unchecked) /* "0 not verified" would claim a check that did not run */
		floe_buf_printf(out, "%zu loaded, not reconciled (--no-reconcile)\n", rep->n_unchecked);
	else
		floe_buf_printf(out, "%zu not verified\n", rep->n_unproven);
}

static void render_silver_text(floe_buf *out, const floe_silver_report *rep)
{
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_silver_result *r = &rep->results[i];
		floe_buf_printf(out, "  %-9s ", r->state);
		floe_text_put_printable_padded(out, r->table, 31);
		floe_buf_putc(out, ' ');
		put_line(out, "", strcmp(r->state, "failed") == 0 ? r->error : r->detail);
		if (strcmp(r->state, "failed") == 0)
			put_line(out, "           probable cause: ", r->cause);
	}
	floe_buf_printf(out, "%zu silver table%s, %zu failed\n", rep->n_results, rep->n_results == 1 ? "" : "s",
			rep->n_failed);
}

static void render_silver_json(floe_buf *out, const floe_silver_report *rep)
{
	floe_buf_puts(out, ",\"silver\":[");
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_silver_result *r = &rep->results[i];
		floe_buf_puts(out, i ? ",{" : "{");
		floe_json_put_member(out, "table", r->table);
		floe_json_put_member(out, "bronze", r->bronze);
		floe_json_put_member(out, "materialized", r->materialized);
		floe_json_put_member(out, "state", r->state);
		floe_buf_printf(out, ",\"rows\":%lld,\"quarantined\":%lld,\"changed_keys\":%lld,\"snapshot_id\":%lld,"
				"\"bronze_snapshot_id\":%lld,\"tests\":{\"passed\":%d,\"failed\":%d,\"warned\":%d,"
				"\"incremental\":%d,\"proven\":%d},\"seconds\":%.3f", (long long)r->rows, (long long)r->quarantined,
				(long long)r->changed_keys, (long long)r->snapshot_id, (long long)r->bronze_snapshot_id,
				r->tests_passed, r->tests_failed, r->tests_warned, r->tests_incremental, r->tests_proven,
				r->seconds);
		floe_json_put_member(out, "detail", r->detail);
		floe_json_put_member(out, "error", r->error);
		floe_json_put_member(out, "cause", r->cause);
		floe_buf_putc(out, '}');
	}
	floe_buf_printf(out, "],\"silver_failed\":%zu", rep->n_failed);
}

static void render_json(floe_buf *out, const floe_bronze_report *rep)
{
	floe_buf_puts(out, "{");
	floe_json_put_member(out, "run_id", rep->run_id);
	floe_buf_puts(out, ",\"tables\":[");
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_bronze_result *r = &rep->results[i];
		floe_buf_puts(out, i ? ",{" : "{");
		floe_json_put_member(out, "table", r->table);
		floe_json_put_member(out, "source", r->source);
		floe_json_put_member(out, "mode", floe_load_mode_name(r->mode));
		floe_json_put_member(out, "state", floe_table_state_name(r->state));
		floe_buf_printf(out, ",\"rows\":%lld,\"bytes\":%lld,\"files\":%lld,\"table_rows\":%lld,"
				"\"snapshot_id\":%lld,\"seconds\":%.3f", (long long)r->rows, (long long)r->bytes,
				(long long)r->files, (long long)r->table_rows, (long long)r->snapshot_id, r->seconds);
		floe_json_put_member(out, "detail", r->detail);
		floe_json_put_member(out, "error", r->error);
		floe_json_put_member(out, "cause", r->cause);
		floe_json_put_member(out, "check", r->checked ? floe_reconcile_outcome_name(r->check_state) : NULL);
		floe_json_put_member(out, "check_detail", r->check_detail);
		floe_buf_printf(out, ",\"repaired\":%s}", r->repaired ? "true" : "false");
	}
	floe_buf_printf(out, "],\"failed\":%zu,\"not_verified\":%zu,\"not_reconciled\":%zu", rep->n_failed,
			rep->n_unproven, rep->n_unchecked);
}

/* Which layers: all (NULL), "bronze", "silver" or "gold". */
static int parse_layer(const char *layer, bool *bronze, bool *silver, bool *gold)
{
	*bronze = !layer || strcmp(layer, "bronze") == 0;
	*silver = !layer || strcmp(layer, "silver") == 0;
	*gold = !layer || strcmp(layer, "gold") == 0;
	if (*bronze || *silver || *gold)
		return 0;
	floe_error_set(FLOE_ERR_USAGE, "--layer \"%s\" is not bronze, silver or gold", layer);
	return -1;
}

static void render(floe_buf *out, bool json, const floe_bronze_report *b, const floe_silver_report *s, bool bronze,
		   bool silver, const floe_gold_report *g)
{
	if (json) {
		if (bronze)
			render_json(out, b);
		else
			floe_buf_printf(out, "{\"run_id\":\"%s\",\"tables\":[],\"failed\":0,\"not_verified\":0,\"not_reconciled\":%zu",
					silver ? s->run_id : g->run_id, silver ? s->n_not_reconciled : (size_t)0);
		if (silver)
			render_silver_json(out, s);
		floe_gold_report_render_json(out, g);
		floe_buf_puts(out, "}\n");
		return;
	}
	if (bronze)
		render_text(out, b);
	else
		floe_buf_printf(out, "run %s\n", silver ? s->run_id : g->run_id);
	if (silver && (s->n_results || !bronze))
		render_silver_text(out, s);
	floe_gold_report_render_text(out, g);
}

/*
 * After every layer: publish the gold marts when [publish] is set (docs/publish.md). Its
 * outcome joins the output (JSON: a "publish" member); returns its exit code.
 */
static int run_publish(floe_buf *out, const floe_config *config, bool json)
{
	floe_publish_report rep = { 0 };
	floe_buf part = FLOE_BUF_INIT;
	int rc = floe_publish_run(&rep, config, NULL) < 0 ? (int)floe_error_exit_code() : rep.exit_code;
	if (rc && !rep.n_results) {
		floe_error_print(stderr);
		floe_error_clear();
	}
	floe_publish_render(&part, &rep, json);
	if (json && out->len >= 2) {
		out->len -= 2; /* reopen the run's object: "}\n" */
		floe_buf_printf(out, ",\"publish\":%.*s}\n", (int)(part.len - 1), part.ptr);
	} else {
		floe_buf_put(out, part.ptr, part.len);
	}
	floe_buf_free(&part);
	floe_publish_report_free(&rep);
	return rc;
}

static volatile sig_atomic_t follow_stop;

static void on_stop(int sig)
{
	follow_stop = 1;
}

/*
 * floe run --follow: the CDC tables' streams applied until a signal (bronze/follow.c). No sync,
 * no silver or gold: a schema change reaches bronze through `floe sync` and a restart.
 */
static int run_follow(floe_cli_ctx *ctx, char **tables, size_t n_tables)
{
	floe_config *config = NULL;
	floe_reconcile_check_opts check = FLOE_RECONCILE_CHECK_OPTS_INIT;
	floe_bronze_follow_opts opts = { .tables = n_tables ? (const char *const *)tables : NULL,
					 .n_tables = n_tables, .stop = &follow_stop };
	const char *tier = floe_cli_value(ctx, "tier");
	struct sigaction sa = { 0 };
	int rc = -1;
	if ((floe_cli_value(ctx, "layer") && strcmp(floe_cli_value(ctx, "layer"), "bronze") != 0) ||
	    floe_cli_flag(ctx, "full-refresh") || floe_cli_flag(ctx, "json")) {
		floe_error_set(FLOE_ERR_USAGE, "--follow applies CDC streams to bronze only: it takes no --layer "
			       "other than bronze, --full-refresh or --json");
		goto cleanup;
	}
	if ((tier && floe_reconcile_tier_parse(&check.tier, tier) < 0) || floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	check.config = config;
	if (!floe_cli_flag(ctx, "no-reconcile")) {
		opts.check = floe_reconcile_bronze_check;
		opts.check_ctx = &check;
	}
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART; /* a batch under way finishes; the pause between polls ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	rc = floe_bronze_follow(config, &opts) < 0 ? -1 : 0;
cleanup:
	floe_config_free(config);
	return rc;
}

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_pg *pg = NULL;
	floe_bronze_report rep = { 0 };
	floe_silver_report srep = { 0 };
	floe_gold_report grep = { 0 };
	floe_bronze_opts opts = FLOE_BRONZE_OPTS_INIT;
	floe_silver_opts sopts = { 0 };
	const char **moved = NULL;
	floe_buf out = FLOE_BUF_INIT, kout = FLOE_BUF_INIT;
	char *tables[MAX_TABLES];
	size_t n_tables = floe_cli_values(ctx, "table", tables, MAX_TABLES);
	const char *jobs = floe_cli_value(ctx, "jobs"), *tier = floe_cli_value(ctx, "tier");
	floe_reconcile_check_opts check = FLOE_RECONCILE_CHECK_OPTS_INIT;
	bool bronze, silver, gold;
	int rc = -1;
	if (floe_cli_flag(ctx, "follow")) {
		rc = run_follow(ctx, tables, n_tables);
		goto cleanup;
	}
	if (parse_layer(floe_cli_value(ctx, "layer"), &bronze, &silver, &gold) < 0)
		goto cleanup;
	if (tier && floe_reconcile_tier_parse(&check.tier, tier) < 0)
		goto cleanup;
	if (jobs) {
		int64_t j;
		if (floe_text_parse_int64(&j, jobs, strlen(jobs), 1, 64) < 0) {
			floe_error_set(FLOE_ERR_USAGE, "--jobs \"%s\" is not a number from 1 to 64", jobs);
			goto cleanup;
		}
		opts.jobs = sopts.jobs = (int)j;
	}
	if (parse_parallel(&opts.parallel, floe_cli_value(ctx, "parallel")) < 0)
		goto cleanup;
	opts.tables = sopts.tables = n_tables ? (const char *const *)tables : NULL;
	opts.n_tables = sopts.n_tables = n_tables;
	opts.progress = isatty(2) && !floe_cli_flag(ctx, "json");
	sopts.full_refresh = floe_cli_flag(ctx, "full-refresh");
	if (floe_cli_load_config(&config, ctx) < 0 || floe_config_pii_key(NULL, config) < 0)
		goto cleanup;
	bool topics_only = config->kafka && (!floe_fs_exists(floe_config_lock_path(config->arena, config)) ||
					     floe_cli_topic_tables_only(config, opts.tables, n_tables));
	if (bronze && !topics_only && floe_pg_connect_source(&pg, config) < 0)
		floe_error_clear(); /* the loads report an unreachable source, with its cause */
	floe_doctor_warn_role_on(config, pg); /* only the bronze layer reads the source */
	check.config = config;
	if (!floe_cli_flag(ctx, "no-reconcile")) {
		opts.check = floe_reconcile_bronze_check;
		opts.check_ctx = &check;
	}
	if (bronze && !topics_only && !floe_cli_flag(ctx, "no-sync") && floe_sync_before_run(&out, config, pg) < 0)
		goto cleanup;
	opts.session = &pg; /* one session for the role check, sync's and a load's (floe_bronze_run closes it) */
	if (!floe_cli_flag(ctx, "json")) /* sync's report first; JSON stays one document */
		floe_cli_out(&out);
	floe_buf_clear(&out);
	opts.paused = floe_sync_paused_table; /* a schema change waiting for a person pauses its table */
	opts.paused_ctx = config;
	/* Kafka topics first (run_topics.c); a project with topics and no deployed plan has no source tables. */
	int k_rc = bronze && config->kafka ? floe_cli_run_topics(&kout, config, opts.tables, n_tables, NULL,
								 floe_cli_flag(ctx, "json")) : 0;
	if (topics_only)
		bronze = silver = gold = false;
	if (bronze && floe_bronze_run(&rep, config, &opts) < 0)
		goto cleanup;
	/* after bronze: silver for the tables whose bronze this run loaded and verified */
	moved = floe_xcalloc(rep.n_results + 1, sizeof(*moved));
	for (size_t i = 0; i < rep.n_results; i++)
		if (rep.results[i].state == FLOE_TABLE_LOADED && rep.results[i].checked &&
		    (rep.results[i].check_state == FLOE_RECONCILE_VERIFIED ||
		     rep.results[i].check_state == FLOE_RECONCILE_PARTIAL))
			moved[sopts.n_moved++] = rep.results[i].table;
	sopts.moved = bronze ? moved : NULL;
	sopts.run_id = bronze ? rep.run_id : NULL;
	if (silver && floe_silver_run(&srep, config, &sopts) < 0)
		goto cleanup;
	floe_gold_opts gopts = { .run_id = bronze ? rep.run_id : silver ? srep.run_id : NULL, .n_marts = n_tables,
				 .marts = n_tables ? (const char *const *)tables : NULL };
	if (gold && floe_gold_run(&grep, config, &gopts) < 0)
		goto cleanup;
	if (!topics_only || floe_cli_flag(ctx, "json"))
		render(&out, floe_cli_flag(ctx, "json"), &rep, &srep, bronze, silver, &grep);
	int p_rc = config->publish && !floe_cli_value(ctx, "layer") && !n_tables
		   ? run_publish(&out, config, floe_cli_flag(ctx, "json")) : 0;
	if (floe_cli_flag(ctx, "json") && kout.len) {
		floe_buf arr = FLOE_BUF_INIT;
		floe_buf_printf(&arr, "[%.*s]", (int)kout.len, kout.ptr);
		floe_cli_json_member_join(&out, "kafka", &arr);
		floe_buf_free(&arr);
	}
	else
		floe_cli_out(&kout);
	floe_cli_out(&out);
	/* A failed table's cause may call for more than 1: source unreachable 3, disk full 4. */
	rc = rep.exit_code >= FLOE_EXIT_UNREACHABLE ? rep.exit_code : rep.n_failed || rep.n_unproven ? 1 : 0;
	/* A silver model floe cannot run as written (unsupported Jinja, wrong columns) is the user's: 2. */
	int s_rc = srep.exit_code ? srep.exit_code : srep.n_failed ? 1 : 0;
	rc = s_rc > rc ? s_rc : rc;
	rc = floe_gold_report_exit(&grep) > rc ? floe_gold_report_exit(&grep) : rc;
	rc = p_rc > rc ? p_rc : rc;
	rc = k_rc > rc ? k_rc : rc;
	floe_alert_after_run(config, floe_schedule_now()); /* transitions to the webhook; never fails the run */
cleanup:
	for (size_t i = 0; i < n_tables; i++)
		free(tables[i]);
	floe_bronze_report_free(&rep);
	floe_silver_report_free(&srep);
	floe_gold_report_free(&grep);
	free(moved);
	floe_pg_close(pg);
	floe_config_free(config);
	floe_buf_free(&out);
	floe_buf_free(&kout);
	return rc;
}

const floe_cli_command floe_cmd_run = {
	.name = "run",
	.summary = "load the deployed plan's tables into bronze (Iceberg), one snapshot each",
	.usage = "run [--table TABLE …] [--jobs N] [--parallel N] [--tier V1|V2|V3] [--no-reconcile] [--layer bronze|silver|gold] [--full-refresh] [--no-sync] [--json] [--follow]",
	.description =
		"First syncs (`floe sync`, docs/sync.md; --no-sync skips it): safe schema changes are\n"
		"committed, breaking ones proposed as branches; a table whose rename, drop or narrowing\n"
		"waits for a person is paused (recorded, not loaded) while the others load.\n"
		"Loads every table of pipeline/lakehouse.lock.json (written by `floe generate`) into its\n"
		"bronze Iceberg table. Each table is read in one repeatable-read, read-only transaction,\n"
		"streamed with COPY … (FORMAT binary) into Parquet, and committed as one snapshot: a\n"
		"full table is replaced, an incremental one gets the rows past its watermark upserted\n"
		"by key (docs/bronze.md); the summary records the run id, the watermark and the source's\n"
		"snapshot position. Then, still in the load's source transaction, the table is\n"
		"reconciled with the source at that very snapshot (floe reconcile, V3 unless --tier);\n"
		"diverged rows are re-copied and the table reconciled again. A failed table keeps its\n"
		"previous snapshot; two loads of one table never overlap. Every outcome goes to the run\n"
		"ledger (.floe/state.db) that `floe status` reads.\n"
		"Then silver (docs/silver.md): each table's model in pipeline/dbt/models/silver/ is rendered\n"
		"and run over the bronze snapshot reconciliation verified — never a diverged or unverified\n"
		"one — tested, failing rows quarantined in silver.X__quarantine, and published in one commit\n"
		"only when every error-severity test passes (--layer runs one layer only).\n"
		"Then gold (docs/gold.md): each merged mart is built over silver, its grain and\n"
		"reconciliation tests run, and published only when they pass (--table gold.NAME: one).\n"
		"Exit 0 when every table loaded and was verified in full, 1 when one failed, diverged,\n"
		"could not be verified or was verified (partial): a column not compared, named; 3 when a\n"
		"table failed because the source could not be reached (or ended the session), 4 when the\n"
		"machine failed it (disk full, I/O) — the higher of the two when tables fail differently;\n"
		"a silver table or gold mart that fails a test, or cannot be built, counts as a failed table.\n"
		"--follow (CDC tables only, docs/cdc.md \"Following\"): one process keeps applying the\n"
		"tables' replication streams, a batch per [cdc] follow-interval-ms, each committed and\n"
		"acknowledged as `floe run` does, reconciled at most every follow-reconcile-seconds;\n"
		"SIGINT/SIGTERM finish the batch under way and exit 0; a failed batch exits as `floe run`.",
	.examples = "  floe run\n  floe run --table public.orders --table bronze.customers --jobs 2\n"
		    "  floe run --json | jq '.tables[] | select(.state == \"failed\")'\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
