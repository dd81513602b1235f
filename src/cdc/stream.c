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
#define MAX_TRIES 40                  /* snapshots taken before giving up on a consistent one */
#define RETRY_MS_MAX 100              /* the pause before the next try doubles from 1 ms up to this */
#define XLOG_PAGE 8192                /* XLOG_BLCKSZ */
#define XLOG_LONG_HEADER 40           /* the most a page header takes (SizeOfXLogLongPHD) */

/* One read of a stream: a batch's up to L (c set), or between batches (c NULL, L unbounded). */
typedef struct reading {
	floe_cdc *c;
	floe_cdc_stream *st;
	uint64_t L;
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
static void key_row(floe_cdc_stream *st, const floe_cdc_tuple *t)
{
	size_t bytes = 0;
	for (size_t k = 0; k < st->n_key; k++) {
		const floe_cdc_value *v = st->key_at[k] < t->n ? &t->values[st->key_at[k]] : NULL;
		if (!v || v->kind != 't') {
			st->cur.unkeyed = true;
			return;
		}
		bytes += v->len + 1;
	}
	st->key_bytes += bytes;
	if (st->overflow || st->key_bytes > MAX_KEY_BYTES) {
		st->overflow = true;
		return;
	}
	if ((st->n_keys + 1) * st->n_key > st->cap_keys)
		st->keys = floe_cdc_room(st->keys, &st->cap_keys, (st->n_keys + 1) * st->n_key, sizeof(char *));
	for (size_t k = 0; k < st->n_key; k++) {
		const floe_cdc_value *v = &t->values[st->key_at[k]];
		st->keys[st->n_keys * st->n_key + k] = floe_arena_strndup(st->keys_arena, v->data, v->len);
	}
	st->n_keys++;
}

/* A Relation message: when it is our table, where its key columns are. */
static int relation(floe_cdc_stream *st, const floe_cdc_msg *m)
{
	if (strcmp(m->nspname, st->schema) != 0 || strcmp(m->relname, st->table) != 0)
		return 0;
	st->relid = m->relid;
	for (size_t k = 0; k < st->n_key; k++) {
		size_t i = 0;
		while (i < m->n_columns && strcmp(m->columns[i].name, st->key[k]) != 0)
			i++;
		if (i == m->n_columns)
			return floe_error_set(FLOE_ERR_INTERNAL, "the stream's %s.%s has no key column \"%s\"", st->schema,
					      st->table, st->key[k]);
		st->key_at[k] = i;
	}
	return 0;
}

static void commit(reading *rd, const floe_cdc_msg *m)
{
	floe_cdc_stream *st = rd->st;
	st->cur.commit = m->lsn;
	st->cur.key_to = st->n_keys;
	st->txns = floe_cdc_room(st->txns, &st->cap_txns, st->n_txns + 1, sizeof(cdc_txn));
	st->txns[st->n_txns++] = st->cur;
	st->in_txn = false;
	if (m->lsn >= rd->L)
		rd->committed_past = true;
	if (m->end_lsn > st->seen)
		st->seen = m->end_lsn;
}

static int message(reading *rd, const uint8_t *p, size_t n)
{
	floe_cdc_stream *st = rd->st;
	floe_cdc_msg m;
	if (floe_cdc_decode(&m, &st->dec, p, n) < 0)
		return -1;
	bool ours = m.relid == st->relid && st->relid != 0;
	switch (m.kind) {
	case FLOE_CDC_BEGIN:
		st->cur = (cdc_txn){ .xid = m.xid, .key_from = st->n_keys };
		st->in_txn = true;
		break;
	case FLOE_CDC_COMMIT:
		commit(rd, &m);
		break;
	case FLOE_CDC_RELATION:
		return relation(st, &m);
	case FLOE_CDC_INSERT:
		if (ours)
			st->cur.ins++, key_row(st, &m.new_tuple);
		break;
	case FLOE_CDC_UPDATE:
		if (ours) {
			st->cur.upd++;
			if (m.old_kind)
				key_row(st, &m.old_tuple);
			key_row(st, &m.new_tuple);
		}
		break;
	case FLOE_CDC_DELETE:
		if (ours)
			st->cur.del++, key_row(st, &m.old_tuple);
		break;
	case FLOE_CDC_TRUNCATE:
		for (uint32_t i = 0; i < m.n_relids; i++)
			st->cur.truncate |= m.relids[i] == st->relid;
		break;
	case FLOE_CDC_STREAM_START: case FLOE_CDC_BEGIN_PREPARE: case FLOE_CDC_PREPARE:
		return floe_error_set(FLOE_ERR_INTERNAL, "the stream sent message '%c', which protocol version 1 "
				      "without streaming or two-phase never sends", (char)m.kind);
	default: /* origin, type, logical messages: nothing to apply */
		break;
	}
	return 0;
}

/*
 * A standby status update: flushed (= applied) is what the slot may forget, never past a
 * catalog commit; written is what was received (st->seen), which the server only shows in
 * pg_stat_replication — and which stops its keepalives until it has sent more: each one answered
 * with written behind its position would make it send the next at once, a storm while it waits.
 */
static int send_status(floe_cdc_stream *st, uint64_t flushed)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_cdc_status_encode(&b, st->seen > flushed ? st->seen : flushed, flushed, flushed, now_us(), false);
	int rc = floe_pg_replication_send(st->repl, b.ptr, b.len);
	floe_buf_free(&b);
	if (rc == 0)
		st->acked = flushed;
	return rc;
}

