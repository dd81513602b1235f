/*
 * status.c — the status model: the deployed plan joined with the run ledger.
 */
#include "monitor/status.h"
#include "config/cdc.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/sha256.h"
#include "iceberg/catalog_sql.h"
#include "base/text.h"
#include "plan/lock.h"
#include "reconcile/reconcile.h"
#include "sync/sync.h"
#include "state/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct owned {
	floe_arena *arena;
} owned;

/* The Unix second of an ISO 8601 UTC stamp ("2026-11-30T05:49:30.123Z") in *out; false if unreadable. */
static bool epoch_of(const char *iso, int64_t *out)
{
	struct tm tm = { 0 };
	if (!iso || sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			   &tm.tm_min, &tm.tm_sec) != 6)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = (int64_t)timegm(&tm);
	return true;
}

/*
 * Seconds from a stamp until now; -1 if unreadable. time() reads a coarse clock that may trail the
 * one the ledger's stamps come from by a tick, so a stamp of this very second is 0, not negative.
 */
static int64_t age_of(const char *iso)
{
	int64_t t;
	if (!epoch_of(iso, &t))
		return -1;
	int64_t age = (int64_t)time(NULL) - t;
	return age < 0 ? 0 : age;
}

/* Seconds from one ledger stamp to another ("…T05:49:30.123Z"), with milliseconds; -1 if unreadable. */
static double seconds_between(const char *from, const char *to)
{
	int64_t a, b;
	unsigned ma = 0, mb = 0;
	if (!epoch_of(from, &a) || !epoch_of(to, &b))
		return -1;
	sscanf(strchr(from, '.') ? strchr(from, '.') + 1 : "0", "%3u", &ma);
	sscanf(strchr(to, '.') ? strchr(to, '.') + 1 : "0", "%3u", &mb);
	return (double)(b - a) + ((double)mb - (double)ma) / 1000.0;
}

/* The metrics of the newest record: what that run took, wrote, read; silver's test counts. */
static void fill_last(floe_status_row *row, const floe_state_table_run *last)
{
	row->last_duration_seconds = last ? seconds_between(last->started_at, last->finished_at) : -1;
	row->last_rows_written = last ? last->rows : -1;
	row->last_bytes = last ? last->bytes : -1;
	row->tests_failed = last ? last->tests_failed : -1;
	row->tests_warned = last ? last->tests_warned : -1;
	row->quarantined = last ? last->quarantined : -1;
	row->tests_passed = last ? last->tests_passed : -1;
}

static bool has_drift(const char *pipeline, const floe_lock_table *t)
{
	for (size_t i = 0; i < t->n_files; i++) {
		floe_buf text = FLOE_BUF_INIT, path = FLOE_BUF_INIT;
		char hex[FLOE_SHA256_HEX_LEN + 1] = "";
		floe_buf_printf(&path, "%s/%s", pipeline, t->files[i].path);
		bool drift = false;
		if (floe_fs_exists(path.ptr) && floe_fs_read_file(&text, path.ptr) == 0) {
			floe_sha256_hex(hex, text.ptr ? text.ptr : "", text.len);
			drift = strcmp(hex, t->files[i].sha256) != 0;
		}
		floe_error_clear();
		floe_buf_free(&text);
		floe_buf_free(&path);
		if (drift)
			return true;
	}
	return false;
}

static const floe_state_table_run *latest_of(const floe_state_table_run *runs, size_t n, const char *table)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(runs[i].table_name, table) == 0)
			return &runs[i];
	return NULL;
}

/*
 * A record left `loading` by a run that ended, or whose process is gone (kill -9, a crash: the
 * ledger still says running), was interrupted; *run is that run when the ledger has it.
 */
static floe_table_state state_of(floe_state *st, floe_arena *a, const floe_state_table_run *r, floe_state_run **run)
{
	*run = NULL;
	if (!r)
		return FLOE_TABLE_NEVER_LOADED;
	if (r->state != FLOE_TABLE_LOADING)
		return r->state;
	if (floe_state_run_get(st, a, r->run_id, run) < 0) {
		floe_error_clear();
		return FLOE_TABLE_LOADING;
	}
	return !*run || (*run)->status != FLOE_RUN_RUNNING || (*run)->gone ? FLOE_TABLE_INTERRUPTED : FLOE_TABLE_LOADING;
}

