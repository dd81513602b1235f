/*
 * api.h — what the console's JSON API handlers share (console.c, jobs_api.c): the error
 * body of the Iceberg error model and reading a text member of a JSON request body.
 */
#ifndef FLOE_SERVER_API_H
#define FLOE_SERVER_API_H

#include "server/http.h"

#include <stdbool.h>
#include <stddef.h>

#define FLOE_API_JSON "application/json"

/* Fill res with status and {"error":{"message","type","code"}}; returns 0 (or -1 when out of room). */
int floe_server_api_error(floe_http_response *res, int status, const char *type, const char *message);

/*
 * Member `key` of the request's JSON object body as text into out (NUL-terminated); false
 * when the body is not a JSON object, the member is absent or not a string, or it does not fit.
 */
bool floe_server_api_text(char *out, size_t size, const floe_http_request *req, const char *key);

#endif
