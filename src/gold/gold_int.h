/*
 * gold_int.h — what the files of src/gold share: the resolved mart (resolve.c, join.c)
 * that sql.c turns into the dbt model and its tests.
 */
#ifndef FLOE_GOLD_INT_H
#define FLOE_GOLD_INT_H

#include "gold/gold.h"
#include "base/arena.h"

#define GOLD_MAX_PATH 4                   /* foreign-key hops from a fact to a table */

/* A silver table as descriptions name it ("orders" for silver.orders). */
typedef struct gold_table {
	const char *name;
	const char *model;                /* the dbt model ref() names ("orders") */
	const floe_lock_silver *s;
} gold_table;

/* A many-to-one foreign key: from.columns reference to's key (fields). */
typedef struct gold_edge {
	size_t from, to;
	const char **columns, **fields;
	size_t n;
} gold_edge;

/* A path of edges (indexes into mart->edges) from a fact table. */
typedef struct gold_path {
	size_t edges[GOLD_MAX_PATH];
	size_t n;
} gold_path;

/* Tables a term reads, with the `via t.c` that picks its join path (NULL: any single path). */
typedef struct gold_uses {
	size_t *tables;
	size_t n, cap;
	const char *via_table, *via_column;
} gold_uses;

typedef struct gold_dim {
	const char *name;
	const char *sql;
	gold_uses uses;
	const floe_gold_term *term;
} gold_dim;

typedef enum gold_measure_kind {
	GOLD_AGGREGATE = 0,               /* agg_sql over the fact table */
	GOLD_RATIO,                       /* num / den, both measures */
	GOLD_NTILE,                       /* the bucket (1..buckets) of measure `num` among the mart's rows */
	GOLD_SHARE                        /* measure `num` over its total per `within` (a dimension; NULL: all rows) */
} gold_measure_kind;

typedef struct gold_measure {
	const char *name;
	bool hidden;                      /* an aggregate written inline in a ratio */
	gold_measure_kind kind;
	size_t fact;                      /* AGGREGATE: the table aggregated */
	const char *agg_sql;              /* sum("order_items"."price") */
	bool additive;                    /* sum, count: totals reconcile with silver */
	bool count_like;                  /* count, count distinct: 0 where the fact has no rows */
	size_t num, den;                  /* RATIO; NTILE and SHARE: num */
	int buckets;                      /* NTILE */
	const char *within;               /* SHARE */
	gold_uses uses;                   /* AGGREGATE: tables its condition reads (rate of) */
	bool bridged;                     /* AGGREGATE `through` a table: dimensions reached from `bridge` */
	size_t bridge;
	const char *num_name, *den_name;  /* RATIO, until resolved to indexes */
	const floe_gold_term *term;
	const char *label;                /* "measures.revenue" */
	const char *drafted;              /* the model's accepted draft; NULL: by rule */
} gold_measure;

typedef struct gold_filter {
	const char *sql;
	gold_uses uses;
	bool on_measures;                 /* applied after aggregation */
	const floe_gold_term *term;
	const char *label;
} gold_filter;

/* Joins from one table: the edges used, each table reached once. */
typedef struct gold_joins {
	size_t from;
	size_t *edges;
	size_t n_edges, cap_edges;
} gold_joins;

/*
 * One fact table aggregated at the grain. Bridged (`through B`): the dimensions are reached from
 * B, whose rows are first reduced to the distinct (key of `parent`, dimensions) pairs; the fact
 * joins them on the parent's key (a review counted once for each seller of its order).
 */
typedef struct gold_fact {
	size_t table;
	gold_joins joins;
	bool bridged;
	size_t bridge, parent;
	gold_joins bridge_joins;
} gold_fact;

struct floe_gold_mart {
	floe_arena *a;
	const floe_gold_desc *desc;
	gold_table *tables;
	size_t n_tables, cap_tables;
	gold_edge *edges;
	size_t n_edges, cap_edges;
	gold_dim *dims;
	size_t n_dims, cap_dims;
	gold_measure *measures;
	size_t n_measures, cap_measures;
	gold_filter *filters;
	size_t n_filters, cap_filters;
	gold_fact *facts;
	size_t n_facts, cap_facts;
	const char **reads;               /* "silver.orders.order_status", as read */
	size_t n_reads, cap_reads;
	floe_gold_question *questions;
	size_t n_questions, cap_questions;
	const floe_gold_model *model;     /* NULL: rules only */
};

/* resolve.c */
const gold_table *gold_table_named(const floe_gold_mart *m, const char *name, size_t *index);
int gold_measure_named(const floe_gold_mart *m, const char *name);
bool gold_in_grain(const floe_gold_desc *d, const char *name);
void gold_ask(floe_gold_mart *m, floe_gold_question_kind kind, const char *term, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void gold_uses_add(floe_gold_mart *m, gold_uses *u, size_t table);

/* phrase.c: one term's text → SQL over quoted table aliases, or questions */
int gold_phrase_dimension(floe_gold_mart *m, gold_dim *d);
int gold_phrase_measure(floe_gold_mart *m, size_t measure);
int gold_phrase_filter(floe_gold_mart *m, gold_filter *f);

/* join.c: each fact's joins to the tables its dimensions and filters read */
void gold_join_facts(floe_gold_mart *m);
void gold_join_sql(floe_buf *b, const floe_gold_mart *m, const gold_joins *j);

/* invent.c: whether `expr` (a model's draft for `term`) states only what the description does;
 * *reason NULL when it does, else why not; the silver tables it reads into *tables. -1: an engine error. */
int gold_invention_check(const char **reason, gold_uses *tables, floe_gold_mart *m, const char *term, const char *expr);

/* ollama.c: the model's answer to `prompt` (one expression, fences and ';' removed). */
int gold_ollama_generate(floe_buf *out, const char *endpoint, const char *model, const char *prompt);

/* draft_model.c: a measure the rules left with a question, drafted by the model and checked. */
void gold_model_measure(floe_gold_mart *m, size_t measure);

/* A quoted SQL identifier. */
void gold_ident(floe_buf *b, const char *name);

#endif