static const char *interrupted_facts(floe_arena *a, const floe_state_table_run *last, const floe_state_run *run)
{
	const char *after = "the table is at its previous snapshot; the next run loads it again";
	if (!run)
		return floe_arena_printf(a, "run %s ended before the load finished; %s", last->run_id, after);
	return floe_arena_printf(a, "run %s (pid %lld, started at %s) %s before the load finished; %s", run->run_id,
				 (long long)run->pid, run->started_at, run->gone ? "was killed or crashed" : "ended",
				 after);
}

static const floe_state_reconcile *reconcile_of(const floe_state_reconcile *all, size_t n, const char *table)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i].table_name, table) == 0)
			return &all[i];
	return NULL;
}

/*
 * The newest reconciliation, and the state it gives a loaded table: a result about
 * the snapshot the last good load committed, made by that load's run (the check
 * after every load) or after it (`floe reconcile`), decides.
 */
static void fill_reconcile(floe_status_row *row, const floe_state_reconcile *rec, const floe_state_table_run *last)
{
	row->reconcile.control_fired = -1;
	row->reconcile.diverged_buckets = -1;
	if (!rec)
		return;
	row->reconcile.done = true;
	row->reconcile.outcome = rec->outcome;
	row->reconcile.tier = rec->tier;
	row->reconcile.run_id = rec->run_id;
	row->reconcile.finished_at = rec->finished_at;
	row->reconcile.snapshot_id = rec->snapshot_id;
	row->reconcile.diverged_buckets = rec->diverged_buckets;
	row->reconcile.control = rec->control;
	row->reconcile.control_fired = rec->control_fired;
	row->reconcile.detail = rec->detail;
	row->reconcile.error = rec->error;
	row->reconcile.current = row->snapshot_id && rec->snapshot_id && strcmp(row->snapshot_id, rec->snapshot_id) == 0;
	bool same_run = last && last->run_id && rec->run_id && strcmp(last->run_id, rec->run_id) == 0;
	if (!row->reconcile.current || row->load != FLOE_TABLE_LOADED || !last || !last->finished_at ||
	    (!same_run && (!rec->started_at || strcmp(rec->started_at, last->finished_at) < 0)))
		return;
	bool failed = rec->outcome == FLOE_RECONCILE_FAILED;
	bool partial = rec->excluded && rec->outcome == FLOE_RECONCILE_VERIFIED; /* never plain verified */
	row->decided = true;
	row->verdict = failed ? FLOE_RECONCILE_UNVERIFIED : partial ? FLOE_RECONCILE_PARTIAL : rec->outcome;
	row->facts = failed ? rec->error : rec->detail;
}

/* A result that came after a repair in its run: the one before it, the repair, this one. */
static void fill_history(floe_status_row *row, floe_arena *a, floe_state *st, const floe_state_reconcile *rec)
{
	floe_state_reconcile *before = NULL;
	if (!rec || rec->attempt == 0)
		return;
	if (floe_state_reconcile_before(st, a, rec, &before) < 0) {
		floe_error_clear();
		return;
	}
	if (!before)
		return;
	row->reconcile.history = floe_arena_printf(a, "%s (%s) → repaired → %s", floe_reconcile_outcome_name(before->outcome),
						   before->detail ? before->detail : "", floe_reconcile_outcome_name(rec->outcome));
	if (row->facts == rec->detail)
		row->facts = floe_arena_printf(a, "%s; %s", row->reconcile.history, rec->detail ? rec->detail : "");
}

