/*
 * draft_model.c — a measure the rules could not resolve, drafted by a local model: the
 * prompt (the description, the silver columns of the tables it names, the term), the
 * answer checked by invent.c. Accepted, the draft is the measure (its fact the table of its
 * first column); rejected, the term's question carries the draft and the reason.
 */
#include "gold/gold_int.h"
#include "base/error.h"

#include <string.h>

/* The silver tables the description names, with their columns; all of them when it names none. */
static void put_tables(floe_buf *b, const floe_gold_mart *m)
{
	size_t named = 0;
	for (int pass = 0; pass < 2 && named == 0; pass++)
		for (size_t i = 0; i < m->n_tables; i++) {
			const gold_table *t = &m->tables[i];
			if (pass == 0 && !strstr(m->desc->front, floe_arena_printf(m->a, "%s.", t->name)))
				continue;
			named++;
			floe_buf_printf(b, "  %s(", t->name);
			for (size_t k = 0; k < t->s->n_columns; k++)
				floe_buf_printf(b, "%s%s", k ? ", " : "", t->s->columns[k].name);
			floe_buf_puts(b, ")\n");
		}
}

static const char *prompt_of(const floe_gold_mart *m, const gold_measure *g)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_puts(&b, "You translate one measure of a data mart description into one SQL expression for DuckDB.\n"
		      "Silver tables and their columns:\n");
	put_tables(&b, m);
	floe_buf_printf(&b, "The description:\n%s\nThe measure: %s: %s\n", m->desc->front, g->name, g->term->text);
	floe_buf_puts(&b, "Answer with the expression only: an aggregate over table.column references, no FROM, "
		      "no other table, no condition or constant the measure does not state, no prose.\n");
	const char *s = floe_arena_strdup(m->a, b.ptr);
	floe_buf_free(&b);
	return s;
}

/* The question this measure's phrase asked (the rules'), or NULL. */
static floe_gold_question *question_of(floe_gold_mart *m, const gold_measure *g)
{
	for (size_t i = 0; i < m->n_questions; i++)
		if (strcmp(m->questions[i].term, g->label) == 0 && m->questions[i].kind == FLOE_GOLD_Q_UNSUPPORTED)
			return &m->questions[i];
	return NULL;
}

void gold_model_measure(floe_gold_mart *m, size_t index)
{
	gold_measure *g = &m->measures[index];
	floe_gold_question *q = question_of(m, g);
	floe_buf draft = FLOE_BUF_INIT;
	const char *reason = NULL;
	gold_uses tables = { 0 };
	if (!q)
		return;
	if (gold_ollama_generate(&draft, m->model->endpoint, m->model->name, prompt_of(m, g)) < 0 ||
	    gold_invention_check(&reason, &tables, m, g->term->text, floe_buf_cstr(&draft)) < 0) {
		const floe_error *e = floe_error_last();
		q->text = floe_arena_printf(m->a, "%s (The local model %s could not draft it: %s.)", q->text,
					    m->model->name, e && e->message ? e->message : "?");
		floe_error_clear();
	} else if (reason) {
		q->text = floe_arena_printf(m->a, "%s The local model %s drafted `%s`, rejected: %s.", q->text,
					    m->model->name, floe_buf_cstr(&draft), reason);
	} else {
		*g = (gold_measure){ .name = g->name, .term = g->term, .label = g->label, .kind = GOLD_AGGREGATE,
				     .fact = tables.tables[0], .agg_sql = floe_arena_strdup(m->a, floe_buf_cstr(&draft)),
				     .uses = tables, .drafted = floe_arena_strdup(m->a, floe_buf_cstr(&draft)) };
		size_t at = (size_t)(q - m->questions);
		memmove(q, q + 1, (m->n_questions - at - 1) * sizeof(*q));
		m->n_questions--;
	}
	floe_buf_free(&draft);
}
