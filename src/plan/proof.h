/*
 * proof.h — does a PL/pgSQL trigger function set a column from the clock on
 * every path? (plan module, internal; used by watermark.c and the unit tests)
 *
 * The function is read as libpg_query's PL/pgSQL tree (sqlparse.h), never as
 * text. The walk tracks one fact per path — "NEW.col has been assigned from
 * now()/current_timestamp/clock_timestamp()/statement_timestamp()/
 * transaction_timestamp()" — through blocks, IF/ELSIF/ELSE, CASE, loops (whose
 * bodies may run zero times), EXIT/CONTINUE, exception handlers and RAISE, and
 * checks it at every RETURN NEW. An assignment from anything else, a partial
 * assignment (subscripts), a SELECT INTO that may return no row, or a return of
 * something other than NEW, OLD or NULL fails the proof, with the line and what
 * was seen.
 */
#ifndef FLOE_PLAN_PROOF_H
#define FLOE_PLAN_PROOF_H

#include "base/json.h"

#include <stdbool.h>

typedef struct floe_arena floe_arena;

typedef enum floe_proof_verdict {
	FLOE_PROOF_PROVEN = 0,   /* assigned from the clock on every path to RETURN NEW */
	FLOE_PROOF_UNTOUCHED,    /* the function never assigns the column */
	FLOE_PROOF_FAILED        /* it does, but not provably: see `why` */
} floe_proof_verdict;

typedef struct floe_proof_result {
	floe_proof_verdict verdict;
	int line;                /* line in the function body of the finding; 0: none */
	const char *why;         /* "assigns it only when a condition holds (line 4)", in the arena */
} floe_proof_result;

/*
 * Analyse one function of a PL/pgSQL tree: `tree` is the document's root (the
 * array floe_sqlparse_plpgsql returns). `column` is the column name exactly as
 * stored (PL/pgSQL lower-cases unquoted field names, as PostgreSQL does).
 * Returns -1 only on an internal error (a sub-expression libpg_query cannot
 * parse is a FAILED verdict, not an error).
 */
int floe_proof_analyze(floe_proof_result *out, floe_arena *arena, const floe_json_value *tree,
		       const char *column);

/* The same from the function's CREATE FUNCTION text; a parse failure is FAILED. */
int floe_proof_analyze_source(floe_proof_result *out, floe_arena *arena, const char *create_function,
			      const char *column);

/* True when the SQL expression `expr` (e.g. a column default) is one of the clock calls. */
bool floe_proof_is_clock_expr(const char *expr);

#endif
