/*
 * evolve.c — a silver table's schema brought to the lock's silver columns before a build.
 *
 * The lock's silver columns carry the bronze columns' field ids, so a column keeps its id
 * through renames: by id, a column the lock no longer has is deleted (its id never reused),
 * one renamed is renamed, one widened (int→long, float→double, a wider decimal) is widened,
 * and one new is added with its id. Any other change of type fails naming the column: the
 * table would need rebuilding under a new id, which a person decides.
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "iceberg/metadata.h"

#include <string.h>

static const floe_iceberg_field *by_id(const floe_iceberg_schema *s, int32_t id)
{
	for (size_t i = 0; i < s->n_fields; i++)
		if (s->fields[i].id == id)
			return &s->fields[i];
	return NULL;
}

static floe_iceberg_schema_change *push(floe_arena *a, floe_iceberg_schema_change **items, size_t *n, size_t *cap,
					floe_iceberg_change_kind kind, const char *name)
{
	floe_iceberg_schema_change *ch = FLOE_ARENA_PUSH(a, *items, *n, *cap);
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->name = name;
	return ch;
}

int silver_align_schema(floe_iceberg_table *t, floe_arena *a, const floe_iceberg_schema *want)
{
	const floe_iceberg_schema *cur = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(t));
	floe_iceberg_schema_change *ch = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < cur->n_fields; i++)
		if (!by_id(want, cur->fields[i].id))
			push(a, &ch, &n, &cap, FLOE_ICEBERG_DELETE_COLUMN, cur->fields[i].name);
	for (size_t i = 0; i < want->n_fields; i++) {
		const floe_iceberg_field *w = &want->fields[i], *c = by_id(cur, w->id);
		if (!c) {
			floe_iceberg_schema_change *add = push(a, &ch, &n, &cap, FLOE_ICEBERG_ADD_COLUMN, w->name);
			add->type = w->type, add->doc = w->doc, add->id = w->id;
			continue;
		}
		if (strcmp(c->name, w->name) != 0)
			push(a, &ch, &n, &cap, FLOE_ICEBERG_RENAME_COLUMN, c->name)->new_name = w->name;
		if (floe_iceberg_type_equal(c->type, w->type))
			continue;
		if (!floe_iceberg_type_promotable(c->type, w->type)) {
			floe_error_set(FLOE_ERR_CONFIG, "column \"%s\" of %s changed type from %s to %s", w->name,
				       floe_iceberg_table_name(t), floe_iceberg_type_string(a, c->type),
				       floe_iceberg_type_string(a, w->type));
			floe_error_hint("Iceberg can widen a column but not change its type: the silver table needs a new "
					"column (a new field id) — regenerate the plan, or drop the silver table to rebuild it.");
			return -1;
		}
		push(a, &ch, &n, &cap, FLOE_ICEBERG_WIDEN_COLUMN, w->name)->type = w->type;
	}
	if (n == 0)
		return 0;
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	if (floe_iceberg_table_update_schema(t, ch, n, &o) < 0)
		return floe_error_context("while bringing %s to the lock's silver columns", floe_iceberg_table_name(t));
	return 1;
}
