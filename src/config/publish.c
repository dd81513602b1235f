/*
 * publish.c — [publish] in floe.toml → floe_config_publish (see publish.h). Every value
 * is checked where it is written; messages carry file:line:col.
 */
#include "config/publish.h"
#include "config/config.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/toml.h"

#include <stdarg.h>
#include <string.h>

#define PUBLISH_KEYS "host, port, database, schema, user, password-env, grants, lock-timeout"

typedef struct reader {
	floe_arena *arena;
	const char *path;
} reader;

static int bad(reader *r, const floe_toml_value *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(reader *r, const floe_toml_value *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = floe_arena_vprintf(r->arena, fmt, ap);
	va_end(ap);
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", r->path, floe_toml_line(v), floe_toml_col(v), msg);
	floe_error_hint("See docs/publish.md for [publish]'s keys: " PUBLISH_KEYS ".");
	return -1;
}

static int text(reader *r, const char **out, const floe_toml_value *v, const char *key)
{
	if (floe_toml_type_of(v) != FLOE_TOML_STRING)
		return bad(r, v, "`publish.%s` must be a string, not %s", key, floe_toml_type_name(floe_toml_type_of(v)));
	floe_slice s = floe_toml_string(v);
	if (s.len == 0 || memchr(s.ptr, '\0', s.len))
		return bad(r, v, "`publish.%s` must be a non-empty string without NUL", key);
	*out = floe_arena_strndup(r->arena, s.ptr, s.len);
	return 0;
}

static bool env_name_ok(const char *s)
{
	if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

static int grants_of(reader *r, floe_config_publish *p, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_ARRAY)
		return bad(r, v, "`publish.grants` must be an array of role names");
	p->n_grants = floe_toml_count(v);
	p->grants = floe_arena_alloc(r->arena, sizeof(char *) * (p->n_grants + 1));
	for (size_t i = 0; i < p->n_grants; i++)
		if (text(r, &p->grants[i], floe_toml_value_at(v, i), "grants") < 0)
			return -1;
	return 0;
}

static int port_of(reader *r, floe_config_publish *p, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_INTEGER || floe_toml_int(v) < 1 || floe_toml_int(v) > 65535)
		return bad(r, v, "`publish.port` must be a port number from 1 to 65535");
	p->port = (int)floe_toml_int(v);
	return 0;
}

static int lock_timeout_of(reader *r, floe_config_publish *p, const floe_toml_value *v)
{
	const char *s = NULL;
	if (text(r, &s, v, "lock-timeout") < 0)
		return -1;
	int64_t seconds = floe_config_parse_duration(s);
	if (seconds < 1 || seconds > 3600)
		return bad(r, v, "`publish.lock-timeout` = \"%s\" is not a duration from 1s to 1h, e.g. \"10s\"", s);
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
			return text(r, (const char **)((char *)p + strings[i].offset), v, strings[i].name);
	if (floe_slice_eq_cstr(key, "port"))
		return port_of(r, p, v);
	if (floe_slice_eq_cstr(key, "grants"))
		return grants_of(r, p, v);
	if (floe_slice_eq_cstr(key, "lock-timeout"))
		return lock_timeout_of(r, p, v);
	return bad(r, v, "unknown key `%.*s` in [publish]", (int)key.len, key.ptr);
}

int floe_config_publish_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	reader r = { config->arena, path };
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return bad(&r, section, "`publish` must be a table ([publish])");
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
	if (!env_name_ok(p->password_env))
		return bad(&r, section, "`publish.password-env` must name an environment variable (letters, digits, _)");
	const char *missing = !p->database ? "database" : !p->user ? "user" : NULL;
	if (missing)
		return bad(&r, section, "[publish] has no `%s`, and floe cannot guess it", missing);
	config->publish = p;
	return 0;
}
