/*
 * scheduler.c — cron jobs as child `floe run` processes (see scheduler.h).
 */
#include "server/scheduler.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "config/kafka.h"
#include "config/schedule.h"
#include "plan/lock.h"
#include "state/state.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_BACKOFF 3600

typedef struct job {
	const char *key;          /* the ledger's schedule key: "bronze public.orders", "public.orders", "gold" */
	const char *table;        /* "public.orders"; NULL: the whole layer (gold) */
	const char *layer;        /* "bronze", "silver", "gold"; NULL: every layer of the table */
	const char *label_table, *label_layer; /* as /metrics names them */
	const floe_cron *cron;
	int64_t last_tick;
	pid_t pid;                /* 0: idle */
	int attempt;              /* retries spent on the current tick */
	int64_t retry_at;         /* 0: none pending */
	int64_t skipped, retries;
} job;

struct floe_scheduler {
	floe_arena *arena;
	const floe_config *config;
	const char *floe_bin;
	job *jobs;
	size_t n_jobs;
	int max_retries;
	int64_t retry_delay;
	pthread_mutex_t mu;       /* the counters, read by /metrics on the server's thread */
};

static const floe_schedule_entry *entry_for(const floe_config_schedule *sc, const char *key)
{
	for (size_t i = 0; i < sc->n_entries; i++)
		if (strcmp(sc->entries[i].key, key) == 0)
			return &sc->entries[i];
	return NULL;
}

static void add_job(floe_scheduler *s, const floe_schedule_entry *e, const char *table, const char *layer,
		    const char *label_table)
{
	job *j = &s->jobs[s->n_jobs++];
	*j = (job){ .table = table, .layer = layer, .cron = &e->cron, .label_table = label_table,
		    .label_layer = layer ? layer : "all" };
	j->key = table && layer ? floe_arena_printf(s->arena, "%s %s", layer, table) : table ? table : layer;
}

/*
 * One bronze job per Kafka topic's table ("bronze.<table>": `floe run --table bronze.<table>` consumes
 * only that topic), on the bronze schedule or the table's own; two topics into one table are one job.
 */
static void plan_topic_jobs(floe_scheduler *s, const floe_config_schedule *sc, const floe_schedule_entry *b)
{
	const floe_config_kafka *k = s->config->kafka;
	for (size_t i = 0; k && i < k->n_topics; i++) {
		bool seen = false;
		for (size_t p = 0; p < i; p++)
			seen |= strcmp(k->topics[p].table, k->topics[i].table) == 0;
		const char *name = floe_arena_printf(s->arena, "bronze.%s", k->topics[i].table);
		const floe_schedule_entry *own = entry_for(sc, name);
		if (!seen && (own || b))
			add_job(s, own ? own : b, name, own ? NULL : "bronze", name);
	}
}

/*
 * One bronze job per table; one silver job and one gold job for the whole layer (floe run builds
 * silver in lineage order: a relationships test's parent before its children, so every table is
 * tested against parents of the same tick); a table's own schedule replaces its layer jobs.
 */
static void plan_jobs(floe_scheduler *s, const floe_config_schedule *sc, const floe_lock *lock)
{
	size_t n = floe_lock_count(lock);
	const floe_schedule_entry *b = entry_for(sc, "bronze");
	size_t n_topics = s->config->kafka ? s->config->kafka->n_topics : 0;
	s->jobs = floe_arena_alloc(s->arena, (n + n_topics + 3) * sizeof(*s->jobs));
	for (size_t i = 0; i < n; i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		if (t->mode == FLOE_LOAD_REMOVED || t->mode == FLOE_LOAD_REFUSED || t->owner)
			continue;
		const char *name = floe_arena_printf(s->arena, "%s.%s", t->schema, t->name);
		const char *bronze = floe_arena_strdup(s->arena, t->bronze);
		const floe_schedule_entry *own = entry_for(sc, name);
		if (own || b)
			add_job(s, own ? own : b, name, own ? NULL : "bronze", bronze);
	}
	plan_topic_jobs(s, sc, b);
	static const char *const layers[] = { "silver", "gold" };
	for (int i = 0; i < 2; i++) {
		const floe_schedule_entry *e = entry_for(sc, layers[i]);
		if (e)
			add_job(s, e, NULL, layers[i], "all");
	}
}

