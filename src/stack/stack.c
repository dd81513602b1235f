/*
 * stack.c — initdb / pg_ctl driven through base/proc, as an unprivileged user
 * when we are root.
 */
#include "stack/stack.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/text.h"
#include "config/config.h"
#include "pg/pg.h"

#include <arpa/inet.h>
#include <glob.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define STACK_SUPERUSER "postgres"

static int path_into(char *dst, const char *project_dir, const char *rel)
{
	if ((size_t)snprintf(dst, FLOE_STACK_PATH_MAX, "%s/" FLOE_STATE_DIR "/pg%s", project_dir, rel) >= FLOE_STACK_PATH_MAX)
		return floe_error_set(FLOE_ERR_USAGE, "project path \"%s\" is too long", project_dir);
	return 0;
}

/* The newest server installation: $FLOE_PG_BINDIR, Debian's layout, or PATH. */
static int find_bin_dir(char *out)
{
	const char *env = getenv("FLOE_PG_BINDIR");
	if (env && env[0]) {
		snprintf(out, FLOE_STACK_PATH_MAX, "%s", env);
		return 0;
	}
	glob_t g;
	int best = -1;
	if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			int64_t v = 0;
			const char *p = g.gl_pathv[i] + strlen("/usr/lib/postgresql/");
			if (floe_text_parse_int64(&v, p, strcspn(p, "/"), 0, 1000) == 0 && v > best) {
				best = (int)v;
				snprintf(out, FLOE_STACK_PATH_MAX, "/usr/lib/postgresql/%d/bin", best);
			}
		}
		globfree(&g);
	}
	if (best >= 0)
		return 0;
	if (floe_proc_have("initdb")) {
		snprintf(out, FLOE_STACK_PATH_MAX, "%s", "");
		return 0;
	}
	floe_error_set(FLOE_ERR_UNREACHABLE, "no PostgreSQL server installation was found");
	floe_error_hint("Install the server (Debian: apt-get install postgresql) or set FLOE_PG_BINDIR "
			"to the directory holding initdb and pg_ctl.");
	return -1;
}

static int fill_info(floe_stack_info *info, const char *project_dir, const floe_stack_opts *opts)
{
	memset(info, 0, sizeof(*info));
	if (path_into(info->data_dir, project_dir, "/data") < 0 ||
	    path_into(info->socket_dir, project_dir, "/run") < 0 ||
	    path_into(info->log_file, project_dir, "/postgresql.log") < 0 || find_bin_dir(info->bin_dir) < 0)
		return -1;
	if (geteuid() == 0)
		snprintf(info->os_user, sizeof(info->os_user), "%s",
			 opts && opts->os_user ? opts->os_user : "postgres");
	/* The socket path must fit in sockaddr_un: dir + "/.s.PGSQL.65535". */
	if (strlen(info->socket_dir) + 16 >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		floe_error_set(FLOE_ERR_USAGE, "socket directory \"%s\" is too long for a Unix socket",
			       info->socket_dir);
		floe_error_hint("Use a project directory with a shorter path (at most about 90 characters).");
		return -1;
	}
	char port_file[FLOE_STACK_PATH_MAX];
	floe_buf text = FLOE_BUF_INIT;
	int64_t port = 0;
	path_into(port_file, project_dir, "/port");
	if (floe_fs_exists(port_file) && floe_fs_read_file(&text, port_file) == 0)
		floe_text_parse_int64(&port, text.ptr, strcspn(floe_buf_cstr(&text), "\n"), 1, 65535);
	floe_buf_free(&text);
	floe_error_clear();
	info->port = (int)port;
	char pg_version[FLOE_STACK_PATH_MAX + 16];
	snprintf(pg_version, sizeof(pg_version), "%s/PG_VERSION", info->data_dir);
	info->initialized = floe_fs_exists(pg_version);
	return 0;
}

/* argv prefixed with `runuser -u USER --` when we are root. */
static int run_tool(floe_proc_result *res, const floe_stack_info *info, const char *tool,
		    const char *const *args)
{
	const char *argv[32];
	char path[FLOE_STACK_PATH_MAX + 32];
	int n = 0;
	if (info->os_user[0]) {
		argv[n++] = "runuser";
		argv[n++] = "-u";
		argv[n++] = info->os_user;
		argv[n++] = "--";
	}
	if (info->bin_dir[0])
		snprintf(path, sizeof(path), "%s/%s", info->bin_dir, tool);
	else
		snprintf(path, sizeof(path), "%s", tool);
	argv[n++] = path;
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	floe_proc_opts opts = FLOE_PROC_OPTS_INIT;
	opts.cwd = "/"; /* the OS user may not be able to enter our working directory */
	return floe_proc_run(res, argv, &opts);
}

