/*
 * ledger.c — the run ledger in SQLite (through src/db).
 */
#include "state/state_int.h"
#include "base/arena.h"
#include "base/civil.h"
#include "base/error.h"
#include "base/fs.h"
#include "config/config.h"
#include "db/db.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define LEDGER_VERSION 8

static const char *schema_v1 =
	"CREATE TABLE runs ("
	" run_id TEXT PRIMARY KEY,"
	" command TEXT NOT NULL,"
	" pid INTEGER NOT NULL,"
	" started_at TEXT NOT NULL,"
	" finished_at TEXT,"
	" status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'interrupted')));"
	"CREATE TABLE table_runs ("
	" run_id TEXT NOT NULL REFERENCES runs (run_id),"
	" table_name TEXT NOT NULL,"
	" layer TEXT NOT NULL,"
	" source TEXT, mode TEXT, state TEXT NOT NULL,"
	" rows INTEGER, bytes INTEGER, files INTEGER,"
	" snapshot_id TEXT, watermark TEXT, source_position TEXT,"
	" detail TEXT, error TEXT, cause TEXT,"
	" started_at TEXT NOT NULL, finished_at TEXT,"
	" attempt INTEGER NOT NULL DEFAULT 0,"  /* 1: after a repair in the same run */
	" PRIMARY KEY (run_id, table_name, attempt));"
	"CREATE INDEX table_runs_by_table ON table_runs (table_name, started_at);";

/* Version 2: reconciliation results (reconcile.c). */
static const char *schema_v2 =
	"CREATE TABLE reconcile_results ("
	" run_id TEXT NOT NULL REFERENCES runs (run_id),"
	" table_name TEXT NOT NULL,"
	" tier TEXT NOT NULL,"
	" outcome TEXT NOT NULL CHECK (outcome IN ('verified', 'diverged', 'unverified', 'failed')),"
	" snapshot_id TEXT, source_rows INTEGER, lake_rows INTEGER,"
	" control TEXT, control_fired INTEGER,"
	" diverged_buckets INTEGER, diverged_keys TEXT,"
	" numbers TEXT, detail TEXT, error TEXT, duration_ms INTEGER,"
	" started_at TEXT NOT NULL, finished_at TEXT,"
	" attempt INTEGER NOT NULL DEFAULT 0,"  /* 1: after a repair in the same run */
	" PRIMARY KEY (run_id, table_name, attempt));"
	"CREATE INDEX reconcile_results_by_table ON reconcile_results (table_name, started_at);";

/* Version 3: the columns a reconciliation did not compare (a verified result is then partial). */
static const char *schema_v3 = "ALTER TABLE reconcile_results ADD COLUMN excluded TEXT;";

/* Version 5 (silver): the tests a silver build passed, beside version 4's failed and warned. */
static const char *schema_v5 = "ALTER TABLE table_runs ADD COLUMN tests_passed INTEGER;";

/* Version 8 (CDC): per CDC table, its slot, the LSN bronze reflects and the slot's lag when it was measured. */
static const char *schema_v8 =
	"CREATE TABLE cdc_slots (table_name TEXT PRIMARY KEY, slot TEXT NOT NULL, lsn TEXT NOT NULL,"
	" lag_bytes INTEGER NOT NULL, retained_bytes INTEGER NOT NULL, wal_status TEXT NOT NULL,"
	" caught_up_at TEXT NOT NULL);";

/* Version 4 (serve): silver's test counts; the scheduler's last tick per schedule; the alert outbox. */
static const char *schema_v4 =
	"ALTER TABLE table_runs ADD COLUMN tests_failed INTEGER;"
	"ALTER TABLE table_runs ADD COLUMN tests_warned INTEGER;"
	"ALTER TABLE table_runs ADD COLUMN quarantined INTEGER;"
	"CREATE TABLE schedule_ticks (schedule TEXT PRIMARY KEY, last_tick INTEGER NOT NULL);"
	"CREATE TABLE alert_state (key TEXT PRIMARY KEY, state TEXT NOT NULL, bad INTEGER NOT NULL, since TEXT NOT NULL);"
	"CREATE TABLE alert_outbox ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, table_name TEXT NOT NULL, layer TEXT NOT NULL,"
	" from_state TEXT, to_state TEXT NOT NULL, bad INTEGER NOT NULL, facts TEXT, cause TEXT, run_id TEXT,"
	" created_at TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt INTEGER NOT NULL DEFAULT 0,"
	" sent_at TEXT, last_error TEXT);";

