/*
 * test_storage.c — the storage contract, run against both backends: `local` in a
 * temporary directory and `memory`. Publish on close, abort, create-never-replace,
 * ranged reads, sizes, sorted recursive listings, delete, exists, and the error
 * kinds. The memory backend's injected faults are in test_storage_faults.c.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "iceberg/storage.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sc_fixture {
	floe_iceberg_storage *s;
	floe_arena *a;
	const char *root; /* the warehouse URI */
	char dir[64];     /* local: the temporary directory */
	struct rlimit fsize; /* local: the file size limit a planted fault lowered */
} sc_fixture;

#define SC_MAX_LISTED 16

typedef struct sc_listing {
	size_t n, stop_after;
	char uris[SC_MAX_LISTED][256];
	int64_t sizes[SC_MAX_LISTED];
} sc_listing;

static bool sc_open(sc_fixture *f, bool local)
{
	memset(f, 0, sizeof(*f));
	f->a = floe_arena_new();
	if (!local) {
		f->s = floe_iceberg_storage_memory();
		f->root = "memory://warehouse";
		return true;
	}
	snprintf(f->dir, sizeof(f->dir), "/tmp/floe-storage-XXXXXX");
	if (!mkdtemp(f->dir))
		return false;
	f->s = floe_iceberg_storage_local();
	f->root = floe_arena_printf(f->a, "file://%s/warehouse", f->dir);
	return true;
}

static void sc_close(sc_fixture *f)
{
	floe_iceberg_storage_free(f->s);
	if (f->dir[0])
		floe_fs_remove_tree(f->dir);
	floe_arena_free(f->a);
	floe_error_clear();
}

static const char *sc_uri(sc_fixture *f, const char *name)
{
	return floe_arena_printf(f->a, "%s/%s", f->root, name);
}

static int collect(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	sc_listing *l = ctx;
	(void)mtime_ms;
	if (l->n < SC_MAX_LISTED) {
		snprintf(l->uris[l->n], sizeof(l->uris[l->n]), "%s", uri);
		l->sizes[l->n] = size;
	}
	l->n++;
	return l->stop_after > 0 && l->n >= l->stop_after;
}

static int sc_list(sc_fixture *f, sc_listing *out, const char *prefix)
{
	size_t stop = out->stop_after;
	memset(out, 0, sizeof(*out));
	out->stop_after = stop;
	return floe_iceberg_storage_list(f->s, prefix, collect, out);
}

static bool sc_exists(sc_fixture *f, const char *uri)
{
	bool yes = true;
	return floe_iceberg_storage_exists(f->s, uri, &yes) == 0 && yes;
}

static bool sc_holds(sc_fixture *f, const char *uri, const char *text)
{
	floe_buf b = FLOE_BUF_INIT;
	bool ok = floe_iceberg_storage_read(f->s, &b, uri) == 0 && b.len == strlen(text) &&
		  memcmp(b.ptr, text, b.len) == 0;
	floe_buf_free(&b);
	return ok;
}

/*
 * Make the writer's next write fail for want of space: memory injects ENOSPC, local
 * lowers the file size limit to what is written (EFBIG, SIGXFSZ ignored).
 */
static void sc_fault_begin(sc_fixture *f, const floe_iceberg_writer *w)
{
	struct rlimit low;
	if (!f->dir[0]) {
		floe_iceberg_storage_memory_fault(f->s, FLOE_ICEBERG_FAULT_WRITE_NO_SPACE, 1);
		return;
	}
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &f->fsize);
	low = f->fsize;
	low.rlim_cur = (rlim_t)floe_iceberg_writer_offset(w);
	setrlimit(RLIMIT_FSIZE, &low);
}

static void sc_fault_end(sc_fixture *f)
{
	if (f->dir[0])
		setrlimit(RLIMIT_FSIZE, &f->fsize);
	else
		floe_iceberg_storage_memory_fault(f->s, FLOE_ICEBERG_FAULT_WRITE_NO_SPACE, 0);
}

/* One contract check on a fresh backend. */
static void sc_run(void (*check)(sc_fixture *), bool local)
{
	sc_fixture f;
	FLOE_CHECK(sc_open(&f, local));
	check(&f);
	sc_close(&f);
}

