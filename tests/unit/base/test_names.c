/*
 * test_names.c — every name table of a state or mode kept as text at the edges (the
 * run ledger, lakehouse.lock.json, output): each value's text exactly as stored and
 * shown, name → enum → name for every value, and unknown text refused with an error.
 */
#include "harness.h"
#include "base/error.h"
#include "base/text.h"
#include "plan/plan.h"
#include "reconcile/outcome.h"
#include "state/state.h"

#include <string.h>

/* What an unknown text must do: -1, a FLOE_ERR_CONFIG error naming the kind and the text. */
static void check_refused(int rc, const char *message)
{
	const floe_error *e = floe_error_last();
	FLOE_CHECK(rc == -1);
	FLOE_CHECK(e != NULL && e->cls == FLOE_ERR_CONFIG);
	FLOE_CHECK_STR(e ? e->message : NULL, message);
	floe_error_clear();
}

/* Every value 0..last of TYPE is named want[value] exactly, and that text parses back to it. */
#define CHECK_NAMES(type, want, last)                                                    \
	do {                                                                             \
		FLOE_CHECK(sizeof(want) / sizeof((want)[0]) == (size_t)(last) + 1);      \
		for (int v_ = 0; v_ <= (int)(last); v_++) {                              \
			type back_ = (type)((v_ + 1) % ((int)(last) + 1)); /* not v_ */    \
			FLOE_CHECK_STR(type##_name((type)v_), (want)[v_]);               \
			FLOE_CHECK(type##_parse(&back_, (want)[v_]) == 0 && back_ == (type)v_); \
		}                                                                        \
	} while (0)

FLOE_TEST(names_text_name_index)
{
	static const char *const names[] = { "a", "b c", "" };
	floe_error_clear();
	FLOE_CHECK(floe_text_name_index("thing", names, 3, "a") == 0);
	FLOE_CHECK(floe_text_name_index("thing", names, 3, "b c") == 1);
	FLOE_CHECK(floe_text_name_index("thing", names, 3, "") == 2);
	FLOE_CHECK(floe_error_last() == NULL);
	FLOE_CHECK(floe_text_name_index(NULL, names, 3, "B C") == -1); /* exact, case and all */
	FLOE_CHECK(floe_error_last() == NULL);                        /* no `what`: no error */
	FLOE_CHECK(floe_text_name_index(NULL, names, 2, "") == -1);   /* only the first n */
	check_refused(floe_text_name_index("thing", names, 3, "b"), "unknown thing \"b\"");
	check_refused(floe_text_name_index("thing", names, 3, NULL), "unknown thing \"\"");
	check_refused(floe_text_name_index("thing", names, 3, "a\n\x1b[2J"), "unknown thing \"a\\n\\e[2J\"");
}

FLOE_TEST(names_load_modes)
{
	/* The lock and the ledger hold these texts; `floe plan --json` prints them. */
	static const char *const want[] = { "incremental", "full", "refused", "skipped", "removed" };
	CHECK_NAMES(floe_load_mode, want, FLOE_LOAD_REMOVED);
	FLOE_CHECK(floe_load_mode_loadable(FLOE_LOAD_FULL) && floe_load_mode_loadable(FLOE_LOAD_INCREMENTAL));
	FLOE_CHECK(!floe_load_mode_loadable(FLOE_LOAD_REFUSED) && !floe_load_mode_loadable(FLOE_LOAD_SKIPPED) &&
		   !floe_load_mode_loadable(FLOE_LOAD_REMOVED));
	floe_load_mode m = FLOE_LOAD_FULL;
	check_refused(floe_load_mode_parse(&m, "Full"), "unknown load mode \"Full\"");
	check_refused(floe_load_mode_parse(&m, "repair"), "unknown load mode \"repair\"");
	check_refused(floe_load_mode_parse(&m, NULL), "unknown load mode \"\"");
	FLOE_CHECK(m == FLOE_LOAD_FULL); /* untouched on error */
}

FLOE_TEST(names_table_states)
{
	static const char *const want[] = { "never loaded", "loading", "loaded", "failed", "refused", "skipped",
					    "interrupted" };
	CHECK_NAMES(floe_table_state, want, FLOE_TABLE_INTERRUPTED);
	floe_table_state s = FLOE_TABLE_LOADED;
	check_refused(floe_table_state_parse(&s, "never_loaded"), "unknown table state \"never_loaded\"");
	check_refused(floe_table_state_parse(&s, "verified"), "unknown table state \"verified\"");
	check_refused(floe_table_state_parse(&s, NULL), "unknown table state \"\"");
	FLOE_CHECK(s == FLOE_TABLE_LOADED);
}

FLOE_TEST(names_run_statuses)
{
	/* The ledger's CHECK (status IN ('running', 'ok', 'failed', 'interrupted')) holds exactly these. */
	static const char *const want[] = { "running", "ok", "failed", "interrupted" };
	CHECK_NAMES(floe_run_status, want, FLOE_RUN_INTERRUPTED);
	floe_run_status s = FLOE_RUN_OK;
	check_refused(floe_run_status_parse(&s, "OK"), "unknown run status \"OK\"");
	check_refused(floe_run_status_parse(&s, ""), "unknown run status \"\"");
	FLOE_CHECK(s == FLOE_RUN_OK);
}

FLOE_TEST(names_reconcile_outcomes)
{
	/* The first four are the ledger's outcomes; partial is a state only (verified + excluded columns). */
	static const char *const want[] = { "verified", "diverged", "unverified", "failed", "verified (partial)" };
	CHECK_NAMES(floe_reconcile_outcome, want, FLOE_RECONCILE_PARTIAL);
	floe_reconcile_outcome o = FLOE_RECONCILE_DIVERGED;
	check_refused(floe_reconcile_outcome_parse(&o, "verified(partial)"),
		      "unknown reconciliation outcome \"verified(partial)\"");
	check_refused(floe_reconcile_outcome_parse(&o, "loaded"), "unknown reconciliation outcome \"loaded\"");
	FLOE_CHECK(o == FLOE_RECONCILE_DIVERGED);
}
