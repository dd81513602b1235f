/*
 * config.h — floe.toml as a typed model.
 *
 * floe_config_load() parses the file with floe's own TOML parser (toml.h), checks
 * every key against the known shape (DESIGN.md "floe.toml"), fills defaults, and
 * reports the first problem as "FILE:LINE:COL: what — why" with a suggestion for
 * a misspelt key. The model never holds a credential: only the names of the
 * environment variables that do.
 *
 * The struct is a plain read-only model owned by the floe_config handle's arena.
 */
#ifndef FLOE_CONFIG_CONFIG_H
#define FLOE_CONFIG_CONFIG_H

#include "base/buf.h"
#include "config/orchestrators.h"
#include "base/secret.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

typedef struct floe_string_list {
	const char **items;
	size_t count;
} floe_string_list;

/* An ordered string → string map (e.g. [watermarks], [silver.pii]). */
typedef struct floe_string_map {
	const char **keys;
	const char **values;
	size_t count;
} floe_string_map;

typedef struct floe_config_source {
	const char *host;           /* default "127.0.0.1" */
	int port;                   /* default 5432 */
	const char *database;       /* required */
	const char *user;           /* required */
	const char *password_env;   /* default "FLOE_SOURCE_PASSWORD" */
	const char *sslmode;        /* default "prefer" */
	int64_t lock_timeout_seconds; /* "lock-timeout", default 60; 0: wait for a lock as long as it takes */
	floe_string_list schemas;   /* default ["public"] */
	floe_string_list exclude;   /* "schema.table" entries */
} floe_config_source;

typedef struct floe_config_warehouse {
	const char *location;       /* default "warehouse", relative to the project */
	const char *dir;            /* location resolved once by floe_config_parse (floe_config_warehouse_dir) */
	const char *catalog;        /* "sql" (the default and, for now, the only one) */
	const char *schedule;       /* cron, default "0 * * * *" */
	/* location = "s3://bucket/prefix" (docs/storage.md): the store and the names of the
	   variables holding its credentials (never the values) */
	const char *endpoint;       /* NULL: AWS */
	const char *region;         /* NULL: us-east-1 */
	bool path_style;
	const char *access_key_env; /* default "AWS_ACCESS_KEY_ID" */
	const char *secret_key_env; /* default "AWS_SECRET_ACCESS_KEY" */
	const char *session_token_env; /* NULL: none */
	const char *payload_signing; /* "payload-signing": "auto" (default: unsigned over https), "always", "never" */
	const char *ca_file;        /* "ca-file": PEM certificates to trust for an https endpoint; NULL: the system's */
	int64_t part_size_mb;       /* "part-size-mb": multipart part size, 5..5120; 0: the backend's (8) */
	int64_t parts_in_flight;    /* "parts-in-flight": parts uploaded at once, 1..8; 0: the backend's */
	int zstd_level;             /* "zstd-level" of the Parquet data files floe writes, 1..19; 0: the writer's default */
	int64_t keep_snapshots;     /* "keep-snapshots": expire all but the newest N after loads; 0: off */
	int64_t keep_days;          /* "keep-days": expire snapshots older than N days after loads; 0: off */
} floe_config_warehouse;

/* [compaction] (docs/merge-on-read.md): when a load compacts its table afterwards. */
typedef struct floe_config_compaction {
	int64_t delete_files;       /* "delete-files": live position delete files, default 10 */
	int64_t small_files;        /* "small-files": files under a quarter of target-file-rows, default 20 */
	bool after_run;             /* "after-run": check after each load, default true */
} floe_config_compaction;

typedef struct floe_config_bronze {
	int64_t late_window_seconds; /* "late-window", default 300 (5 minutes) */
	int64_t target_file_rows;    /* "target-file-rows" of keyed tables, default 262144 */
	bool cdc;                    /* "cdc": every keyed table by change data capture (config/cdc.h) */

	int64_t parallel;            /* "parallel": connections reading one table's full load, default 1 (scale.h) */
	const struct floe_config_bronze_table *tables; /* [bronze.tables."schema.table"] (scale.h) */
	size_t n_tables;
	const char *write_mode;      /* "write-mode" of incremental loads: "copy-on-write" or
				      * "merge-on-read" (docs/merge-on-read.md); NULL when unset:
				      * merge-on-read */
	floe_string_map write_modes; /* [bronze.write-modes] "schema.table" → a write mode */
} floe_config_bronze;

typedef struct floe_config_silver {
	floe_string_list history;   /* tables with SCD2 history */
	floe_string_map pii;        /* "schema.table.column" → "hmac" | "null" */
	const char *pii_key_env;    /* default "FLOE_PII_KEY" */
} floe_config_silver;

typedef struct floe_config_alerts {
	const char *webhook_env;    /* default "FLOE_ALERT_WEBHOOK" */
	const char *otlp_endpoint;  /* default "" (off) */
	const char *format;         /* "slack" (default), "teams" or "pagerduty" */
	const char *routing_key_env; /* pagerduty: default "FLOE_PAGERDUTY_ROUTING_KEY" */
} floe_config_alerts;

