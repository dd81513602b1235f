/*
 * shop.h — `floe shop`: an Olist-shaped e-commerce source in PostgreSQL whose
 * truth is known, with live traffic and schema changes.
 *
 *   floe_shop_generate  create the schema and fill it, deterministically for a
 *                       (scale, seed), in one transaction, and checksum it
 *   floe_shop_checksum  the contents' checksum as PostgreSQL computes it
 *   floe_shop_tick      OLTP traffic: new orders, status progressions, reviews,
 *                       deletes, and late commits
 *   floe_shop_evolve    one realistic schema change, reported with its DDL
 *
 * Every function takes a session that may write (floe_pg_target.read_only =
 * false) as the owner of the source's objects; the caller opens and closes it.
 * What the data models, and where its numbers come from: src/shop/README.md.
 */
#ifndef FLOE_SHOP_SHOP_H
#define FLOE_SHOP_SHOP_H

#include "base/buf.h"
#include "pg/pg.h"

#include <stdbool.h>
#include <stdint.h>

#define FLOE_SHOP_N_TABLES 9
#define FLOE_SHOP_MAX_SCALE 200.0

/*
 * The checksum of one table — its row count and the sum of a 64-bit hash of
 * every row, computed by PostgreSQL (so it does not depend on row order) — and
 * of the whole shop: md5 over every table's "name rows sum" line.
 */
typedef struct floe_shop_table_sum {
	const char *table; /* static */
	long long rows;
	char hash[48];     /* the sum, in decimal */
} floe_shop_table_sum;

typedef struct floe_shop_checksum {
	floe_shop_table_sum tables[FLOE_SHOP_N_TABLES];
	int n_tables;
	long long rows;
	char md5[33];
} floe_shop_sum;

/* ---- generate ---- */

typedef struct floe_shop_generate_opts {
	double scale;         /* 1 = Olist's size; (0, FLOE_SHOP_MAX_SCALE] */
	uint64_t seed;
	const char *schema;   /* created when missing; "public" by default */
	bool replace;         /* drop an existing shop in the schema first (same transaction) */
} floe_shop_generate_opts;

#define FLOE_SHOP_GENERATE_OPTS_INIT { .scale = 1.0, .seed = 1, .schema = "public" }

typedef struct floe_shop_generate_result {
	floe_shop_sum sum;
	double seconds_total;    /* connect excluded, checksum included */
	double seconds_load;     /* COPY of every table */
	double seconds_post;     /* keys, foreign keys, indexes, triggers, commit */
	double seconds_checksum;
	double table_seconds[FLOE_SHOP_N_TABLES];
	long long table_rows[FLOE_SHOP_N_TABLES];
	long long rows;
} floe_shop_generate_result;

/*
 * Create the shop in opts->schema and fill it. One transaction: on any failure
 * nothing of it remains. Refuses (FLOE_ERR_EXISTS) when the schema already holds
 * a shop, unless opts->replace.
 */
int floe_shop_generate(floe_shop_generate_result *out, floe_pg *pg, const floe_shop_generate_opts *opts);

/* Checksum the shop in `schema` as it is now (one REPEATABLE READ snapshot). */
int floe_shop_checksum(floe_shop_sum *out, floe_pg *pg, const char *schema);

/* The shop's table names in load order (static strings); NULL past the last. */
const char *floe_shop_table_name(int i);

/* Order status label by its position in the enum (static); NULL when out of range. */
const char *floe_shop_status_name(int i);

/* ---- tick ---- */

typedef struct floe_shop_tick_opts {
	int orders;        /* new orders, with customers, items and payments */
	int updates;       /* status progressions of open orders (fire the updated_at triggers) */
	int deletes;       /* abandoned `created` orders removed with their rows */
	int late;          /* orders progressed in a transaction that commits last */
	int hold_ms;       /* how long the late transaction stays open after the others commit */
	uint64_t seed;     /* 0: from the clock */
	const char *schema;
} floe_shop_tick_opts;

#define FLOE_SHOP_TICK_OPTS_INIT \
	{ .orders = 10, \
	  .updates = 20, \
	  .deletes = 2, \
	  .late = 1, \
	  .hold_ms = 500, \
	  .schema = "public" }

typedef struct floe_shop_tick_result {
	int new_orders, new_customers, returning_customers, new_items, new_payments;
	int progressed[8];           /* by the status reached (index as the enum's order) */
	int progressed_total;
	int new_reviews, edited_reviews, payment_updates;
	int deleted_orders, deleted_items, deleted_payments, deleted_customers;
	int late;
	char late_stamp[40];        /* updated_at the late rows carry */
	char ontime_stamp[40];      /* updated_at of the rows committed before them */
	char late_order[40];        /* one late order's id, for showing */
	char seed[24];
} floe_shop_tick_result;

/*
 * Apply one tick. `late_pg` is a second session to the same database, used only
 * when opts->late > 0 (may be NULL otherwise): its transaction stamps its rows
 * first and commits after the main one. Progressions and deletes act on fewer
 * rows when fewer qualify; the result says what was done.
 */
int floe_shop_tick(floe_shop_tick_result *out, floe_pg *pg, floe_pg *late_pg,
		   const floe_shop_tick_opts *opts);

/* ---- evolve ---- */

typedef struct floe_shop_change_kind {
	const char *name;
	const char *summary;
	const char *default_table;
} floe_shop_change_kind;

/* The kinds `evolve` knows, in a stable order. */
const floe_shop_change_kind *floe_shop_evolve_kinds(int *n_out);

typedef struct floe_shop_evolve_opts {
	const char *kind;
	const char *table;    /* NULL: the kind's default table */
	const char *schema;
} floe_shop_evolve_opts;

#define FLOE_SHOP_EVOLVE_OPTS_INIT { .schema = "public" }

typedef struct floe_shop_evolve_result {
	char kind[32];
	char table[64];
	floe_buf ddl;        /* the statements run, one per line, each ending in ';' */
	floe_buf summary;    /* one sentence */
} floe_shop_evolve_result;

/* Apply one schema change in a transaction. Unknown kinds and tables: FLOE_ERR_USAGE. */
int floe_shop_evolve(floe_shop_evolve_result *out, floe_pg *pg, const floe_shop_evolve_opts *opts);
void floe_shop_evolve_result_free(floe_shop_evolve_result *r);

/* ---- stream ---- */

/*
 * The shop's live traffic as keyed JSON messages (what `floe shop stream` sends to
 * Kafka): new orders with their customer, items and payments; each step of an open
 * order; reviews at delivery; abandoned carts removed (tombstones: value NULL).
 * Reproducible: the same seed gives the same messages in the same order. Needs no
 * database: offers and places come from the shop's pools for the seed at a small scale.
 */
typedef struct floe_shop_stream floe_shop_stream;

/* One message: `table` is "orders", "customers", "order_items", "payments" or "reviews". */
typedef int (*floe_shop_emit_fn)(void *ctx, const char *table, const char *key, size_t key_len,
				 const char *value, size_t value_len);

int floe_shop_stream_new(floe_shop_stream **out, uint64_t seed);

/* Draw the next event and pass its messages to `emit`; the count of messages, or -1 (emit's error). */
int floe_shop_stream_next(floe_shop_stream *s, floe_shop_emit_fn emit, void *ctx);

void floe_shop_stream_free(floe_shop_stream *s);

#endif
