/*
 * table_int.h — the layout of a table handle and the commit machinery shared by
 * table.c, commit.c, snapshot.c, expire.c and scan.c (src/iceberg only).
 */
#ifndef FLOE_ICEBERG_TABLE_INT_H
#define FLOE_ICEBERG_TABLE_INT_H

#include "iceberg/table.h"

struct floe_iceberg_table {
	floe_iceberg_catalog *catalog; /* borrowed */
	char *ns, *name, *full_name;
	floe_arena *arena;             /* the current metadata and its location */
	floe_iceberg_metadata *metadata;
	char *metadata_location;
	bool may_have_landed;          /* the last change's commit swapped, or its outcome is unknown */
};

/* Files an attempt wrote; deleted when the attempt definitely lost. */
typedef struct written_files {
	const char **uris;
	size_t n, cap;
} written_files;

typedef struct commit_ctx {
	floe_iceberg_table *table;
	floe_arena *arena;                   /* this attempt's */
	const floe_iceberg_metadata *base;   /* the metadata the change is computed on */
	const char *base_location;
	floe_iceberg_metadata *next;         /* set by the change */
	written_files written;
	int attempt;
	const floe_iceberg_commit_opts *opts;
} commit_ctx;

typedef struct commit_change {
	const char *what;                            /* "append", for messages */
	int (*apply)(commit_ctx *c, void *op);       /* build c->next from c->base */
	void (*abandon)(floe_iceberg_table *t, void *op); /* the commit definitely failed */
	int (*after)(commit_ctx *c, void *op);       /* the commit landed (c->base is what it replaced) */
	void *op;
} commit_change;

/* Run the compare-and-swap loop for `change`. */
int floe_iceberg_commit(floe_iceberg_table *table, const commit_change *change,
			const floe_iceberg_commit_opts *opts);

/* Write `data` as a new file of the table and remember it in the attempt's list. */
int floe_iceberg_commit_write(commit_ctx *c, const char *uri, const floe_buf *data);

/* A copy of the base metadata for a change to edit, with last-updated-ms advanced. */
floe_iceberg_metadata *floe_iceberg_commit_next(commit_ctx *c);

/* A random UUID v4, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", in `arena`. */
const char *floe_iceberg_uuid(floe_arena *arena);

/* A positive random 63-bit snapshot id not used in `m`. */
int64_t floe_iceberg_new_snapshot_id(const floe_iceberg_metadata *m);

/* <location>/metadata/<name>, in `arena`. */
const char *floe_iceberg_metadata_uri(floe_arena *arena, const floe_iceberg_metadata *m,
				      const char *name);

/* The version number of a `<NNNNN>-<uuid>.metadata.json` (or vN.metadata.json) URI, or -1. */
int64_t floe_iceberg_metadata_version(const char *uri);

/* Read and parse a manifest list / manifest through the table's storage, into `arena`. */
int floe_iceberg_read_manifest_list(floe_iceberg_table *t, floe_arena *arena, const char *uri,
				    floe_iceberg_manifest_file **out, size_t *n);
int floe_iceberg_read_manifest(floe_iceberg_table *t, floe_arena *arena,
			       const floe_iceberg_manifest_file *mf,
			       floe_iceberg_manifest_entry **out, size_t *n);

/* <warehouse>/<namespace levels>/<name>, in `arena`. */
const char *floe_iceberg_table_default_location(floe_arena *arena, floe_iceberg_catalog *catalog,
						const char *ns, const char *name);

/* Write `m` as the table's first metadata file and register ns.name (the namespace must exist). */
int floe_iceberg_table_register_new(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
				    const char *ns, const char *name, floe_arena *arena,
				    const floe_iceberg_metadata *m);

/* Parse metadata text and make it the table's current state (its own arena). */
int floe_iceberg_table_adopt(floe_iceberg_table *t, const char *location, const char *text,
			     size_t len);

#endif
