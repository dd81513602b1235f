/*
 * jobs_api.c — the routes of the console's jobs (jobs.h) and their server-sent event streams.
 */
#include "server/jobs_int.h"
#include "auth/auth.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "server/api.h"
#include "server/request.h"
#include "state/console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HISTORY 50
#define HEARTBEAT 15 /* seconds between SSE comments while a job is silent */

static void write_job(floe_json_writer *w, const floe_state_job *job)
{
	floe_json_write_begin_object(w, true);
	floe_json_write_member_cstr(w, "id", job->id);
	floe_json_write_member_cstr(w, "kind", job->kind);
	floe_json_write_member_cstr(w, "args", job->args);
	floe_json_write_member_cstr(w, "started_by", job->started_by);
	floe_json_write_member_cstr(w, "started_at", job->started_at);
	floe_json_write_member_cstr(w, "finished_at", job->finished_at);
	floe_json_write_member_cstr(w, "status", job->status);
	floe_json_write_key(w, "exit_code");
	if (job->exit_code < 0)
		floe_json_write_null(w);
	else
		floe_json_write_int(w, job->exit_code);
	floe_json_write_end_object(w);
}

static void write_kinds(floe_json_writer *w, int role)
{
	floe_json_write_key(w, "kinds");
	floe_json_write_begin_array(w, false);
	for (int i = 0; i < floe_jobs_n_kinds; i++) {
		const job_kind *k = &floe_jobs_kinds[i];
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "name", k->name);
		floe_json_write_member_cstr(w, "what", k->what);
		floe_json_write_member_cstr(w, "role", floe_auth_role_name((floe_role)k->min_role));
		floe_json_write_member_bool(w, "confirm", k->confirm);
		floe_json_write_member_bool(w, "allowed", role >= k->min_role);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
}

static int list_jobs(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	floe_server_jobs *j = ctx;
	floe_state *st = NULL;
	floe_arena *a = floe_arena_new();
	floe_state_job *jobs = NULL;
	size_t n = 0;
	floe_json_writer w;
	int error = -1;
	if (floe_state_open(&st, j->project_dir) < 0 || floe_state_job_list(st, a, HISTORY, &jobs, &n) < 0)
		goto cleanup;
	res->content_type = FLOE_API_JSON;
	floe_json_write_init(&w, &res->body, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "project", j->project_name);
	write_kinds(&w, req->role);
	floe_json_write_key(&w, "jobs");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < n; i++)
		write_job(&w, &jobs[i]);
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	error = floe_json_write_finish(&w);
cleanup:
	floe_state_close(st);
	floe_arena_free(a);
	return error;
}

static int start_job(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	floe_server_jobs *j = ctx;
	char kind_name[32], confirm[256], id[JOB_ID_MAX];
	bool busy = false;
	floe_server_api_text(confirm, sizeof(confirm), req, "confirm");
	const job_kind *kind = floe_server_api_text(kind_name, sizeof(kind_name), req, "kind") ? floe_jobs_kind(kind_name)
												  : NULL;
	if (!kind)
		return floe_server_api_error(res, 400, "BadRequestException",
					     "send {\"kind\": K} as JSON, K one of doctor, sync, check, plan, generate, run, destroy");
	if (req->role < kind->min_role)
		return floe_server_api_error(res, 403, "ForbiddenException", "this job needs the admin role");
	if (kind->confirm && (!j->project_name || !floe_auth_secret_eq(confirm, j->project_name)))
		return floe_server_api_error(res, 400, "BadRequestException",
				 "the typed confirmation does not equal the project's name; nothing was started");
	if (floe_jobs_start(j, id, &busy, kind, req->who) < 0)
		return -1;
	if (busy)
		return floe_server_api_error(res, 409, "ConflictException", "a job of this kind is running already");
	res->status = 202;
	res->content_type = FLOE_API_JSON;
	return floe_buf_printf(&res->body, "{\"id\":\"%s\",\"kind\":\"%s\"}", id, kind->name);
}

/* The job `id` from the ledger into a (or *out NULL). */
static int job_of(floe_state_job **out, floe_arena *a, floe_server_jobs *j, const char *id)
{
	floe_state *st = NULL;
	int error = floe_state_open(&st, j->project_dir) < 0 ? -1 : floe_state_job_get(st, a, id, out);
	floe_state_close(st);
	return error;
}

/* A job's event stream: each log line as one `data:` event, then `event: end` with the outcome. */
typedef struct events {
	floe_server_jobs *jobs;
	char id[JOB_ID_MAX];
	int fd;
	floe_buf line, out;   /* a partial line; SSE text not yet sent */
	size_t out_sent;
	int64_t quiet_since;
	bool ended;
} events;

static void events_free(void *ctx)
{
	events *e = ctx;
	pthread_mutex_lock(&e->jobs->lock);
	e->jobs->streams--;
	pthread_cond_broadcast(&e->jobs->changed);
	pthread_mutex_unlock(&e->jobs->lock);
	if (e->fd >= 0)
		close(e->fd);
	floe_buf_free(&e->line);
	floe_buf_free(&e->out);
	free(e);
}

static void emit_line(events *e)
{
	floe_buf_puts(&e->out, "data: ");
	for (size_t i = 0; i < e->line.len; i++)
		if (e->line.ptr[i] != '\r')
			floe_buf_putc(&e->out, e->line.ptr[i]);
	floe_buf_puts(&e->out, "\n\n");
	floe_buf_clear(&e->line);
}

