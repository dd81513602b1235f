/*
 * test_state_read.c — the read-only ledger (floe_state_open_read) and the per-table history
 * readers the MCP tools use: nothing created, newest first, limited.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "state/state.h"

#include <stdlib.h>
#include <string.h>

static void put_load(floe_state *st, const char *run, const char *started, floe_table_state state)
{
	floe_state_table_run t = FLOE_STATE_TABLE_RUN_INIT;
	t.run_id = run;
	t.table_name = "bronze.orders";
	t.layer = "bronze";
	t.state = state;
	t.started_at = started;
	FLOE_CHECK(floe_state_table_put(st, &t) == 0);
}

FLOE_TEST(state_open_read_creates_nothing_and_reads_history_newest_first)
{
	char *dir = mkdtemp(strdup("/tmp/floe-state-read-XXXXXX"));
	char path[512];
	floe_state *st = NULL;
	FLOE_CHECK(floe_state_open_read(&st, dir) < 0 && st == NULL); /* no ledger: an error, no file */
	floe_error_clear();
	snprintf(path, sizeof(path), "%s/.floe", dir);
	FLOE_CHECK(!floe_fs_exists(path));

	FLOE_CHECK(floe_state_open(&st, dir) == 0);
	char runs_id[3][FLOE_RUN_ID_MAX];
	const char *started[] = { "2026-11-30T00:00:00.000Z", "2026-11-30T01:00:00.000Z", "2026-11-30T02:00:00.000Z" };
	for (int i = 0; i < 3; i++) {
		FLOE_CHECK(floe_state_run_begin(st, "run", runs_id[i]) == 0);
		put_load(st, runs_id[i], started[i], i == 1 ? FLOE_TABLE_FAILED : FLOE_TABLE_LOADED);
		FLOE_CHECK(floe_state_run_end(st, runs_id[i], FLOE_RUN_OK) == 0);
	}
	floe_state_close(st);

	FLOE_CHECK(floe_state_open_read(&st, dir) == 0);
	floe_arena *a = floe_arena_new();
	floe_state_table_run *runs = NULL;
	floe_state_reconcile *recs = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_state_table_history(st, a, "bronze.orders", 2, &runs, &n) == 0 && n == 2);
	FLOE_CHECK(n == 2 && strcmp(runs[0].run_id, runs_id[2]) == 0 && strcmp(runs[1].run_id, runs_id[1]) == 0);
	FLOE_CHECK(n == 2 && runs[1].state == FLOE_TABLE_FAILED);
	FLOE_CHECK(floe_state_reconcile_history(st, a, "bronze.orders", 5, &recs, &n) == 0 && n == 0);
	floe_arena_free(a);
	floe_state_close(st);
	snprintf(path, sizeof(path), "%s/.floe/state.db-wal", dir);
	FLOE_CHECK(!floe_fs_exists(path)); /* read immutable: no -wal, no -shm */
	snprintf(path, sizeof(path), "%s/.floe/state.db-shm", dir);
	FLOE_CHECK(!floe_fs_exists(path));
	floe_fs_remove_tree(dir);
	free(dir);
}