static int tool_failed(const floe_proc_result *res, const char *what)
{
	floe_buf msg = FLOE_BUF_INIT;
	floe_buf_put(&msg, res->err.ptr ? res->err.ptr : "", res->err.len);
	if (!msg.len)
		floe_buf_put(&msg, res->out.ptr ? res->out.ptr : "", res->out.len);
	while (msg.len && msg.ptr[msg.len - 1] == '\n')
		msg.ptr[--msg.len] = '\0';
	floe_error_set(FLOE_ERR_INTERNAL, "%s failed (exit %d)", what, res->exit_code);
	if (msg.len)
		floe_error_detail("%s", msg.ptr);
	floe_buf_free(&msg);
	return -1;
}

/* Make .floe/pg belong to the OS user, and check it can reach it. */
static int prepare_dirs(const floe_stack_info *info, const char *project_dir)
{
	char base[FLOE_STACK_PATH_MAX];
	path_into(base, project_dir, "");
	if (floe_fs_mkdir_p(base, 0755) < 0 || floe_fs_mkdir_p(info->socket_dir, 0755) < 0)
		return -1;
	if (!info->os_user[0])
		return 0;
	struct passwd *pw = getpwnam(info->os_user);
	if (!pw) {
		floe_error_set(FLOE_ERR_USAGE, "OS user \"%s\" does not exist", info->os_user);
		floe_error_hint("PostgreSQL refuses to run as root; install the postgresql package (it "
				"creates the user) or pass --os-user NAME.");
		return -1;
	}
	const char *chown_argv[] = { "chown", "-R", info->os_user, base, NULL };
	floe_proc_result res;
	int rc = floe_proc_run(&res, chown_argv, NULL);
	if (rc == 0 && res.exit_code != 0)
		rc = tool_failed(&res, "chown of the cluster directory");
	floe_proc_result_free(&res);
	if (rc < 0)
		return -1;
	const char *argv[] = { "runuser", "-u", info->os_user, "--", "test", "-w", base, NULL };
	rc = floe_proc_run(&res, argv, NULL);
	int ok = rc == 0 && res.exit_code == 0;
	floe_proc_result_free(&res);
	if (!ok) {
		floe_error_set(FLOE_ERR_USAGE, "OS user \"%s\" cannot reach \"%s\"", info->os_user, base);
		floe_error_hint("Every directory above the project must be searchable by that user "
				"(chmod o+x), or put the project elsewhere (e.g. under /srv or /tmp).");
		return -1;
	}
	return 0;
}

static int initdb(floe_stack_info *info)
{
	floe_log_info("creating a cluster in %s%s%s", info->data_dir, info->os_user[0] ? " as OS user " : "",
		      info->os_user);
	const char *args[] = { "-D", info->data_dir, "-U", STACK_SUPERUSER, "-E", "UTF8", "--no-locale",
			       "--auth-local=trust", "--auth-host=scram-sha-256", "--no-instructions",
			       NULL };
	floe_proc_result res;
	int rc = run_tool(&res, info, "initdb", args);
	if (rc == 0 && res.exit_code != 0)
		rc = tool_failed(&res, "initdb");
	floe_proc_result_free(&res);
	if (rc == 0)
		info->initialized = true;
	return rc;
}

