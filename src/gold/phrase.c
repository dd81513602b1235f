/*
 * phrase.c — the grammar of a description's terms, each read into SQL over the silver
 * tables (quoted by their names: "orders"."order_status") or into questions:
 *
 *   dimension  [the] t.c | [the] day|week|month|quarter|year of t.c            [via t.c]
 *   measure    [the] sum|count|average|min|max|median of t.c                   [via t.c]
 *              [the] number of <entity>       (count distinct of the entity's key)
 *              X divided by Y                 (X, Y: a measure's name or an aggregate above)
 *   filter     boolean expression: or, and, not, ( ), comparisons (= != <> < <= > >=),
 *              is [not] null, is [not] <literal>, [not] in (<literals>), between a and b,
 *              over t.c columns (before aggregation) or measure names (after), never both
 *
 * `via t.c` picks the join path through the foreign key t.c when there are several.
 */
#include "gold/gold_int.h"
#include "base/error.h"
#include "base/text.h"

#include <ctype.h>
#include <string.h>

typedef enum tkind { T_END = 0, T_WORD, T_DOTTED, T_STRING, T_NUMBER, T_OP, T_BAD } tkind;

typedef struct tok {
	tkind k;
	const char *text;                 /* WORD: lower case; DOTTED: the table; STRING: the value; OP, NUMBER: as written */
	const char *column;               /* DOTTED */
} tok;

typedef struct phrase {
	floe_gold_mart *m;
	const char *label;
	const char *text;
	int line;
	tok *toks;
	size_t n, cap, at;
	gold_uses *uses;
	bool asked;                       /* a question was asked about this term */
	bool columns, measures;           /* filter: what it reads */
	int depth;
} phrase;

static int or_expr(phrase *ph, floe_buf *b);

static bool ident_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || (!first && isdigit((unsigned char)c));
}

static size_t ident_len(const char *s)
{
	size_t i = 0;
	while (s[i] && ident_char(s[i], i == 0))
		i++;
	return i;
}

static const char *lower(floe_arena *a, const char *s, size_t n)
{
	char *w = floe_arena_strndup(a, s, n);
	for (char *c = w; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return w;
}

/* One token at *s; *s moves past it. */
static tok lex_one(floe_arena *a, const char **s)
{
	const char *p = *s;
	tok t = { .k = T_BAD, .text = p };
	size_t n = ident_len(p);
	if (n) {
		t.k = T_WORD;
		t.text = lower(a, p, n);
		if (p[n] == '.' && ident_len(p + n + 1)) {
			size_t c = ident_len(p + n + 1);
			t = (tok){ .k = T_DOTTED, .text = floe_arena_strndup(a, p, n),
				   .column = floe_arena_strndup(a, p + n + 1, c) };
			n += 1 + c;
		}
	} else if (isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))) {
		n = *p == '-';
		while (isdigit((unsigned char)p[n]) || (p[n] == '.' && isdigit((unsigned char)p[n + 1])))
			n++;
		t = (tok){ .k = T_NUMBER, .text = floe_arena_strndup(a, p, n) };
	} else if (*p == '\'') {
		floe_buf b = FLOE_BUF_INIT;
		for (n = 1; p[n] && (p[n] != '\'' || p[n + 1] == '\''); n++) {
			floe_buf_putc(&b, p[n]);
			n += p[n] == '\'';
		}
		if (p[n] == '\'') {
			t = (tok){ .k = T_STRING, .text = floe_arena_strndup(a, b.ptr ? b.ptr : "", b.len) };
			n++;
		}
		floe_buf_free(&b);
	} else {
		static const char *const ops[] = { "!=", "<>", "<=", ">=", "=", "<", ">", "(", ")", ",", NULL };
		for (size_t i = 0; ops[i] && t.k == T_BAD; i++)
			if (strncmp(p, ops[i], strlen(ops[i])) == 0) {
				n = strlen(ops[i]);
				t = (tok){ .k = T_OP, .text = ops[i] };
			}
	}
	if (t.k == T_BAD)
		t.text = floe_arena_strndup(a, p, strcspn(p, " "));
	*s = p + (t.k == T_BAD ? strlen(t.text) : n);
	return t;
}

