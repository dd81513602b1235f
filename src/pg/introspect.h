/*
 * introspect.h — what the source role can see and do: the facts behind
 * `floe doctor` (read-only role, column visibility) and `floe init` (schemas).
 *
 * Results are allocated in the caller's arena.
 */
#ifndef FLOE_PG_INTROSPECT_H
#define FLOE_PG_INTROSPECT_H

#include "config/config.h"
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

/*
 * A role the login role can act as: itself (depth 0), and every role it can
 * become with SET ROLE — any role it is a member of, directly or through other
 * roles, INHERIT or not (PostgreSQL ≤ 15); through grants WITH SET TRUE only
 * (PostgreSQL 16+, pg_auth_members.set_option). Privileges are each role's own
 * plus what it inherits; attributes (SUPERUSER, CREATEROLE …) are its own.
 */
typedef struct floe_pg_role_reach {
	const char *name;
	const char *chain;            /* "login → a → b": the shortest way there */
	int depth;                    /* 0: the login role itself */
	bool superuser, createrole, createdb, replication, bypassrls;
	bool database_create;         /* CREATE on the current database */
	const char *write_roles;      /* pg_write_all_data … it has the privileges of; "" */
	const char *schema_create;    /* selected schemas it may CREATE in; "" */
	const char *owned;            /* selected tables it owns (or inherits ownership of); "" */
	const char *table_writes;     /* "s.t (INSERT, DELETE); …" on selected tables; "" */
	const char *owned_schemas;    /* selected schemas it owns (an owner may drop their tables); "" */
	bool owns_database;           /* it owns the current database (may drop it) */
} floe_pg_role_reach;

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

/*
 * A read-only session on the configured source ([source] in floe.toml, the
 * password from config's password lookup). Errors: FLOE_ERR_UNREACHABLE.
 */
int floe_pg_connect_source(floe_pg **out, const floe_config *config);
/* The target of that session (the password borrowed from config's lookup). */
void floe_pg_source_target(floe_pg_target *t, const floe_config *config);

int floe_pg_role_inspect(floe_pg_role_facts *out, floe_pg *pg, floe_arena *arena);

/*
 * *out: a hash (hex, in `arena`) that moves whenever the source's schema catalog does — any DDL,
 * GRANT or COMMENT on the user's schemas, a role membership, the login role's attributes —
 * and not with data or statistics (fingerprint.c).
 */
int floe_pg_catalog_fingerprint(const char **out, floe_pg *pg, floe_arena *arena);

/* Every role the login role can act as (see floe_pg_role_reach), itself first, by depth. */
int floe_pg_role_reach_inspect(floe_pg_role_reach **out, size_t *n_out, floe_pg *pg,
			       floe_arena *arena, const char *const *schemas, size_t n_schemas);

/* One entry per requested schema, in the order given. */
int floe_pg_schemas_inspect(floe_pg_schema_facts **out, floe_pg *pg, floe_arena *arena,
			    const char *const *schemas, size_t n_schemas);

/* Every table of the given schemas (partitions excluded: they load through their parent). */
int floe_pg_tables_inspect(floe_pg_table_facts **out, size_t *n_out, floe_pg *pg, floe_arena *arena,
			   const char *const *schemas, size_t n_schemas);

/* Every schema the role can use that holds tables, with its table count (init). */
int floe_pg_schemas_discover(floe_pg_schema_facts **out, size_t *n_out, floe_pg *pg,
			     floe_arena *arena);

/* ---- relations, columns, types, keys and triggers: the facts behind `floe plan` ---- */

typedef struct floe_pg_type floe_pg_type;

typedef struct floe_pg_attr {        /* an attribute of a composite type */
	const char *name, *quoted;   /* quoted: quote_ident() by the server */
	const floe_pg_type *type;
	int typmod;
	const char *type_text;       /* format_type(type, typmod) */
} floe_pg_attr;

struct floe_pg_type {
	unsigned oid;
	const char *schema, *name;   /* "pg_catalog", "int4" */
	const char *display;         /* format_type(oid, NULL): "integer" */
	const char *quoted;          /* for a cast: int4, "char", public."my type" (quote_ident) */
	char typtype;                /* b base, c composite, d domain, e enum, p pseudo, r range, m multirange */
	char category;               /* pg_type.typcategory */
	const floe_pg_type *element; /* a true array's element type (elem.typarray = this), else NULL */
	const floe_pg_type *base;    /* a domain's base type */
	int base_typmod;             /* a domain's typmod on its base */
	bool domain_not_null, domain_checks;
	floe_pg_attr *attrs;         /* a composite's attributes */
	size_t n_attrs;
};

