/*
 * hook.c — what `floe run` asks of sync: sync first (a failure is a warning: the run goes
 * on with the plan deployed; skipped when its inputs did not move, quiet.c), and which
 * tables a schema change pauses.
 */
#include "sync/sync_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "plan/lock.h"

/* The last error's message for a debug line ("" when none was set). */
static const char *last_message(void)
{
	const floe_error *e = floe_error_last();
	return e && e->message ? e->message : "";
}

int floe_sync_before_run(floe_buf *out, const floe_config *config, floe_pg *pg)
{
	floe_sync_result *r = NULL;
	floe_sync_opts o = FLOE_SYNC_OPTS_INIT;
	floe_arena *a = floe_arena_new();
	const char *stamp = NULL;
	bool same = false;
	int rc = 0;
	if (sync_quiet_check(&stamp, &same, a, config, pg) < 0) {
		floe_log_debug("sync runs: its inputs could not be stamped (%s)", last_message());
		floe_error_clear();
		stamp = NULL;
	}
	if (same) {
		floe_log_info("sync skipped: the source's catalog, floe.toml and pipeline/ are as the last sync "
			      "left them");
		goto cleanup;
	}
	if (floe_sync_run(&r, config, &o) < 0) {
		floe_buf msg = FLOE_BUF_INIT;
		floe_error_put_message(&msg, floe_error_last());
		floe_log_warn("sync before the run did not complete (%s); loading the plan deployed on main",
			      floe_buf_cstr(&msg));
		floe_buf_free(&msg);
		floe_error_clear();
		goto cleanup;
	}
	rc = floe_sync_has_news(r) ? floe_sync_render_text(out, r) : 0;
	if (!floe_sync_has_news(r) && stamp && sync_quiet_save(config, a, stamp) < 0) {
		floe_log_debug("the quiet sync could not be recorded (%s)", last_message());
		floe_error_clear(); /* the next run syncs again: nothing lost */
	}
cleanup:
	floe_sync_result_free(r);
	floe_arena_free(a);
	return rc;
}

const char *floe_sync_paused_table(void *config, floe_arena *a, const floe_lock_table *t)
{
	return floe_sync_paused(a, config, t->schema, t->name);
}
