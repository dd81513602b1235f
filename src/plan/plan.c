/*
 * plan.c — from the catalog's facts to a per-table plan: refusals first (a
 * table floe cannot read whole and exactly), then the load mode (watermark.c),
 * the column mappings (typemap.c) and the extraction query (naming.c); last,
 * the bronze names: each goes to one source table, and a name the deployed plan
 * gave out stays its table's.
 */
#include "plan/plan_int.h"
#include "plan/lock.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"
#include "config/scale.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NOTES 32

struct floe_plan {
	floe_arena *arena;
	floe_plan_table *tables;
	size_t n;
	const char *database;
	const char *role;
};

/* The one name table of floe_load_mode, in its order: floe_load_mode_name and _parse. */
static const char *const load_mode_names[] = { "incremental", "full", "refused", "skipped", "removed" };
FLOE_TEXT_NAMES_DEFINE(floe_load_mode, "load mode", load_mode_names, FLOE_LOAD_REMOVED)

bool floe_load_mode_loadable(floe_load_mode mode)
{
	return mode == FLOE_LOAD_FULL || mode == FLOE_LOAD_INCREMENTAL;
}

static void note(floe_plan *p, floe_plan_table *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(floe_plan *p, floe_plan_table *t, const char *fmt, ...)
{
	if (!t->notes)
		t->notes = floe_arena_alloc(p->arena, sizeof(char *) * MAX_NOTES);
	if (t->n_notes == MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	t->notes[t->n_notes++] = floe_arena_vprintf(p->arena, fmt, ap);
	va_end(ap);
}

static bool excluded(const floe_config *c, const floe_pg_relation *rel)
{
	size_t sl = strlen(rel->schema);
	for (size_t i = 0; i < c->source.exclude.count; i++) {
		const char *e = c->source.exclude.items[i];
		if (strncmp(e, rel->schema, sl) == 0 && e[sl] == '.' && strcmp(e + sl + 1, rel->name) == 0)
			return true;
	}
	return false;
}

static const char *configured_watermark(const floe_config *c, const floe_pg_relation *rel)
{
	size_t sl = strlen(rel->schema);
	for (size_t i = 0; i < c->watermarks.count; i++) {
		const char *k = c->watermarks.keys[i];
		if (strncmp(k, rel->schema, sl) == 0 && k[sl] == '.' && strcmp(k + sl + 1, rel->name) == 0)
			return c->watermarks.values[i];
	}
	return NULL;
}

static const char *kind_name(char kind)
{
	switch (kind) {
	case 'r': return "table";
	case 'p': return "partitioned table";
	case 'v': return "view";
	case 'm': return "materialized view";
	case 'f': return "foreign table";
	default: return "relation";
	}
}

/* Views and the like are listed, never loaded. NULL: not skipped. */
static const char *skip_reason(const floe_pg_relation *rel)
{
	switch (rel->kind) {
	case 'v': return "a view: floe loads the tables it reads";
	case 'm': return "a materialized view: floe loads the tables it is computed from";
	case 'f': return "a foreign table: its rows live on another server";
	default: break;
	}
	if (rel->persistence == 't')
		return "a temporary table: only its own session can read it";
	return NULL;
}

static void map_columns(floe_plan *p, floe_plan_table *t, const floe_pg_relation *rel)
{
	t->n_columns = rel->n_columns;
	t->columns = floe_arena_alloc(p->arena, sizeof(*t->columns) * (rel->n_columns + 1));
	for (size_t i = 0; i < rel->n_columns; i++) {
		const floe_pg_column *c = &rel->columns[i];
		floe_plan_column *pc = &t->columns[i];
		pc->name = c->name;
		pc->quoted = c->quoted;
		pc->attnum = c->attnum;
		pc->pg_type = c->type_text;
		pc->required = c->not_null;
		pc->visible = c->visible;
		floe_plan_map_type(&pc->map, p->arena, c->type, c->typmod, c->quoted);
	}
}

/* The first reason the table cannot be loaded whole and exactly; NULL: none. */
static const char *refusal(floe_plan *p, const floe_plan_table *t, const floe_pg_relation *rel)
{
	floe_buf hidden = FLOE_BUF_INIT;
	const char *why = NULL;
	size_t n_hidden = 0;
	if (!rel->schema_usage)
		return floe_arena_printf(p->arena, "role %s has no USAGE on schema %s", p->role, rel->schema);
	for (size_t i = 0; i < t->n_columns; i++)
		if (!t->columns[i].visible)
			floe_buf_printf(&hidden, "%s%s", n_hidden++ ? ", " : "", t->columns[i].name);
	if (!rel->can_select && n_hidden == t->n_columns)
		why = floe_arena_printf(p->arena, "role %s has no SELECT on the table", p->role);
	else if (n_hidden)
		why = floe_arena_printf(p->arena, "column%s %s %s not visible to role %s (no SELECT); floe "
						  "never loads a table incompletely", n_hidden > 1 ? "s" : "",
					floe_buf_cstr(&hidden), n_hidden > 1 ? "are" : "is", p->role);
	floe_buf_free(&hidden);
	if (why)
		return why;
	if (rel->rls_active && !rel->rls_sees_all)
		return floe_arena_printf(p->arena, "row-level security is on and no policy shows role %s every "
						   "row, so rows could be missing", p->role);
	if (t->n_columns == 0)
		return "the table has no columns";
	for (size_t i = 0; i < t->n_columns; i++)
		if (t->columns[i].map.cls == FLOE_CLASS_REFUSED)
			return floe_arena_printf(p->arena, "column %s (%s) cannot be carried: %s",
						 t->columns[i].name, t->columns[i].pg_type, t->columns[i].map.note);
	return NULL;
}

static void decide_mode(floe_plan *p, floe_plan_table *t, const floe_pg_relation *rel,
			const floe_config *config)
{
	floe_watermark_choice wc;
	if (floe_plan_choose_watermark(&wc, p->arena, rel, configured_watermark(config, rel)) < 0) {
		t->mode = FLOE_LOAD_FULL;
		t->reason = floe_arena_printf(p->arena, "the watermark could not be checked: %s",
					      floe_error_last() ? floe_error_last()->message : "?");
		floe_error_clear();
		return;
	}
	t->candidates = wc.candidates;
	t->n_candidates = wc.n_candidates;
	t->key = floe_arena_alloc(p->arena, sizeof(char *) * (rel->n_key + 1));
	for (size_t i = 0; i < rel->n_key; i++)
		t->key[t->n_key++] = rel->key[i]->name;
	if (rel->n_key == 0) {
		t->mode = FLOE_LOAD_FULL;
		t->reason = floe_arena_printf(p->arena, "%s has no primary key, which an incremental load needs "
							"to find deleted rows%s%s", rel->name,
					      wc.column ? "; " : "", wc.column ? wc.why : "");
		return;
	}
	t->mode = wc.column ? FLOE_LOAD_INCREMENTAL : FLOE_LOAD_FULL;
	t->watermark = wc.column;
	t->reason = wc.why;
}

static void add_notes(floe_plan *p, floe_plan_table *t, const floe_pg_relation *rel)
{
	size_t lossy = 0;
	if (rel->kind == 'p')
		note(p, t, "partitioned: its %lld partition%s load through it, as one table", rel->n_partitions,
		     rel->n_partitions == 1 ? "" : "s");
	if (rel->persistence == 'u')
		note(p, t, "unlogged: PostgreSQL empties it after a crash; floe loads what it holds");
	if (rel->rls_active)
		note(p, t, "row-level security is on; a policy shows role %s every row", p->role);
	for (size_t i = 0; i < t->n_columns; i++)
		lossy += t->columns[i].map.cls == FLOE_CLASS_LOSSY;
	if (lossy)
		note(p, t, "%zu column%s lossy (see each column's note)", lossy, lossy == 1 ? " is" : "s are");
}

/* How a full load reads the table when floe.toml asks for more than one connection (docs/parallel-load.md). */
static void note_parallel(floe_plan *p, floe_plan_table *t, const floe_config *config)
{
	int n = floe_config_parallel_for(config, t->schema, t->name);
	if (n <= 1)
		return;
	if (t->n_key)
		note(p, t, "a full load reads by up to %d connections over key ranges of \"%s\"", n, t->key[0]);
	else
		note(p, t, "a full load reads through one connection, not %d: the table has no primary key", n);
}

/* Each CHECK as silver tests it; one left out is said in a note (floe plan, floe generate). */
static void classify_checks(floe_plan *p, floe_plan_table *t, const floe_pg_relation *rel)
{
	t->checks = floe_arena_alloc(p->arena, sizeof(*t->checks) * (rel->n_checks + 1));
	t->n_checks = rel->n_checks;
	for (size_t i = 0; i < rel->n_checks; i++) {
		floe_plan_check_classify(&t->checks[i], p->arena, &rel->checks[i], rel);
		if (!t->checks[i].kind)
			note(p, t, "silver does not test CHECK %s: %s (%s)", rel->checks[i].name, t->checks[i].why_not,
			     rel->checks[i].definition);
	}
}

static void plan_relation(floe_plan *p, floe_plan_table *t, const floe_pg_relation *rel,
			  const floe_config *config)
{
	t->schema = rel->schema;
	t->name = rel->name;
	t->kind = kind_name(rel->kind);
	t->bronze = floe_plan_bronze_name(p->arena, rel->schema, rel->name);
	t->file = floe_plan_file_name(p->arena, t->bronze);
	t->source = rel;
	map_columns(p, t, rel);
	const char *why = skip_reason(rel);
	if (why) {
		t->mode = FLOE_LOAD_SKIPPED;
		t->reason = why;
		return;
	}
	why = floe_plan_name_problem(p->arena, t->bronze);
	if (!why)
		why = refusal(p, t, rel);
	if (why) {
		t->mode = FLOE_LOAD_REFUSED;
		t->reason = why;
		return;
	}
	decide_mode(p, t, rel, config);
	add_notes(p, t, rel);
	note_parallel(p, t, config);
	classify_checks(p, t, rel);
	t->sql = floe_plan_extract_sql(p->arena, t, rel->quoted);
}

static void refuse_name(floe_plan *p, floe_plan_table *t, const char *why)
{
	t->mode = FLOE_LOAD_REFUSED;
	t->reason = why;
	t->sql = NULL;
	t->watermark = NULL;
}

/*
 * One bronze name, one source table. A name the deployed lock gave to another table
 * (loaded under it at least once: its Iceberg table may hold that table's rows) stays
 * that table's, whatever the order; among the rest the first in name order keeps it.
 * Names differing only in ASCII case are one name (floe_plan_same_name).
 */
static void refuse_collisions(floe_plan *p, const floe_lock *deployed)
{
	bool *lost = floe_arena_alloc(p->arena, sizeof(bool) * (p->n + 1));
	for (size_t i = 0; i < p->n; i++) {
		floe_plan_table *t = &p->tables[i];
		const floe_lock_table *o = floe_lock_name_owner(deployed, t->schema, t->name, t->bronze);
		lost[i] = t->mode != FLOE_LOAD_SKIPPED && o;
		if (!lost[i])
			continue;
		bool removed = o->mode == FLOE_LOAD_REMOVED;
		refuse_name(p, t, floe_arena_printf(p->arena, "its bronze name %s belongs to %s.%s, loaded under "
							      "it before%s; floe never loads one table into another's",
						    t->bronze, o->schema, o->name,
						    removed ? " (now removed from the plan)" : ""));
	}
	for (size_t i = 0; i < p->n; i++) {
		floe_plan_table *t = &p->tables[i];
		for (size_t j = 0; j < i && t->mode != FLOE_LOAD_SKIPPED && !lost[i]; j++) {
			const floe_plan_table *u = &p->tables[j];
			if (u->mode == FLOE_LOAD_SKIPPED || lost[j] || !floe_plan_same_name(t->bronze, u->bronze))
				continue;
			bool by_case = strcmp(t->bronze, u->bronze) != 0;
			lost[i] = true;
			refuse_name(p, t, floe_arena_printf(p->arena, "its bronze name %s is already taken by %s.%s%s",
							    t->bronze, u->schema, u->name,
							    by_case ? " (names that differ only in case are one name "
								      "to DuckDB, Trino and Spark)" : ""));
		}
	}
}

int floe_plan_from_relations(floe_plan **out, const floe_config *config, const char *role,
			     floe_arena *arena, const floe_pg_relation *rels, size_t n_rels,
			     const floe_lock *deployed)
{
	floe_plan *p = floe_xcalloc(1, sizeof(*p));
	p->arena = arena;
	p->role = floe_arena_strdup(arena, role);
	p->database = floe_arena_strdup(arena, config->source.database);
	p->tables = floe_arena_alloc(arena, sizeof(*p->tables) * (n_rels + 1));
	for (size_t i = 0; i < n_rels; i++)
		if (!excluded(config, &rels[i]))
			plan_relation(p, &p->tables[p->n++], &rels[i], config);
	refuse_collisions(p, deployed);
	*out = p;
	return 0;
}

int floe_plan_build(floe_plan **out, const floe_config *config)
{
	floe_pg *pg = NULL;
	floe_pg_relation *rels = NULL;
	floe_lock *deployed = NULL;
	size_t n = 0;
	floe_arena *arena = floe_arena_new();
	int error = -1;
	*out = NULL;
	if (floe_lock_load(&deployed, floe_config_lock_path(arena, config)) < 0 || floe_pg_connect_source(&pg, config) < 0)
		goto cleanup;
	if (floe_pg_relations_inspect(&rels, &n, pg, arena, config->source.schemas.items,
				      config->source.schemas.count) < 0) {
		floe_error_context("while planning %s", floe_pg_describe(pg));
		goto cleanup;
	}
	error = floe_plan_from_relations(out, config, config->source.user, arena, rels, n, deployed);
	arena = NULL; /* the plan's now */
cleanup:
	floe_pg_close(pg);
	floe_lock_free(deployed);
	floe_arena_free(arena);
	return error;
}

void floe_plan_free(floe_plan *plan)
{
	if (!plan)
		return;
	floe_arena_free(plan->arena);
	free(plan);
}

size_t floe_plan_count(const floe_plan *plan)
{
	return plan->n;
}

const floe_plan_table *floe_plan_at(const floe_plan *plan, size_t i)
{
	return &plan->tables[i];
}

size_t floe_plan_count_mode(const floe_plan *plan, floe_load_mode mode)
{
	size_t n = 0;
	for (size_t i = 0; i < plan->n; i++)
		n += plan->tables[i].mode == mode;
	return n;
}

const char *floe_plan_database(const floe_plan *plan)
{
	return plan->database;
}