/* The contract, once per backend. */
#define CONTRACT(name)                                                                 \
	static void name(sc_fixture *f);                                                  \
	FLOE_TEST(storage_local_##name) { sc_run(name, true); }                           \
	FLOE_TEST(storage_memory_##name) { sc_run(name, false); }                         \
	static void name(sc_fixture *f)

CONTRACT(publishes_on_close)
{
	floe_iceberg_writer *w = NULL;
	const char *uri = sc_uri(f, "t/data/a.parquet");
	sc_listing l = { 0 };
	FLOE_CHECK(floe_iceberg_storage_open_write(&w, f->s, uri) == 0);
	if (!w)
		return;
	FLOE_CHECK_STR(floe_iceberg_writer_uri(w), uri);
	FLOE_CHECK(floe_iceberg_writer_write(w, "PAR1", 4) == 0);
	FLOE_CHECK(floe_iceberg_writer_write(w, "", 0) == 0);
	FLOE_CHECK(floe_iceberg_writer_write(w, "-body", 5) == 0);
	FLOE_CHECK(floe_iceberg_writer_offset(w) == 9);
	/* Written but not closed: nothing at the final name. */
	FLOE_CHECK(!sc_exists(f, uri));
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "t")) == 0);
	for (size_t i = 0; i < l.n && i < SC_MAX_LISTED; i++)
		FLOE_CHECK(strcmp(l.uris[i], uri) != 0);
	FLOE_CHECK(floe_iceberg_writer_close(w) == 0);
	FLOE_CHECK(sc_exists(f, uri));
	FLOE_CHECK(sc_holds(f, uri, "PAR1-body"));
	/* The temporary is gone: the directory holds exactly the object. */
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "t")) == 0);
	FLOE_CHECK(l.n == 1);
	FLOE_CHECK_STR(l.uris[0], uri);
	FLOE_CHECK(l.sizes[0] == 9);
}

/*
 * adopt: a closed local file becomes the object, and its old name is gone. Local storage on the
 * same file system links it (the object is the very inode: no copy); memory copies it. A taken
 * name is refused and the object is untouched.
 */
CONTRACT(adopts_a_closed_file)
{
	char dir[] = "/tmp/floe-adopt-XXXXXX";
	const char *uri = sc_uri(f, "t/data/adopted.parquet");
	FLOE_CHECK(mkdtemp(dir) != NULL);
	const char *path = floe_arena_printf(f->a, "%s/0.parquet", dir);
	FLOE_CHECK(floe_fs_write_atomic(path, "PAR1-adopted", 12, NULL) == 0);
	struct stat before, after;
	FLOE_CHECK(stat(path, &before) == 0);
	FLOE_CHECK(floe_iceberg_storage_adopt(f->s, uri, path) == 0);
	FLOE_CHECK(!floe_fs_exists(path));
	FLOE_CHECK(sc_holds(f, uri, "PAR1-adopted"));
	if (f->dir[0]) /* linked, not copied */
		FLOE_CHECK(stat(floe_iceberg_uri_to_path(f->a, uri), &after) == 0 && after.st_ino == before.st_ino);
	FLOE_CHECK(floe_fs_write_atomic(path, "other", 5, NULL) == 0);
	FLOE_CHECK(floe_iceberg_storage_adopt(f->s, uri, path) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_EXISTS);
	FLOE_CHECK(sc_holds(f, uri, "PAR1-adopted"));
	floe_error_clear();
	floe_fs_remove_tree(dir);
}

CONTRACT(abort_leaves_nothing)
{
	floe_iceberg_writer *w = NULL;
	const char *uri = sc_uri(f, "t/metadata/m.avro");
	sc_listing l = { 0 };
	FLOE_CHECK(floe_iceberg_storage_open_write(&w, f->s, uri) == 0);
	FLOE_CHECK(w && floe_iceberg_writer_write(w, "half", 4) == 0);
	floe_iceberg_writer_abort(w);
	floe_iceberg_writer_abort(NULL);
	FLOE_CHECK(!sc_exists(f, uri));
	FLOE_CHECK(sc_list(f, &l, f->root) == 0);
	FLOE_CHECK(l.n == 0);
	/* The name is free again. */
	FLOE_CHECK(floe_iceberg_storage_create(f->s, uri, "whole", 5) == 0);
	FLOE_CHECK(sc_holds(f, uri, "whole"));
}

