/*
 * sandbox.c — take from this process, for good, every way to change a file.
 *
 * `floe query` runs a user's SQL in DuckDB over the warehouse's live data files. DuckDB's own
 * switches (enable_external_access, allowed_paths, lock_configuration) decide what it may
 * open, but not how: a file it may read it may also overwrite. So before the user's statement
 * runs, the process installs a seccomp filter on every thread (SECCOMP_FILTER_FLAG_TSYNC —
 * DuckDB's workers already run) that makes the kernel refuse, with EACCES, every open for
 * writing, creating, truncating or appending, and every call that creates, renames, links,
 * removes, truncates or re-permissions a file. Reading stays as it was, and so do descriptors
 * opened before (stdout, stderr), so the result can still be printed. A filter cannot be
 * removed: the process keeps it until it exits.
 */
#include "engine/engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/error.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#else
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

/* Calls that change a file by name or by descriptor, refused whatever their arguments. */
static const long refused_calls[] = {
#ifdef __NR_creat
	__NR_creat,
#endif
#ifdef __NR_rename
	__NR_rename,
#endif
#ifdef __NR_link
	__NR_link,
#endif
#ifdef __NR_symlink
	__NR_symlink,
#endif
#ifdef __NR_unlink
	__NR_unlink,
#endif
#ifdef __NR_mkdir
	__NR_mkdir,
#endif
#ifdef __NR_rmdir
	__NR_rmdir,
#endif
#ifdef __NR_mknod
	__NR_mknod,
#endif
#ifdef __NR_chmod
	__NR_chmod,
#endif
#ifdef __NR_chown
	__NR_chown,
#endif
#ifdef __NR_lchown
	__NR_lchown,
#endif
#ifdef __NR_utime
	__NR_utime,
#endif
#ifdef __NR_utimes
	__NR_utimes,
#endif
#ifdef __NR_futimesat
	__NR_futimesat,
#endif
#ifdef __NR_fchmodat2
	__NR_fchmodat2,
#endif
	__NR_renameat, __NR_renameat2, __NR_linkat, __NR_symlinkat, __NR_unlinkat, __NR_mkdirat,
	__NR_mknodat, __NR_truncate, __NR_ftruncate, __NR_fallocate, __NR_fchmod, __NR_fchmodat,
	__NR_fchown, __NR_fchownat, __NR_utimensat, __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr,
	__NR_removexattr, __NR_lremovexattr, __NR_fremovexattr, __NR_open_by_handle_at,
	__NR_mount, __NR_umount2,
	/* other ways to open files, whose flags this filter cannot inspect */
#ifdef __NR_openat2
	__NR_openat2,
#endif
#ifdef __NR_io_uring_setup
	__NR_io_uring_setup,
#endif
};

/* The open flags that ask for more than reading. */
#define WRITE_FLAGS ((unsigned)(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND))

#define ARG_LOW(i) (offsetof(struct seccomp_data, args) + (i) * sizeof(__u64)) /* little-endian */
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* "if the call is `nr`, refuse it when its flags argument (number `arg`) asks to write". */
static size_t put_open_check(struct sock_filter *f, long nr, unsigned arg)
{
	struct sock_filter block[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)nr, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (__u32)ARG_LOW(arg)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, WRITE_FLAGS, 0, 1),
		DENY,
		ALLOW,
	};
	for (size_t i = 0; i < sizeof(block) / sizeof(block[0]); i++)
		f[i] = block[i];
	return sizeof(block) / sizeof(block[0]);
}

/* The whole program: other architectures (32-bit calls) refused, then the lists above. */
static size_t build_filter(struct sock_filter *f)
{
	size_t n = 0;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0);
	f[n++] = (struct sock_filter)DENY;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1); /* x32 */
	f[n++] = (struct sock_filter)DENY;
#endif
	for (size_t i = 0; i < sizeof(refused_calls) / sizeof(refused_calls[0]); i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)refused_calls[i], 0, 1);
		f[n++] = (struct sock_filter)DENY;
	}
#ifdef __NR_open
	n += put_open_check(f + n, __NR_open, 1);
#endif
	n += put_open_check(f + n, __NR_openat, 2);
	f[n++] = (struct sock_filter)ALLOW;
	return n;
}

int floe_engine_forbid_writes(void)
{
	struct sock_filter filter[2 * sizeof(refused_calls) / sizeof(refused_calls[0]) + 32];
	struct sock_fprog prog = { .len = 0, .filter = filter };
	prog.len = (unsigned short)build_filter(filter);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
		floe_error_set_errno(FLOE_ERR_INTERNAL, "could not make this process unable to write files");
		floe_error_detail("The kernel refused the seccomp filter that keeps a query from changing "
				  "the warehouse.");
		floe_error_hint("Run floe on a Linux kernel with seccomp filters (3.17 or later), outside "
				"a sandbox that forbids them.");
		return -1;
	}
	return 0;
}

#else

int floe_engine_forbid_writes(void)
{
	floe_error_set(FLOE_ERR_INTERNAL, "this build of floe cannot make a process unable to write files");
	floe_error_detail("Read-only queries need Linux seccomp filters on x86-64 or arm64.");
	return -1;
}

#endif
