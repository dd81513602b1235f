/*
 * names.c — the one name table of each state the ledger keeps as text: a
 * table's state in a run (table_runs.state) and a run's status (runs.status).
 * The text is what the ledger stores and what output shows; code compares enums.
 */
#include "state/state.h"
#include "base/text.h"

/* floe_table_state_name and floe_table_state_parse */
static const char *const table_state_names[] = {
	"never loaded", "loading", "loaded", "failed", "refused", "skipped", "interrupted", "paused",
};
FLOE_TEXT_NAMES_DEFINE(floe_table_state, "table state", table_state_names, FLOE_TABLE_PAUSED)

/* floe_run_status_name and floe_run_status_parse */
static const char *const run_status_names[] = { "running", "ok", "failed", "interrupted" };
FLOE_TEXT_NAMES_DEFINE(floe_run_status, "run status", run_status_names, FLOE_RUN_INTERRUPTED)