static void lex(phrase *ph, const char *text)
{
	for (const char *s = text;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		*FLOE_ARENA_PUSH(ph->m->a, ph->toks, ph->n, ph->cap) = lex_one(ph->m->a, &s);
	}
	*FLOE_ARENA_PUSH(ph->m->a, ph->toks, ph->n, ph->cap) = (tok){ .k = T_END, .text = "" };
	ph->n--; /* the end token stays after the last one */
}

static const tok *peek(const phrase *ph, size_t ahead)
{
	size_t i = ph->at + ahead;
	return &ph->toks[i < ph->n ? i : ph->n];
}

static bool is_word(const tok *t, const char *w)
{
	return t->k == T_WORD && strcmp(t->text, w) == 0;
}

static bool accept(phrase *ph, const char *w)
{
	if (!is_word(peek(ph, 0), w))
		return false;
	ph->at++;
	return true;
}

static bool accept_op(phrase *ph, const char *op)
{
	const tok *t = peek(ph, 0);
	if (t->k != T_OP || strcmp(t->text, op) != 0)
		return false;
	ph->at++;
	return true;
}

static int unsupported(phrase *ph, const char *expected)
{
	if (!ph->asked) {
		const tok *t = peek(ph, 0);
		gold_ask(ph->m, FLOE_GOLD_Q_UNSUPPORTED, ph->label, ph->line,
			 "\"%s\" is not a phrase floe can resolve (at `%s`); write %s.", ph->text,
			 t->k == T_END ? "the end" : t->text, expected);
	}
	ph->asked = true;
	return -1;
}

/* "`a`, `b` or `c`": the names within a plausible typo of `word` (nearest first), NULL when none. */
static const char *candidates(floe_arena *a, const char *prefix, const char *word, const char *const *names,
			      size_t n)
{
	size_t limit = strlen(word) / 3 > 2 ? strlen(word) / 3 : 2, best[3] = { 0 }, dist[3] = { 0 }, k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t d = floe_text_edit_distance(word, names[i]);
		if (strlen(word) >= 3 && strstr(names[i], word))
			d = 1; /* `status` for order_status */
		if (d > limit)
			continue;
		size_t j = k < 3 ? k++ : 3;
		for (; j > 0 && dist[j - 1] > d; j--)
			if (j < 3) {
				best[j] = best[j - 1];
				dist[j] = dist[j - 1];
			}
		if (j < 3) {
			best[j] = i;
			dist[j] = d;
		}
	}
	if (k == 0)
		return NULL;
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i < k; i++)
		floe_buf_printf(&b, "%s`%s%s`", i == 0 ? "" : i + 1 == k ? " or " : ", ", prefix, names[best[i]]);
	const char *s = floe_arena_strdup(a, b.ptr);
	floe_buf_free(&b);
	return s;
}

static const char **table_names(const floe_gold_mart *m)
{
	const char **names = floe_arena_alloc(m->a, (m->n_tables + 1) * sizeof(*names));
	for (size_t i = 0; i < m->n_tables; i++)
		names[i] = m->tables[i].name;
	return names;
}

static void ask_table(phrase *ph, const char *name)
{
	const char *c = candidates(ph->m->a, "", name, table_names(ph->m), ph->m->n_tables);
	gold_ask(ph->m, FLOE_GOLD_Q_UNKNOWN_TABLE, ph->label, ph->line, "`%s`: silver has no table %s%s%s", name,
		 name, c ? "; did you mean " : ".", c ? floe_arena_printf(ph->m->a, "%s?", c) : "");
	ph->asked = true;
}

