/*
 * topic.c — `floe run` for Kafka topics: each [[kafka.topics]] entry consumed into
 * bronze.<table> exactly once (docs/kafka.md).
 *
 * The offsets live in the table: the newest snapshot's summary `floe.kafka.offsets`
 * holds the next offset to read per partition. A run reads from there up to the high
 * watermarks it saw at its start (or max-batch messages), writes Parquet through the
 * table's storage, and commits one snapshot whose summary carries the new offsets,
 * expecting the snapshot it read the old ones from (a compare-and-swap: a writer that
 * moved meanwhile makes this one fail and leave nothing). Only after that commit are
 * the offsets committed to the Kafka group, for lag dashboards. Messages that do not
 * fit go to bronze.<table>__rejected, committed first with the same offsets, so a crash
 * between the two commits neither loses nor repeats a rejected message: the next run
 * skips rejects below the rejected table's own offsets.
 */
#include "bronze/topic_int.h"
#include "base/error.h"
#include "base/log.h"
#include "base/secret.h"
#include "kafka/kafka.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POLL_MS 500
#define IDLE_LIMIT_MS 15000
#define META_TIMEOUT_MS 10000

typedef struct side {
	floe_iceberg_table *table;
	bronze_columns cols;
	floe_vector *vec;
	bronze_files files;
	const char **removed;        /* upsert: files the merge replaces */
	size_t n_removed;
	topic_offsets seen;          /* offsets in its newest snapshot */
	int64_t expect;              /* that snapshot, or FLOE_ICEBERG_NO_SNAPSHOT */
	int64_t rows;
} side;

typedef struct topic_run {
	const floe_config *config;
	const floe_config_kafka *k;
	const floe_config_kafka_topic *t;
	floe_arena *a;
	floe_iceberg_catalog *catalog;
	topic_columns tc;
	side main, rej;
	floe_kafka_client *consumer;
	int32_t *parts;
	size_t n_parts;
	int64_t *next, *high;       /* per partition: next offset to read, end of this run */
	int64_t messages, newest_ms;
	bool *tombstone;             /* upsert: per row of main.vec */
	size_t n_tomb, cap_tomb;
	int64_t upserted, deleted;
	int64_t prev_newest;         /* the newest message timestamp the table held before */
	bool inferred;               /* the columns were inferred by this run (and locked in the new table) */
} topic_run;

/* The columns this run writes must be the table's: field ids are positions, so any change would mislabel data. */
static int same_schema(floe_iceberg_table *table, const bronze_columns *cols, floe_arena *a)
{
	const floe_iceberg_schema *have = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(table));
	const char *why = have->n_fields != cols->n ? "a different number of columns" : NULL;
	for (size_t i = 0; !why && i < cols->n; i++) {
		const floe_iceberg_field *f = &have->fields[i], *g = &cols->schema->fields[i];
		if (f->id != g->id || strcmp(f->name, g->name) != 0 ||
		    strcmp(floe_iceberg_type_string(a, f->type), floe_iceberg_type_string(a, g->type)) != 0)
			why = floe_arena_printf(a, "column %zu is %s %s in the table, %s %s in floe.toml", i + 1, f->name,
						floe_iceberg_type_string(a, f->type), g->name, floe_iceberg_type_string(a, g->type));
	}
	if (!why)
		return 0;
	floe_error_set(FLOE_ERR_CONFIG, "the columns declared for %s differ from its schema: %s",
		       floe_iceberg_table_name(table), why);
	floe_error_hint("Declare the table's columns as they are (or remove `columns` to use them as locked), or drop "
			"the table to reload the topic with the new ones.");
	return -1;
}

