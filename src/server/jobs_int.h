/*
 * jobs_int.h — what jobs.c (the job table and its reaper) and jobs_api.c (the routes and
 * event streams) share.
 */
#ifndef FLOE_SERVER_JOBS_INT_H
#define FLOE_SERVER_JOBS_INT_H

#include "server/jobs.h"
#include "server/request.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define JOB_ID_MAX FLOE_JOB_ID_MAX
#define KILL_AFTER 5 /* seconds between SIGTERM and SIGKILL */

typedef struct job_kind {
	const char *name;
	const char *args[3]; /* after `floe --config FILE` */
	int min_role;        /* a floe_role */
	bool confirm;        /* needs the project's name typed */
	const char *what;    /* for the page */
} job_kind;

extern const job_kind floe_jobs_kinds[];
extern const int floe_jobs_n_kinds;

/* The job of one kind that runs now (pid 0: none). */
typedef struct job_slot {
	char id[JOB_ID_MAX];
	int pid;
	int64_t term_at; /* when SIGTERM was sent (monotonic seconds); 0: not cancelled */
} job_slot;

struct floe_server_jobs {
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a job ended or the server stops */
	const char *project_dir, *config_path, *project_name, *floe_bin;
	job_slot *slots;        /* one per kind */
	bool stopping;
	int streams;            /* event streams open: stopping waits (a little) for them to end cleanly */
	pthread_t reaper;
	bool reaper_started;
};

/* The kind named `name`, or NULL. */
const job_kind *floe_jobs_kind(const char *name);

/*
 * Start a job of `kind` for `who`; *busy when one of that kind runs (then nothing starts).
 * `id` gets the new job's id.
 */
int floe_jobs_start(floe_server_jobs *j, char id[JOB_ID_MAX], bool *busy, const job_kind *kind, const char *who);

/* Cancel job `id`; *found false when it is not running. */
void floe_jobs_cancel(floe_server_jobs *j, const char *id, bool *found);

/* Whether job `id` is running now. */
bool floe_jobs_running(floe_server_jobs *j, const char *id);

#endif
