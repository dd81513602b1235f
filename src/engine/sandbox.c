/*
 * sandbox.c — take from this process, for good, every way to change a file.
 *
 * `floe query` runs a user's SQL in DuckDB over the warehouse's live data files. DuckDB's own
 * switches (enable_external_access, allowed_paths, lock_configuration) decide what it may
 * open, but not how: a file it may read it may also overwrite. So before the user's statement
 * runs, the process installs a seccomp filter on every thread (TSYNC — DuckDB's workers already
 * run) that makes the kernel refuse, with EACCES, every open for writing, creating, truncating
 * or appending, and every call that creates, renames, links, removes, truncates or
 * re-permissions a file. Reading stays as it was, and so do descriptors opened before (stdout,
 * stderr), so the result can still be printed. A filter cannot be removed: the process keeps it
 * until it exits.
 *
 * The filter is built by libseccomp, the only module that calls it. Calls are named as text and
 * resolved by libseccomp for the architecture floe runs on, at run time: a call the kernel
 * headers of the build did not know yet (fchmodat2) is refused all the same. A call that does
 * not exist on this architecture (rename on arm64) needs no rule. A system call made in another
 * architecture's convention (x86-64's x32 or 32-bit calls) is refused whatever it is.
 */
#include "engine/engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stddef.h>

#include "base/error.h"

/* Calls that change a file by name or by descriptor, refused whatever their arguments. */
static const char *const refused_calls[] = {
	"creat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
	"unlink", "unlinkat", "mkdir", "mkdirat", "rmdir", "mknod", "mknodat",
	"truncate", "ftruncate", "fallocate",
	"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchown", "fchownat",
	"utime", "utimes", "futimesat", "utimensat",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
	"open_by_handle_at", "mount", "umount2",
	/* other ways to open files, whose flags the filter cannot inspect */
	"openat2", "io_uring_setup",
};

/* The open flags that ask for more than reading: any one of them refuses the open. */
static const int write_flags[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND };

/*
 * Add "refuse `call` with EACCES when `cmps` hold" (n of them). A call this architecture does
 * not have (libseccomp resolves it to a negative pseudo number) is skipped, and so is a name this
 * libseccomp does not know: a call newer than the library (setxattrat, Linux 6.13, for Debian 12's
 * libseccomp 2.5.4) stays open, as an allow-by-default filter cannot refuse what it cannot name.
 */
static int refuse(scmp_filter_ctx ctx, const char *call, unsigned n, const struct scmp_arg_cmp *cmps)
{
	int nr = seccomp_syscall_resolve_name(call);
	if (nr < 0)
		return 0;
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EACCES), nr, n, cmps);
}

/* The filter's rules: the calls above, then open and openat when they ask to write. */
static int add_rules(scmp_filter_ctx ctx)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof(refused_calls) / sizeof(refused_calls[0]); i++)
		rc = refuse(ctx, refused_calls[i], 0, NULL);
	for (size_t i = 0; rc == 0 && i < sizeof(write_flags) / sizeof(write_flags[0]); i++) {
		scmp_datum_t flag = (scmp_datum_t)write_flags[i];
		struct scmp_arg_cmp open_flags = SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag);
		struct scmp_arg_cmp openat_flags = SCMP_A2(SCMP_CMP_MASKED_EQ, flag, flag);
		rc = refuse(ctx, "open", 1, &open_flags);
		if (rc == 0)
			rc = refuse(ctx, "openat", 1, &openat_flags);
	}
	return rc;
}

/* The error chain for a filter libseccomp could not build or the kernel refused (`rc` < 0 an errno). */
static void set_refused(int rc)
{
	errno = rc < 0 ? -rc : ESRCH; /* with TSYNC, a positive rc names a thread left unfiltered */
	floe_error_set_errno(FLOE_ERR_INTERNAL, "could not make this process unable to write files");
	floe_error_detail("The kernel refused the seccomp filter that keeps a query from changing "
			  "the warehouse.");
	floe_error_hint("Run floe on a Linux kernel with seccomp filters (3.17 or later), outside "
			"a sandbox that forbids them.");
}

int floe_engine_forbid_writes(void)
{
	int rc = -ENOMEM;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (ctx == NULL)
		goto cleanup;
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EACCES));
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (rc == 0)
		(void)seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1); /* the kernel's errno, not ECANCELED */
	if (rc == 0)
		rc = add_rules(ctx);
	if (rc == 0)
		rc = seccomp_load(ctx);

cleanup:
	seccomp_release(ctx);
	if (rc != 0)
		set_refused(rc);
	return rc == 0 ? 0 : -1;
}