typedef struct floe_pg_column {
	int attnum;
	const char *name, *quoted;
	const floe_pg_type *type;
	int typmod;
	const char *type_text;       /* format_type(atttypid, atttypmod): "numeric(12,2)" */
	bool not_null;
	bool visible;                /* SELECT on the column for the role */
	char generated;              /* attgenerated: 's' stored, '\0' none */
	const char *default_expr;    /* pg_get_expr of the default, NULL when none */
	const char *comment;         /* COMMENT ON COLUMN; NULL: none */
	const char **enum_labels;    /* an enum column (or a domain over one): its labels in sort order */
	size_t n_enum_labels;
} floe_pg_column;

/* A foreign key: columns of this table → columns of the referenced one, in key order. */
typedef struct floe_pg_foreign_key {
	const char *name;
	const char *ref_schema, *ref_table;
	const char **columns, **ref_columns;
	size_t n_columns;
} floe_pg_foreign_key;

/* A CHECK constraint of the table (not of a domain). */
typedef struct floe_pg_check {
	const char *name;
	const char *definition;      /* pg_get_constraintdef(): "CHECK ((price >= (0)::numeric))" */
	const char *expression;      /* pg_get_expr(conbin): the expression alone, for the parser */
	bool validated;              /* false: NOT VALID (old rows may break it) */
} floe_pg_check;

/* tgtype bits (PostgreSQL's trigger.h). */
#define FLOE_PG_TRIGGER_ROW (1 << 0)
#define FLOE_PG_TRIGGER_BEFORE (1 << 1)
#define FLOE_PG_TRIGGER_INSERT (1 << 2)
#define FLOE_PG_TRIGGER_DELETE (1 << 3)
#define FLOE_PG_TRIGGER_UPDATE (1 << 4)
#define FLOE_PG_TRIGGER_TRUNCATE (1 << 5)
#define FLOE_PG_TRIGGER_INSTEAD (1 << 6)

typedef struct floe_pg_trigger {
	const char *name;
	int type;                    /* tgtype bits */
	char enabled;                /* 'O' origin, 'A' always, 'R' replica only, 'D' disabled */
	bool update_of;              /* UPDATE OF columns: fires only when they are named */
	bool has_when;               /* WHEN (condition) */
	const char *function;        /* regprocedure text, for messages */
	const char *language;        /* "plpgsql", "c", ... */
	const char *definition;      /* pg_get_functiondef() for plpgsql, else NULL */
	const char *prosrc;          /* the function's prosrc (a C function's symbol) */
	const char *first_arg;       /* first trigger argument, NULL when none */
	long long n_leaves;          /* partitioned parent: leaf partitions */
	long long n_leaves_enabled;  /* ... of which carry this trigger enabled */
} floe_pg_trigger;

typedef struct floe_pg_relation {
	unsigned oid;
	const char *schema, *name;
	const char *quoted;          /* quote_ident(schema) || '.' || quote_ident(name) */
	char kind;                   /* r table, p partitioned, v view, m materialized view, f foreign */
	char persistence;            /* p permanent, u unlogged, t temporary */
	bool schema_usage, can_select;
	bool rls_active;             /* row_security_active(): policies filter the role's rows */
	bool rls_sees_all;           /* a permissive policy with USING (true) applies, no restrictive one */
	long long n_partitions;      /* partitioned: leaf partitions */
	floe_pg_column *columns;
	size_t n_columns;
	const floe_pg_column **key;  /* primary key columns in key order; n_key 0: none */
	size_t n_key;
	floe_pg_trigger *triggers;   /* user triggers (not internal), by name */
	size_t n_triggers;
	const char *comment;         /* COMMENT ON TABLE; NULL: none */
	floe_pg_foreign_key *foreign_keys; /* by name */
	size_t n_foreign_keys;
	floe_pg_check *checks;       /* by name */
	size_t n_checks;
} floe_pg_relation;

/*
 * Every relation of the given schemas that is not a partition (tables,
 * partitioned parents, views, materialized views, foreign tables), by schema and
 * name. Tables and partitioned parents come with columns (types resolved through
 * domains, arrays and composites), primary key and triggers; views with columns
 * only. Everything is allocated in `arena`.
 */
/*
 * Comments (tables and columns), foreign keys, CHECK constraints and enum labels of
 * `rels` (tables and partitioned parents of the given schemas), one catalog query
 * each (constraints.c); the facts behind silver's descriptions and tests.
 * floe_pg_relations_inspect calls it.
 */
int floe_pg_relations_annotate(floe_pg_relation *rels, size_t n, floe_pg *pg, floe_arena *arena,
			       const char *schemas_literal);

int floe_pg_relations_inspect(floe_pg_relation **out, size_t *n_out, floe_pg *pg, floe_arena *arena,
			      const char *const *schemas, size_t n_schemas);

/* A text[] literal ({"a","b"}) for a query parameter, in `arena`. */
const char *floe_pg_array_literal(floe_arena *arena, const char *const *items, size_t n);

#endif
