/*
 * schedule.c — floe.toml's [schedule] (see schedule.h).
 */
#include "config/schedule.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/config.h"
#include "config/toml.h"

#include <string.h>

static int at(const floe_config *c, int line, int col, const char *msg, const char *detail)
{
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s%s", c->path, line, col, msg, detail ? detail : "");
	floe_error_hint("See docs/serve.md, \"Schedules\": layers bronze, silver, gold or a table "
			"\"schema.table\" = a five-field cron expression (UTC); retries = N; retry-delay = \"30s\".");
	return -1;
}

static bool is_target(const char *k)
{
	const char *dot = strchr(k, '.');
	return strcmp(k, "bronze") == 0 || strcmp(k, "silver") == 0 || strcmp(k, "gold") == 0 ||
	       (dot && dot != k && dot[1] && !strchr(dot + 1, '.'));
}

static int option(floe_config *c, floe_config_schedule *s, const char *k, const floe_toml_value *v)
{
	int line = floe_toml_line(v), col = floe_toml_col(v);
	if (strcmp(k, "retries") == 0) {
		if (floe_toml_type_of(v) != FLOE_TOML_INTEGER || floe_toml_int(v) < 0 || floe_toml_int(v) > 20)
			return at(c, line, col, "`schedule.retries` must be an integer from 0 to 20", NULL);
		s->retries = (int)floe_toml_int(v);
		return 0;
	}
	floe_slice text = floe_toml_type_of(v) == FLOE_TOML_STRING ? floe_toml_string(v) : (floe_slice){ 0 };
	const char *t = text.ptr ? floe_arena_strndup(c->arena, text.ptr, text.len) : "";
	s->retry_delay = floe_config_parse_duration(t);
	if (s->retry_delay < 1)
		return at(c, line, col, "`schedule.retry-delay` must be a duration such as \"30s\" or \"5m\"", NULL);
	return 0;
}

static int entry(floe_config *c, floe_config_schedule *s, const char *k, const floe_toml_value *v, int kl, int kc)
{
	if (!is_target(k))
		return at(c, kl, kc, floe_arena_printf(c->arena, "unknown key `%s` in [schedule]", k), NULL);
	if (floe_toml_type_of(v) != FLOE_TOML_STRING)
		return at(c, floe_toml_line(v), floe_toml_col(v),
			  floe_arena_printf(c->arena, "`schedule.\"%s\"` must be a cron expression in a string", k), NULL);
	floe_slice text = floe_toml_string(v);
	floe_schedule_entry *e = &s->entries[s->n_entries];
	char why[160];
	e->key = k;
	e->text = floe_arena_strndup(c->arena, text.ptr, text.len);
	if (memchr(text.ptr, '\0', text.len) || floe_cron_parse(&e->cron, e->text, why, sizeof(why)) < 0)
		return at(c, floe_toml_line(v), floe_toml_col(v),
			  floe_arena_printf(c->arena, "`schedule.\"%s\"` = \"%s\" is not a cron expression: ", k, e->text),
			  memchr(text.ptr, '\0', text.len) ? "it holds a NUL character" : why);
	s->n_entries++;
	return 0;
}

int floe_config_schedule_parse(floe_config *c, const floe_toml_value *table)
{
	if (!table)
		return 0;
	if (floe_toml_type_of(table) != FLOE_TOML_TABLE)
		return at(c, floe_toml_line(table), floe_toml_col(table), "[schedule] must be a table", NULL);
	floe_config_schedule *s = floe_arena_alloc(c->arena, sizeof(*s));
	size_t n = floe_toml_count(table);
	s->entries = floe_arena_alloc(c->arena, (n + 1) * sizeof(*s->entries));
	s->retry_delay = 30;
	for (size_t i = 0; i < n; i++) {
		floe_slice ks = floe_toml_key_at(table, i);
		const char *k = floe_arena_strndup(c->arena, ks.ptr, ks.len);
		const floe_toml_value *v = floe_toml_value_at(table, i);
		int rc = strcmp(k, "retries") == 0 || strcmp(k, "retry-delay") == 0
				 ? option(c, s, k, v)
				 : entry(c, s, k, v, floe_toml_key_line_at(table, i), floe_toml_key_col_at(table, i));
		if (rc < 0)
			return -1;
	}
	c->schedule = s;
	return 0;
}
