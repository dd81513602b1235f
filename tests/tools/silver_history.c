/*
 * silver_history.c — test tool: run floe_silver_history_build for one table of a project,
 * until `floe run` builds silver itself. Not part of floe's command line.
 *
 *   silver_history PROJECT_DIR TABLE [RUN_ID]
 * TABLE is bronze.NAME or SCHEMA.NAME of the deployed lock, whose silver section keeps history
 * (or, in a lock without silver sections, that floe.toml's [silver] history lists). Prints the result as one JSON object; exit 0 ok, 1 failed, 2 usage.
 */
#include "base/arena.h"
#include "base/error.h"
#include "config/config.h"
#include "plan/lock.h"
#include "silver/history.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Whether floe.toml's [silver] history names `t` ("schema.table"). */
static bool history_on(const floe_config *c, const floe_lock_table *t)
{
	for (size_t i = 0; i < c->silver.history.count; i++) {
		const char *h = c->silver.history.items[i], *dot = strchr(h, '.');
		if (dot && strncmp(h, t->schema, (size_t)(dot - h)) == 0 && t->schema[dot - h] == '\0' &&
		    strcmp(dot + 1, t->name) == 0)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	floe_config *config = NULL;
	floe_lock *lock = NULL;
	floe_arena *arena = floe_arena_new();
	floe_silver_history_opts o = FLOE_SILVER_HISTORY_OPTS_INIT;
	floe_silver_history_result r;
	const floe_lock_table *t = NULL;
	int rc = 2;
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: silver_history PROJECT_DIR TABLE [RUN_ID]\n");
		goto cleanup;
	}
	o.run_id = argc == 4 ? argv[3] : NULL;
	rc = 1;
	if (floe_config_load(&config, floe_arena_printf(arena, "%s/floe.toml", argv[1])) < 0 ||
	    floe_lock_load(&lock, floe_arena_printf(arena, "%s/pipeline/lakehouse.lock.json", config->project_dir)) < 0)
		goto failed;
	for (size_t i = 0; i < floe_lock_count(lock) && !t; i++)
		if (floe_lock_table_named(floe_lock_at(lock, i), argv[2]))
			t = floe_lock_at(lock, i);
	if (!t || !(t->silver ? t->silver->history : history_on(config, t))) {
		fprintf(stderr, "silver_history: %s is not a deployed table that keeps history\n", argv[2]);
		rc = 2;
		goto cleanup;
	}
	if (floe_silver_history_build(&r, config, t, &o) < 0)
		goto failed;
	printf("{\"observations\":%zu,\"opened\":%" PRId64 ",\"closed\":%" PRId64 ",\"rows\":%" PRId64
	       ",\"snapshot_id\":%" PRId64 ",\"bronze_snapshot_id\":%" PRId64 "}\n",
	       r.observations, r.opened, r.closed, r.rows, r.snapshot_id, r.bronze_snapshot_id);
	rc = 0;
	goto cleanup;
failed:
	floe_error_print(stderr);
cleanup:
	floe_lock_free(lock);
	floe_config_free(config);
	floe_arena_free(arena);
	return rc;
}