/*
 * Whether the stream has passed L: a commit at or past it came, or the server's sent
 * position reached it — or stopped at the page boundary just before it, when L points
 * past the header of a page no record has reached yet.
 */
static bool reached(const reading *rd)
{
	const floe_cdc_stream *st = rd->st;
	uint64_t L = rd->L;
	if (st->in_txn)
		return false;
	return rd->committed_past || st->seen >= L ||
	       (st->seen % XLOG_PAGE == 0 && st->seen > 0 && L - st->seen <= XLOG_LONG_HEADER);
}

/* One frame of the stream, taken in: a keepalive answered with the acknowledged LSN (so the
 * server keeps sending its position while it waits for WAL), a message decoded. */
static int frame(reading *rd, const floe_buf *buf)
{
	floe_cdc_stream *st = rd->st;
	floe_cdc_frame f;
	if (floe_cdc_frame_decode(&f, (const uint8_t *)buf->ptr, buf->len) < 0)
		return -1;
	if (f.kind != 'k')
		return message(rd, f.data, f.len);
	if (f.end > st->seen && !st->in_txn)
		st->seen = f.end;
	return send_status(st, st->acked);
}

/* Read the stream until it passes rd->L. */
static int read_until(reading *rd, time_t deadline)
{
	floe_cdc_stream *st = rd->st;
	floe_buf buf = FLOE_BUF_INIT;
	int error = -1;
	for (size_t i = 0; i < st->n_txns && !rd->committed_past; i++) /* read by an earlier batch, or meanwhile */
		rd->committed_past = st->txns[i].commit >= rd->L;
	size_t frames = 0, bytes = 0;
	uint64_t from = st->seen;
	while (!reached(rd)) {
		int rc = floe_pg_replication_read(st->repl, &buf, 500);
		if (rc < 0)
			goto cleanup;
		if (rc > 0 && frame(rd, &buf) < 0)
			goto cleanup;
		frames += rc > 0, bytes += rc > 0 ? buf.len : 0;
		if (rc == 0 && time(NULL) > deadline) {
			char want[24], at[24];
			floe_cdc_lsn_format(want, rd->L), floe_cdc_lsn_format(at, st->seen);
			floe_error_set(FLOE_ERR_UNREACHABLE, "the replication stream of slot \"%s\" did not reach "
				       "%s in time (it is at %s)", st->slot, want, at);
			floe_error_hint("Is the server busy decoding a large transaction? Run again later.");
			goto cleanup;
		}
	}
	floe_log_debug("cdc: slot \"%s\": %zu messages (%zu bytes) read, the stream from %llx to %llx (L %llx)", st->slot,
		       frames, bytes, (unsigned long long)from, (unsigned long long)st->seen, (unsigned long long)rd->L);
	error = 0;
cleanup:
	floe_buf_free(&buf);
	return error;
}