CONTRACT(never_replaces)
{
	floe_iceberg_writer *w1 = NULL, *w2 = NULL;
	const char *uri = sc_uri(f, "t/metadata/00001.metadata.json");
	sc_listing l = { 0 };
	FLOE_CHECK(floe_iceberg_storage_create(f->s, uri, "first", 5) == 0);
	/* A taken name fails at once, naming the URI. */
	FLOE_CHECK(floe_iceberg_storage_create(f->s, uri, "second", 6) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_EXISTS);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_EXISTS);
	FLOE_CHECK(strstr(floe_error_last()->message, uri) != NULL);
	FLOE_CHECK(sc_holds(f, uri, "first"));

	/* Two writers racing for a free name: the first to close wins, the second fails. */
	uri = sc_uri(f, "t/metadata/00002.metadata.json");
	FLOE_CHECK(floe_iceberg_storage_open_write(&w1, f->s, uri) == 0);
	FLOE_CHECK(floe_iceberg_storage_open_write(&w2, f->s, uri) == 0);
	if (!w1 || !w2) {
		floe_iceberg_writer_abort(w1);
		floe_iceberg_writer_abort(w2);
		return;
	}
	FLOE_CHECK(floe_iceberg_writer_write(w1, "one", 3) == 0);
	FLOE_CHECK(floe_iceberg_writer_write(w2, "two!", 4) == 0);
	FLOE_CHECK(floe_iceberg_writer_close(w1) == 0);
	FLOE_CHECK(floe_iceberg_writer_close(w2) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_EXISTS);
	FLOE_CHECK(sc_holds(f, uri, "one"));
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "t/metadata")) == 0);
	FLOE_CHECK(l.n == 2); /* both objects, no temporary left by the loser */
}

static void pattern(char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(i * 7 + i / 256);
}

CONTRACT(reads_ranges)
{
	enum { N = 10000 };
	char *want = floe_xmalloc(N), *got = floe_xcalloc(1, N);
	const char *uri = sc_uri(f, "t/data/r.parquet");
	floe_iceberg_reader *r = NULL;
	pattern(want, N);
	FLOE_CHECK(floe_iceberg_storage_create(f->s, uri, want, N) == 0);
	FLOE_CHECK(floe_iceberg_storage_open_read(&r, f->s, uri) == 0);
	if (!r)
		goto done;
	FLOE_CHECK(floe_iceberg_reader_size(r) == N);
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, N, 0) == 0);
	FLOE_CHECK(memcmp(got, want, N) == 0);
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 1, 0) == 0 && got[0] == want[0]);
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 1, N - 1) == 0 && got[0] == want[N - 1]);
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 8, N - 8) == 0);
	FLOE_CHECK(memcmp(got, want + N - 8, 8) == 0); /* a footer: the last 8 bytes */
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 5000, 4093) == 0);
	FLOE_CHECK(memcmp(got, want + 4093, 5000) == 0); /* across 4 KiB boundaries */
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 0, N) == 0);
	/* Past the end: an I/O error naming the object, not a short buffer. */
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 2, N - 1) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_IO);
	FLOE_CHECK(strstr(floe_error_last()->message, uri) != NULL);
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 0, N + 1) < 0);
	FLOE_CHECK(floe_iceberg_reader_read_at(r, got, 1, -1) < 0);
done:
	floe_iceberg_reader_close(r);
	floe_iceberg_reader_close(NULL);
	free(want);
	free(got);
}

