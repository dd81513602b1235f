/*
 * lock_int.h — the lock's layout, shared by lock.c (build, render) and
 * lock_read.c (the checked reader).
 */
#ifndef FLOE_PLAN_LOCK_INT_H
#define FLOE_PLAN_LOCK_INT_H

#include "base/json.h"
#include "plan/lock.h"

struct floe_lock {
	floe_arena *arena;
	const char *database;     /* NULL: unknown */
	floe_lock_table *tables;
	size_t n, cap;
	floe_lock_file *files;    /* project files (top-level "files") */
	size_t n_files, cap_files;
	floe_lock_mart *marts;    /* top-level "marts", sorted by name */
	size_t n_marts, cap_marts;
};

floe_lock *floe_lock_new(void);
floe_lock_table *floe_lock_add_table(floe_lock *lock);

/* Set each table's `owner` (floe_lock_name_owner): once the tables are complete and in place. */
void floe_lock_mark_owners(floe_lock *lock);

/* lock_silver.c: a table's "silver" member (key and object). */
void floe_lock_write_silver(floe_json_writer *w, const floe_lock_silver *s);

/* lock.c's type writer, shared with the silver columns. */
void floe_lock_write_type(floe_json_writer *w, const floe_lock_type *t);

/* lock_mart.c: the top-level "marts" member (key and array), written when there are marts. */
void floe_lock_write_marts(floe_json_writer *w, const floe_lock *lock);

#endif