/* The CDC slot of a bronze table from the ledger, and its warning against [cdc] max-retained-wal. */
static void fill_cdc(floe_status_row *row, floe_arena *a, floe_state *st, const floe_config *config)
{
	floe_state_cdc c;
	int64_t limit = config->cdc ? config->cdc->max_retained_wal : (int64_t)1 << 30;
	if (floe_state_cdc_get(st, a, row->table, &c) != 1) {
		floe_error_clear();
		return;
	}
	row->cdc.on = true;
	row->cdc.slot = c.slot;
	row->cdc.lsn = c.lsn;
	row->cdc.wal_status = c.wal_status;
	row->cdc.lag_bytes = c.lag_bytes;
	row->cdc.retained_bytes = c.retained_bytes;
	row->cdc.lag_seconds = age_of(c.caught_up_at);
	if (strcmp(c.wal_status, "lost") == 0 || strcmp(c.wal_status, "unreserved") == 0)
		row->cdc.warning = floe_arena_printf(a, "slot \"%s\" is %s: the server removes or may remove WAL it "
						     "needs; the next run reloads the table in full", c.slot, c.wal_status);
	else if (c.retained_bytes > limit)
		row->cdc.warning = floe_arena_printf(a, "slot \"%s\" retains %lld bytes of WAL, more than [cdc] "
						     "max-retained-wal (%lld): run `floe run` more often, or drop the "
						     "slot if the table left CDC", c.slot, (long long)c.retained_bytes,
						     (long long)limit);
}

static void fill_row(floe_status_row *row, floe_arena *a, floe_state *st, const floe_lock_table *t,
		     const floe_state_table_run *last, const char *pipeline)
{
	floe_state_table_run *ok = NULL;
	floe_state_run *run = NULL;
	row->table = t->bronze;
	row->layer = "bronze";
	row->source = floe_arena_printf(a, "%s.%s", t->schema, t->name);
	row->mode = t->mode;
	row->load = state_of(st, a, last, &run);
	row->last_run = last ? last->run_id : NULL;
	row->finished_at = last ? last->finished_at : NULL;
	row->rows = -1;
	row->age_seconds = -1;
	floe_state_table_last_with(st, a, t->bronze, FLOE_TABLE_LOADED, &ok);
	floe_error_clear();
	if (ok) {
		row->rows = ok->rows;
		row->age_seconds = age_of(ok->finished_at);
		row->snapshot_id = ok->snapshot_id;
	}
	row->drift = has_drift(pipeline, t);
	row->load_detail = last ? last->detail : NULL;
	fill_last(row, last);
	if (row->load == FLOE_TABLE_FAILED) {
		row->facts = last->error;
		row->cause = last->cause;
	} else if (row->load == FLOE_TABLE_INTERRUPTED) {
		row->facts = interrupted_facts(a, last, run);
	} else if (row->load == FLOE_TABLE_NEVER_LOADED) {
		row->facts = t->mode == FLOE_LOAD_REFUSED ? t->reason : "run `floe run` to load it";
	} else {
		row->facts = last->detail ? last->detail : t->reason;
	}
}

/*
 * The silver row of `t` (layer silver): its newest ledger record — state, and the facts behind
 * it: rows, the bronze snapshot read, tests passed/failed/warned, rows quarantined, or the
 * failed test with its sample keys — and rows and freshness of its last good build.
 */
static void fill_built_row(floe_status_row *row, floe_arena *a, floe_state *st, const char *name, const char *layer,
			   const char *source, floe_load_mode mode, const floe_state_table_run *runs, size_t n_runs)
{
	const floe_state_table_run *last = latest_of(runs, n_runs, name);
	floe_state_table_run *ok = NULL;
	floe_state_run *run = NULL;
	*row = (floe_status_row){ .table = name, .layer = layer, .source = source, .mode = mode, .rows = -1,
				  .age_seconds = -1 };
	row->reconcile.control_fired = -1;
	row->reconcile.diverged_buckets = -1;
	row->load = state_of(st, a, last, &run);
	row->last_run = last ? last->run_id : NULL;
	row->finished_at = last ? last->finished_at : NULL;
	floe_state_table_last_with(st, a, name, FLOE_TABLE_LOADED, &ok);
	floe_error_clear();
	if (ok) {
		row->rows = ok->rows;
		row->age_seconds = age_of(ok->finished_at);
		row->snapshot_id = ok->snapshot_id;
	}
	row->facts = !last ? "run `floe run` to build it" : last->error ? last->error : last->detail;
	fill_last(row, last);
	row->cause = last ? last->cause : NULL;
}