CONTRACT(sizes_and_empty_objects)
{
	const char *uri = sc_uri(f, "t/empty");
	floe_iceberg_reader *r = NULL;
	floe_buf b = FLOE_BUF_INIT;
	int64_t size = -1;
	char c;
	FLOE_CHECK(floe_iceberg_storage_create(f->s, uri, "", 0) == 0);
	FLOE_CHECK(floe_iceberg_storage_size(f->s, uri, &size) == 0 && size == 0);
	FLOE_CHECK(sc_exists(f, uri));
	FLOE_CHECK(floe_iceberg_storage_open_read(&r, f->s, uri) == 0);
	FLOE_CHECK(r && floe_iceberg_reader_size(r) == 0);
	FLOE_CHECK(r && floe_iceberg_reader_read_at(r, &c, 0, 0) == 0);
	FLOE_CHECK(r && floe_iceberg_reader_read_at(r, &c, 1, 0) < 0);
	floe_iceberg_reader_close(r);
	floe_buf_puts(&b, "kept:");
	FLOE_CHECK(floe_iceberg_storage_read(f->s, &b, uri) == 0 && b.len == 5);
	FLOE_CHECK(floe_iceberg_storage_create(f->s, sc_uri(f, "t/seven"), "1234567", 7) == 0);
	FLOE_CHECK(floe_iceberg_storage_read(f->s, &b, sc_uri(f, "t/seven")) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "kept:1234567"); /* appended, NUL-terminated */
	FLOE_CHECK(floe_iceberg_storage_size(f->s, sc_uri(f, "t/seven"), &size) == 0 && size == 7);
	/* A read bounded by the buffer's maximum fails and leaves the buffer as it was. */
	b.max = b.len + 3;
	FLOE_CHECK(floe_iceberg_storage_read(f->s, &b, sc_uri(f, "t/seven")) < 0);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "kept:1234567");
	floe_buf_free(&b);
}

CONTRACT(lists_sorted_and_recursive)
{
	const char *names[] = { "t/b", "t/a/2", "t/a/1", "t/a.x", "tx/c", "t2", "t/a/deep/er/z" };
	const char *want[] = { "t/a.x", "t/a/1", "t/a/2", "t/a/deep/er/z", "t/b" };
	sc_listing l = { 0 };
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		FLOE_CHECK(floe_iceberg_storage_create(f->s, sc_uri(f, names[i]), names[i],
						       strlen(names[i])) == 0);
	for (int slash = 0; slash < 2; slash++) {
		FLOE_CHECK(sc_list(f, &l, sc_uri(f, slash ? "t/" : "t")) == 0);
		FLOE_CHECK(l.n == 5);
		for (size_t i = 0; i < 5 && i < l.n; i++) {
			FLOE_CHECK_STR(l.uris[i], sc_uri(f, want[i]));
			FLOE_CHECK(l.sizes[i] == (int64_t)strlen(want[i]));
		}
	}
	/* The whole warehouse, a missing prefix, an object's own name, and an early stop. */
	FLOE_CHECK(sc_list(f, &l, f->root) == 0 && l.n == 7);
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "nothing/here")) == 0 && l.n == 0);
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "t2")) == 0 && l.n == 0);
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "t/a")) == 0 && l.n == 3);
	l.stop_after = 2;
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "t")) == 0 && l.n == 2);
	FLOE_CHECK_STR(l.uris[1], sc_uri(f, "t/a/1"));
}

static int delete_each(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	(void)size;
	(void)mtime_ms;
	return floe_iceberg_storage_remove(ctx, uri) < 0;
}

CONTRACT(deletes_and_exists)
{
	const char *uri = sc_uri(f, "t/data/d.parquet");
	sc_listing l = { 0 };
	bool yes = true;
	FLOE_CHECK(floe_iceberg_storage_exists(f->s, uri, &yes) == 0 && !yes);
	FLOE_CHECK(floe_iceberg_storage_remove(f->s, uri) == 0); /* missing: not an error */
	FLOE_CHECK(floe_iceberg_storage_create(f->s, uri, "x", 1) == 0);
	FLOE_CHECK(floe_iceberg_storage_exists(f->s, uri, &yes) == 0 && yes);
	FLOE_CHECK(!sc_exists(f, sc_uri(f, "t/data"))); /* a "directory" is no object */
	FLOE_CHECK(!sc_exists(f, sc_uri(f, "t/data/d.parquet/under"))); /* under an object */
	FLOE_CHECK(floe_iceberg_storage_remove(f->s, uri) == 0);
	FLOE_CHECK(!sc_exists(f, uri));
	FLOE_CHECK(floe_iceberg_storage_remove(f->s, uri) == 0);
	FLOE_CHECK(floe_iceberg_storage_create(f->s, uri, "again", 5) == 0);
	FLOE_CHECK(sc_holds(f, uri, "again"));
	/* Deleting what a listing shows, from inside the listing, deletes all of it. */
	FLOE_CHECK(floe_iceberg_storage_create(f->s, sc_uri(f, "t/data/e"), "e", 1) == 0);
	FLOE_CHECK(floe_iceberg_storage_create(f->s, sc_uri(f, "t/m/f"), "f", 1) == 0);
	FLOE_CHECK(floe_iceberg_storage_list(f->s, sc_uri(f, "t"), delete_each, f->s) == 0);
	FLOE_CHECK(sc_list(f, &l, f->root) == 0 && l.n == 0);
}

