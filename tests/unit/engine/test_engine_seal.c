/*
 * test_engine_seal.c — a sealed engine reads and nothing else: DuckDB may open only the
 * files it was given, one query at a time, and the process can change no file — not even
 * the files DuckDB may read, which DuckDB's own settings would let a statement overwrite.
 * Sealing is irreversible, so each test seals in a child process and reports by exit status.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "engine/engine.h"

static int child_failures;

/* A check inside the child: printed at once, counted into the child's exit status. */
#define EXPECT(expr)                                                                   \
	do {                                                                              \
		if (!(expr)) {                                                                \
			fprintf(stderr, "%s:%d: in the sealed child: %s\n", __FILE__, __LINE__, #expr); \
			child_failures++;                                                         \
		}                                                                             \
	} while (0)

/* Run `fn(dir)` in a child process; its exit status is its failure count. */
static int in_child(void (*fn)(const char *dir), const char *dir)
{
	int status = 0;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		fn(dir);
		fflush(NULL);
		_exit(child_failures > 100 ? 100 : child_failures);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static floe_buf file_bytes(const char *path)
{
	floe_buf b = FLOE_BUF_INIT;
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;
	while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		floe_buf_put(&b, chunk, n);
	if (f)
		fclose(f);
	return b;
}

static bool error_is_usage(void)
{
	const floe_error *err = floe_error_last();
	return err && err->cls == FLOE_ERR_USAGE;
}

/* A query result's one cell, or NULL when the query failed. */
static char *one_cell(floe_engine *e, const char *sql)
{
	floe_engine_result *r = NULL;
	char *cell = NULL;
	if (floe_engine_query_read(e, &r, sql) == 0 && floe_engine_result_rows(r) == 1)
		cell = strdup(floe_engine_result_text(r, 0, 0) ? floe_engine_result_text(r, 0, 0) : "NULL");
	floe_engine_result_free(r);
	return cell;
}

static void sealed_engine_writes_nothing(const char *dir)
{
	floe_engine *e = NULL;
	char data[512], other[512], sql[1200];
	snprintf(data, sizeof(data), "%s/data.parquet", dir);
	snprintf(other, sizeof(other), "%s/other.csv", dir);
	EXPECT(floe_engine_open(&e, NULL) == 0);
	snprintf(sql, sizeof(sql), "COPY (SELECT range AS i FROM range(3)) TO '%s' (FORMAT parquet)", data);
	EXPECT(floe_engine_exec(e, sql) == 0);
	snprintf(sql, sizeof(sql), "CREATE VIEW t AS SELECT * FROM read_parquet('%s')", data);
	EXPECT(floe_engine_exec(e, sql) == 0);
	floe_buf before = file_bytes(data);
	const char *readable[] = { data };
	EXPECT(floe_engine_seal(e, readable, 1) == 0);

	char *cell = one_cell(e, "SELECT sum(i) FROM t");
	EXPECT(cell && strcmp(cell, "3") == 0);
	free(cell);
	/* DuckDB lets a statement write a file it may read; the process cannot */
	snprintf(sql, sizeof(sql), "COPY (SELECT 42 AS i) TO '%s' (FORMAT parquet, USE_TMP_FILE false)", data);
	EXPECT(floe_engine_exec(e, sql) < 0);
	EXPECT(open(data, O_WRONLY) < 0 && errno == EACCES);
	EXPECT(open(data, O_RDWR | O_APPEND) < 0 && errno == EACCES);
	EXPECT(open(other, O_WRONLY | O_CREAT, 0644) < 0 && errno == EACCES);
	EXPECT(unlink(data) < 0 && errno == EACCES);
	EXPECT(rename(data, other) < 0 && errno == EACCES);
	EXPECT(truncate(data, 0) < 0 && errno == EACCES);
	EXPECT(mkdir(other, 0755) < 0 && errno == EACCES);
	EXPECT(chmod(data, 0600) < 0 && errno == EACCES);
	int fd = open(data, O_RDONLY);
	EXPECT(fd >= 0); /* reading is untouched */
	if (fd >= 0)
		close(fd);
	floe_buf after = file_bytes(data);
	EXPECT(before.len > 0 && before.len == after.len && memcmp(before.ptr, after.ptr, before.len) == 0);
	floe_buf_free(&before);
	floe_buf_free(&after);
	floe_engine_close(e);
}

static void sealed_engine_runs_one_query(const char *dir)
{
	floe_engine *e = NULL;
	floe_engine_result *r = NULL;
	char sql[1200];
	EXPECT(floe_engine_open(&e, NULL) == 0);
	EXPECT(floe_engine_seal(e, NULL, 0) == 0);
	/* DuckDB's parser counts: a ';' inside a string is no separator */
	char *cell = one_cell(e, "select 'a;b' as v -- ; select 2");
	EXPECT(cell && strcmp(cell, "a;b") == 0);
	free(cell);
	EXPECT(floe_engine_query_read(e, &r, "select 1; select 2") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "selec 1") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "select nope from range(1)") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "select 'abc'::int") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "create table x (i int)") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "explain analyze select 1") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "set threads = 1") < 0 && error_is_usage());
	EXPECT(floe_engine_query_read(e, &r, "select * from read_text('/etc/hostname')") < 0 && error_is_usage());
	char path[600];
	snprintf(path, sizeof(path), "%s/x.csv", dir);
	snprintf(sql, sizeof(sql), "copy (select 1) to '%s'", path);
	EXPECT(floe_engine_query_read(e, &r, sql) < 0 && error_is_usage());
	EXPECT(access(path, F_OK) != 0);
	/* values DuckDB's old value API has no text for come through its VARCHAR cast */
	cell = one_cell(e, "select '2000-01-01 00:00:00+00'::timestamptz < now()");
	EXPECT(cell && strcmp(cell, "true") == 0);
	free(cell);
	cell = one_cell(e, "select '-infinity'::timestamptz");
	EXPECT(cell && strcmp(cell, "-infinity") == 0);
	free(cell);
	cell = one_cell(e, "select 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid");
	EXPECT(cell && strcmp(cell, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11") == 0);
	free(cell);
	floe_error_clear();
	floe_engine_close(e);
}

static char *scratch_dir(void)
{
	char tmpl[] = "/tmp/floe-seal-XXXXXX";
	return mkdtemp(tmpl) ? strdup(tmpl) : NULL;
}

static void remove_scratch(char *dir)
{
	char path[600];
	const char *names[] = { "data.parquet", "other.csv", "x.csv" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	free(dir);
}

FLOE_TEST(engine_seal_leaves_every_file_unchanged)
{
	char *dir = scratch_dir();
	FLOE_CHECK(dir != NULL);
	FLOE_CHECK(in_child(sealed_engine_writes_nothing, dir) == 0);
	char path[600];
	snprintf(path, sizeof(path), "%s/other.csv", dir);
	FLOE_CHECK(access(path, F_OK) != 0);
	remove_scratch(dir);
}

FLOE_TEST(engine_query_read_runs_exactly_one_query)
{
	char *dir = scratch_dir();
	FLOE_CHECK(dir != NULL);
	FLOE_CHECK(in_child(sealed_engine_runs_one_query, dir) == 0);
	remove_scratch(dir);
}