/* Version 6 (console): `floe serve`'s tokens (SHA-256 only), browser sessions and jobs (console.c). */
static const char *schema_v6 =
	"CREATE TABLE serve_tokens ("
	" name TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE,"
	" role TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),"
	" created_at TEXT NOT NULL, last_used_at TEXT);"
	"CREATE TABLE serve_sessions ("
	" hash TEXT PRIMARY KEY, token_name TEXT NOT NULL REFERENCES serve_tokens (name) ON DELETE CASCADE,"
	" role TEXT NOT NULL, csrf TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL);"
	"CREATE TABLE serve_jobs ("
	" id TEXT PRIMARY KEY, kind TEXT NOT NULL, args TEXT, started_by TEXT, pid INTEGER,"
	" started_at TEXT NOT NULL, finished_at TEXT,"
	" status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'cancelled', 'interrupted')),"
	" exit_code INTEGER, log_path TEXT NOT NULL);"
	"CREATE INDEX serve_jobs_by_start ON serve_jobs (started_at);";
/* Version 7 (big tables): where each table's rotating V3 stands, and its last full proof. */
static const char *schema_v7 =
	"CREATE TABLE reconcile_coverage (table_name TEXT PRIMARY KEY, full_every INTEGER NOT NULL,"
	" next_share INTEGER NOT NULL, seen TEXT NOT NULL DEFAULT '', last_full_at TEXT, last_full_run TEXT);";

