/*
 * render.c — the plan for people (aligned text, one block per table) and for
 * programs (JSON with the same facts). Names are printed exactly in JSON; in
 * text, every source-derived string goes through floe_text_put_printable so a
 * hostile name cannot break the layout or reach the terminal as a control.
 */
#include "plan/plan_int.h"
#include "base/arena.h"
#include "base/json.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

/* Characters (not bytes) of UTF-8 text: what a terminal column count roughly is. */
static size_t width_of(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

static size_t shown_len(const char *s)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_text_put_printable(&b, s);
	size_t n = width_of(b.ptr ? b.ptr : "", b.len);
	floe_buf_free(&b);
	return n;
}

static void render_columns(floe_buf *out, const floe_plan_table *t)
{
	size_t wn = 0, wp = 0, wi = 0;
	floe_buf *types = floe_xcalloc(t->n_columns + 1, sizeof(floe_buf));
	for (size_t i = 0; i < t->n_columns; i++) {
		floe_buf_init(&types[i], FLOE_BUF_DEFAULT_MAX);
		floe_plan_type_text(&types[i], t->columns[i].map.type);
		size_t a = shown_len(t->columns[i].name), b = shown_len(t->columns[i].pg_type);
		size_t c = shown_len(floe_buf_cstr(&types[i]));
		wn = a > wn ? a : wn;
		wp = b > wp ? b : wp;
		wi = c > wi ? c : wi;
	}
	for (size_t i = 0; i < t->n_columns; i++) {
		const floe_plan_column *c = &t->columns[i];
		floe_buf_puts(out, i ? "             " : "  columns    ");
		floe_text_put_printable_padded(out, c->name, wn);
		floe_buf_puts(out, "  ");
		floe_text_put_printable_padded(out, c->pg_type, wp);
		floe_buf_puts(out, "  → ");
		floe_text_put_printable_padded(out, floe_buf_cstr(&types[i]), wi);
		floe_buf_printf(out, "  %-8s", floe_type_class_name(c->map.cls));
		if (!c->visible)
			floe_buf_puts(out, "  not visible to the role");
		else if (c->map.note[0] && c->map.cls != FLOE_CLASS_EXACT) {
			floe_buf_puts(out, "  ");
			floe_text_put_printable(out, c->map.note);
		}
		while (out->len && out->ptr[out->len - 1] == ' ')
			out->ptr[--out->len] = '\0';
		floe_buf_putc(out, '\n');
		floe_buf_free(&types[i]);
	}
	free(types);
}

static void render_table(floe_buf *out, const floe_plan_table *t)
{
	floe_text_put_printable(out, t->schema);
	floe_buf_putc(out, '.');
	floe_text_put_printable(out, t->name);
	floe_buf_puts(out, " → ");
	floe_text_put_printable(out, t->bronze);
	floe_buf_printf(out, "  %s\n  why        ", floe_load_mode_name(t->mode));
	floe_text_put_printable(out, t->reason);
	floe_buf_putc(out, '\n');
	if (t->mode == FLOE_LOAD_REFUSED) {
		render_columns(out, t); /* so the column or type at fault can be seen among the others */
		return;
	}
	floe_buf_puts(out, "  key        ");
	for (size_t i = 0; i < t->n_key; i++) {
		floe_buf_puts(out, i ? ", " : "");
		floe_text_put_printable(out, t->key[i]);
	}
	floe_buf_puts(out, t->n_key ? "\n" : "(none)\n");
	if (t->watermark) {
		floe_buf_puts(out, "  watermark  ");
		floe_text_put_printable(out, t->watermark);
		floe_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < t->n_notes; i++) {
		floe_buf_puts(out, "  note       ");
		floe_text_put_printable(out, t->notes[i]);
		floe_buf_putc(out, '\n');
	}
	render_columns(out, t);
	floe_buf_puts(out, "  file       ");
	floe_text_put_printable(out, t->file);
	floe_buf_putc(out, '\n');
}

