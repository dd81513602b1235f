/*
 * test_error.c — error codes: set once where the failure is known (errno here), one table
 * giving each its class, exit code and probable cause.
 */
#include "harness.h"
#include "base/buf.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"

#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

static char *cause(void)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_error_put_cause(&b, floe_error_last());
	return floe_buf_detach(&b, NULL);
}

FLOE_TEST(error_errno_gives_the_code_and_the_exit)
{
	static const struct {
		int err;
		floe_error_code code;
		const char *says;
	} cases[] = {
		{ ENOSPC, FLOE_CODE_DISK_FULL, "disk full at /wh/t/data/f.parquet" },
		{ EDQUOT, FLOE_CODE_DISK_FULL, "disk full at /wh/t/data/f.parquet" },
		{ EFBIG, FLOE_CODE_FILE_TOO_LARGE, "file too large / disk full at /wh/t/data/f.parquet" },
		{ EACCES, FLOE_CODE_PERMISSION, "permission denied at /wh/t/data/f.parquet" },
		{ EROFS, FLOE_CODE_PERMISSION, "permission denied at" },
		{ EIO, FLOE_CODE_IO, "an I/O error at /wh" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		errno = cases[i].err;
		floe_error_set_errno(FLOE_ERR_IO, "could not write \"%s\"", "x");
		floe_error_subject("%s", "/wh/t/data/f.parquet");
		FLOE_CHECK(floe_error_last()->code == cases[i].code);
		FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_INTERNAL);
		char *c = cause();
		FLOE_CHECK(strncmp(c, cases[i].says, strlen(cases[i].says)) == 0);
		free(c);
	}
	errno = ENOSPC; /* the cause names the disk: the mount point of the path's file system */
	floe_error_set_errno(FLOE_ERR_IO, "could not write \"%s\"", "x");
	floe_error_subject("%s", "/no-such-dir/f.parquet");
	char *c = cause();
	FLOE_CHECK(strstr(c, "disk full at /no-such-dir/f.parquet (the file system mounted at /): ") == c);
	free(c);
	errno = ENOENT; /* no cause of its own: the class speaks */
	floe_error_set_errno(FLOE_ERR_CONFIG, "could not read \"%s\"", "floe.toml");
	FLOE_CHECK(floe_error_last()->code == FLOE_CODE_NONE);
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_USAGE);
	floe_error_clear();
}

FLOE_TEST(error_code_sets_the_class)
{
	floe_error_set(FLOE_ERR_INTERNAL, "query failed");
	floe_error_code_set(FLOE_CODE_SOURCE_SHUTDOWN, "%s", "terminating connection due to administrator command");
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_UNREACHABLE);
	char *c = cause();
	FLOE_CHECK(strstr(c, "PostgreSQL shut down or ended floe's session") != NULL);
	FLOE_CHECK(strstr(c, "administrator command") != NULL);
	free(c);

	floe_error_set(FLOE_ERR_CHECK, "bronze.t is being loaded by run R");
	floe_error_code_set(FLOE_CODE_TABLE_BUSY, "%s", "run R (pid 7, since T)");
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_CHECK_FAILED);
	c = cause();
	FLOE_CHECK(strncmp(c, "held by run R (pid 7, since T)", 30) == 0);
	free(c);

	floe_error_set(FLOE_ERR_INTERNAL, "query failed");
	floe_error_code_set(FLOE_CODE_SOURCE_CHANGED, "%s", "column \"b\" does not exist");
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_USAGE);
	c = cause();
	FLOE_CHECK(strstr(c, "the source's columns changed since `floe generate`") == c);
	free(c);
	floe_error_clear();
}

FLOE_TEST(error_cause_subject_is_printable)
{
	floe_error_set(FLOE_ERR_INTERNAL, "query failed");
	floe_error_code_set(FLOE_CODE_SOURCE_CHANGED, "%s", "column \"a\x1b[2Jb\" does not exist");
	char *c = cause();
	FLOE_CHECK(strchr(c, '\x1b') == NULL && strstr(c, "a\\e[2Jb") != NULL);
	free(c);
	floe_error_clear();
	c = cause();
	FLOE_CHECK(strcmp(c, "unknown") == 0);
	free(c);
}

FLOE_TEST(fs_mount_point_of_a_path)
{
	floe_buf b = FLOE_BUF_INIT;
	FLOE_CHECK(floe_fs_mount_point(&b, "/") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "/");
	floe_buf_clear(&b);
	FLOE_CHECK(floe_fs_mount_point(&b, "/proc/self/status") == 0); /* procfs is its own mount */
	FLOE_CHECK_STR(floe_buf_cstr(&b), "/proc");
	floe_buf_clear(&b);
	FLOE_CHECK(floe_fs_mount_point(&b, "relative/path") < 0);
	floe_buf_free(&b);
}

FLOE_TEST(error_put_message_one_line)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_error_set(FLOE_ERR_CHECK, "table \"%s\" failed", "t");
	floe_error_detail("two rows");
	floe_error_context("while building %s", "silver.t");
	floe_error_put_message(&b, floe_error_last());
	FLOE_CHECK_STR(floe_buf_cstr(&b), "table \"t\" failed: two rows (while building silver.t)");
	floe_buf_clear(&b);
	floe_error_put_message(&b, NULL);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "");
	floe_error_clear();
	floe_buf_free(&b);
}

/* A worker's error carried to the thread that joins it: every part, the code (so the cause) too. */
static void *fail_in_thread(void *arg)
{
	floe_error_saved *saved = ((void **)arg)[0];
	floe_arena *arena = ((void **)arg)[1];
	floe_error_set(FLOE_ERR_INTERNAL, "could not copy part %d", 3);
	floe_error_code_set(FLOE_CODE_SOURCE_LOST, "the server's words");
	floe_error_detail("The connection closed.");
	floe_error_hint("Run again.");
	floe_error_context("while reading bronze.orders");
	floe_error_save(saved, arena);
	floe_error_clear();
	return NULL;
}

FLOE_TEST(error_saved_in_one_thread_is_raised_in_another)
{
	floe_arena *arena = floe_arena_new();
	floe_error_saved saved, none;
	void *args[2] = { &saved, arena };
	pthread_t t;
	floe_error_clear();
	FLOE_CHECK(pthread_create(&t, NULL, fail_in_thread, args) == 0);
	pthread_join(t, NULL);
	FLOE_CHECK(floe_error_last() == NULL); /* the chain is per thread */
	FLOE_CHECK(floe_error_raise(&saved, "unused") == -1);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && e->code == FLOE_CODE_SOURCE_LOST && e->cls == FLOE_ERR_UNREACHABLE);
	FLOE_CHECK(e && strcmp(e->message, "could not copy part 3") == 0 && strcmp(e->detail, "The connection closed.") == 0);
	FLOE_CHECK(e && strcmp(e->hint, "Run again.") == 0 && e->n_context == 1 && strcmp(e->subject, "the server's words") == 0);
	floe_error_clear();
	floe_error_save(&none, arena);
	FLOE_CHECK(none.message == NULL && floe_error_raise(&none, "no reason") == -1);
	FLOE_CHECK(floe_error_last() && strcmp(floe_error_last()->message, "no reason") == 0 &&
		   floe_error_last()->cls == FLOE_ERR_INTERNAL);
	floe_error_clear();
	floe_arena_free(arena);
}
