/*
 * test_proof.c — the watermark proof: which trigger functions set a column from
 * the clock on every path. Cases are PL/pgSQL sources parsed by libpg_query, and
 * JSON trees (the files in tests/unit/plan/proof/) fed to the walker directly.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "plan/proof.h"

static floe_proof_result prove(floe_arena *a, const char *body, const char *column)
{
	floe_proof_result r;
	const char *src = floe_arena_printf(a, "CREATE FUNCTION t() RETURNS trigger LANGUAGE plpgsql "
					       "AS $fn$\n%s\n$fn$", body);
	if (floe_proof_analyze_source(&r, a, src, column) < 0)
		r.verdict = (floe_proof_verdict)-1;
	return r;
}

#define PROVEN(body) FLOE_CHECK(prove(a, body, "updated_at").verdict == FLOE_PROOF_PROVEN)
#define FAILS(body, fragment)                                                        \
	do {                                                                            \
		floe_proof_result r_ = prove(a, body, "updated_at");                        \
		FLOE_CHECK(r_.verdict == FLOE_PROOF_FAILED);                                \
		FLOE_CHECK(r_.why && strstr(r_.why, fragment));                             \
		if (r_.why && !strstr(r_.why, fragment))                                    \
			fprintf(stderr, "    why: %s\n", r_.why);                               \
	} while (0)

FLOE_TEST(proof_unconditional_assignment)
{
	floe_arena *a = floe_arena_new();
	PROVEN("BEGIN NEW.updated_at := now(); RETURN NEW; END");
	PROVEN("BEGIN NEW.updated_at = current_timestamp; RETURN NEW; END");
	PROVEN("BEGIN new.UPDATED_AT := clock_timestamp(); RETURN NEW; END");
	PROVEN("BEGIN NEW.updated_at := statement_timestamp(); RETURN new; END");
	PROVEN("BEGIN NEW.updated_at := pg_catalog.transaction_timestamp(); RETURN NEW; END");
	PROVEN("BEGIN NEW.updated_at := CURRENT_TIMESTAMP(3); RETURN NEW; END");
	PROVEN("BEGIN NEW.updated_at := now()::timestamp; RETURN NEW; END");
	PROVEN("BEGIN NEW.updated_at := /* why */ now(); -- touch\n RETURN NEW; END");
	PROVEN("BEGIN SELECT now() INTO NEW.updated_at; RETURN NEW; END");
	PROVEN("DECLARE n int; BEGIN SELECT 1, now() INTO n, NEW.updated_at; RETURN NEW; END");
	PROVEN("BEGIN BEGIN NEW.updated_at := now(); END; RETURN NEW; END");
	floe_arena_free(a);
}

FLOE_TEST(proof_branches)
{
	floe_arena *a = floe_arena_new();
	PROVEN("BEGIN IF TG_OP = 'UPDATE' THEN NEW.updated_at := now(); ELSE NEW.updated_at := now(); "
	       "END IF; RETURN NEW; END");
	PROVEN("BEGIN IF a THEN NEW.updated_at := now(); ELSIF b THEN NEW.updated_at := now(); "
	       "ELSE NEW.updated_at := now(); END IF; RETURN NEW; END");
	FAILS("BEGIN IF NEW.x <> OLD.x THEN NEW.updated_at := now(); END IF; RETURN NEW; END",
	      "on a path that does not set it");
	FAILS("BEGIN IF a THEN NEW.updated_at := now(); ELSIF b THEN NEW.updated_at := now(); "
	      "END IF; RETURN NEW; END", "on a path that does not set it");
	/* Each branch returning on its own counts. */
	PROVEN("BEGIN IF a THEN NEW.updated_at := now(); RETURN NEW; ELSE NEW.updated_at := now(); "
	       "RETURN NEW; END IF; END");
	/* CASE without ELSE raises CASE_NOT_FOUND: nothing is written on that path. */
	PROVEN("BEGIN CASE WHEN a THEN NEW.updated_at := now(); END CASE; RETURN NEW; END");
	PROVEN("BEGIN CASE x WHEN 1 THEN NEW.updated_at := now(); ELSE NEW.updated_at := now(); "
	       "END CASE; RETURN NEW; END");
	FAILS("BEGIN CASE WHEN a THEN NEW.updated_at := now(); ELSE NULL; END CASE; RETURN NEW; END",
	      "does not set it");
	floe_arena_free(a);
}

