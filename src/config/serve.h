/*
 * serve.h — floe.toml's [serve]: how `floe serve` listens (docs/console.md "Who is let in").
 * Parsed by serve.c when config.c meets the section; the command line's --listen,
 * --tls-cert, --tls-key and --insecure-http win over it.
 *
 *   [serve]
 *   listen = "0.0.0.0:9464"       # default 127.0.0.1:9464
 *   tls-cert = "certs/serve.pem"  # PEM, relative to the project; with tls-key
 *   tls-key = "certs/serve.key"
 *   insecure-http = false         # true: beyond loopback without TLS (a proxy terminates it)
 */
#ifndef FLOE_CONFIG_SERVE_H
#define FLOE_CONFIG_SERVE_H

#include <stdbool.h>

typedef struct floe_toml_value floe_toml_value;
typedef struct floe_config floe_config;

typedef struct floe_config_serve {
	const char *listen;     /* NULL: the default */
	const char *tls_cert;   /* as written; a relative path is relative to the project; NULL: none */
	const char *tls_key;
	bool insecure_http;
} floe_config_serve;

/* Read [serve] into config->serve (the config's arena). Errors: FLOE_ERR_CONFIG with file:line:col. */
int floe_config_serve_load(floe_config *config, const char *path, const floe_toml_value *section);

#endif
