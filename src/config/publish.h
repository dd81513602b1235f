/*
 * publish.h — floe.toml's [publish]: the PostgreSQL warehouse `floe publish` copies gold
 * marts into (docs/publish.md). Parsed by publish.c when config.c meets the section.
 *
 *   [publish]
 *   host = "127.0.0.1"
 *   port = 5432
 *   database = "analytics"          # required
 *   schema = "gold"                 # default "public"; must exist
 *   user = "floe_publisher"         # required
 *   password-env = "FLOE_PUBLISH_PASSWORD"   # the variable's name, never the password
 *   grants = ["analyst", "bi_reader"]        # roles given SELECT on every published table
 *   lock-timeout = "10s"            # how long the swap waits for readers' locks
 */
#ifndef FLOE_CONFIG_PUBLISH_H
#define FLOE_CONFIG_PUBLISH_H

#include <stddef.h>
#include <stdint.h>

typedef struct floe_toml_value floe_toml_value;
typedef struct floe_config floe_config;

typedef struct floe_config_publish {
	const char *host;            /* default "127.0.0.1" (or a socket directory) */
	int port;                    /* default 5432 */
	const char *database;        /* required */
	const char *schema;          /* default "public" */
	const char *user;            /* required */
	const char *password_env;    /* default "FLOE_PUBLISH_PASSWORD" */
	const char **grants;         /* roles granted SELECT; may be empty */
	size_t n_grants;
	int64_t lock_timeout_ms;     /* "lock-timeout", default 10 s */
	int line;                    /* where [publish] is, for messages */
} floe_config_publish;

/*
 * Read [publish] (`section`, a TOML table) into config->publish, allocated in the config's
 * arena. `path` names floe.toml in messages. Errors: FLOE_ERR_CONFIG with file:line:col.
 */
int floe_config_publish_load(floe_config *config, const char *path, const floe_toml_value *section);

#endif
