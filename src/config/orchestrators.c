/*
 * orchestrators.c — [orchestrators] in floe.toml → floe_config_orchestrators (see
 * orchestrators.h): two booleans, each checked where it is written.
 */
#include "config/orchestrators.h"
#include "config/config.h"
#include "base/error.h"
#include "config/toml.h"

static int refuse(const char *path, const floe_toml_value *v, const char *what)
{
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", path, floe_toml_line(v), floe_toml_col(v), what);
	floe_error_hint("[orchestrators] takes `airflow = true|false` and `dagster = true|false` "
			"(both true by default); see docs/airflow.md.");
	return -1;
}

int floe_config_orchestrators_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return refuse(path, section, "`orchestrators` must be a table ([orchestrators])");
	for (size_t i = 0; i < floe_toml_count(section); i++) {
		floe_slice key = floe_toml_key_at(section, i);
		const floe_toml_value *v = floe_toml_value_at(section, i);
		bool *slot = floe_slice_eq_cstr(key, "airflow")   ? &config->orchestrators.airflow
			     : floe_slice_eq_cstr(key, "dagster") ? &config->orchestrators.dagster
								  : NULL;
		if (!slot)
			return refuse(path, v, "unknown key in [orchestrators]");
		if (floe_toml_type_of(v) != FLOE_TOML_BOOL)
			return refuse(path, v, "an orchestrator is switched on or off with true or false");
		*slot = floe_toml_bool(v);
	}
	return 0;
}
