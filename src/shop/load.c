/*
 * load.c — floe_shop_generate: the whole shop in one transaction.
 *
 *   BEGIN; [CREATE SCHEMA]; [DROP the old shop]; pre-data DDL;
 *   COPY … FROM STDIN (FORMAT binary, FREEZE) for every table;
 *   post-data DDL (keys, foreign keys, indexes, triggers); COMMIT;
 *   then the checksum, in a snapshot of its own.
 *
 * Rows (rows.c) are made by a generator thread into a ring of chunk buffers
 * while this thread streams earlier chunks through libpq, so on two cores the
 * server parses one chunk while the next is made. The generator never fails;
 * when the load does, it is told to stop and joined before the rollback.
 */
#include "shop/shop_int.h"
#include "base/error.h"
#include "base/log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK_BYTES (1u << 20)
#define ORDERS_PER_GROUP 16384
#define RING 12
#define FIRST_ORDER_TABLE SHOP_T_CUSTOMERS
#define N_ORDER_TABLES (SHOP_N_TABLES - FIRST_ORDER_TABLE)

/*
 * One piece of a COPY stream. A pool table (categories, geolocation, sellers,
 * products) is one COPY in several chunks; the per-order tables are loaded in
 * groups of orders, each group one COPY per table, so every order is built once
 * for all five of them.
 */
typedef struct chunk {
	floe_buf buf;
	int table;          /* -1: no more chunks */
	bool begin, end;    /* this chunk starts / finishes a COPY */
} chunk;

typedef struct pipeline {
	pthread_mutex_t mu;
	pthread_cond_t changed;
	chunk slots[RING];
	int head, filled; /* filled slots start at head */
	bool stop;
	const shop_world *world;
} pipeline;

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the ring ---- */

/* Producer: wait for `n` free slots; the index of the first, or -1 when told to stop. */
static int ring_claim(pipeline *p, int n)
{
	pthread_mutex_lock(&p->mu);
	while (RING - p->filled < n && !p->stop)
		pthread_cond_wait(&p->changed, &p->mu);
	int first = p->stop ? -1 : (p->head + p->filled) % RING;
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; first >= 0 && i < n; i++)
		floe_buf_clear(&p->slots[(first + i) % RING].buf);
	return first;
}

static void ring_publish(pipeline *p, int n)
{
	pthread_mutex_lock(&p->mu);
	p->filled += n;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
}

/* Consumer: the oldest filled slot, held until ring_release. */
static chunk *ring_take(pipeline *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->filled == 0)
		pthread_cond_wait(&p->changed, &p->mu);
	chunk *c = &p->slots[p->head];
	pthread_mutex_unlock(&p->mu);
	return c;
}

static void ring_release(pipeline *p)
{
	pthread_mutex_lock(&p->mu);
	p->head = (p->head + 1) % RING;
	p->filled--;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
}

static void ring_stop(pipeline *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
}

/* ---- the generator thread ---- */

static int generate_pool(pipeline *p, int t)
{
	uint32_t units = shop_rows_units(p->world, (shop_table_id)t), i = 0;
	do {
		int k = ring_claim(p, 1);
		if (k < 0)
			return -1;
		chunk *c = &p->slots[k];
		c->table = t;
		c->begin = i == 0;
		if (c->begin)
			shop_rows_header(&c->buf);
		while (i < units && c->buf.len < CHUNK_BYTES) {
			shop_rows_emit(&c->buf, p->world, (shop_table_id)t, i, i + 1);
			i++;
		}
		c->end = i == units;
		if (c->end)
			shop_rows_trailer(&c->buf);
		ring_publish(p, 1);
	} while (i < units);
	return 0;
}

static int generate_orders(pipeline *p, uint32_t from, uint32_t to)
{
	int k = ring_claim(p, N_ORDER_TABLES);
	if (k < 0)
		return -1;
	chunk *c[N_ORDER_TABLES];
	for (int t = 0; t < N_ORDER_TABLES; t++) {
		c[t] = &p->slots[(k + t) % RING];
		c[t]->table = FIRST_ORDER_TABLE + t;
		c[t]->begin = c[t]->end = true;
		shop_rows_header(&c[t]->buf);
	}
	shop_order o;
	for (uint32_t i = from; i < to; i++) {
		shop_order_build(&o, p->world, i);
		for (int t = 0; t < N_ORDER_TABLES; t++)
			shop_rows_emit_order(&c[t]->buf, p->world, (shop_table_id)(FIRST_ORDER_TABLE + t), &o);
	}
	for (int t = 0; t < N_ORDER_TABLES; t++)
		shop_rows_trailer(&c[t]->buf);
	ring_publish(p, N_ORDER_TABLES);
	return 0;
}