static void fill_silver_row(floe_status_row *row, floe_arena *a, floe_state *st, const floe_lock_table *t,
			    const floe_state_table_run *runs, size_t n_runs)
{
	fill_built_row(row, a, st, floe_arena_strdup(a, t->silver->table), "silver", floe_arena_strdup(a, t->bronze),
		       t->mode, runs, n_runs);
}

/* A merged gold mart's row (layer gold): its newest build — state, rows, tests and which failed. */
static void fill_gold_row(floe_status_row *row, floe_arena *a, floe_state *st, const floe_lock_mart *m,
			  const floe_state_table_run *runs, size_t n_runs)
{
	fill_built_row(row, a, st, floe_arena_strdup(a, m->table), "gold", floe_arena_strdup(a, m->model),
		       FLOE_LOAD_FULL, runs, n_runs);
}

/*
 * A catalog that does not open (deleted, damaged) leaves no table readable, whatever
 * the ledger says: every table that was loaded is `catalog missing` instead.
 */
static void check_catalog(floe_status *out, floe_arena *a, const floe_config *config)
{
	floe_catalog_sql *cat = NULL;
	if (floe_catalog_sql_open(&cat, floe_config_catalog_path(a, config), false) == 0) {
		floe_catalog_sql_close(cat);
		return;
	}
	const floe_error *e = floe_error_last();
	out->catalog_error = floe_arena_strdup(a, e && e->message ? e->message : "the catalog does not open");
	out->catalog_hint = e && e->hint ? floe_arena_strdup(a, e->hint) : NULL;
	floe_error_clear();
	for (size_t i = 0; i < out->n_rows; i++) {
		floe_status_row *row = &out->rows[i];
		if (!row->snapshot_id)
			continue;
		out->n_diverged -= row->decided && row->verdict == FLOE_RECONCILE_DIVERGED;
		out->n_unverified -= row->decided && row->verdict == FLOE_RECONCILE_UNVERIFIED;
		out->n_failed -= !row->decided && row->load == FLOE_TABLE_FAILED;
		out->n_interrupted -= !row->decided && row->load == FLOE_TABLE_INTERRUPTED;
		row->catalog_missing = true;
		row->facts = out->catalog_error;
		row->cause = NULL; /* the fix is one for all tables: printed once, below them */
		out->n_catalog_missing++;
	}
}

/* When every bucket was last proven; a rotating table's facts say it (docs/parallel-load.md). */
static void fill_full_proof(floe_status_row *row, floe_arena *a, floe_state *st, const char *table)
{
	floe_state_coverage c;
	if (floe_state_coverage_get(st, a, table, &c) < 0) {
		floe_error_clear();
		return;
	}
	row->reconcile.last_full_proof = c.last_full_at;
	if (c.full_every > 1 && row->facts && row->facts == row->reconcile.detail && !strstr(row->facts, "last full proof"))
		row->facts = floe_arena_printf(a, "%s; last full proof %s", row->facts,
					       c.last_full_at ? c.last_full_at : "not yet");
}

