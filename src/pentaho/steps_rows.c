/*
 * steps_rows.c — steps that read or reshape rows one at a time: TableInput, FilterRows,
 * Calculator, SelectValues, ValueMapper, StringOperations, Constant, Sequence, Formula,
 * GetVariable, Dummy. Each writes CTEs with pt_cte and says what it could not keep.
 */
#include "pentaho/pentaho_int.h"

#include <string.h>
#include <strings.h>

static const char *need_input(pt_trans *t, size_t i)
{
	const char *in = pt_main_input(t, i, NULL);
	if (!in)
		pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "the step has no input hop");
	return in ? in : "(select null as floe_no_input where false)";
}

static void table_input(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *sql = floe_kettle_text(n, "sql");
	size_t len = strlen(sql);
	while (len && (sql[len - 1] == ';' || sql[len - 1] == ' ' || sql[len - 1] == '\n' || sql[len - 1] == '\r' ||
		       sql[len - 1] == '\t'))
		len--;
	sql = floe_arena_strndup(t->a, sql, len);
	if (*floe_kettle_text(n, "lookup"))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "the query takes its ? parameters from step \"%s\", row by row",
			floe_kettle_text(n, "lookup"));
	const char *body = floe_kettle_yes(n, "variables_active") || strstr(sql, "${") == NULL
				   ? pt_table_input_sql(t, i, sql) : sql;
	const char *limit = pt_number(t, i, "limit", floe_kettle_text(n, "limit"), "0");
	bool limited = strcmp(limit, "0") != 0;
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select * from (\n%s\n) as q%s%s", body, limited ? " limit " : "",
				    limited ? limit : "");
}

static void filter_rows(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *why = NULL, *in = need_input(t, i);
	const char *cond = pt_condition(t, floe_kettle_child(floe_kettle_child(n, "compare"), "condition"), &why);
	if (!cond) {
		pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "%s", why);
		t->steps[i].rel[0] = in;
		return;
	}
	t->steps[i].rel[0] = pt_cte(t, i, "true", "select * from %s\nwhere %s", in, cond);
	t->steps[i].rel[1] = pt_cte(t, i, "false", "select * from %s\nwhere not %s", in, cond);
	t->steps[i].sorted_by = pt_input_sorted(t, i);
}

/* The SwitchCase cases sending rows to `target` (NULL: every case), OR-ed; "false" when none. */
static const char *switch_cond(pt_trans *t, const floe_kettle_node *n, const char *target)
{
	const floe_kettle_node *cases = floe_kettle_child(n, "cases");
	const char *f = pt_ident(t, floe_kettle_text(n, "fieldname")), *type = floe_kettle_text(n, "case_value_type");
	bool contains = floe_kettle_yes(n, "use_contains");
	floe_buf b = FLOE_BUF_INIT;
	for (size_t k = 0; cases && k < cases->n_children; k++) {
		const floe_kettle_node *c = cases->children[k];
		if (target && strcmp(floe_kettle_text(c, "target_step"), target) != 0)
			continue;
		const char *v = floe_kettle_text(c, "value");
		floe_buf_puts(&b, b.len ? " or " : "");
		if (!*v) /* an empty case value is Kettle's NULL case */
			floe_buf_printf(&b, "%s is null", f);
		else if (contains)
			floe_buf_printf(&b, "contains(cast(%s as varchar), %s)", f, pt_lit(t, v));
		else
			floe_buf_printf(&b, "%s = %s", f, pt_typed_lit(t, type, v));
	}
	const char *r = b.len ? floe_arena_printf(t->a, "coalesce(%s, false)", floe_buf_cstr(&b)) : "false";
	floe_buf_free(&b);
	return r;
}

/* Switch / case: one CTE per next step, holding the rows of its cases; the default gets the rest. */
static void switch_case(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *in = need_input(t, i), *def = floe_kettle_text(n, "default_target_step");
	pt_step *st = &t->steps[i];
	if (floe_kettle_yes(n, "use_contains"))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "a value containing several cases' values goes to each of their "
			"steps here; check Kettle's choice");
	size_t k = 0;
	for (size_t h = 0; h < t->f->n_hops; h++) {
		if (t->f->hops[h].from != i)
			continue;
		const char *to = t->f->steps[t->f->hops[h].to].name;
		const char *cond = strcmp(to, def) == 0 ? floe_arena_printf(t->a, "not %s", switch_cond(t, n, NULL))
							: switch_cond(t, n, to);
		const char *rel = pt_cte(t, i, floe_arena_printf(t->a, "to%zu", ++k), "select * from %s\nwhere %s", in, cond);
		struct pt_branch *b = FLOE_ARENA_PUSH(t->a, st->branches, st->n_branch, st->cap_branch);
		b->to = to;
		b->rel = rel;
	}
	st->rel[0] = in;
	st->sorted_by = pt_input_sorted(t, i);
}

