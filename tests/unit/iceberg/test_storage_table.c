/*
 * test_storage_table.c — an Iceberg table whose every file lives on the memory
 * storage backend, committed to while the backend fails: ENOSPC at the publish of
 * the manifest, the manifest list or the metadata file, a failed publish (rename),
 * ENOSPC on a write, short and failed reads. Each failure must leave the previous
 * snapshot readable, no file a snapshot references missing, and nothing of the
 * failed attempt behind. The catalog is a tiny one in memory too (one pointer per
 * table, compare-and-swap), so nothing touches a disk.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "iceberg/catalog.h"
#include "iceberg/storage.h"
#include "iceberg/table.h"

#include <stdlib.h>

#define ROOT "memory://warehouse"

/* ---- a one-table-per-name catalog in memory ---- */

typedef struct memcat {
	char names[4][64];
	char locations[4][256];
	size_t n;
} memcat;

static int memcat_find(memcat *c, const char *ns, const char *table)
{
	char name[64];
	snprintf(name, sizeof(name), "%s.%s", ns, table);
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0)
			return (int)i;
	return -1;
}

static int memcat_load(void *state, floe_buf *out, const char *ns, const char *table)
{
	int i = memcat_find(state, ns, table);
	return i < 0 ? 0 : floe_buf_puts(out, ((memcat *)state)->locations[i]) < 0 ? -1 : 1;
}

static int memcat_create(void *state, const char *ns, const char *table, const char *location)
{
	memcat *c = state;
	if (memcat_find(c, ns, table) >= 0 || c->n == 4)
		return floe_error_set(FLOE_ERR_EXISTS, "table %s.%s exists", ns, table);
	snprintf(c->names[c->n], sizeof(c->names[0]), "%s.%s", ns, table);
	snprintf(c->locations[c->n++], sizeof(c->locations[0]), "%s", location);
	return 0;
}

static int memcat_swap(void *state, const char *ns, const char *table, const char *expected,
		       const char *next, floe_iceberg_swap_outcome *outcome)
{
	memcat *c = state;
	int i = memcat_find(c, ns, table);
	*outcome = FLOE_ICEBERG_CONFLICT;
	if (i >= 0 && strcmp(c->locations[i], expected) == 0) {
		snprintf(c->locations[i], sizeof(c->locations[0]), "%s", next);
		*outcome = FLOE_ICEBERG_SWAPPED;
	}
	return 0;
}

static int memcat_namespace(void *state, const char *ns, const floe_iceberg_kv *p, size_t n)
{
	(void)state, (void)ns, (void)p, (void)n;
	return 0;
}

static int memcat_namespace_exists(void *state, const char *ns, bool *out)
{
	(void)state, (void)ns;
	*out = true;
	return 0;
}

static const floe_iceberg_catalog_ops memcat_ops = {
	.name = "memory",
	.load = memcat_load,
	.create = memcat_create,
	.swap = memcat_swap,
	.create_namespace = memcat_namespace,
	.namespace_exists = memcat_namespace_exists,
	.close = free,
};

/* ---- the table ---- */

typedef struct lake {
	floe_arena *a;
	floe_iceberg_storage *s; /* borrowed from the catalog */
	floe_iceberg_catalog *cat;
	floe_iceberg_table *t;
	int next_file;
} lake;

static bool lake_open(lake *l)
{
	floe_iceberg_schema *schema;
	memset(l, 0, sizeof(*l));
	l->a = floe_arena_new();
	l->s = floe_iceberg_storage_memory();
	l->cat = floe_iceberg_catalog_new(&memcat_ops, floe_xcalloc(1, sizeof(memcat)), l->s, ROOT);
	schema = floe_arena_alloc(l->a, sizeof(*schema));
	schema->n_fields = 1;
	schema->fields = floe_arena_alloc(l->a, sizeof(*schema->fields));
	schema->fields[0] = (floe_iceberg_field){ 1, "id", true,
						   floe_iceberg_type_new(l->a, FLOE_ICEBERG_LONG), NULL };
	return floe_iceberg_table_create(&l->t, l->cat, "bronze", "orders", schema, NULL) == 0;
}

static void lake_close(lake *l)
{
	floe_iceberg_table_free(l->t);
	floe_iceberg_catalog_free(l->cat);
	floe_arena_free(l->a);
	floe_error_clear();
}

/* A data file of `rows` rows: its object (placeholder bytes) and its descriptor. */
static floe_iceberg_data_file *data_file(lake *l, int64_t rows)
{
	floe_iceberg_data_file *f = floe_arena_alloc(l->a, sizeof(*f));
	f->path = floe_arena_printf(l->a, ROOT "/bronze/orders/data/%05d.parquet", l->next_file++);
	f->record_count = rows;
	f->file_size_in_bytes = 8;
	FLOE_CHECK(floe_iceberg_storage_create(l->s, f->path, "PAR1PAR1", 8) == 0);
	return f;
}

static int count(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	(void)uri, (void)size, (void)mtime_ms;
	++*(size_t *)ctx;
	return 0;
}

static size_t objects(lake *l)
{
	size_t n = 0;
	FLOE_CHECK(floe_iceberg_storage_list(l->s, ROOT, count, &n) == 0);
	return n;
}

static bool exists(lake *l, const char *uri)
{
	bool yes = false;
	return floe_iceberg_storage_exists(l->s, uri, &yes) == 0 && yes;
}

