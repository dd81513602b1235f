/*
 * classify.c — the deployed tables against the catalog's, each difference a change with
 * its class and evidence. Pure: two snapshots in, a list out.
 *
 * Columns are matched by attribute number: the same attnum and name is the same column;
 * the same attnum under a new name is a rename only when the old name is gone and the new
 * one was not deployed (the lock's own rule, so a swap of two names is two drops and two
 * adds). A column dropped and another added get new attnums from PostgreSQL: a drop and
 * an add, never a rename.
 */
#include "sync/sync.h"
#include "base/arena.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {
	"add-table", "add-column", "widen-type", "drop-not-null", "set-not-null", "add-enum-value",
	"rename-column", "drop-column", "narrow-type", "change-type", "add-required-column", "change-key",
	"change-watermark", "drop-table",
};
FLOE_TEXT_NAMES_DEFINE(floe_sync_class, "change class", class_names, FLOE_SYNC_DROP_TABLE)

bool floe_sync_class_breaking(floe_sync_class cls)
{
	return cls >= FLOE_SYNC_RENAME_COLUMN;
}

bool floe_sync_class_pauses(floe_sync_class cls)
{
	return cls == FLOE_SYNC_RENAME_COLUMN || cls == FLOE_SYNC_DROP_COLUMN || cls == FLOE_SYNC_NARROW_TYPE ||
	       cls == FLOE_SYNC_DROP_TABLE;
}

typedef struct list {
	floe_arena *a;
	floe_sync_change *items;
	size_t n, cap;
	const floe_sync_table *t;
} list;

static floe_sync_change *add(list *l, floe_sync_class cls, const char *column, const char *before,
			     const char *after)
{
	l->items = floe_arena_grow(l->a, l->items, l->n, &l->cap, sizeof(*l->items));
	floe_sync_change *c = &l->items[l->n++];
	*c = (floe_sync_change){ .schema = l->t->schema, .table = l->t->name, .cls = cls, .column = column,
				 .before = before ? before : "", .after = after ? after : "" };
	return c;
}

/* ---- types ---- */

typedef enum type_move { TYPE_SAME, TYPE_WIDER, TYPE_NARROWER, TYPE_OTHER } type_move;

/* The rank of an integer or float type (0: neither); *family 'i' or 'f'. */
static int numeric_rank(const char *t, char *family)
{
	static const char *const ints[] = { "smallint", "integer", "bigint" };
	static const char *const floats[] = { "real", "double precision" };
	for (int i = 0; i < 3; i++)
		if (strcmp(t, ints[i]) == 0)
			return *family = 'i', i + 1;
	for (int i = 0; i < 2; i++)
		if (strcmp(t, floats[i]) == 0)
			return *family = 'f', i + 1;
	return 0;
}

/* A string type's length limit: varchar(n) n; varchar and text -1 (none); 0: not a string type. */
static long string_limit(const char *t)
{
	static const char vc[] = "character varying";
	if (strcmp(t, "text") == 0 || strcmp(t, vc) == 0)
		return -1;
	if (strncmp(t, vc, sizeof(vc) - 1) == 0 && t[sizeof(vc) - 1] == '(')
		return strtol(t + sizeof(vc), NULL, 10);
	return 0;
}

/* numeric(p,s): true with p and s. */
static bool numeric_ps(const char *t, long *p, long *s)
{
	char *end;
	if (strncmp(t, "numeric(", 8) != 0)
		return false;
	*p = strtol(t + 8, &end, 10);
	*s = *end == ',' ? strtol(end + 1, &end, 10) : 0;
	return *end == ')';
}

static type_move compare(long before, long after)
{
	return after == before ? TYPE_SAME : after > before ? TYPE_WIDER : TYPE_NARROWER;
}

/* How the PostgreSQL type moved; the Iceberg types decide what the names do not. */
static type_move type_moved(const floe_sync_column *d, const floe_sync_column *c)
{
	char fd = 0, fc = 0;
	long pd, sd, pc, sc;
	if (strcmp(d->pg_type, c->pg_type) == 0)
		return TYPE_SAME;
	int rd = numeric_rank(d->pg_type, &fd), rc = numeric_rank(c->pg_type, &fc);
	if (rd && rc && fd == fc)
		return compare(rd, rc);
	long ld = string_limit(d->pg_type), lc = string_limit(c->pg_type);
	if (ld && lc)
		return ld == -1 ? (lc == -1 ? TYPE_SAME : TYPE_NARROWER) : lc == -1 ? TYPE_WIDER : compare(ld, lc);
	if (numeric_ps(d->pg_type, &pd, &sd) && numeric_ps(c->pg_type, &pc, &sc) && sd == sc)
		return compare(pd, pc);
	/* another change: one the lake holds alike (timestamp(3) → timestamp(6)) is no change to bronze */
	return d->iceberg && c->iceberg && strcmp(d->iceberg, c->iceberg) == 0 ? TYPE_WIDER : TYPE_OTHER;
}

/* ---- columns ---- */