/* The silver column t.c: its SQL, the table in `uses` and the read recorded; -1 with a question. */
static int column(phrase *ph, const tok *t, const char **sql, size_t *table_out)
{
	size_t ti = 0;
	const gold_table *gt = gold_table_named(ph->m, t->text, &ti);
	if (!gt) {
		ask_table(ph, t->text);
		return -1;
	}
	const floe_lock_silver *s = gt->s;
	const char **names = floe_arena_alloc(ph->m->a, (s->n_columns + 1) * sizeof(*names));
	for (size_t i = 0; i < s->n_columns; i++) {
		names[i] = s->columns[i].name;
		if (strcmp(names[i], t->column) == 0) {
			floe_buf b = FLOE_BUF_INIT;
			gold_ident(&b, gt->name);
			floe_buf_putc(&b, '.');
			gold_ident(&b, names[i]);
			*sql = floe_arena_strdup(ph->m->a, b.ptr);
			floe_buf_free(&b);
			gold_uses_add(ph->m, ph->uses, ti);
			*FLOE_ARENA_PUSH(ph->m->a, ph->m->reads, ph->m->n_reads, ph->m->cap_reads) =
				floe_arena_printf(ph->m->a, "%s.%s", s->table, names[i]);
			if (table_out)
				*table_out = ti;
			return 0;
		}
	}
	const char *c = candidates(ph->m->a, floe_arena_printf(ph->m->a, "%s.", gt->name), t->column, names,
				   s->n_columns);
	gold_ask(ph->m, FLOE_GOLD_Q_UNKNOWN_COLUMN, ph->label, ph->line, "`%s.%s`: no such column in %s%s%s", t->text,
		 t->column, s->table, c ? "; did you mean " : ".", c ? floe_arena_printf(ph->m->a, "%s?", c) : "");
	ph->asked = true;
	return -1;
}

static int expect_column(phrase *ph, const char **sql, size_t *table)
{
	const tok *t = peek(ph, 0);
	if (t->k != T_DOTTED)
		return unsupported(ph, "`table.column`");
	ph->at++;
	return column(ph, t, sql, table);
}

/* An optional `via t.c` and the end of the phrase. */
static int finish(phrase *ph, const char *expected)
{
	if (accept(ph, "via")) {
		const tok *t = peek(ph, 0);
		const char *ignored = NULL;
		gold_uses probe = { 0 }, *keep = ph->uses;
		ph->uses = &probe;
		if (t->k != T_DOTTED)
			return unsupported(ph, "`via table.column` (the foreign key to join through)");
		ph->at++;
		if (column(ph, t, &ignored, NULL) < 0)
			return -1;
		ph->uses = keep;
		ph->m->n_reads--; /* a join column, not a value the mart reads */
		keep->via_table = t->text;
		keep->via_column = t->column;
	}
	if (peek(ph, 0)->k != T_END)
		return unsupported(ph, expected);
	return 0;
}

static void phrase_init(phrase *ph, floe_gold_mart *m, const floe_gold_term *term, const char *label, gold_uses *u)
{
	*ph = (phrase){ .m = m, .label = label, .text = term->text, .line = term->line, .uses = u };
	lex(ph, term->text);
}

static const char *const units[] = { "day", "week", "month", "quarter", "year", NULL };

static bool in_list(const char *w, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(w, list[i]) == 0)
			return true;
	return false;
}

int gold_phrase_dimension(floe_gold_mart *m, gold_dim *d)
{
	phrase ph;
	const char *col = NULL;
	const char *label = floe_arena_printf(m->a, "dimensions.%s", d->name);
	static const char expected[] = "`table.column` or `day|week|month|quarter|year of table.column`";
	phrase_init(&ph, m, d->term, label, &d->uses);
	accept(&ph, "the");
	const tok *t = peek(&ph, 0);
	if (t->k == T_WORD && in_list(t->text, units) && is_word(peek(&ph, 1), "of")) {
		ph.at += 2;
		if (expect_column(&ph, &col, NULL) < 0 || finish(&ph, expected) < 0)
			return -1;
		d->sql = floe_arena_printf(m->a, "cast(date_trunc('%s', %s) as date)", t->text, col);
		return 0;
	}
	if (t->k != T_DOTTED)
		return unsupported(&ph, expected);
	if (expect_column(&ph, &col, NULL) < 0 || finish(&ph, expected) < 0)
		return -1;
	d->sql = col;
	return 0;
}

