/*
 * cdc.c — [cdc] in floe.toml → floe_config_cdc (see cdc.h). Every value is checked where
 * it is written; messages carry file:line:col.
 */
#include "config/cdc.h"
#include "config/config.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"
#include "config/toml.h"

#include <stdarg.h>
#include <string.h>

#define CDC_KEYS "tables, create-slot, create-publication, max-retained-wal, follow-interval-ms, " \
	"follow-index-mb, follow-reconcile-seconds"

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
	floe_error_hint("See docs/cdc.md for [cdc]'s keys: " CDC_KEYS ".");
	return -1;
}

static int tables_of(reader *r, floe_config_cdc *c, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_ARRAY)
		return bad(r, v, "`cdc.tables` must be an array of tables as \"schema.table\"");
	c->n_tables = floe_toml_count(v);
	c->tables = floe_arena_alloc(r->arena, sizeof(char *) * (c->n_tables + 1));
	for (size_t i = 0; i < c->n_tables; i++) {
		const floe_toml_value *t = floe_toml_value_at(v, i);
		floe_slice s = floe_toml_type_of(t) == FLOE_TOML_STRING ? floe_toml_string(t) : (floe_slice){ NULL, 0 };
		const char *dot = s.ptr ? memchr(s.ptr, '.', s.len) : NULL;
		if (!dot || dot == s.ptr || dot == s.ptr + s.len - 1 || memchr(dot + 1, '.', s.len - (size_t)(dot - s.ptr) - 1) ||
		    memchr(s.ptr, '\0', s.len))
			return bad(r, t, "`cdc.tables` entries must be tables as \"schema.table\"");
		c->tables[i] = floe_arena_strndup(r->arena, s.ptr, s.len);
	}
	return 0;
}

/* "512MB", "1GB", "200kB", "4096" (bytes), units of 1024 as PostgreSQL's. */
static int size_of(reader *r, int64_t *out, const floe_toml_value *v)
{
	static const struct { const char *unit; int shift; } units[] = {
		{ "", 0 }, { "B", 0 }, { "kB", 10 }, { "KB", 10 }, { "MB", 20 }, { "GB", 30 }, { "TB", 40 },
	};
	floe_slice s = floe_toml_type_of(v) == FLOE_TOML_STRING ? floe_toml_string(v) : (floe_slice){ NULL, 0 };
	size_t digits = 0;
	while (s.ptr && digits < s.len && s.ptr[digits] >= '0' && s.ptr[digits] <= '9')
		digits++;
	int64_t n = 0;
	for (size_t i = 0; digits && digits <= 12 && i < sizeof(units) / sizeof(units[0]); i++)
		if (s.len - digits == strlen(units[i].unit) && memcmp(s.ptr + digits, units[i].unit, s.len - digits) == 0 &&
		    floe_text_parse_int64(&n, s.ptr, digits, 1, INT64_MAX >> 40) == 0) {
			*out = n << units[i].shift;
			return 0;
		}
	return bad(r, v, "`cdc.max-retained-wal` must be a size such as \"1GB\" or \"512MB\"");
}

static int flag_of(reader *r, bool *out, const floe_toml_value *v, const char *key)
{
	if (floe_toml_type_of(v) != FLOE_TOML_BOOL)
		return bad(r, v, "`cdc.%s` must be true or false", key);
	*out = floe_toml_bool(v);
	return 0;
}

static int count_of(reader *r, int64_t *out, const floe_toml_value *v, const char *key, int64_t min, int64_t max)
{
	if (floe_toml_type_of(v) != FLOE_TOML_INTEGER || floe_toml_int(v) < min || floe_toml_int(v) > max)
		return bad(r, v, "`cdc.%s` must be a whole number from %lld to %lld", key, (long long)min, (long long)max);
	*out = floe_toml_int(v);
	return 0;
}

static int key_of(reader *r, floe_config_cdc *c, floe_slice key, const floe_toml_value *v)
{
	if (floe_slice_eq_cstr(key, "tables"))
		return tables_of(r, c, v);
	if (floe_slice_eq_cstr(key, "create-slot"))
		return flag_of(r, &c->create_slot, v, "create-slot");
	if (floe_slice_eq_cstr(key, "create-publication"))
		return flag_of(r, &c->create_publication, v, "create-publication");
	if (floe_slice_eq_cstr(key, "max-retained-wal"))
		return size_of(r, &c->max_retained_wal, v);
	if (floe_slice_eq_cstr(key, "follow-interval-ms"))
		return count_of(r, &c->follow_interval_ms, v, "follow-interval-ms", 1, 3600000);
	if (floe_slice_eq_cstr(key, "follow-index-mb"))
		return count_of(r, &c->follow_index_mb, v, "follow-index-mb", 0, 1 << 20);
	if (floe_slice_eq_cstr(key, "follow-reconcile-seconds"))
		return count_of(r, &c->follow_reconcile_seconds, v, "follow-reconcile-seconds", 0, 86400 * 365);
	return bad(r, v, "unknown key `%.*s` in [cdc]", (int)key.len, key.ptr);
}

int floe_config_cdc_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	reader r = { config->arena, path };
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return bad(&r, section, "`cdc` must be a table ([cdc])");
	floe_config_cdc *c = floe_arena_alloc(r.arena, sizeof(*c));
	memset(c, 0, sizeof(*c));
	c->max_retained_wal = (int64_t)1 << 30;
	c->follow_interval_ms = FLOE_CDC_FOLLOW_INTERVAL_MS;
	c->follow_index_mb = FLOE_CDC_FOLLOW_INDEX_MB;
	c->follow_reconcile_seconds = FLOE_CDC_FOLLOW_RECONCILE_SECONDS;
	c->line = floe_toml_line(section);
	for (size_t i = 0; i < floe_toml_count(section); i++)
		if (key_of(&r, c, floe_toml_key_at(section, i), floe_toml_value_at(section, i)) < 0)
			return -1;
	config->cdc = c;
	return 0;
}

bool floe_config_cdc_wants(const floe_config *config, const char *schema, const char *table)
{
	if (config->bronze.cdc)
		return true;
	size_t ls = strlen(schema);
	for (size_t i = 0; config->cdc && i < config->cdc->n_tables; i++) {
		const char *t = config->cdc->tables[i];
		if (strncmp(t, schema, ls) == 0 && t[ls] == '.' && strcmp(t + ls + 1, table) == 0)
			return true;
	}
	return false;
}