static const floe_sync_column *by_attnum(const floe_sync_table *t, int attnum)
{
	for (size_t i = 0; i < t->n_columns; i++)
		if (t->columns[i].attnum == attnum)
			return &t->columns[i];
	return NULL;
}

static const floe_sync_column *by_name(const floe_sync_table *t, const char *name)
{
	for (size_t i = 0; t && i < t->n_columns; i++)
		if (strcmp(t->columns[i].name, name) == 0)
			return &t->columns[i];
	return NULL;
}

static const char *facts(floe_arena *a, const floe_sync_column *c)
{
	return floe_arena_printf(a, "%s %s%s%s%s (attnum %d)", c->name, c->pg_type, c->not_null ? " NOT NULL" : "",
				 c->default_expr ? " DEFAULT " : "", c->default_expr ? c->default_expr : "", c->attnum);
}

static bool has_label(const floe_sync_column *c, const char *label)
{
	for (size_t i = 0; i < c->n_enum_labels; i++)
		if (strcmp(c->enum_labels[i], label) == 0)
			return true;
	return false;
}

static void type_change(list *l, const floe_sync_column *d, const floe_sync_column *c)
{
	static const floe_sync_class classes[] = { [TYPE_WIDER] = FLOE_SYNC_WIDEN_TYPE,
						   [TYPE_NARROWER] = FLOE_SYNC_NARROW_TYPE,
						   [TYPE_OTHER] = FLOE_SYNC_CHANGE_TYPE };
	static const char *const verbs[] = { [TYPE_WIDER] = "widened", [TYPE_NARROWER] = "narrowed",
					     [TYPE_OTHER] = "changed" };
	type_move m = type_moved(d, c);
	if (m == TYPE_SAME)
		return;
	floe_sync_change *x = add(l, classes[m], c->name, facts(l->a, d), facts(l->a, c));
	x->field_id = d->id;
	x->what = floe_arena_printf(l->a, "column %s %s from %s to %s%s", c->name, verbs[m], d->pg_type, c->pg_type,
				    m == TYPE_OTHER ? " (Iceberg cannot change it in place: a new field id)" : "");
}

/* The same column in both: its type, NOT NULL and enum labels. */
static void same_column(list *l, const floe_sync_column *d, const floe_sync_column *c)
{
	type_change(l, d, c);
	if (d->not_null != c->not_null) {
		floe_sync_change *x = add(l, d->not_null ? FLOE_SYNC_DROP_NOT_NULL : FLOE_SYNC_SET_NOT_NULL, c->name,
					  facts(l->a, d), facts(l->a, c));
		x->field_id = d->id;
		x->what = floe_arena_printf(l->a, "column %s %s", c->name, d->not_null ? "dropped NOT NULL" : "set NOT NULL");
	}
	for (size_t i = 0; d->n_enum_labels && i < c->n_enum_labels; i++) {
		if (has_label(d, c->enum_labels[i]))
			continue;
		floe_sync_change *x = add(l, FLOE_SYNC_ADD_ENUM_VALUE, c->name, facts(l->a, d), facts(l->a, c));
		x->field_id = d->id;
		x->after = floe_arena_printf(l->a, "%s; new label '%s'", x->after, c->enum_labels[i]);
		x->what = floe_arena_printf(l->a, "column %s: enum value '%s' added", c->name, c->enum_labels[i]);
	}
}

/* The catalog's column for deployed column `d` (same attnum: same name, or a rename), else NULL. */
static const floe_sync_column *match(const floe_sync_table *dep, const floe_sync_table *now,
				     const floe_sync_column *d, bool *renamed)
{
	const floe_sync_column *c = by_attnum(now, d->attnum);
	*renamed = false;
	if (!c || strcmp(c->name, d->name) == 0)
		return c;
	if (by_name(now, d->name) || by_name(dep, c->name))
		return NULL; /* the old name lives on, or the new one was taken: not a rename */
	*renamed = true;
	return c;
}

static void columns(list *l, const floe_sync_table *dep, const floe_sync_table *now, bool *matched)
{
	for (size_t i = 0; i < dep->n_columns; i++) {
		const floe_sync_column *d = &dep->columns[i];
		bool renamed;
		const floe_sync_column *c = match(dep, now, d, &renamed);
		if (!c) {
			floe_sync_change *x = add(l, FLOE_SYNC_DROP_COLUMN, d->name, facts(l->a, d), "");
			x->field_id = d->id;
			x->what = floe_arena_printf(l->a, "column %s dropped (field id %d retired)", d->name, d->id);
			continue;
		}
		matched[c - now->columns] = true;
		if (renamed) {
			floe_sync_change *x = add(l, FLOE_SYNC_RENAME_COLUMN, c->name, facts(l->a, d), facts(l->a, c));
			x->old_name = d->name;
			x->field_id = d->id;
			x->what = floe_arena_printf(l->a, "column %s renamed to %s (field id %d kept)", d->name, c->name,
						    d->id);
		}
		same_column(l, d, c);
	}
	for (size_t i = 0; i < now->n_columns; i++) {
		const floe_sync_column *c = &now->columns[i];
		if (matched[i])
			continue;
		bool required = c->not_null && !c->default_expr;
		floe_sync_change *x = add(l, required ? FLOE_SYNC_ADD_REQUIRED_COLUMN : FLOE_SYNC_ADD_COLUMN, c->name, "",
					  facts(l->a, c));
		x->what = floe_arena_printf(l->a, "column %s added (%s%s)", c->name, c->pg_type,
					    required ? " NOT NULL without a default: old rows have no value" : "");
	}
}

