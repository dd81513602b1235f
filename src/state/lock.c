/*
 * lock.c — per-table load locks: an flock(2) on .floe/locks/<table>.lock, which the
 * kernel releases when the holder dies, so a crash never leaves a table locked.
 * The holder writes who it is into the file, for the message others get.
 */
#include "state/state.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct floe_table_lock {
	int fd;
};

/* A file name for any table name: letters, digits, '.', '_' kept, the rest as %XX. */
static void lock_path(floe_buf *out, const char *project_dir, const char *table_name)
{
	floe_buf_printf(out, "%s/" FLOE_STATE_DIR "/locks/", project_dir);
	for (const unsigned char *p = (const unsigned char *)table_name; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '_' || (*p == '.' && p != (const unsigned char *)table_name))
			floe_buf_putc(out, (char)*p);
		else
			floe_buf_printf(out, "%%%02X", *p);
	}
	floe_buf_puts(out, ".lock");
}

static void holder_of(floe_buf *out, int fd)
{
	char text[256];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	floe_buf_puts(out, text[0] ? text : "an unknown process");
}

int floe_state_lock(floe_table_lock **out, const char *project_dir, const char *table_name,
		    const char *run_id)
{
	floe_buf path = FLOE_BUF_INIT, dir = FLOE_BUF_INIT, who = FLOE_BUF_INIT;
	int fd = -1, error = -1;
	*out = NULL;
	floe_buf_printf(&dir, "%s/" FLOE_STATE_DIR "/locks", project_dir);
	lock_path(&path, project_dir, table_name);
	if (floe_fs_mkdir_p(dir.ptr, 0700) < 0)
		goto cleanup;
	fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not open lock file \"%s\"", path.ptr);
		goto cleanup;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			floe_error_set_errno(FLOE_ERR_IO, "could not lock \"%s\"", path.ptr);
			goto cleanup;
		}
		holder_of(&who, fd);
		floe_error_set(FLOE_ERR_CONFLICT, "%s is being loaded by %s", table_name, floe_buf_cstr(&who));
		floe_error_code_set(FLOE_CODE_TABLE_BUSY, "%s", floe_buf_cstr(&who));
		floe_error_hint("Two loads of one table never overlap; wait for that run to finish "
				"(or stop it), then run again.");
		goto cleanup;
	}
	char now[32];
	floe_state_now(now, sizeof(now));
	floe_buf_printf(&who, "run %s (pid %d, since %s)\n", run_id, (int)getpid(), now);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, who.ptr, who.len, 0) != (ssize_t)who.len) {
		floe_error_set_errno(FLOE_ERR_IO, "could not write lock file \"%s\"", path.ptr);
		goto cleanup;
	}
	floe_table_lock *lock = floe_xcalloc(1, sizeof(*lock));
	lock->fd = fd;
	fd = -1;
	*out = lock;
	error = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	floe_buf_free(&path);
	floe_buf_free(&dir);
	floe_buf_free(&who);
	return error;
}

void floe_state_unlock(floe_table_lock *lock)
{
	if (!lock)
		return;
	/* Leave the file (removing it would race with a waiter); closing releases the lock. */
	if (ftruncate(lock->fd, 0) < 0) {
		/* nothing to do: the next holder truncates again */
	}
	close(lock->fd);
	free(lock);
}