void floe_cdc_stream_idle(floe_cdc_stream *st)
{
	floe_buf buf = FLOE_BUF_INIT;
	reading rd = { .st = st, .L = UINT64_MAX };
	int rc = 1;
	if (!st || st->broken)
		return;
	for (int n = 0; rc > 0 && n < 10000; n++) /* what arrived; a busy source does not keep it here */
		if ((rc = floe_pg_replication_read(st->repl, &buf, 0)) > 0)
			rc = frame(&rd, &buf) < 0 ? -1 : 1;
	if (rc < 0) {
		floe_log_debug("cdc: the stream of slot \"%s\" broke between batches (%s); the next batch starts anew",
			       st->slot, floe_error_last() ? floe_error_last()->message : "");
		st->broken = true;
		floe_error_clear();
	}
	floe_buf_free(&buf);
}

/* A new stream of c's slot from the table's LSN (c->start): connected, START_REPLICATION sent. */
static int stream_new(floe_cdc *c)
{
	const floe_cdc_opts *o = c->opts;
	floe_cdc_stream *st = floe_xcalloc(1, sizeof(*st));
	c->st = st;
	st->arena = floe_arena_new();
	st->keys_arena = floe_arena_new();
	memcpy(st->slot, c->names.slot, sizeof(st->slot));
	st->schema = floe_arena_strdup(st->arena, o->schema);
	st->table = floe_arena_strdup(st->arena, o->table);
	st->n_key = o->n_key;
	st->key = floe_arena_alloc(st->arena, (o->n_key + 1) * sizeof(char *));
	st->key_at = floe_arena_alloc(st->arena, (o->n_key + 1) * sizeof(size_t));
	for (size_t k = 0; k < o->n_key; k++)
		st->key[k] = floe_arena_strdup(st->arena, o->key[k]);
	st->dec = (floe_cdc_decoder)FLOE_CDC_DECODER_INIT(1);
	st->base = st->gathered = st->acked = st->seen = c->start;
	char lsn[24];
	floe_cdc_lsn_format(lsn, c->start);
	const char *cmd = floe_arena_printf(o->arena, "START_REPLICATION SLOT \"%s\" LOGICAL %s "
					    "(proto_version '1', publication_names '\"%s\"')", c->names.slot, lsn,
					    c->names.publication);
	if (floe_pg_connect_replication(&st->repl, o->config) < 0)
		return -1;
	/* A run killed a moment ago may still hold the slot until its walsender notices: wait a little. */
	for (int tries = 0; floe_pg_replication_start(st->repl, cmd) < 0; tries++) {
		if (tries == 20 || floe_error_last()->code != FLOE_CODE_SOURCE_LOCKED)
			return floe_error_context("while starting to read slot \"%s\"", c->names.slot);
		floe_error_clear();
		nanosleep(&(struct timespec){ .tv_nsec = 500000000 }, NULL);
	}
	return 0;
}