CONTRACT(missing_objects_are_not_found)
{
	const char *uri = sc_uri(f, "t/metadata/gone.avro");
	floe_iceberg_reader *r = NULL;
	floe_buf b = FLOE_BUF_INIT;
	int64_t size;
	FLOE_CHECK(floe_iceberg_storage_read(f->s, &b, uri) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NOT_FOUND);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_IO); /* exit code 4, as before */
	FLOE_CHECK(strstr(floe_error_last()->message, uri) != NULL);
	FLOE_CHECK(strstr(floe_error_last()->message, "does not exist") != NULL);
	FLOE_CHECK(floe_iceberg_storage_open_read(&r, f->s, uri) < 0 && r == NULL);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NOT_FOUND);
	FLOE_CHECK(floe_iceberg_storage_size(f->s, uri, &size) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NOT_FOUND);
	/* Under a name that is an object, not a directory: still not found. */
	FLOE_CHECK(floe_iceberg_storage_create(f->s, sc_uri(f, "t/file"), "x", 1) == 0);
	FLOE_CHECK(floe_iceberg_storage_read(f->s, &b, sc_uri(f, "t/file/x")) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NOT_FOUND);
	FLOE_CHECK(b.len == 0);
	floe_buf_free(&b);
}

CONTRACT(writes_after_a_failure_are_refused)
{
	/* A write that fails poisons the writer: close fails and publishes nothing. */
	floe_iceberg_writer *w = NULL;
	const char *uri = sc_uri(f, "t/x");
	FLOE_CHECK(floe_iceberg_storage_open_write(&w, f->s, uri) == 0);
	if (!w)
		return;
	FLOE_CHECK(floe_iceberg_writer_write(w, "ab", 2) == 0);
	sc_fault_begin(f, w);
	FLOE_CHECK(floe_iceberg_writer_write(w, "cd", 2) < 0);
	sc_fault_end(f);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NO_SPACE);
	FLOE_CHECK(strstr(floe_error_last()->message, uri) != NULL);
	FLOE_CHECK(floe_iceberg_writer_write(w, "ef", 2) < 0);
	FLOE_CHECK(floe_iceberg_writer_offset(w) == 2);
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_writer_close(w) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NO_SPACE);
	FLOE_CHECK(strstr(floe_error_last()->message, uri) != NULL);
	FLOE_CHECK(!sc_exists(f, uri));
}

/* ---- parallel writers ---- */

enum { RACERS = 4 };

typedef struct racer {
	sc_fixture *f;
	int id, names, won, lost_other; /* lost_other: failures that are not "exists" */
} racer;

/* Every racer creates the same names (one must win each) and names of its own. */
static void *race(void *arg)
{
	racer *r = arg;
	char uri[256], text[16];
	snprintf(text, sizeof(text), "racer %d", r->id);
	for (int i = 0; i < r->names; i++) {
		snprintf(uri, sizeof(uri), "%s/race/%04d", r->f->root, i);
		if (floe_iceberg_storage_create(r->f->s, uri, text, strlen(text)) == 0)
			r->won++;
		else if (floe_iceberg_storage_error_kind() != FLOE_ICEBERG_STORAGE_EXISTS)
			r->lost_other++;
		snprintf(uri, sizeof(uri), "%s/own/%d/%04d", r->f->root, r->id, i);
		if (floe_iceberg_storage_create(r->f->s, uri, text, strlen(text)) < 0)
			r->lost_other++;
	}
	floe_error_clear();
	return NULL;
}

