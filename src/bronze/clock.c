/*
 * clock.c — where a load's time goes: a monotonic clock and one line per step, "<table>: <step>
 * in <s> s" — at -v for an incremental load's stages (merge.c: the bench reads these), at -vv for
 * every step of a load and of a follower's batch (load.c, follow.c).
 */
#include "bronze/bronze_int.h"
#include "base/log.h"

#include <time.h>

double bronze_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bronze_step_at(floe_log_level level, const bronze_job *job, double *t, const char *what)
{
	double now = bronze_seconds();
	floe_log(level, "%s: %s in %.4f s", job->table->bronze, what, now - *t);
	*t = now;
}

void bronze_step(const bronze_job *job, double *t, const char *what)
{
	bronze_step_at(FLOE_LOG_DEBUG, job, t, what);
}