typedef struct agg_word {
	const char *word, *fn;
	bool additive, count_like;
} agg_word;

static const agg_word aggs[] = {
	{ "sum", "sum", true, false },     { "total", "sum", true, false },   { "count", "count", true, true },
	{ "average", "avg", false, false }, { "mean", "avg", false, false },  { "min", "min", false, false },
	{ "minimum", "min", false, false }, { "max", "max", false, false },   { "maximum", "max", false, false },
	{ "median", "median", false, false },
};

static const char agg_expected[] = "`sum|count|average|min|max|median of table.column` or `number of <table>`";

/* The entity `number of X` counts: a table named X (or X without its plural s). */
static const gold_table *entity(const floe_gold_mart *m, const char *word, size_t *index)
{
	const gold_table *t = gold_table_named(m, word, index);
	size_t n = strlen(word);
	if (!t && n > 1 && word[n - 1] == 's')
		t = gold_table_named(m, floe_arena_strndup(m->a, word, n - 1), index);
	if (!t)
		t = gold_table_named(m, floe_arena_printf(m->a, "%ss", word), index);
	return t;
}

static int number_of(phrase *ph, gold_measure *g)
{
	const tok *t = peek(ph, 0);
	size_t ti = 0;
	if (t->k != T_WORD)
		return unsupported(ph, "`number of <table>` (the table whose rows are counted)");
	ph->at++;
	const gold_table *gt = entity(ph->m, t->text, &ti);
	if (!gt) {
		const char *c = candidates(ph->m->a, "", t->text, table_names(ph->m), ph->m->n_tables);
		gold_ask(ph->m, FLOE_GOLD_Q_UNKNOWN_WORD, ph->label, ph->line,
			 "`%s` in \"%s\" names no silver table to count%s%s", t->text, ph->text,
			 c ? "; did you mean " : ".", c ? floe_arena_printf(ph->m->a, "%s?", c) : "");
		ph->asked = true;
		return -1;
	}
	if (gt->s->n_unique_key == 0) {
		gold_ask(ph->m, FLOE_GOLD_Q_NO_KEY, ph->label, ph->line,
			 "`number of %s`: %s has no key (its source table has no primary key), so its rows cannot "
			 "be counted as distinct %s; write `count of %s.<column>` to count rows, or give the source "
			 "table a primary key.", t->text, gt->s->table, gt->name, gt->name);
		ph->asked = true;
		return -1;
	}
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_puts(&b, gt->s->n_unique_key > 1 ? "count(distinct (" : "count(distinct ");
	for (size_t i = 0; i < gt->s->n_unique_key; i++) {
		floe_buf_puts(&b, i ? ", " : "");
		gold_ident(&b, gt->name);
		floe_buf_putc(&b, '.');
		gold_ident(&b, gt->s->unique_key[i]);
		*FLOE_ARENA_PUSH(ph->m->a, ph->m->reads, ph->m->n_reads, ph->m->cap_reads) =
			floe_arena_printf(ph->m->a, "%s.%s", gt->s->table, gt->s->unique_key[i]);
	}
	floe_buf_puts(&b, gt->s->n_unique_key > 1 ? "))" : ")");
	gold_uses_add(ph->m, ph->uses, ti);
	*g = (gold_measure){ .name = g->name, .hidden = g->hidden, .term = g->term, .label = g->label,
			     .kind = GOLD_AGGREGATE, .fact = ti, .agg_sql = floe_arena_strdup(ph->m->a, b.ptr),
			     .additive = true, .count_like = true };
	floe_buf_free(&b);
	return 0;
}

