/*
 * config.c — floe.toml → floe_config: shape checks, defaults, positions in errors.
 *
 * The known shape is data (the key_spec tables below), so the checker, the
 * "did you mean" suggestions and the defaults all read from one place.
 */
#include "config/config.h"
#include "config/policy.h"
#include "config/schedule.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/secret.h"
#include "base/text.h"
#include "config/toml.h"
#include "config/publish.h"
#include "config/cdc.h"
#include "config/scale.h"
#include "config/kafka.h"
#include "config/serve.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CONFIG_MAX_BYTES (4u << 20)

typedef enum key_kind {
	KEY_STRING,
	KEY_PORT,
	KEY_DURATION,                    /* a string such as "5m", as int64 seconds */
	KEY_ROWS,                        /* a positive integer, int64 */
	KEY_ZSTD_LEVEL,                  /* an integer 1..19, int */
	KEY_STRING_LIST,
	KEY_STRING_MAP,
	KEY_BOOL,
	KEY_TABLE,
	KEY_SECTION                      /* a section parsed by its own file (src/config/<section>.c) */
} key_kind;

/* Returns NULL when `value` is acceptable, else what was expected. */
typedef const char *(*value_check)(const char *value);

typedef struct key_spec {
	const char *name;
	key_kind kind;
	size_t offset;                   /* into floe_config */
	const struct key_spec *children; /* KEY_TABLE */
	value_check check;               /* strings, list items, map values */
	value_check check_key;           /* map keys */
} key_spec;

/* Sections parsed in files of their own (config/<section>.c). */
static const struct own_section {
	const char *name;
	int (*load)(floe_config *config, const char *path, const floe_toml_value *section);
} own_sections[] = {
	{ "publish", floe_config_publish_load },
	{ "cdc", floe_config_cdc_load },
	{ "orchestrators", floe_config_orchestrators_load },
	{ "reconcile", floe_config_reconcile_load },       /* scale.c */
	{ "bronze.parallel", floe_config_parallel_load },
	{ "bronze.tables", floe_config_bronze_tables_load },
	{ "kafka", floe_config_kafka_load },
	{ "serve", floe_config_serve_load },
};

/* Whether `key` in `section` (NULL: the root) is the own section `name` ("bronze.tables"). */
static bool own_is(const char *section, floe_slice key, const char *name)
{
	size_t n = section ? strlen(section) : 0;
	if (!section && strchr(name, '.'))
		return false;
	if (section && (strncmp(name, section, n) != 0 || name[n] != '.'))
		return false;
	return floe_slice_eq_cstr(key, section ? name + n + 1 : name);
}

typedef struct load_ctx {
	floe_config *config;
	const char *path;
} load_ctx;

static const char *check_catalog(const char *v)
{
	return strcmp(v, "sql") == 0 || strcmp(v, "rest") == 0 ? NULL : "`sql` (`rest` is planned, not built yet)";
}

/*
 * Values the shape knows but nothing acts on yet. Accepting one would leave floe silently doing
 * something else (the SQLite catalog for `catalog = "rest"`), so each is refused where written.
 */
static const struct planned_value {
	const char *key, *value, *why, *hint;
} planned_values[] = {
	{ "warehouse.catalog", "rest", "the REST catalog is planned, not built yet",
	  "Use `catalog = \"sql\"` (the SQLite catalog in the warehouse directory), or remove the key." },
};

static const char *check_pii_action(const char *v)
{
	return strcmp(v, "hmac") == 0 || strcmp(v, "null") == 0 ? NULL : "`hmac` or `null`";
}

static const char *check_sslmode(const char *v)
{
	static const char *const modes[] = { "disable", "allow", "prefer", "require",
					     "verify-ca", "verify-full", NULL };
	for (const char *const *m = modes; *m; m++)
		if (strcmp(v, *m) == 0)
			return NULL;
	return "one of disable, allow, prefer, require, verify-ca, verify-full";
}

static int count_dots(const char *v)
{
	int n = 0;
	for (; *v; v++)
		n += *v == '.';
	return n;
}

static const char *check_nonempty(const char *v)
{
	return v[0] ? NULL : "a non-empty string";
}

static const char *check_qualified_table(const char *v)
{
	return count_dots(v) == 1 && v[0] != '.' && v[strlen(v) - 1] != '.' ? NULL
		: "a table as `schema.table`";
}

