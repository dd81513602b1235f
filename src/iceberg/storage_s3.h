/*
 * storage_s3.h — the `s3` storage backend: tables on an S3-compatible object store
 * (`s3://bucket/prefix`), requests signed with AWS Signature V4 by libcurl (src/net).
 * Semantics are storage.h's: a writer publishes on close (a conditional PUT, or a
 * multipart upload completed with `If-None-Match: *`), a failed or aborted one leaves
 * nothing (its multipart upload aborted); reads are ranged GETs; list is ListObjectsV2.
 */
#ifndef FLOE_ICEBERG_STORAGE_S3_H
#define FLOE_ICEBERG_STORAGE_S3_H

#include "iceberg/storage.h"

/*
 * What x-amz-content-sha256 carries ([warehouse] payload-signing, docs/storage.md): the body's
 * SHA-256 (signed payload: the signature covers the bytes), or UNSIGNED-PAYLOAD with a
 * Content-MD5 the store checks instead (TLS protects the bytes in transit). AUTO: unsigned over
 * https, signed over plain http — what the AWS SDKs do for S3.
 */
typedef enum floe_iceberg_s3_signing {
	FLOE_S3_SIGN_AUTO = 0,
	FLOE_S3_SIGN_ALWAYS,
	FLOE_S3_SIGN_NEVER,
} floe_iceberg_s3_signing;

typedef struct floe_iceberg_s3_opts {
	const char *location;          /* the warehouse, "s3://bucket/prefix" */
	const char *endpoint;          /* "http(s)://host[:port]"; NULL: AWS, https://s3.<region>.amazonaws.com */
	const char *region;            /* NULL: "us-east-1" */
	bool path_style;               /* http://host/bucket/key rather than http://bucket.host/key */
	const char *access_key_env;    /* names of environment variables (never the values) */
	const char *secret_key_env;
	const char *session_token_env; /* NULL: none */
	int attempts;                  /* per request; 0: 8 */
	size_t part_size;              /* multipart part size; 0: 8 MiB (at least 5 MiB) */
	int parts_in_flight;           /* parts uploaded at once while the next fills; 0: 1 (at most 8) */
	long backoff_base_ms;          /* first retry's ceiling; 0: 100 ms (doubling, capped at 5 s) */
	floe_iceberg_s3_signing payload_signing;
	const char *ca_file;           /* PEM certificates to trust for an https endpoint; NULL: the system's */
} floe_iceberg_s3_opts;

/*
 * An S3 storage over `opts`, the credentials read now from the variables it names: a
 * missing or empty one fails (FLOE_ERR_CONFIG) naming the variable, never showing a value.
 * The values are registered as secrets (scrubbed from output).
 */
int floe_iceberg_storage_s3(floe_iceberg_storage **out, const floe_iceberg_s3_opts *opts);

/* Whether a storage over `opts` sends UNSIGNED-PAYLOAD (and Content-MD5) rather than the SHA-256. */
bool floe_iceberg_s3_payload_unsigned(const floe_iceberg_s3_opts *opts);

/* What an engine (DuckDB's httpfs) needs to read the objects of an S3 storage; borrowed. */
typedef struct floe_iceberg_s3_access {
	const char *endpoint;  /* "http(s)://host[:port]" */
	const char *region;
	bool path_style;
	const char *key_id, *secret, *session_token; /* session_token may be NULL */
	const char *ca_file;   /* NULL: the system's trust store */
} floe_iceberg_s3_access;

/* 1 and *out when `s` is an S3 storage, else 0. */
int floe_iceberg_storage_s3_access(floe_iceberg_storage *s, floe_iceberg_s3_access *out);

/*
 * Route a warehouse to S3, for the process: SQL catalogs opened with warehouse directory
 * `warehouse_dir` (its SQLite file stays there) put and find their tables at
 * opts->location on S3 instead (opts copied). The CLI calls it once after reading
 * floe.toml; NULL `opts` removes the route.
 */
void floe_iceberg_storage_route_s3(const char *warehouse_dir, const floe_iceberg_s3_opts *opts);

/* The routed warehouse directory, or NULL. Borrowed until the route changes. */
const char *floe_iceberg_storage_routed_dir_s3(void);

/* The route for `warehouse_dir`, or NULL. Borrowed until the route changes. */
const floe_iceberg_s3_opts *floe_iceberg_storage_routed_s3(const char *warehouse_dir);

#endif
