/*
 * stream.c — a CDC batch (cdc.h): the table's changes read from its slot up to a
 * consistent point L, and the exported snapshot S that shows exactly the transactions
 * that committed before L.
 *
 * Why S matches L: S is taken first and L = pg_current_wal_insert_lsn() right after it in
 * the same statement, so every transaction S sees wrote its commit record before L. The
 * other way round is nearly always true too — a transaction commits in the WAL a moment
 * before it becomes visible — and is checked: a transaction of the batch (commit LSN < L)
 * that S does not see (its xid is in S's in-progress list) means S came in that moment, so
 * S and L are taken again and the stream read on. Transactions that commit at or after L
 * are not in the batch; the slot sends them again next time, since only L is acknowledged.
 */
#include "cdc/cdc_int.h"
#include "cdc/pgoutput.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "base/text.h"
#include "pg/introspect.h"
#include "pg/replication.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KEYS 50000                /* changed keys a keyed re-read takes; more load in full */
#define MAX_KEY_BYTES ((size_t)64 << 20)
#define MAX_TRIES 8                   /* snapshots taken before giving up on a consistent one */
#define XLOG_PAGE 8192                /* XLOG_BLCKSZ */
#define XLOG_LONG_HEADER 40           /* the most a page header takes (SizeOfXLogLongPHD) */

typedef struct txn {
	uint32_t xid;
	uint64_t commit;
	size_t key_from, key_to;      /* rows of keys */
	int64_t ins, upd, del;
	bool truncate, unkeyed;       /* a truncate; a key value the stream could not give */
} txn;

typedef struct reading {
	floe_cdc *c;
	floe_cdc_decoder dec;
	uint32_t relid;               /* our table's, once its Relation message came */
	size_t *key_at;               /* per key column, its index in the relation's columns */
	const char **keys;            /* rows of n_key values */
	size_t n_keys, cap_keys, key_bytes;
	bool overflow;                /* more keys than a re-read takes */
	txn *txns;
	size_t n_txns, cap_txns;
	txn cur;
	bool in_txn;
	uint64_t seen;                /* the stream's position: keepalive end or last commit */
	bool committed_past;          /* a commit at or past L came */
} reading;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* PostgreSQL's epoch is 2000-01-01 */
	return ((int64_t)ts.tv_sec - 946684800) * 1000000 + ts.tv_nsec / 1000;
}