CONTRACT(parallel_writers_never_replace)
{
	racer racers[RACERS];
	pthread_t threads[RACERS];
	sc_listing l = { 0 };
	int names = f->dir[0] ? 40 : 1500, won = 0;
	for (int i = 0; i < RACERS; i++) {
		racers[i] = (racer){ f, i, names, 0, 0 };
		FLOE_CHECK(pthread_create(&threads[i], NULL, race, &racers[i]) == 0);
	}
	for (int i = 0; i < RACERS; i++) {
		pthread_join(threads[i], NULL);
		won += racers[i].won;
		FLOE_CHECK(racers[i].lost_other == 0);
	}
	FLOE_CHECK(won == names); /* each name created exactly once */
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "race")) == 0 && l.n == (size_t)names);
	FLOE_CHECK(sc_list(f, &l, sc_uri(f, "own")) == 0 && l.n == (size_t)(RACERS * names));
	FLOE_CHECK(sc_holds(f, sc_uri(f, "own/3/0000"), "racer 3"));
}

/* ---- backend-specific ---- */

FLOE_TEST(storage_local_refuses_uris_it_cannot_reach)
{
	floe_iceberg_storage *s = floe_iceberg_storage_local();
	floe_iceberg_writer *w = NULL;
	floe_buf b = FLOE_BUF_INIT;
	FLOE_CHECK(floe_iceberg_storage_open_write(&w, s, "s3://bucket/t/x") < 0 && !w);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_USAGE);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_OTHER);
	FLOE_CHECK(floe_iceberg_storage_read(s, &b, "file://host/x") < 0);
	FLOE_CHECK(floe_iceberg_storage_remove(s, NULL) < 0); /* a location the contract allows to be NULL */
	floe_buf_free(&b);
	floe_iceberg_storage_free(s);
	floe_error_clear();
}

FLOE_TEST(storage_local_writes_a_temporary_next_to_the_object)
{
	sc_fixture f;
	floe_iceberg_writer *w = NULL;
	sc_listing l = { 0 };
	FLOE_CHECK(sc_open(&f, true));
	FLOE_CHECK(floe_iceberg_storage_open_write(&w, f.s, sc_uri(&f, "t/o")) == 0);
	FLOE_CHECK(w && floe_iceberg_writer_write(w, "abc", 3) == 0);
	FLOE_CHECK(sc_list(&f, &l, sc_uri(&f, "t")) == 0 && l.n == 1);
	FLOE_CHECK(l.n == 1 && strncmp(l.uris[0], sc_uri(&f, "t/o.tmp-"), strlen(sc_uri(&f, "t/o.tmp-"))) == 0);
	FLOE_CHECK(l.n == 1 && l.sizes[0] == 3);
	floe_iceberg_writer_abort(w);
	FLOE_CHECK(sc_list(&f, &l, sc_uri(&f, "t")) == 0 && l.n == 0);
	/* The `file:` spellings name the same object. */
	FLOE_CHECK(floe_iceberg_storage_create(f.s, sc_uri(&f, "t/p"), "p", 1) == 0);
	FLOE_CHECK(sc_exists(&f, floe_arena_printf(f.a, "file:%s/warehouse/t/p", f.dir)));
	FLOE_CHECK(sc_exists(&f, floe_arena_printf(f.a, "%s/warehouse/t/p", f.dir)));
	/* Published files are readable by all (0644), as floe_fs_write_atomic made them. */
	struct stat st;
	FLOE_CHECK(stat(floe_arena_printf(f.a, "%s/warehouse/t/p", f.dir), &st) == 0 &&
		   (st.st_mode & 0777) == 0644);
	sc_close(&f);
}