static int open_side(side *s, topic_run *r, const char *name, const char *topic)
{
	floe_buf where = FLOE_BUF_INIT;
	int found = floe_iceberg_catalog_load(r->catalog, &where, "bronze", name);
	floe_buf_free(&where);
	if (found < 0)
		return -1;
	if (found == 0) {
		floe_iceberg_create_opts o = FLOE_ICEBERG_CREATE_OPTS_INIT;
		floe_iceberg_kv props[] = { { "floe.kafka.topic", topic } };
		o.properties = props;
		o.n_properties = 1;
		if (floe_iceberg_table_create(&s->table, r->catalog, "bronze", name, s->cols.schema, &o) < 0)
			return -1;
	} else if (floe_iceberg_table_load(&s->table, r->catalog, "bronze", name) < 0 ||
		   same_schema(s->table, &s->cols, r->a) < 0) {
		return -1;
	}
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(s->table));
	s->expect = snap ? snap->snapshot_id : FLOE_ICEBERG_NO_SNAPSHOT;
	const char *json = snap ? floe_iceberg_snapshot_summary(snap, TOPIC_SUMMARY_KEY) : NULL;
	memset(&s->seen, 0, sizeof(s->seen));
	if (json && topic_offsets_parse(&s->seen, r->a, json, strlen(json), topic) < 0)
		return floe_error_context("in the newest snapshot of bronze.%s", name);
	const char *newest = snap ? floe_iceberg_snapshot_summary(snap, TOPIC_NEWEST_KEY) : NULL;
	if (newest && s == &r->main)
		r->prev_newest = strtoll(newest, NULL, 10);
	s->vec = bronze_vectors_new(r->a, &s->cols);
	bronze_files_init(&s->files, r->a, s->table, &s->cols, 0, r->config->warehouse.zstd_level);
	return 0;
}

/* A consumer for [kafka] with `topic`'s partitions listed. */
static int consumer_for(floe_kafka_client **out, int32_t **parts, size_t *n_parts, const floe_config_kafka *k,
			const char *topic)
{
	floe_kafka_opts o = FLOE_KAFKA_OPTS_INIT;
	o.brokers = k->brokers;
	o.security_protocol = k->security_protocol;
	o.sasl_mechanism = k->sasl_mechanism;
	o.sasl_username = k->sasl_username;
	o.sasl_password = k->sasl_password_env ? getenv(k->sasl_password_env) : NULL;
	o.group = k->group;
	if (o.sasl_password)
		floe_secret_register(o.sasl_password); /* never in output, logs or errors */
	if (floe_kafka_consumer_open(out, &o) < 0)
		return -1;
	return floe_kafka_partitions(parts, n_parts, *out, topic, META_TIMEOUT_MS);
}

static int open_consumer(topic_run *r)
{
	if (consumer_for(&r->consumer, &r->parts, &r->n_parts, r->k, r->t->topic) < 0)
		return -1;
	r->next = floe_arena_alloc(r->a, r->n_parts * sizeof(int64_t));
	r->high = floe_arena_alloc(r->a, r->n_parts * sizeof(int64_t));
	for (size_t i = 0; i < r->n_parts; i++) {
		int64_t low;
		if (floe_kafka_watermarks(&low, &r->high[i], r->consumer, r->t->topic, r->parts[i], META_TIMEOUT_MS) < 0)
			return -1;
		r->next[i] = topic_offsets_get(&r->main.seen, r->parts[i], low);
		if (r->next[i] < low) {
			floe_error_set(FLOE_ERR_CHECK, "partition %d of topic \"%s\" no longer holds offset %lld: the broker "
				       "deleted messages bronze.%s never read (retention)", (int)r->parts[i], r->t->topic,
				       (long long)r->next[i], r->t->table);
			floe_error_hint("Those messages are lost to bronze; raise the topic's retention, then reload the "
					"table from the oldest kept offset by dropping it.");
			return -1;
		}
	}
	return floe_kafka_assign(r->consumer, r->t->topic, r->parts, r->next, r->n_parts);
}

static size_t part_index(const topic_run *r, int32_t p)
{
	for (size_t i = 0; i < r->n_parts; i++)
		if (r->parts[i] == p)
			return i;
	return r->n_parts;
}

static bool caught_up(const topic_run *r)
{
	for (size_t i = 0; i < r->n_parts; i++)
		if (r->next[i] < r->high[i])
			return false;
	return true;
}

static int flush_side(side *s, bool force)
{
	if (s->cols.n == 0 || s->vec[0].len == 0 || (!force && s->vec[0].len < BRONZE_BATCH_ROWS))
		return 0;
	if (bronze_files_write(&s->files, s->vec) < 0)
		return -1;
	for (size_t i = 0; i < s->cols.n; i++)
		floe_vector_clear(&s->vec[i]);
	return 0;
}

