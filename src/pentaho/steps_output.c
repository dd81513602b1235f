/*
 * steps_output.c — the steps that write a table: TableOutput (a table, or appended
 * rows), InsertUpdate and Update (an incremental model keyed on the lookup keys) and
 * Delete (the keys to delete, for review). Each gives its model's dbt config().
 */
#include "pentaho/pentaho_int.h"

#include <string.h>

static const char *target_of(pt_trans *t, const floe_kettle_node *n, const char *path_schema, const char *path_table)
{
	const char *schema = pt_resolve(t->a, t->f, floe_kettle_text(n, path_schema));
	const char *table = pt_resolve(t->a, t->f, floe_kettle_text(n, path_table));
	return *schema ? floe_arena_printf(t->a, "%s.%s", schema, table) : table;
}

static void table_output(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	const char *in = pt_main_input(t, i, NULL);
	in = in ? in : "(select null as floe_no_input where false)";
	const floe_kettle_node *fields = floe_kettle_child(n, "fields");
	if (floe_kettle_yes(n, "specify_fields") && fields && fields->n_children) {
		floe_buf cols = FLOE_BUF_INIT;
		for (size_t k = 0; k < fields->n_children; k++)
			floe_buf_printf(&cols, "%s%s as %s", k ? ", " : "",
					pt_ident(t, floe_kettle_text(fields->children[k], "stream_name")),
					pt_ident(t, floe_kettle_text(fields->children[k], "column_name")));
		in = pt_cte(t, i, NULL, "select %s from %s", floe_buf_cstr(&cols), in);
		floe_buf_free(&cols);
	}
	t->steps[i].rel[0] = in;
	if (floe_kettle_yes(n, "tablename_in_field"))
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "the table name comes from field \"%s\": one model holds the rows of "
			"every table", floe_kettle_text(n, "tablename_field"));
	t->steps[i].target = target_of(t, n, "schema", "table");
	/* truncate: the table holds this run's rows; else each run appends */
	t->steps[i].config = floe_kettle_yes(n, "truncate") ? "materialized='table'"
							    : "materialized='incremental', incremental_strategy='append'";
}

static void keyed_output(pt_trans *t, size_t i, const floe_kettle_node *n, bool update_only)
{
	const floe_kettle_node *lookup = floe_kettle_child(n, "lookup");
	floe_buf cols = FLOE_BUF_INIT, keys = FLOE_BUF_INIT;
	for (size_t k = 0; lookup && k < lookup->n_children; k++) {
		const floe_kettle_node *c = lookup->children[k];
		if (strcmp(c->name, "key") == 0) {
			const char *cond = floe_kettle_text(c, "condition");
			if (*cond && strcmp(cond, "=") != 0)
				pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "key \"%s\" is compared with %s: the model keys on equality",
					floe_kettle_text(c, "field"), cond);
			floe_buf_printf(&cols, "%s%s as %s", cols.len ? ", " : "", pt_ident(t, floe_kettle_text(c, "name")),
					pt_ident(t, floe_kettle_text(c, "field")));
			floe_buf_printf(&keys, "%s'%s'", keys.len ? ", " : "", pt_slug(t->a, floe_kettle_text(c, "field")));
			if (strcmp(pt_slug(t->a, floe_kettle_text(c, "field")), floe_kettle_text(c, "field")) != 0)
				pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "key column \"%s\" is named \"%s\" in unique_key",
					floe_kettle_text(c, "field"), pt_slug(t->a, floe_kettle_text(c, "field")));
		} else if (strcmp(c->name, "value") == 0) {
			const char *stream = floe_kettle_text(c, "rename");
			floe_buf_printf(&cols, "%s%s as %s", cols.len ? ", " : "",
					pt_ident(t, *stream ? stream : floe_kettle_text(c, "name")),
					pt_ident(t, floe_kettle_text(c, "name")));
			if (*floe_kettle_text(c, "update") && !floe_kettle_yes(c, "update"))
				pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "column \"%s\" is only inserted, never updated, by Kettle; "
					"the model replaces it too", floe_kettle_text(c, "name"));
		}
	}
	const char *in = pt_main_input(t, i, NULL);
	t->steps[i].rel[0] = pt_cte(t, i, NULL, "select %s from %s", cols.len ? floe_buf_cstr(&cols) : "*",
				    in ? in : "(select null as floe_no_input where false)");
	if (update_only)
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "Kettle's Update changes only rows whose key exists; the model also "
			"inserts rows with new keys");
	t->steps[i].target = target_of(t, lookup, "schema", "table");
	t->steps[i].config = floe_arena_printf(t->a, "materialized='incremental', incremental_strategy='delete+insert', "
					       "unique_key=[%s]", floe_buf_cstr(&keys));
	floe_buf_free(&cols);
	floe_buf_free(&keys);
}

static void delete_rows(pt_trans *t, size_t i, const floe_kettle_node *n)
{
	keyed_output(t, i, n, false);
	t->steps[i].config = "materialized='table'";
	pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "Kettle deletes these keys from %s; the model lists them, and deleting "
		"them is left to a reviewed post-hook", t->steps[i].target);
}

bool pt_steps_output(pt_trans *t, size_t i)
{
	const char *type = t->f->steps[i].type;
	const floe_kettle_node *n = t->f->steps[i].node;
	if (strcmp(type, "TableOutput") == 0)
		table_output(t, i, n);
	else if (strcmp(type, "InsertUpdate") == 0 || strcmp(type, "Update") == 0)
		keyed_output(t, i, n, type[0] == 'U');
	else if (strcmp(type, "Delete") == 0)
		delete_rows(t, i, n);
	else
		return false;
	t->steps[i].output = true;
	return true;
}
