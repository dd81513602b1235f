/*
 * reader.c — a full load's COPY stream as batches of column vectors, decoded on a thread of
 * its own (two threads) or inline (one), so that receiving and decoding the next batch
 * overlaps encoding, compressing and writing this one.
 *
 * Two batches, each a set of vectors: the decoder fills one while the writer drains the
 * other, and waits when both are full (the bound on memory: two batches of at most
 * BRONZE_BATCH_BYTES). A batch never crosses a file's row bound (`file_rows`), because the
 * decoder counts the rows it hands out exactly as bronze_files_write closes files. The
 * decoder's error moves to the writer's thread (floe_error_take/give); the writer stopping
 * early stops the decoder after its current batch.
 */
#include "bronze/bronze_int.h"
#include "base/error.h"
#include "base/log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 2

typedef struct slot {
	floe_vector *vectors;
	size_t rows;
	uint64_t bytes; /* COPY bytes read once this batch was complete */
} slot;

struct bronze_reader {
	floe_pg_copy *copy;
	bronze_load *load;
	size_t n_cols, file_rows, in_file;
	bool threaded;
	slot slots[SLOTS];
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t head, count;  /* full batches: slots[head], …, count of them */
	bool done, stop, held;
	int rc;
	floe_error err;      /* the decoder thread's, when rc < 0 */
};

int bronze_load_threads(void)
{
	const char *env = getenv("FLOE_LOAD_THREADS");
	if (env && (strcmp(env, "1") == 0 || strcmp(env, "2") == 0))
		return env[0] - '0';
	/* With a core for PostgreSQL's backend and one for each of floe's threads. */
	return sysconf(_SC_NPROCESSORS_ONLN) > 2 ? 2 : 1;
}

/* One batch into `s`: at most the rows the open file still takes. */
static int fill(bronze_reader *r, slot *s)
{
	size_t room = r->file_rows ? r->file_rows - r->in_file : BRONZE_BATCH_ROWS;
	bronze_vectors_clear(s->vectors, r->n_cols);
	if (floe_pg_copy_next(r->copy, s->vectors, room < BRONZE_BATCH_ROWS ? room : BRONZE_BATCH_ROWS,
			      BRONZE_BATCH_BYTES, &s->rows) < 0)
		return -1;
	s->bytes = floe_pg_copy_bytes(r->copy);
	bronze_load_progress(r->load, "copying", r->copy);
	if (r->file_rows && (r->in_file += s->rows) >= r->file_rows)
		r->in_file = 0;
	return 0;
}

static void *decode_thread(void *arg)
{
	bronze_reader *r = arg;
	for (;;) {
		pthread_mutex_lock(&r->mu);
		while (r->count == SLOTS && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		bool stop = r->stop;
		slot *s = &r->slots[(r->head + r->count) % SLOTS];
		pthread_mutex_unlock(&r->mu);
		int rc = stop ? 0 : fill(r, s);
		pthread_mutex_lock(&r->mu);
		if (rc < 0)
			floe_error_take(&r->err);
		r->rc = rc;
		r->done = stop || rc < 0 || s->rows == 0;
		if (!r->done)
			r->count++;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (r->done)
			return NULL;
	}
}

int bronze_reader_start(bronze_reader **out, floe_pg_copy *copy, bronze_load *l,
			const bronze_columns *cols, floe_arena *arena, size_t file_rows, int threads)
{
	bronze_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return floe_error_set(FLOE_ERR_INTERNAL, "out of memory for the COPY reader");
	r->copy = copy;
	r->load = l;
	r->n_cols = cols->n;
	r->file_rows = file_rows;
	for (int i = 0; i < (threads > 1 ? SLOTS : 1); i++)
		r->slots[i].vectors = bronze_vectors_new(arena, cols);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->threaded = threads > 1 && pthread_create(&r->thread, NULL, decode_thread, r) == 0;
	if (threads > 1 && !r->threaded) { /* no thread to be had: decode inline */
		bronze_vectors_free(r->slots[1].vectors, r->n_cols);
		r->slots[1].vectors = NULL;
	}
	floe_log_debug("%s: COPY decoded %s", l->job->table->bronze,
		       r->threaded ? "on a thread of its own, two batches in flight" : "inline");
	*out = r;
	return 0;
}

int bronze_reader_next(bronze_reader *r, const floe_vector **vectors, size_t *rows, uint64_t *bytes)
{
	slot *s = &r->slots[0];
	if (!r->threaded) {
		if (fill(r, s) < 0)
			return -1;
	} else {
		pthread_mutex_lock(&r->mu);
		if (r->held) { /* the batch handed out last time is written: its slot is free again */
			r->head = (r->head + 1) % SLOTS;
			r->count--;
			r->held = false;
			pthread_cond_broadcast(&r->cv);
		}
		while (r->count == 0 && !r->done)
			pthread_cond_wait(&r->cv, &r->mu);
		int rc = r->count == 0 ? r->rc : 0;
		s = &r->slots[r->head];
		r->held = r->count > 0;
		if (rc < 0)
			floe_error_give(&r->err);
		pthread_mutex_unlock(&r->mu);
		if (rc < 0)
			return -1;
		if (!r->held) { /* the end */
			*vectors = NULL, *rows = 0, *bytes = floe_pg_copy_bytes(r->copy);
			return 0;
		}
	}
	*vectors = s->vectors;
	*rows = s->rows;
	*bytes = s->bytes;
	return 0;
}

void bronze_reader_free(bronze_reader *r)
{
	if (!r)
		return;
	if (r->threaded) {
		pthread_mutex_lock(&r->mu);
		r->stop = true;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
		floe_error_discard(&r->err);
	}
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	for (int i = 0; i < SLOTS; i++)
		if (r->slots[i].vectors)
			bronze_vectors_free(r->slots[i].vectors, r->n_cols);
	free(r);
}