int floe_plan_render_text(floe_buf *out, const floe_plan *plan)
{
	size_t n = floe_plan_count(plan), skipped = floe_plan_count_mode(plan, FLOE_LOAD_SKIPPED);
	for (size_t i = 0; i < n; i++) {
		const floe_plan_table *t = floe_plan_at(plan, i);
		if (t->mode != FLOE_LOAD_SKIPPED) {
			render_table(out, t);
			floe_buf_putc(out, '\n');
		}
	}
	if (skipped)
		floe_buf_puts(out, "skipped\n");
	for (size_t i = 0; i < n; i++) {
		const floe_plan_table *t = floe_plan_at(plan, i);
		if (t->mode != FLOE_LOAD_SKIPPED)
			continue;
		floe_buf_puts(out, "  ");
		floe_text_put_printable(out, t->schema);
		floe_buf_putc(out, '.');
		floe_text_put_printable(out, t->name);
		floe_buf_puts(out, "  ");
		floe_text_put_printable(out, t->reason);
		floe_buf_putc(out, '\n');
	}
	return floe_buf_printf(out, "%s%zu tables: %zu incremental, %zu full, %zu refused; %zu skipped\n",
			       skipped ? "\n" : "", n - skipped, floe_plan_count_mode(plan, FLOE_LOAD_INCREMENTAL),
			       floe_plan_count_mode(plan, FLOE_LOAD_FULL),
			       floe_plan_count_mode(plan, FLOE_LOAD_REFUSED), skipped);
}

static void json_column(floe_json_writer *w, const floe_plan_column *c)
{
	floe_buf type = FLOE_BUF_INIT;
	floe_plan_type_text(&type, c->map.type);
	floe_json_write_begin_object(w, true);
	floe_json_write_member_cstr(w, "name", c->name);
	floe_json_write_member_int(w, "attnum", c->attnum);
	floe_json_write_member_cstr(w, "pg_type", c->pg_type);
	floe_json_write_member_cstr(w, "iceberg_type", c->map.type ? floe_buf_cstr(&type) : NULL);
	floe_json_write_member_cstr(w, "class", floe_type_class_name(c->map.cls));
	floe_json_write_member_cstr(w, "note", c->map.note);
	floe_json_write_member_bool(w, "required", c->required);
	floe_json_write_member_bool(w, "visible", c->visible);
	floe_json_write_member_cstr(w, "rule", c->map.rule ? c->map.rule->pg : NULL);
	floe_json_write_member_cstr(w, "extract", c->map.extract);
	floe_json_write_end_object(w);
	floe_buf_free(&type);
}

static void json_table(floe_json_writer *w, const floe_plan_table *t)
{
	floe_json_write_begin_object(w, false);
	floe_json_write_member_cstr(w, "schema", t->schema);
	floe_json_write_member_cstr(w, "table", t->name);
	floe_json_write_member_cstr(w, "kind", t->kind);
	floe_json_write_member_cstr(w, "bronze", t->bronze);
	floe_json_write_member_cstr(w, "mode", floe_load_mode_name(t->mode));
	floe_json_write_member_cstr(w, "reason", t->reason);
	if (t->mode == FLOE_LOAD_SKIPPED) {
		floe_json_write_end_object(w);
		return;
	}
	floe_json_write_member_cstr(w, "file", t->mode == FLOE_LOAD_REFUSED ? NULL : t->file);
	floe_json_write_member_strings(w, "notes", t->notes, t->n_notes);
	floe_json_write_member_strings(w, "key", t->key, t->n_key);
	floe_json_write_member_cstr(w, "watermark", t->watermark);
	floe_json_write_key(w, "watermark_candidates");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < t->n_candidates; i++) {
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "column", t->candidates[i].column);
		floe_json_write_member_bool(w, "proven", t->candidates[i].proven);
		floe_json_write_member_cstr(w, "reason", t->candidates[i].reason);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
	floe_json_write_key(w, "columns");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < t->n_columns; i++)
		json_column(w, &t->columns[i]);
	floe_json_write_end_array(w);
	floe_json_write_member_cstr(w, "sql", t->sql);
	floe_json_write_end_object(w);
}

int floe_plan_render_json(floe_buf *out, const floe_plan *plan)
{
	floe_json_writer w;
	size_t n = floe_plan_count(plan), skipped = floe_plan_count_mode(plan, FLOE_LOAD_SKIPPED);
	floe_json_write_init(&w, out, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "database", floe_plan_database(plan));
	floe_json_write_key(&w, "summary");
	floe_json_write_begin_object(&w, true);
	floe_json_write_member_int(&w, "tables", (int64_t)(n - skipped));
	for (floe_load_mode m = FLOE_LOAD_INCREMENTAL; m <= FLOE_LOAD_SKIPPED; m++)
		floe_json_write_member_int(&w, floe_load_mode_name(m), (int64_t)floe_plan_count_mode(plan, m));
	floe_json_write_end_object(&w);
	floe_json_write_key(&w, "tables");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < n; i++)
		json_table(&w, floe_plan_at(plan, i));
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}
