/*
 * commit.c — the compare-and-swap loop every table change goes through, and the
 * metadata-only changes (schema, properties).
 *
 * One attempt: compute the new metadata from the base (writing any manifests it
 * needs), write it as `<version+1>-<uuid>.metadata.json`, and swap the catalog
 * pointer from the base's location to it.
 *   SWAPPED  the change landed; adopt the new metadata, run the change's `after`.
 *   CONFLICT another writer moved the pointer: delete what this attempt wrote (no
 *            committed metadata references it), reload, and try again with backoff.
 *   FAILED   the pointer did not move and no writer won (disk full, I/O): delete what
 *            this attempt wrote and fail at once with that error — only a lost race is
 *            retried, as is nothing that fails before the swap.
 *   UNKNOWN  nothing is deleted: the new metadata may be live.
 * The table remembers whether a failed change may have landed (SWAPPED then a later
 * step failed, or UNKNOWN), so the caller knows whether its data files are orphans.
 * A crash anywhere leaves the pointer at the old or the new file, both complete
 * (files are durable before the swap); files of the lost attempt are orphans.
 */
#include "iceberg/table_int.h"

#include "base/error.h"
#include "base/log.h"

#include <inttypes.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/*
 * Java's default is 4; floe's is higher because its tables often have several writers
 * (loads, maintenance) and a lost append costs only a manifest list and a metadata
 * file. The table property commit.retry.num-retries wins when set.
 */
#define DEFAULT_RETRIES 10
#define DEFAULT_PREVIOUS_VERSIONS 100

int floe_iceberg_commit_write(commit_ctx *c, const char *uri, const floe_buf *data)
{
	written_files *w = &c->written;
	if (floe_iceberg_storage_create(floe_iceberg_table_storage(c->table), uri, data->ptr,
					data->len) < 0)
		return -1;
	*FLOE_ARENA_PUSH(c->arena, w->uris, w->n, w->cap) = floe_arena_strdup(c->arena, uri);
	return 0;
}

floe_iceberg_metadata *floe_iceberg_commit_next(commit_ctx *c)
{
	floe_iceberg_metadata *m = floe_iceberg_metadata_copy(c->arena, c->base);
	int64_t now = floe_iceberg_now_ms();
	m->last_updated_ms = now > c->base->last_updated_ms ? now : c->base->last_updated_ms;
	return m;
}

/* Delete the files an attempt wrote (it definitely did not land). */
static void discard_written(commit_ctx *c)
{
	for (size_t i = 0; i < c->written.n; i++)
		floe_iceberg_storage_remove(floe_iceberg_table_storage(c->table), c->written.uris[i]);
	c->written.n = 0;
}

/* The base's location joins the metadata log, capped at previous-versions-max. */
static void log_base(commit_ctx *c)
{
	floe_iceberg_metadata *m = c->next;
	int64_t max = floe_iceberg_metadata_property_int(c->base, "write.metadata.previous-versions-max",
							 DEFAULT_PREVIOUS_VERSIONS);
	size_t keep = max < 1 ? 1 : (size_t)max;
	floe_iceberg_metadata_log *log = floe_arena_alloc(c->arena, (m->n_metadata_log + 1) * sizeof(*log));
	if (m->n_metadata_log)
		memcpy(log, m->metadata_log, m->n_metadata_log * sizeof(*log));
	log[m->n_metadata_log].file = c->base_location;
	log[m->n_metadata_log].timestamp_ms = c->base->last_updated_ms;
	size_t n = m->n_metadata_log + 1, skip = n > keep ? n - keep : 0;
	m->metadata_log = log + skip;
	m->n_metadata_log = n - skip;
}

static int write_metadata(commit_ctx *c, floe_buf *json, const char **uri)
{
	int64_t version = floe_iceberg_metadata_version(c->base_location);
	if (version < 0)
		version = (int64_t)c->base->n_metadata_log;
	log_base(c);
	if (floe_iceberg_metadata_check(c->next) < 0)
		return floe_error_context("while checking the new metadata (a bug in floe)");
	if (floe_iceberg_metadata_write(json, c->next) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "table metadata too large to write");
	*uri = floe_iceberg_metadata_uri(c->arena, c->next,
					 floe_arena_printf(c->arena, "%05" PRId64 "-%s.metadata.json",
							   version + 1, floe_iceberg_uuid(c->arena)));
	return floe_iceberg_commit_write(c, *uri, json);
}

