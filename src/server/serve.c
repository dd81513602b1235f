/*
 * serve.c — `floe serve`'s main loop: the HTTP server on its own thread, the scheduler
 * and the signals on this one (see serve.h).
 */
#include "server/serve.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/log.h"
#include "monitor/alert.h"
#include "schedule/clock.h"
#include "auth/auth.h"
#include "base/fs.h"
#include "server/access.h"
#include "server/console.h"
#include "server/http.h"
#include "server/jobs.h"
#include "server/ops.h"
#include "server/mcp_http.h"
#include "server/rest.h"
#include "server/scheduler.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BODY (1u << 20)
#define ALERT_INTERVAL 30 /* seconds between outbox passes */

static volatile sig_atomic_t signals_seen;

static void on_signal(int sig)
{
	signals_seen++;
}

static size_t counters(void *ctx, floe_metrics_sched **out)
{
	return floe_scheduler_counters(ctx, out);
}

static void install_signals(void)
{
	struct sigaction sa = { 0 };
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int64_t monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

/* Run the schedule until a signal; then drain (grace, then SIGTERM) or, on a second signal, kill. */
static void loop(floe_scheduler *sched, const floe_config *config, int grace)
{
	int64_t deadline = -1, alerted = 0;
	bool stopped = false;
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	for (;;) {
		int64_t now = floe_schedule_now();
		/* Alerts after every run (the run posts too; the outbox sends each once), and retries of failed posts. */
		if (floe_scheduler_reap(sched, now) || now - alerted >= ALERT_INTERVAL) {
			floe_alert_after_run(config, now);
			alerted = now;
		}
		if (signals_seen >= 2) {
			floe_scheduler_signal(sched, SIGKILL);
			floe_log_warn("second signal: stopped every running load at once");
			return;
		}
		if (signals_seen == 1 && deadline < 0) {
			deadline = monotonic() + grace;
			floe_log_info("stopping: no new runs; %zu running get %ds to finish", floe_scheduler_running(sched), grace);
		}
		if (deadline < 0)
			floe_scheduler_tick(sched, now);
		else if (floe_scheduler_running(sched) == 0)
			return;
		else if (!stopped && monotonic() >= deadline) {
			floe_scheduler_signal(sched, SIGTERM);
			stopped = true;
		}
		nanosleep(&pause, NULL);
	}
}

/* TLS from the PEM files, and whether the listen address is allowed (access.h). */
static int secure(floe_http_server *http, floe_server_access *access, const floe_serve_opts *opts)
{
	floe_buf cert = FLOE_BUF_INIT, key = FLOE_BUF_INIT;
	int64_t tokens = 0;
	int error = -1;
	bool tls = opts->tls_cert && opts->tls_key;
	if (tls && !floe_http_tls_supported()) {
		floe_error_set(FLOE_ERR_CONFIG, "this libmicrohttpd was built without TLS");
		floe_error_hint("Terminate TLS in a proxy in front and give --insecure-http instead.");
		goto cleanup;
	}
	if (tls && (floe_fs_read_file(&cert, opts->tls_cert) < 0 || floe_fs_read_file(&key, opts->tls_key) < 0)) {
		floe_error_context("while reading the TLS certificate and key");
		goto cleanup;
	}
	if (tls)
		floe_http_server_set_tls(http, floe_buf_cstr(&cert), floe_buf_cstr(&key));
	if (floe_server_access_listen(access, opts->host, tls, opts->insecure_http) < 0 ||
	    floe_auth_token_count(access->project_dir, &tokens) < 0)
		goto cleanup;
	floe_http_server_set_auth(http, floe_server_access_auth, access);
	if (tokens == 0)
		fprintf(stderr, "floe serve: no access token exists, so every request to this loopback address acts as "
				"admin; `floe serve token add --role R` turns tokens on\n");
	error = 0;
cleanup:
	floe_buf_free(&cert);
	floe_buf_free(&key);
	return error;
}

int floe_serve_run(const floe_serve_opts *opts)
{
	floe_http_server *http = NULL;
	floe_scheduler *sched = NULL;
	floe_mcp *mcp = floe_mcp_new(opts->config);
	floe_server_jobs *jobs = NULL;
	char self[4096] = "", url[320] = "";
	int error = -1;
	const char *bin = opts->floe_bin;
	if (!bin) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		bin = self;
	}
	install_signals();
	if (floe_scheduler_new(&sched, opts->config, bin, floe_schedule_now()) < 0) {
		floe_error_context("while reading the schedule");
		goto cleanup;
	}
	floe_server_ops ops = { opts->config, counters, sched };
	floe_server_access access = { .project_dir = opts->config->project_dir };
	if (floe_server_jobs_new(&jobs, opts->config, bin) < 0)
		goto cleanup;
	floe_server_console console = { opts->config, &access, bin, NULL, jobs };
	http = floe_http_server_new(MAX_BODY);
	floe_server_ops_routes(http, &ops);
	floe_server_mcp_routes(http, mcp);
	floe_server_console_routes(http, &console);
	floe_server_jobs_routes(http, jobs);
	floe_server_rest_routes(http, opts->config);
	if (secure(http, &access, opts) < 0 || floe_http_server_listen(http, opts->host, opts->port) < 0)
		goto cleanup;
	bool v6 = strchr(opts->host, ':') != NULL;
	snprintf(url, sizeof(url), "http%s://%s%s%s:%d", access.tls ? "s" : "", v6 ? "[" : "", opts->host, v6 ? "]" : "",
		 floe_http_server_port(http));
	atomic_store(&console.listen_url, (const char *)url); /* handlers already run: publish it whole */
	printf("listening on %s\n", url);
	fflush(stdout);
	loop(sched, opts->config, opts->grace_seconds);
	error = 0;
cleanup:
	floe_server_jobs_stop(jobs); /* ends the event streams the server waits for */
	floe_http_server_free(http);
	floe_server_jobs_free(jobs);
	floe_mcp_free(mcp);
	floe_scheduler_free(sched);
	return error;
}