/* `number of distinct t.c`: the distinct values of a column (not additive: a value may be in two rows of the mart). */
static int distinct_of(phrase *ph, gold_measure *g)
{
	const char *col = NULL;
	size_t table = 0;
	if (expect_column(ph, &col, &table) < 0)
		return -1;
	g->kind = GOLD_AGGREGATE;
	g->fact = table;
	g->agg_sql = floe_arena_printf(ph->m->a, "count(distinct %s)", col);
	g->count_like = true;
	return 0;
}

/*
 * `rate of <condition>`: the share of the fact's rows where the condition holds (a row where it
 * is unknown counts as not holding). The fact is the table of the condition's first column; the
 * others are joined to it like a dimension's.
 */
static int rate_of(phrase *ph, gold_measure *g)
{
	floe_buf b = FLOE_BUF_INIT;
	gold_uses *keep = ph->uses;
	int error = -1;
	ph->uses = &g->uses;
	if (or_expr(ph, &b) < 0)
		goto cleanup;
	if (ph->measures || g->uses.n == 0) {
		unsupported(ph, "`rate of` a condition on columns (`rate of orders.x > orders.y`)");
		goto cleanup;
	}
	g->kind = GOLD_AGGREGATE;
	g->fact = g->uses.tables[0];
	g->agg_sql = floe_arena_printf(ph->m->a, "avg(case when %s then cast(1 as double) else cast(0 as double) end)", b.ptr);
	error = 0;
cleanup:
	ph->uses = keep;
	floe_buf_free(&b);
	return error;
}

/* `[the] agg of t.c` or `[the] number of X` into `g` (an aggregate). */
static int aggregate(phrase *ph, gold_measure *g)
{
	accept(ph, "the");
	if (accept(ph, "number")) {
		if (!accept(ph, "of"))
			return unsupported(ph, agg_expected);
		return accept(ph, "distinct") ? distinct_of(ph, g) : number_of(ph, g);
	}
	if (accept(ph, "rate")) {
		if (!accept(ph, "of"))
			return unsupported(ph, agg_expected);
		return rate_of(ph, g);
	}
	const tok *t = peek(ph, 0);
	for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++) {
		if (!is_word(t, aggs[i].word) || !is_word(peek(ph, 1), "of"))
			continue;
		const char *col = NULL;
		size_t table = 0;
		ph->at += 2;
		if (expect_column(ph, &col, &table) < 0)
			return -1;
		g->kind = GOLD_AGGREGATE;
		g->fact = table;
		g->agg_sql = floe_arena_printf(ph->m->a, "%s(%s)", aggs[i].fn, col);
		g->additive = aggs[i].additive;
		g->count_like = aggs[i].count_like;
		return 0;
	}
	return unsupported(ph, agg_expected);
}

/* The measure named `word` (not `self`) into *ref; else a question with candidates. */
static int measure_ref(floe_gold_mart *m, size_t self, const char *word, size_t *ref)
{
	const gold_measure *g = &m->measures[self];
	int i = gold_measure_named(m, word);
	if (i >= 0 && (size_t)i != self) {
		*ref = (size_t)i;
		return 0;
	}
	const char **names = floe_arena_alloc(m->a, (m->n_measures + 1) * sizeof(*names));
	for (size_t k = 0; k < m->n_measures; k++)
		names[k] = m->measures[k].hidden || k == self ? "" : m->measures[k].name;
	const char *c = candidates(m->a, "", word, names, m->n_measures);
	gold_ask(m, FLOE_GOLD_Q_UNKNOWN_WORD, g->label, g->term->line, "`%s` in \"%s\" names no measure%s%s", word,
		 g->term->text, c ? "; did you mean " : ".", c ? floe_arena_printf(m->a, "%s?", c) : "");
	return -1;
}