/* The job's end as the last event (after any partial line). */
static void emit_end(events *e)
{
	floe_arena *a = floe_arena_new();
	floe_state_job *job = NULL;
	if (e->line.len)
		emit_line(e);
	if (job_of(&job, a, e->jobs, e->id) < 0)
		floe_error_clear();
	floe_buf_printf(&e->out, "event: end\ndata: {\"status\":\"%s\",\"exit_code\":%lld}\n\n",
			job ? job->status : "unknown", job ? (long long)job->exit_code : -1LL);
	floe_arena_free(a);
	e->ended = true;
}

/* Read what the log has now into lines; how many bytes (0 at its end for now). */
static ssize_t take(events *e)
{
	char chunk[4096];
	ssize_t n = read(e->fd, chunk, sizeof(chunk));
	for (ssize_t i = 0; i < n; i++) {
		if (chunk[i] == '\n')
			emit_line(e);
		else
			floe_buf_putc(&e->line, chunk[i]);
	}
	return n;
}

/* Read what the log has now; wait a little (or until the job ends) when it has nothing. */
static void fill(events *e)
{
	if (take(e) > 0) {
		e->quiet_since = time(NULL);
		return;
	}
	floe_server_jobs *j = e->jobs;
	pthread_mutex_lock(&j->lock);
	bool running = false, stopping = j->stopping;
	for (int i = 0; i < floe_jobs_n_kinds; i++)
		running |= j->slots[i].pid && strcmp(j->slots[i].id, e->id) == 0;
	if (running && !stopping) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250 * 1000 * 1000;
		until.tv_sec += until.tv_nsec / 1000000000;
		until.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&j->changed, &j->lock, &until);
	}
	pthread_mutex_unlock(&j->lock);
	if (!running || stopping) {
		/* The log may have grown between the read and the job's end: drain it first. */
		while (take(e) > 0)
			;
		emit_end(e);
	} else if (time(NULL) - e->quiet_since >= HEARTBEAT) {
		floe_buf_puts(&e->out, ": still running\n\n");
		e->quiet_since = time(NULL);
	}
}

static long events_read(void *ctx, char *buf, size_t max)
{
	events *e = ctx;
	while (e->out_sent == e->out.len) {
		if (e->ended)
			return 0;
		floe_buf_clear(&e->out);
		e->out_sent = 0;
		fill(e);
	}
	size_t n = e->out.len - e->out_sent < max ? e->out.len - e->out_sent : max;
	memcpy(buf, e->out.ptr + e->out_sent, n);
	e->out_sent += n;
	return (long)n;
}

static int stream_events(floe_http_response *res, floe_server_jobs *j, const floe_state_job *job)
{
	events *e = floe_xcalloc(1, sizeof(*e));
	e->jobs = j;
	snprintf(e->id, sizeof(e->id), "%s", job->id);
	e->fd = open(job->log_path, O_RDONLY | O_CLOEXEC);
	e->quiet_since = time(NULL);
	floe_buf_init(&e->line, 1u << 20);
	floe_buf_init(&e->out, 4u << 20);
	pthread_mutex_lock(&j->lock);
	j->streams++;
	pthread_mutex_unlock(&j->lock);
	if (e->fd < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not open the log of job %s", job->id);
		events_free(e);
		return -1;
	}
	res->content_type = "text/event-stream";
	res->stream = events_read;
	res->stream_ctx = e;
	res->stream_free = events_free;
	return 0;
}

static int job_get(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	floe_server_jobs *j = ctx;
	floe_arena *a = floe_arena_new();
	floe_state_job *job = NULL;
	char id[JOB_ID_MAX];
	const char *action = NULL;
	int error = -1;
	if (!floe_server_job_path(id, &action, req->path) || (strcmp(action, "log") != 0 && strcmp(action, "events") != 0)) {
		error = floe_server_api_error(res, 404, "NoSuchJobException", "no such job path");
		goto cleanup;
	}
	if (job_of(&job, a, j, id) < 0)
		goto cleanup;
	if (!job)
		error = floe_server_api_error(res, 404, "NoSuchJobException", "no job has this id");
	else if (strcmp(action, "events") == 0)
		error = stream_events(res, j, job);
	else if (floe_fs_read_file(&res->body, job->log_path) == 0)
		error = 0;
cleanup:
	floe_arena_free(a);
	return error;
}

static int job_post(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	floe_server_jobs *j = ctx;
	char id[JOB_ID_MAX];
	const char *action = NULL;
	bool found = false;
	if (!floe_server_job_path(id, &action, req->path) || strcmp(action, "cancel") != 0)
		return floe_server_api_error(res, 404, "NoSuchJobException", "no such job path");
	floe_jobs_cancel(j, id, &found);
	if (!found)
		return floe_server_api_error(res, 409, "ConflictException", "this job is not running");
	res->status = 202;
	res->content_type = FLOE_API_JSON;
	return floe_buf_printf(&res->body, "{\"id\":\"%s\",\"cancelling\":true}", id);
}

void floe_server_jobs_routes(floe_http_server *server, floe_server_jobs *jobs)
{
	floe_http_route_add_role(server, "GET", "/api/jobs", FLOE_ROLE_VIEWER, list_jobs, jobs);
	floe_http_route_add_role(server, "POST", "/api/jobs", FLOE_ROLE_OPERATOR, start_job, jobs);
	floe_http_route_add_role(server, "GET", "/api/jobs/*", FLOE_ROLE_VIEWER, job_get, jobs);
	floe_http_route_add_role(server, "POST", "/api/jobs/*", FLOE_ROLE_OPERATOR, job_post, jobs);
}
