/*
 * introspect.h — what the source role can see and do: the facts behind
 * `floe doctor` (read-only role, column visibility) and `floe init` (schemas).
 *
 * Results are allocated in the caller's arena.
 */
#ifndef FLOE_PG_INTROSPECT_H
#define FLOE_PG_INTROSPECT_H

#include "pg/pg.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_arena floe_arena;

typedef struct floe_pg_role_facts {
	const char *name;
	bool superuser, createdb, createrole, bypassrls, replication;
	bool database_create;         /* CREATE on the current database */
	bool session_read_only;       /* default_transaction_read_only as the session sees it */
	const char *write_roles;      /* memberships in pg_write_all_data etc., "" when none */
} floe_pg_role_facts;

typedef struct floe_pg_schema_facts {
	const char *name;
	bool exists, usage, create;
	long long n_tables;           /* ordinary and partitioned parents */
} floe_pg_schema_facts;

typedef struct floe_pg_table_facts {
	const char *schema, *name;
	char kind;                    /* 'r' table, 'p' partitioned parent */
	bool can_select;              /* table-level SELECT */
	bool rls_enabled, rls_forced, is_owner;
	const char *write_privileges; /* "INSERT, UPDATE" …, "" when none */
	const char **hidden_columns;  /* columns without SELECT for the role */
	size_t n_hidden;
	size_t n_columns;
} floe_pg_table_facts;

int floe_pg_role_inspect(floe_pg_role_facts *out, floe_pg *pg, floe_arena *arena);

/* One entry per requested schema, in the order given. */
int floe_pg_schemas_inspect(floe_pg_schema_facts **out, floe_pg *pg, floe_arena *arena,
			    const char *const *schemas, size_t n_schemas);

/* Every table of the given schemas (partitions excluded: they load through their parent). */
int floe_pg_tables_inspect(floe_pg_table_facts **out, size_t *n_out, floe_pg *pg, floe_arena *arena,
			   const char *const *schemas, size_t n_schemas);

/* Every schema the role can use that holds tables, with its table count (init). */
int floe_pg_schemas_discover(floe_pg_schema_facts **out, size_t *n_out, floe_pg *pg,
			     floe_arena *arena);

#endif