/* One side of `X divided by Y`: a measure's name (its index in *ref) or an inline aggregate. */
static int ratio_side(floe_gold_mart *m, size_t self, const char *text, const char *side, size_t *ref)
{
	gold_measure *g = &m->measures[self];
	floe_gold_term term = { .text = text, .line = g->term->line, .col = g->term->col };
	phrase ph;
	phrase_init(&ph, m, &term, g->label, NULL);
	accept(&ph, "the");
	const tok *t = peek(&ph, 0);
	if (t->k == T_WORD && peek(&ph, 1)->k == T_END && !is_word(t, "number"))
		return measure_ref(m, self, t->text, ref);
	const char *name = floe_arena_printf(m->a, "floe_%s_%s", g->name, side);
	gold_measure *h = FLOE_ARENA_PUSH(m->a, m->measures, m->n_measures, m->cap_measures);
	g = &m->measures[self];
	*h = (gold_measure){ .name = name, .hidden = true, .term = g->term, .label = g->label };
	*ref = m->n_measures - 1;
	gold_uses u = { 0 };
	ph.uses = &u;
	ph.at = 0;
	if (aggregate(&ph, &m->measures[*ref]) < 0 || finish(&ph, agg_expected) < 0)
		return -1;
	h = &m->measures[*ref];
	for (size_t i = 0; i + 1 < m->n_measures; i++) /* the same aggregate as a named measure: that one */
		if (!m->measures[i].hidden && m->measures[i].kind == GOLD_AGGREGATE && m->measures[i].agg_sql &&
		    m->measures[i].fact == h->fact && strcmp(m->measures[i].agg_sql, h->agg_sql) == 0) {
			m->n_measures--;
			*ref = i;
			break;
		}
	return 0;
}

static int ratio(floe_gold_mart *m, size_t self, const char *at)
{
	const char *text = m->measures[self].term->text;
	const char *num = floe_arena_strndup(m->a, text, (size_t)(at - text));
	const char *den = at + strlen(" divided by ");
	size_t n = 0, d = 0;
	int rn = ratio_side(m, self, num, "num", &n);
	int rd = ratio_side(m, self, den, "den", &d);
	if (rn < 0 || rd < 0)
		return -1;
	gold_measure *g = &m->measures[self];
	g->kind = GOLD_RATIO;
	g->num = n;
	g->den = d;
	return 0;
}

/*
 * `… through <table>`: the aggregate's rows reach the dimensions through that table (order_items
 * for a review's sellers), each counted once per distinct dimension values of its bridge rows.
 * Not additive: a row counts for each of them.
 */
static int through(phrase *ph, gold_measure *g)
{
	if (!accept(ph, "through"))
		return 0;
	const tok *t = peek(ph, 0);
	size_t ti = 0;
	if (t->k != T_WORD)
		return unsupported(ph, "`through <table>` (the table that links the rows to the dimensions)");
	ph->at++;
	if (!gold_table_named(ph->m, t->text, &ti)) {
		ask_table(ph, t->text);
		return -1;
	}
	g->bridged = true;
	g->bridge = ti;
	g->additive = false;
	return 0;
}

static const struct {
	const char *word;
	int buckets;
} tiles[] = { { "tercile", 3 }, { "quartile", 4 }, { "quintile", 5 }, { "decile", 10 } };

static const char window_expected[] = "`quintile of <measure>` (tercile, quartile, decile too) or "
				      "`share of <measure> [within <dimension>]`";

/* `[the] quintile of M` or `[the] share of M [within D]`: 1 when the phrase is one (resolved or asked), 0 when not. */
static int window(floe_gold_mart *m, size_t self, phrase *ph)
{
	const tok *t = peek(ph, 0);
	int buckets = 0;
	for (size_t i = 0; i < sizeof(tiles) / sizeof(tiles[0]); i++)
		buckets = is_word(t, tiles[i].word) ? tiles[i].buckets : buckets;
	if ((!buckets && !is_word(t, "share")) || !is_word(peek(ph, 1), "of"))
		return 0;
	ph->at += 2;
	accept(ph, "the");
	const tok *w = peek(ph, 0);
	size_t of = 0;
	if (w->k != T_WORD) {
		unsupported(ph, window_expected);
		return 1;
	}
	ph->at++;
	if (measure_ref(m, self, w->text, &of) < 0)
		return 1;
	gold_measure *g = &m->measures[self];
	g->kind = buckets ? GOLD_NTILE : GOLD_SHARE;
	g->num = of;
	g->buckets = buckets;
	if (!buckets && accept(ph, "within")) {
		const tok *d = peek(ph, 0);
		if (d->k != T_WORD || !gold_in_grain(m->desc, d->text)) {
			gold_ask(m, FLOE_GOLD_Q_UNKNOWN_WORD, g->label, g->term->line,
				 "`within` names a dimension of the grain, and `%s` is none.", d->k == T_END ? "" : d->text);
			return 1;
		}
		g->within = d->text;
		ph->at++;
	}
	if (peek(ph, 0)->k != T_END)
		unsupported(ph, window_expected);
	return 1;
}

