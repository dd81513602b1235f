/*
 * keyfile.h — one data file's keys, in the file's row order, kept on the local disk between
 * runs: a merge-on-read bronze table's data files are sorted by key, so a load finds the rows
 * of a few thousand changed keys, and counts the rows between two keys, by binary search over
 * them instead of reading a key column of millions of rows (src/bronze/lakekeys.c).
 *
 * A key file is bound to its data file's path and row count, and holds each key column as the
 * fixed-width array a vector holds (no NULLs: a primary key's), so the caller reads it through
 * read-only vectors over the mapped file. Data files are immutable, so a key file never goes
 * stale; it leaves when its data file leaves the table (floe_keyfile_remove) or at a prune.
 *
 * On disk, under `dir` (floe_keyindex_dir), one file per data file, named by the hash of its path:
 *
 *   header   "FLOEKEY1", n_cols, path length (u32), rows, data sum, sum (u64)
 *   columns  per key column: its vector type and width (u32 each); then the data file's path
 *   data     each column's rows × width bytes, from a 64-byte boundary
 *
 * `sum` covers the header (sum 0), the column descriptions and the path; `data sum` the
 * columns' bytes: both checked when the file is opened. Integers are little-endian as this
 * machine writes them: a cache of this machine's, not fsynced; a missing, damaged or foreign
 * file is only the slower path for its caller (it reads the data file's keys again).
 */
#ifndef FLOE_KEYINDEX_KEYFILE_H
#define FLOE_KEYINDEX_KEYFILE_H

#include "vector/vector.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_keyfile floe_keyfile;

/* Whether a key column of this type can be kept in a key file (fixed width, not boolean). */
bool floe_keyfile_type_ok(floe_vec_type type);

/*
 * Write the keys of the data file at `data_path`: rows [0, keys[0]->len) of the n key columns
 * (each of a type floe_keyfile_type_ok, without NULLs; the caller has checked their order).
 * -1 with the error set when it cannot be written (`dir` is created when missing).
 */
int floe_keyfile_write(const char *dir, const char *data_path, floe_vector *const *keys, size_t n);

/*
 * The key file of the data file at `data_path` with `rows` rows, its columns of the types and
 * widths of like[0..n): checked (path, rows, columns, both sums) and mapped. NULL when there is
 * none or it is damaged or another's (no error set; *why says which, for -vv).
 */
floe_keyfile *floe_keyfile_open(const char *dir, const char *data_path, int64_t rows, floe_vector *const *like,
				size_t n, const char **why);
void floe_keyfile_free(floe_keyfile *kf);

/* Key column c as a read-only vector over the mapped file: valid until floe_keyfile_free, never freed or grown. */
floe_vector *floe_keyfile_column(floe_keyfile *kf, size_t c);

/* The key file of the data file at `data_path` removed (none: nothing done). */
void floe_keyfile_remove(const char *dir, const char *data_path);

/* Every key file under `dir` whose data file is not one of live[0..n) removed, and a killed writer's temporaries. */
void floe_keyfile_prune(const char *dir, const char *const *live, size_t n);

#endif
