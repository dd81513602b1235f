/* control.c — placeholder while the catalog is written. */
#include "reconcile/reconcile_int.h"

#include <string.h>

size_t floe_reconcile_control_count(void)
{
	return 0;
}

const floe_reconcile_control_info *floe_reconcile_control_at(size_t i)
{
	(void)i;
	return NULL;
}

int rc_control_run_one(rc_control_run *out, floe_arena *arena, rc_lake *lake, const rc_metric *metrics,
		       size_t n_metrics, floe_reconcile_tier tier, const rc_side *source, const rc_diff *real,
		       const char *name, uint64_t seq)
{
	memset(out, 0, sizeof(*out));
	return 0;
}