int cdc_snapshot_take(floe_cdc *c, const char **snapshot, const char **xip, uint64_t *lsn)
{
	floe_pg_result *r = NULL;
	if (c->holding) {
		floe_pg_exec(c->holder, "COMMIT");
		c->holding = false;
	}
	if (floe_pg_exec(c->holder, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0)
		return -1;
	c->holding = true;
	if (floe_pg_query(&r, c->holder, "select pg_catalog.pg_export_snapshot(), pg_catalog.pg_current_snapshot()::text, "
					 "pg_catalog.pg_current_wal_insert_lsn()::text", 0, NULL) < 0)
		return -1;
	*snapshot = floe_arena_strdup(c->opts->arena, floe_pg_result_text(r, 0, 0));
	*xip = floe_arena_strdup(c->opts->arena, floe_pg_result_text(r, 0, 1));
	int rc = floe_cdc_lsn_parse(lsn, floe_pg_result_text(r, 0, 2));
	floe_pg_result_free(r);
	return rc < 0 ? floe_error_set(FLOE_ERR_INTERNAL, "the source gave no WAL position") : 0;
}

bool cdc_snapshot_sees(const char *snap, uint32_t xid)
{
	char *end = NULL;
	unsigned long long xmin = strtoull(snap, &end, 10);
	unsigned long long xmax = *end == ':' ? strtoull(end + 1, &end, 10) : 0;
	unsigned long long full = (xmax & ~0xffffffffULL) | xid;
	if (full > xmax && full >= 0x100000000ULL)
		full -= 0x100000000ULL;
	if (full < xmin)
		return true;
	if (full >= xmax)
		return false;
	while (*end == ':' || *end == ',') {
		if (strtoull(end + 1, &end, 10) == full)
			return false;
	}
	return true;
}

/* Key values of a tuple, appended as one row; unkeyed when a key column came without its value. */
static void key_row(reading *rd, const floe_cdc_tuple *t)
{
	const floe_cdc_opts *o = rd->c->opts;
	size_t bytes = 0;
	for (size_t k = 0; k < o->n_key; k++) {
		const floe_cdc_value *v = rd->key_at[k] < t->n ? &t->values[rd->key_at[k]] : NULL;
		if (!v || v->kind != 't') {
			rd->cur.unkeyed = true;
			return;
		}
		bytes += v->len + 1;
	}
	rd->key_bytes += bytes;
	if (rd->overflow || rd->key_bytes > MAX_KEY_BYTES) {
		rd->overflow = true;
		return;
	}
	if ((rd->n_keys + 1) * o->n_key > rd->cap_keys)
		rd->keys = floe_cdc_room(rd->keys, &rd->cap_keys, (rd->n_keys + 1) * o->n_key, sizeof(char *));
	for (size_t k = 0; k < o->n_key; k++) {
		const floe_cdc_value *v = &t->values[rd->key_at[k]];
		rd->keys[rd->n_keys * o->n_key + k] = floe_arena_strndup(o->arena, v->data, v->len);
	}
	rd->n_keys++;
}

/* A Relation message: when it is our table, where its key columns are. */
static int relation(reading *rd, const floe_cdc_msg *m)
{
	const floe_cdc_opts *o = rd->c->opts;
	if (strcmp(m->nspname, o->schema) != 0 || strcmp(m->relname, o->table) != 0)
		return 0;
	rd->relid = m->relid;
	for (size_t k = 0; k < o->n_key; k++) {
		size_t i = 0;
		while (i < m->n_columns && strcmp(m->columns[i].name, o->key[k]) != 0)
			i++;
		if (i == m->n_columns)
			return floe_error_set(FLOE_ERR_INTERNAL, "the stream's %s.%s has no key column \"%s\"", o->schema,
					      o->table, o->key[k]);
		rd->key_at[k] = i;
	}
	return 0;
}

static void commit(reading *rd, const floe_cdc_msg *m, uint64_t L)
{
	rd->cur.commit = m->lsn;
	rd->cur.key_to = rd->n_keys;
	rd->txns = floe_cdc_room(rd->txns, &rd->cap_txns, rd->n_txns + 1, sizeof(txn));
	rd->txns[rd->n_txns++] = rd->cur;
	rd->in_txn = false;
	if (m->lsn >= L)
		rd->committed_past = true;
	if (m->end_lsn > rd->seen)
		rd->seen = m->end_lsn;
}

static int message(reading *rd, const uint8_t *p, size_t n, uint64_t L)
{
	floe_cdc_msg m;
	if (floe_cdc_decode(&m, &rd->dec, p, n) < 0)
		return -1;
	bool ours = m.relid == rd->relid && rd->relid != 0;
	switch (m.kind) {
	case FLOE_CDC_BEGIN:
		rd->cur = (txn){ .xid = m.xid, .key_from = rd->n_keys };
		rd->in_txn = true;
		break;
	case FLOE_CDC_COMMIT:
		commit(rd, &m, L);
		break;
	case FLOE_CDC_RELATION:
		return relation(rd, &m);
	case FLOE_CDC_INSERT:
		if (ours)
			rd->cur.ins++, key_row(rd, &m.new_tuple);
		break;
	case FLOE_CDC_UPDATE:
		if (ours) {
			rd->cur.upd++;
			if (m.old_kind)
				key_row(rd, &m.old_tuple);
			key_row(rd, &m.new_tuple);
		}
		break;
	case FLOE_CDC_DELETE:
		if (ours)
			rd->cur.del++, key_row(rd, &m.old_tuple);
		break;
	case FLOE_CDC_TRUNCATE:
		for (uint32_t i = 0; i < m.n_relids; i++)
			rd->cur.truncate |= m.relids[i] == rd->relid;
		break;
	case FLOE_CDC_STREAM_START: case FLOE_CDC_BEGIN_PREPARE: case FLOE_CDC_PREPARE:
		return floe_error_set(FLOE_ERR_INTERNAL, "the stream sent message '%c', which protocol version 1 "
				      "without streaming or two-phase never sends", (char)m.kind);
	default: /* origin, type, logical messages: nothing to apply */
		break;
	}
	return 0;
}

static int send_status(floe_cdc *c, uint64_t flushed)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_cdc_status_encode(&b, flushed, flushed, flushed, now_us(), false);
	int rc = floe_pg_replication_send(c->repl, b.ptr, b.len);
	floe_buf_free(&b);
	return rc;
}