static int take(topic_run *r, const floe_kafka_message *km)
{
	size_t i = part_index(r, km->partition);
	const char *why = NULL;
	if (i == r->n_parts || km->offset < r->next[i] || km->offset >= r->high[i])
		return 0; /* past this run's end (or a repeat): the next run reads it */
	topic_message m = { km->partition, km->offset, km->timestamp_ms, km->key, km->key_len, km->value, km->value_len };
	if (topic_decode(r->main.vec, &r->tc, &m, r->a, &why) == 0) {
		r->main.rows++;
		if (r->tc.n_key)
			*FLOE_ARENA_PUSH(r->a, r->tombstone, r->n_tomb, r->cap_tomb) = km->value == NULL;
	} else if (km->offset >= topic_offsets_get(&r->rej.seen, km->partition, 0)) {
		topic_reject_row(r->rej.vec, &m, why);
		r->rej.rows++;
	}
	r->next[i] = km->offset + 1;
	r->messages++;
	if (km->timestamp_ms > r->newest_ms)
		r->newest_ms = km->timestamp_ms;
	/* an upsert batch stays in memory (max-batch bounds it): the last message per key decides */
	return (!r->tc.n_key && flush_side(&r->main, false) < 0) || flush_side(&r->rej, false) < 0 ? -1 : 0;
}

static int upsert(topic_run *r)
{
	topic_upsert u = { .table = r->main.table, .tc = &r->tc, .config = r->config, .arena = r->a,
			   .rows = r->main.vec, .tombstone = r->tombstone };
	if (r->main.rows == 0)
		return 0;
	if (topic_upsert_prepare(&u) < 0)
		return -1;
	r->main.files = u.out;
	r->main.removed = u.removed;
	r->main.n_removed = u.n_removed;
	r->upserted = u.upserted;
	r->deleted = u.deleted;
	return 0;
}

/*
 * A partition at its end: every message below this run's end was delivered, so the offsets
 * between the last one and the end are transactions' control records (or aborted messages,
 * which read_committed never delivers): the partition is read up to its end.
 */
static void reached_end(topic_run *r, const floe_kafka_message *eof)
{
	size_t i = part_index(r, eof->partition);
	if (i < r->n_parts && eof->offset >= r->high[i] && r->next[i] < r->high[i])
		r->next[i] = r->high[i];
}

static int consume(topic_run *r)
{
	int idle = 0;
	while (!caught_up(r) && r->messages < r->k->max_batch) {
		floe_kafka_message m;
		int got = floe_kafka_poll(&m, r->consumer, POLL_MS);
		if (got < 0)
			return -1;
		if (got == 0 && (idle += POLL_MS) >= IDLE_LIMIT_MS) {
			floe_error_set(FLOE_ERR_UNREACHABLE, "kafka topic \"%s\" sent nothing for %d s before its end",
				       r->t->topic, IDLE_LIMIT_MS / 1000);
			floe_error_hint("Check the brokers' health; the next run resumes where this one stopped.");
			return -1;
		}
		if (got == 1) {
			idle = 0;
			if (take(r, &m) < 0)
				return -1;
		} else if (got == 2) {
			reached_end(r, &m);
		}
	}
	if (r->tc.n_key)
		return flush_side(&r->rej, true) < 0 || bronze_files_close(&r->rej.files) < 0 ? -1 : upsert(r);
	return flush_side(&r->main, true) < 0 || flush_side(&r->rej, true) < 0 || bronze_files_close(&r->main.files) < 0 ||
			       bronze_files_close(&r->rej.files) < 0
		       ? -1
		       : 0;
}