static void *generate_rows(void *arg)
{
	pipeline *p = arg;
	for (int t = 0; t < FIRST_ORDER_TABLE; t++)
		if (generate_pool(p, t) < 0)
			return NULL;
	for (uint32_t i = 0; i < p->world->n_orders; i += ORDERS_PER_GROUP) {
		uint32_t to = p->world->n_orders - i < ORDERS_PER_GROUP ? p->world->n_orders : i + ORDERS_PER_GROUP;
		if (generate_orders(p, i, to) < 0)
			return NULL;
	}
	int k = ring_claim(p, 1);
	if (k >= 0) {
		p->slots[k].table = -1;
		ring_publish(p, 1);
	}
	return NULL;
}

/* ---- statements ---- */

static int exec_all(floe_pg *pg, const char *const *sql)
{
	for (; *sql; sql++) {
		double start = now_seconds();
		if (floe_pg_exec(pg, *sql) < 0)
			return -1;
		floe_log_debug("shop: %.3f s  %.60s", now_seconds() - start, *sql);
	}
	return 0;
}

/* The shop's objects already in `schema`, comma-separated into `found` ("" when none). */
static int existing_objects(floe_buf *found, floe_pg *pg, const char *schema)
{
	static const char sql[] =
		"SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
		"WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname IN "
		"('product_categories', 'geolocation', 'sellers', 'products', 'customers', 'orders', "
		"'order_items', 'payments', 'reviews') "
		"UNION ALL SELECT 'type ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
		"WHERE n.nspname = $1 AND t.typname = 'order_status' ORDER BY 1";
	floe_pg_result *r = NULL;
	const char *params[1] = { schema };
	if (floe_pg_query(&r, pg, sql, 1, params) < 0)
		return -1;
	for (int i = 0; i < floe_pg_result_rows(r); i++)
		floe_buf_printf(found, "%s%s", i ? ", " : "", floe_pg_result_text(r, i, 0));
	floe_pg_result_free(r);
	return 0;
}

static int prepare_schema(floe_pg *pg, const floe_shop_generate_opts *opts)
{
	floe_buf sql = FLOE_BUF_INIT, found = FLOE_BUF_INIT;
	int error = -1;
	bool exists = false;
	const char *params[1] = { opts->schema };
	/* Only a missing schema is created: CREATE SCHEMA wants CREATE on the database even when it exists. */
	if (shop_value(NULL, &exists, pg, "SELECT 1 FROM pg_namespace WHERE nspname = $1", 1, params) < 0)
		goto cleanup;
	floe_buf_puts(&sql, "CREATE SCHEMA ");
	if (!exists && (floe_pg_quote_ident(&sql, pg, opts->schema) < 0 || floe_pg_exec(pg, floe_buf_cstr(&sql)) < 0))
		goto cleanup;
	if (shop_use_schema(pg, opts->schema) < 0 || existing_objects(&found, pg, opts->schema) < 0)
		goto cleanup;
	if (found.len && !opts->replace) {
		floe_error_set(FLOE_ERR_EXISTS, "schema \"%s\" already holds a shop (%s)", opts->schema,
			       floe_buf_cstr(&found));
		floe_error_hint("Pass --replace to drop it and generate again, or --schema NAME for another schema.");
		goto cleanup;
	}
	if (found.len && exec_all(pg, shop_schema_drop) < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_buf_free(&sql);
	floe_buf_free(&found);
	return error;
}

/* ---- the load ---- */

/* Send one chunk, opening and closing its COPY as it says. */
static int copy_chunk(floe_shop_generate_result *res, floe_pg *pg, const chunk *c, double *opened)
{
	floe_buf sql = FLOE_BUF_INIT;
	long long rows = 0;
	int error = -1;
	const shop_table *t = &shop_tables[c->table];
	if (c->begin) {
		*opened = now_seconds();
		floe_buf_printf(&sql, "COPY %s (%s) FROM STDIN WITH (FORMAT binary, FREEZE)", t->name, t->columns);
		if (floe_pg_copy_in_begin(pg, floe_buf_cstr(&sql)) < 0)
			goto cleanup;
	}
	if (floe_pg_copy_in_put(pg, c->buf.ptr, c->buf.len) < 0)
		goto cleanup;
	if (c->end) {
		if (floe_pg_copy_in_end(&rows, pg) < 0)
			goto cleanup;
		res->table_rows[c->table] += rows;
		res->table_seconds[c->table] += now_seconds() - *opened;
		res->rows += rows;
	}
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while loading table \"%s\"", t->name);
	floe_buf_free(&sql);
	return error;
}

