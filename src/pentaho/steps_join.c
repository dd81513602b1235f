/*
 * steps_join.c — MergeJoin, StreamLookup and DBLookup (Database lookup) as SQL joins,
 * keeping what Kettle means: a merge join's result on sorted input, a lookup's one row
 * per input row with its defaults, a database lookup's first row by its order.
 */
#include "pentaho/pentaho_int.h"

#include <string.h>

/* "a,b" starts with the fields of `keys` (children named "key", text the field)? */
static bool sorted_on(const char *sorted, const floe_kettle_node *keys)
{
	if (!sorted)
		return false;
	const char *p = sorted;
	for (size_t k = 0; keys && k < keys->n_children; k++) {
		size_t n = strlen(keys->children[k]->text);
		if (strncmp(p, keys->children[k]->text, n) != 0 || (p[n] != ',' && p[n] != 0))
			return false;
		p += n + (p[n] == ',');
	}
	return keys && keys->n_children > 0;
}

static const char *join_kind(const char *kettle)
{
	if (strcmp(kettle, "LEFT OUTER") == 0)
		return "left join";
	if (strcmp(kettle, "RIGHT OUTER") == 0)
		return "right join";
	if (strcmp(kettle, "FULL OUTER") == 0)
		return "full join";
	return strcmp(kettle, "INNER") == 0 || !*kettle ? "join" : NULL;
}

static void merge_join(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	long s1 = floe_kettle_step_index(t->f, floe_kettle_text(n, "step1"));
	long s2 = floe_kettle_step_index(t->f, floe_kettle_text(n, "step2"));
	const floe_kettle_node *k1 = floe_kettle_child(n, "keys_1"), *k2 = floe_kettle_child(n, "keys_2");
	const char *kind = join_kind(floe_kettle_text(n, "join_type"));
	if (s1 < 0 || s2 < 0 || !kind || !k1 || !k2 || k1->n_children != k2->n_children || k1->n_children == 0) {
		pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "the join's steps, keys or type (%s) are incomplete",
			floe_kettle_text(n, "join_type"));
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select null as floe_unmapped where false");
		return;
	}
	floe_buf on = FLOE_BUF_INIT;
	for (size_t k = 0; k < k1->n_children; k++) /* Kettle's comparison: NULL keys are equal */
		floe_buf_printf(&on, "%sl.%s is not distinct from r.%s", k ? " and " : "", pt_ident(t, k1->children[k]->text),
				pt_ident(t, k2->children[k]->text));
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select l.*, r.* from %s as l\n%s %s as r on %s",
				    pt_edge_rel(t, (size_t)s1, i), kind, pt_edge_rel(t, (size_t)s2, i), floe_buf_cstr(&on));
	if (!sorted_on(t->steps[s1].sorted_by, k1) || !sorted_on(t->steps[s2].sorted_by, k2))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "Kettle's merge join needs both inputs sorted on the keys, and these "
			"are not sorted by a Sort rows step in this transformation: the SQL join gives the sorted-input "
			"result (check the inputs' order, e.g. an ORDER BY in the source query)");
	else
		t->steps[i].sorted_by = t->steps[s1].sorted_by;
	floe_buf_free(&on);
}

/*
 * The lookup's value columns, appended to `cols`: the default only when no row matched
 * (`found`: an expression true for a match), as Kettle does; a matched NULL stays NULL.
 */
static void lookup_values(pt_trans *t, floe_buf *cols, floe_buf *picked, const floe_kettle_node *lookup,
			  const char *found)
{
	for (size_t k = 0; lookup && k < lookup->n_children; k++) {
		const floe_kettle_node *v = lookup->children[k];
		if (strcmp(v->name, "value") != 0)
			continue;
		const char *name = floe_kettle_text(v, "name"), *rename = floe_kettle_text(v, "rename");
		const char *def = floe_kettle_text(v, "default"), *type = floe_kettle_text(v, "type");
		const char *col = floe_arena_printf(t->a, "r.%s", pt_ident(t, name));
		if (*def)
			col = floe_arena_printf(t->a, "case when %s then %s else %s end", found, col, pt_typed_lit(t, type, def));
		floe_buf_printf(cols, ", %s as %s", col, pt_ident(t, *rename ? rename : name));
		if (picked)
			floe_buf_printf(picked, ", %s", pt_ident(t, name));
	}
}

static void stream_lookup(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *from = floe_kettle_text(n, "from");
	const char *const info[] = { from, NULL };
	long li = floe_kettle_step_index(t->f, from);
	const char *main = pt_main_input(t, i, info);
	const floe_kettle_node *lookup = floe_kettle_child(n, "lookup");
	if (li < 0 || !main || !lookup) {
		pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "the lookup step \"%s\" or the main input is missing", from);
		t->steps[i].rel[0] = main ? main : pt_cte(t, i, NULL, "select null as floe_unmapped where false");
		return;
	}
	floe_buf keys = FLOE_BUF_INIT, on = FLOE_BUF_INIT, cols = FLOE_BUF_INIT, picked = FLOE_BUF_INIT;
	for (size_t k = 0; k < lookup->n_children; k++) {
		const floe_kettle_node *key = lookup->children[k];
		if (strcmp(key->name, "key") != 0)
			continue;
		const char *field = pt_ident(t, floe_kettle_text(key, "field"));
		floe_buf_printf(&keys, "%s%s", keys.len ? ", " : "", field);
		floe_buf_printf(&on, "%sm.%s is not distinct from r.%s", on.len ? " and " : "",
				pt_ident(t, floe_kettle_text(key, "name")), field);
	}
	lookup_values(t, &cols, &picked, lookup, "r.floe_found");
	/*
	 * One lookup row per key, so every input row stays one row, as in Kettle's hash lookup, which
	 * keeps the last row of a key (StreamLookup.addToCache overwrites); NULL keys match each other.
	 */
	const char *sorted = t->steps[li].sorted_by;
	const char *lk = pt_cte(t, i, "lookup", "select %s%s, true as floe_found from %s\n"
				"qualify row_number() over (partition by %s%s%s) = 1%s",
				floe_buf_cstr(&keys), floe_buf_cstr(&picked), pt_edge_rel(t, (size_t)li, i),
				floe_buf_cstr(&keys), sorted ? " order by " : "", sorted ? pt_field_list(t, sorted, " desc") : "",
				sorted ? "" : "\n-- several rows of one key: Kettle keeps the last one read; here one of them");
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select m.*%s from %s as m\nleft join %s as r on %s", floe_buf_cstr(&cols),
				    main, lk, on.len ? floe_buf_cstr(&on) : "true");
	t->steps[i].sorted_by = pt_input_sorted(t, i);
	floe_buf_free(&keys);
	floe_buf_free(&on);
	floe_buf_free(&cols);
	floe_buf_free(&picked);
}

