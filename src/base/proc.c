/*
 * proc.c — fork/exec with captured output.
 */
#include "base/proc.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAPTURE_MAX (16u << 20)

bool floe_proc_have(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path)
		return false;
	while (*path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		char full[4096];
		if (snprintf(full, sizeof(full), "%.*s/%s", (int)n, path, name) < (int)sizeof(full) &&
		    access(full, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

static void child_exec(const char *const argv[], const floe_proc_opts *opts, int in_fd, int out_fd,
		       int err_fd)
{
	if (in_fd >= 0)
		dup2(in_fd, 0);
	if (!opts->inherit_stdio) {
		dup2(out_fd, 1);
		dup2(err_fd, 2);
	}
	if (opts->cwd && chdir(opts->cwd) < 0)
		_exit(126);
	for (const char *const *e = opts->env_add; e && *e; e++)
		putenv((char *)*e);
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

static void pump(floe_proc_result *result, int out_fd, int err_fd, int in_fd, const char *stdin_text)
{
	struct pollfd fds[3];
	size_t in_off = 0, in_len = stdin_text ? strlen(stdin_text) : 0;
	int open_out = out_fd >= 0, open_err = err_fd >= 0, open_in = in_fd >= 0;
	char chunk[8192];

	while (open_out || open_err || open_in) {
		int n = 0, i_out = -1, i_err = -1, i_in = -1;
		if (open_out) { fds[n] = (struct pollfd){ out_fd, POLLIN, 0 }; i_out = n++; }
		if (open_err) { fds[n] = (struct pollfd){ err_fd, POLLIN, 0 }; i_err = n++; }
		if (open_in) { fds[n] = (struct pollfd){ in_fd, POLLOUT, 0 }; i_in = n++; }
		if (poll(fds, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (i_out >= 0 && fds[i_out].revents) {
			ssize_t r = read(out_fd, chunk, sizeof(chunk));
			if (r > 0)
				floe_buf_put(&result->out, chunk, (size_t)r);
			else
				open_out = 0;
		}
		if (i_err >= 0 && fds[i_err].revents) {
			ssize_t r = read(err_fd, chunk, sizeof(chunk));
			if (r > 0)
				floe_buf_put(&result->err, chunk, (size_t)r);
			else
				open_err = 0;
		}
		if (i_in >= 0 && fds[i_in].revents) {
			ssize_t w = in_off < in_len ? write(in_fd, stdin_text + in_off, in_len - in_off) : 0;
			if (w > 0)
				in_off += (size_t)w;
			if (w <= 0 || in_off == in_len) {
				close(in_fd);
				open_in = 0;
			}
		}
	}
}

int floe_proc_run(floe_proc_result *result, const char *const argv[], const floe_proc_opts *opts)
{
	floe_proc_opts defaults = FLOE_PROC_OPTS_INIT;
	if (!opts)
		opts = &defaults;
	floe_buf_init(&result->out, CAPTURE_MAX);
	floe_buf_init(&result->err, CAPTURE_MAX);
	result->exit_code = -1;

	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, in_pipe[2] = { -1, -1 };
	if ((!opts->inherit_stdio && (pipe2(out_pipe, O_CLOEXEC) < 0 || pipe2(err_pipe, O_CLOEXEC) < 0)) ||
	    pipe2(in_pipe, O_CLOEXEC) < 0)
		return floe_error_set_errno(FLOE_ERR_INTERNAL, "could not create a pipe for \"%s\"", argv[0]);

	pid_t pid = fork();
	if (pid < 0)
		return floe_error_set_errno(FLOE_ERR_INTERNAL, "could not start \"%s\"", argv[0]);
	if (pid == 0)
		child_exec(argv, opts, in_pipe[0], out_pipe[1], err_pipe[1]);

	close(in_pipe[0]);
	if (out_pipe[1] >= 0)
		close(out_pipe[1]);
	if (err_pipe[1] >= 0)
		close(err_pipe[1]);
	if (!opts->stdin_text) {
		close(in_pipe[1]);
		in_pipe[1] = -1;
	}
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	pump(result, out_pipe[0], err_pipe[0], in_pipe[1], opts->stdin_text);
	signal(SIGPIPE, old);
	if (out_pipe[0] >= 0)
		close(out_pipe[0]);
	if (err_pipe[0] >= 0)
		close(err_pipe[0]);

	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return floe_error_set_errno(FLOE_ERR_INTERNAL, "could not wait for \"%s\"", argv[0]);
	}
	if (WIFEXITED(status))
		result->exit_code = WEXITSTATUS(status);
	else
		result->exit_code = 128 + WTERMSIG(status);
	if (result->exit_code == 127 && !floe_proc_have(argv[0])) {
		floe_error_set(FLOE_ERR_INTERNAL, "program \"%s\" was not found", argv[0]);
		return -1;
	}
	return 0;
}

void floe_proc_result_free(floe_proc_result *result)
{
	if (!result)
		return;
	floe_buf_free(&result->out);
	floe_buf_free(&result->err);
}

int floe_proc_start(int *pid, const char *path, const char *const argv[], const char *cwd, const char *log_path)
{
	int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	*pid = 0;
	if (fd < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not open log file \"%s\"", log_path);
		return -1;
	}
	pid_t child = fork();
	if (child == 0) {
		int in = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		if (in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || (cwd && chdir(cwd) < 0))
			_exit(126);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(fd);
	if (child < 0) {
		floe_error_set_errno(FLOE_ERR_INTERNAL, "could not start \"%s\"", path);
		return -1;
	}
	setpgid(child, child); /* also here: signals sent before the child ran setpgid still reach the group */
	*pid = (int)child;
	return 0;
}

bool floe_proc_poll(int pid, int *exit_code)
{
	int status = 0;
	pid_t r = waitpid((pid_t)pid, &status, WNOHANG);
	if (r != (pid_t)pid)
		return r < 0 && errno == ECHILD ? (*exit_code = 255, true) : false;
	*exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return true;
}
