/*
 * rest.h — the Iceberg REST catalog (Apache Iceberg's REST OpenAPI specification) over
 * floe's own catalog: the SQLite JDBC-schema catalog every floe command writes, through
 * src/iceberg, so a commit here and a `floe run` go through one compare-and-swap and never
 * lose each other's snapshots.
 *
 * This module knows HTTP only as a method, a path, query parameters and a body: `floe
 * serve` mounts it under /iceberg (src/server/rest.c) and the fuzz target calls it
 * directly. It answers with a status and a JSON body in the specification's shapes; errors
 * are its error model {"error":{"message","type","code"}}. It opens the catalog per
 * request and keeps no state between requests, so requests may run concurrently.
 */
#ifndef FLOE_REST_REST_H
#define FLOE_REST_REST_H

#include "base/buf.h"

#include <stddef.h>

typedef struct floe_rest_request {
	const char *method; /* "GET", "HEAD", "POST", "DELETE", … */
	const char *path;   /* below the mount point, decoded: "/v1/namespaces/bronze/tables" */
	/* A query parameter's decoded value, or NULL. */
	const char *(*query)(void *ctx, const char *name);
	void *query_ctx;
	const char *body;   /* may be NULL when body_len is 0 */
	size_t body_len;
} floe_rest_request;

typedef struct floe_rest_opts {
	const char *catalog_path; /* the SQLite catalog file */
	const char *warehouse;    /* where new tables go (a directory or URI); NULL: the catalog's dir */
} floe_rest_opts;

typedef struct floe_rest_response {
	int status;      /* 200, 204, 400, 404, 406, 409, 500 … */
	floe_buf body;   /* JSON (empty for 204 and HEAD) */
} floe_rest_response;

/* Answer one request. Never fails: internal errors become a 500 with the error model. */
void floe_rest_handle(floe_rest_response *res, const floe_rest_request *req,
		      const floe_rest_opts *opts);

/* "application/json" */
#define FLOE_REST_CONTENT_TYPE "application/json"

#endif
