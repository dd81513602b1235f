/*
 * jobs.h — the console's jobs (docs/console.md "Jobs"): doctor, sync, check, plan, generate
 * and run as child processes of this floe, one per kind at a time, output appended to
 * .floe/jobs/<id>.log and streamed as server-sent events, cancellable (SIGTERM to the
 * process group, SIGKILL 5 s later), history in the ledger (serve_jobs). `destroy`
 * (`floe stack destroy`) reaches outside the project: admin only, with the project's name
 * typed as confirmation, checked here.
 *
 * Routes: GET /api/jobs (viewer), POST /api/jobs {"kind","confirm"?} (operator; 202, 409 when
 * one of that kind runs), GET /api/jobs/<id>/log, GET /api/jobs/<id>/events (viewer; SSE),
 * POST /api/jobs/<id>/cancel (operator).
 */
#ifndef FLOE_SERVER_JOBS_H
#define FLOE_SERVER_JOBS_H

#include "config/config.h"
#include "server/http.h"

typedef struct floe_server_jobs floe_server_jobs;

/* A job table for the project of `config`, running `floe_bin`; starts its reaper thread. */
int floe_server_jobs_new(floe_server_jobs **out, const floe_config *config, const char *floe_bin);

/* Join the routes; `jobs` must outlive the server. */
void floe_server_jobs_routes(floe_http_server *server, floe_server_jobs *jobs);

/*
 * Before the HTTP server stops: end every event stream (waiting up to 3 s for them to send their
 * end event), cancel what runs (SIGTERM, SIGKILL after 5 s).
 */
void floe_server_jobs_stop(floe_server_jobs *jobs);

/* Stop (if not yet), wait for the jobs to end, stop the reaper, free. Accepts NULL. */
void floe_server_jobs_free(floe_server_jobs *jobs);

#endif