FLOE_TEST(storage_engine_uris)
{
	sc_fixture f;
	FLOE_CHECK(sc_open(&f, true));
	/* DuckDB reads a local object by its path, whichever `file:` spelling named it. */
	FLOE_CHECK_STR(floe_iceberg_storage_engine_uri(f.s, f.a, sc_uri(&f, "t/d.parquet")),
		       floe_arena_printf(f.a, "%s/warehouse/t/d.parquet", f.dir));
	FLOE_CHECK_STR(floe_iceberg_storage_engine_uri(f.s, f.a, "file:/srv/w/x.parquet"), "/srv/w/x.parquet");
	FLOE_CHECK(floe_iceberg_storage_engine_uri(f.s, f.a, "s3://b/x.parquet") == NULL);
	sc_close(&f);
	/* No engine reaches the memory backend: an error, never a made-up path. */
	FLOE_CHECK(sc_open(&f, false));
	FLOE_CHECK(floe_iceberg_storage_engine_uri(f.s, f.a, sc_uri(&f, "t/d.parquet")) == NULL);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_USAGE);
	sc_close(&f);
}

FLOE_TEST(storage_error_kind_classifies_by_errno)
{
	static const struct {
		int e;
		floe_iceberg_storage_error kind;
	} cases[] = {
		{ ENOENT, FLOE_ICEBERG_STORAGE_NOT_FOUND }, { ENOTDIR, FLOE_ICEBERG_STORAGE_NOT_FOUND },
		{ ENOSPC, FLOE_ICEBERG_STORAGE_NO_SPACE },  { EDQUOT, FLOE_ICEBERG_STORAGE_NO_SPACE },
		{ EFBIG, FLOE_ICEBERG_STORAGE_NO_SPACE },   { EACCES, FLOE_ICEBERG_STORAGE_PERMISSION },
		{ EPERM, FLOE_ICEBERG_STORAGE_PERMISSION }, { EROFS, FLOE_ICEBERG_STORAGE_PERMISSION },
		{ EIO, FLOE_ICEBERG_STORAGE_IO },           { EBADF, FLOE_ICEBERG_STORAGE_IO },
	};
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_OK);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		errno = cases[i].e;
		floe_error_set_errno(FLOE_ERR_IO, "could not write \"file:///x\"");
		FLOE_CHECK(floe_error_last()->sys_errno == cases[i].e);
		FLOE_CHECK(floe_iceberg_storage_error_kind() == cases[i].kind);
		FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_INTERNAL); /* exit codes unchanged */
	}
	/* An errno attached to a message that has none; a class that is not storage's. */
	floe_error_set(FLOE_ERR_IO, "\"file:///x\" does not exist");
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_IO);
	floe_error_errno(ENOENT);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NOT_FOUND);
	floe_error_set(FLOE_ERR_EXISTS, "file \"x\" already exists");
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_EXISTS);
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_USAGE);
	floe_error_set(FLOE_ERR_CONFIG, "bad");
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_OTHER);
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_OK);
}

/* ---- the memory backend's injected faults ---- */

/* Publish `text` at `uri` under `fault` armed for the next operation; the kind it gives. */
static floe_iceberg_storage_error publish_under(sc_fixture *f, floe_iceberg_memory_fault fault,
						const char *uri, const char *text)
{
	floe_iceberg_storage_memory_fault(f->s, fault, 1);
	floe_error_clear();
	if (floe_iceberg_storage_create(f->s, uri, text, strlen(text)) == 0)
		return FLOE_ICEBERG_STORAGE_OK;
	FLOE_CHECK(strstr(floe_error_last()->message, uri) != NULL);
	return floe_iceberg_storage_error_kind();
}

FLOE_TEST(storage_memory_faults_at_publish_leave_no_object)
{
	sc_fixture f;
	sc_listing l = { 0 };
	const char *uri;
	FLOE_CHECK(sc_open(&f, false));
	uri = sc_uri(&f, "t/metadata/00001.metadata.json");
	FLOE_CHECK(publish_under(&f, FLOE_ICEBERG_FAULT_PUBLISH_NO_SPACE, uri, "{}") ==
		   FLOE_ICEBERG_STORAGE_NO_SPACE);
	FLOE_CHECK(!sc_exists(&f, uri));
	FLOE_CHECK(publish_under(&f, FLOE_ICEBERG_FAULT_PUBLISH_FAILED, uri, "{}") ==
		   FLOE_ICEBERG_STORAGE_IO);
	FLOE_CHECK(!sc_exists(&f, uri));
	FLOE_CHECK(publish_under(&f, FLOE_ICEBERG_FAULT_WRITE_NO_SPACE, uri, "{}") ==
		   FLOE_ICEBERG_STORAGE_NO_SPACE);
	FLOE_CHECK(sc_list(&f, &l, f.root) == 0 && l.n == 0);
	/* Each fault fired once: the next publish goes through. */
	FLOE_CHECK(floe_iceberg_storage_create(f.s, uri, "{}", 2) == 0 && sc_holds(&f, uri, "{}"));
	/* A failed publish of the next version leaves the previous one as it was. */
	FLOE_CHECK(publish_under(&f, FLOE_ICEBERG_FAULT_PUBLISH_FAILED,
				 sc_uri(&f, "t/metadata/00002.metadata.json"), "{\"v\":2}") ==
		   FLOE_ICEBERG_STORAGE_IO);
	FLOE_CHECK(sc_holds(&f, uri, "{}"));
	FLOE_CHECK(sc_list(&f, &l, f.root) == 0 && l.n == 1);
	sc_close(&f);
}