static const struct {
	const char *type, *fmt; /* %1$s A, %2$s B, %3$s C */
} calcs[] = {
	{ "COPY_FIELD", "%1$s" }, { "ADD", "%1$s + %2$s" }, { "SUBTRACT", "%1$s - %2$s" },
	{ "MULTIPLY", "%1$s * %2$s" }, { "DIVIDE", "%1$s / %2$s" }, { "SQUARE", "%1$s * %1$s" },
	{ "SQUARE_ROOT", "sqrt(%1$s)" }, { "PERCENT_1", "100.0 * %1$s / %2$s" },
	{ "PERCENT_2", "%1$s - %1$s * %2$s / 100.0" }, { "PERCENT_3", "%1$s + %1$s * %2$s / 100.0" },
	{ "COMBINATION_1", "%1$s + %2$s * %3$s" }, { "COMBINATION_2", "sqrt(%1$s * %1$s + %2$s * %2$s)" },
	{ "ROUND_1", "round(%1$s)" }, { "ROUND_2", "round(%1$s, %2$s)" }, { "NVL", "coalesce(%1$s, %2$s)" },
	{ "ADD_DAYS", "%1$s + to_days(cast(%2$s as integer))" }, { "YEAR_OF_DATE", "year(%1$s)" },
	{ "MONTH_OF_DATE", "month(%1$s)" }, { "DAY_OF_YEAR", "dayofyear(%1$s)" },
	{ "DAY_OF_MONTH", "day(%1$s)" }, { "DAY_OF_WEEK", "dayofweek(%1$s) + 1" },
	{ "HOUR_OF_DAY", "hour(%1$s)" }, { "MINUTE_OF_HOUR", "minute(%1$s)" },
	{ "SECOND_OF_MINUTE", "second(%1$s)" }, { "ABS", "abs(%1$s)" },
	{ "REMAINDER_OF_DIVISION", "%1$s %% %2$s" }, { "UPPER_CASE", "upper(%1$s)" },
	{ "LOWER_CASE", "lower(%1$s)" }, { "STRING_LEN", "length(%1$s)" },
	{ "DATE_DIFF", "datediff('day', %2$s, %1$s)" }, { "ISO8601_WEEK_OF_YEAR", "weekofyear(%1$s)" },
	{ "ISO8601_YEAR", "isoyear(%1$s)" },
};

/* One calculation as SQL, or NULL (the step is marked). */
static const char *calc_expr(pt_trans *t, size_t i, const floe_kettle_node *c)
{
	const char *type = floe_kettle_text(c, "calc_type"), *vt = floe_kettle_text(c, "value_type");
	const char *a = pt_ident(t, floe_kettle_text(c, "field_a")), *b = pt_ident(t, floe_kettle_text(c, "field_b"));
	const char *cc = pt_ident(t, floe_kettle_text(c, "field_c"));
	const char *sql_type = pt_sql_type(vt);
	if (strcmp(type, "CONSTANT") == 0)
		return pt_typed_lit(t, vt, floe_kettle_text(c, "field_a"));
	if (strcmp(type, "DIVIDE") == 0 && sql_type && strcmp(sql_type, "BIGINT") == 0)
		return floe_arena_printf(t->a, "%s // %s", a, b); /* Kettle divides integers exactly so */
	for (size_t k = 0; k < sizeof(calcs) / sizeof(calcs[0]); k++)
		if (strcmp(type, calcs[k].type) == 0) {
			const char *e = floe_arena_printf(t->a, calcs[k].fmt, a, b, cc);
			return sql_type ? floe_arena_printf(t->a, "cast(%s as %s)", e, sql_type) : e;
		}
	pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "calculation type %s (field \"%s\") is not translated", type,
		floe_kettle_text(c, "field_name"));
	return NULL;
}

