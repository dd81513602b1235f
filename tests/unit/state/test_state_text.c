/*
 * test_state_text.c — the ledger keeps states as text: what floe writes for each enum
 * value is the text the name table gives (what earlier ledgers hold), it reads back as
 * the same value, and text none of floe's is an error, not a guess.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "db/db.h"
#include "state/state.h"

#include <stdlib.h>
#include <string.h>

/* The text of column `col` of the first row of `sql` in DIR/.floe/state.db, in `out`. */
static void raw_text(floe_buf *out, const char *dir, const char *sql)
{
	floe_db *db = NULL;
	floe_db_stmt *s = NULL;
	floe_db_opts opts = FLOE_DB_OPTS_INIT;
	floe_buf path = FLOE_BUF_INIT;
	floe_buf_clear(out);
	floe_buf_printf(&path, "%s/.floe/state.db", dir);
	if (floe_db_open(&db, floe_buf_cstr(&path), &opts) == 0 && floe_db_prepare(&s, db, sql) == 0 &&
	    floe_db_step(s) == 1)
		floe_buf_puts(out, floe_db_column_text(s, 0));
	floe_db_finalize(s);
	floe_db_close(db);
	floe_buf_free(&path);
}

static void raw_exec(const char *dir, const char *sql)
{
	floe_db *db = NULL;
	floe_db_opts opts = FLOE_DB_OPTS_INIT;
	floe_buf path = FLOE_BUF_INIT;
	floe_buf_printf(&path, "%s/.floe/state.db", dir);
	FLOE_CHECK(floe_db_open(&db, floe_buf_cstr(&path), &opts) == 0 && floe_db_exec(db, sql) == 0);
	floe_db_close(db);
	floe_buf_free(&path);
}

FLOE_TEST(state_text_is_the_name_tables_both_ways)
{
	char *dir = strdup("/tmp/floe-state-text-XXXXXX");
	floe_state *st = NULL;
	floe_arena *a = floe_arena_new();
	floe_buf text = FLOE_BUF_INIT;
	char run[FLOE_RUN_ID_MAX];
	FLOE_CHECK(mkdtemp(dir) != NULL);
	FLOE_CHECK(floe_state_open(&st, dir) == 0 && floe_state_run_begin(st, "run", run) == 0);
	raw_text(&text, dir, "SELECT status FROM runs");
	FLOE_CHECK_STR(floe_buf_cstr(&text), "running");
	for (int s = FLOE_TABLE_LOADING; s <= FLOE_TABLE_SKIPPED; s++) {
		floe_state_table_run t = FLOE_STATE_TABLE_RUN_INIT, *back = NULL;
		t.run_id = run;
		t.table_name = "bronze.t";
		t.layer = "bronze";
		t.state = (floe_table_state)s;
		FLOE_CHECK(floe_state_table_put(st, &t) == 0);
		raw_text(&text, dir, "SELECT state FROM table_runs");
		FLOE_CHECK_STR(floe_buf_cstr(&text), floe_table_state_name((floe_table_state)s));
		FLOE_CHECK(floe_state_table_last_with(st, a, "bronze.t", (floe_table_state)s, &back) == 0);
		FLOE_CHECK(back && back->state == (floe_table_state)s);
	}
	FLOE_CHECK(floe_state_run_end(st, run, FLOE_RUN_FAILED) == 0);
	raw_text(&text, dir, "SELECT status FROM runs");
	FLOE_CHECK_STR(floe_buf_cstr(&text), "failed");

	floe_state_reconcile r = FLOE_STATE_RECONCILE_INIT;
	floe_state_reconcile *rows = NULL;
	size_t n = 0;
	r.run_id = run;
	r.table_name = "bronze.t";
	r.tier = "V3";
	r.outcome = FLOE_RECONCILE_UNVERIFIED;
	FLOE_CHECK(floe_state_reconcile_put(st, &r) == 0);
	raw_text(&text, dir, "SELECT outcome FROM reconcile_results");
	FLOE_CHECK_STR(floe_buf_cstr(&text), "unverified");
	FLOE_CHECK(floe_state_reconcile_latest(st, a, &rows, &n) == 0 && n == 1 &&
		   rows[0].outcome == FLOE_RECONCILE_UNVERIFIED);
	floe_state_close(st);

	/* Text floe never writes (an edit, another tool): reading says so. */
	raw_exec(dir, "UPDATE table_runs SET state = 'half-loaded'");
	floe_state_table_run *latest = NULL;
	FLOE_CHECK(floe_state_open(&st, dir) == 0);
	floe_error_clear();
	FLOE_CHECK(floe_state_table_latest(st, a, &latest, &n) < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "unknown table state \"half-loaded\""));
	raw_exec(dir, "PRAGMA ignore_check_constraints = ON; UPDATE runs SET status = 'paused'");
	floe_state_run *got = NULL;
	floe_error_clear();
	FLOE_CHECK(floe_state_run_get(st, a, run, &got) < 0 && !got);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "unknown run status \"paused\""));
	floe_error_clear();
	floe_state_close(st);
	floe_buf_free(&text);
	floe_arena_free(a);
	floe_fs_remove_tree(dir);
	free(dir);
}