static const char *check_qualified_column(const char *v)
{
	return count_dots(v) == 2 && v[0] != '.' && v[strlen(v) - 1] != '.' ? NULL
		: "a column as `schema.table.column`";
}

static const char *check_env_name(const char *v)
{
	if (!v[0] || (v[0] >= '0' && v[0] <= '9'))
		return "an environment variable name (letters, digits, _)";
	for (const char *p = v; *p; p++) {
		char c = *p;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return "an environment variable name (letters, digits, _)";
	}
	return NULL;
}

static const char *check_endpoint(const char *v)
{
	return strncmp(v, "http://", 7) == 0 || strncmp(v, "https://", 8) == 0 ? NULL
	       : "a URL starting with http:// or https://";
}

static const char *check_cron(const char *v)
{
	/* Five whitespace-separated fields of cron characters; the scheduler checks ranges. */
	int fields = 0, in_field = 0;
	for (const char *p = v; *p; p++) {
		if (*p == ' ' || *p == '\t') {
			in_field = 0;
			continue;
		}
		if (!strchr("0123456789*/,-", *p))
			return "a cron schedule of five fields, e.g. \"0 * * * *\"";
		if (!in_field)
			fields++;
		in_field = 1;
	}
	return fields == 5 ? NULL : "a cron schedule of five fields, e.g. \"0 * * * *\"";
}

static const char *check_alert_format(const char *v)
{
	return strcmp(v, "slack") == 0 || strcmp(v, "teams") == 0 || strcmp(v, "pagerduty") == 0
		       ? NULL : "`slack`, `teams` or `pagerduty`";
}

static const char *check_absolute_path(const char *v)
{
	return v[0] == '/' ? NULL : "an absolute path";
}

static const char *check_payload_signing(const char *v)
{
	return strcmp(v, "auto") == 0 || strcmp(v, "always") == 0 || strcmp(v, "never") == 0
		       ? NULL : "`auto`, `always` or `never`";
}

static const char *check_write_mode(const char *v)
{
	return strcmp(v, "copy-on-write") == 0 || strcmp(v, "merge-on-read") == 0
		       ? NULL : "`copy-on-write` or `merge-on-read`";
}

#define AT(field) offsetof(floe_config, field)