static int build(floe_status *out, const floe_config *config, bool read_only)
{
	floe_lock *lock = NULL;
	floe_state *st = NULL;
	floe_state_table_run *runs = NULL;
	floe_state_reconcile *recs = NULL;
	size_t n_runs = 0, n_recs = 0;
	int error = -1;
	memset(out, 0, sizeof(*out));
	owned *own = floe_xcalloc(1, sizeof(*own));
	out->owned = own;
	own->arena = floe_arena_new();
	const char *pipeline = floe_config_pipeline_dir(own->arena, config);
	if (floe_lock_load(&lock, floe_config_lock_path(own->arena, config)) < 0) {
		floe_error_hint("Nothing is deployed yet: run `floe plan`, then `floe generate`.");
		goto cleanup;
	}
	if ((read_only ? floe_state_open_read(&st, config->project_dir) : floe_state_open(&st, config->project_dir)) < 0 ||
	    floe_state_table_latest(st, own->arena, &runs, &n_runs) < 0 ||
	    floe_state_reconcile_latest(st, own->arena, &recs, &n_recs) < 0)
		goto cleanup;
	size_t n = floe_lock_count(lock);
	out->rows = floe_arena_alloc(own->arena, (2 * n + floe_lock_mart_count(lock) + 1) * sizeof(*out->rows));
	for (size_t i = 0; i < n; i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		if (t->mode == FLOE_LOAD_REMOVED)
			continue;
		floe_status_row *row = &out->rows[out->n_rows++];
		/* Copy what the lock owns: the lock is freed below. */
		floe_lock_table copy = *t;
		/* A table whose bronze name another owns has records under its source name (bronze/run.c). */
		copy.bronze = t->owner ? floe_arena_printf(own->arena, "%s.%s", t->schema, t->name)
				       : floe_arena_strdup(own->arena, t->bronze);
		copy.reason = t->reason ? floe_arena_strdup(own->arena, t->reason) : "";
		copy.schema = floe_arena_strdup(own->arena, t->schema);
		copy.name = floe_arena_strdup(own->arena, t->name);
		const floe_state_table_run *last = latest_of(runs, n_runs, copy.bronze);
		fill_row(row, own->arena, st, &copy, last, pipeline);
		fill_cdc(row, own->arena, st, config);
		const floe_state_reconcile *rec = reconcile_of(recs, n_recs, copy.bronze);
		fill_reconcile(row, rec, last);
		fill_history(row, own->arena, st, rec);
		fill_full_proof(row, own->arena, st, copy.bronze);
		const char *paused = floe_sync_paused(own->arena, config, copy.schema, copy.name);
		if (paused) { /* a schema change waits for a person: that decides, whatever the last load did */
			row->load = FLOE_TABLE_PAUSED;
			row->decided = false;
			row->facts = paused;
			row->cause = NULL;
		}
		out->n_failed += !row->decided && row->load == FLOE_TABLE_FAILED;
		out->n_interrupted += !row->decided && row->load == FLOE_TABLE_INTERRUPTED;
		out->n_diverged += row->decided && row->verdict == FLOE_RECONCILE_DIVERGED;
		out->n_unverified += row->decided && row->verdict == FLOE_RECONCILE_UNVERIFIED;
		out->n_partial += row->decided && row->verdict == FLOE_RECONCILE_PARTIAL;
		out->n_drift += row->drift;
		if (t->silver && !t->owner && t->mode != FLOE_LOAD_REFUSED) {
			fill_silver_row(&out->rows[out->n_rows], own->arena, st, t, runs, n_runs);
			out->n_failed += out->rows[out->n_rows].load == FLOE_TABLE_FAILED;
			out->n_interrupted += out->rows[out->n_rows++].load == FLOE_TABLE_INTERRUPTED;
		}
	}
	for (size_t i = 0; i < floe_lock_mart_count(lock); i++) {
		fill_gold_row(&out->rows[out->n_rows], own->arena, st, floe_lock_mart_at(lock, i), runs, n_runs);
		out->n_failed += out->rows[out->n_rows++].load == FLOE_TABLE_FAILED;
	}
	check_catalog(out, own->arena, config);
	error = 0;
cleanup:
	floe_state_close(st);
	floe_lock_free(lock);
	return error;
}

int floe_status_build(floe_status *out, const floe_config *config)
{
	return build(out, config, false);
}

int floe_status_build_read(floe_status *out, const floe_config *config)
{
	return build(out, config, true);
}

const char *floe_status_state_name(const floe_status_row *row)
{
	if (row->catalog_missing)
		return "catalog missing";
	/* silver and gold builds share the ledger's states */
	bool silver = row->layer && (strcmp(row->layer, "silver") == 0 || strcmp(row->layer, "gold") == 0);
	if (silver && row->load == FLOE_TABLE_LOADED)
		return "built";
	if (silver && row->load == FLOE_TABLE_NEVER_LOADED)
		return "never built";
	return row->decided ? floe_reconcile_outcome_name(row->verdict) : floe_table_state_name(row->load);
}

void floe_status_free(floe_status *status)
{
	owned *own = status ? status->owned : NULL;
	if (!own)
		return;
	floe_arena_free(own->arena);
	free(own);
	status->owned = NULL;
}

