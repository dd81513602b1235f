/*
 * jobs.c — the console's job table (jobs.h): start, cancel, and a reaper thread that waits
 * for the children, escalates SIGTERM to SIGKILL and records each end in the ledger.
 */
#include "server/jobs_int.h"
#include "auth/auth.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/hmac.h"
#include "base/log.h"
#include "base/proc.h"
#include "state/console.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const job_kind floe_jobs_kinds[] = {
	{ "doctor", { "doctor" }, FLOE_ROLE_OPERATOR, false, "check the source, catalog and tools" },
	{ "sync", { "sync" }, FLOE_ROLE_OPERATOR, false, "compare the source with the deployed lock" },
	{ "check", { "check", "--lint" }, FLOE_ROLE_OPERATOR, false, "lint the pipeline" },
	{ "plan", { "plan" }, FLOE_ROLE_OPERATOR, false, "show how each table would load" },
	{ "generate", { "generate" }, FLOE_ROLE_OPERATOR, false, "write and commit pipeline/" },
	{ "run", { "run" }, FLOE_ROLE_OPERATOR, false, "load and prove every table" },
	{ "destroy", { "stack", "destroy" }, FLOE_ROLE_ADMIN, true, "remove the project's PostgreSQL files" },
};
const int floe_jobs_n_kinds = (int)(sizeof(floe_jobs_kinds) / sizeof(floe_jobs_kinds[0]));

static int64_t monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

const job_kind *floe_jobs_kind(const char *name)
{
	for (int i = 0; name && i < floe_jobs_n_kinds; i++)
		if (strcmp(floe_jobs_kinds[i].name, name) == 0)
			return &floe_jobs_kinds[i];
	return NULL;
}

/* Record the end of the job in slot i (lock held) and free the slot. */
static void ended(floe_server_jobs *j, int i, int code)
{
	floe_state *st = NULL;
	const char *status = j->slots[i].term_at ? "cancelled" : code == 0 ? "ok" : "failed";
	if (floe_state_open(&st, j->project_dir) < 0 || floe_state_job_end(st, j->slots[i].id, status, code) < 0) {
		floe_log_warn("job %s: could not record its end: %s", j->slots[i].id, floe_error_last()->message);
		floe_error_clear();
	}
	floe_state_close(st);
	floe_log_info("job %s (%s) ended: %s, exit %d", j->slots[i].id, floe_jobs_kinds[i].name, status, code);
	j->slots[i].pid = 0;
	j->slots[i].term_at = 0;
	pthread_cond_broadcast(&j->changed);
}

static void *reaper(void *arg)
{
	floe_server_jobs *j = arg;
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	pthread_mutex_lock(&j->lock);
	for (;;) {
		int running = 0, code = 0;
		for (int i = 0; i < floe_jobs_n_kinds; i++) {
			job_slot *s = &j->slots[i];
			if (!s->pid)
				continue;
			if (floe_proc_poll(s->pid, &code))
				ended(j, i, code);
			else if (s->term_at && monotonic() - s->term_at >= KILL_AFTER)
				kill(-s->pid, SIGKILL);
			running += s->pid != 0;
		}
		if (j->stopping && running == 0)
			break;
		pthread_mutex_unlock(&j->lock);
		nanosleep(&pause, NULL);
		pthread_mutex_lock(&j->lock);
	}
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

int floe_server_jobs_new(floe_server_jobs **out, const floe_config *config, const char *floe_bin)
{
	floe_state *st = NULL;
	floe_buf dir = FLOE_BUF_INIT;
	*out = NULL;
	floe_buf_printf(&dir, "%s/.floe/jobs", config->project_dir);
	int error = floe_fs_mkdir_p(dir.ptr, 0700) < 0 || floe_state_open(&st, config->project_dir) < 0 ||
			    floe_state_job_interrupt_stale(st) < 0 ? -1 : 0;
	floe_state_close(st);
	floe_buf_free(&dir);
	if (error < 0)
		return -1;
	floe_server_jobs *j = floe_xcalloc(1, sizeof(*j));
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->changed, NULL);
	j->project_dir = config->project_dir;
	j->config_path = config->path;
	j->project_name = config->project_name;
	j->floe_bin = floe_bin;
	j->slots = floe_xcalloc((size_t)floe_jobs_n_kinds, sizeof(*j->slots));
	j->reaper_started = pthread_create(&j->reaper, NULL, reaper, j) == 0;
	*out = j;
	return 0;
}