/* Wait before retrying: a random time below 10 ms doubling per attempt, up to ~2.5 s. */
static void backoff(int attempt)
{
	unsigned r = 0;
	long cap = 10L << (attempt < 8 ? attempt : 8);
	if (getrandom(&r, sizeof(r), 0) < 0)
		r = 0;
	long ms = 1 + (long)(r % (unsigned)cap);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* After a landed commit: old metadata files that fell off the log, when the table asks. */
static void delete_old_metadata(commit_ctx *c)
{
	const char *flag = floe_iceberg_metadata_property(c->base,
							  "write.metadata.delete-after-commit.enabled");
	if (!flag || strcmp(flag, "true") != 0)
		return;
	for (size_t i = 0; i < c->base->n_metadata_log; i++) {
		const char *f = c->base->metadata_log[i].file;
		bool kept = false;
		for (size_t j = 0; j < c->next->n_metadata_log && !kept; j++)
			kept = strcmp(c->next->metadata_log[j].file, f) == 0;
		if (!kept)
			floe_iceberg_storage_remove(floe_iceberg_table_storage(c->table), f);
	}
}

static int retries_of(const floe_iceberg_table *t, const floe_iceberg_commit_opts *opts)
{
	if (opts && opts->max_retries >= 0)
		return opts->max_retries;
	int64_t n = floe_iceberg_metadata_property_int(t->metadata, "commit.retry.num-retries",
						       DEFAULT_RETRIES);
	return n < 0 ? 0 : n > 1000 ? 1000 : (int)n;
}

/* One attempt; *outcome says whether to retry. */
static int attempt_once(floe_iceberg_table *t, const commit_change *ch, commit_ctx *c,
			floe_iceberg_swap_outcome *outcome)
{
	floe_buf json = FLOE_BUF_INIT;
	floe_arena *old = NULL;
	const char *uri = NULL;
	int error = -1;
	*outcome = FLOE_ICEBERG_FAILED; /* until the swap: nothing can have landed */
	if (ch->apply(c, ch->op) < 0)
		goto cleanup;
	if (!c->next) { /* nothing to change */
		*outcome = FLOE_ICEBERG_SWAPPED;
		error = 0;
		goto cleanup;
	}
	if (write_metadata(c, &json, &uri) < 0)
		goto cleanup;
	if (floe_iceberg_catalog_swap(t->catalog, t->ns, t->name, c->base_location, uri, outcome) < 0) {
		floe_error_context("while committing to table %s", t->full_name);
		goto cleanup;
	}
	if (*outcome != FLOE_ICEBERG_SWAPPED) {
		error = 0;
		goto cleanup;
	}
	c->written.n = 0; /* everything written is live now */
	/* The base lives in the table's arena: keep it until the change is done with it. */
	old = t->arena;
	t->arena = NULL;
	if (floe_iceberg_table_adopt(t, uri, json.ptr, json.len) < 0) {
		t->arena = old;
		old = NULL;
		goto cleanup;
	}
	delete_old_metadata(c);
	error = ch->after ? ch->after(c, ch->op) : 0;
cleanup:
	floe_arena_free(old);
	floe_buf_free(&json);
	return error;
}

static int give_up(floe_iceberg_table *t, const commit_change *ch, int attempts)
{
	floe_error_set(FLOE_ERR_CONFLICT, "could not commit %s to table %s: other writers changed it "
		       "%d times in a row", ch->what, t->full_name, attempts);
	floe_error_code_set(FLOE_CODE_COMMIT_CONFLICT, "%s", t->full_name);
	floe_error_hint("Retry later, or raise the table property commit.retry.num-retries.");
	return -1;
}

int floe_iceberg_commit(floe_iceberg_table *t, const commit_change *ch,
			const floe_iceberg_commit_opts *opts)
{
	floe_iceberg_commit_opts defaults = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	int retries = retries_of(t, opts);
	if (!opts)
		opts = &defaults;
	for (int attempt = 0;; attempt++) {
		commit_ctx c = { t, floe_arena_new(), t->metadata, t->metadata_location, NULL,
				 { NULL, 0, 0 }, attempt, opts };
		floe_iceberg_swap_outcome outcome;
		int rc = attempt_once(t, ch, &c, &outcome);
		t->may_have_landed = outcome == FLOE_ICEBERG_SWAPPED || outcome == FLOE_ICEBERG_UNKNOWN;
		if (outcome == FLOE_ICEBERG_SWAPPED) {
			floe_arena_free(c.arena); /* landed (rc < 0: a step after the swap failed) */
			return rc;
		}
		if (outcome == FLOE_ICEBERG_UNKNOWN) {
			floe_arena_free(c.arena); /* keep every file: the commit may have landed */
			floe_error_context("the commit of %s to table %s may or may not have landed; "
					   "its files are kept", ch->what, t->full_name);
			return -1;
		}
		discard_written(&c);
		floe_arena_free(c.arena);
		if (outcome == FLOE_ICEBERG_CONFLICT && rc == 0 && attempt < retries) {
			floe_log_debug("commit of %s to %s lost a race (attempt %d); retrying", ch->what,
				       t->full_name, attempt + 1);
			backoff(attempt);
			rc = floe_iceberg_table_refresh(t);
			if (rc == 0)
				continue;
		}
		if (ch->abandon)
			ch->abandon(t, ch->op);
		return rc < 0 ? -1 : give_up(t, ch, attempt + 1);
	}
}

/* ---- schema evolution ---- */

typedef struct schema_op {
	const floe_iceberg_schema_change *changes;
	size_t n;
	int32_t seen_schema_id;
} schema_op;

static int apply_schema(commit_ctx *c, void *opaque)
{
	schema_op *op = opaque;
	const floe_iceberg_schema *cur = floe_iceberg_metadata_current_schema(c->base), *same = NULL;
	floe_iceberg_schema *next_schema = NULL;
	int32_t last = c->base->last_column_id, new_id = 0;
	if (cur->schema_id != op->seen_schema_id)
		return floe_error_set(FLOE_ERR_CONFLICT, "the schema of table %s changed (schema %d, was "
				      "%d) while evolving it", c->table->full_name, cur->schema_id,
				      op->seen_schema_id);
	for (size_t i = 0; i < c->base->n_schemas; i++)
		if (c->base->schemas[i]->schema_id >= new_id)
			new_id = c->base->schemas[i]->schema_id + 1;
	if (floe_iceberg_schema_evolve(&next_schema, c->arena, cur, new_id, &last, op->changes, op->n) < 0)
		return -1;
	if (floe_iceberg_schema_equal(next_schema, cur))
		return 0; /* nothing changes: no commit */
	c->next = floe_iceberg_commit_next(c);
	for (size_t i = 0; i < c->base->n_schemas && !same; i++)
		if (floe_iceberg_schema_equal(c->base->schemas[i], next_schema))
			same = c->base->schemas[i];
	if (same) {
		c->next->current_schema_id = same->schema_id;
		return 0;
	}
	floe_iceberg_schema **schemas = floe_arena_alloc(c->arena, (c->next->n_schemas + 1) *
								    sizeof(*schemas));
	memcpy(schemas, c->next->schemas, c->next->n_schemas * sizeof(*schemas));
	schemas[c->next->n_schemas] = next_schema;
	c->next->schemas = schemas;
	c->next->n_schemas++;
	c->next->current_schema_id = new_id;
	c->next->last_column_id = last;
	return 0;
}

int floe_iceberg_table_update_schema(floe_iceberg_table *table,
				     const floe_iceberg_schema_change *changes, size_t n,
				     const floe_iceberg_commit_opts *opts)
{
	schema_op op = { changes, n, table->metadata->current_schema_id };
	commit_change ch = { "a schema change", apply_schema, NULL, NULL, &op };
	return floe_iceberg_commit(table, &ch, opts);
}

/* ---- properties ---- */

typedef struct props_op {
	const floe_iceberg_kv *set;
	size_t n_set;
	const char *const *remove;
	size_t n_remove;
} props_op;

static int apply_props(commit_ctx *c, void *opaque)
{
	props_op *op = opaque;
	c->next = floe_iceberg_commit_next(c);
	for (size_t i = 0; i < op->n_set; i++) {
		if (!op->set[i].key || !*op->set[i].key || !op->set[i].value)
			return floe_error_set(FLOE_ERR_USAGE, "a table property needs a key and a value");
		floe_iceberg_metadata_set_property(c->next, c->arena, op->set[i].key, op->set[i].value);
	}
	for (size_t i = 0; i < op->n_remove; i++)
		floe_iceberg_metadata_set_property(c->next, c->arena, op->remove[i], NULL);
	return 0;
}

int floe_iceberg_table_set_properties(floe_iceberg_table *table, const floe_iceberg_kv *set,
				      size_t n_set, const char *const *remove, size_t n_remove)
{
	props_op op = { set, n_set, remove, n_remove };
	commit_change ch = { "a property change", apply_props, NULL, NULL, &op };
	return floe_iceberg_commit(table, &ch, NULL);
}

bool floe_iceberg_table_may_have_landed(const floe_iceberg_table *table)
{
	return table->may_have_landed;
}