static void age_text(floe_buf *out, int64_t s)
{
	if (s < 0)
		floe_buf_puts(out, "never");
	else if (s < 120)
		floe_buf_printf(out, "%llds ago", (long long)s);
	else if (s < 7200)
		floe_buf_printf(out, "%lldm ago", (long long)(s / 60));
	else if (s < 172800)
		floe_buf_printf(out, "%lldh ago", (long long)(s / 3600));
	else
		floe_buf_printf(out, "%lldd ago", (long long)(s / 86400));
}

int floe_status_render_text(floe_buf *out, const floe_status *s)
{
	floe_buf_printf(out, "%-34s %-12s %-13s %12s  %-10s %s\n", "table", "mode", "state", "rows", "fresh", "facts");
	for (size_t i = 0; i < s->n_rows; i++) {
		const floe_status_row *r = &s->rows[i];
		floe_buf age = FLOE_BUF_INIT;
		age_text(&age, r->age_seconds);
		floe_text_put_printable_padded(out, r->table, 34);
		const char *state = floe_status_state_name(r);
		floe_buf_printf(out, " %-12s %-13s ", floe_load_mode_name(r->mode), state);
		size_t over = strlen(state) > 13 ? strlen(state) - 13 : 0; /* "verified (partial)" */
		int width = over < 11 ? 12 - (int)over : 1;
		if (r->rows >= 0)
			floe_buf_printf(out, "%*lld", width, (long long)r->rows);
		else
			floe_buf_printf(out, "%*s", width, "-");
		floe_buf_printf(out, "  %-10s ", floe_buf_cstr(&age));
		floe_text_put_printable(out, r->facts ? r->facts : "");
		floe_buf_printf(out, "%s\n", r->drift ? " [drift: pipeline file edited by hand]" : "");
		if (r->cdc.on) {
			floe_buf_printf(out, "%34s cdc: slot %s at %s, lag %lld bytes, %llds; retains %lld bytes of WAL\n", "",
					r->cdc.slot, r->cdc.lsn, (long long)r->cdc.lag_bytes, (long long)r->cdc.lag_seconds,
					(long long)r->cdc.retained_bytes);
			if (r->cdc.warning)
				floe_buf_printf(out, "%34s warning: %s\n", "", r->cdc.warning);
		}
		if (r->cause) {
			floe_buf_printf(out, "%34s probable cause: ", "");
			floe_text_put_printable(out, r->cause);
			floe_buf_putc(out, '\n');
		}
		floe_buf_free(&age);
	}
	if (s->catalog_error)
		floe_buf_printf(out, "catalog: %s\n%s%s%s", s->catalog_error, s->catalog_hint ? "  hint: " : "",
				s->catalog_hint ? s->catalog_hint : "", s->catalog_hint ? "\n" : "");
	floe_buf_printf(out, "%zu tables, %zu failed, %zu diverged, %zu unverified, ", s->n_rows, s->n_failed,
			s->n_diverged, s->n_unverified);
	if (s->n_partial)
		floe_buf_printf(out, "%zu %s, ", s->n_partial, floe_reconcile_outcome_name(FLOE_RECONCILE_PARTIAL));
	if (s->n_interrupted)
		floe_buf_printf(out, "%zu interrupted, ", s->n_interrupted);
	return floe_buf_printf(out, "%zu with drift\n", s->n_drift);
}

static void put_reconcile_json(floe_buf *out, const floe_status_row *r)
{
	if (!r->reconcile.done) {
		floe_buf_puts(out, ",\"reconcile\":null");
		return;
	}
	floe_buf_puts(out, ",\"reconcile\":{");
	floe_json_put_member(out, "outcome", floe_reconcile_outcome_name(r->reconcile.outcome));
	floe_json_put_member(out, "tier", r->reconcile.tier);
	floe_json_put_member(out, "run_id", r->reconcile.run_id);
	floe_json_put_member(out, "finished_at", r->reconcile.finished_at);
	floe_json_put_member(out, "snapshot_id", r->reconcile.snapshot_id);
	floe_buf_printf(out, ",\"current\":%s,\"diverged_buckets\":%lld", r->reconcile.current ? "true" : "false",
			(long long)r->reconcile.diverged_buckets);
	floe_json_put_member(out, "control", r->reconcile.control);
	floe_buf_printf(out, ",\"control_fired\":%s",
			r->reconcile.control_fired < 0 ? "null" : r->reconcile.control_fired ? "true" : "false");
	floe_json_put_member(out, "detail", r->reconcile.detail);
	floe_json_put_member(out, "error", r->reconcile.error);
	floe_json_put_member(out, "history", r->reconcile.history);
	floe_json_put_member(out, "last_full_proof", r->reconcile.last_full_proof);
	floe_buf_putc(out, '}');
}

