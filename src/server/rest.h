/*
 * rest.h — the Iceberg REST catalog joined to `floe serve` under /iceberg (src/rest).
 */
#ifndef FLOE_SERVER_REST_H
#define FLOE_SERVER_REST_H

#include "config/config.h"
#include "server/http.h"

/* Join the routes under /iceberg/v1/; `config` must outlive the server. */
void floe_server_rest_routes(floe_http_server *server, const floe_config *config);

#endif