/* "id long, name string, …": what inference chose, for the run's output. */
static const char *describe_columns(topic_run *r)
{
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i < r->t->n_columns; i++)
		floe_buf_printf(&b, "%s%s = \"%s\"", i ? ", " : "", r->t->columns[i].name, r->t->columns[i].type);
	const char *s = floe_arena_strdup(r->a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

static void offsets_now(topic_offsets *o, const topic_run *r)
{
	o->n = r->n_parts;
	o->partition = r->parts;
	o->next = r->next;
}

static int commit_side(side *s, const char *offsets, const char *newest, const char *run_id, bool always)
{
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	floe_iceberg_kv summary[] = { { TOPIC_SUMMARY_KEY, offsets }, { TOPIC_NEWEST_KEY, newest }, { "floe.run-id", run_id } };
	if (!always && s->files.n == 0)
		return 0;
	o.summary = summary;
	o.n_summary = run_id ? 3 : 2;
	o.expect_snapshot_id = s->expect;
	o.max_retries = 0;
	if ((s->n_removed ? floe_iceberg_table_rewrite(s->table, s->removed, s->n_removed, s->files.files, s->files.n, &o)
			  : floe_iceberg_table_append(s->table, s->files.files, s->files.n, &o)) == 0)
		return 0;
	if (!floe_iceberg_table_may_have_landed(s->table))
		bronze_files_discard(&s->files, 0);
	return floe_error_context("while committing %s", floe_iceberg_table_name(s->table));
}

/* Up to TOPIC_INFER_MESSAGES messages from each partition's oldest, for inference. */
static int infer_from_topic(topic_infer *st, topic_run *r)
{
	floe_kafka_client *c = NULL;
	int32_t *parts = NULL;
	size_t n = 0, done = 0;
	int error = -1, idle = 0;
	if (consumer_for(&c, &parts, &n, r->k, r->t->topic) < 0)
		goto cleanup;
	int64_t *from = floe_arena_alloc(r->a, (n + 1) * sizeof(int64_t)), *high = floe_arena_alloc(r->a, (n + 1) * sizeof(int64_t));
	for (size_t i = 0; i < n; i++)
		if (floe_kafka_watermarks(&from[i], &high[i], c, r->t->topic, parts[i], META_TIMEOUT_MS) < 0)
			goto cleanup;
	if (floe_kafka_assign(c, r->t->topic, parts, from, n) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		done += from[i] >= high[i];
	while (done < n && st->messages < TOPIC_INFER_MESSAGES && idle < IDLE_LIMIT_MS) {
		floe_kafka_message m;
		int got = floe_kafka_poll(&m, c, POLL_MS);
		if (got < 0)
			goto cleanup;
		idle = got ? 0 : idle + POLL_MS;
		for (size_t i = 0; got == 2 && i < n; i++)
			if (parts[i] == m.partition && m.offset >= high[i] && from[i] < high[i]) {
				from[i] = high[i]; /* the rest were control records: read to the end */
				done++;
			}
		for (size_t i = 0; got == 1 && i < n; i++)
			if (parts[i] == m.partition && m.offset < high[i]) {
				st->seen++;
				topic_infer_add(st, m.value, m.value_len);
				from[i] = m.offset + 1;
				done += from[i] == high[i];
			}
	}
	error = 0;
cleanup:
	floe_kafka_close(c);
	free(parts);
	return error;
}

/*
 * The topic's columns: declared in floe.toml; else the schema of the table floe created for
 * it (the lock); else inferred from its first messages, and locked when the table is created.
 * 1 when the topic has no message to infer from yet.
 */
static int resolve_columns(topic_run *r)
{
	floe_config_kafka_topic *t = floe_arena_alloc(r->a, sizeof(*t));
	floe_iceberg_table *table = NULL;
	floe_buf where = FLOE_BUF_INIT;
	*t = *r->t;
	r->t = t;
	if (t->columns)
		return 0;
	int found = floe_iceberg_catalog_load(r->catalog, &where, "bronze", t->table);
	floe_buf_free(&where);
	if (found < 0)
		return -1;
	if (found) {
		int rc = floe_iceberg_table_load(&table, r->catalog, "bronze", t->table) < 0 ||
				 topic_columns_from_schema(&t->columns, &t->n_columns, r->a,
							   floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(table))) < 0
			 ? -1 : 0;
		floe_iceberg_table_free(table);
		return rc;
	}
	topic_infer st = { .arena = r->a };
	if (infer_from_topic(&st, r) < 0)
		return -1;
	topic_infer_columns(&st, &t->columns, &t->n_columns);
	if (st.seen == 0)
		return 1; /* nothing to infer from yet: the topic waits for its first messages */
	if (t->n_columns == 0) {
		t->columns = NULL;
		floe_error_set(FLOE_ERR_CONFIG, "topic \"%s\" declares no columns and its first messages hold no JSON object "
			       "to infer them from", t->topic);
		floe_error_hint("Declare them: columns = { id = \"long\", name = \"string\" } in its [[kafka.topics]].");
		return -1;
	}
	r->inferred = true;
	return 0;
}

static int load_topic(floe_bronze_topic_result *res, topic_run *r, const char *catalog_path, const char *warehouse,
		      const char *run_id)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_buf offsets = FLOE_BUF_INIT;
	topic_offsets now;
	int error = -1;
	co.warehouse = warehouse;
	co.create = true;
	topic_rejected_columns(&r->rej.cols, r->a);
	int cols = floe_iceberg_catalog_open_sql(&r->catalog, catalog_path, &co) < 0 ? -1 : resolve_columns(r);
	if (cols == 1) {
		res->detail = "no messages yet: its columns will be inferred from the first ones";
		error = 0;
		goto cleanup;
	}
	if (cols < 0 || topic_columns_build(&r->tc, r->a, r->t) < 0)
		goto cleanup;
	r->main.cols = r->tc.cols;
	if (open_side(&r->main, r, r->t->table, r->t->topic) < 0 ||
	    open_side(&r->rej, r, floe_arena_printf(r->a, "%s__rejected", r->t->table), r->t->topic) < 0 ||
	    open_consumer(r) < 0 || consume(r) < 0)
		goto cleanup;
	offsets_now(&now, r);
	topic_offsets_format(&offsets, &now, r->t->topic);
	res->offsets = floe_arena_strdup(r->a, floe_buf_cstr(&offsets));
	if (r->messages == 0) {
		res->detail = "up to date";
		error = 0;
		goto cleanup;
	}
	const char *newest = floe_arena_printf(r->a, "%lld", (long long)(r->newest_ms > r->prev_newest ? r->newest_ms : r->prev_newest));
	if (commit_side(&r->rej, res->offsets, newest, run_id, false) < 0 ||
	    commit_side(&r->main, res->offsets, newest, run_id, true) < 0)
		goto cleanup;
	res->snapshot_id = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(r->main.table))->snapshot_id;
	/* Only now, for lag dashboards: the table is the truth, the group a copy. */
	if (floe_kafka_commit(r->consumer, r->t->topic, r->parts, r->next, r->n_parts) < 0) {
		floe_log_warn("bronze.%s committed; the offsets could not be copied to kafka group \"%s\" (lag dashboards "
			      "lag behind until the next run)", r->t->table, r->k->group);
		floe_error_clear();
	}
	res->inferred = r->inferred ? describe_columns(r) : NULL;
	res->detail = r->tc.n_key ? floe_arena_printf(r->a, "%lld messages: %lld keys upserted, %lld deleted, %lld rejected",
						      (long long)r->messages, (long long)r->upserted, (long long)r->deleted,
						      (long long)r->rej.rows)
				  : floe_arena_printf(r->a, "%lld messages: %lld rows, %lld rejected", (long long)r->messages,
						      (long long)r->main.rows, (long long)r->rej.rows);
	error = 0;
