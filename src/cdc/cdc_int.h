/*
 * cdc_int.h — what the files of src/cdc share.
 */
#ifndef FLOE_CDC_INT_H
#define FLOE_CDC_INT_H

#include "cdc/cdc.h"
#include "pg/pg.h"

struct floe_cdc {
	floe_pg *holder;        /* source session whose transaction exported the batch's snapshot */
	floe_pg *repl;          /* replication connection */
	bool streaming;         /* repl is in START_REPLICATION */
	bool holding;           /* holder's transaction is open */
	uint64_t lsn;           /* L: acknowledged by floe_cdc_confirm */
	uint64_t start;         /* the table's LSN the stream started from */
	floe_cdc_names names;
	const floe_cdc_opts *opts;   /* the caller's, valid during floe_cdc_begin only */
	floe_pg_keep *keep;     /* opts->keep: floe_cdc_keep gives the holder back */
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
