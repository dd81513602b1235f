/*
 * rest_int.h — what the REST catalog's files share: the request being answered, its
 * parsed path and body, and the error model.
 */
#ifndef FLOE_REST_REST_INT_H
#define FLOE_REST_REST_INT_H

#include "base/arena.h"
#include "base/json.h"
#include "iceberg/catalog.h"
#include "rest/rest.h"

#include <stdbool.h>

#define REST_MAX_SEGMENTS 8

typedef struct rest_call {
	const floe_rest_request *req;
	const floe_rest_opts *opts;
	floe_rest_response *res;
	floe_arena *arena;
	const char *seg[REST_MAX_SEGMENTS]; /* path segments after "/v1" */
	size_t n_seg;
	const char *ns;                     /* seg[1] as a dot-joined namespace, when there is one */
	floe_json_doc *doc;                 /* the parsed body */
	floe_iceberg_catalog *catalog;      /* opened on first use */
} rest_call;

/* The error model: status, type, message (and the current error's hint, when set). Clears the error. */
void rest_error(rest_call *c, int status, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The current error chain as a response: its class picks the status and type. */
void rest_fail(rest_call *c, const char *not_found_type);

/* The catalog, opened on first use; NULL (response set) when it cannot be opened. */
floe_iceberg_catalog *rest_catalog(rest_call *c);

/* The body as a JSON object; NULL (400 set) when it is not one. */
const floe_json_value *rest_body(rest_call *c);

/* A decoded namespace path segment ("a\x1fb" or "a.b"… levels) as "a.b"; NULL (400 set) when invalid. */
const char *rest_namespace(rest_call *c, const char *segment);

/* A JSON array of strings (a namespace) as "a.b"; NULL (400 set) when it is not one. */
const char *rest_namespace_json(rest_call *c, const floe_json_value *levels);

/* `["a","b"]` for "a.b". */
void rest_put_namespace(floe_buf *out, const char *ns);

/* Does the namespace exist? -1: error response set. 0: no (404 set). 1: yes. */
int rest_require_namespace(rest_call *c, const char *ns);

/* A query parameter or NULL. */
const char *rest_query(const rest_call *c, const char *name);

/*
 * Paging (pageToken, pageSize) over n sorted items: [*from, *to). The token is the
 * offset of the next page; *next is the token to return, NULL when nothing remains.
 * false (400 set) for a token or size that is not one.
 */
bool rest_page(rest_call *c, size_t n, size_t *from, size_t *to, const char **next);

/* Handlers: each sets the response. */
void rest_namespaces(rest_call *c);
void rest_tables(rest_call *c);
void rest_rename(rest_call *c);

#endif
