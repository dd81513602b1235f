/*
 * test_engine_sandbox.c — after floe_engine_seal the process refuses every call that changes a
 * file, each by its system call number, including calls newer than the kernel headers floe was
 * built with (fchmodat2, Linux 6.6, is absent from Debian 12's headers) and calls made in
 * another architecture's convention. Sealing is irreversible: each check runs in a child.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"

/* Numbers shared by every Linux architecture since 5.1 (the unified table), when libc lacks them. */
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* `struct open_how` of openat2(2): flags, mode, resolve. */
struct how {
	unsigned long long flags, mode, resolve;
};

static int failures;

#define EXPECT_REFUSED(call)                                                             \
	do {                                                                                \
		errno = 0;                                                                      \
		long rc_ = (call);                                                              \
		if (rc_ != -1 || errno != EACCES) {                                             \
			fprintf(stderr, "%s:%d: in the sealed child: %s returned %ld (%s)\n",      \
				__FILE__, __LINE__, #call, rc_, strerror(errno));                           \
			failures++;                                                                 \
		}                                                                               \
	} while (0)

/* In the child: seal, then try each call on `dir`'s file "f" (mode 0644). Returns the failures. */
static int try_every_write(const char *dir)
{
	char f[512], g[512];
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(g, sizeof(g), "%s/g", dir);
	int wfd = open(f, O_WRONLY); /* opened before: the filter refuses its changes all the same */
	floe_engine *e = NULL;
	if (wfd < 0 || floe_engine_open(&e, NULL) != 0 || floe_engine_seal(e, NULL, 0) != 0)
		return 1;
	struct how how = { .flags = O_RDONLY };
	EXPECT_REFUSED(syscall(SYS_fchmodat2, AT_FDCWD, f, 0600, 0));
	EXPECT_REFUSED(syscall(SYS_openat2, AT_FDCWD, f, &how, sizeof(how)));
	EXPECT_REFUSED(syscall(SYS_io_uring_setup, 1, NULL));
	EXPECT_REFUSED(syscall(SYS_openat, AT_FDCWD, f, O_RDONLY | O_TRUNC));
	EXPECT_REFUSED(syscall(SYS_openat, AT_FDCWD, g, O_RDONLY | O_CREAT, 0644));
	EXPECT_REFUSED(syscall(SYS_fchmodat, AT_FDCWD, f, 0600));
	EXPECT_REFUSED(syscall(SYS_symlinkat, f, AT_FDCWD, g));
	EXPECT_REFUSED(syscall(SYS_linkat, AT_FDCWD, f, AT_FDCWD, g, 0));
	EXPECT_REFUSED(syscall(SYS_renameat2, AT_FDCWD, f, AT_FDCWD, g, 0));
	EXPECT_REFUSED(syscall(SYS_utimensat, AT_FDCWD, f, NULL, 0));
	EXPECT_REFUSED(syscall(SYS_ftruncate, wfd, 0));
	EXPECT_REFUSED(syscall(SYS_fallocate, wfd, 0, 0, 4096));
	EXPECT_REFUSED(syscall(SYS_fchmod, wfd, 0600));
	EXPECT_REFUSED(syscall(SYS_fsetxattr, wfd, "user.floe", "x", 1, 0));
#if defined(__x86_64__)
	EXPECT_REFUSED(syscall(0x40000000 | SYS_getpid)); /* x32: another architecture's numbers */
#endif
	int rfd = (int)syscall(SYS_openat, AT_FDCWD, f, O_RDONLY);
	if (rfd < 0) /* reading is untouched */
		failures++;
	else
		close(rfd);
	floe_engine_close(e);
	close(wfd);
	fflush(NULL);
	return failures > 100 ? 100 : failures;
}

FLOE_TEST(engine_seal_refuses_every_call_that_changes_a_file)
{
	char dir[] = "/tmp/floe-sandbox-XXXXXX", f[64], g[64];
	FLOE_CHECK(mkdtemp(dir) != NULL);
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(g, sizeof(g), "%s/g", dir);
	int fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0644);
	FLOE_CHECK(fd >= 0 && write(fd, "floe", 4) == 4);
	if (fd >= 0)
		close(fd);

	int status = -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(try_every_write(dir)); /* the child's status is its failure count */
	FLOE_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	FLOE_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	struct stat st;
	FLOE_CHECK(stat(f, &st) == 0 && (st.st_mode & 0777) == 0644 && st.st_size == 4);
	FLOE_CHECK(access(g, F_OK) != 0);
	unlink(g);
	unlink(f);
	rmdir(dir);
}
