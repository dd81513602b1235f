/*
 * serve.c — [serve] in floe.toml → floe_config_serve (see serve.h).
 */
#include "config/serve.h"
#include "config/config.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/toml.h"

static int refuse(const char *path, const floe_toml_value *v, const char *what)
{
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", path, floe_toml_line(v), floe_toml_col(v), what);
	floe_error_hint("[serve] takes `listen = \"HOST:PORT\"`, `tls-cert` and `tls-key` (PEM files, both or neither) "
			"and `insecure-http = true|false`; see docs/console.md.");
	return -1;
}

static int text_of(const char **out, floe_config *config, const char *path, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_STRING || floe_toml_string(v).len == 0)
		return refuse(path, v, "expected a non-empty string");
	floe_slice s = floe_toml_string(v);
	*out = floe_arena_strndup(config->arena, s.ptr, s.len);
	return 0;
}

int floe_config_serve_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	floe_config_serve *s = floe_arena_alloc(config->arena, sizeof(*s));
	*s = (floe_config_serve){ 0 };
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return refuse(path, section, "`serve` must be a table ([serve])");
	for (size_t i = 0; i < floe_toml_count(section); i++) {
		floe_slice key = floe_toml_key_at(section, i);
		const floe_toml_value *v = floe_toml_value_at(section, i);
		int rc = 0;
		if (floe_slice_eq_cstr(key, "listen"))
			rc = text_of(&s->listen, config, path, v);
		else if (floe_slice_eq_cstr(key, "tls-cert"))
			rc = text_of(&s->tls_cert, config, path, v);
		else if (floe_slice_eq_cstr(key, "tls-key"))
			rc = text_of(&s->tls_key, config, path, v);
		else if (floe_slice_eq_cstr(key, "insecure-http") && floe_toml_type_of(v) == FLOE_TOML_BOOL)
			s->insecure_http = floe_toml_bool(v);
		else
			rc = refuse(path, v, floe_slice_eq_cstr(key, "insecure-http") ? "insecure-http is true or false"
										    : "unknown key in [serve]");
		if (rc < 0)
			return -1;
	}
	if (!s->tls_cert != !s->tls_key)
		return refuse(path, section, "tls-cert and tls-key go together");
	config->serve = s;
	return 0;
}