static int load_tables(floe_shop_generate_result *res, floe_pg *pg, const shop_world *w)
{
	pipeline p;
	pthread_t thread;
	int error = 0;
	double opened = 0;
	memset(&p, 0, sizeof(p));
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.changed, NULL);
	p.world = w;
	for (int i = 0; i < RING; i++)
		floe_buf_init(&p.slots[i].buf, 0);
	if (pthread_create(&thread, NULL, generate_rows, &p) != 0) {
		floe_error_set(FLOE_ERR_INTERNAL, "could not start the row generator thread");
		error = -1;
	} else {
		for (;;) {
			chunk *c = ring_take(&p);
			if (c->table < 0)
				break;
			error = copy_chunk(res, pg, c, &opened);
			ring_release(&p);
			if (error < 0)
				break;
		}
		ring_stop(&p);
		pthread_join(thread, NULL);
	}
	for (int t = 0; t < SHOP_N_TABLES && error == 0; t++)
		floe_log_info("shop: %s: %lld rows in %.2f s", shop_tables[t].name, res->table_rows[t],
			      res->table_seconds[t]);
	for (int i = 0; i < RING; i++)
		floe_buf_free(&p.slots[i].buf);
	pthread_cond_destroy(&p.changed);
	pthread_mutex_destroy(&p.mu);
	return error;
}

static int build_in_transaction(floe_shop_generate_result *res, floe_pg *pg, const shop_world *w,
				const floe_shop_generate_opts *opts)
{
	double start = now_seconds();
	if (floe_pg_begin(pg) < 0 || prepare_schema(pg, opts) < 0 ||
	    floe_pg_exec(pg, "SET LOCAL maintenance_work_mem = '256MB'") < 0 || exec_all(pg, shop_schema_pre) < 0)
		return -1;
	if (load_tables(res, pg, w) < 0)
		return -1;
	double loaded = now_seconds();
	res->seconds_load = loaded - start;
	static const char *const finish[] = { "COMMIT", NULL };
	if (exec_all(pg, shop_schema_post) < 0 || exec_all(pg, finish) < 0) {
		floe_error_context("while adding keys, foreign keys, indexes and triggers");
		return -1;
	}
	res->seconds_post = now_seconds() - loaded;
	return 0;
}

int floe_shop_generate(floe_shop_generate_result *out, floe_pg *pg, const floe_shop_generate_opts *opts)
{
	shop_world *w = NULL;
	double start = now_seconds();
	int error = -1;
	memset(out, 0, sizeof(*out));
	if (!opts->schema || !opts->schema[0]) {
		floe_error_set(FLOE_ERR_USAGE, "the schema name is empty");
		return -1;
	}
	if (shop_world_build(&w, opts->seed, opts->scale) < 0)
		return -1;
	if (build_in_transaction(out, pg, w, opts) < 0) {
		floe_pg_rollback(pg);
		floe_error_context("while generating the shop in schema \"%s\" (nothing was kept)", opts->schema);
		goto cleanup;
	}
	double checked = now_seconds();
	if (floe_shop_checksum(&out->sum, pg, opts->schema) < 0)
		goto cleanup;
	out->seconds_checksum = now_seconds() - checked;
	out->seconds_total = now_seconds() - start;
	error = 0;
cleanup:
	shop_world_free(w);
	return error;
}

const char *floe_shop_table_name(int i)
{
	return i >= 0 && i < SHOP_N_TABLES ? shop_tables[i].name : NULL;
}

const char *floe_shop_status_name(int i)
{
	return i >= 0 && i < SHOP_N_STATUS ? shop_status_names[i] : NULL;
}