/* One DBLookup key condition on the table's column, or NULL when its condition is unknown. */
static const char *db_key(pt_trans *t, const floe_kettle_node *key)
{
	const char *c = floe_kettle_text(key, "condition"), *col = pt_ident(t, floe_kettle_text(key, "field"));
	const char *v = floe_arena_printf(t->a, "m.%s", pt_ident(t, floe_kettle_text(key, "name")));
	if (strcmp(c, "BETWEEN") == 0)
		return floe_arena_printf(t->a, "r.%s between %s and m.%s", col, v, pt_ident(t, floe_kettle_text(key, "name2")));
	if (strcmp(c, "IS NULL") == 0 || strcmp(c, "IS NOT NULL") == 0)
		return floe_arena_printf(t->a, "r.%s %s", col, c[3] == 'N' ? "is not null" : "is null");
	static const char *const ops[] = { "=", "<>", "<", "<=", ">", ">=", "LIKE" };
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (strcmp(c, ops[k]) == 0 || (!*c && k == 0))
			return floe_arena_printf(t->a, "r.%s %s %s", col, ops[k], v);
	return NULL;
}

static void db_lookup(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const floe_kettle_node *lookup = floe_kettle_child(n, "lookup");
	const char *schema = pt_resolve(t->a, t->f, floe_kettle_text(lookup, "schema"));
	const char *table = pt_resolve(t->a, t->f, floe_kettle_text(lookup, "table"));
	const char *src = pt_bronze_source(t, *schema ? schema : NULL, table);
	const char *main = pt_main_input(t, i, NULL);
	if (!src) {
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "table %s%s%s is not in the lock (floe loads no such bronze table): "
			"the SQL still names it", schema, *schema ? "." : "", table);
		src = *schema ? floe_arena_printf(t->a, "%s.%s", pt_ident(t, schema), pt_ident(t, table)) : pt_ident(t, table);
	}
	floe_buf on = FLOE_BUF_INIT, cols = FLOE_BUF_INIT;
	for (size_t k = 0; lookup && k < lookup->n_children; k++) {
		if (strcmp(lookup->children[k]->name, "key") != 0)
			continue;
		const char *cond = db_key(t, lookup->children[k]);
		if (!cond)
			pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "key condition \"%s\" is not translated",
				floe_kettle_text(lookup->children[k], "condition"));
		floe_buf_printf(&on, "%s%s", on.len ? " and " : "", cond ? cond : "false");
	}
	const char *first_key = NULL;
	for (size_t k = 0; lookup && k < lookup->n_children && !first_key; k++)
		if (strcmp(lookup->children[k]->name, "key") == 0)
			first_key = floe_kettle_text(lookup->children[k], "field");
	lookup_values(t, &cols, NULL, lookup,
		      first_key ? floe_arena_printf(t->a, "r.%s is not null", pt_ident(t, first_key)) : "true");
	const char *order = floe_kettle_text(lookup, "orderby");
	floe_buf ob = FLOE_BUF_INIT;
	pt_put_jinja_safe(&ob, order);
	const char *numbered = pt_cte(t, i, "rows", "select *, row_number() over () as floe_row from %s",
				      main ? main : "(select null as floe_no_input where false)");
	/* the first matching row by the lookup's ORDER BY, one per input row (eat_row_on_failure: inner) */
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select m.* exclude (floe_row)%s from %s as m\n%s %s as r on %s\n"
				    "qualify row_number() over (partition by m.floe_row%s%s) = 1",
				    floe_buf_cstr(&cols), numbered,
				    floe_kettle_yes(lookup, "eat_row_on_failure") ? "join" : "left join", src,
				    on.len ? floe_buf_cstr(&on) : "true", *order ? " order by " : "", floe_buf_cstr(&ob));
	if (floe_kettle_yes(lookup, "fail_on_multiple"))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "Kettle fails on several matching rows; the model takes one");
	floe_buf_free(&on);
	floe_buf_free(&cols);
	floe_buf_free(&ob);
}

bool pt_steps_join(pt_trans *t, size_t i)
{
	const char *type = t->f->steps[i].type;
	const floe_kettle_node *n = t->f->steps[i].node;
	if (strcmp(type, "MergeJoin") == 0)
		merge_join(t, i, n);
	else if (strcmp(type, "StreamLookup") == 0)
		stream_lookup(t, i, n);
	else if (strcmp(type, "DBLookup") == 0)
		db_lookup(t, i, n);
	else
		return false;
	return true;
}