FLOE_TEST(proof_returns_and_raises)
{
	floe_arena *a = floe_arena_new();
	FAILS("BEGIN IF a THEN RETURN NEW; END IF; NEW.updated_at := now(); RETURN NEW; END",
	      "returns NEW (line 2) on a path that does not set it");
	PROVEN("BEGIN IF a THEN RETURN NULL; END IF; NEW.updated_at := now(); RETURN NEW; END");
	PROVEN("BEGIN IF NEW IS NOT DISTINCT FROM OLD THEN RETURN OLD; END IF; "
	       "NEW.updated_at := now(); RETURN NEW; END");
	PROVEN("BEGIN IF a THEN RAISE EXCEPTION 'no'; END IF; NEW.updated_at := now(); RETURN NEW; END");
	FAILS("BEGIN IF a THEN RAISE NOTICE 'hm'; RETURN NEW; END IF; NEW.updated_at := now(); RETURN NEW; END",
	      "does not set it");
	FAILS("DECLARE r record; BEGIN r := NEW; NEW.updated_at := now(); RETURN r; END", "not NEW");
	FAILS("BEGIN NEW.updated_at := now(); NEW := OLD; RETURN NEW; END", "does not set it");
	PROVEN("BEGIN NEW := OLD; NEW.updated_at := now(); RETURN NEW; END");
	FAILS("BEGIN NEW.updated_at := now(); SELECT * INTO NEW FROM t; RETURN NEW; END", "does not set it");
	floe_arena_free(a);
}

FLOE_TEST(proof_values_that_are_not_the_clock)
{
	floe_arena *a = floe_arena_new();
	FAILS("BEGIN NEW.updated_at := OLD.updated_at; RETURN NEW; END", "assigns it from `OLD.updated_at`");
	FAILS("BEGIN NEW.updated_at := now() - interval '1 day'; RETURN NEW; END", "not from now()");
	FAILS("BEGIN NEW.updated_at := 'now'; RETURN NEW; END", "not from now()");
	FAILS("BEGIN NEW.updated_at := localtimestamp; RETURN NEW; END", "not from now()");
	FAILS("BEGIN NEW.updated_at := my.now(); RETURN NEW; END", "not from now()");
	FAILS("BEGIN NEW.updated_at := now(); NEW.updated_at := NULL; RETURN NEW; END", "from `NULL`");
	FAILS("BEGIN NEW.updated_at := now() FROM t WHERE false; RETURN NEW; END", "not from now()");
	FAILS("BEGIN SELECT now() INTO NEW.updated_at FROM t LIMIT 1; RETURN NEW; END",
	      "not a one-row SELECT");
	FAILS("BEGIN EXECUTE 'select now()' INTO NEW.updated_at; RETURN NEW; END", "EXECUTE");
	FAILS("BEGIN NEW.updated_at[1] := now(); RETURN NEW; END", "only part of it");
	FAILS("DECLARE n int; BEGIN NEW.updated_at := now(); GET DIAGNOSTICS NEW.updated_at = ROW_COUNT; "
	      "RETURN NEW; END", "GET DIAGNOSTICS");
	floe_arena_free(a);
}

FLOE_TEST(proof_loops_and_exits)
{
	floe_arena *a = floe_arena_new();
	/* A loop body may run zero times. */
	FAILS("BEGIN WHILE a LOOP NEW.updated_at := now(); END LOOP; RETURN NEW; END", "does not set it");
	FAILS("BEGIN FOR i IN 1..3 LOOP NEW.updated_at := now(); END LOOP; RETURN NEW; END", "does not set it");
	PROVEN("BEGIN FOR i IN 1..3 LOOP PERFORM 1; END LOOP; NEW.updated_at := now(); RETURN NEW; END");
	/* EXIT out of a labelled block skips the assignment. */
	FAILS("BEGIN <<b>> BEGIN IF a THEN EXIT b; END IF; NEW.updated_at := now(); END; RETURN NEW; END",
	      "does not set it");
	PROVEN("BEGIN LOOP EXIT WHEN a; END LOOP; BEGIN NEW.updated_at := now(); END; RETURN NEW; END");
	/* Exception handlers start from the block's entry state. */
	FAILS("BEGIN BEGIN NEW.updated_at := now(); EXCEPTION WHEN others THEN RETURN NEW; END; "
	      "RETURN NEW; END", "does not set it");
	PROVEN("BEGIN BEGIN NEW.updated_at := now(); EXCEPTION WHEN others THEN "
	       "NEW.updated_at := now(); END; RETURN NEW; END");
	floe_arena_free(a);
}