/* Each job's last tick from the ledger; a job never run starts from now (no catch-up of the past). */
static int load_ticks(floe_scheduler *s, int64_t now)
{
	floe_state *st = NULL;
	if (floe_state_open(&st, s->config->project_dir) < 0)
		return -1;
	int error = 0;
	for (size_t i = 0; i < s->n_jobs && error == 0; i++) {
		error = floe_state_tick_get(st, s->jobs[i].key, &s->jobs[i].last_tick);
		if (error == 0 && s->jobs[i].last_tick == 0) {
			s->jobs[i].last_tick = now;
			error = floe_state_tick_put(st, s->jobs[i].key, now);
		}
	}
	floe_state_close(st);
	return error;
}

int floe_scheduler_new(floe_scheduler **out, const floe_config *config, const char *floe_bin, int64_t now)
{
	floe_lock *lock = NULL;
	floe_scheduler *s = floe_xcalloc(1, sizeof(*s));
	int error = -1;
	s->arena = floe_arena_new();
	s->config = config;
	s->floe_bin = floe_bin;
	pthread_mutex_init(&s->mu, NULL);
	*out = NULL;
	const floe_config_schedule *sc = config->schedule;
	if (!sc) {
		*out = s;
		return 0;
	}
	s->max_retries = sc->retries;
	s->retry_delay = sc->retry_delay;
	if (floe_lock_load(&lock, floe_config_lock_path(s->arena, config)) < 0)
		goto cleanup;
	plan_jobs(s, sc, lock);
	if (load_ticks(s, now) < 0)
		goto cleanup;
	*out = s;
	s = NULL;
	error = 0;
cleanup:
	floe_lock_free(lock);
	floe_scheduler_free(s);
	return error;
}

void floe_scheduler_free(floe_scheduler *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->mu);
	floe_arena_free(s->arena);
	free(s);
}

/* Start `floe run` for j in a process group of its own (a terminal's ^C reaches only the server). */
static void start(floe_scheduler *s, job *j)
{
	const char *argv[16];
	int n = 0;
	argv[n++] = s->floe_bin;
	argv[n++] = "--config";
	argv[n++] = s->config->path;
	argv[n++] = "run";
	if (j->table) {
		argv[n++] = "--table";
		argv[n++] = j->table;
	}
	if (j->layer) {
		argv[n++] = "--layer";
		argv[n++] = j->layer;
	}
	argv[n++] = "--json";
	argv[n] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	pid_t pid = 0;
	int rc = posix_spawn(&pid, s->floe_bin, &fa, &attr, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		floe_log_warn("schedule \"%s\": could not start %s: %s", j->key, s->floe_bin, strerror(rc));
		return;
	}
	j->pid = pid;
	floe_log_info("schedule \"%s\": started run (pid %d, attempt %d)", j->key, (int)pid, j->attempt + 1);
}

/* The newest tick at or before `now` after `from`, or -1 when none is due. */
static int64_t due_tick(const floe_cron *c, int64_t from, int64_t now)
{
	int64_t t = floe_cron_next(c, from), last = -1;
	while (t >= 0 && t <= now) {
		last = t;
		t = floe_cron_next(c, t);
	}
	return last;
}

static void save_tick(floe_scheduler *s, job *j, int64_t tick)
{
	floe_state *st = NULL;
	j->last_tick = tick;
	if (floe_state_open(&st, s->config->project_dir) < 0 || floe_state_tick_put(st, j->key, tick) < 0) {
		floe_log_warn("schedule \"%s\": could not record its tick in the run ledger", j->key);
		floe_error_clear();
	}
	floe_state_close(st);
}

/*
 * Whether a run j must not overlap is going: another job of j's table (a table's own schedule
 * and its bronze job), or any run at all when j or that run covers a whole layer (silver, gold).
 */