cleanup:
	res->messages = r->messages;
	res->rows = r->main.rows;
	res->rejected = r->rej.rows;
	res->newest_ms = r->newest_ms;
	if (error < 0) {
		bronze_files_discard(&r->main.files, r->main.files.n);
		bronze_files_discard(&r->rej.files, r->rej.files.n);
		floe_error_context("while loading kafka topic \"%s\" into bronze.%s", r->t->topic, r->t->table);
	}
	floe_buf_free(&offsets);
	return error;
}

static void close_run(topic_run *r)
{
	for (side *s = &r->main; s; s = s == &r->main ? &r->rej : NULL) {
		for (size_t i = 0; s->vec && i < s->cols.n; i++)
			floe_vector_free(&s->vec[i]);
		floe_iceberg_table_free(s->table);
	}
	floe_kafka_close(r->consumer);
	free(r->parts);
	floe_iceberg_catalog_free(r->catalog);
}

int floe_bronze_topics_run(floe_bronze_topic_result **out, size_t *n_out, floe_arena *arena, const floe_config *config,
			   const char *run_id)
{
	const floe_config_kafka *k = config->kafka;
	size_t n = k ? k->n_topics : 0;
	floe_bronze_topic_result *res = floe_arena_alloc(arena, (n + 1) * sizeof(*res));
	const char *catalog_path = floe_config_catalog_path(arena, config);
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		topic_run r = { .config = config, .k = k, .t = &k->topics[i], .a = arena, .newest_ms = -1 };
		memset(&res[i], 0, sizeof(res[i]));
		res[i].topic = k->topics[i].topic;
		res[i].table = floe_arena_printf(arena, "bronze.%s", k->topics[i].table);
		if (load_topic(&res[i], &r, catalog_path, floe_config_warehouse_dir(config), run_id) < 0) {
			floe_buf msg = FLOE_BUF_INIT;
			floe_error_put_message(&msg, floe_error_last());
			res[i].error = floe_arena_strdup(arena, floe_buf_cstr(&msg));
			res[i].exit_code = (int)floe_error_exit_code();
			floe_buf_free(&msg);
			floe_error_clear();
			failed++;
		}
		close_run(&r);
	}
	*out = res;
	*n_out = n;
	return failed;
}

