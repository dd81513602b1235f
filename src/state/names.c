/*
 * names.c — the one name table of each state the ledger keeps as text: a
 * table's state in a run (table_runs.state) and a run's status (runs.status).
 * The text is what the ledger stores and what output shows; code compares enums.
 */
#include "state/state.h"
#include "base/text.h"

static const char *const table_state_names[] = {
	"never loaded", "loading", "loaded", "failed", "refused", "skipped", "interrupted",
};

static const char *const run_status_names[] = { "running", "ok", "failed", "interrupted" };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(N_OF(table_state_names) == FLOE_TABLE_INTERRUPTED + 1, "a name for every table state");
_Static_assert(N_OF(run_status_names) == FLOE_RUN_INTERRUPTED + 1, "a name for every run status");

const char *floe_table_state_name(floe_table_state state)
{
	return table_state_names[state];
}

int floe_table_state_parse(floe_table_state *out, const char *text)
{
	int i = floe_text_name_index("table state", table_state_names, N_OF(table_state_names), text);
	if (i >= 0)
		*out = (floe_table_state)i;
	return i < 0 ? -1 : 0;
}

const char *floe_run_status_name(floe_run_status status)
{
	return run_status_names[status];
}

int floe_run_status_parse(floe_run_status *out, const char *text)
{
	int i = floe_text_name_index("run status", run_status_names, N_OF(run_status_names), text);
	if (i >= 0)
		*out = (floe_run_status)i;
	return i < 0 ? -1 : 0;
}