static bool table_busy(const floe_scheduler *s, const job *j)
{
	for (size_t i = 0; i < s->n_jobs; i++) {
		const job *o = &s->jobs[i];
		if (o != j && o->pid && (!o->table || !j->table || strcmp(o->table, j->table) == 0))
			return true;
	}
	return false;
}

void floe_scheduler_tick(floe_scheduler *s, int64_t now)
{
	for (size_t i = 0; i < s->n_jobs; i++) {
		job *j = &s->jobs[i];
		int64_t tick = due_tick(j->cron, j->last_tick, now);
		if (!j->pid && table_busy(s, j))
			continue; /* a run it must not overlap is going: it waits its turn (still due) */
		if (tick >= 0) {
			save_tick(s, j, tick);
			if (j->pid) {
				pthread_mutex_lock(&s->mu);
				j->skipped++;
				pthread_mutex_unlock(&s->mu);
				floe_log_warn("schedule \"%s\": skipped the tick, its previous run is still going", j->key);
				continue;
			}
			j->attempt = 0;
			j->retry_at = 0;
			start(s, j);
		} else if (!j->pid && j->retry_at && j->retry_at <= now) {
			j->retry_at = 0;
			start(s, j);
		}
	}
}

/* Full jitter: rand(0, min(cap, base·2^n)) seconds. */
static int64_t backoff(int64_t base, int attempt)
{
	int64_t ceiling = base;
	for (int i = 0; i < attempt && ceiling < MAX_BACKOFF; i++)
		ceiling *= 2;
	if (ceiling > MAX_BACKOFF)
		ceiling = MAX_BACKOFF;
	uint32_t r = 0;
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint32_t)getpid();
	return (int64_t)(r % (uint64_t)(ceiling + 1));
}

static void ended(floe_scheduler *s, job *j, int status, int64_t now)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	j->pid = 0;
	if (code == 0) {
		j->attempt = 0;
		return;
	}
	if (code == 2 || j->attempt >= s->max_retries) {
		floe_log_warn("schedule \"%s\": run failed (exit %d)%s", j->key, code,
			      code == 2 ? "; a configuration error is not retried" : "; no retries left");
		j->attempt = 0;
		return;
	}
	j->attempt++;
	j->retry_at = now + backoff(s->retry_delay, j->attempt - 1);
	pthread_mutex_lock(&s->mu);
	j->retries++;
	pthread_mutex_unlock(&s->mu);
	floe_log_warn("schedule \"%s\": run failed (exit %d); retry %d of %d in %llds", j->key, code, j->attempt,
		      s->max_retries, (long long)(j->retry_at - now));
}

size_t floe_scheduler_reap(floe_scheduler *s, int64_t now)
{
	size_t n = 0;
	/* Only its own children: the console's jobs (jobs.c) are reaped by their owner. */
	for (size_t i = 0; i < s->n_jobs; i++) {
		int status = 0;
		if (s->jobs[i].pid && waitpid(s->jobs[i].pid, &status, WNOHANG) == s->jobs[i].pid) {
			ended(s, &s->jobs[i], status, now);
			n++;
		}
	}
	return n;
}

size_t floe_scheduler_running(const floe_scheduler *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_jobs; i++)
		n += s->jobs[i].pid != 0;
	return n;
}

void floe_scheduler_signal(floe_scheduler *s, int sig)
{
	for (size_t i = 0; i < s->n_jobs; i++)
		if (s->jobs[i].pid)
			kill(-s->jobs[i].pid, sig);
}

size_t floe_scheduler_counters(floe_scheduler *s, floe_metrics_sched **out)
{
	*out = floe_xcalloc(s->n_jobs + 1, sizeof(**out));
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->n_jobs; i++)
		(*out)[i] = (floe_metrics_sched){ s->jobs[i].label_table, s->jobs[i].label_layer, s->jobs[i].skipped,
						  s->jobs[i].retries };
	pthread_mutex_unlock(&s->mu);
	return s->n_jobs;
}