static const key_spec project_keys[] = {
	{ "name", KEY_STRING, AT(project_name), NULL, check_nonempty, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec source_keys[] = {
	{ "host", KEY_STRING, AT(source.host), NULL, check_nonempty, NULL },
	{ "port", KEY_PORT, AT(source.port), NULL, NULL, NULL },
	{ "database", KEY_STRING, AT(source.database), NULL, check_nonempty, NULL },
	{ "user", KEY_STRING, AT(source.user), NULL, check_nonempty, NULL },
	{ "password-env", KEY_STRING, AT(source.password_env), NULL, check_env_name, NULL },
	{ "sslmode", KEY_STRING, AT(source.sslmode), NULL, check_sslmode, NULL },
	{ "lock-timeout", KEY_DURATION, AT(source.lock_timeout_seconds), NULL, NULL, NULL },
	{ "schemas", KEY_STRING_LIST, AT(source.schemas), NULL, check_nonempty, NULL },
	{ "exclude", KEY_STRING_LIST, AT(source.exclude), NULL, check_qualified_table, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec warehouse_keys[] = {
	{ "location", KEY_STRING, AT(warehouse.location), NULL, check_nonempty, NULL },
	{ "catalog", KEY_STRING, AT(warehouse.catalog), NULL, check_catalog, NULL },
	{ "schedule", KEY_STRING, AT(warehouse.schedule), NULL, check_cron, NULL },
	/* S3 warehouses (location = "s3://bucket/prefix"; docs/storage.md) */
	{ "endpoint", KEY_STRING, AT(warehouse.endpoint), NULL, check_endpoint, NULL },
	{ "region", KEY_STRING, AT(warehouse.region), NULL, check_nonempty, NULL },
	{ "path-style", KEY_BOOL, AT(warehouse.path_style), NULL, NULL, NULL },
	{ "access-key-env", KEY_STRING, AT(warehouse.access_key_env), NULL, check_env_name, NULL },
	{ "secret-key-env", KEY_STRING, AT(warehouse.secret_key_env), NULL, check_env_name, NULL },
	{ "session-token-env", KEY_STRING, AT(warehouse.session_token_env), NULL, check_env_name, NULL },
	{ "payload-signing", KEY_STRING, AT(warehouse.payload_signing), NULL, check_payload_signing, NULL },
	{ "part-size-mb", KEY_ROWS, AT(warehouse.part_size_mb), NULL, NULL, NULL },
	{ "ca-file", KEY_STRING, AT(warehouse.ca_file), NULL, check_absolute_path, NULL },
	{ "parts-in-flight", KEY_ROWS, AT(warehouse.parts_in_flight), NULL, NULL, NULL },
	{ "zstd-level", KEY_ZSTD_LEVEL, AT(warehouse.zstd_level), NULL, NULL, NULL },
	{ "keep-snapshots", KEY_ROWS, AT(warehouse.keep_snapshots), NULL, NULL, NULL },
	{ "keep-days", KEY_ROWS, AT(warehouse.keep_days), NULL, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec compaction_keys[] = {
	{ "delete-files", KEY_ROWS, AT(compaction.delete_files), NULL, NULL, NULL },
	{ "small-files", KEY_ROWS, AT(compaction.small_files), NULL, NULL, NULL },
	{ "after-run", KEY_BOOL, AT(compaction.after_run), NULL, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec bronze_keys[] = {
	{ "late-window", KEY_DURATION, AT(bronze.late_window_seconds), NULL, NULL, NULL },
	{ "target-file-rows", KEY_ROWS, AT(bronze.target_file_rows), NULL, NULL, NULL },
	{ "cdc", KEY_BOOL, AT(bronze.cdc), NULL, NULL, NULL },
	{ "write-mode", KEY_STRING, AT(bronze.write_mode), NULL, check_write_mode, NULL },
	{ "write-modes", KEY_STRING_MAP, AT(bronze.write_modes), NULL, check_write_mode, check_qualified_table },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec silver_keys[] = {
	{ "history", KEY_STRING_LIST, AT(silver.history), NULL, check_qualified_table, NULL },
	{ "pii", KEY_STRING_MAP, AT(silver.pii), NULL, check_pii_action, check_qualified_column },
	{ "pii-key-env", KEY_STRING, AT(silver.pii_key_env), NULL, check_env_name, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec git_keys[] = {
	{ "remote", KEY_STRING, AT(git_remote), NULL, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec alerts_keys[] = {
	{ "webhook-env", KEY_STRING, AT(alerts.webhook_env), NULL, check_env_name, NULL },
	{ "otlp-endpoint", KEY_STRING, AT(alerts.otlp_endpoint), NULL, NULL, NULL },
	{ "format", KEY_STRING, AT(alerts.format), NULL, check_alert_format, NULL },
	{ "routing-key-env", KEY_STRING, AT(alerts.routing_key_env), NULL, check_env_name, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec gold_keys[] = {
	{ "model", KEY_STRING, AT(gold_model), NULL, NULL, NULL },
	{ "endpoint", KEY_STRING, AT(gold_endpoint), NULL, check_nonempty, NULL },
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static const key_spec root_keys[] = {
	{ "project", KEY_TABLE, 0, project_keys, NULL, NULL },
	{ "source", KEY_TABLE, 0, source_keys, NULL, NULL },
	{ "warehouse", KEY_TABLE, 0, warehouse_keys, NULL, NULL },
	{ "watermarks", KEY_STRING_MAP, AT(watermarks), NULL, check_nonempty, check_qualified_table },
	{ "bronze", KEY_TABLE, 0, bronze_keys, NULL, NULL },
	{ "compaction", KEY_TABLE, 0, compaction_keys, NULL, NULL },
	{ "silver", KEY_TABLE, 0, silver_keys, NULL, NULL },
	{ "policy", KEY_STRING_MAP, AT(policy), NULL, floe_policy_action_problem, floe_policy_class_problem },
	{ "git", KEY_TABLE, 0, git_keys, NULL, NULL },
	{ "alerts", KEY_TABLE, 0, alerts_keys, NULL, NULL },
	{ "gold", KEY_TABLE, 0, gold_keys, NULL, NULL },
	{ "schedule", KEY_SECTION, 0, NULL, NULL, NULL }, /* schedule.c */
	{ NULL, 0, 0, NULL, NULL, NULL },
};

static int config_error(load_ctx *ctx, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int config_error(load_ctx *ctx, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = floe_arena_vprintf(ctx->config->arena, fmt, ap);
	va_end(ap);
	return floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", ctx->path, line, col, msg);
}

static void *field_at(floe_config *config, size_t offset)
{
	return (char *)config + offset;
}

static const char *dotted(load_ctx *ctx, const char *section, const char *key)
{
	return section ? floe_arena_printf(ctx->config->arena, "%s.%s", section, key) : key;
}

/*
 * A TOML string or key as an arena C string. TOML allows "\u0000", but no value
 * floe.toml names can hold NUL (PostgreSQL names, paths, variable names), and a C
 * string would end there silently: refuse it where it was written.
 */
static int text_of(load_ctx *ctx, const char **out, floe_slice s, int line, int col, const char *what)
{
	if (memchr(s.ptr, '\0', s.len)) {
		config_error(ctx, line, col, "%s holds a NUL character (\\u0000)", what);
		floe_error_hint("Remove the \\u0000 escape: no name, path or variable floe.toml "
				"gives can contain NUL, and floe would read only the part before it.");
		return -1;
	}
	*out = floe_arena_strndup(ctx->config->arena, s.ptr, s.len);
	return 0;
}

static int expect_type(load_ctx *ctx, const floe_toml_value *v, floe_toml_type want,
		       const char *name, const char *what)
{
	if (floe_toml_type_of(v) == want)
		return 0;
	const char *got = floe_toml_type_name(floe_toml_type_of(v));
	return config_error(ctx, floe_toml_line(v), floe_toml_col(v), "`%s` must be %s, not %s %s", name,
			    what, strchr("aeiou", got[0]) ? "an" : "a", got);
}

/* Refuse `name` = `s` (the value `v`) when it is one of planned_values. */
static int refuse_planned(load_ctx *ctx, const floe_toml_value *v, const char *name, const char *s)
{
	for (size_t i = 0; i < sizeof(planned_values) / sizeof(planned_values[0]); i++) {
		const struct planned_value *p = &planned_values[i];
		if (strcmp(name, p->key) == 0 && strcmp(s, p->value) == 0) {
			config_error(ctx, floe_toml_line(v), floe_toml_col(v), "`%s` = \"%s\" is refused: %s",
				     name, s, p->why);
			floe_error_hint("%s", p->hint);
			return -1;
		}
	}
	return 0;
}

static int checked_string(load_ctx *ctx, const char **out, const floe_toml_value *v,
			  const char *name, value_check check)
{
	if (expect_type(ctx, v, FLOE_TOML_STRING, name, "a string") < 0)
		return -1;
	const char *s = NULL;
	if (text_of(ctx, &s, floe_toml_string(v), floe_toml_line(v), floe_toml_col(v),
		    floe_arena_printf(ctx->config->arena, "`%s`", name)) < 0)
		return -1;
	const char *want = check ? check(s) : NULL;
	if (want)
		return config_error(ctx, floe_toml_line(v), floe_toml_col(v),
				    "`%s` = \"%s\" is not valid: expected %s", name, s, want);
	if (refuse_planned(ctx, v, name, s) < 0)
		return -1;
	*out = s;
	return 0;
}

/* An integer from lo to hi (`what` names it in the error: "a port number " or ""). */
static int load_int(load_ctx *ctx, int64_t *out, const floe_toml_value *v, const char *name,
		    int64_t lo, int64_t hi, const char *what)
{
	if (expect_type(ctx, v, FLOE_TOML_INTEGER, name, "an integer") < 0)
		return -1;
	int64_t x = floe_toml_int(v);
	if (x < lo || x > hi)
		return config_error(ctx, floe_toml_line(v), floe_toml_col(v),
				    "`%s` = %lld is out of range: expected %sfrom %lld to %lld", name,
				    (long long)x, what, (long long)lo, (long long)hi);
	*out = x;
	return 0;
}

static int load_port(load_ctx *ctx, int *out, const floe_toml_value *v, const char *name)
{
	int64_t port;
	if (load_int(ctx, &port, v, name, 1, 65535, "a port number ") < 0)
		return -1;
	*out = (int)port;
	return 0;
}

int64_t floe_config_parse_duration(const char *text)
{
	static const struct { const char *unit; int64_t seconds; } units[] = {
		{ "s", 1 }, { "sec", 1 }, { "second", 1 }, { "seconds", 1 },
		{ "m", 60 }, { "min", 60 }, { "minute", 60 }, { "minutes", 60 },
		{ "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
		{ "d", 86400 }, { "day", 86400 }, { "days", 86400 },
	};
	const char *p = text;
	int64_t n = 0;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > INT64_C(1) << 40)
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (*p == ' ')
		p++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(p, units[i].unit) == 0)
			return n * units[i].seconds;
	return -1;
}

static int load_duration(load_ctx *ctx, int64_t *out, const floe_toml_value *v, const char *name)
{
	if (expect_type(ctx, v, FLOE_TOML_STRING, name, "a duration such as \"5m\"") < 0)
		return -1;
	const char *s = NULL;
	if (text_of(ctx, &s, floe_toml_string(v), floe_toml_line(v), floe_toml_col(v),
		    floe_arena_printf(ctx->config->arena, "`%s`", name)) < 0)
		return -1;
	int64_t seconds = floe_config_parse_duration(s);
	if (seconds < 0)
		return config_error(ctx, floe_toml_line(v), floe_toml_col(v),
				    "`%s` = \"%s\" is not a duration: expected a number and a unit "
				    "(s, m, h, d), e.g. \"5m\"", name, s);
	*out = seconds;
	return 0;
}

static int load_rows(load_ctx *ctx, int64_t *out, const floe_toml_value *v, const char *name)
{
	return load_int(ctx, out, v, name, 1, INT32_MAX, "");
}

static int load_zstd_level(load_ctx *ctx, int *out, const floe_toml_value *v, const char *name)
{
	int64_t level;
	if (load_int(ctx, &level, v, name, 1, 19, "") < 0)
		return -1;
	*out = (int)level;
	return 0;
}

static int load_list(load_ctx *ctx, floe_string_list *out, const floe_toml_value *v,
		     const char *name, value_check check)
{
	if (expect_type(ctx, v, FLOE_TOML_ARRAY, name, "an array of strings") < 0)
		return -1;
	size_t n = floe_toml_count(v);
	out->items = floe_arena_alloc(ctx->config->arena, (n + 1) * sizeof(char *));
	out->count = n;
	for (size_t i = 0; i < n; i++) {
		const char *item_name = floe_arena_printf(ctx->config->arena, "%s[%zu]", name, i);
		if (checked_string(ctx, &out->items[i], floe_toml_value_at(v, i), item_name, check) < 0)
			return -1;
	}
	return 0;
}

static int load_map(load_ctx *ctx, floe_string_map *out, const floe_toml_value *v,
		    const char *name, const key_spec *spec)
{
	if (expect_type(ctx, v, FLOE_TOML_TABLE, name, "a table") < 0)
		return -1;
	size_t n = floe_toml_count(v);
	out->keys = floe_arena_alloc(ctx->config->arena, (n + 1) * sizeof(char *));
	out->values = floe_arena_alloc(ctx->config->arena, (n + 1) * sizeof(char *));
	out->count = n;
	for (size_t i = 0; i < n; i++) {
		const char *k = NULL;
		if (text_of(ctx, &k, floe_toml_key_at(v, i), floe_toml_key_line_at(v, i),
			    floe_toml_key_col_at(v, i), floe_arena_printf(ctx->config->arena,
									  "a key in [%s]", name)) < 0)
			return -1;
		const char *want = spec->check_key ? spec->check_key(k) : NULL;
		if (want)
			return config_error(ctx, floe_toml_key_line_at(v, i), floe_toml_key_col_at(v, i),
					    "key \"%s\" in [%s] is not valid: expected %s", k, name, want);
		out->keys[i] = k;
		const char *value_name = floe_arena_printf(ctx->config->arena, "%s.\"%s\"", name, k);
		if (checked_string(ctx, &out->values[i], floe_toml_value_at(v, i), value_name, spec->check) < 0)
			return -1;
	}
	return 0;
}

static int unknown_key(load_ctx *ctx, const floe_toml_value *table, size_t i, const char *section,
		       const key_spec *specs)
{
	const char *names[32];
	size_t n = 0;
	for (const key_spec *s = specs; s->name && n < 31; s++)
		names[n++] = s->name;
	names[n] = NULL;
	int line = floe_toml_key_line_at(table, i), col = floe_toml_key_col_at(table, i);
	const char *where = section ? floe_arena_printf(ctx->config->arena, " in [%s]", section) : "";
	const char *k = NULL;
	if (text_of(ctx, &k, floe_toml_key_at(table, i), line, col,
		    floe_arena_printf(ctx->config->arena, "a key%s", where)) < 0)
		return -1;
	const char *near = floe_text_suggest(k, names);
	if (near)
		config_error(ctx, line, col, "unknown key `%s`%s — did you mean `%s`?", k, where, near);
	else
		config_error(ctx, line, col, "unknown key `%s`%s", k, where);
	floe_buf known = FLOE_BUF_INIT;
	for (size_t j = 0; j < n; j++)
		floe_buf_printf(&known, "%s%s", j ? ", " : "", names[j]);
	floe_error_hint("Known keys%s: %s.", where, floe_buf_cstr(&known));
	floe_buf_free(&known);
	return -1;
}

static int load_table(load_ctx *ctx, const floe_toml_value *table, const char *section,
		      const key_spec *specs);

static int load_key(load_ctx *ctx, const key_spec *spec, const floe_toml_value *v, const char *section)
{
	const char *name = dotted(ctx, section, spec->name);
	void *field = field_at(ctx->config, spec->offset);
	switch (spec->kind) {
	case KEY_STRING:
		return checked_string(ctx, (const char **)field, v, name, spec->check);
	case KEY_PORT:
		return load_port(ctx, (int *)field, v, name);
	case KEY_DURATION:
		return load_duration(ctx, (int64_t *)field, v, name);
	case KEY_ROWS:
		return load_rows(ctx, (int64_t *)field, v, name);
	case KEY_ZSTD_LEVEL:
		return load_zstd_level(ctx, (int *)field, v, name);
	case KEY_STRING_LIST:
		return load_list(ctx, (floe_string_list *)field, v, name, spec->check);
	case KEY_STRING_MAP:
		return load_map(ctx, (floe_string_map *)field, v, name, spec);
	case KEY_BOOL:
		if (expect_type(ctx, v, FLOE_TOML_BOOL, name, "true or false") < 0)
			return -1;
		*(bool *)field = floe_toml_bool(v);
		return 0;
	case KEY_TABLE:
		if (expect_type(ctx, v, FLOE_TOML_TABLE, name, "a table") < 0)
			return -1;
		return load_table(ctx, v, name, spec->children);
	case KEY_SECTION:
		return 0;
	}
	return -1;
}

static int load_table(load_ctx *ctx, const floe_toml_value *table, const char *section,
		      const key_spec *specs)
{
	size_t n = floe_toml_count(table);
	for (size_t i = 0; i < n; i++) {
		floe_slice key = floe_toml_key_at(table, i);
		const key_spec *spec = NULL;
		const struct own_section *own = NULL;
		for (size_t k = 0; k < sizeof(own_sections) / sizeof(own_sections[0]); k++)
			own = own_is(section, key, own_sections[k].name) ? &own_sections[k] : own;
		if (own) {
			if (own->load(ctx->config, ctx->path, floe_toml_value_at(table, i)) < 0)
				return -1;
			continue;
		}
		for (const key_spec *s = specs; s->name; s++)
			if (floe_slice_eq_cstr(key, s->name))
				spec = s;
		if (!spec)
			return unknown_key(ctx, table, i, section, specs);
		if (load_key(ctx, spec, floe_toml_value_at(table, i), section) < 0)
			return -1;
	}
	return 0;
}

static void set_defaults(floe_config *c)
{
	static const char *default_schemas[] = { "public", NULL };
	c->source.host = "127.0.0.1";
	c->source.port = 5432;
	c->source.password_env = "FLOE_SOURCE_PASSWORD";
	c->source.sslmode = "prefer";
	c->source.lock_timeout_seconds = 60;
	c->source.schemas.items = default_schemas;
	c->source.schemas.count = 1;
	c->warehouse.location = "warehouse";
	c->warehouse.catalog = "sql";
	c->warehouse.schedule = "0 * * * *";
	c->warehouse.access_key_env = "AWS_ACCESS_KEY_ID";
	c->warehouse.secret_key_env = "AWS_SECRET_ACCESS_KEY";
	c->warehouse.payload_signing = "auto";
	c->bronze.late_window_seconds = 300;
	c->bronze.target_file_rows = 262144;
	c->bronze.parallel = 1;
	c->reconcile_full_every = 1;
	c->bronze.write_mode = NULL; /* unset: merge-on-read (mor.c) */
	c->compaction.delete_files = 10;
	c->compaction.small_files = 20;
	c->compaction.after_run = true;
	c->silver.pii_key_env = "FLOE_PII_KEY";
	c->git_remote = "";
	c->alerts.webhook_env = "FLOE_ALERT_WEBHOOK";
	c->alerts.otlp_endpoint = "";
	c->alerts.format = "slack";
	c->alerts.routing_key_env = "FLOE_PAGERDUTY_ROUTING_KEY";
	c->gold_model = "";
	c->orchestrators = (floe_config_orchestrators)FLOE_CONFIG_ORCHESTRATORS_INIT;
	c->gold_endpoint = "http://127.0.0.1:11434";
}

static int check_required(load_ctx *ctx, const floe_toml_value *root)
{
	const floe_toml_value *source = floe_toml_get(root, "source");
	const char *missing = !ctx->config->source.database ? "database"
			      : !ctx->config->source.user   ? "user"
							    : NULL;
	if (!missing)
		return 0;
	int line = source ? floe_toml_line(source) : 1, col = source ? floe_toml_col(source) : 1;
	config_error(ctx, line, col, "[source] has no `%s`, and floe cannot guess it", missing);
	floe_error_hint("Add `%s = \"...\"` under [source], or run `floe init --source HOST:PORT/DB "
			"--source-user USER` to write it.", missing);
	return -1;
}

static int set_project_paths(floe_config *c, const char *path)
{
	floe_buf abs = FLOE_BUF_INIT;
	if (floe_fs_absolute(&abs, path) < 0)
		return -1;
	char *slash = strrchr(abs.ptr, '/');
	c->project_dir = slash == abs.ptr ? "/" : floe_arena_strndup(c->arena, abs.ptr, (size_t)(slash - abs.ptr));
	if (!c->project_name) {
		const char *dir = c->project_dir;
		const char *base = strrchr(dir, '/');
		c->project_name = floe_arena_strdup(c->arena, base && base[1] ? base + 1 : "floe");
	}
	floe_buf_free(&abs);
	return 0;
}

int floe_config_parse(floe_config **out, const char *path, const char *text, size_t len)
{
	floe_config *c = NULL;
	floe_toml_doc *doc = NULL;
	floe_toml_error terr;
	int error = -1;
	floe_arena *arena = floe_arena_new();

	*out = NULL;
	c = floe_arena_alloc(arena, sizeof(*c));
	c->arena = arena;
	c->path = floe_arena_strdup(arena, path);
	set_defaults(c);
	load_ctx ctx = { c, c->path };

	if (floe_toml_parse(&doc, text, len, &terr) < 0) {
		config_error(&ctx, terr.line, terr.col, "%s", terr.message);
		floe_error_hint("floe.toml is TOML 1.0; see docs/configuration.md for its keys.");
		goto cleanup;
	}
	const floe_toml_value *root = floe_toml_root(doc);
	if (load_table(&ctx, root, NULL, root_keys) < 0 || check_required(&ctx, root) < 0 ||
	    floe_config_schedule_parse(c, floe_toml_get(root, "schedule")) < 0 ||
	    set_project_paths(c, path) < 0)
		goto cleanup;
	c->warehouse.dir = floe_config_warehouse_dir(c);
	*out = c;
	c = NULL;
	error = 0;
cleanup:
	floe_toml_free(doc);
	if (c)
		floe_arena_free(arena);
	return error;
}

/* A directory or a file too large to be a floe.toml is the user's to fix (exit 2), not an I/O failure. */
static int check_config_file(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) /* reading it says why */
		return 0;
	if (S_ISDIR(st.st_mode)) {
		floe_error_set(FLOE_ERR_CONFIG, "configuration file \"%s\" is a directory", path);
		floe_error_hint("Pass the file itself with --config FILE, or the project with -C DIR.");
		return -1;
	}
	if (st.st_size > (off_t)CONFIG_MAX_BYTES) {
		floe_error_set(FLOE_ERR_CONFIG, "configuration file \"%s\" is %lld bytes, more than "
			       "the %u floe reads", path, (long long)st.st_size, CONFIG_MAX_BYTES);
		floe_error_detail("floe.toml holds settings and names only; a file this large is not one.");
		floe_error_hint("Check that --config names floe.toml, and trim the file.");
		return -1;
	}
	return 0;
}

int floe_config_load(floe_config **out, const char *path)
{
	floe_buf text;
	floe_buf_init(&text, CONFIG_MAX_BYTES);
	int error = -1;
	*out = NULL;
	if (check_config_file(path) < 0)
		goto cleanup;
	if (floe_fs_read_file(&text, path) < 0) {
		if (!floe_fs_exists(path))
			floe_error_hint("Run `floe init` to create one, or pass `--config FILE`.");
		floe_error_context("while reading the configuration");
		goto cleanup;
	}
	error = floe_config_parse(out, path, text.ptr ? text.ptr : "", text.len);
cleanup:
	floe_buf_free(&text);
	return error;
}

void floe_config_free(floe_config *config)
{
	if (config)
		floe_arena_free(config->arena);
}

const char *floe_config_warehouse_dir(const floe_config *config)
{
	const char *loc = config->warehouse.location;
	if (config->warehouse.dir)
		return config->warehouse.dir;
	if (floe_config_warehouse_is_s3(config))
		loc = "warehouse"; /* the SQLite catalog stays in the project */
	if (loc[0] == '/')
		return loc;
	return floe_arena_printf(config->arena, "%s/%s", config->project_dir, loc);
}

bool floe_config_warehouse_is_s3(const floe_config *config)
{
	return strncmp(config->warehouse.location, "s3://", 5) == 0;
}

/* Whether some [silver.pii] entry masks with "hmac". */
static bool masks_with_hmac(const floe_config *config)
{
	for (size_t i = 0; i < config->silver.pii.count; i++)
		if (strcmp(config->silver.pii.values[i], "hmac") == 0)
			return true;
	return false;
}

static void key_hint(const char *name)
{
	floe_error_hint("Set %s to a secret of at least 32 random characters (for example "
			"`openssl rand -hex 32`) and keep it: masked values join only under one key.", name);
}

int floe_config_pii_key(const char **out, const floe_config *config)
{
	const char *name = config->silver.pii_key_env, *key = getenv(name);
	bool needed = masks_with_hmac(config);
	if (out)
		*out = NULL;
	if (!key || !key[0]) {
		if (!needed)
			return 0;
		floe_error_set(FLOE_ERR_CONFIG, "environment variable %s is %s", name, key ? "empty" : "not set");
		floe_error_detail("[silver.pii] in %s masks columns with hmac, keyed by the secret in %s "
				  "([silver] pii-key-env).", config->path, name);
		key_hint(name);
		return -1;
	}
	if (needed && strlen(key) < FLOE_CONFIG_PII_KEY_MIN) {
		floe_error_set(FLOE_ERR_CONFIG, "the PII key in %s is too short (%zu bytes, at least %d)", name,
			       strlen(key), FLOE_CONFIG_PII_KEY_MIN);
		key_hint(name);
		return -1;
	}
	floe_secret_register(key);
	if (out)
		*out = key;
	return 0;
}

int floe_config_password_file(floe_buf *out, const char *project_dir)
{
	return floe_buf_printf(out, "%s/" FLOE_STATE_DIR "/secrets/source-password", project_dir);
}

const char *floe_config_pipeline_dir(floe_arena *arena, const floe_config *config)
{
	return floe_arena_printf(arena, "%s/" FLOE_PIPELINE_DIR, config->project_dir);
}

const char *floe_config_lock_path(floe_arena *arena, const floe_config *config)
{
	return floe_arena_printf(arena, "%s/" FLOE_PIPELINE_DIR "/" FLOE_LOCK_FILE, config->project_dir);
}

const char *floe_config_catalog_path(floe_arena *arena, const floe_config *config)
{
	return floe_arena_printf(arena, "%s/" FLOE_CATALOG_FILE, floe_config_warehouse_dir(config));
}

/* A secrets file others can read is not trusted (like ssh and libpq's .pgpass). */
static bool private_file(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return false;
	if (st.st_mode & 077) {
		floe_log_warn("ignoring \"%s\": it is readable by others (mode %04o); "
			      "run `chmod 600` on it to use it", path, (unsigned)(st.st_mode & 07777));
		return false;
	}
	return true;
}

const char *floe_config_source_password(const floe_config *config)
{
	const char *env = getenv(config->source.password_env);
	if (env && env[0]) {
		floe_secret_register(env);
		return env;
	}
	floe_buf path = FLOE_BUF_INIT, value = FLOE_BUF_INIT;
	const char *result = NULL;
	floe_config_password_file(&path, config->project_dir);
	if (private_file(path.ptr) && floe_fs_read_file(&value, path.ptr) == 0) {
		while (value.len && (value.ptr[value.len - 1] == '\n' || value.ptr[value.len - 1] == '\r'))
			value.ptr[--value.len] = '\0';
		result = floe_arena_strndup(config->arena, floe_buf_cstr(&value), value.len);
		floe_secret_register(result);
		floe_log_info("using the password saved in %s", path.ptr);
	}
	floe_error_clear();
	floe_buf_free(&path);
	floe_buf_free(&value);
	return result;
}