/* Spawn the child and record it (lock held, slot free). */
static int spawn(floe_server_jobs *j, int k, const char *id, const char *who)
{
	floe_state *st = NULL;
	floe_buf log = FLOE_BUF_INIT, args = FLOE_BUF_INIT;
	char now[32];
	const char *argv[8] = { j->floe_bin, "--config", j->config_path };
	int n = 3, pid = 0, error = -1;
	for (int a = 0; a < 3 && floe_jobs_kinds[k].args[a]; a++) {
		argv[n++] = floe_jobs_kinds[k].args[a];
		floe_buf_printf(&args, "%s%s", a ? " " : "", floe_jobs_kinds[k].args[a]);
	}
	argv[n] = NULL;
	floe_buf_printf(&log, "%s/.floe/jobs/%s.log", j->project_dir, id);
	floe_state_now(now, sizeof(now));
	if (floe_state_open(&st, j->project_dir) < 0 || floe_proc_start(&pid, j->floe_bin, argv, NULL, log.ptr) < 0)
		goto cleanup;
	floe_state_job job = { id, floe_jobs_kinds[k].name, args.ptr, who, pid, now, NULL, "running", -1, log.ptr };
	snprintf(j->slots[k].id, sizeof(j->slots[k].id), "%s", id);
	j->slots[k].pid = pid;
	if (floe_state_job_begin(st, &job) < 0)
		goto cleanup;
	floe_log_info("job %s (%s) started by %s: pid %d", id, floe_jobs_kinds[k].name, who, pid);
	error = 0;
cleanup:
	floe_state_close(st);
	floe_buf_free(&log);
	floe_buf_free(&args);
	return error;
}

int floe_jobs_start(floe_server_jobs *j, char id[JOB_ID_MAX], bool *busy, const job_kind *kind, const char *who)
{
	int k = (int)(kind - floe_jobs_kinds), error = -1;
	char rnd[9], stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	*busy = false;
	if (floe_hmac_random_hex(rnd, 4) < 0)
		return -1;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(id, JOB_ID_MAX, "j%s-%s-%s", stamp, kind->name, rnd);
	pthread_mutex_lock(&j->lock);
	if (j->stopping || j->slots[k].pid) {
		*busy = true;
		error = 0;
	} else
		error = spawn(j, k, id, who);
	pthread_mutex_unlock(&j->lock);
	return error;
}

void floe_jobs_cancel(floe_server_jobs *j, const char *id, bool *found)
{
	*found = false;
	pthread_mutex_lock(&j->lock);
	for (int i = 0; i < floe_jobs_n_kinds; i++)
		if (j->slots[i].pid && strcmp(j->slots[i].id, id) == 0) {
			*found = true;
			if (!j->slots[i].term_at) {
				j->slots[i].term_at = monotonic();
				kill(-j->slots[i].pid, SIGTERM);
			}
		}
	pthread_mutex_unlock(&j->lock);
}

bool floe_jobs_running(floe_server_jobs *j, const char *id)
{
	bool running = false;
	pthread_mutex_lock(&j->lock);
	for (int i = 0; i < floe_jobs_n_kinds; i++)
		running |= j->slots[i].pid && strcmp(j->slots[i].id, id) == 0;
	pthread_mutex_unlock(&j->lock);
	return running;
}

void floe_server_jobs_stop(floe_server_jobs *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->lock);
	j->stopping = true;
	for (int i = 0; i < floe_jobs_n_kinds; i++)
		if (j->slots[i].pid && !j->slots[i].term_at) {
			j->slots[i].term_at = monotonic();
			kill(-j->slots[i].pid, SIGTERM);
		}
	pthread_cond_broadcast(&j->changed);
	/* Each stream sends its end event and finishes its response; give them 3 s. */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 3;
	while (j->streams > 0 && pthread_cond_timedwait(&j->changed, &j->lock, &until) == 0)
		;
	pthread_mutex_unlock(&j->lock);
}

void floe_server_jobs_free(floe_server_jobs *j)
{
	if (!j)
		return;
	floe_server_jobs_stop(j);
	if (j->reaper_started)
		pthread_join(j->reaper, NULL);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->changed);
	free(j->slots);
	free(j);
}
