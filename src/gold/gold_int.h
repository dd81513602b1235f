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
	GOLD_RATIO                        /* num / den, both measures */
} gold_measure_kind;

typedef struct gold_measure {
	const char *name;
	bool hidden;                      /* an aggregate written inline in a ratio */
	gold_measure_kind kind;
	size_t fact;                      /* AGGREGATE: the table aggregated */
	const char *agg_sql;              /* sum("order_items"."price") */
	bool additive;                    /* sum, count: totals reconcile with silver */
	bool count_like;                  /* count, count distinct: 0 where the fact has no rows */
	size_t num, den;                  /* RATIO */
	const char *num_name, *den_name;  /* RATIO, until resolved to indexes */
	const floe_gold_term *term;
	const char *label;                /* "measures.revenue" */
} gold_measure;

typedef struct gold_filter {
	const char *sql;
	gold_uses uses;
	bool on_measures;                 /* applied after aggregation */
	const floe_gold_term *term;
	const char *label;
} gold_filter;

/* The joins of one fact table: the edges used, each table once. */
typedef struct gold_fact {
	size_t table;
	size_t *edges;
	size_t n_edges, cap_edges;
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
};

/* resolve.c */
const gold_table *gold_table_named(const floe_gold_mart *m, const char *name, size_t *index);
int gold_measure_named(const floe_gold_mart *m, const char *name);
void gold_ask(floe_gold_mart *m, floe_gold_question_kind kind, const char *term, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void gold_uses_add(floe_gold_mart *m, gold_uses *u, size_t table);

/* phrase.c: one term's text → SQL over quoted table aliases, or questions */
int gold_phrase_dimension(floe_gold_mart *m, gold_dim *d);
int gold_phrase_measure(floe_gold_mart *m, size_t measure);
int gold_phrase_filter(floe_gold_mart *m, gold_filter *f);

/* join.c: each fact's joins to the tables its dimensions and filters read */
void gold_join_facts(floe_gold_mart *m);
void gold_join_sql(floe_buf *b, const floe_gold_mart *m, const gold_fact *f);

/* A quoted SQL identifier. */
void gold_ident(floe_buf *b, const char *name);

#endif