/*
 * Whether the stream has passed L: a commit at or past it came, or the server's sent
 * position reached it — or stopped at the page boundary just before it, when L points
 * past the header of a page no record has reached yet.
 */
static bool reached(const reading *rd, uint64_t L)
{
	if (rd->in_txn)
		return false;
	return rd->committed_past || rd->seen >= L ||
	       (rd->seen % XLOG_PAGE == 0 && rd->seen > 0 && L - rd->seen <= XLOG_LONG_HEADER);
}

/* Read the stream until it passes L. Keepalives are answered with the table's LSN as flushed,
 * so the server keeps sending them (its position) while it waits for WAL. */
static int read_until(reading *rd, uint64_t L, time_t deadline)
{
	floe_cdc *c = rd->c;
	floe_buf buf = FLOE_BUF_INIT;
	int error = -1;
	while (!reached(rd, L)) {
		floe_cdc_frame f;
		int rc = floe_pg_replication_read(c->repl, &buf, 500);
		if (rc < 0)
			goto cleanup;
		if (rc == 0) {
			if (time(NULL) > deadline) {
				char want[24], at[24];
				floe_cdc_lsn_format(want, L), floe_cdc_lsn_format(at, rd->seen);
				floe_error_set(FLOE_ERR_UNREACHABLE, "the replication stream of slot \"%s\" did not reach "
					       "%s in time (it is at %s)", c->names.slot, want, at);
				floe_error_hint("Is the server busy decoding a large transaction? Run again later.");
				goto cleanup;
			}
			continue;
		}
		if (floe_cdc_frame_decode(&f, (const uint8_t *)buf.ptr, buf.len) < 0)
			goto cleanup;
		if (f.kind == 'k') {
			if (f.end > rd->seen && !rd->in_txn)
				rd->seen = f.end;
			if (send_status(c, c->start) < 0)
				goto cleanup;
		} else if (message(rd, f.data, f.len, L) < 0) {
			goto cleanup;
		}
	}
	error = 0;
cleanup:
	floe_buf_free(&buf);
	return error;
}

static int start(floe_cdc *c)
{
	char lsn[24];
	floe_cdc_lsn_format(lsn, c->start);
	const char *cmd = floe_arena_printf(c->opts->arena, "START_REPLICATION SLOT \"%s\" LOGICAL %s "
					    "(proto_version '1', publication_names '\"%s\"')", c->names.slot, lsn,
					    c->names.publication);
	if (!c->repl && floe_pg_connect_replication(&c->repl, c->opts->config) < 0)
		return -1;
	/* A run killed a moment ago may still hold the slot until its walsender notices: wait a little. */
	for (int tries = 0; floe_pg_replication_start(c->repl, cmd) < 0; tries++) {
		if (tries == 20 || floe_error_last()->code != FLOE_CODE_SOURCE_LOCKED)
			return floe_error_context("while starting to read slot \"%s\"", c->names.slot);
		floe_error_clear();
		nanosleep(&(struct timespec){ .tv_nsec = 500000000 }, NULL);
	}
	c->streaming = true;
	return 0;
}

/* The first transaction of the batch S does not see, or NULL. */
static const txn *unseen(const reading *rd, const char *xip, uint64_t L)
{
	for (size_t i = 0; i < rd->n_txns; i++) {
		const txn *t = &rd->txns[i];
		bool touched = t->ins || t->upd || t->del || t->truncate;
		if (t->commit < L && touched && !cdc_snapshot_sees(xip, t->xid))
			return &rd->txns[i];
	}
	return NULL;
}

static int cmp_rows(const void *a, const void *b, void *n)
{
	const char *const *x = a, *const *y = b;
	for (size_t k = 0; k < *(size_t *)n; k++) {
		int c = strcmp(x[k], y[k]);
		if (c)
			return c;
	}
	return 0;
}