static void calculator(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *rel = need_input(t, i);
	floe_buf removed = FLOE_BUF_INIT;
	size_t k = 0;
	for (size_t c = 0; c < n->n_children; c++) {
		const floe_kettle_node *calc = n->children[c];
		if (strcmp(calc->name, "calculation") != 0)
			continue;
		const char *e = calc_expr(t, i, calc), *name = pt_ident(t, floe_kettle_text(calc, "field_name"));
		if (!e)
			e = "NULL";
		rel = pt_cte(t, i, floe_arena_printf(t->a, "calc%zu", ++k), "select *, %s as %s from %s", e, name, rel);
		if (floe_kettle_yes(calc, "remove"))
			floe_buf_printf(&removed, "%s%s", removed.len ? ", " : "", name);
	}
	if (removed.len)
		rel = pt_cte(t, i, "removed", "select * exclude (%s) from %s", floe_buf_cstr(&removed), rel);
	t->steps[i].rel[0] = rel;
	t->steps[i].sorted_by = pt_input_sorted(t, i);
	floe_buf_free(&removed);
}

static const char *select_tab(pt_trans *t, size_t i, const floe_kettle_node *fields, const char *rel)
{
	floe_buf cols = FLOE_BUF_INIT, picked = FLOE_BUF_INIT;
	for (size_t c = 0; c < fields->n_children; c++) {
		const floe_kettle_node *f = fields->children[c];
		if (strcmp(f->name, "field") != 0)
			continue;
		const char *name = pt_ident(t, floe_kettle_text(f, "name")), *rename = floe_kettle_text(f, "rename");
		floe_buf_printf(&cols, "%s%s", cols.len ? ", " : "", name);
		if (*rename && strcmp(rename, floe_kettle_text(f, "name")) != 0)
			floe_buf_printf(&cols, " as %s", pt_ident(t, rename));
		floe_buf_printf(&picked, "%s%s", picked.len ? ", " : "", name);
	}
	if (cols.len) {
		bool rest = floe_kettle_yes(fields, "select_unspecified");
		rel = pt_cte(t, i, "select", "select %s%s%s%s from %s", floe_buf_cstr(&cols), rest ? ", * exclude (" : "",
			     rest ? floe_buf_cstr(&picked) : "", rest ? ")" : "", rel);
	}
	floe_buf_free(&cols);
	floe_buf_free(&picked);
	return rel;
}

static const char *remove_and_meta(pt_trans *t, size_t i, const floe_kettle_node *fields, const char *rel)
{
	floe_buf removed = FLOE_BUF_INIT, replace = FLOE_BUF_INIT, rename = FLOE_BUF_INIT;
	for (size_t c = 0; c < fields->n_children; c++) {
		const floe_kettle_node *f = fields->children[c];
		const char *name = floe_kettle_text(f, "name");
		if (strcmp(f->name, "remove") == 0) {
			floe_buf_printf(&removed, "%s%s", removed.len ? ", " : "", pt_ident(t, name));
		} else if (strcmp(f->name, "meta") == 0) {
			const char *type = pt_sql_type(floe_kettle_text(f, "type")), *to = floe_kettle_text(f, "rename");
			if (type)
				floe_buf_printf(&replace, "%scast(%s as %s) as %s", replace.len ? ", " : "", pt_ident(t, name),
						type, pt_ident(t, name));
			if (*to && strcmp(to, name) != 0)
				floe_buf_printf(&rename, "%s%s as %s", rename.len ? ", " : "", pt_ident(t, name), pt_ident(t, to));
			if (*floe_kettle_text(f, "conversion_mask"))
				pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "conversion mask \"%s\" of field \"%s\" is not applied "
					"(DuckDB's cast reads ISO formats)", floe_kettle_text(f, "conversion_mask"), name);
		}
	}
	if (removed.len)
		rel = pt_cte(t, i, "remove", "select * exclude (%s) from %s", floe_buf_cstr(&removed), rel);
	if (replace.len)
		rel = pt_cte(t, i, "meta", "select * replace (%s) from %s", floe_buf_cstr(&replace), rel);
	if (rename.len)
		rel = pt_cte(t, i, "rename", "select * rename (%s) from %s", floe_buf_cstr(&rename), rel);
	floe_buf_free(&removed);
	floe_buf_free(&replace);
	floe_buf_free(&rename);
	return rel;
}

static void select_values(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	const char *rel = need_input(t, i);
	if (fields)
		rel = remove_and_meta(t, i, fields, select_tab(t, i, fields, rel));
	t->steps[i].rel[0] = rel;
}

