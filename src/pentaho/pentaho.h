/*
 * pentaho.h — `floe pentaho translate`: Kettle transformations (.ktr) and jobs (.kjb)
 * under a directory become dbt models on silver and Dagster jobs, committed on branch
 * floe/pentaho/<name> of pipeline/ with a coverage report (docs/pentaho.md).
 *
 * Nothing is run and nothing is merged: merging the branch is the approval.
 */
#ifndef FLOE_PENTAHO_PENTAHO_H
#define FLOE_PENTAHO_PENTAHO_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum floe_pentaho_status {
	FLOE_PENTAHO_MAPPED = 0,   /* translated with the step's meaning */
	FLOE_PENTAHO_PARTIAL,      /* translated, with a `-- floe: check` marker saying what may differ */
	FLOE_PENTAHO_UNMAPPED      /* not translated: a failing placeholder keeps the DAG connected */
} floe_pentaho_status;

const char *floe_pentaho_status_name(floe_pentaho_status s); /* "mapped", "partial", "unmapped" */

typedef struct floe_pentaho_step_result {
	const char *file;          /* relative to DIR */
	const char *name;
	const char *type;          /* Kettle's step id, or a job entry's type */
	bool entry;                /* a .kjb entry (else a .ktr step) */
	floe_pentaho_status status;
	const char *reason;        /* NULL when mapped */
} floe_pentaho_step_result;

typedef struct floe_pentaho_file_result {
	const char *rel;
	bool is_job;
	const char *error;         /* NULL: read and translated; else why it could not be read */
	size_t n_outputs;          /* models (.ktr) or Dagster jobs (.kjb) written */
} floe_pentaho_file_result;

typedef struct floe_pentaho_check {
	const char *path;          /* the model, relative to pipeline/ */
	size_t line;
	const char *text;          /* the marker line, without the leading "-- floe: check " */
} floe_pentaho_check;

typedef struct floe_pentaho_out_file {
	const char *path;          /* relative to pipeline/ */
	const char *content;
} floe_pentaho_out_file;

typedef struct floe_pentaho_result floe_pentaho_result;
struct floe_pentaho_result {
	struct floe_arena *arena;  /* owns everything below */
	const char *name;          /* the translation's name (branch floe/pentaho/<name>) */
	const char *dir;
	const char *branch;
	char commit[41];           /* the commit on the branch; "" when nothing was committed */
	floe_pentaho_step_result *steps;
	size_t n_steps;
	floe_pentaho_file_result *files;
	size_t n_files;
	floe_pentaho_check *checks;
	size_t n_checks;
	floe_pentaho_out_file *out;
	size_t n_out;
	size_t cap_steps, cap_files, cap_checks, cap_out;
};

typedef struct floe_pentaho_opts {
	const char *dir;           /* the Kettle files */
	const char *pipeline_dir;  /* the pipeline repository (pipeline/) */
	const char *name;          /* NULL: DIR's base name */
	const char *project;       /* floe's project name (the Dagster package floe_<project>) */
	bool commit;               /* false: translate and report only */
} floe_pentaho_opts;

#define FLOE_PENTAHO_OPTS_INIT { .commit = true }

/*
 * Translate every .ktr and .kjb under opts->dir (files that cannot be read are listed with
 * the reason, not fatal) and commit models, jobs and the report on floe/pentaho/<name>.
 */
int floe_pentaho_translate(floe_pentaho_result **out, const floe_pentaho_opts *opts);
void floe_pentaho_result_free(floe_pentaho_result *r);

/* The report: Markdown (proposals/pentaho-<name>.md) and JSON (--json, proposals/pentaho-<name>.json). */
int floe_pentaho_render_markdown(floe_buf *out, const floe_pentaho_result *r);
int floe_pentaho_render_json(floe_buf *out, const floe_pentaho_result *r);

/*
 * The latest report of translation `name`, as committed on branch floe/pentaho/<name> of
 * the repository at `pipeline_dir`: its JSON appended to `out`. Reads only; writes nothing.
 * FLOE_ERR_CONFIG when there is no such translation. (What the MCP tool
 * floe_pentaho_translation returns.)
 */
int floe_pentaho_report_read(floe_buf *out, const char *pipeline_dir, const char *name);

#endif