static bool port_is_free(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int on = 1;
	if (fd < 0)
		return false;
	/* As PostgreSQL binds: a port whose old connections linger in TIME_WAIT is still ours. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bool ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static int choose_port(floe_stack_info *info, const char *project_dir, int wanted)
{
	if (wanted > 0 && !port_is_free(wanted)) {
		/* Asked for by name, so commands already typed (floe init --source …:PORT) name it:
		 * another port would leave them pointing at nothing. */
		floe_error_set(FLOE_ERR_USAGE, "port %d on 127.0.0.1 is in use", wanted);
		floe_error_hint("Another server listens there, or a connection holds it as its own end. "
				"Choose another with --port, or leave --port out for a free one "
				"(`floe stack status` then says which).");
		return -1;
	}
	int kept = info->port;
	if (wanted > 0)
		info->port = wanted;
	if (info->port == 0 || !port_is_free(info->port)) {
		/* Let the kernel pick an unused port, then release it for PostgreSQL. */
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
		socklen_t len = sizeof(a);
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
		    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
			if (fd >= 0)
				close(fd);
			return floe_error_set_errno(FLOE_ERR_INTERNAL, "could not find a free local port");
		}
		info->port = ntohs(a.sin_port);
		close(fd);
		if (kept > 0)
			floe_log_warn("port %d, where this cluster listened before, is in use: it now listens on %d "
				      "(update `port` under [source] in floe.toml)", kept, info->port);
	}
	char port_file[FLOE_STACK_PATH_MAX], text[16];
	path_into(port_file, project_dir, "/port");
	int n = snprintf(text, sizeof(text), "%d\n", info->port);
	floe_fs_write_opts opts = FLOE_FS_WRITE_OPTS_INIT;
	return floe_fs_write_atomic(port_file, text, (size_t)n, &opts);
}

static int pg_ctl_status(floe_stack_info *info)
{
	const char *args[] = { "status", "-D", info->data_dir, NULL };
	floe_proc_result res;
	if (run_tool(&res, info, "pg_ctl", args) < 0)
		return -1;
	info->running = res.exit_code == 0;
	floe_proc_result_free(&res);
	return 0;
}

static int start(floe_stack_info *info)
{
	char opts[FLOE_STACK_PATH_MAX + 128];
	/* wal_level=logical: the local cluster is ready for CDC (docs/cdc.md) */
	snprintf(opts, sizeof(opts), "-p %d -k '%s' -c listen_addresses=127.0.0.1 -c wal_level=logical", info->port,
		 info->socket_dir);
	floe_log_info("starting PostgreSQL on 127.0.0.1:%d", info->port);
	const char *args[] = { "start", "-w", "-t", "120", "-D", info->data_dir, "-l", info->log_file,
			       "-o", opts, NULL };
	floe_proc_result res;
	int rc = run_tool(&res, info, "pg_ctl", args);
	if (rc == 0 && res.exit_code != 0) {
		rc = tool_failed(&res, "pg_ctl start");
		floe_error_hint("See the server log: %s", info->log_file);
	}
	floe_proc_result_free(&res);
	if (rc == 0)
		info->running = true;
	return rc;
}

int floe_stack_status(floe_stack_info *out, const char *project_dir)
{
	if (fill_info(out, project_dir, NULL) < 0)
		return -1;
	if (!out->initialized)
		return 0;
	return pg_ctl_status(out);
}

int floe_stack_up(floe_stack_info *out, const char *project_dir, const floe_stack_opts *opts)
{
	if (fill_info(out, project_dir, opts) < 0 || prepare_dirs(out, project_dir) < 0)
		return floe_error_context("while preparing the local PostgreSQL cluster");
	if (!out->initialized && initdb(out) < 0)
		return floe_error_context("while creating the cluster in \"%s\"", out->data_dir);
	if (pg_ctl_status(out) < 0)
		return -1;
	if (out->running)
		return 0;
	if (choose_port(out, project_dir, opts ? opts->port : 0) < 0 || start(out) < 0)
		return floe_error_context("while starting the cluster in \"%s\"", out->data_dir);
	return 0;
}

int floe_stack_down(floe_stack_info *out, const char *project_dir)
{
	if (floe_stack_status(out, project_dir) < 0)
		return -1;
	if (!out->running)
		return 0;
	const char *args[] = { "stop", "-w", "-t", "60", "-m", "fast", "-D", out->data_dir, NULL };
	floe_proc_result res;
	int rc = run_tool(&res, out, "pg_ctl", args);
	if (rc == 0 && res.exit_code != 0)
		rc = tool_failed(&res, "pg_ctl stop");
	floe_proc_result_free(&res);
	if (rc == 0)
		out->running = false;
	return rc;
}

int floe_stack_destroy(const char *project_dir)
{
	floe_stack_info info;
	if (floe_stack_status(&info, project_dir) < 0)
		return -1;
	if (info.running) {
		floe_error_set(FLOE_ERR_USAGE, "the cluster in \"%s\" is running", info.data_dir);
		floe_error_hint("Run `floe stack down` first.");
		return -1;
	}
	char base[FLOE_STACK_PATH_MAX];
	path_into(base, project_dir, "");
	return floe_fs_remove_tree(base);
}