/* The transactions the last batch gathered leave the stream, their keys with them. */
static void compact(floe_cdc_stream *st)
{
	size_t first = 0, nk = st->n_key;
	while (first < st->n_txns && st->txns[first].commit < st->gathered)
		first++;
	if (first == 0)
		return;
	size_t from = first < st->n_txns ? st->txns[first].key_from : st->in_txn ? st->cur.key_from : st->n_keys;
	floe_arena *a = floe_arena_new();
	st->key_bytes = 0;
	for (size_t i = from * nk; i < st->n_keys * nk; i++) {
		st->keys[i - from * nk] = floe_arena_strdup(a, st->keys[i]);
		st->key_bytes += strlen(st->keys[i]) + 1;
	}
	st->n_keys -= from;
	memmove(st->txns, st->txns + first, (st->n_txns - first) * sizeof(cdc_txn));
	st->n_txns -= first;
	for (size_t i = 0; i < st->n_txns; i++)
		st->txns[i].key_from -= from, st->txns[i].key_to -= from;
	if (st->in_txn)
		st->cur.key_from -= from;
	floe_arena_free(st->keys_arena);
	st->keys_arena = a;
}

/*
 * The follower's stream (c->st), when it continues from the table's LSN: what arrived meanwhile
 * read, the last batch's transactions dropped. Otherwise it is closed (c->st NULL: a new one
 * starts when there is WAL to read).
 */
static int kept(floe_cdc *c)
{
	floe_cdc_stream *st = c->st;
	if (!st->broken && st->base == c->start && strcmp(st->slot, c->names.slot) == 0) {
		floe_cdc_stream_idle(st);
		if (!st->broken) {
			compact(st);
			return 0;
		}
	}
	floe_log_debug("cdc: slot \"%s\": the kept stream %s; a new one starts at the table's LSN", c->names.slot,
		       st->broken ? "broke" : "continues from another LSN than the table's");
	floe_cdc_stream_free(st);
	c->st = NULL;
	return 0;
}

