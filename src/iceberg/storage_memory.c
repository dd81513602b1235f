/*
 * storage_memory.c — the `memory` storage backend: objects in a sorted array keyed
 * by URI, for tests. It keeps the same contract as `local` (publish on close,
 * create-never-replace, ranged reads, sorted recursive listings) and can inject
 * the failures a real store has — ENOSPC on a write or at publish, a failed
 * publish (rename), a short read, EIO on a read — each armed by a countdown
 * (floe_iceberg_storage_memory_fault), so callers' error paths can be tested.
 * One mutex guards the store, so parallel writers (bronze's jobs) may share it;
 * a writer's bytes and a reader's copy are their own until publish.
 */
#include "iceberg/storage.h"

#include "base/error.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Reads return at most this much per backend call, as a network store may. */
#define MEM_READ_CHUNK 4096

typedef struct mem_object {
	char *uri;
	char *data;
	size_t len;
	int64_t mtime_ms;
} mem_object;

typedef struct mem_store {
	pthread_mutex_t lock; /* over everything below */
	mem_object *objs; /* sorted by uri (strcmp) */
	size_t n, cap;
	int countdown[FLOE_ICEBERG_FAULT_N];
} mem_store;

/* Whether `f` fires now: its countdown reaches zero at this operation (lock held). */
static bool fire(mem_store *m, floe_iceberg_memory_fault f)
{
	return m->countdown[f] > 0 && --m->countdown[f] == 0;
}

/* fire() for callers that do not hold the lock. */
static bool fire_unlocked(mem_store *m, floe_iceberg_memory_fault f)
{
	pthread_mutex_lock(&m->lock);
	bool fired = fire(m, f);
	pthread_mutex_unlock(&m->lock);
	return fired;
}

/* Set an injected error: `what` "\"uri\"" with errno `e`. */
static int fail(int e, const char *what, const char *uri)
{
	errno = e;
	return floe_error_set_errno(FLOE_ERR_IO, "could not %s \"%s\"", what, uri);
}

/* The index of `uri`, or where it would go; *found says which. */
static size_t find(const mem_store *m, const char *uri, bool *found)
{
	size_t lo = 0, hi = m->n;
	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->objs[mid].uri, uri);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int taken(const char *uri)
{
	floe_error_set(FLOE_ERR_EXISTS, "object \"%s\" already exists", uri);
	floe_error_hint("floe never overwrites a file it did not write; move it away first.");
	return -1;
}

static bool mem_handles(void *state, const char *uri)
{
	(void)state;
	return uri[0] != '\0';
}

typedef struct mem_writer {
	mem_store *m;
	const char *uri; /* borrowed from the dispatch layer */
	floe_buf data;
} mem_writer;

static int mem_open_write(void *state, void **h, const char *uri)
{
	mem_store *m = state;
	mem_writer *w;
	bool found;
	pthread_mutex_lock(&m->lock);
	find(m, uri, &found);
	pthread_mutex_unlock(&m->lock);
	if (found)
		return taken(uri);
	w = floe_xcalloc(1, sizeof(*w));
	w->m = m;
	w->uri = uri;
	floe_buf_init(&w->data, FLOE_BUF_DEFAULT_MAX);
	*h = w;
	return 0;
}

static int mem_write(void *h, const void *data, size_t len)
{
	mem_writer *w = h;
	if (fire_unlocked(w->m, FLOE_ICEBERG_FAULT_WRITE_NO_SPACE))
		return fail(ENOSPC, "write", w->uri);
	if (floe_buf_put(&w->data, data, len) < 0)
		return fail(EFBIG, "write", w->uri);
	return 0;
}

/* Insert the writer's bytes as an object (lock held). */
static int publish_locked(mem_writer *w)
{
	mem_store *m = w->m;
	bool found;
	size_t at;
	if (fire(m, FLOE_ICEBERG_FAULT_PUBLISH_NO_SPACE))
		return fail(ENOSPC, "publish", w->uri);
	if (fire(m, FLOE_ICEBERG_FAULT_PUBLISH_FAILED))
		return fail(EIO, "publish", w->uri);
	at = find(m, w->uri, &found);
	if (found)
		return taken(w->uri);
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->objs = floe_xrealloc(m->objs, m->cap * sizeof(*m->objs));
	}
	memmove(m->objs + at + 1, m->objs + at, (m->n - at) * sizeof(*m->objs));
	m->n++;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	m->objs[at].uri = floe_xstrndup(w->uri, strlen(w->uri));
	m->objs[at].data = floe_buf_detach(&w->data, &m->objs[at].len);
	m->objs[at].mtime_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	return 0;
}

static int mem_publish(void *h)
{
	mem_writer *w = h;
	pthread_mutex_lock(&w->m->lock);
	int rc = publish_locked(w);
	pthread_mutex_unlock(&w->m->lock);
	return rc;
}

static void mem_discard(void *h)
{
	mem_writer *w = h;
	if (!w)
		return;
	floe_buf_free(&w->data);
	free(w);
}

