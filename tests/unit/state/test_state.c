/*
 * test_state.c — the run ledger and the table locks.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "db/db.h"
#include "state/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static char *temp_project(void)
{
	char *dir = strdup("/tmp/floe-state-XXXXXX");
	return mkdtemp(dir);
}

/* A ledger in `dir`, a run begun in it (its id into `run`), and a record of `table` in that run. */
static floe_state *ledger_with_run(const char *dir, char *run, floe_state_table_run *t, const char *table,
				   const char *layer, floe_table_state state)
{
	floe_state *st = NULL;
	FLOE_CHECK(floe_state_open(&st, dir) == 0);
	FLOE_CHECK(floe_state_run_begin(st, "run", run) == 0);
	*t = (floe_state_table_run)FLOE_STATE_TABLE_RUN_INIT;
	t->run_id = run;
	t->table_name = table;
	t->layer = layer;
	t->state = state;
	return st;
}

FLOE_TEST(state_runs_and_latest_table_records)
{
	char *dir = temp_project();
	char run1[FLOE_RUN_ID_MAX], run2[FLOE_RUN_ID_MAX];
	floe_state_table_run t;
	floe_state *st = ledger_with_run(dir, run1, &t, "bronze.orders", "bronze", FLOE_TABLE_LOADED);
	t.rows = 10;
	t.started_at = "2026-11-30T00:00:00.000Z";
	FLOE_CHECK(floe_state_table_put(st, &t) == 0);
	FLOE_CHECK(floe_state_run_end(st, run1, FLOE_RUN_OK) == 0);
	FLOE_CHECK(floe_state_run_begin(st, "run", run2) == 0);
	FLOE_CHECK(strcmp(run1, run2) != 0);
	t.run_id = run2;
	t.state = FLOE_TABLE_FAILED;
	t.rows = -1;
	t.cause = "source unreachable";
	t.started_at = "2026-11-30T01:00:00.000Z";
	FLOE_CHECK(floe_state_table_put(st, &t) == 0);

	floe_arena *a = floe_arena_new();
	floe_state_table_run *rows = NULL, *last = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_state_table_latest(st, a, &rows, &n) == 0 && n == 1);
	FLOE_CHECK(rows[0].state == FLOE_TABLE_FAILED);
	FLOE_CHECK(rows[0].rows == -1);
	FLOE_CHECK(floe_state_table_last_with(st, a, "bronze.orders", FLOE_TABLE_LOADED, &last) == 0 && last);
	FLOE_CHECK(last && last->rows == 10 && strcmp(last->run_id, run1) == 0);
	floe_arena_free(a);
	floe_state_close(st);
	floe_fs_remove_tree(dir);
	free(dir);
}

/* A table's record written as it starts and again as it ends keeps its start: the end's write (no
 * start given, as every layer writes it) replaced it before, so a duration was the microseconds
 * between two stamps — and negative when a millisecond ticked between them. */