/* The first transaction of the batch S does not see, or NULL. */
static const cdc_txn *unseen(const floe_cdc_stream *st, const char *xip, uint64_t L)
{
	for (size_t i = 0; i < st->n_txns; i++) {
		const cdc_txn *t = &st->txns[i];
		bool touched = t->ins || t->upd || t->del || t->truncate;
		if (t->commit < L && touched && !cdc_snapshot_sees(xip, t->xid))
			return t;
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

/*
 * The batch: the transactions before L (st may be NULL: none), their keys sorted and distinct
 * (pointing into the stream's keys, valid until its next batch), or why it loads in full.
 */
static void gather(const floe_cdc_stream *st, const floe_cdc_opts *o, floe_cdc_batch *b, uint64_t L)
{
	size_t nk = o->n_key, n = 0, n_txns = st ? st->n_txns : 0;
	bool truncated = false, unkeyed = false;
	const char **rows = floe_arena_alloc(o->arena, ((st ? st->n_keys : 0) * nk + 1) * sizeof(char *));
	for (size_t i = 0; i < n_txns && st->txns[i].commit < L; i++) {
		const cdc_txn *t = &st->txns[i];
		b->inserts += t->ins, b->updates += t->upd, b->deletes += t->del, b->truncates += t->truncate;
		b->transactions++;
		truncated |= t->truncate, unkeyed |= t->unkeyed;
		memcpy(rows + n * nk, st->keys + t->key_from * nk, (t->key_to - t->key_from) * nk * sizeof(char *));
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
	else if ((st && st->overflow) || distinct > MAX_KEYS)
		b->full_reason = floe_arena_printf(o->arena, "loaded in full at the stream's snapshot: more than %d "
						   "keys changed", MAX_KEYS);
}

int cdc_stream_read(floe_cdc *c, floe_cdc_batch *batch)
{
	const floe_cdc_opts *o = c->opts;
	time_t deadline = time(NULL) + (o->timeout_seconds > 0 ? o->timeout_seconds : 120);
	const char *snapshot = NULL, *xip = NULL;
	uint64_t L = 0;
	if (c->st && kept(c) < 0)
		return -1;
	for (int tries = 0;; tries++) {
		if (cdc_snapshot_take(c, &snapshot, &xip, &L) < 0)
			return -1;
		if (L <= c->start) { /* nothing was written since the table's LSN */
			L = c->start;
			break;
		}
		if (!c->st && stream_new(c) < 0)
			return -1;
		reading rd = { .c = c, .st = c->st, .L = L };
		if (read_until(&rd, deadline) < 0)
			return -1;
		const cdc_txn *t = unseen(c->st, xip, L);
		if (!t)
			break;
		floe_log_debug("cdc: transaction %u committed before %llx but snapshot %s does not see it yet; again",
			       t->xid, (unsigned long long)L, xip);
		if (tries + 1 == MAX_TRIES)
			return floe_error_set(FLOE_ERR_INTERNAL, "no snapshot of the source matched the stream of slot \"%s\" "
					      "after %d tries", c->names.slot, MAX_TRIES);
		/* the commit is flushed, its backend has yet to make it visible (it may wait for a core): a
		 * kept stream reaches the next L at once, so the tries are spaced, 1 ms doubling to 100 ms */
		long ms = tries < 7 ? 1L << tries : RETRY_MS_MAX;
		nanosleep(&(struct timespec){ .tv_nsec = ms * 1000000L }, NULL);
	}
	char text[24];
	floe_cdc_lsn_format(text, L);
	c->lsn = L;
	batch->snapshot = snapshot;
	batch->lsn = floe_arena_strdup(o->arena, text);
	gather(c->st, o, batch, L);
	if (c->st)
		c->st->gathered = L;
	return 0;
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
	uint64_t table = 0;
	bool has = o->table_lsn && floe_cdc_lsn_parse(&table, o->table_lsn) == 0;
	if (!slot.found || slot.lost || !has || table < slot.confirmed) { /* no stream read: a kept one is let go */
		floe_cdc_stream_free(c->st);
		c->st = NULL;
	}
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
	c->keep_stream = opts->stream;
	if (opts->stream) { /* the follower's, checked against the table's LSN by cdc_stream_read */
		c->st = *opts->stream;
		*opts->stream = NULL;
	}
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
	floe_pg_close(c->repl); /* the new slot's snapshot: no longer needed */
	c->repl = NULL;
}

int floe_cdc_confirm(floe_cdc *c)
{
	if (!c->st)
		return 0; /* a new slot starts at its consistent point; a fresh snapshot left the slot as it was */
	if (send_status(c->st, c->lsn) < 0)
		return floe_error_context("while acknowledging the stream of slot \"%s\"", c->names.slot);
	c->confirmed = true;
	if (c->keep_stream)
		return 0; /* kept for the follower's next batch */
	if (floe_pg_replication_finish(c->st->repl, 10000) < 0) /* the batch's keys stay until floe_cdc_end */
		return floe_error_context("while acknowledging the stream of slot \"%s\"", c->names.slot);
	return 0;
}

void floe_cdc_end(floe_cdc *c)
{
	if (!c)
		return;
	floe_cdc_stream_free(c->st);
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
	if (c && c->keep_stream && c->st && !c->st->overflow && !*c->keep_stream) {
		c->st->base = c->confirmed ? c->lsn : c->start; /* the table's LSN now */
		*c->keep_stream = c->st;
		c->st = NULL;
	}
}

void floe_cdc_stream_free(floe_cdc_stream *st)
{
	if (!st)
		return;
	floe_pg_close(st->repl); /* Terminate: the server processes what was sent before it */
	floe_cdc_decoder_free(&st->dec);
	free(st->keys);
	free(st->txns);
	floe_arena_free(st->keys_arena);
	floe_arena_free(st->arena);
	free(st);
}

int floe_cdc_measure(floe_cdc *c, floe_cdc_lag *out)
{
	return floe_cdc_lag_of(out, c->holder, c->names.slot);
}

const char *floe_cdc_slot(const floe_cdc *c)
{
	return c->names.slot;
}
