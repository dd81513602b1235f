/*
 * scale.c — the keys of scale.h: [bronze] parallel, [bronze.tables."schema.table"] and
 * [reconcile] full-every, each checked where it is written.
 */
#include "config/scale.h"
#include "config/config.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/toml.h"

#include <string.h>

static int refuse(const char *path, const floe_toml_value *v, const char *what, const char *hint)
{
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", path, floe_toml_line(v), floe_toml_col(v), what);
	floe_error_hint("%s", hint);
	return -1;
}

static const char parallel_hint[] = "`parallel` is a whole number of connections from 1 to 64, in [bronze] "
				    "or [bronze.tables.\"schema.table\"]; see docs/parallel-load.md.";

static int count_of(int64_t *out, const char *path, const floe_toml_value *v, int64_t max, const char *hint)
{
	if (floe_toml_type_of(v) != FLOE_TOML_INTEGER || floe_toml_int(v) < 1 || floe_toml_int(v) > max)
		return refuse(path, v, "expected a whole number in range", hint);
	*out = floe_toml_int(v);
	return 0;
}

int floe_config_parallel_load(floe_config *config, const char *path, const floe_toml_value *v)
{
	return count_of(&config->bronze.parallel, path, v, FLOE_CONFIG_PARALLEL_MAX, parallel_hint);
}

static int table_entry(floe_config *config, floe_config_bronze_table *e, const char *path, floe_slice name,
		       const floe_toml_value *v)
{
	static const char hint[] = "A table's entry is [bronze.tables.\"schema.table\"] with `parallel = N`; "
				   "see docs/parallel-load.md.";
	const char *dot = memchr(name.ptr, '.', name.len);
	if (!dot || dot == name.ptr || dot == name.ptr + name.len - 1 || memchr(name.ptr, '\0', name.len))
		return refuse(path, v, "a table under [bronze.tables] is named \"schema.table\"", hint);
	if (floe_toml_type_of(v) != FLOE_TOML_TABLE)
		return refuse(path, v, "a table's entry under [bronze.tables] must be a table", hint);
	e->table = floe_arena_strndup(config->arena, name.ptr, name.len);
	e->parallel = 0;
	for (size_t i = 0; i < floe_toml_count(v); i++) {
		const floe_toml_value *x = floe_toml_value_at(v, i);
		if (!floe_slice_eq_cstr(floe_toml_key_at(v, i), "parallel"))
			return refuse(path, x, "unknown key in a [bronze.tables] entry (known: parallel)", hint);
		if (count_of(&e->parallel, path, x, FLOE_CONFIG_PARALLEL_MAX, parallel_hint) < 0)
			return -1;
	}
	config->bronze.n_tables++;
	return 0;
}

int floe_config_bronze_tables_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return refuse(path, section, "`bronze.tables` must be a table ([bronze.tables.\"schema.table\"])",
			      parallel_hint);
	size_t n = floe_toml_count(section);
	floe_config_bronze_table *tables = floe_arena_alloc(config->arena, (n + 1) * sizeof(*tables));
	config->bronze.tables = tables;
	config->bronze.n_tables = 0;
	for (size_t i = 0; i < n; i++)
		if (table_entry(config, &tables[i], path, floe_toml_key_at(section, i), floe_toml_value_at(section, i)) < 0)
			return -1;
	return 0;
}

int floe_config_reconcile_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	static const char hint[] = "[reconcile] takes `full-every = N` (1 to 1000; 1, the default, proves every "
				   "bucket every run); see docs/parallel-load.md.";
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return refuse(path, section, "`reconcile` must be a table ([reconcile])", hint);
	for (size_t i = 0; i < floe_toml_count(section); i++) {
		const floe_toml_value *v = floe_toml_value_at(section, i);
		if (!floe_slice_eq_cstr(floe_toml_key_at(section, i), "full-every"))
			return refuse(path, v, "unknown key in [reconcile]", hint);
		if (count_of(&config->reconcile_full_every, path, v, FLOE_CONFIG_FULL_EVERY_MAX, hint) < 0)
			return -1;
	}
	return 0;
}

int floe_config_parallel_for(const floe_config *config, const char *schema, const char *table)
{
	size_t ls = strlen(schema);
	for (size_t i = 0; i < config->bronze.n_tables; i++) {
		const floe_config_bronze_table *e = &config->bronze.tables[i];
		if (e->parallel > 0 && strncmp(e->table, schema, ls) == 0 && e->table[ls] == '.' &&
		    strcmp(e->table + ls + 1, table) == 0)
			return (int)e->parallel;
	}
	return config->bronze.parallel > 0 ? (int)config->bronze.parallel : 1;
}