/* ---- status: lag per partition and freshness ---- */

static int topic_status(floe_bronze_topic_status *st, floe_arena *a, floe_iceberg_catalog *cat,
			const floe_config_kafka *k, const floe_config_kafka_topic *t)
{
	floe_iceberg_table *table = NULL;
	floe_kafka_client *c = NULL;
	int32_t *parts = NULL;
	size_t n = 0;
	topic_offsets seen = { 0 };
	int error = -1;
	floe_buf where = FLOE_BUF_INIT;
	int found = floe_iceberg_catalog_load(cat, &where, "bronze", t->table);
	floe_buf_free(&where);
	if (found < 0 || (found && floe_iceberg_table_load(&table, cat, "bronze", t->table) < 0))
		goto cleanup;
	const floe_iceberg_snapshot *snap =
		table ? floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(table)) : NULL;
	const char *json = snap ? floe_iceberg_snapshot_summary(snap, TOPIC_SUMMARY_KEY) : NULL;
	const char *newest = snap ? floe_iceberg_snapshot_summary(snap, TOPIC_NEWEST_KEY) : NULL;
	st->committed_ms = snap ? snap->timestamp_ms : -1;
	st->newest_ms = newest ? strtoll(newest, NULL, 10) : -1;
	if ((json && topic_offsets_parse(&seen, a, json, strlen(json), t->topic) < 0) ||
	    consumer_for(&c, &parts, &n, k, t->topic) < 0)
		goto cleanup;
	st->parts = floe_arena_alloc(a, (n + 1) * sizeof(*st->parts));
	for (size_t i = 0; i < n; i++) {
		floe_bronze_topic_lag *p = &st->parts[st->n_parts++];
		int64_t low;
		if (floe_kafka_watermarks(&low, &p->high, c, t->topic, parts[i], META_TIMEOUT_MS) < 0)
			goto cleanup;
		p->partition = parts[i];
		p->next = topic_offsets_get(&seen, parts[i], low);
		p->lag = p->high > p->next ? p->high - p->next : 0;
		st->lag += p->lag;
	}
	error = 0;
cleanup:
	floe_iceberg_table_free(table);
	floe_kafka_close(c);
	free(parts);
	return error;
}

int floe_bronze_topics_status(floe_bronze_topic_status **out, size_t *n_out, floe_arena *arena,
			      const floe_config *config)
{
	const floe_config_kafka *k = config->kafka;
	size_t n = k ? k->n_topics : 0;
	floe_iceberg_catalog *cat = NULL;
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_bronze_topic_status *st = floe_arena_alloc(arena, (n + 1) * sizeof(*st));
	int failed = 0;
	co.warehouse = floe_config_warehouse_dir(config);
	co.create = true;
	bool opened = n == 0 || floe_iceberg_catalog_open_sql(&cat, floe_config_catalog_path(arena, config), &co) == 0;
	for (size_t i = 0; i < n; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].topic = k->topics[i].topic;
		st[i].table = floe_arena_printf(arena, "bronze.%s", k->topics[i].table);
		if (!opened || topic_status(&st[i], arena, cat, k, &k->topics[i]) < 0) {
			floe_buf msg = FLOE_BUF_INIT;
			floe_error_put_message(&msg, floe_error_last());
			st[i].error = floe_arena_strdup(arena, floe_buf_cstr(&msg));
			floe_buf_free(&msg);
			failed++;
		}
	}
	floe_error_clear();
	floe_iceberg_catalog_free(cat);
	*out = st;
	*n_out = n;
	return failed;
}