FLOE_TEST(state_a_table_record_rewritten_at_its_end_keeps_its_start)
{
	char *dir = temp_project();
	char run[FLOE_RUN_ID_MAX], finished[32];
	floe_state_table_run t;
	floe_state *st = ledger_with_run(dir, run, &t, "silver.orders", "silver", FLOE_TABLE_LOADING);
	FLOE_CHECK(floe_state_table_put(st, &t) == 0);
	floe_arena *a = floe_arena_new();
	floe_state_table_run *rows = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_state_table_latest(st, a, &rows, &n) == 0 && n == 1);
	char *started = strdup(n ? rows[0].started_at : "");
	usleep(20000);
	floe_state_now(finished, sizeof(finished));
	t.state = FLOE_TABLE_LOADED;
	t.finished_at = finished;
	FLOE_CHECK(floe_state_table_put(st, &t) == 0);
	FLOE_CHECK(floe_state_table_latest(st, a, &rows, &n) == 0 && n == 1);
	FLOE_CHECK(n == 1 && strcmp(rows[0].started_at, started) == 0); /* the start's, not the end's */
	FLOE_CHECK(n == 1 && strcmp(rows[0].started_at, rows[0].finished_at) < 0);
	FLOE_CHECK(n == 1 && rows[0].state == FLOE_TABLE_LOADED);
	/* a record written once, at its end (a skipped table): it started as it finished, not after */
	t.table_name = "silver.items";
	FLOE_CHECK(floe_state_table_put(st, &t) == 0);
	floe_state_table_run *last = NULL;
	FLOE_CHECK(floe_state_table_last_with(st, a, "silver.items", FLOE_TABLE_LOADED, &last) == 0 && last);
	FLOE_CHECK(last && strcmp(last->started_at, last->finished_at) == 0);
	t.table_name = "silver.orders";
	/* a start the caller gives is kept as given */
	t.started_at = "2026-11-30T00:00:00.000Z";
	FLOE_CHECK(floe_state_table_put(st, &t) == 0);
	FLOE_CHECK(floe_state_table_last_with(st, a, "silver.orders", FLOE_TABLE_LOADED, &last) == 0 && last);
	FLOE_CHECK(last && strcmp(last->started_at, "2026-11-30T00:00:00.000Z") == 0);
	free(started);
	floe_arena_free(a);
	floe_state_close(st);
	floe_fs_remove_tree(dir);
	free(dir);
}

FLOE_TEST(state_dead_running_runs_become_interrupted)
{
	char *dir = temp_project();
	floe_state *st = NULL;
	char run[FLOE_RUN_ID_MAX], next[FLOE_RUN_ID_MAX];
	floe_arena *a = floe_arena_new();
	floe_state_run *r = NULL;
	int fds[2];
	FLOE_CHECK(pipe(fds) == 0);
	pid_t child = fork();
	if (child == 0) { /* a run that dies without ending; it tells its id */
		floe_state *cs = NULL;
		int ok = floe_state_open(&cs, dir) == 0 && floe_state_run_begin(cs, "run", run) == 0;
		ssize_t w = write(fds[1], run, FLOE_RUN_ID_MAX);
		_exit(ok && w == FLOE_RUN_ID_MAX ? 0 : 1);
	}
	int status = 0;
	waitpid(child, &status, 0);
	FLOE_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	FLOE_CHECK(read(fds[0], run, FLOE_RUN_ID_MAX) == FLOE_RUN_ID_MAX);
	close(fds[0]);
	close(fds[1]);
	FLOE_CHECK(floe_state_open(&st, dir) == 0);
	/* still marked running, but its process is gone: status can tell before the next run */
	FLOE_CHECK(floe_state_run_get(st, a, run, &r) == 0 && r);
	FLOE_CHECK(r && r->status == FLOE_RUN_RUNNING && r->gone && r->pid == child && r->started_at);
	FLOE_CHECK(floe_state_run_begin(st, "run", next) == 0);
	FLOE_CHECK(floe_state_run_get(st, a, run, &r) == 0 && r && r->status == FLOE_RUN_INTERRUPTED && !r->gone);
	FLOE_CHECK(floe_state_run_get(st, a, next, &r) == 0 && r && r->status == FLOE_RUN_RUNNING && !r->gone);
	FLOE_CHECK(floe_state_run_get(st, a, "r-none", &r) == 0 && !r);
	floe_state_close(st);
	floe_arena_free(a);
	floe_fs_remove_tree(dir);
	free(dir);
}

