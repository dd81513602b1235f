/*
 * deletes.h — Iceberg v2 position delete files (merge-on-read): writing them, and
 * applying them to a scan.
 *
 * A position delete file is Parquet with two required columns, `file_path` (string,
 * field id 2147483546: the data file's URI as its manifest entry spells it) and `pos`
 * (long, 2147483545: the 0-based row position in that file), sorted by path then
 * position. It deletes the row from data files whose data sequence number is at most
 * its own (spec, "Scan Planning"), so a delete committed with new data files in one
 * snapshot deletes old rows, never the new ones (those sit in other files).
 * floe never writes equality deletes (common readers handle them poorly).
 */
#ifndef FLOE_ICEBERG_DELETES_H
#define FLOE_ICEBERG_DELETES_H

#include "base/arena.h"
#include "iceberg/data_file.h"
#include "iceberg/table.h"

#include <stddef.h>
#include <stdint.h>

#define FLOE_ICEBERG_FIELD_FILE_PATH 2147483546
#define FLOE_ICEBERG_FIELD_POS 2147483545

typedef struct floe_iceberg_position_delete {
	const char *path; /* data file URI */
	int64_t pos;
} floe_iceberg_position_delete;

/*
 * Write `dels` (sorted here by path, then position; duplicates dropped) as one position
 * delete file in the table's data directory through its storage; *out describes it
 * (content POSITION_DELETES, record count, bounds), allocated in `arena`. Nothing is
 * written for n = 0 (an error: the caller skips it). A failure leaves no file.
 */
int floe_iceberg_position_deletes_write(floe_iceberg_data_file *out, floe_arena *arena,
					floe_iceberg_table *table, floe_iceberg_position_delete *dels,
					size_t n);

/*
 * Read the scan's position delete files (planned by floe_iceberg_table_plan_deletes) and
 * set each data file's `deleted` positions (ascending, unique, allocated in `arena`): the
 * rows of delete files whose path is that file's and whose data sequence number is at
 * least the data file's.
 */
int floe_iceberg_scan_load_deletes(floe_arena *arena, floe_iceberg_table *table, floe_iceberg_scan *scan);

/*
 * floe_iceberg_table_plan_deletes then floe_iceberg_scan_load_deletes: the live files of a
 * snapshot with each one's deleted positions, for readers that leave those rows out.
 */
int floe_iceberg_table_plan_live(floe_iceberg_scan **out, floe_arena *arena, floe_iceberg_table *table,
				 int64_t snapshot_id);

/* Whether `pos` is among `file`'s deleted positions (binary search). */
bool floe_iceberg_scan_file_deleted(const floe_iceberg_scan_file *file, int64_t pos);

/* The rows a scan reads: data rows minus deleted positions (after floe_iceberg_scan_load_deletes). */
int64_t floe_iceberg_scan_live_rows(const floe_iceberg_scan *scan);

#endif
