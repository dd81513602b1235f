/*
 * reconcile.c — reconciliation results in the run ledger: per run and table the
 * tier, the outcome, both sides' numbers (JSON), the diverged buckets and keys,
 * the planted control and whether it was caught, and how long it took.
 */
#include "state/state_int.h"
#include "base/arena.h"
#include "base/error.h"

#include <string.h>

#define RESULT_COLUMNS                                                                            \
	"run_id, table_name, tier, outcome, snapshot_id, source_rows, lake_rows, control, control_fired," \
	" diverged_buckets, diverged_keys, numbers, detail, error, duration_ms, started_at, finished_at, attempt," \
	" excluded"

int floe_state_reconcile_put(floe_state *st, const floe_state_reconcile *r)
{
	floe_db_stmt *s = NULL;
	char now[32];
	floe_state_now(now, sizeof(now));
	if (floe_db_prepare(&s, st->db, "INSERT OR REPLACE INTO reconcile_results (" RESULT_COLUMNS
					") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)") < 0)
		return -1;
	const char *head[] = { r->run_id, r->table_name, r->tier, floe_reconcile_outcome_name(r->outcome), r->snapshot_id };
	for (int i = 0; i < 5; i++)
		floe_db_bind_text(s, i + 1, head[i]);
	floe_state_bind_count(s, 6, r->source_rows);
	floe_state_bind_count(s, 7, r->lake_rows);
	floe_db_bind_text(s, 8, r->control);
	floe_state_bind_count(s, 9, r->control_fired);
	floe_state_bind_count(s, 10, r->diverged_buckets);
	const char *tail[] = { r->diverged_keys, r->numbers, r->detail, r->error };
	for (int i = 0; i < 4; i++)
		floe_db_bind_text(s, i + 11, tail[i]);
	floe_state_bind_count(s, 15, r->duration_ms);
	floe_db_bind_text(s, 16, r->started_at ? r->started_at : now);
	floe_db_bind_text(s, 17, r->finished_at);
	floe_state_bind_count(s, 18, r->attempt);
	floe_db_bind_text(s, 19, r->excluded);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

/* One result; -1 (error set) when its outcome is none floe writes. */
static int read_result(floe_arena *a, floe_db_stmt *s, floe_state_reconcile *r)
{
	const char **head[] = { &r->run_id, &r->table_name, &r->tier };
	for (int i = 0; i < 3; i++)
		*head[i] = floe_state_column_dup(a, s, i);
	r->snapshot_id = floe_state_column_dup(a, s, 4);
	if (floe_reconcile_outcome_parse(&r->outcome, floe_db_column_text(s, 3)) < 0)
		return floe_error_context("while reading the run ledger's reconciliation of %s", r->table_name);
	r->source_rows = floe_state_column_count(s, 5);
	r->lake_rows = floe_state_column_count(s, 6);
	r->control = floe_state_column_dup(a, s, 7);
	r->control_fired = (int)floe_state_column_count(s, 8);
	r->diverged_buckets = floe_state_column_count(s, 9);
	const char **tail[] = { &r->diverged_keys, &r->numbers, &r->detail, &r->error };
	for (int i = 0; i < 4; i++)
		*tail[i] = floe_state_column_dup(a, s, i + 10);
	r->duration_ms = floe_state_column_count(s, 14);
	r->started_at = floe_state_column_dup(a, s, 15);
	r->finished_at = floe_state_column_dup(a, s, 16);
	r->attempt = (int)floe_state_column_count(s, 17);
	r->excluded = floe_state_column_dup(a, s, 18);
	return 0;
}

/* Step `s` to its end, every row read into *out (in `arena`); finalizes `s`. */
static int collect_results(floe_state_reconcile **out, size_t *n_out, floe_arena *arena, floe_db_stmt *s)
{
	floe_state_reconcile *rows = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = floe_db_step(s)) == 1)
		if (read_result(arena, s, FLOE_ARENA_PUSH(arena, rows, n, cap)) < 0) {
			rc = -1;
			break;
		}
	floe_db_finalize(s);
	if (rc < 0)
		return -1;
	*out = rows;
	*n_out = n;
	return 0;
}

int floe_state_reconcile_latest(floe_state *st, floe_arena *arena, floe_state_reconcile **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	*n_out = 0;
	if (floe_db_prepare(&s, st->db,
			    "SELECT " RESULT_COLUMNS " FROM reconcile_results r WHERE started_at = "
			    "(SELECT max(started_at) FROM reconcile_results u WHERE u.table_name = r.table_name) "
			    "ORDER BY table_name") < 0)
		return -1;
	return collect_results(out, n_out, arena, s);
}

int floe_state_reconcile_history(floe_state *st, floe_arena *arena, const char *table_name, int limit,
				 floe_state_reconcile **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	*n_out = 0;
	if (floe_db_prepare(&s, st->db,
			    "SELECT " RESULT_COLUMNS " FROM reconcile_results WHERE table_name = ? "
			    "ORDER BY started_at DESC, run_id DESC, attempt DESC LIMIT ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, table_name);
	floe_db_bind_int64(s, 2, limit);
	return collect_results(out, n_out, arena, s);
}

int floe_state_reconcile_count(floe_state *st, const char *table_name, int64_t *out)
{
	floe_db_stmt *s = NULL;
	*out = 0;
	if (floe_db_prepare(&s, st->db, "SELECT count(*) FROM reconcile_results WHERE table_name = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, table_name);
	int rc = floe_db_step(s);
	if (rc == 1)
		*out = floe_db_column_int64(s, 0);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_reconcile_before(floe_state *st, floe_arena *arena, const floe_state_reconcile *r,
				floe_state_reconcile **out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	if (floe_db_prepare(&s, st->db, "SELECT " RESULT_COLUMNS " FROM reconcile_results "
				"WHERE run_id = ? AND table_name = ? AND attempt < ? ORDER BY attempt DESC LIMIT 1") < 0)
		return -1;
	floe_db_bind_text(s, 1, r->run_id);
	floe_db_bind_text(s, 2, r->table_name);
	floe_state_bind_count(s, 3, r->attempt);
	int rc = floe_db_step(s);
	if (rc == 1) {
		*out = floe_arena_alloc(arena, sizeof(**out));
		rc = read_result(arena, s, *out);
		if (rc < 0)
			*out = NULL;
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}