typedef struct mem_reader {
	mem_store *m;
	const char *uri;
	char *data; /* a copy: the object may be deleted while it is read */
	size_t len;
	size_t end; /* where reads stop: len, or earlier after a short read */
} mem_reader;

static int mem_open_read(void *state, void **h, int64_t *size, const char *uri)
{
	mem_store *m = state;
	mem_reader *r = NULL;
	bool found;
	pthread_mutex_lock(&m->lock);
	size_t at = find(m, uri, &found);
	if (found) {
		r = floe_xcalloc(1, sizeof(*r));
		r->m = m;
		r->uri = uri;
		r->len = r->end = m->objs[at].len;
		r->data = floe_xmalloc(r->len + 1);
		memcpy(r->data, m->objs[at].data, r->len);
	}
	pthread_mutex_unlock(&m->lock);
	if (!r) {
		floe_error_set(FLOE_ERR_IO, "object \"%s\" does not exist", uri);
		floe_error_errno(ENOENT);
		return -1;
	}
	*size = (int64_t)r->len;
	*h = r;
	return 0;
}

static int mem_pread(void *h, void *buf, size_t len, int64_t offset, size_t *got)
{
	mem_reader *r = h;
	size_t n = 0;
	if (fire_unlocked(r->m, FLOE_ICEBERG_FAULT_READ_EIO))
		return fail(EIO, "read", r->uri);
	if ((uint64_t)offset < r->end) {
		n = r->end - (size_t)offset;
		n = n < len ? n : len;
		n = n < MEM_READ_CHUNK ? n : MEM_READ_CHUNK;
	}
	if (n > 0 && fire_unlocked(r->m, FLOE_ICEBERG_FAULT_SHORT_READ)) {
		n /= 2;
		r->end = (size_t)offset + n; /* the object "shrank": the next read finds its end */
	}
	if (n > 0)
		memcpy(buf, r->data + offset, n);
	*got = n;
	return 0;
}

static void mem_close_read(void *h)
{
	mem_reader *r = h;
	if (!r)
		return;
	free(r->data);
	free(r);
}

static int mem_stat(void *state, const char *uri, bool *exists, int64_t *size)
{
	mem_store *m = state;
	pthread_mutex_lock(&m->lock);
	size_t at = find(m, uri, exists);
	*size = *exists ? (int64_t)m->objs[at].len : 0;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int mem_remove(void *state, const char *uri)
{
	mem_store *m = state;
	bool found;
	pthread_mutex_lock(&m->lock);
	size_t at = find(m, uri, &found);
	if (found) {
		free(m->objs[at].uri);
		free(m->objs[at].data);
		memmove(m->objs + at, m->objs + at + 1, (m->n - at - 1) * sizeof(*m->objs));
		m->n--;
	}
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int mem_list(void *state, const char *prefix, floe_iceberg_list_fn fn, void *ctx)
{
	mem_store *m = state;
	size_t plen = strlen(prefix), n = 0;
	mem_object *hits;
	while (plen > 1 && prefix[plen - 1] == '/')
		plen--;
	/* A copy, so that `fn` may delete what it is shown (and runs without the lock). */
	pthread_mutex_lock(&m->lock);
	hits = floe_xcalloc(m->n + 1, sizeof(*hits));
	for (size_t i = 0; i < m->n; i++) {
		const char *u = m->objs[i].uri;
		if (strncmp(u, prefix, plen) == 0 && u[plen] == '/') {
			hits[n] = m->objs[i];
			hits[n++].uri = floe_xstrndup(u, strlen(u));
		}
	}
	pthread_mutex_unlock(&m->lock);
	bool stop = false;
	for (size_t i = 0; i < n; i++) {
		if (!stop)
			stop = fn(ctx, hits[i].uri, (int64_t)hits[i].len, hits[i].mtime_ms) != 0;
		free(hits[i].uri);
	}
	free(hits);
	return 0;
}

static void mem_close(void *state)
{
	mem_store *m = state;
	for (size_t i = 0; i < m->n; i++) {
		free(m->objs[i].uri);
		free(m->objs[i].data);
	}
	free(m->objs);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static const floe_iceberg_storage_ops mem_ops = {
	.name = "memory",
	.handles = mem_handles,
	.open_write = mem_open_write,
	.write = mem_write,
	.publish = mem_publish,
	.discard = mem_discard,
	.open_read = mem_open_read,
	.pread = mem_pread,
	.close_read = mem_close_read,
	.stat = mem_stat,
	.remove = mem_remove,
	.list = mem_list,
	.close = mem_close,
};

floe_iceberg_storage *floe_iceberg_storage_memory(void)
{
	mem_store *m = floe_xcalloc(1, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	return floe_iceberg_storage_new(&mem_ops, m);
}

void floe_iceberg_storage_memory_fault(floe_iceberg_storage *s, floe_iceberg_memory_fault fault,
				       int countdown)
{
	mem_store *m = floe_iceberg_storage_backend(s, &mem_ops);
	assert(m && fault >= 0 && fault < FLOE_ICEBERG_FAULT_N && countdown >= 0);
	pthread_mutex_lock(&m->lock);
	m->countdown[fault] = countdown;
	pthread_mutex_unlock(&m->lock);
}