static void put_count(floe_buf *out, const char *key, int64_t v)
{
	if (v < 0)
		floe_buf_printf(out, ",\"%s\":null", key);
	else
		floe_buf_printf(out, ",\"%s\":%lld", key, (long long)v);
}

/* The newest run's numbers (what /metrics serves) and its tests; null when unknown (or none ran). */
static void put_last_run_json(floe_buf *out, const floe_status_row *r)
{
	if (r->last_duration_seconds < 0)
		floe_buf_puts(out, ",\"last_run_duration_seconds\":null");
	else
		floe_buf_printf(out, ",\"last_run_duration_seconds\":%.3f", r->last_duration_seconds);
	put_count(out, "last_run_rows_written", r->last_rows_written);
	put_count(out, "last_run_bytes", r->last_bytes);
	put_count(out, "tests_passed", r->tests_passed);
	put_count(out, "tests_failed", r->tests_failed);
	put_count(out, "tests_warned", r->tests_warned);
	put_count(out, "quarantined_rows", r->quarantined);
}

int floe_status_render_json(floe_buf *out, const floe_status *s)
{
	floe_buf_puts(out, "{\"tables\":[");
	for (size_t i = 0; i < s->n_rows; i++) {
		const floe_status_row *r = &s->rows[i];
		floe_buf_puts(out, i ? ",{" : "{");
		floe_json_put_member(out, "table", r->table);
		floe_json_put_member(out, "layer", r->layer);
		floe_json_put_member(out, "source", r->source);
		floe_json_put_member(out, "mode", floe_load_mode_name(r->mode));
		floe_json_put_member(out, "state", floe_status_state_name(r));
		floe_json_put_member(out, "last_run", r->last_run);
		floe_json_put_member(out, "finished_at", r->finished_at);
		floe_json_put_member(out, "snapshot_id", r->snapshot_id);
		floe_buf_printf(out, ",\"rows\":%lld,\"age_seconds\":%lld,\"drift\":%s", (long long)r->rows,
				(long long)r->age_seconds, r->drift ? "true" : "false");
		floe_json_put_member(out, "facts", r->facts);
		floe_json_put_member(out, "load_detail", r->load_detail);
		floe_json_put_member(out, "cause", r->cause);
		put_last_run_json(out, r);
		put_reconcile_json(out, r);
		if (r->cdc.on) {
			floe_buf_puts(out, ",\"cdc\":{");
			floe_json_put_member(out, "slot", r->cdc.slot);
			floe_json_put_member(out, "lsn", r->cdc.lsn);
			floe_json_put_member(out, "wal_status", r->cdc.wal_status);
			floe_buf_printf(out, ",\"lag_bytes\":%lld,\"lag_seconds\":%lld,\"retained_bytes\":%lld",
					(long long)r->cdc.lag_bytes, (long long)r->cdc.lag_seconds,
					(long long)r->cdc.retained_bytes);
			floe_json_put_member(out, "warning", r->cdc.warning);
			floe_buf_putc(out, '}');
		}
		floe_buf_putc(out, '}');
	}
	floe_buf_puts(out, "]");
	floe_json_put_member(out, "catalog_error", s->catalog_error);
	floe_json_put_member(out, "catalog_hint", s->catalog_hint);
	return floe_buf_printf(out, ",\"catalog_missing\":%zu,\"failed\":%zu,\"diverged\":%zu,\"unverified\":%zu,"
			       "\"partial\":%zu,\"interrupted\":%zu,\"drift\":%zu}\n",
			       s->n_catalog_missing, s->n_failed, s->n_diverged, s->n_unverified, s->n_partial,
			       s->n_interrupted, s->n_drift);
}
