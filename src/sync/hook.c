/*
 * hook.c — what `floe run` asks of sync: sync first (a failure is a warning: the run goes
 * on with the plan deployed), and which tables a schema change pauses.
 */
#include "sync/sync.h"
#include "base/error.h"
#include "base/log.h"
#include "plan/lock.h"

int floe_sync_before_run(floe_buf *out, const floe_config *config)
{
	floe_sync_result *r = NULL;
	floe_sync_opts o = FLOE_SYNC_OPTS_INIT;
	if (floe_sync_run(&r, config, &o) < 0) {
		floe_buf msg = FLOE_BUF_INIT;
		floe_error_put_message(&msg, floe_error_last());
		floe_log_warn("sync before the run did not complete (%s); loading the plan deployed on main",
			      floe_buf_cstr(&msg));
		floe_buf_free(&msg);
		floe_error_clear();
		return 0;
	}
	int rc = floe_sync_has_news(r) ? floe_sync_render_text(out, r) : 0;
	floe_sync_result_free(r);
	return rc;
}

const char *floe_sync_paused_table(void *config, floe_arena *a, const floe_lock_table *t)
{
	return floe_sync_paused(a, config, t->schema, t->name);
}