void floe_state_now(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

/* Create or migrate the ledger's tables (floe_state_open holds .floe/ledger.lock around it). */
static int migrate(floe_db *db)
{
	int version = 0;
	if (floe_db_user_version(db, &version) < 0)
		return -1;
	if (version > LEDGER_VERSION) {
		floe_error_set(FLOE_ERR_CONFIG, "the run ledger \"%s\" was written by a newer floe (version %d)",
			       floe_db_path(db), version);
		floe_error_hint("Use that floe, or move .floe/state.db away to start a new ledger.");
		return -1;
	}
	if (version == LEDGER_VERSION)
		return 0;
	if (floe_db_begin(db) < 0)
		return -1;
	if ((version < 1 && floe_db_exec(db, schema_v1) < 0) || (version < 2 && floe_db_exec(db, schema_v2) < 0) ||
	    (version < 3 && floe_db_exec(db, schema_v3) < 0) ||
	    (version < 4 && floe_db_exec(db, schema_v4) < 0) || (version < 5 && floe_db_exec(db, schema_v5) < 0) ||
	    (version < 6 && floe_db_exec(db, schema_v6) < 0) ||
	    (version < 7 && floe_db_exec(db, schema_v7) < 0) ||
	    (version < 8 && floe_db_exec(db, schema_v8) < 0) ||
	    floe_db_set_user_version(db, LEDGER_VERSION) < 0 || floe_db_commit(db) < 0) {
		floe_db_rollback(db);
		return -1;
	}
	return 0;
}

/*
 * Opening the ledger switches it to WAL and creates or migrates its tables. Processes that do this
 * at once (a server and its first child runs) can meet SQLite's deadlock-avoiding SQLITE_BUSY, which
 * no busy timeout waits out, so the open is serialised by an flock on .floe/ledger.lock (held only
 * for the open). Returns the descriptor to pass to unlock_open, or -1 with the error set.
 */
static int lock_open(const char *dir)
{
	floe_buf path = FLOE_BUF_INIT;
	floe_buf_printf(&path, "%s/ledger.lock", dir);
	int fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	int err = errno;
	while (fd >= 0 && flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	if (fd < 0)
		floe_error_set(FLOE_ERR_IO, "could not open \"%s\": %s", path.ptr, strerror(err));
	floe_buf_free(&path);
	return fd;
}

static void unlock_open(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

int floe_state_open(floe_state **out, const char *project_dir)
{
	floe_buf path = FLOE_BUF_INIT, dir = FLOE_BUF_INIT;
	floe_db *db = NULL;
	floe_db_opts opts = FLOE_DB_OPTS_INIT;
	int error = -1;
	*out = NULL;
	floe_buf_printf(&dir, "%s/" FLOE_STATE_DIR, project_dir);
	floe_buf_printf(&path, "%s/state.db", dir.ptr);
	opts.create = true;
	int lock_fd = -1;
	if (floe_fs_mkdir_p(dir.ptr, 0700) < 0 || (lock_fd = lock_open(dir.ptr)) < 0 ||
	    floe_db_open(&db, path.ptr, &opts) < 0 ||
	    /* WAL with synchronous = NORMAL: a commit survives floe's crash (kill -9 at any instant);
	     * only a power loss may take the newest records, never corrupt the file. The ledger
	     * records what the catalog — the truth of every load, synced in full — already holds,
	     * and a run writes it several times: an fsync each cost a loaded machine ~10 ms. */
	    floe_db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON") < 0 ||
	    migrate(db) < 0) {
		floe_error_context("while opening the run ledger");
		floe_db_close(db);
		unlock_open(lock_fd);
		goto cleanup;
	}
	unlock_open(lock_fd);
	floe_state *st = floe_xcalloc(1, sizeof(*st));
	st->db = db;
	*out = st;
	error = 0;
cleanup:
	floe_buf_free(&path);
	floe_buf_free(&dir);
	return error;
}

int floe_state_open_read(floe_state **out, const char *project_dir)
{
	floe_buf path = FLOE_BUF_INIT;
	floe_db *db = NULL;
	floe_db_opts opts = FLOE_DB_OPTS_INIT;
	int version = 0, error = -1;
	*out = NULL;
	floe_buf_printf(&path, "%s/" FLOE_STATE_DIR "/state.db", project_dir);
	if (!floe_fs_exists(path.ptr)) {
		floe_error_set(FLOE_ERR_CONFIG, "there is no run ledger at \"%s\"", path.ptr);
		floe_error_hint("Nothing ran in this project yet: run `floe run` first.");
		goto cleanup;
	}
	/* No writer has it open (no -wal file): read it immutable, creating nothing; else through the WAL. */
	floe_buf_puts(&path, "-wal");
	opts.read_only = true;
	opts.immutable = !floe_fs_exists(path.ptr);
	path.ptr[path.len -= 4] = '\0';
	if (floe_db_open(&db, path.ptr, &opts) < 0 || floe_db_user_version(db, &version) < 0)
		goto fail;
	if (version != LEDGER_VERSION) {
		floe_error_set(FLOE_ERR_CONFIG, "the run ledger \"%s\" is at version %d, this floe reads version %d",
			       path.ptr, version, LEDGER_VERSION);
		floe_error_hint("Run `floe status` once: it brings the ledger to this version.");
		goto fail;
	}
	floe_state *st = floe_xcalloc(1, sizeof(*st));
	st->db = db;
	*out = st;
	error = 0;
	goto cleanup;
fail:
	floe_error_context("while opening the run ledger read-only");
	floe_db_close(db);
cleanup:
	floe_buf_free(&path);
	return error;
}

void floe_state_close(floe_state *st)
{
	if (!st)
		return;
	floe_db_close(st->db);
	free(st);
}

/* When process `pid` started, in microseconds since the epoch (/proc/<pid>/stat's starttime after
 * /proc/stat's btime); -1 when unknown. */
static int64_t process_start_micros(pid_t pid)
{
	char path[64], buf[1024];
	long long btime = -1;
	unsigned long long start = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	for (int field = 2; p && field < 21; field++) /* ")" ends field 2; starttime is field 22 */
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return -1;
	f = fopen("/proc/stat", "re");
	while (f && fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %lld", &btime) == 1)
			break;
	if (f)
		fclose(f);
	long hz = sysconf(_SC_CLK_TCK);
	if (btime < 0 || hz <= 0)
		return -1;
	return (int64_t)btime * 1000000 + (int64_t)(start * 1000000 / (unsigned long long)hz);
}

/*
 * Whether the process of a run marked running no longer exists (this one always does): no process
 * has its pid, or the one that has it started after the run did (the pid was reused after a crash
 * or a reboot; 2 s of slack for the clock's granularity).
 */
static bool process_gone(int64_t pid, const char *started_at)
{
	if (pid <= 0 || (pid_t)pid == getpid())
		return false;
	if (kill((pid_t)pid, 0) < 0)
		return errno == ESRCH;
	int64_t run_start = 0, proc_start = process_start_micros((pid_t)pid);
	return started_at && proc_start >= 0 && floe_civil_parse_micros(&run_start, started_at) == 0 &&
	       proc_start > run_start + 2000000;
}

/* Runs still marked running whose process is gone were interrupted (crash, kill -9). */
static int mark_interrupted(floe_state *st)
{
	floe_db_stmt *sel = NULL, *upd = NULL;
	char now[32];
	int error = -1;
	floe_state_now(now, sizeof(now));
	if (floe_db_prepare(&sel, st->db, "SELECT run_id, pid, started_at FROM runs WHERE status = 'running'") < 0 ||
	    floe_db_prepare(&upd, st->db, "UPDATE runs SET status = 'interrupted', finished_at = ? "
					  "WHERE run_id = ?") < 0)
		goto cleanup;
	int rc;
	while ((rc = floe_db_step(sel)) == 1) {
		if (!process_gone(floe_db_column_int64(sel, 1), floe_db_column_text(sel, 2)))
			continue;
		floe_db_bind_text(upd, 1, now);
		floe_db_bind_text(upd, 2, floe_db_column_text(sel, 0));
		if (floe_db_step(upd) < 0)
			goto cleanup;
		floe_db_reset(upd);
	}
	error = rc < 0 ? -1 : 0;
cleanup:
	floe_db_finalize(sel);
	floe_db_finalize(upd);
	return error;
}

static void new_run_id(char run_id[FLOE_RUN_ID_MAX])
{
	unsigned char rnd[3] = { 0 };
	struct tm tm;
	time_t t = time(NULL);
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd[0] = (unsigned char)getpid();
	gmtime_r(&t, &tm);
	snprintf(run_id, FLOE_RUN_ID_MAX, "r%04d%02d%02dT%02d%02d%02dZ-%02x%02x%02x", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, rnd[0], rnd[1], rnd[2]);
}

int floe_state_run_begin(floe_state *st, const char *command, char run_id[FLOE_RUN_ID_MAX])
{
	floe_db_stmt *ins = NULL;
	char now[32];
	int error = -1;
	if (mark_interrupted(st) < 0)
		return -1;
	new_run_id(run_id);
	floe_state_now(now, sizeof(now));
	if (floe_db_prepare(&ins, st->db, "INSERT INTO runs (run_id, command, pid, started_at, status) "
					  "VALUES (?, ?, ?, ?, 'running')") < 0)
		goto cleanup;
	floe_db_bind_text(ins, 1, run_id);
	floe_db_bind_text(ins, 2, command);
	floe_db_bind_int64(ins, 3, getpid());
	floe_db_bind_text(ins, 4, now);
	error = floe_db_step(ins) < 0 ? -1 : 0;
cleanup:
	floe_db_finalize(ins);
	return error;
}

int floe_state_run_end(floe_state *st, const char *run_id, floe_run_status status)
{
	floe_db_stmt *upd = NULL;
	char now[32];
	floe_state_now(now, sizeof(now));
	if (floe_db_prepare(&upd, st->db, "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?") < 0)
		return -1;
	floe_db_bind_text(upd, 1, floe_run_status_name(status));
	floe_db_bind_text(upd, 2, now);
	floe_db_bind_text(upd, 3, run_id);
	int rc = floe_db_step(upd);
	floe_db_finalize(upd);
	return rc < 0 ? -1 : 0;
}

int floe_state_run_get(floe_state *st, floe_arena *arena, const char *run_id, floe_state_run **out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	if (floe_db_prepare(&s, st->db, "SELECT run_id, command, pid, started_at, finished_at, status FROM runs "
					"WHERE run_id = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, run_id);
	int rc = floe_db_step(s);
	floe_run_status status = FLOE_RUN_RUNNING;
	if (rc == 1 && floe_run_status_parse(&status, floe_db_column_text(s, 5)) < 0)
		rc = floe_error_context("while reading run %s of the run ledger", run_id);
	if (rc == 1) {
		floe_state_run *r = floe_arena_alloc(arena, sizeof(*r));
		r->run_id = floe_state_column_dup(arena, s, 0);
		r->command = floe_state_column_dup(arena, s, 1);
		r->pid = floe_db_column_int64(s, 2);
		r->started_at = floe_state_column_dup(arena, s, 3);
		r->finished_at = floe_state_column_dup(arena, s, 4);
		r->status = status;
		r->gone = status == FLOE_RUN_RUNNING && process_gone(r->pid, r->started_at);
		*out = r;
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

void floe_state_bind_count(floe_db_stmt *s, int i, int64_t v)
{
	if (v < 0)
		floe_db_bind_null(s, i);
	else
		floe_db_bind_int64(s, i, v);
}

/*
 * A table's record in a run, written when it starts and again when it ends (INSERT OR REPLACE of
 * the same row): its start is the first write's (or the caller's), never the replacing write's —
 * which would make every duration the few microseconds between the caller's finish stamp and this
 * one, and a negative one when a millisecond ticked between them (`floe status`, /metrics and OTLP
 * then had no duration to show).
 */
int floe_state_table_put(floe_state *st, const floe_state_table_run *t)
{
	floe_db_stmt *s = NULL;
	char now[32];
	floe_state_now(now, sizeof(now));
	if (floe_db_prepare(&s, st->db,
			    "INSERT OR REPLACE INTO table_runs (run_id, table_name, layer, source, mode, state,"
			    " rows, bytes, files, snapshot_id, watermark, source_position, detail, error, cause,"
			    " started_at, finished_at, tests_failed, tests_warned, quarantined, tests_passed)"
			    " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,"
			    " coalesce(?16, (SELECT started_at FROM table_runs WHERE run_id = ?1 AND table_name = ?2"
			    " AND attempt = 0), ?22),?17,?18,?19,?20,?21)") < 0)
		return -1;
	const char *texts[] = { t->run_id, t->table_name, t->layer, t->source, t->mode, floe_table_state_name(t->state) };
	for (int i = 0; i < 6; i++)
		floe_db_bind_text(s, i + 1, texts[i]);
	floe_state_bind_count(s, 7, t->rows);
	floe_state_bind_count(s, 8, t->bytes);
	floe_state_bind_count(s, 9, t->files);
	const char *more[] = { t->snapshot_id, t->watermark, t->source_position, t->detail, t->error,
			       t->cause, t->started_at, t->finished_at };
	for (int i = 0; i < 8; i++)
		floe_db_bind_text(s, i + 10, more[i]);
	floe_state_bind_count(s, 18, t->tests_failed);
	floe_state_bind_count(s, 19, t->tests_warned);
	floe_state_bind_count(s, 20, t->quarantined);
	floe_state_bind_count(s, 21, t->tests_passed);
	floe_db_bind_text(s, 22, t->finished_at ? t->finished_at : now); /* a record written once, at its end: 0 s */
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

const char *floe_state_column_dup(floe_arena *a, floe_db_stmt *s, int i)
{
	const char *t = floe_db_column_text(s, i);
	return t ? floe_arena_strdup(a, t) : NULL;
}

int64_t floe_state_column_count(floe_db_stmt *s, int i)
{
	return floe_db_column_is_null(s, i) ? -1 : floe_db_column_int64(s, i);
}

#define TABLE_RUN_COLUMNS                                                                   \
	"run_id, table_name, layer, source, mode, state, rows, bytes, files, snapshot_id,"  \
	" watermark, source_position, detail, error, cause, started_at, finished_at,"       \
	" tests_failed, tests_warned, quarantined, tests_passed"

/* One record; -1 (error set) when its state is none floe writes. */
static int read_row(floe_arena *a, floe_db_stmt *s, floe_state_table_run *t)
{
	const char **texts[] = { &t->run_id, &t->table_name, &t->layer, &t->source, &t->mode };
	for (int i = 0; i < 5; i++)
		*texts[i] = floe_state_column_dup(a, s, i);
	if (floe_table_state_parse(&t->state, floe_db_column_text(s, 5)) < 0)
		return floe_error_context("while reading the run ledger's record of %s", t->table_name);
	t->rows = floe_state_column_count(s, 6);
	t->bytes = floe_state_column_count(s, 7);
	t->files = floe_state_column_count(s, 8);
	const char **more[] = { &t->snapshot_id, &t->watermark, &t->source_position, &t->detail, &t->error,
				&t->cause, &t->started_at, &t->finished_at };
	for (int i = 0; i < 8; i++)
		*more[i] = floe_state_column_dup(a, s, i + 9);
	t->tests_failed = floe_state_column_count(s, 17);
	t->tests_warned = floe_state_column_count(s, 18);
	t->quarantined = floe_state_column_count(s, 19);
	t->tests_passed = floe_state_column_count(s, 20);
	return 0;
}

/* Step `s` to its end, every record read into *out (in `arena`); finalizes `s`. */
static int collect_runs(floe_state_table_run **out, size_t *n_out, floe_arena *arena, floe_db_stmt *s)
{
	floe_state_table_run *rows = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = floe_db_step(s)) == 1)
		if (read_row(arena, s, FLOE_ARENA_PUSH(arena, rows, n, cap)) < 0) {
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

int floe_state_table_history(floe_state *st, floe_arena *arena, const char *table_name, int limit,
			     floe_state_table_run **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	*n_out = 0;
	if (floe_db_prepare(&s, st->db,
			    "SELECT " TABLE_RUN_COLUMNS " FROM table_runs WHERE table_name = ? "
			    "ORDER BY started_at DESC, run_id DESC LIMIT ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, table_name);
	floe_db_bind_int64(s, 2, limit);
	return collect_runs(out, n_out, arena, s);
}

int floe_state_table_latest(floe_state *st, floe_arena *arena, floe_state_table_run **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	*n_out = 0;
	if (floe_db_prepare(&s, st->db,
			    "SELECT " TABLE_RUN_COLUMNS " FROM table_runs t WHERE started_at = "
			    "(SELECT max(started_at) FROM table_runs u WHERE u.table_name = t.table_name) "
			    "ORDER BY table_name") < 0)
		return -1;
	return collect_runs(out, n_out, arena, s);
}

int floe_state_table_last_with(floe_state *st, floe_arena *arena, const char *table_name, floe_table_state state,
			       floe_state_table_run **out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	if (floe_db_prepare(&s, st->db, "SELECT " TABLE_RUN_COLUMNS " FROM table_runs WHERE table_name = ?"
					" AND state = ? ORDER BY started_at DESC LIMIT 1") < 0)
		return -1;
	floe_db_bind_text(s, 1, table_name);
	floe_db_bind_text(s, 2, floe_table_state_name(state));
	int rc = floe_db_step(s);
	if (rc == 1) {
		floe_state_table_run *t = floe_arena_alloc(arena, sizeof(*t));
		rc = read_row(arena, s, t);
		*out = rc < 0 ? NULL : t;
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}