int gold_phrase_measure(floe_gold_mart *m, size_t index)
{
	gold_measure *g = &m->measures[index];
	const char *div = strcasestr(g->term->text, " divided by ");
	if (div)
		return ratio(m, index, div);
	phrase wp;
	phrase_init(&wp, m, g->term, g->label, NULL);
	accept(&wp, "the");
	if (window(m, index, &wp))
		return 0;
	phrase ph;
	gold_uses u = { 0 };
	phrase_init(&ph, m, g->term, g->label, &u);
	if (aggregate(&ph, g) < 0 || through(&ph, &m->measures[index]) < 0 || finish(&ph, agg_expected) < 0)
		return -1;
	return 0;
}

/* ---- filters ---- */

static const char filter_expected[] =
	"a condition such as `table.column is not 'value'`, `table.column >= 10`, `table.column in ('a', 'b')`, "
	"or one on a measure (`revenue > 1000`), joined by and/or";

static int not_expr_in(phrase *ph, floe_buf *b);

static bool literal(phrase *ph, floe_buf *b)
{
	const tok *t = peek(ph, 0);
	if (t->k == T_STRING)
		floe_buf_put_quoted(b, t->text, '\'');
	else if (t->k == T_NUMBER)
		floe_buf_puts(b, t->text);
	else if (is_word(t, "true") || is_word(t, "false"))
		floe_buf_puts(b, t->text);
	else
		return false;
	ph->at++;
	return true;
}

static const char *const keywords[] = { "and", "or", "not", "is", "in", "between", "null", "true", "false", NULL };

/* A column, a measure's name or a literal. */
static int operand(phrase *ph, floe_buf *b)
{
	const tok *t = peek(ph, 0);
	if (literal(ph, b))
		return 0;
	if (t->k == T_DOTTED) {
		const char *sql = NULL;
		ph->at++;
		if (column(ph, t, &sql, NULL) < 0)
			return -1;
		floe_buf_puts(b, sql);
		ph->columns = true;
		return 0;
	}
	if (t->k != T_WORD || in_list(t->text, keywords))
		return unsupported(ph, filter_expected);
	ph->at++;
	int i = gold_measure_named(ph->m, t->text);
	if (i >= 0) {
		gold_ident(b, ph->m->measures[i].name);
		ph->measures = true;
		return 0;
	}
	const char *c = candidates(ph->m->a, "", t->text, table_names(ph->m), ph->m->n_tables);
	gold_ask(ph->m, FLOE_GOLD_Q_UNKNOWN_WORD, ph->label, ph->line,
		 "`%s` in \"%s\" names no measure and is not a column (write `table.column`%s%s)", t->text, ph->text,
		 c ? "; a table named like it: " : "", c ? c : "");
	ph->asked = true;
	return -1;
}

static int literal_list(phrase *ph, floe_buf *b)
{
	if (!accept_op(ph, "("))
		return unsupported(ph, "`in (` and a list of values `)`");
	floe_buf_putc(b, '(');
	do {
		if (b->ptr[b->len - 1] != '(')
			floe_buf_puts(b, ", ");
		if (!literal(ph, b))
			return unsupported(ph, "a list of values ('a', 2, …)");
	} while (accept_op(ph, ","));
	if (!accept_op(ph, ")"))
		return unsupported(ph, "`)` closing the list");
	floe_buf_putc(b, ')');
	return 0;
}

