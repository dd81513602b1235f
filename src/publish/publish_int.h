/*
 * publish_int.h — what the files of src/publish share.
 */
#ifndef FLOE_PUBLISH_INT_H
#define FLOE_PUBLISH_INT_H

#include "publish/publish.h"
#include "config/publish.h"
#include "iceberg/table.h"
#include "pg/pg.h"

/* One mart on its way: the Iceberg side read, the warehouse side written. */
typedef struct publish_job {
	floe_arena *arena;
	floe_pg *pg;
	const floe_config_publish *conf;
	floe_iceberg_table *table;
	const floe_iceberg_schema *schema;
	const floe_iceberg_scan *scan;
	const char *mart;
	const char *quoted_schema;   /* "schema" quoted for SQL */
	const char *quoted_target;   /* schema.mart */
	const char *quoted_new;      /* schema.mart__floe_new */
	const char *quoted_old;      /* schema.mart__floe_old */
	const char *new_name;        /* mart__floe_new (for to_regclass) */
} publish_job;

/* read.c: CREATE TABLE's column list for the schema ("(a integer NOT NULL, b text)"); unsupported types refused. */
int publish_columns_ddl(floe_buf *out, publish_job *job);

/* read.c: every row of the scan streamed into the open COPY … FROM STDIN (FORMAT binary). */
int publish_stream_rows(publish_job *job);

/* warehouse.c */
int publish_load(long long *rows, bool *cleaned_up, publish_job *job);
int publish_swap(publish_job *job);
void publish_drop_new(publish_job *job);

#endif
