/*
 * owner.c — a bronze table knows which source table it mirrors: the table
 * properties floe.source-schema and floe.source-table, set when floe creates it.
 * Every load checks them, so no plan — generated, edited by hand or left over from
 * a version that let two tables share a name — loads one source table into
 * another's Iceberg table. A table made before the properties existed is claimed
 * by its first load.
 */
#include "bronze/bronze_int.h"
#include "base/error.h"

#include <string.h>

#define PROP_SCHEMA "floe.source-schema"
#define PROP_TABLE "floe.source-table"

size_t bronze_owner_properties(floe_iceberg_kv *out, const floe_lock_table *t)
{
	out[0] = (floe_iceberg_kv){ PROP_SCHEMA, t->schema };
	out[1] = (floe_iceberg_kv){ PROP_TABLE, t->name };
	return 2;
}

int bronze_owner_check(floe_iceberg_table *table, const floe_lock_table *t)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(table);
	const char *schema = floe_iceberg_metadata_property(m, PROP_SCHEMA);
	const char *name = floe_iceberg_metadata_property(m, PROP_TABLE);
	floe_iceberg_kv props[2];
	if (!schema && !name) {
		if (floe_iceberg_table_set_properties(table, props, bronze_owner_properties(props, t), NULL, 0) < 0)
			return floe_error_context("while recording %s.%s as the source of %s", t->schema, t->name,
						  t->bronze);
		return 0;
	}
	if (schema && name && strcmp(schema, t->schema) == 0 && strcmp(name, t->name) == 0)
		return 0;
	floe_error_set(FLOE_ERR_CONFIG, "%s holds the rows of %s.%s, not of %s.%s", t->bronze, schema ? schema : "?",
		       name ? name : "?", t->schema, t->name);
	floe_error_detail("Its table properties %s and %s name the source table it mirrors; floe never loads "
			  "one source table into another's bronze table.", PROP_SCHEMA, PROP_TABLE);
	floe_error_hint("Run `floe generate`: the plan refuses a table whose bronze name another table owns.");
	return -1;
}