/* The batch: the transactions before L, their keys sorted and distinct, or why it loads in full. */
static void gather(reading *rd, floe_cdc_batch *b, uint64_t L)
{
	const floe_cdc_opts *o = rd->c->opts;
	size_t nk = o->n_key, n = 0;
	bool truncated = false, unkeyed = false;
	const char **rows = floe_arena_alloc(o->arena, (rd->n_keys * nk + 1) * sizeof(char *));
	for (size_t i = 0; i < rd->n_txns && rd->txns[i].commit < L; i++) {
		const txn *t = &rd->txns[i];
		b->inserts += t->ins, b->updates += t->upd, b->deletes += t->del, b->truncates += t->truncate;
		b->transactions++;
		truncated |= t->truncate, unkeyed |= t->unkeyed;
		memcpy(rows + n * nk, rd->keys + t->key_from * nk, (t->key_to - t->key_from) * nk * sizeof(char *));
		n += t->key_to - t->key_from;
	}
	qsort_r(rows, n, nk * sizeof(char *), cmp_rows, &nk);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (distinct == 0 || cmp_rows(rows + i * nk, rows + (distinct - 1) * nk, &nk) != 0)
			memmove(rows + distinct++ * nk, rows + i * nk, nk * sizeof(char *));
	b->keys = rows;
	b->n_keys = distinct;
	b->detail = floe_arena_printf(o->arena, "cdc: %lld transactions (%lld inserts, %lld updates, %lld deletes, "
				      "%lld truncates) up to %s, %zu keys", (long long)b->transactions,
				      (long long)b->inserts, (long long)b->updates, (long long)b->deletes,
				      (long long)b->truncates, b->lsn, distinct);
	if (truncated)
		b->full_reason = "loaded in full at the stream's snapshot: the table was truncated";
	else if (unkeyed)
		b->full_reason = "loaded in full at the stream's snapshot: a change came without its key's value";
	else if (rd->overflow || distinct > MAX_KEYS)
		b->full_reason = floe_arena_printf(o->arena, "loaded in full at the stream's snapshot: more than %d "
						   "keys changed", MAX_KEYS);
}

int cdc_stream_read(floe_cdc *c, floe_cdc_batch *batch)
{
	const floe_cdc_opts *o = c->opts;
	reading rd = { .c = c, .dec = FLOE_CDC_DECODER_INIT(1) };
	time_t deadline = time(NULL) + (o->timeout_seconds > 0 ? o->timeout_seconds : 120);
	const char *snapshot = NULL, *xip = NULL;
	uint64_t L = 0;
	int error = -1;
	rd.key_at = floe_arena_alloc(o->arena, (o->n_key + 1) * sizeof(size_t));
	rd.seen = c->start;
	for (int tries = 0;; tries++) {
		if (cdc_snapshot_take(c, &snapshot, &xip, &L) < 0)
			goto cleanup;
		if (L <= c->start) { /* nothing was written since the table's LSN */
			L = c->start;
			break;
		}
		if (!c->streaming && start(c) < 0)
			goto cleanup;
		rd.committed_past = false;
		if (read_until(&rd, L, deadline) < 0)
			goto cleanup;
		const txn *t = unseen(&rd, xip, L);
		if (!t)
			break;
		floe_log_debug("cdc: transaction %u committed before %llx but snapshot %s does not see it yet; again",
			       t->xid, (unsigned long long)L, xip);
		if (tries + 1 == MAX_TRIES) {
			floe_error_set(FLOE_ERR_INTERNAL, "no snapshot of the source matched the stream of slot \"%s\" "
				       "after %d tries", c->names.slot, MAX_TRIES);
			goto cleanup;
		}
	}
	char text[24];
	floe_cdc_lsn_format(text, L);
	c->lsn = L;
	batch->snapshot = snapshot;
	batch->lsn = floe_arena_strdup(o->arena, text);
	gather(&rd, batch, L);
	error = 0;
cleanup:
	floe_cdc_decoder_free(&rd.dec);
	free(rd.keys);
	free(rd.txns);
	return error;
}