static void value_mapper(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *field = floe_kettle_text(n, "field_to_use"), *target = floe_kettle_text(n, "target_field");
	const char *def = floe_kettle_text(n, "non_match_default"), *f = pt_ident(t, field);
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	floe_buf c = FLOE_BUF_INIT;
	floe_buf_puts(&c, "case");
	for (size_t k = 0; fields && k < fields->n_children; k++) {
		const char *src = floe_kettle_text(fields->children[k], "source_value");
		const char *dst = pt_lit(t, floe_kettle_text(fields->children[k], "target_value"));
		if (*src)
			floe_buf_printf(&c, " when cast(%s as varchar) = %s then %s", f, pt_lit(t, src), dst);
		else /* an empty source value maps NULL and the empty string */
			floe_buf_printf(&c, " when %s is null or cast(%s as varchar) = '' then %s", f, f, dst);
	}
	floe_buf_printf(&c, " else %s end", *def ? pt_lit(t, def) : (*target ? "NULL" : f));
	const char *in = need_input(t, i);
	if (*target)
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select *, %s as %s from %s", floe_buf_cstr(&c), pt_ident(t, target), in);
	else
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select * replace (%s as %s) from %s", floe_buf_cstr(&c), f, in);
	t->steps[i].sorted_by = pt_input_sorted(t, i);
	floe_buf_free(&c);
}

static bool is(const floe_kettle_node *f, const char *path, const char *value)
{
	return strcasecmp(floe_kettle_text(f, path), value) == 0;
}

/* One StringOperations field, in Kettle's order: trim, case, padding, initial capitals, digits. */
static const char *string_op(pt_trans *t, size_t i, const floe_kettle_node *f)
{
	const char *e = pt_ident(t, floe_kettle_text(f, "in_stream_name"));
	if (is(f, "trim_type", "left"))
		e = floe_arena_printf(t->a, "ltrim(%s)", e);
	else if (is(f, "trim_type", "right"))
		e = floe_arena_printf(t->a, "rtrim(%s)", e);
	else if (is(f, "trim_type", "both"))
		e = floe_arena_printf(t->a, "trim(%s)", e);
	if (is(f, "lower_upper", "lower") || is(f, "lower_upper", "upper"))
		e = floe_arena_printf(t->a, "%s(%s)", floe_kettle_text(f, "lower_upper"), e);
	const char *len = pt_number(t, i, "pad_len", floe_kettle_text(f, "pad_len"), ""), *ch = floe_kettle_text(f, "pad_char");
	if ((is(f, "padding_type", "left") || is(f, "padding_type", "right")) && *len && *ch)
		e = floe_arena_printf(t->a, "case when length(%1$s) < %2$s then %3$s(%1$s, %2$s, %4$s) else %1$s end", e,
				      len, is(f, "padding_type", "left") ? "lpad" : "rpad", pt_lit(t, ch));
	if (is(f, "init_cap", "yes") || is(f, "init_cap", "Y"))
		e = floe_arena_printf(t->a, "array_to_string(list_transform(string_split(lower(%s), ' '), "
				      "w -> upper(w[1]) || w[2:]), ' ')", e);
	if (is(f, "digits", "digits_only"))
		e = floe_arena_printf(t->a, "regexp_replace(%s, '[^0-9]', '', 'g')", e);
	else if (is(f, "digits", "remove_digits"))
		e = floe_arena_printf(t->a, "regexp_replace(%s, '[0-9]', '', 'g')", e);
	const char *mask = floe_kettle_text(f, "mask_xml"), *special = floe_kettle_text(f, "remove_special_characters");
	if ((*mask && !is(f, "mask_xml", "none")) || (*special && !is(f, "remove_special_characters", "none")))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "field \"%s\": XML masking and special-character removal are not "
			"translated", floe_kettle_text(f, "in_stream_name"));
	return e;
}

static void string_operations(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	floe_buf add = FLOE_BUF_INIT, replace = FLOE_BUF_INIT;
	for (size_t k = 0; fields && k < fields->n_children; k++) {
		const floe_kettle_node *f = fields->children[k];
		const char *out = floe_kettle_text(f, "out_stream_name"), *e = string_op(t, i, f);
		if (*out)
			floe_buf_printf(&add, ", %s as %s", e, pt_ident(t, out));
		else
			floe_buf_printf(&replace, "%s%s as %s", replace.len ? ", " : "", e,
					pt_ident(t, floe_kettle_text(f, "in_stream_name")));
	}
	const char *in = need_input(t, i);
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select *%s%s%s%s from %s", replace.len ? " replace (" : "",
				    floe_buf_cstr(&replace), replace.len ? ")" : "", floe_buf_cstr(&add), in);
	t->steps[i].sorted_by = pt_input_sorted(t, i);
	floe_buf_free(&add);
	floe_buf_free(&replace);
}