FLOE_TEST(proof_untouched_and_other_columns)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK(prove(a, "BEGIN NEW.other := now(); RETURN NEW; END", "updated_at").verdict ==
		   FLOE_PROOF_UNTOUCHED);
	FLOE_CHECK(prove(a, "BEGIN NEW.\"Updated At\" := now(); RETURN NEW; END", "Updated At").verdict ==
		   FLOE_PROOF_PROVEN);
	FLOE_CHECK(prove(a, "BEGIN NEW.\"Updated At\" := now(); RETURN NEW; END", "updated at").verdict ==
		   FLOE_PROOF_UNTOUCHED);
	/* A variable named like the column is not the column. */
	FLOE_CHECK(prove(a, "DECLARE updated_at timestamptz; BEGIN updated_at := now(); RETURN NEW; END",
			 "updated_at").verdict == FLOE_PROOF_UNTOUCHED);
	floe_proof_result r;
	FLOE_CHECK(floe_proof_analyze_source(&r, a, "CREATE FUNCTION t() RETURNS trigger LANGUAGE plpgsql "
						    "AS $$BEGIN NEW.x := now( RETURN NEW; END$$", "x") == 0);
	FLOE_CHECK(r.verdict == FLOE_PROOF_FAILED && strstr(r.why, "could not be parsed"));
	floe_arena_free(a);
}

FLOE_TEST(proof_clock_expressions)
{
	FLOE_CHECK(floe_proof_is_clock_expr("now()"));
	FLOE_CHECK(floe_proof_is_clock_expr("CURRENT_TIMESTAMP"));
	FLOE_CHECK(floe_proof_is_clock_expr("clock_timestamp()"));
	FLOE_CHECK(floe_proof_is_clock_expr("(now())::timestamp without time zone"));
	FLOE_CHECK(!floe_proof_is_clock_expr("'now'::timestamp with time zone"));
	FLOE_CHECK(!floe_proof_is_clock_expr("now() + '1 day'::interval"));
	FLOE_CHECK(!floe_proof_is_clock_expr("localtimestamp"));
	FLOE_CHECK(!floe_proof_is_clock_expr("now(); drop table x"));
	FLOE_CHECK(!floe_proof_is_clock_expr(""));
}

/* JSON fixtures: "<name>.json" holds a PL/pgSQL tree; the name says the verdict for updated_at. */
static void check_fixture(const char *name, floe_proof_verdict want, const char *fragment)
{
	floe_arena *a = floe_arena_new();
	floe_buf text = FLOE_BUF_INIT;
	floe_json_doc *doc = NULL;
	const char *path = floe_arena_printf(a, "tests/unit/plan/proof/%s.json", name);
	FLOE_CHECK(floe_fs_read_file(&text, path) == 0);
	FLOE_CHECK(floe_json_parse(&doc, text.ptr, text.len, NULL) == 0);
	floe_proof_result r = { FLOE_PROOF_FAILED, 0, NULL };
	if (doc)
		FLOE_CHECK(floe_proof_analyze(&r, a, floe_json_root(doc), "updated_at") == 0);
	FLOE_CHECK(r.verdict == want);
	if (fragment)
		FLOE_CHECK(r.why && strstr(r.why, fragment));
	if (r.verdict != want)
		fprintf(stderr, "    fixture %s: verdict %d, why %s\n", name, (int)r.verdict, r.why ? r.why : "-");
	floe_json_free(doc);
	floe_buf_free(&text);
	floe_arena_free(a);
	floe_error_clear();
}

FLOE_TEST(proof_json_fixtures)
{
	check_fixture("proven_if_else", FLOE_PROOF_PROVEN, NULL);
	check_fixture("failed_if_without_else", FLOE_PROOF_FAILED, "line 6");
	check_fixture("failed_not_clock", FLOE_PROOF_FAILED, "OLD.updated_at");
	check_fixture("untouched", FLOE_PROOF_UNTOUCHED, NULL);
	check_fixture("malformed_unknown_statement", FLOE_PROOF_FAILED, "does not know");
	check_fixture("malformed_not_a_function", FLOE_PROOF_FAILED, "not a PL/pgSQL function");
}
