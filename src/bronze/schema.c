/*
 * schema.c — the bronze table's schema follows the deployed plan.
 *
 * `floe generate` records a source's column changes in the plan
 * (pipeline/lakehouse.lock.json) with stable field ids: a renamed column keeps its
 * id, an added one gets a new id, a dropped one's id is never used again. Before a
 * load writes anything, the table in the lake is brought to the plan's columns by
 * Iceberg's schema evolution, one metadata commit, with the plan's ids: a column
 * dropped from the plan is deleted from the schema (old files keep its data), a
 * renamed one renamed, a widened one (int → long, float → double, decimal precision)
 * widened, one that became nullable made optional, a new one added. Readers map
 * columns by field id, so old files read under the new names.
 *
 * An added or widened column makes this load a full one: the table's files lack the
 * column (or hold it narrower) while the source's old rows have it — an incremental
 * load would read only the changes. A change Iceberg cannot make in place (another
 * type, a change inside a composite's fields) stops the load with the reason.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/log.h"
#include "iceberg/metadata.h"
#include "iceberg/table.h"

#include <stdarg.h>
#include <string.h>

#define TEMP_NAME "floe_renaming_" /* a rename passes through it, so two columns can swap names */
#define TEMP_DROP "floe_dropping_" /* a dropped column's name while the others change */

typedef struct changes {
	floe_iceberg_schema_change *items;
	size_t n;
	floe_buf said;                     /* what changed, for the log */
} changes;

static const floe_iceberg_field *top_field(const floe_iceberg_schema *s, int32_t id)
{
	for (size_t i = 0; i < s->n_fields; i++)
		if (s->fields[i].id == id)
			return &s->fields[i];
	return NULL;
}

static floe_iceberg_schema_change *add(changes *c, floe_iceberg_change_kind kind, const char *name)
{
	floe_iceberg_schema_change *ch = &c->items[c->n++];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->name = name;
	return ch;
}

static void say(changes *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(changes *c, const char *fmt, ...)
{
	va_list ap;
	floe_buf_puts(&c->said, c->said.len ? "; " : "");
	va_start(ap, fmt);
	floe_buf_vprintf(&c->said, fmt, ap);
	va_end(ap);
}

/* A type change the plan asks for: a widening, or the reason it cannot be made. */
static int widen(changes *c, bronze_load *l, const floe_iceberg_field *have, const floe_iceberg_field *want)
{
	floe_arena *a = l->job->arena;
	const char *from = floe_iceberg_type_string(a, have->type), *to = floe_iceberg_type_string(a, want->type);
	if (floe_iceberg_type_is_primitive(have->type) && floe_iceberg_type_promotable(have->type, want->type)) {
		add(c, FLOE_ICEBERG_WIDEN_COLUMN, have->name)->type = want->type;
		say(c, "widened \"%s\" to %s", want->name, to);
		if (!l->reload_why)
			l->reload_why = floe_arena_printf(a, "loaded in full: column \"%s\" was widened to %s (the "
							  "table's files hold it as %s)", want->name, to, from);
		return 0;
	}
	floe_error_set(FLOE_ERR_CONFIG, "%s: the plan changes column \"%s\" from %s to %s, which Iceberg cannot do in "
		       "place", l->job->table->bronze, want->name, from, to);
	floe_error_detail("Iceberg changes a column's type in place only by widening (int to long, float to "
			  "double, a decimal's precision); a composite's fields cannot change at all.");
	floe_error_hint("Reload the table under its new type: drop %s from the warehouse's catalog (for example "
			"with PyIceberg's drop_table) and run again.", l->job->table->bronze);
	return -1;
}

/* Whether the identifier fields (the primary key) are the same ids, in any order. */
static bool same_ids(const int32_t *a, size_t na, const int32_t *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		bool found = false;
		for (size_t j = 0; j < nb && !found; j++)
			found = a[i] == b[j];
		if (!found)
			return false;
	}
	return true;
}

/*
 * The table's key after the changes: the plan's key when each of its columns stays a required
 * column of the table, else none (Iceberg adds columns optional, and an identifier must be
 * required). A key that moves is set before the old key's columns are deleted.
 */
static void set_key(changes *c, bronze_load *l, const floe_iceberg_schema *cur)
{
	const floe_iceberg_schema *plan = l->cols.schema;
	bool keep = true;
	for (size_t i = 0; i < plan->n_identifier_ids && keep; i++) {
		const floe_iceberg_field *have = top_field(cur, plan->identifier_ids[i]);
		const floe_iceberg_field *want = top_field(plan, plan->identifier_ids[i]);
		keep = have && have->required && want && want->required;
	}
	if (same_ids(cur->identifier_ids, cur->n_identifier_ids, keep ? plan->identifier_ids : NULL,
		     keep ? plan->n_identifier_ids : 0))
		return;
	floe_iceberg_schema_change *ch = add(c, FLOE_ICEBERG_SET_IDENTIFIERS, NULL);
	ch->ids = keep ? plan->identifier_ids : NULL;
	ch->n_ids = keep ? plan->n_identifier_ids : 0;
	say(c, "%s", keep ? "the key set to the plan's" : "no identifier fields (the key's columns are new)");
}