/* A Constant / RowGenerator field: its value, typed; NULL when empty (unless set_empty_string). */
static const char *const_expr(pt_trans *t, size_t i, const floe_kettle_node *f)
{
	const char *type = floe_kettle_text(f, "type"), *v = floe_kettle_text(f, "nullif");
	const char *sql_type = pt_sql_type(type) ? pt_sql_type(type) : "VARCHAR";
	if (*floe_kettle_text(f, "format") && *v && strcmp(sql_type, "TIMESTAMP") == 0)
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "date \"%s\" is read as ISO, not with format \"%s\"", v,
			floe_kettle_text(f, "format"));
	return floe_kettle_yes(f, "set_empty_string") ? "''"
	       : *v ? pt_typed_lit(t, type, v) : floe_arena_printf(t->a, "cast(NULL as %s)", sql_type);
}

static const char *const_list(pt_trans *t, size_t i, const floe_kettle_node *n, const char *sep)
{
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	floe_buf add = FLOE_BUF_INIT;
	for (size_t k = 0; fields && k < fields->n_children; k++)
		floe_buf_printf(&add, "%s%s as %s", k ? ", " : sep, const_expr(t, i, fields->children[k]),
				pt_ident(t, floe_kettle_text(fields->children[k], "name")));
	const char *r = floe_arena_strdup(t->a, floe_buf_cstr(&add));
	floe_buf_free(&add);
	return r;
}

static void constants(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select *%s from %s", const_list(t, i, n, ", "), need_input(t, i));
	t->steps[i].sorted_by = pt_input_sorted(t, i);
}

/* Generate rows: `limit` rows of constants. */
static void row_generator(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *limit = floe_kettle_text(n, "limit");
	floe_buf lim = FLOE_BUF_INIT;
	if (strstr(limit, "${") || strstr(limit, "%%"))
		pt_put_sql_vars(t, &lim, limit, strlen(limit));
	else
		floe_buf_puts(&lim, pt_number(t, i, "limit", limit, "10"));
	if (floe_kettle_yes(n, "never_ending"))
		pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "a never-ending row generator has no SQL form");
	const char *cols = const_list(t, i, n, "");
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select %s from range(cast(%s as bigint))", *cols ? cols : "1 as floe_row",
				    lim.len ? floe_buf_cstr(&lim) : "10");
	floe_buf_free(&lim);
}

/* Data grid: its lines as a VALUES list, typed by its fields (an empty cell is NULL, as in Kettle). */
static void data_grid(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const floe_kettle_node *fields = floe_kettle_child(n, "fields"), *data = floe_kettle_child(n, "data");
	size_t nf = fields ? fields->n_children : 0;
	floe_buf rows = FLOE_BUF_INIT, names = FLOE_BUF_INIT;
	for (size_t k = 0; k < nf; k++)
		floe_buf_printf(&names, "%s%s", k ? ", " : "", pt_ident(t, floe_kettle_text(fields->children[k], "name")));
	for (size_t l = 0; data && l < data->n_children && nf; l++) {
		const floe_kettle_node *line = data->children[l];
		floe_buf_printf(&rows, "%s(", rows.len ? ",\n  " : "  ");
		for (size_t k = 0; k < nf; k++) {
			const char *type = floe_kettle_text(fields->children[k], "type");
			const char *v = k < line->n_children ? line->children[k]->text : "";
			const char *sql_type = pt_sql_type(type) ? pt_sql_type(type) : "VARCHAR";
			floe_buf_printf(&rows, "%s%s", k ? ", " : "", *v ? pt_typed_lit(t, type, v)
							       : floe_arena_printf(t->a, "cast(NULL as %s)", sql_type));
		}
		floe_buf_putc(&rows, ')');
	}
	if (!rows.len)
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select null as floe_no_rows where false");
	else
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select * from (values\n%s\n) as grid(%s)", floe_buf_cstr(&rows),
					    floe_buf_cstr(&names));
	floe_buf_free(&rows);
	floe_buf_free(&names);
}

