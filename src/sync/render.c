/*
 * render.c — what `floe sync` prints: each change with its class and action, the commit
 * on main, each table's branch (new or standing), and the proposals settled. Names from
 * the source are shown printable in text; JSON keeps them exact.
 */
#include "sync/sync_int.h"
#include "base/json.h"
#include "base/text.h"

#include <string.h>

static const char *table_state(const sync_table *t)
{
	if (t->action == FLOE_SYNC_COMMIT)
		return "committed";
	if (t->action == FLOE_SYNC_REFUSE)
		return "refused";
	if (!t->proposal)
		return "proposed";
	return t->proposed_now ? "proposed" : t->proposal->state;
}

int floe_sync_render_text(floe_buf *out, const floe_sync_result *r)
{
	for (size_t i = 0; i < r->n_tables; i++) {
		const sync_table *t = &r->tables[i];
		floe_buf_printf(out, "%-10s ", table_state(t));
		floe_text_put_printable(out, t->table);
		if (t->proposal && t->action == FLOE_SYNC_BRANCH) {
			floe_buf_printf(out, "  branch %s%s", t->proposal->branch, t->proposed_now ? " (new)" : "");
			if (t->pauses)
				floe_buf_puts(out, strcmp(t->proposal->state, "rejected") == 0 ? "  paused: rejected" : "  paused");
		}
		floe_buf_putc(out, '\n');
		for (size_t k = 0; k < t->n; k++) {
			const floe_sync_change *c = &t->changes[k];
			floe_buf_printf(out, "  %-20s %-7s ", floe_sync_class_name(c->cls),
					floe_sync_action_name(r->actions[t->first + k]));
			floe_text_put_printable(out, c->what);
			floe_buf_putc(out, '\n');
		}
		if (t->proposal && t->proposal->pr && t->proposal->pr[0])
			floe_buf_printf(out, "  pull request: %s\n", t->proposal->pr);
	}
	for (size_t i = 0; i < r->n_closed; i++) {
		floe_buf_puts(out, "closed     ");
		floe_text_put_printable(out, r->closed[i]);
		floe_buf_putc(out, '\n');
	}
	if (r->commit)
		return floe_buf_printf(out, "committed %.12s on main\n", r->commit);
	return floe_buf_puts(out, r->n_tables ? "no commit on main\n" : "no schema change: nothing to do\n");
}

static void change_json(floe_json_writer *w, const floe_sync_change *c, floe_sync_action action)
{
	floe_json_write_begin_object(w, false);
	floe_json_write_member_cstr(w, "class", floe_sync_class_name(c->cls));
	floe_json_write_member_bool(w, "breaking", floe_sync_class_breaking(c->cls));
	floe_json_write_member_cstr(w, "action", floe_sync_action_name(action));
	floe_json_write_member_cstr(w, "column", c->column);
	floe_json_write_member_cstr(w, "old_name", c->old_name);
	if (c->field_id)
		floe_json_write_member_int(w, "field_id", c->field_id);
	floe_json_write_member_cstr(w, "before", c->before);
	floe_json_write_member_cstr(w, "after", c->after);
	floe_json_write_member_cstr(w, "what", c->what);
	floe_json_write_end_object(w);
}

int floe_sync_render_json(floe_buf *out, const floe_sync_result *r)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "commit", r->commit);
	floe_json_write_key(&w, "tables");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < r->n_tables; i++) {
		const sync_table *t = &r->tables[i];
		floe_json_write_begin_object(&w, false);
		floe_json_write_member_cstr(&w, "table", t->table);
		floe_json_write_member_cstr(&w, "bronze", t->bronze);
		floe_json_write_member_cstr(&w, "action", floe_sync_action_name(t->action));
		floe_json_write_member_cstr(&w, "state", table_state(t));
		floe_json_write_member_bool(&w, "pauses", t->pauses);
		floe_json_write_member_cstr(&w, "id", t->id);
		floe_json_write_member_cstr(&w, "branch", t->proposal && t->action == FLOE_SYNC_BRANCH ? t->proposal->branch : NULL);
		floe_json_write_member_bool(&w, "new_branch", t->proposed_now);
		floe_json_write_member_cstr(&w, "pull_request", t->proposal ? t->proposal->pr : NULL);
		floe_json_write_key(&w, "changes");
		floe_json_write_begin_array(&w, false);
		for (size_t k = 0; k < t->n; k++)
			change_json(&w, &t->changes[k], r->actions[t->first + k]);
		floe_json_write_end_array(&w);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_member_strings(&w, "closed", r->closed, r->n_closed);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}