/* ---- keys and watermarks ---- */

/* A deployed column name as the catalog calls it now (through a rename). */
static const char *renamed_to(const floe_sync_table *dep, const floe_sync_table *now, const char *name)
{
	const floe_sync_column *d = by_name(dep, name);
	bool renamed;
	const floe_sync_column *c = d ? match(dep, now, d, &renamed) : NULL;
	return c ? c->name : name;
}

static const char *joined(floe_arena *a, const char *const *items, size_t n)
{
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i < n; i++)
		floe_buf_printf(&b, "%s%s", i ? ", " : "", items[i]);
	const char *s = floe_arena_strdup(a, n ? floe_buf_cstr(&b) : "none");
	floe_buf_free(&b);
	return s;
}

static void key_and_watermark(list *l, const floe_sync_table *dep, const floe_sync_table *now)
{
	bool same = dep->n_key == now->n_key;
	for (size_t i = 0; same && i < dep->n_key; i++)
		same = strcmp(renamed_to(dep, now, dep->key[i]), now->key[i]) == 0;
	if (!same) {
		floe_sync_change *x = add(l, FLOE_SYNC_CHANGE_KEY, NULL, joined(l->a, dep->key, dep->n_key),
					  joined(l->a, now->key, now->n_key));
		x->before = floe_arena_printf(l->a, "primary key (%s)", x->before);
		x->after = floe_arena_printf(l->a, "primary key (%s)", x->after);
		x->what = floe_arena_printf(l->a, "%s became %s", x->before, x->after);
	}
	const char *dw = dep->watermark ? renamed_to(dep, now, dep->watermark) : NULL;
	if ((dw == NULL) != (now->watermark == NULL) || (dw && strcmp(dw, now->watermark) != 0)) {
		floe_sync_change *x = add(l, FLOE_SYNC_CHANGE_WATERMARK, now->watermark ? now->watermark : dep->watermark,
					  dep->watermark ? floe_arena_printf(l->a, "incremental on %s", dep->watermark)
							 : "full loads",
					  now->watermark ? floe_arena_printf(l->a, "incremental on %s", now->watermark)
							 : "full loads (no trigger proves a watermark)");
		x->what = floe_arena_printf(l->a, "the load mode changes: %s, was %s", x->after, x->before);
	}
}

static const floe_sync_table *find(const floe_sync_table *ts, size_t n, const char *schema, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ts[i].schema, schema) == 0 && strcmp(ts[i].name, name) == 0)
			return &ts[i];
	return NULL;
}

static void table(list *l, const floe_sync_table *dep, const floe_sync_table *now)
{
	l->t = now ? now : dep;
	if (!now && dep->loadable) {
		floe_sync_change *x = add(l, FLOE_SYNC_DROP_TABLE, NULL, dep->bronze, "");
		x->before = floe_arena_printf(l->a, "table %s.%s, %zu columns", dep->schema, dep->name, dep->n_columns);
		x->what = floe_arena_printf(l->a, "table %s.%s dropped (%s keeps its snapshots)", dep->schema, dep->name,
					    dep->bronze);
		return;
	}
	if (!now || !now->loadable)
		return; /* refused (a privilege, a type) is `floe plan`'s to explain, not a schema change */
	if (!dep || !dep->loadable) {
		floe_sync_change *x = add(l, FLOE_SYNC_ADD_TABLE, NULL, "", "");
		x->after = floe_arena_printf(l->a, "table %s.%s, %zu columns", now->schema, now->name, now->n_columns);
		x->what = floe_arena_printf(l->a, "new table %s.%s", now->schema, now->name);
		return;
	}
	bool *matched = floe_arena_alloc(l->a, now->n_columns + 1);
	memset(matched, 0, now->n_columns + 1);
	columns(l, dep, now, matched);
	key_and_watermark(l, dep, now);
}

int floe_sync_classify(floe_sync_change **out, size_t *n_out, floe_arena *a, const floe_sync_table *deployed,
		       size_t n_deployed, const floe_sync_table *now, size_t n_now)
{
	list l = { .a = a };
	for (size_t i = 0; i < n_deployed; i++)
		table(&l, &deployed[i], find(now, n_now, deployed[i].schema, deployed[i].name));
	for (size_t i = 0; i < n_now; i++)
		if (!find(deployed, n_deployed, now[i].schema, now[i].name))
			table(&l, NULL, &now[i]);
	*out = l.items;
	*n_out = l.n;
	return 0;
}
