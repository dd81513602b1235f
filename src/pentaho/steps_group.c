/*
 * steps_group.c — GroupBy, MemoryGroupBy, SortRows, Unique and UniqueRowsByHashSet.
 * Kettle's GroupBy and Unique compare each row with the previous one: on input not
 * sorted by their fields they give one row per run of equal rows, not per group. SQL
 * has no row order, so the model gives the per-group result and says so when this
 * transformation does not sort the input itself.
 */
#include "pentaho/pentaho_int.h"

#include <string.h>
#include <strings.h>

/* Every child of `parent` (named `elem`) gives its `sub` text ("" sub: the child's own text). */
static void names_of(pt_trans *t, floe_buf *idents, floe_buf *plain, const floe_kettle_node *parent,
		     const char *elem, const char *sub)
{
	for (size_t k = 0; parent && k < parent->n_children; k++) {
		const floe_kettle_node *c = parent->children[k];
		if (strcmp(c->name, elem) != 0)
			continue;
		const char *name = *sub ? floe_kettle_text(c, sub) : c->text;
		floe_buf_printf(idents, "%s%s", idents->len ? ", " : "", pt_ident(t, name));
		floe_buf_printf(plain, "%s%s", plain->len ? "," : "", name);
	}
}

/* `fields` ("a,b") is a prefix of the sort order `sorted`, in any order of its own? */
static bool sorted_by_prefix(const char *sorted, const char *fields)
{
	if (!sorted)
		return false;
	size_t nf = 1, matched = 0;
	for (const char *p = fields; *p; p++)
		nf += *p == ',';
	const char *p = sorted;
	for (size_t k = 0; k < nf && *p; k++) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		for (const char *f = fields; *f;) { /* is sorted field k one of `fields`? */
			const char *fc = strchr(f, ',');
			size_t fn = fc ? (size_t)(fc - f) : strlen(f);
			if (fn == n && strncmp(f, p, n) == 0) {
				matched++;
				break;
			}
			f += fn + (fc ? 1 : 0);
		}
		p += n + (comma ? 1 : 0);
	}
	return matched == nf;
}

static const struct {
	const char *kettle, *fmt; /* %1$s subject, %2$s value field */
	bool order;               /* depends on row order */
} aggs[] = {
	{ "SUM", "sum(%1$s)", false }, { "AVERAGE", "avg(%1$s)", false }, { "MEDIAN", "median(%1$s)", false },
	{ "PERCENTILE", "quantile_cont(%1$s, %2$s / 100.0)", false }, { "MIN", "min(%1$s)", false },
	{ "MAX", "max(%1$s)", false }, { "COUNT_ALL", "count(%1$s)", false }, { "COUNT_ANY", "count(*)", false },
	{ "COUNT_DISTINCT", "count(distinct %1$s)", false }, { "CONCAT_COMMA", "string_agg(%1$s, ', ')", true },
	{ "CONCAT_STRING", "string_agg(%1$s, %3$s)", true }, { "STD_DEV", "stddev_pop(%1$s)", false },
	{ "FIRST", "first(%1$s order by %1$s is null)", true }, { "LAST", "last(%1$s order by %1$s is not null)", true },
	{ "FIRST_INCL_NULL", "first(%1$s)", true }, { "LAST_INCL_NULL", "last(%1$s)", true },
};

static const char *aggregate(pt_trans *t, size_t i, const floe_kettle_node *f)
{
	const char *type = floe_kettle_text(f, "type"), *subject = pt_ident(t, floe_kettle_text(f, "subject"));
	const char *vf = floe_kettle_text(f, "valuefield");
	for (size_t k = 0; k < sizeof(aggs) / sizeof(aggs[0]); k++) {
		if (strcmp(type, aggs[k].kettle) != 0)
			continue;
		if (aggs[k].order)
			pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "aggregate %s of \"%s\" depends on the row order, which SQL "
				"does not keep", type, floe_kettle_text(f, "subject"));
		const char *pct = strcmp(type, "PERCENTILE") == 0 ? pt_number(t, i, "percentile", vf, "50") : "50";
		return floe_arena_printf(t->a, aggs[k].fmt, subject, pct, pt_lit(t, vf));
	}
	pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "aggregate %s is not translated", type);
	return "NULL";
}

static void group_by(pt_trans *t, size_t i, const floe_kettle_node *n, bool memory)
{
	floe_buf groups = FLOE_BUF_INIT, plain = FLOE_BUF_INIT, cols = FLOE_BUF_INIT;
	names_of(t, &groups, &plain, floe_kettle_child(n, "group"), "field", "name");
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	bool all_rows = floe_kettle_yes(n, "all_rows");
	for (size_t k = 0; fields && k < fields->n_children; k++) {
		const floe_kettle_node *f = fields->children[k];
		const char *agg = aggregate(t, i, f);
		floe_buf_printf(&cols, "%s%s%s%s%s as %s", cols.len || groups.len || all_rows ? ", " : "", agg,
				all_rows ? " over (" : "", all_rows && groups.len ? "partition by " : "",
				all_rows ? floe_arena_printf(t->a, "%s)", floe_buf_cstr(&groups)) : "",
				pt_ident(t, floe_kettle_text(f, "aggregate")));
	}
	const char *in = pt_main_input(t, i, NULL);
	in = in ? in : "(select null as floe_no_input where false)";
	if (!memory && groups.len && !sorted_by_prefix(pt_input_sorted(t, i), floe_buf_cstr(&plain)))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "Kettle's Group by aggregates runs of consecutive rows: on input not "
			"sorted by (%s) it emits one row per run; the SQL emits one per group, which equals Kettle's "
			"only on sorted input (sort it first, or use Memory group by)", floe_buf_cstr(&plain));
	if (all_rows)
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select *%s from %s", floe_buf_cstr(&cols), in);
	else
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select %s%s from %s%s%s", floe_buf_cstr(&groups),
					    floe_buf_cstr(&cols), in, groups.len ? "\ngroup by " : "", floe_buf_cstr(&groups));
	if (!memory && groups.len)
		t->steps[i].sorted_by = floe_arena_strdup(t->a, floe_buf_cstr(&plain));
	floe_buf_free(&groups);
	floe_buf_free(&plain);
	floe_buf_free(&cols);
}

