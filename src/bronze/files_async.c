/*
 * files_async.c — a rewrite's data files encoded, compressed and written on a thread of their
 * own while the rewrite reads and merges the next batch (compaction and copy-on-write: reading
 * Parquet and writing it cost about the same, and no PostgreSQL backend wants a core meanwhile).
 *
 * One batch in flight: bronze_files_write_async hands the caller's filled vectors to the writer
 * thread and gives the caller the vectors the thread emptied, so at most two batches are in
 * memory. Every other bronze_files call first waits for the batch in flight (settle), and a
 * failed write's error moves to the caller there (floe_error_take/give). The open file's
 * writer is the thread's only while a batch is in flight.
 */
#include "bronze/bronze_int.h"
#include "base/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bronze_files_async {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	floe_vector *batch;  /* the batch in flight (the thread empties it), or the spare */
	floe_parquet_writer *writer;
	size_t n_cols;
	bool busy, quit;
	int rc;
	floe_error err;      /* the thread's, when rc < 0 */
};

static void *writer_main(void *arg)
{
	bronze_files_async *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->busy && !a->quit)
			pthread_cond_wait(&a->cv, &a->mu);
		if (!a->busy)
			break;
		pthread_mutex_unlock(&a->mu);
		int rc = floe_parquet_writer_write_batch(a->writer, a->batch, a->n_cols);
		if (rc < 0)
			floe_error_take(&a->err);
		bronze_vectors_clear(a->batch, a->n_cols);
		pthread_mutex_lock(&a->mu);
		a->rc = rc < 0 ? rc : a->rc;
		a->busy = false;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

bool bronze_files_async_wanted(void)
{
	const char *env = getenv("FLOE_LOAD_THREADS");
	return !(env && strcmp(env, "1") == 0) && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

int bronze_files_async_start(bronze_files *f)
{
	bronze_files_async *a = floe_xcalloc(1, sizeof(*a));
	a->n_cols = f->cols->n;
	a->batch = bronze_vectors_new(f->arena, f->cols);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (pthread_create(&a->thread, NULL, writer_main, a) != 0) { /* write inline instead */
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		bronze_vectors_free(a->batch, a->n_cols);
		free(a);
		return 0;
	}
	f->async = a;
	return 0;
}

/* Wait until no batch is in flight: the failure of one that failed since the last wait. */
static int wait_idle(bronze_files_async *a)
{
	int rc;
	pthread_mutex_lock(&a->mu);
	while (a->busy)
		pthread_cond_wait(&a->cv, &a->mu);
	rc = a->rc;
	a->rc = 0;
	pthread_mutex_unlock(&a->mu);
	return rc;
}

int bronze_files_settle(bronze_files *f)
{
	if (!f->async)
		return 0;
	return wait_idle(f->async) < 0 ? floe_error_give(&f->async->err) : 0;
}

void bronze_files_settle_quiet(bronze_files *f)
{
	if (f->async && wait_idle(f->async) < 0)
		floe_error_discard(&f->async->err);
}

int bronze_files_write_async(bronze_files *f, floe_vector *vectors)
{
	bronze_files_async *a = f->async;
	size_t rows = f->cols->n ? vectors[0].len : 0;
	if (!a || rows == 0)
		return bronze_files_write(f, vectors);
	if (bronze_files_settle(f) < 0 || (!f->writer && bronze_files_open(f) < 0))
		return -1;
	bronze_files_kept(f, vectors, rows);
	pthread_mutex_lock(&a->mu);
	for (size_t i = 0; i < a->n_cols; i++) { /* the caller's batch goes, the emptied one comes back */
		floe_vector t = a->batch[i];
		a->batch[i] = vectors[i];
		vectors[i] = t;
	}
	a->writer = f->writer;
	a->busy = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	f->rows += rows;
	if (f->max_rows && f->rows >= f->max_rows)
		return bronze_files_close(f);
	return 0;
}

int bronze_files_async_stop(bronze_files *f)
{
	bronze_files_async *a = f->async;
	if (!a)
		return 0;
	int rc = bronze_files_settle(f);
	pthread_mutex_lock(&a->mu);
	a->quit = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	bronze_vectors_free(a->batch, a->n_cols);
	floe_error_discard(&a->err);
	free(a);
	f->async = NULL;
	return rc;
}