/*
 * The table as a fresh reader sees it: at snapshot `snapshot_id` with `rows` rows,
 * and every file that snapshot references present.
 */
static void check_readable(lake *l, int64_t snapshot_id, int64_t rows)
{
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *scan = NULL;
	const floe_iceberg_snapshot *snap;
	FLOE_CHECK(floe_iceberg_table_load(&t, l->cat, "bronze", "orders") == 0);
	if (!t)
		return;
	snap = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t));
	FLOE_CHECK(snap && snap->snapshot_id == snapshot_id);
	FLOE_CHECK(exists(l, floe_iceberg_table_metadata_location(t)));
	FLOE_CHECK(snap && exists(l, snap->manifest_list));
	FLOE_CHECK(floe_iceberg_table_plan(&scan, l->a, t, -1) == 0);
	FLOE_CHECK(scan && scan->record_count == rows);
	for (size_t i = 0; scan && i < scan->n_files; i++) {
		FLOE_CHECK(exists(l, scan->files[i].manifest));
		FLOE_CHECK(exists(l, scan->files[i].file.path));
	}
	floe_iceberg_table_free(t);
}

static int64_t current_snapshot(lake *l)
{
	const floe_iceberg_snapshot *s =
		floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(l->t));
	return s ? s->snapshot_id : -1;
}

FLOE_TEST(iceberg_storage_faults_during_a_commit_keep_the_previous_snapshot)
{
	static const struct {
		floe_iceberg_memory_fault fault;
		int countdown;
		floe_iceberg_storage_error kind;
	} cases[] = {
		{ FLOE_ICEBERG_FAULT_PUBLISH_NO_SPACE, 1, FLOE_ICEBERG_STORAGE_NO_SPACE }, /* manifest */
		{ FLOE_ICEBERG_FAULT_PUBLISH_NO_SPACE, 2, FLOE_ICEBERG_STORAGE_NO_SPACE }, /* manifest list */
		{ FLOE_ICEBERG_FAULT_PUBLISH_NO_SPACE, 3, FLOE_ICEBERG_STORAGE_NO_SPACE }, /* metadata */
		{ FLOE_ICEBERG_FAULT_PUBLISH_FAILED, 2, FLOE_ICEBERG_STORAGE_IO },
		{ FLOE_ICEBERG_FAULT_PUBLISH_FAILED, 3, FLOE_ICEBERG_STORAGE_IO },
		{ FLOE_ICEBERG_FAULT_WRITE_NO_SPACE, 3, FLOE_ICEBERG_STORAGE_NO_SPACE },
	};
	lake l;
	int64_t first;
	FLOE_CHECK(lake_open(&l));
	if (!l.t)
		goto done;
	FLOE_CHECK(floe_iceberg_table_append(l.t, data_file(&l, 3), 1, NULL) == 0);
	first = current_snapshot(&l);
	check_readable(&l, first, 3);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		floe_iceberg_data_file *f = data_file(&l, 5);
		size_t before = objects(&l);
		floe_iceberg_storage_memory_fault(l.s, cases[i].fault, cases[i].countdown);
		FLOE_CHECK(floe_iceberg_table_append(l.t, f, 1, NULL) < 0);
		FLOE_CHECK(floe_iceberg_storage_error_kind() == cases[i].kind);
		floe_iceberg_storage_memory_fault(l.s, cases[i].fault, 0);
		/* Nothing of the attempt is left; the table reads at its last commit. */
		FLOE_CHECK(objects(&l) == before);
		check_readable(&l, first, 3);
		FLOE_CHECK(floe_iceberg_storage_remove(l.s, f->path) == 0); /* the caller's to delete */
		FLOE_CHECK(floe_iceberg_table_refresh(l.t) == 0);
	}
	/* With the faults spent, the same append lands. */
	FLOE_CHECK(floe_iceberg_table_append(l.t, data_file(&l, 5), 1, NULL) == 0);
	FLOE_CHECK(current_snapshot(&l) != first);
	check_readable(&l, current_snapshot(&l), 8);
done:
	lake_close(&l);
}

FLOE_TEST(iceberg_storage_faults_during_reads_fail_loudly)
{
	lake l;
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *scan = NULL;
	FLOE_CHECK(lake_open(&l));
	if (!l.t)
		goto done;
	FLOE_CHECK(floe_iceberg_table_append(l.t, data_file(&l, 4), 1, NULL) == 0);
	/* A short read of the metadata file: the load fails with an I/O error, no half table. */
	floe_iceberg_storage_memory_fault(l.s, FLOE_ICEBERG_FAULT_SHORT_READ, 1);
	FLOE_CHECK(floe_iceberg_table_load(&t, l.cat, "bronze", "orders") < 0 && !t);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_IO);
	/* EIO reading the manifest list while planning: the plan fails, nothing is guessed. */
	FLOE_CHECK(floe_iceberg_table_load(&t, l.cat, "bronze", "orders") == 0);
	floe_iceberg_storage_memory_fault(l.s, FLOE_ICEBERG_FAULT_READ_EIO, 1);
	FLOE_CHECK(t && floe_iceberg_table_plan(&scan, l.a, t, -1) < 0);
	FLOE_CHECK(floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_IO);
	floe_iceberg_table_free(t);
	check_readable(&l, current_snapshot(&l), 4);
done:
	lake_close(&l);
}
