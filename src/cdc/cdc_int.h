/*
 * cdc_int.h — what the files of src/cdc share.
 */
#ifndef FLOE_CDC_INT_H
#define FLOE_CDC_INT_H

#include "cdc/cdc.h"
#include "cdc/pgoutput.h"
#include "pg/pg.h"

/* A transaction read from the stream; its keys are rows [key_from, key_to) of the stream's keys. */
typedef struct cdc_txn {
	uint32_t xid;
	uint64_t commit;
	size_t key_from, key_to;
	int64_t ins, upd, del;
	bool truncate, unkeyed;       /* a truncate; a key value the stream could not give */
} cdc_txn;

/*
 * The replication stream of one table's slot (floe_cdc_stream in cdc.h): a batch's, or the
 * follower's, kept open between its batches. Invariant: every change to the table that committed
 * at or after `base` is in `txns` (read, not yet in a batch) or not read yet; `gathered` is the L
 * of the last batch taken from it, whose transactions leave `txns` when the next batch begins.
 */
struct floe_cdc_stream {
	floe_pg *repl;                /* replication connection, in START_REPLICATION */
	char slot[64];
	floe_arena *arena;            /* the stream's life: the names below, key_at */
	const char *schema, *table;   /* the source table, and its key columns */
	const char **key;
	size_t n_key;
	uint64_t base, gathered, acked; /* acked: the flushed LSN the server was last told */
	uint64_t seen;                /* the stream's position: keepalive end or last commit */
	bool broken;                  /* an error between batches: the next batch starts anew */
	floe_cdc_decoder dec;
	uint32_t relid;               /* our table's, once its Relation message came */
	size_t *key_at;               /* per key column, its index in the relation's columns */
	floe_arena *keys_arena;       /* the key values of `keys` */
	const char **keys;            /* rows of n_key values */
	size_t n_keys, cap_keys, key_bytes;
	bool overflow;                /* more keys than a re-read takes (some not kept) */
	cdc_txn *txns;
	size_t n_txns, cap_txns;
	cdc_txn cur;
	bool in_txn;
};

struct floe_cdc {
	floe_pg *holder;        /* source session whose transaction exported the batch's snapshot */
	floe_pg *repl;          /* replication connection of a new slot (its exported snapshot) */
	floe_cdc_stream *st;    /* the stream read up to L (kept from the follower's last batch, or new) */
	bool confirmed;         /* floe_cdc_confirm acknowledged L */
	bool holding;           /* holder's transaction is open */
	uint64_t lsn;           /* L: acknowledged by floe_cdc_confirm */
	uint64_t start;         /* the table's LSN the stream started from */
	floe_cdc_names names;
	const floe_cdc_opts *opts;   /* the caller's, valid during floe_cdc_begin only */
	floe_pg_keep *keep;     /* opts->keep: floe_cdc_keep gives the holder back */
	floe_cdc_stream **keep_stream; /* opts->stream: floe_cdc_keep gives the stream back */
};

/* The slot as pg_replication_slots shows it. */
typedef struct cdc_slot {
	bool found, lost, other_database;
	const char *wal_status;
	uint64_t confirmed;
} cdc_slot;

/* slot.c: the publication (created when allowed), the slot's state, a new slot with its snapshot. */
int cdc_publication_ensure(floe_cdc *c);
int cdc_slot_read(cdc_slot *out, floe_cdc *c);
int cdc_slot_create(floe_cdc *c, floe_cdc_batch *batch, bool drop_first);
/* The SQL a DBA runs for a table's publication and slot (in `a`). */
const char *cdc_setup_sql(floe_arena *a, floe_pg *pg, const floe_cdc_names *n, const char *schema,
			  const char *table, const char *role);

/* stream.c: a snapshot on the holder, and the stream read up to it. */
int cdc_snapshot_take(floe_cdc *c, const char **snapshot, const char **xip, uint64_t *lsn);
int cdc_stream_read(floe_cdc *c, floe_cdc_batch *batch);
/*
 * Whether a snapshot as pg_current_snapshot() prints it ("xmin:xmax:xip,…", 64-bit xids)
 * sees transaction `xid` (the 32 bits pgoutput sends, placed in the epoch of xmax) as committed.
 */
bool cdc_snapshot_sees(const char *snap, uint32_t xid);

#endif
