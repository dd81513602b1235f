/*
 * idle.c — indexes later builds may ask for, made on a core the run's builds leave idle.
 *
 * A full silver build of a merge-on-read table publishes its files; the index of a foreign key that
 * is not in the key (keys.c) is then missing until the first incremental build that needs it makes
 * it — on that build's path. Here the publish hands it over instead (silver_keys_published), and one
 * thread at SCHED_IDLE makes it from the published files whenever the builds leave a core idle:
 * the tail of a run where one table builds alone, the moments a build waits. The one whose parent
 * has the most rows goes first (more rows, more likely to lose some to deletes). At the run's end
 * the index under way stops at its next row group and what is left is left for the builds that ask
 * (their made-ahead path): the run waits for no more than the row group it is reading, or the one
 * file's keys it is writing; FLOE_SILVER_IDLE=wait makes every one first (the tests), =off none.
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct waiting {
	silver_idle_index *x;
	int64_t priority;
} waiting;

struct silver_idle {
	const floe_config *config;
	pthread_mutex_t mu;
	pthread_cond_t more;
	waiting *queue;                   /* not yet taken */
	size_t n, cap;
	bool wait;                        /* FLOE_SILVER_IDLE=wait: the run's end waits for every index */
	bool started, closing;
	atomic_bool stop;                 /* the index under way stops at its next row group */
	pthread_t thread;
	size_t made, stopped, failed;
};

silver_idle *silver_idle_start(const floe_config *config)
{
	const char *mode = getenv("FLOE_SILVER_IDLE");
	if (mode && strcmp(mode, "off") == 0)
		return NULL;
	silver_idle *q = floe_xcalloc(1, sizeof(*q));
	q->config = config;
	q->wait = mode && strcmp(mode, "wait") == 0;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->more, NULL);
	atomic_init(&q->stop, false);
	return q;
}

/* The waiting index of the highest priority, taken off the queue (under mu); NULL: none. */
static silver_idle_index *take(silver_idle *q)
{
	if (q->n == 0)
		return NULL;
	size_t best = 0;
	for (size_t i = 1; i < q->n; i++)
		if (q->queue[i].priority > q->queue[best].priority)
			best = i;
	silver_idle_index *x = q->queue[best].x;
	q->queue[best] = q->queue[--q->n];
	return x;
}

static void *builder(void *arg)
{
	silver_idle *q = arg;
	struct sched_param none = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &none); /* best effort: else it only competes */
	floe_arena *a = floe_arena_new();
	floe_iceberg_catalog *cat = NULL;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->n == 0 && !q->closing)
			pthread_cond_wait(&q->more, &q->mu);
		silver_idle_index *x = atomic_load(&q->stop) ? NULL : take(q);
		if (!x)
			break;
		pthread_mutex_unlock(&q->mu);
		char name[256];
		silver_keys_idle_name(x, name, sizeof(name));
		int rc = cat || silver_catalog_open(&cat, a, q->config) == 0 ? silver_keys_idle_make(x, cat, &q->stop) : -1;
		if (rc > 0)
			floe_log_debug("%s: the index of its foreign key made on an idle core", name);
		else if (rc < 0)
			floe_log_debug("%s: the index of its foreign key was not made on an idle core (the build that asks "
				       "makes it): %s", name, floe_error_last()->message);
		floe_error_clear();
		silver_keys_idle_free(x);
		pthread_mutex_lock(&q->mu);
		*(rc > 0 ? &q->made : rc == 0 ? &q->stopped : &q->failed) += 1;
	}
	pthread_mutex_unlock(&q->mu);
	floe_iceberg_catalog_free(cat);
	floe_arena_free(a);
	return NULL;
}

void silver_idle_add(silver_idle *q, silver_idle_index *x, int64_t priority)
{
	pthread_mutex_lock(&q->mu);
	if (!q->started && !q->closing)
		q->started = pthread_create(&q->thread, NULL, builder, q) == 0;
	if (!q->started || q->closing) {
		pthread_mutex_unlock(&q->mu);
		silver_keys_idle_free(x); /* no builder: the build that asks makes it */
		return;
	}
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 8;
		q->queue = floe_xrealloc(q->queue, q->cap * sizeof(*q->queue));
	}
	q->queue[q->n++] = (waiting){ .x = x, .priority = priority };
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->mu);
}

void silver_idle_stop(silver_idle *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->closing = true;
	if (!q->wait)
		atomic_store(&q->stop, true);
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->mu);
	if (q->started)
		pthread_join(q->thread, NULL);
	size_t left = q->n;
	for (size_t i = 0; i < q->n; i++)
		silver_keys_idle_free(q->queue[i].x);
	if (q->made + q->stopped + q->failed + left)
		floe_log_debug("silver: foreign keys' indexes on an idle core: %zu made, %zu left for the builds that ask "
			       "(%zu stopped at the run's end, %zu not started), %zu failed",
			       q->made, q->stopped + left, q->stopped, left, q->failed);
	free(q->queue);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->more);
	free(q);
}
