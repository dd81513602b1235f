/*
 * section.c — helpers of the section parsers (see section.h).
 */
#include "config/section.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/toml.h"

#include <stdarg.h>
#include <string.h>

int floe_config_bad(const floe_config_reader *r, const floe_toml_value *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = floe_arena_vprintf(r->arena, fmt, ap);
	va_end(ap);
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", r->path, floe_toml_line(v), floe_toml_col(v), msg);
	floe_error_hint("%s", r->hint);
	return -1;
}

int floe_config_text(const floe_config_reader *r, const char **out, const floe_toml_value *v, const char *key)
{
	if (floe_toml_type_of(v) != FLOE_TOML_STRING)
		return floe_config_bad(r, v, "`%s.%s` must be a string, not %s", r->section, key,
				       floe_toml_type_name(floe_toml_type_of(v)));
	floe_slice s = floe_toml_string(v);
	if (s.len == 0 || memchr(s.ptr, '\0', s.len))
		return floe_config_bad(r, v, "`%s.%s` must be a non-empty string without NUL", r->section, key);
	*out = floe_arena_strndup(r->arena, s.ptr, s.len);
	return 0;
}

bool floe_config_env_name_ok(const char *s)
{
	if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}
