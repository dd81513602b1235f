/*
 * airflow_dag.c — test tool: the Airflow DAG `floe generate` would write for a lock file, so a
 * test can add the gold layer's "marts" array to a lock before the gold layer writes one. Not
 * part of floe's command line.
 *
 *   airflow_dag FLOE_TOML LOCK_JSON     the DAG (floe_gen_airflow_dag) on stdout
 */
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "config/config.h"
#include "gen/gen.h"
#include "plan/lock.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	floe_config *config = NULL;
	floe_lock *lock = NULL;
	floe_buf text = FLOE_BUF_INIT, out = FLOE_BUF_INIT;
	int rc = 2;
	if (argc != 3) {
		fprintf(stderr, "usage: airflow_dag FLOE_TOML LOCK_JSON\n");
		return 2;
	}
	if (floe_config_load(&config, argv[1]) < 0 || floe_fs_read_file(&text, argv[2]) < 0 ||
	    floe_lock_parse(&lock, argv[2], text.ptr, text.len) < 0 ||
	    floe_gen_airflow_dag(&out, lock, floe_buf_cstr(&text), config) < 0) {
		floe_error_print(stderr);
		goto cleanup;
	}
	fwrite(out.ptr, 1, out.len, stdout);
	rc = 0;
cleanup:
	floe_lock_free(lock);
	floe_config_free(config);
	floe_buf_free(&text);
	floe_buf_free(&out);
	return rc;
}