/* operand [cmp operand | is [not] null | is [not] literal | [not] in (…) | between a and b] */
static int comparison(phrase *ph, floe_buf *b)
{
	if (operand(ph, b) < 0)
		return -1;
	const tok *t = peek(ph, 0);
	static const char *const cmps[] = { "=", "!=", "<>", "<", "<=", ">", ">=", NULL };
	if (t->k == T_OP && in_list(t->text, cmps)) {
		ph->at++;
		floe_buf_printf(b, " %s ", strcmp(t->text, "!=") == 0 ? "<>" : t->text);
		return operand(ph, b);
	}
	if (accept(ph, "is")) {
		bool neg = accept(ph, "not");
		if (accept(ph, "null")) {
			floe_buf_puts(b, neg ? " is not null" : " is null");
			return 0;
		}
		floe_buf_puts(b, neg ? " is distinct from " : " is not distinct from ");
		return literal(ph, b) ? 0 : unsupported(ph, "`is [not] null` or `is [not] 'value'`");
	}
	bool neg = accept(ph, "not");
	if (accept(ph, "in")) {
		floe_buf_puts(b, neg ? " not in " : " in ");
		return literal_list(ph, b);
	}
	if (!neg && accept(ph, "between")) {
		floe_buf_puts(b, " between ");
		if (!literal(ph, b) || !accept(ph, "and"))
			return unsupported(ph, "`between <value> and <value>`");
		floe_buf_puts(b, " and ");
		return literal(ph, b) ? 0 : unsupported(ph, "`between <value> and <value>`");
	}
	return neg ? unsupported(ph, filter_expected) : 0;
}

static int not_expr(phrase *ph, floe_buf *b)
{
	if (ph->depth > 32)
		return unsupported(ph, "a condition nested less deeply");
	ph->depth++;
	int rc = not_expr_in(ph, b);
	ph->depth--;
	return rc;
}

static int not_expr_in(phrase *ph, floe_buf *b)
{
	if (accept(ph, "not")) {
		floe_buf_puts(b, "not ");
		return not_expr(ph, b);
	}
	if (accept_op(ph, "(")) {
		floe_buf_putc(b, '(');
		if (or_expr(ph, b) < 0 || !accept_op(ph, ")"))
			return ph->asked ? -1 : unsupported(ph, "`)`");
		floe_buf_putc(b, ')');
		return 0;
	}
	return comparison(ph, b);
}

static int and_expr(phrase *ph, floe_buf *b)
{
	if (not_expr(ph, b) < 0)
		return -1;
	while (accept(ph, "and")) {
		floe_buf_puts(b, " and ");
		if (not_expr(ph, b) < 0)
			return -1;
	}
	return 0;
}

static int or_expr(phrase *ph, floe_buf *b)
{
	if (and_expr(ph, b) < 0)
		return -1;
	while (accept(ph, "or")) {
		floe_buf_puts(b, " or ");
		if (and_expr(ph, b) < 0)
			return -1;
	}
	return 0;
}

int gold_phrase_filter(floe_gold_mart *m, gold_filter *f)
{
	phrase ph;
	floe_buf b = FLOE_BUF_INIT;
	int error = -1;
	phrase_init(&ph, m, f->term, f->label, &f->uses);
	floe_buf_putc(&b, '(');
	if (or_expr(&ph, &b) < 0 || finish(&ph, filter_expected) < 0)
		goto cleanup;
	floe_buf_putc(&b, ')');
	if (ph.columns && ph.measures) {
		gold_ask(m, FLOE_GOLD_Q_UNSUPPORTED, f->label, f->term->line,
			 "\"%s\" mixes columns (filtered before aggregation) and measures (after); write them as two "
			 "filters.", f->term->text);
		goto cleanup;
	}
	f->on_measures = ph.measures;
	f->sql = floe_arena_strdup(m->a, b.ptr);
	error = 0;
cleanup:
	floe_buf_free(&b);
	return error;
}
