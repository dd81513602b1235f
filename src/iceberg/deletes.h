/*
 * deletes.h — Iceberg v2 position delete files (merge-on-read): writing them, and
 * applying them to a scan.
 *
 * A position delete file is Parquet with two required columns, `file_path` (string,
 * field id 2147483546: the data file's URI as its manifest entry spells it) and `pos`
 * (long, 2147483545: the 0-based row position in that file), sorted by path then
 * position. It deletes the row from data files whose data sequence number is at most
 * its own (spec, "Scan Planning"), so a delete committed with new data files in one
 * snapshot deletes old rows, never the new ones (those sit in other files). Bronze's also
 * carry the optional `row` (2147483544) with the deleted rows' key values, so silver learns
 * which keys a load deleted from the small delete file rather than decoding the key column
 * of every data file it deleted from. floe never writes equality deletes (common readers
 * handle them poorly).
 */
#ifndef FLOE_ICEBERG_DELETES_H
#define FLOE_ICEBERG_DELETES_H

#include "base/arena.h"
#include "iceberg/data_file.h"
#include "iceberg/table.h"
#include "format/parquet.h"
#include "vector/vector.h"

#include <stddef.h>
#include <stdint.h>

#define FLOE_ICEBERG_FIELD_FILE_PATH 2147483546
#define FLOE_ICEBERG_FIELD_POS 2147483545

typedef struct floe_iceberg_position_delete {
	const char *path; /* data file URI */
	int64_t pos;
	int64_t row;      /* with the writer's `rows`: the row of rows->cols holding the deleted row's values */
} floe_iceberg_position_delete;

#define FLOE_ICEBERG_FIELD_DELETED_ROW 2147483544

/*
 * The deleted rows' values a position delete file may carry (the spec's `row`, a required struct
 * whose fields are any subset of the table's, under the table's field ids): fields[k] is a table
 * field, cols[k] row dels[i].row its value in the row dels[i] deletes. Scalar fields only.
 */
typedef struct floe_iceberg_deleted_rows {
	const floe_parquet_field *fields;
	const floe_vector *cols;
	size_t n;
} floe_iceberg_deleted_rows;

/*
 * Write `dels` (the file's entries sorted by path, then position, duplicates dropped;
 * `dels` itself left in its order) as one position delete file in the table's data directory through its storage, with each deleted row's
 * `rows` values when given (NULL: file_path and pos only); *out describes it (content
 * POSITION_DELETES, record count, bounds), allocated in `arena`. Nothing is written for
 * n = 0 (an error: the caller skips it). A failure leaves no file.
 */
int floe_iceberg_position_deletes_write(floe_iceberg_data_file *out, floe_arena *arena,
					floe_iceberg_table *table, floe_iceberg_position_delete *dels,
					size_t n, const floe_iceberg_deleted_rows *rows);

/*
 * Whether position delete file `d` of `table` carries, in its `row`, each of the table fields
 * `ids` (n of them, flat): 1, with names[k] the name field ids[k] has in the file (a column
 * renamed since keeps its old one there); 0 when it lacks one, or has no `row`; -1 on error.
 * Reads the file's footer only.
 */
int floe_iceberg_deletes_row_names(floe_arena *arena, floe_iceberg_table *table, const floe_iceberg_scan_file *d,
				   const int32_t *ids, size_t n, const char **names);

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
