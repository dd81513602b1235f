/*
 * publish.c — [publish] in floe.toml → floe_config_publish (see publish.h). Every value
 * is checked where it is written; messages carry file:line:col.
 */
#include "config/publish.h"
#include "config/config.h"
#include "config/section.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/toml.h"

#include <string.h>

#define PUBLISH_KEYS "host, port, database, schema, user, password-env, grants, lock-timeout"

typedef floe_config_reader reader;

static int grants_of(reader *r, floe_config_publish *p, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_ARRAY)
		return floe_config_bad(r, v, "`publish.grants` must be an array of role names");
	p->n_grants = floe_toml_count(v);
	p->grants = floe_arena_alloc(r->arena, sizeof(char *) * (p->n_grants + 1));
	for (size_t i = 0; i < p->n_grants; i++)
		if (floe_config_text(r, &p->grants[i], floe_toml_value_at(v, i), "grants") < 0)
			return -1;
	return 0;
}

static int port_of(reader *r, floe_config_publish *p, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_INTEGER || floe_toml_int(v) < 1 || floe_toml_int(v) > 65535)
		return floe_config_bad(r, v, "`publish.port` must be a port number from 1 to 65535");
	p->port = (int)floe_toml_int(v);
	return 0;
}

static int lock_timeout_of(reader *r, floe_config_publish *p, const floe_toml_value *v)
{
	const char *s = NULL;
	if (floe_config_text(r, &s, v, "lock-timeout") < 0)
		return -1;
	int64_t seconds = floe_config_parse_duration(s);
	if (seconds < 1 || seconds > 3600)
		return floe_config_bad(r, v, "`publish.lock-timeout` = \"%s\" is not a duration from 1s to 1h, e.g. \"10s\"", s);
	p->lock_timeout_ms = seconds * 1000;
	return 0;
}

static int key_of(reader *r, floe_config_publish *p, floe_slice key, const floe_toml_value *v)
{
	static const struct { const char *name; size_t offset; } strings[] = {
		{ "host", offsetof(floe_config_publish, host) },
		{ "database", offsetof(floe_config_publish, database) },
		{ "schema", offsetof(floe_config_publish, schema) },
		{ "user", offsetof(floe_config_publish, user) },
		{ "password-env", offsetof(floe_config_publish, password_env) },
	};
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (floe_slice_eq_cstr(key, strings[i].name))
			return floe_config_text(r, (const char **)((char *)p + strings[i].offset), v, strings[i].name);
	if (floe_slice_eq_cstr(key, "port"))
		return port_of(r, p, v);
	if (floe_slice_eq_cstr(key, "grants"))
		return grants_of(r, p, v);
	if (floe_slice_eq_cstr(key, "lock-timeout"))
		return lock_timeout_of(r, p, v);
	return floe_config_bad(r, v, "unknown key `%.*s` in [publish]", (int)key.len, key.ptr);
}

int floe_config_publish_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	reader r = { config->arena, path, "publish", "See docs/publish.md for [publish]'s keys: " PUBLISH_KEYS "." };
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return floe_config_bad(&r, section, "`publish` must be a table ([publish])");
	floe_config_publish *p = floe_arena_alloc(r.arena, sizeof(*p));
	memset(p, 0, sizeof(*p));
	p->host = "127.0.0.1";
	p->port = 5432;
	p->schema = "public";
	p->password_env = "FLOE_PUBLISH_PASSWORD";
	p->lock_timeout_ms = 10000;
	p->line = floe_toml_line(section);
	for (size_t i = 0; i < floe_toml_count(section); i++)
		if (key_of(&r, p, floe_toml_key_at(section, i), floe_toml_value_at(section, i)) < 0)
			return -1;
	if (!floe_config_env_name_ok(p->password_env))
		return floe_config_bad(&r, section, "`publish.password-env` must name an environment variable (letters, digits, _)");
	const char *missing = !p->database ? "database" : !p->user ? "user" : NULL;
	if (missing)
		return floe_config_bad(&r, section, "[publish] has no `%s`, and floe cannot guess it", missing);
	config->publish = p;
	return 0;
}
