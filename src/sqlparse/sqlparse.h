/*
 * sqlparse.h — PostgreSQL's own parser (libpg_query), the one module that calls it.
 *
 * floe never reads SQL or PL/pgSQL with patterns: it asks PostgreSQL's grammar,
 * compiled into libpg_query, and walks the JSON tree that library prints. Trees
 * are handed out as floe_json_doc (base/json.h) owned by the caller; parse
 * errors become floe errors (FLOE_ERR_CHECK) with the library's message and the
 * byte position. The grammar is PostgreSQL 15's; sources of other versions parse
 * the same for everything floe looks at (expressions, trigger functions).
 */
#ifndef FLOE_SQLPARSE_SQLPARSE_H
#define FLOE_SQLPARSE_SQLPARSE_H

#include "base/json.h"

#include <stddef.h>

typedef struct floe_arena floe_arena;

/*
 * Parse SQL text (one or more statements) into the raw parse tree:
 * {"version": N, "stmts": [{"stmt": {"SelectStmt": {...}}}, ...]}.
 */
int floe_sqlparse_sql(floe_json_doc **out, const char *sql);

/*
 * Parse a whole `CREATE FUNCTION … LANGUAGE plpgsql AS $$…$$` statement (as
 * pg_get_functiondef() prints it) into libpg_query's PL/pgSQL tree:
 * [{"PLpgSQL_function": {"new_varno": 1, "datums": [...], "action": {...}}}].
 */
int floe_sqlparse_plpgsql(floe_json_doc **out, const char *create_function);

typedef enum floe_sqltok_kind {
	FLOE_SQLTOK_OTHER = 0,
	FLOE_SQLTOK_WORD,    /* identifier (quoted or not) or keyword */
	FLOE_SQLTOK_DOT,     /* . */
	FLOE_SQLTOK_ASSIGN,  /* := or = */
	FLOE_SQLTOK_OPEN,    /* ( or [ */
	FLOE_SQLTOK_CLOSE    /* ) or ] */
} floe_sqltok_kind;

typedef struct floe_sqltok {
	floe_sqltok_kind kind;
	size_t start, end;   /* byte offsets into the text: [start, end) */
} floe_sqltok;

/* The tokens of `sql` in order, comments left out; the array lives in `arena`. */
int floe_sqlparse_scan(floe_sqltok **out, size_t *n_out, floe_arena *arena, const char *sql);

#endif