/* The slot's state against the table's LSN: what this batch must be. */
static int plan_batch(floe_cdc *c, floe_cdc_batch *batch)
{
	const floe_cdc_opts *o = c->opts;
	cdc_slot slot;
	const char *xip = NULL;
	uint64_t L = 0;
	if (cdc_slot_read(&slot, c) < 0)
		return -1;
	if (slot.found && slot.other_database)
		return floe_error_set(FLOE_ERR_CONFIG, "replication slot \"%s\" belongs to another database", c->names.slot);
	if (!slot.found || slot.lost) {
		if (!slot.found && !o->table_lsn)
			batch->full_reason = floe_arena_printf(o->arena, "initial copy at the new replication slot "
							   "\"%s\"'s snapshot", c->names.slot);
		else if (!slot.found)
			batch->full_reason = floe_arena_printf(o->arena, "reloaded in full: the replication slot \"%s\" "
							   "is missing (dropped?)", c->names.slot);
		else
			batch->full_reason = floe_arena_printf(o->arena, "reloaded in full: the replication slot \"%s\" "
							   "was invalidated (wal_status = lost: the server removed WAL "
							   "it still needed; see max_slot_wal_keep_size)", c->names.slot);
		return cdc_slot_create(c, batch, slot.found);
	}
	uint64_t table = 0;
	bool has = o->table_lsn && floe_cdc_lsn_parse(&table, o->table_lsn) == 0;
	if (!has || table < slot.confirmed) {
		char at[24];
		floe_cdc_lsn_format(at, slot.confirmed);
		batch->full_reason = has ? floe_arena_printf(o->arena, "reloaded in full: slot \"%s\" confirmed %s, past "
							 "the table's LSN %s", c->names.slot, at, o->table_lsn)
					 : floe_arena_printf(o->arena, "first load: in full; the stream of slot \"%s\" "
								       "starts at %s", c->names.slot, at);
		if (cdc_snapshot_take(c, &batch->snapshot, &xip, &L) < 0)
			return -1;
		c->lsn = slot.confirmed;
		batch->lsn = floe_arena_strdup(o->arena, at);
		return 0;
	}
	c->start = table;
	return cdc_stream_read(c, batch);
}

int floe_cdc_begin(floe_cdc **out, floe_cdc_batch *batch, const floe_cdc_opts *opts)
{
	floe_cdc *c = floe_xcalloc(1, sizeof(*c));
	c->opts = opts;
	c->keep = opts->keep;
	memset(batch, 0, sizeof(*batch));
	floe_cdc_names_of(&c->names, opts->config->project_name, opts->schema, opts->table);
	*out = NULL;
	if (opts->n_key == 0) {
		floe_error_set(FLOE_ERR_CONFIG, "%s.%s has no primary key, which CDC needs", opts->schema, opts->table);
		floe_error_hint("Add a primary key, or remove the table from [cdc] tables.");
		goto fail;
	}
	if (opts->keep && opts->keep->pg) { /* the follower's session, idle since its last batch */
		c->holder = opts->keep->pg;
		opts->keep->pg = NULL;
	} else if (floe_pg_connect_source(&c->holder, opts->config) < 0) {
		goto fail;
	}
	if (cdc_publication_ensure(c) < 0 || plan_batch(c, batch) < 0)
		goto fail;
	if (!batch->detail)
		batch->detail = batch->full_reason;
	*out = c;
	return 0;
fail:
	floe_error_context("while reading the changes of %s.%s (CDC)", opts->schema, opts->table);
	floe_cdc_end(c);
	return -1;
}

void floe_cdc_release(floe_cdc *c)
{
	if (!c)
		return;
	if (c->holding)
		floe_pg_exec(c->holder, "COMMIT");
	c->holding = false;
	if (c->repl && !c->streaming) { /* the new slot's snapshot: no longer needed */
		floe_pg_close(c->repl);
		c->repl = NULL;
	}
}

int floe_cdc_confirm(floe_cdc *c)
{
	if (!c->repl || !c->streaming)
		return 0; /* a new slot starts at its consistent point; a fresh snapshot left the slot as it was */
	if (send_status(c, c->lsn) < 0 || floe_pg_replication_finish(c->repl, 10000) < 0)
		return floe_error_context("while acknowledging the stream of slot \"%s\"", c->names.slot);
	c->streaming = false;
	return 0;
}

void floe_cdc_end(floe_cdc *c)
{
	if (!c)
		return;
	floe_pg_close(c->repl);
	floe_pg_close(c->holder);
	free(c);
}

void floe_cdc_keep(floe_cdc *c)
{
	if (c && c->keep && !c->holding && !c->keep->pg) {
		c->keep->pg = c->holder; /* idle: no transaction open */
		c->holder = NULL;
	}
}

int floe_cdc_measure(floe_cdc *c, floe_cdc_lag *out)
{
	return floe_cdc_lag_of(out, c->holder, c->names.slot);
}

const char *floe_cdc_slot(const floe_cdc *c)
{
	return c->names.slot;
}