FLOE_TEST(storage_memory_fault_countdown)
{
	sc_fixture f;
	FLOE_CHECK(sc_open(&f, false));
	floe_iceberg_storage_memory_fault(f.s, FLOE_ICEBERG_FAULT_PUBLISH_NO_SPACE, 3);
	FLOE_CHECK(floe_iceberg_storage_create(f.s, sc_uri(&f, "a"), "a", 1) == 0);
	FLOE_CHECK(floe_iceberg_storage_create(f.s, sc_uri(&f, "b"), "b", 1) == 0);
	FLOE_CHECK(floe_iceberg_storage_create(f.s, sc_uri(&f, "c"), "c", 1) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_NO_SPACE);
	FLOE_CHECK(floe_iceberg_storage_create(f.s, sc_uri(&f, "c"), "c", 1) == 0);
	/* Disarmed before it fires: nothing fails. */
	floe_iceberg_storage_memory_fault(f.s, FLOE_ICEBERG_FAULT_PUBLISH_FAILED, 1);
	floe_iceberg_storage_memory_fault(f.s, FLOE_ICEBERG_FAULT_PUBLISH_FAILED, 0);
	FLOE_CHECK(floe_iceberg_storage_create(f.s, sc_uri(&f, "d"), "d", 1) == 0);
	sc_close(&f);
}

FLOE_TEST(storage_memory_faults_at_read)
{
	enum { N = 9000 };
	sc_fixture f;
	floe_iceberg_reader *r = NULL;
	floe_buf b = FLOE_BUF_INIT;
	char *data = floe_xmalloc(N), *got = floe_xmalloc(N);
	const char *uri;
	FLOE_CHECK(sc_open(&f, false));
	uri = sc_uri(&f, "t/data/x.parquet");
	pattern(data, N);
	FLOE_CHECK(floe_iceberg_storage_create(f.s, uri, data, N) == 0);
	/* A short read — the object ends early — is an I/O error, never a short buffer. */
	FLOE_CHECK(floe_iceberg_storage_open_read(&r, f.s, uri) == 0);
	floe_iceberg_storage_memory_fault(f.s, FLOE_ICEBERG_FAULT_SHORT_READ, 2);
	FLOE_CHECK(r && floe_iceberg_reader_read_at(r, got, N, 0) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_IO);
	FLOE_CHECK(strstr(floe_error_last()->message, uri) != NULL);
	floe_iceberg_reader_close(r);
	/* EIO on the third backend read of a whole-object read; `out` is left as it was. */
	floe_buf_puts(&b, "x");
	floe_iceberg_storage_memory_fault(f.s, FLOE_ICEBERG_FAULT_READ_EIO, 3);
	FLOE_CHECK(floe_iceberg_storage_read(f.s, &b, uri) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_IO);
	FLOE_CHECK(floe_error_last()->sys_errno == EIO);
	FLOE_CHECK(b.len == 1);
	/* The object itself is intact: read it whole once the faults are spent. */
	FLOE_CHECK(floe_iceberg_storage_read(f.s, &b, uri) == 0 && b.len == N + 1);
	FLOE_CHECK(b.len == N + 1 && memcmp(b.ptr + 1, data, N) == 0);
	floe_buf_free(&b);
	free(data);
	free(got);
	sc_close(&f);
}