static void sort_rows(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	floe_buf order = FLOE_BUF_INIT, keys = FLOE_BUF_INIT, plain = FLOE_BUF_INIT;
	for (size_t k = 0; fields && k < fields->n_children; k++) {
		const floe_kettle_node *f = fields->children[k];
		const char *id = pt_ident(t, floe_kettle_text(f, "name"));
		bool asc = !*floe_kettle_text(f, "ascending") || floe_kettle_yes(f, "ascending");
		bool cs = !*floe_kettle_text(f, "case_sensitive") || floe_kettle_yes(f, "case_sensitive");
		/* Kettle sorts NULL as the smallest value */
		floe_buf_printf(&order, "%s%s%s%s %s", order.len ? ", " : "", cs ? "" : "lower(", id, cs ? "" : ")",
				asc ? "asc nulls first" : "desc nulls last");
		floe_buf_printf(&keys, "%s%s", keys.len ? ", " : "", id);
		floe_buf_printf(&plain, "%s%s", plain.len ? "," : "", floe_kettle_text(f, "name"));
	}
	const char *in = pt_main_input(t, i, NULL);
	in = in ? in : "(select null as floe_no_input where false)";
	if (floe_kettle_yes(n, "unique_rows"))
		in = pt_cte(t, i, "unique", "select * from %s\nqualify row_number() over (partition by %s) = 1", in,
			    floe_buf_cstr(&keys));
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select * from %s\norder by %s", in, floe_buf_cstr(&order));
	t->steps[i].sorted_by = floe_arena_strdup(t->a, floe_buf_cstr(&plain));
	floe_buf_free(&order);
	floe_buf_free(&keys);
	floe_buf_free(&plain);
}

static void unique(pt_trans *t, size_t i, const floe_kettle_node *n, bool hashset)
{
	floe_buf keys = FLOE_BUF_INIT, plain = FLOE_BUF_INIT;
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	for (size_t k = 0; fields && k < fields->n_children; k++) {
		const floe_kettle_node *f = fields->children[k];
		const char *id = pt_ident(t, floe_kettle_text(f, "name"));
		floe_buf_printf(&keys, "%s%s%s%s", keys.len ? ", " : "", floe_kettle_yes(f, "case_insensitive") ? "lower(" : "",
				id, floe_kettle_yes(f, "case_insensitive") ? ")" : "");
		floe_buf_printf(&plain, "%s%s", plain.len ? "," : "", floe_kettle_text(f, "name"));
	}
	const char *in = pt_main_input(t, i, NULL);
	in = in ? in : "(select null as floe_no_input where false)";
	const char *count = floe_kettle_text(n, "count_field");
	bool counted = floe_kettle_yes(n, "count_rows") && *count;
	const char *part = floe_arena_printf(t->a, "partition by %s", floe_buf_cstr(&keys));
	if (!keys.len) /* the whole row is the key */
		t->steps[i].rel[0] = counted ? pt_cte(t, i, NULL, "select *, count(*) as %s from %s\ngroup by all",
						      pt_ident(t, count), in)
					     : pt_cte(t, i, NULL, "select distinct * from %s", in);
	else
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select *%s%s%s from %s\nqualify row_number() over (%s) = 1",
					    counted ? floe_arena_printf(t->a, ", count(*) over (%s)", part) : "",
					    counted ? " as " : "", counted ? pt_ident(t, count) : "", in, part);
	const char *sorted = pt_input_sorted(t, i);
	if (!hashset && !(keys.len ? sorted_by_prefix(sorted, floe_buf_cstr(&plain)) : sorted != NULL))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "Kettle's Unique rows removes only consecutive duplicates: DISTINCT "
			"equals it only on input sorted by (%s), which this transformation does not sort",
			keys.len ? floe_buf_cstr(&plain) : "every field");
	t->steps[i].sorted_by = sorted;
	floe_buf_free(&keys);
	floe_buf_free(&plain);
}

bool pt_steps_group(pt_trans *t, size_t i)
{
	const char *type = t->f->steps[i].type;
	const floe_kettle_node *n = t->f->steps[i].node;
	if (strcmp(type, "GroupBy") == 0 || strcmp(type, "MemoryGroupBy") == 0)
		group_by(t, i, n, type[0] == 'M');
	else if (strcmp(type, "SortRows") == 0)
		sort_rows(t, i, n);
	else if (strcmp(type, "Unique") == 0 || strcmp(type, "UniqueRowsByHashSet") == 0)
		unique(t, i, n, type[6] == 'R');
	else
		return false;
	return true;
}
