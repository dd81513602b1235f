/*
 * sync_int.h — what the files of the sync module share: the proposals ledger
 * (.floe/sync/proposals.json, proposals.c), the result being built, the proposal text
 * (proposal.c) and rendering (render.c).
 */
#ifndef FLOE_SYNC_SYNC_INT_H
#define FLOE_SYNC_SYNC_INT_H

#include "sync/sync.h"
#include "plan/lock.h"

#define FLOE_SYNC_LEDGER ".floe/sync/proposals.json"

/* A proposal floe made: a branch of pipeline/ for one table's breaking changes. */
typedef struct sync_proposal {
	const char *id;               /* 8 hex digits of the changes' SHA-256 */
	const char *table;            /* "public.orders" */
	const char *bronze;
	const char *branch;           /* "floe/change/orders/1a2b3c4d" */
	const char *commit;           /* the branch's tip when floe made it */
	const char *state;            /* "open", "rejected" (branch deleted unmerged), "refused" ([policy]; no branch),
	                                 "merged", "withdrawn" (the source changed back), "superseded", "reproposed" */
	bool pauses;                  /* a rename, drop or narrowing: the table's loads wait */
	const char *first_seen;       /* ISO 8601 */
	const char *summary;          /* the changes, "; "-joined */
	const char *pr;               /* "opened", "open one by hand", "" (no remote) */
} sync_proposal;

typedef struct sync_ledger {
	sync_proposal *items;
	size_t n, cap;
} sync_ledger;

/* Read PROJECT/.floe/sync/proposals.json into `a`; a missing file is an empty ledger. */
int sync_ledger_load(sync_ledger *out, floe_arena *a, const char *project_dir);
int sync_ledger_save(const sync_ledger *l, const char *project_dir);
sync_proposal *sync_ledger_add(sync_ledger *l, floe_arena *a);
/* The newest open, rejected or refused proposal of `table` ("schema.table"), or NULL. */
sync_proposal *sync_ledger_live(sync_ledger *l, const char *table);

/*
 * quiet.c: *out the stamp of a sync's inputs now (NULL without a connection or with a
 * [git] remote: always sync), *same whether the last quiet sync left the same stamp.
 * sync_quiet_save records a stamp after a sync that found nothing.
 */
int sync_quiet_check(const char **out, bool *same, floe_arena *a, const floe_config *config, floe_pg *pg);
int sync_quiet_save(const floe_config *config, floe_arena *a, const char *stamp_hex);

/* One table's changes and what sync did with them. */
typedef struct sync_table {
	const char *table;            /* "public.orders" */
	const char *bronze;
	floe_sync_change *changes;    /* pointers into the classified list */
	size_t first, n;
	floe_sync_action action;      /* the strongest of its changes' actions: refuse > branch > commit */
	bool pauses;
	const char *id;               /* branch or refuse: the changes' fingerprint */
	const char *ddl;
	sync_proposal *proposal;      /* the proposal that stands for these changes; NULL: none */
	bool proposed_now;            /* this sync made its branch */
} sync_table;

struct floe_sync_result {
	floe_arena *arena;
	floe_sync_change *changes;
	size_t n_changes;
	floe_sync_action *actions;    /* per change */
	sync_table *tables;
	size_t n_tables;
	sync_ledger ledger;
	const char *commit;           /* the commit on main; NULL: none */
	const char **closed;          /* proposals settled by this sync: "merged: floe/change/…" */
	size_t n_closed, cap_closed;
	size_t n_refused;
};

/* proposal.c: proposals/<id>.md for table `t`, given main's lock and the branch's. */
const char *sync_proposal_text(floe_arena *a, const sync_table *t, const floe_lock *before, const floe_lock *after,
			       const char *first_seen, const char *lock_json);

#endif