/*
 * The changes that bring `cur` to the plan's schema, in an order Iceberg can apply one after
 * another: dropped columns step aside under a temporary name (a column of the same name may
 * come back), renames pass through temporary names (two columns may swap names), widenings, the
 * key, NOT NULL dropped, additions, and last the deletions.
 */
static int plan_changes(changes *c, bronze_load *l, const floe_iceberg_schema *cur)
{
	const floe_iceberg_schema *plan = l->cols.schema;
	floe_arena *a = l->job->arena;
	size_t renames = 0, drops = 0;
	const char **dropped = floe_arena_alloc(a, (cur->n_fields + 1) * sizeof(char *));
	for (size_t i = 0; i < cur->n_fields; i++)
		if (!top_field(plan, cur->fields[i].id)) {
			dropped[drops] = floe_arena_printf(a, TEMP_DROP "%d", (int)cur->fields[i].id);
			add(c, FLOE_ICEBERG_RENAME_COLUMN, cur->fields[i].name)->new_name = dropped[drops++];
			say(c, "dropped \"%s\"", cur->fields[i].name);
		}
	for (size_t i = 0; i < plan->n_fields; i++) {
		const floe_iceberg_field *want = &plan->fields[i], *have = top_field(cur, want->id);
		if (have && !floe_iceberg_type_equal(have->type, want->type) && widen(c, l, have, want) < 0)
			return -1;
		if (have && strcmp(have->name, want->name) != 0) {
			add(c, FLOE_ICEBERG_RENAME_COLUMN, have->name)->new_name =
				floe_arena_printf(a, TEMP_NAME "%d", (int)want->id);
			say(c, "renamed \"%s\" to \"%s\"", have->name, want->name);
			renames++;
		}
	}
	for (size_t i = 0; i < plan->n_fields && renames; i++) {
		const floe_iceberg_field *want = &plan->fields[i], *have = top_field(cur, want->id);
		if (have && strcmp(have->name, want->name) != 0)
			add(c, FLOE_ICEBERG_RENAME_COLUMN, floe_arena_printf(a, TEMP_NAME "%d", (int)want->id))->new_name =
				want->name;
	}
	set_key(c, l, cur); /* before NOT NULL is dropped from a column that was the key */
	for (size_t i = 0; i < plan->n_fields; i++) {
		const floe_iceberg_field *want = &plan->fields[i], *have = top_field(cur, want->id);
		if (have && have->required && !want->required) {
			add(c, FLOE_ICEBERG_MAKE_OPTIONAL, want->name);
			say(c, "made \"%s\" optional", want->name);
		} else if (!have) {
			floe_iceberg_schema_change *ch = add(c, FLOE_ICEBERG_ADD_COLUMN, want->name);
			ch->type = want->type;
			ch->doc = want->doc;
			ch->id = want->id;
			say(c, "added \"%s\"", want->name);
			if (!l->reload_why)
				l->reload_why = floe_arena_printf(a, "loaded in full: column \"%s\" was added (the table's "
								  "files lack it)", want->name);
		}
	}
	for (size_t i = 0; i < drops; i++)
		add(c, FLOE_ICEBERG_DELETE_COLUMN, dropped[i]);
	return 0;
}

int bronze_schema_follow_plan(bronze_load *l)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(l->table);
	const floe_iceberg_schema *cur = floe_iceberg_metadata_current_schema(m);
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(m);
	changes c = { NULL, 0, FLOE_BUF_INIT };
	int error = -1;
	l->expect_snapshot = snap ? m->current_snapshot_id : FLOE_ICEBERG_NO_SNAPSHOT;
	c.items = floe_arena_alloc(l->job->arena, (3 * (cur->n_fields + l->cols.schema->n_fields) + 2) *
					       sizeof(*c.items));
	if (plan_changes(&c, l, cur) < 0)
		goto cleanup;
	if (c.n && floe_iceberg_table_update_schema(l->table, c.items, c.n, NULL) < 0) {
		floe_error_context("while changing the columns of %s as the plan says (%s)", l->job->table->bronze,
				   floe_buf_cstr(&c.said));
		goto cleanup;
	}
	if (c.n) {
		floe_log_info("%s: the table's columns follow the plan: %s", l->job->table->bronze, floe_buf_cstr(&c.said));
		l->schema_changes = floe_arena_strdup(l->job->arena, floe_buf_cstr(&c.said));
	}
	error = 0;
cleanup:
	floe_buf_free(&c.said);
	return error;
}