static void sequence(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *start = pt_number(t, i, "start_at", floe_kettle_text(n, "start_at"), "1");
	const char *inc = pt_number(t, i, "increment_by", floe_kettle_text(n, "increment_by"), "1");
	const char *sorted = pt_input_sorted(t, i);
	if (floe_kettle_yes(n, "use_database"))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "database sequence \"%s\" is replaced by row numbers",
			floe_kettle_text(n, "seqname"));
	if (!sorted)
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "Kettle numbers rows in stream order, which this input does not "
			"define in SQL: the same numbers, given to rows in an unspecified order");
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select *, %s + (row_number() over (%s%s) - 1) * %s as %s from %s",
				    start, sorted ? "order by " : "", sorted ? pt_field_list(t, sorted, "") : "",
				    inc, pt_ident(t, floe_kettle_text(n, "valuename")), need_input(t, i));
	t->steps[i].sorted_by = sorted;
}

static void formula(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *rel = need_input(t, i);
	size_t k = 0;
	for (size_t c = 0; c < n->n_children; c++) {
		const floe_kettle_node *f = n->children[c];
		if (strcmp(f->name, "formula") != 0)
			continue;
		const char *why = NULL, *e = pt_formula(t, floe_kettle_text(f, "formula_string"), &why);
		const char *type = pt_sql_type(floe_kettle_text(f, "value_type"));
		const char *replace = floe_kettle_text(f, "replace_field");
		if (!e) {
			pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "formula of \"%s\" %s", floe_kettle_text(f, "field_name"), why);
			e = "NULL";
		}
		if (type)
			e = floe_arena_printf(t->a, "cast(%s as %s)", e, type);
		const char *suffix = floe_arena_printf(t->a, "f%zu", ++k);
		if (*replace)
			rel = pt_cte(t, i, suffix, "select * replace (%s as %s) from %s", e, pt_ident(t, replace), rel);
		else
			rel = pt_cte(t, i, suffix, "select *, %s as %s from %s", e,
				     pt_ident(t, floe_kettle_text(f, "field_name")), rel);
	}
	t->steps[i].rel[0] = rel;
	t->steps[i].sorted_by = pt_input_sorted(t, i);
}

static void get_variable(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	floe_buf cols = FLOE_BUF_INIT;
	for (size_t k = 0; fields && k < fields->n_children; k++) {
		const floe_kettle_node *f = fields->children[k];
		const char *var = floe_kettle_text(f, "variable");
		floe_buf v = FLOE_BUF_INIT;
		floe_buf_putc(&v, '\'');
		pt_put_sql_vars(t, &v, var, strlen(var));
		floe_buf_putc(&v, '\'');
		const char *type = pt_sql_type(floe_kettle_text(f, "type"));
		floe_buf_printf(&cols, "%s%s%s%s%s as %s", cols.len ? ", " : "", type ? "cast(" : "", floe_buf_cstr(&v),
				type ? " as " : "", type ? floe_arena_printf(t->a, "%s)", type) : "",
				pt_ident(t, floe_kettle_text(f, "name")));
		floe_buf_free(&v);
	}
	const char *in = pt_main_input(t, i, NULL);
	if (in)
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select *, %s from %s", floe_buf_cstr(&cols), in);
	else /* without input the step makes one row */
		t->steps[i].rel[0] = pt_cte(t, i, NULL, "select %s", cols.len ? floe_buf_cstr(&cols) : "1 as floe_row");
	floe_buf_free(&cols);
}

bool pt_steps_rows(pt_trans *t, size_t i)
{
	const char *type = t->f->steps[i].type;
	const floe_kettle_node *n = t->f->steps[i].node;
	static const struct {
		const char *type;
		void (*fn)(pt_trans *, size_t, const floe_kettle_node *);
	} fns[] = {
		{ "TableInput", table_input }, { "FilterRows", filter_rows }, { "Calculator", calculator },
		{ "SelectValues", select_values }, { "ValueMapper", value_mapper },
		{ "StringOperations", string_operations }, { "Constant", constants }, { "Sequence", sequence },
		{ "Formula", formula }, { "GetVariable", get_variable }, { "RowGenerator", row_generator },
		{ "DataGrid", data_grid }, { "SwitchCase", switch_case },
	};
	for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++)
		if (strcmp(type, fns[k].type) == 0) {
			fns[k].fn(t, i, n);
			return true;
		}
	if (strcmp(type, "Dummy") == 0) {
		const char *in = pt_main_input(t, i, NULL);
		t->steps[i].rel[0] = in ? in : pt_cte(t, i, NULL, "select null as floe_no_rows where false");
		t->steps[i].sorted_by = pt_input_sorted(t, i);
		return true;
	}
	return false;
}
