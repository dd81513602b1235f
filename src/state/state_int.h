/*
 * state_int.h — what the files of src/state share: the ledger's database and
 * the column helpers its readers and writers use.
 */
#ifndef FLOE_STATE_STATE_INT_H
#define FLOE_STATE_STATE_INT_H

#include "db/db.h"
#include "state/state.h"

struct floe_state {
	floe_db *db;
};

/* Bind a count, NULL when negative (unknown). */
void floe_state_bind_count(floe_db_stmt *s, int i, int64_t v);
/* Column `i` as text copied into `a`, NULL for NULL. */
const char *floe_state_column_dup(floe_arena *a, floe_db_stmt *s, int i);
/* Column `i` as a count, -1 for NULL. */
int64_t floe_state_column_count(floe_db_stmt *s, int i);

#endif
