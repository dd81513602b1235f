/*
 * bronze_repair.c — test tool: drive floe_bronze_repair (what reconciliation calls on a
 * diverged table) from the command line, so tests can repair planted differences
 * before `floe reconcile` calls it itself. Not part of floe's command line.
 *
 *   bronze_repair PROJECT_DIR TABLE WIDTH [--snapshot NAME] VALUE...
 * VALUEs are the keys' columns as PostgreSQL text, WIDTH per key. The source password
 * comes from $FLOE_SOURCE_PASSWORD. Prints the result's state and detail.
 */
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"
#include "bronze/bronze.h"
#include "config/config.h"
#include "state/state.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	floe_config *config = NULL;
	floe_state *state = NULL;
	floe_arena *arena = floe_arena_new();
	floe_bronze_result r;
	floe_bronze_repair_opts o = { 0 };
	char run_id[FLOE_RUN_ID_MAX];
	int64_t width = 0;
	int argi = 4, rc = 2;
	if (argc < 4 || floe_text_parse_int64(&width, argv[3], strlen(argv[3]), 1, 64) < 0) {
		fprintf(stderr, "usage: bronze_repair PROJECT_DIR TABLE WIDTH [--snapshot NAME] VALUE...\n");
		goto cleanup;
	}
	if (argc > argi + 1 && strcmp(argv[argi], "--snapshot") == 0) {
		o.pg_snapshot = argv[argi + 1];
		argi += 2;
	}
	if ((argc - argi) % width != 0) {
		fprintf(stderr, "bronze_repair: %d values are not keys of width %lld\n", argc - argi, (long long)width);
		goto cleanup;
	}
	if (floe_config_load(&config, floe_arena_printf(arena, "%s/floe.toml", argv[1])) < 0 ||
	    floe_state_open(&state, config->project_dir) < 0 || floe_state_run_begin(state, "repair", run_id) < 0)
		goto failed;
	o.run_id = run_id;
	o.keys = (const char *const *)argv + argi;
	o.n_keys = (size_t)((argc - argi) / width);
	rc = floe_bronze_repair(&r, arena, config, argv[2], &o) < 0 ? 1 : 0;
	floe_state_run_end(state, run_id, rc ? FLOE_RUN_FAILED : FLOE_RUN_OK);
	printf("%s %s\n", floe_table_state_name(r.state), r.error ? r.error : r.detail ? r.detail : "");
	goto cleanup;
failed:
	rc = 1;
	fprintf(stderr, "bronze_repair: %s\n", floe_error_last() ? floe_error_last()->message : "failed");
cleanup:
	floe_state_close(state);
	floe_config_free(config);
	floe_arena_free(arena);
	return rc;
}