FLOE_TEST(state_lock_names_the_holder_and_dies_with_it)
{
	char *dir = temp_project();
	floe_table_lock *a = NULL, *b = NULL;
	FLOE_CHECK(floe_state_lock(&a, dir, "bronze.sales__\"odd name\"", "r1") == 0);
	pid_t child = fork();
	if (child == 0) {
		floe_table_lock *c = NULL;
		int rc = floe_state_lock(&c, dir, "bronze.sales__\"odd name\"", "r2");
		const floe_error *e = floe_error_last();
		int named = rc < 0 && e && strstr(e->message, "is being loaded by run r1") != NULL;
		_exit(named ? 0 : 1);
	}
	int status = 0;
	waitpid(child, &status, 0);
	FLOE_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	floe_state_unlock(a);
	FLOE_CHECK(floe_state_lock(&b, dir, "bronze.sales__\"odd name\"", "r3") == 0);
	floe_state_unlock(b);
	floe_fs_remove_tree(dir);
	free(dir);
}

/* Processes that open a project's first ledger at once all get it: one creates the tables, the
 * others find them made when the write lock reaches them (none fails on "table already exists"). */
FLOE_TEST(state_concurrent_first_opens_all_succeed)
{
	for (int round = 0; round < 5; round++) {
		char *dir = temp_project();
		pid_t kids[6];
		int ready[2];
		FLOE_CHECK(pipe(ready) == 0);
		for (int i = 0; i < 6; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				char go;
				close(ready[1]);
				if (read(ready[0], &go, 1) < 0) /* all start together when the pipe closes */
					_exit(2);
				floe_state *st = NULL;
				int rc = floe_state_open(&st, dir);
				if (rc < 0)
					fprintf(stderr, "%s\n", floe_error_last()->message);
				floe_state_close(st);
				_exit(rc == 0 ? 0 : 1);
			}
		}
		close(ready[0]);
		close(ready[1]);
		for (int i = 0; i < 6; i++) {
			int status = 0;
			waitpid(kids[i], &status, 0);
			FLOE_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		}
		floe_fs_remove_tree(dir);
		free(dir);
	}
}

/* Point a run's ledger row at `pid` with `started_at`, then whether the ledger calls it gone. */
static int run_gone_with(const char *dir, floe_state *st, const char *run_id, pid_t pid, const char *started_at)
{
	char path[256];
	floe_db *db = NULL;
	floe_db_stmt *s = NULL;
	snprintf(path, sizeof(path), "%s/.floe/state.db", dir);
	int ok = floe_db_open(&db, path, NULL) == 0 &&
		 floe_db_prepare(&s, db, "UPDATE runs SET pid = ?, started_at = ? WHERE run_id = ?") == 0;
	if (ok) {
		floe_db_bind_int64(s, 1, pid);
		floe_db_bind_text(s, 2, started_at);
		floe_db_bind_text(s, 3, run_id);
		ok = floe_db_step(s) >= 0;
	}
	floe_db_finalize(s);
	floe_db_close(db);
	floe_arena *a = floe_arena_new();
	floe_state_run *r = NULL;
	int gone = ok && floe_state_run_get(st, a, run_id, &r) == 0 && r ? r->gone : -1;
	floe_arena_free(a);
	return gone;
}

/* A run whose pid now belongs to a process that started after the run (pid reuse after a crash or
 * a reboot) is gone; one whose process started before the run is alive. */
FLOE_TEST(state_a_reused_pid_does_not_keep_a_dead_run_running)
{
	char *dir = temp_project();
	floe_state *st = NULL;
	char run[FLOE_RUN_ID_MAX];
	FLOE_CHECK(floe_state_open(&st, dir) == 0);
	FLOE_CHECK(floe_state_run_begin(st, "run", run) == 0);
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	FLOE_CHECK(run_gone_with(dir, st, run, child, "2001-01-01T00:00:00.000Z") == 1);
	FLOE_CHECK(run_gone_with(dir, st, run, child, "2999-01-01T00:00:00.000Z") == 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	FLOE_CHECK(run_gone_with(dir, st, run, child, "2999-01-01T00:00:00.000Z") == 1);
	floe_state_close(st);
	floe_fs_remove_tree(dir);
	free(dir);
}