typedef struct floe_config {
	const char *path;           /* the file read, as given */
	const char *project_dir;    /* absolute directory holding floe.toml */
	const char *project_name;   /* default: the directory's name */
	floe_config_source source;
	floe_config_warehouse warehouse;
	floe_string_map watermarks; /* "schema.table" → column */
	floe_config_bronze bronze;
	floe_config_compaction compaction;
	floe_config_silver silver;
	floe_string_map policy;     /* change class → action */
	const char *git_remote;     /* default "" (no pushes) */
	floe_config_alerts alerts;
	const char *gold_model;     /* default "" (rules only) */
	const struct floe_config_publish *publish; /* [publish] (config/publish.h); NULL: not set */
	const struct floe_config_cdc *cdc;         /* [cdc] (config/cdc.h); NULL: not set */
	const struct floe_config_kafka *kafka;     /* [kafka] (config/kafka.h); NULL: not set */
	floe_config_orchestrators orchestrators;   /* [orchestrators] (config/orchestrators.h) */
	int64_t reconcile_full_every; /* [reconcile] full-every (scale.h), default 1: every bucket every run */
	const struct floe_config_schedule *schedule; /* [schedule] (schedule.h); NULL: none */
	const struct floe_config_serve *serve;       /* [serve] (serve.h); NULL: none */
	const char *gold_endpoint;  /* the model's Ollama-compatible API, default "http://127.0.0.1:11434" */
	floe_arena *arena;
} floe_config;

/* Read and check `path`. On error *out is NULL and the error chain says where. */
int floe_config_load(floe_config **out, const char *path);

/* Parse and check text already in memory; `path` names it in messages. */
int floe_config_parse(floe_config **out, const char *path, const char *text, size_t len);

void floe_config_free(floe_config *config);

/*
 * Absolute path of the warehouse directory (location resolved against the project), owned
 * by the config. Resolved once when the file is read, so load threads may call it at once.
 */
const char *floe_config_warehouse_dir(const floe_config *config);
/* Whether the tables live on S3 (location "s3://…"); the warehouse dir then holds only the catalog. */
bool floe_config_warehouse_is_s3(const floe_config *config);

/*
 * The source password: the environment variable named by password-env, else the
 * owner-only file .floe/secrets/source-password. NULL when neither is set. The
 * value is registered with base/secret.h so it never reaches output.
 */
const char *floe_config_source_password(const floe_config *config);

/*
 * The PII key floe_hmac() masks with: the value of the environment variable named by
 * [silver] pii-key-env, registered with base/secret.h so it never reaches output. When
 * [silver.pii] has an "hmac" entry, a missing or empty variable is FLOE_ERR_CONFIG (exit 2)
 * naming the variable (never a value), as is a key shorter than FLOE_CONFIG_PII_KEY_MIN
 * bytes (the secret scrubber's minimum: a shorter one could not be kept out of output):
 * call this before anything is written. Without an "hmac" entry no key is needed
 * and *out is the variable's value or NULL. `out` may be NULL (validation only).
 */
#define FLOE_CONFIG_PII_KEY_MIN FLOE_SECRET_MIN_LEN
int floe_config_pii_key(const char **out, const floe_config *config);

/* Path of the saved-password file of a project directory, appended to `out`. */
int floe_config_password_file(floe_buf *out, const char *project_dir);

/*
 * A project's layout: the names below, each given once. The paths are allocated in
 * `arena` (the caller's: load threads call these at once, and an arena is not shared).
 */
#define FLOE_PIPELINE_DIR "pipeline"           /* under the project: what `floe generate` writes */
#define FLOE_LOCK_FILE "lakehouse.lock.json"   /* in pipeline/: the deployed plan */
#define FLOE_STATE_DIR ".floe"                 /* under the project: the run ledger, locks, secrets */
#define FLOE_CATALOG_FILE "catalog.db"         /* in the warehouse: the Iceberg SQL catalog */

const char *floe_config_pipeline_dir(floe_arena *arena, const floe_config *config); /* PROJECT/pipeline */
const char *floe_config_lock_path(floe_arena *arena, const floe_config *config);    /* PROJECT/pipeline/lakehouse.lock.json */
const char *floe_config_catalog_path(floe_arena *arena, const floe_config *config); /* WAREHOUSE/catalog.db */

/* What `floe init` knows when it writes a new floe.toml. */
typedef struct floe_config_seed {
	const char *project_name;
	const char *host;
	int port;
	const char *database;
	const char *user;
	const char *password_env;
	floe_string_list schemas;
	const char *discovery_note; /* comment after `schemas`, e.g. "discovered: public (9 tables)" */
} floe_config_seed;

/* A complete, commented floe.toml for `seed`, appended to `out`; it parses back to `seed`. */
int floe_config_render_initial(floe_buf *out, const floe_config_seed *seed);

/*
 * A duration: an integer and a unit — "90s", "5m", "2h", "1d", or with words
 * ("5 minutes", "1 hour") — as seconds. -1 when the text is not one.
 */
int64_t floe_config_parse_duration(const char *text);

/* `s` as a TOML basic string, quotes included. */
int floe_config_put_toml_string(floe_buf *out, const char *s);

#endif
