/*
 * cdc.h — change data capture for one bronze table from PostgreSQL's logical replication
 * (docs/cdc.md). floe keeps one publication and one logical replication slot (pgoutput)
 * per table, named after the project and the table.
 *
 * A batch is what the stream says changed between the table's LSN (the `floe.cdc.lsn` of
 * its bronze snapshot) and a consistent point L: the keys of every row inserted, updated
 * (old and new key) or deleted by the transactions that committed before L, in commit
 * order, and an exported source snapshot S that shows exactly those transactions. The
 * bronze load re-reads those keys at S (and reconciliation compares at S), so bronze after
 * the batch is the source as of L — no gap, no overlap, and a batch applied twice changes
 * nothing. A truncate, a slot just created (the initial copy at the slot's exported
 * snapshot), a lost or missing slot, or more keys than a keyed re-read is worth make the
 * batch a full load at S instead, with the reason.
 *
 * The slot is acknowledged (standby status update: flushed = L) only by floe_cdc_confirm,
 * which the caller calls after the catalog commit; a crash before it resumes from the
 * table's LSN.
 */
#ifndef FLOE_CDC_CDC_H
#define FLOE_CDC_CDC_H

#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;
typedef struct floe_cdc floe_cdc;
typedef struct floe_pg floe_pg;

/*
 * A source session a caller keeps between batches: floe_cdc_begin takes it (instead of
 * connecting) when set, floe_cdc_keep gives it back after a batch that went well (else
 * floe_cdc_end closes it).
 */
typedef struct floe_pg_keep {
	floe_pg *pg;
} floe_pg_keep;

/*
 * A table's replication stream kept open between batches (floe run --follow): the replication
 * connection inside START_REPLICATION, the decoder's relation, and the transactions read past
 * the last batch's L, held for the next one. It continues from one table LSN — the one bronze
 * had after the batch that gave it back — so floe_cdc_begin takes it only when the table's LSN
 * is still that one (a compaction by another process keeps it; another load's commit does not),
 * and starts a new stream otherwise. Between batches floe_cdc_stream_idle reads what arrived and
 * answers the server's keepalives with the last acknowledged LSN. Owned by the caller.
 */
typedef struct floe_cdc_stream floe_cdc_stream;

/* Read what the server sent meanwhile (no wait) and answer its keepalives; an error marks the
 * stream broken (the next batch starts a new one) and is not raised. Accepts NULL. */
void floe_cdc_stream_idle(floe_cdc_stream *s);

/* Close the replication connection (what was acknowledged stays so). Accepts NULL. */
void floe_cdc_stream_free(floe_cdc_stream *s);

/* The names floe gives a table's slot and publication (lower case, at most 63 bytes). */
typedef struct floe_cdc_names {
	char slot[64];
	char publication[64];
} floe_cdc_names;

void floe_cdc_names_of(floe_cdc_names *out, const char *project, const char *schema, const char *table);

typedef struct floe_cdc_opts {
	const floe_config *config;
	const char *schema, *table;   /* the source table */
	const char *const *key;       /* its primary key columns */
	size_t n_key;
	const char *table_lsn;        /* the bronze table's floe.cdc.lsn; NULL: none yet */
	floe_arena *arena;            /* everything the batch holds */
	int timeout_seconds;          /* to reach the consistent point; 0: 120 */
	floe_pg_keep *keep;           /* the snapshot holder's session kept between batches (floe run --follow) */
	floe_cdc_stream **stream;     /* and the table's stream: taken when it continues from table_lsn */
} floe_cdc_opts;

typedef struct floe_cdc_batch {
	const char *snapshot;         /* exported snapshot to import (SET TRANSACTION SNAPSHOT) */
	const char *lsn;              /* L, as text: goes into the snapshot summary as floe.cdc.lsn */
	const char *full_reason;      /* set: load in full at `snapshot`, for this reason */
	const char *const *keys;      /* PostgreSQL text of each key column, row-major, sorted, distinct */
	size_t n_keys;
	int64_t inserts, updates, deletes, truncates, transactions;
	const char *detail;           /* one line: what the stream held */
} floe_cdc_batch;

/*
 * Prepare a batch: check (and, when [cdc] allows, create) the publication and the slot,
 * then read the stream from the table's LSN up to a consistent point. The exported
 * snapshot stays importable until floe_cdc_release. Errors name what is missing on the
 * source and the SQL a DBA runs (FLOE_ERR_CONFIG), or the connection's failure.
 */
int floe_cdc_begin(floe_cdc **out, floe_cdc_batch *batch, const floe_cdc_opts *opts);

/* The snapshot was imported: end the transaction (or command) that kept it. */
void floe_cdc_release(floe_cdc *c);

/*
 * After the catalog commit: acknowledge L to the slot (flushed and applied). Without
 * opts->stream the stream then ends (the server has processed the acknowledgement when this
 * returns); with it the stream stays open for the next batch.
 */
int floe_cdc_confirm(floe_cdc *c);

/*
 * The batch went well: its snapshot holder goes back to opts->keep (when set and idle), its
 * stream to opts->stream (when set), continuing from the table's LSN after this batch (L when
 * it was acknowledged, else the LSN before). Accepts NULL.
 */
void floe_cdc_keep(floe_cdc *c);

/* Close both connections. Accepts NULL. */
void floe_cdc_end(floe_cdc *c);

/* ---- what `floe doctor` and `floe status` show (inspect.c) ---- */

/* The facts about CDC readiness on a source, each with the SQL a DBA would run. */
typedef struct floe_cdc_readiness {
	const char *wal_level;        /* "logical" when ready */
	int max_replication_slots, max_wal_senders, slots_used;
	bool replication;             /* the role has REPLICATION (or is superuser) */
	const char *missing;          /* NULL: nothing; else what is missing, "; "-separated */
	const char *later;            /* nothing missing, but floe will create these (create-slot, …) */
	const char *sql;              /* the statements a DBA runs, in order; NULL: none */
} floe_cdc_readiness;

/* For every CDC table of `config` among `tables` ("schema.table", n), on the source session `pg`. */
int floe_cdc_inspect(floe_cdc_readiness *out, floe_arena *a, floe_pg *pg, const floe_config *config,
		     const char *const *tables, size_t n);

/* A slot's lag: WAL bytes it retains and behind the server's current LSN, seconds since its table's commit. */
typedef struct floe_cdc_lag {
	bool found;
	const char *wal_status;       /* reserved, extended, unreserved, lost */
	int64_t retained_bytes;       /* pg_current_wal_lsn() - restart_lsn */
	int64_t lag_bytes;            /* pg_current_wal_lsn() - confirmed_flush_lsn */
} floe_cdc_lag;

int floe_cdc_lag_of(floe_cdc_lag *out, floe_pg *pg, const char *slot);

/* The lag of this batch's slot now (after floe_cdc_confirm: what the load left behind), and its name. */
int floe_cdc_measure(floe_cdc *c, floe_cdc_lag *out);
const char *floe_cdc_slot(const floe_cdc *c);

#endif
