/*
 * tick.c — floe_shop_tick: a burst of OLTP traffic against a generated shop.
 *
 * One main transaction inserts new orders (each with its customer record,
 * items and payments), moves open orders one step along their lifecycle
 * (updates that fire the updated_at triggers; delivered ones get a review;
 * approvals settle the card's installments), edits a few reviews (whose
 * updated_at has no trigger, so it does not move), and deletes abandoned
 * `created` orders with their rows.
 *
 * A late commit: before the main transaction starts, a second session begins,
 * progresses a few other orders — stamping them with its own, earlier now() —
 * and commits only after the main transaction (held open `hold_ms` longer). A
 * reader that saw the main transaction's rows and remembered the newest
 * updated_at as its watermark never sees the late rows: that is the point.
 *
 * Times: business timestamps are Brasília local time (as generated); the
 * database clock gives "now". New offers and addresses are sampled from what
 * the shop already holds, so prices, sellers and places stay realistic.
 */
#include "shop/shop_int.h"
#include "base/arena.h"
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PARAMS 10
#define ID_LEN SHOP_ID_LEN

/* ---- statement parameters ---- */

typedef struct params {
	const char *v[MAX_PARAMS];
	char buf[MAX_PARAMS][72];
	int n;
} params;

static char *p_slot(params *p)
{
	p->v[p->n] = p->buf[p->n];
	return p->buf[p->n++];
}

static void p_fmt(params *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void p_fmt(params *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p_slot(p), sizeof(p->buf[0]), fmt, ap);
	va_end(ap);
}

static void p_str(params *p, const char *s)
{
	p->v[p->n++] = s;
}

static void p_uuid(params *p, const uint8_t id[16])
{
	shop_format_uuid(p_slot(p), id);
}

static void p_cents(params *p, int64_t cents)
{
	shop_format_cents(p_slot(p), cents);
}

static void p_ts(params *p, int64_t secs)
{
	char *s = p_slot(p);
	s[shop_format_timestamp(s, secs)] = '\0';
}

static void p_date(params *p, int64_t days)
{
	char *s = p_slot(p);
	s[shop_format_date(s, days)] = '\0';
}

/* Run a statement; *affected (when not NULL) gets the rows it touched. */
static int run(long long *affected, floe_pg *pg, const char *sql, const params *p)
{
	floe_pg_result *r = NULL;
	if (floe_pg_query(&r, pg, sql, p ? p->n : 0, p ? p->v : NULL) < 0)
		return -1;
	if (affected)
		*affected = floe_pg_result_affected(r);
	floe_pg_result_free(r);
	return 0;
}

/* ---- the tick's state ---- */

typedef shop_offer offer;
typedef shop_person person;

typedef struct tick {
	floe_pg *pg;
	const shop_world *prof;
	floe_shop_rng rng;
	floe_shop_tick_result *res;
	int64_t now;               /* seconds, Brasília local time */
	char stamp[40];            /* now() of this transaction, UTC */
	offer *offers;
	int n_offers;
	person *people;
	int n_people;
	floe_buf untouchable;      /* '{id,…}': orders the other transaction holds or this one created */
} tick;

static void untouchable_add(floe_buf *ids, const char *id)
{
	if (ids->len == 0)
		floe_buf_putc(ids, '{');
	else
		ids->ptr[ids->len - 1] = ','; /* the closing brace becomes a separator */
	floe_buf_printf(ids, "%s}", id);
}

static const char *untouchable(const tick *t)
{
	return t->untouchable.len ? floe_buf_cstr(&t->untouchable) : "{}";
}

static int read_clock(tick *t)
{
	floe_pg_result *r = NULL;
	if (floe_pg_query(&r, t->pg,
			  "SELECT extract(epoch FROM date_trunc('second', now() AT TIME ZONE 'America/Sao_Paulo'))::bigint, "
			  "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')",
			  0, NULL) < 0)
		return -1;
	t->now = floe_pg_result_int(r, 0, 0);
	snprintf(t->stamp, sizeof(t->stamp), "%s", floe_pg_result_text(r, 0, 1));
	floe_pg_result_free(r);
	return 0;
}

/* ---- samples of what the shop already has ---- */

/*
 * About `want` rows of `table` chosen at random (Bernoulli sampling, a few
 * times more than wanted, then cut), repeatable for the tick's seed.
 */
static int sample_rows(floe_pg_result **out, tick *t, const char *columns, const char *table, int want)
{
	params p = { 0 };
	floe_buf sql = FLOE_BUF_INIT;
	p_fmt(&p, "%d", want);
	p_fmt(&p, "%llu", (unsigned long long)(floe_shop_rng_next(&t->rng) >> 33));
	floe_buf_printf(&sql,
			"SELECT %s FROM %s TABLESAMPLE BERNOULLI (least(100, 100.0 * 4 * $1::int / "
			"greatest(1, (SELECT reltuples FROM pg_class WHERE oid = '%s'::regclass)))) "
			"REPEATABLE ($2::bigint) LIMIT $1::int",
			columns, table, table);
	int error = floe_pg_query(out, t->pg, floe_buf_cstr(&sql), p.n, p.v);
	floe_buf_free(&sql);
	return error;
}

static int sample_offers(tick *t, int want)
{
	floe_pg_result *r = NULL;
	if (sample_rows(&r, t, "product_id, seller_id, (price * 100)::bigint, (freight_value * 100)::bigint",
			"order_items", want) < 0)
		return -1;
	t->n_offers = floe_pg_result_rows(r);
	t->offers = floe_xcalloc((size_t)t->n_offers + 1, sizeof(offer));
	for (int i = 0; i < t->n_offers; i++) {
		offer *o = &t->offers[i];
		snprintf(o->product, ID_LEN, "%s", floe_pg_result_text(r, i, 0));
		snprintf(o->seller, ID_LEN, "%s", floe_pg_result_text(r, i, 1));
		o->price = floe_pg_result_int(r, i, 2);
		o->freight = floe_pg_result_int(r, i, 3);
	}
	floe_pg_result_free(r);
	return 0;
}

static int sample_people(tick *t, int want)
{
	floe_pg_result *r = NULL;
	if (sample_rows(&r, t, "customer_unique_id, customer_zip_code_prefix, customer_city, customer_state",
			"customers", want) < 0)
		return -1;
	t->n_people = floe_pg_result_rows(r);
	t->people = floe_xcalloc((size_t)t->n_people + 1, sizeof(person));
	for (int i = 0; i < t->n_people; i++) {
		person *q = &t->people[i];
		snprintf(q->unique, ID_LEN, "%s", floe_pg_result_text(r, i, 0));
		q->zip = floe_pg_result_int(r, i, 1);
		snprintf(q->city, sizeof(q->city), "%s", floe_pg_result_text(r, i, 2));
		snprintf(q->state, sizeof(q->state), "%s", floe_pg_result_text(r, i, 3));
	}
	floe_pg_result_free(r);
	return 0;
}

/* ---- new orders ---- */

static int insert_customer(tick *t, shop_order *o, const person *where, bool returning)
{
	params p = { 0 };
	char email[96];
	shop_customer_email(email, sizeof(email), o);
	p_uuid(&p, o->customer_id);
	if (returning)
		p_str(&p, where->unique);
	else
		p_uuid(&p, o->customer_unique);
	p_fmt(&p, "%lld", (long long)where->zip);
	p_str(&p, where->city);
	p_str(&p, where->state);
	p_str(&p, email);
	return run(NULL, t->pg,
		   "INSERT INTO customers (customer_id, customer_unique_id, customer_zip_code_prefix, customer_city, "
		   "customer_state, customer_email) VALUES ($1, $2, $3, $4, $5, $6)",
		   &p);
}

static int insert_items(tick *t, const shop_new_order *no, const char *order_id)
{
	const shop_order *o = &no->o;
	for (int k = 0; k < o->n_items; k++) {
		const offer *of = no->items[k];
		params p = { 0 };
		p_str(&p, order_id);
		p_fmt(&p, "%d", k + 1);
		p_str(&p, of->product);
		p_str(&p, of->seller);
		p_ts(&p, o->purchase + 6 * SHOP_DAY);
		p_cents(&p, of->price);
		p_cents(&p, of->freight);
		if (run(NULL, t->pg,
			"INSERT INTO order_items (order_id, order_item_id, product_id, seller_id, shipping_limit_date, "
			"price, freight_value) VALUES ($1, $2, $3, $4, $5, $6, $7)",
			&p) < 0)
			return -1;
		t->res->new_items++;
	}
	return 0;
}

static int insert_payments(tick *t, const shop_order *o, const char *order_id)
{
	for (int k = 0; k < o->n_payments; k++) {
		params p = { 0 };
		p_str(&p, order_id);
		p_fmt(&p, "%d", k + 1);
		p_str(&p, shop_payment_names[o->payments[k].type]);
		p_fmt(&p, "%d", o->payments[k].installments);
		p_cents(&p, o->payments[k].value_cents);
		if (run(NULL, t->pg,
			"INSERT INTO payments (order_id, payment_sequential, payment_type, payment_installments, "
			"payment_value) VALUES ($1, $2, $3, $4, $5)",
			&p) < 0)
			return -1;
		t->res->new_payments++;
	}
	return 0;
}

static int new_order(tick *t)
{
	shop_new_order no;
	char order_id[ID_LEN];
	params p = { 0 };
	shop_event_new_order(&no, t->prof, &t->rng, t->offers, t->n_offers, t->people, t->n_people, t->now);
	shop_order *o = &no.o;
	bool returning = no.returning;
	shop_format_uuid(order_id, o->id);
	if (insert_customer(t, o, no.where, returning) < 0)
		return -1;
	p_str(&p, order_id);
	p_uuid(&p, o->customer_id);
	p_ts(&p, o->purchase);
	p_date(&p, o->estimated_day);
	if (run(NULL, t->pg,
		"INSERT INTO orders (order_id, customer_id, order_status, order_purchase_timestamp, "
		"order_estimated_delivery_date) VALUES ($1, $2, 'created', $3, $4)",
		&p) < 0 ||
	    insert_items(t, &no, order_id) < 0 || insert_payments(t, o, order_id) < 0)
		return -1;
	untouchable_add(&t->untouchable, order_id);
	t->res->new_orders++;
	t->res->new_customers++;
	t->res->returning_customers += returning;
	return 0;
}

/* ---- progressions ---- */

typedef struct open_order {
	char id[ID_LEN];
	int status;
	int64_t last_event;
	int64_t estimated_day;
} open_order;

static int status_index(const char *name)
{
	for (int s = 0; s < SHOP_N_STATUS; s++)
		if (strcmp(shop_status_names[s], name) == 0)
			return s;
	return -1;
}

/* A review for an order delivered now: the customer answers the survey at once. */
static int insert_review(tick *t, const open_order *oo, int64_t at)
{
	shop_review rv;
	char text[512];
	params p = { 0 };
	shop_event_review(&rv, t->prof, &t->rng, at, oo->estimated_day);
	size_t n = shop_review_message(text, sizeof(text), &rv);
	const char *title = shop_review_title(&rv);
	p_uuid(&p, rv.id);
	p_str(&p, oo->id);
	p_fmt(&p, "%d", rv.score);
	p_str(&p, title);
	p_str(&p, n ? text : NULL);
	p_date(&p, at / SHOP_DAY);
	p_ts(&p, at);
	if (run(NULL, t->pg,
		"INSERT INTO reviews (review_id, order_id, review_score, review_comment_title, review_comment_message, "
		"review_creation_date, review_answer_timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7)",
		&p) < 0)
		return -1;
	t->res->new_reviews++;
	return 0;
}

/* The card's installments are settled at approval: an update the payments trigger stamps. */
static int settle_payments(tick *t, const char *order_id)
{
	params p = { 0 };
	long long n = 0;
	p_str(&p, order_id);
	p_fmt(&p, "%d", (int)floe_shop_dist_sample(&t->prof->installments, &t->rng));
	if (run(&n, t->pg,
		"UPDATE payments SET payment_installments = $2 WHERE order_id = $1 AND payment_type = 'credit_card'",
		&p) < 0)
		return -1;
	t->res->payment_updates += (int)n;
	return 0;
}

static int progress_one(tick *t, const open_order *oo)
{
	static const char *const set_time[SHOP_N_STATUS] = {
		[SHOP_APPROVED] = ", order_approved_at = $3",
		[SHOP_SHIPPED] = ", order_delivered_carrier_date = $3",
		[SHOP_DELIVERED] = ", order_delivered_customer_date = $3",
	};
	int next = shop_event_next_status(&t->rng, oo->status);
	int64_t at = t->now > oo->last_event ? t->now : oo->last_event;
	params p = { 0 };
	floe_buf sql = FLOE_BUF_INIT;
	p_str(&p, oo->id);
	p_str(&p, shop_status_names[next]);
	if (set_time[next])
		p_ts(&p, at);
	floe_buf_printf(&sql, "UPDATE orders SET order_status = $2%s WHERE order_id = $1",
			set_time[next] ? set_time[next] : "");
	int error = run(NULL, t->pg, floe_buf_cstr(&sql), &p);
	floe_buf_free(&sql);
	if (error == 0 && next == SHOP_APPROVED)
		error = settle_payments(t, oo->id);
	if (error == 0 && next == SHOP_DELIVERED && shop_event_reviewed(&t->rng))
		error = insert_review(t, oo, at);
	if (error == 0) {
		t->res->progressed[next]++;
		t->res->progressed_total++;
	}
	return error;
}

/*
 * Which open orders move on: fresh checkouts get approved (newest `created`
 * first) except one cart in eight, which is abandoned and left for the deletes;
 * orders further along
 * go on to the carrier and the customer (oldest first). Rows another
 * transaction holds are skipped.
 */
static const char *const open_orders_sql[2] = {
	"SELECT order_id, order_status, extract(epoch FROM order_purchase_timestamp)::bigint, "
	"order_estimated_delivery_date - date '1970-01-01' FROM orders "
	"WHERE order_status = 'created' AND order_id <> ALL ($1::uuid[]) AND get_byte(uuid_send(order_id), 15) % 8 <> 0 "
	"ORDER BY order_purchase_timestamp DESC, order_id LIMIT $2 FOR UPDATE SKIP LOCKED",
	"SELECT order_id, order_status, extract(epoch FROM greatest(order_purchase_timestamp, "
	"order_approved_at, order_delivered_carrier_date))::bigint, "
	"order_estimated_delivery_date - date '1970-01-01' FROM orders "
	"WHERE order_status IN ('approved', 'invoiced', 'processing', 'shipped') "
	"AND order_id <> ALL ($1::uuid[]) ORDER BY order_purchase_timestamp, order_id "
	"LIMIT $2 FOR UPDATE SKIP LOCKED",
};

static int progress_query(tick *t, const char *sql, int n, floe_buf *ids_out)
{
	params p = { 0 };
	floe_pg_result *r = NULL;
	int error = -1;
	p_str(&p, untouchable(t));
	p_fmt(&p, "%d", n);
	if (n <= 0)
		return 0;
	if (floe_pg_query(&r, t->pg, sql, p.n, p.v) < 0)
		return -1;
	for (int i = 0; i < floe_pg_result_rows(r); i++) {
		open_order oo;
		snprintf(oo.id, ID_LEN, "%s", floe_pg_result_text(r, i, 0));
		oo.status = status_index(floe_pg_result_text(r, i, 1));
		oo.last_event = floe_pg_result_int(r, i, 2);
		oo.estimated_day = floe_pg_result_int(r, i, 3);
		if (progress_one(t, &oo) < 0)
			goto cleanup;
		if (ids_out)
			untouchable_add(ids_out, oo.id);
	}
	error = 0;
cleanup:
	floe_pg_result_free(r);
	return error;
}

/* `n` progressions, half approvals of fresh checkouts; fewer when fewer orders are open. */
static int progress_some(tick *t, int n, floe_buf *ids_out)
{
	int before = t->res->progressed_total;
	if (progress_query(t, open_orders_sql[0], (n + 1) / 2, ids_out) < 0)
		return -1;
	return progress_query(t, open_orders_sql[1], n - (t->res->progressed_total - before), ids_out);
}

/* ---- edits that do not move a watermark ---- */

static int edit_reviews(tick *t, int n)
{
	params p = { 0 };
	long long done = 0;
	if (n <= 0)
		return 0;
	p_fmt(&p, "%d", n);
	p_ts(&p, t->now);
	p_str(&p, "Atualização: o vendedor resolveu o problema.");
	if (run(&done, t->pg,
		"UPDATE reviews SET review_answer_timestamp = greatest(review_answer_timestamp, $2::timestamp), "
		"review_comment_message = coalesce(review_comment_message || ' ', '') || $3 "
		"WHERE review_id IN (SELECT review_id FROM reviews WHERE review_score <= 2 "
		"ORDER BY review_creation_date DESC, review_id LIMIT $1::int FOR UPDATE SKIP LOCKED)",
		&p) < 0)
		return -1;
	t->res->edited_reviews += (int)done;
	return 0;
}

/* ---- deletes ---- */

static int delete_order(tick *t, const char *order_id, const char *customer_id)
{
	static const char *const children[] = {
		"DELETE FROM reviews WHERE order_id = $1",
		"DELETE FROM payments WHERE order_id = $1",
		"DELETE FROM order_items WHERE order_id = $1",
		"DELETE FROM orders WHERE order_id = $1",
	};
	long long n[4] = { 0 }, customers = 0;
	params p = { 0 };
	p_str(&p, order_id);
	for (int i = 0; i < 4; i++)
		if (run(&n[i], t->pg, children[i], &p) < 0)
			return -1;
	params c = { 0 };
	p_str(&c, customer_id);
	if (run(&customers, t->pg,
		"DELETE FROM customers WHERE customer_id = $1 AND NOT EXISTS "
		"(SELECT 1 FROM orders WHERE customer_id = $1)",
		&c) < 0)
		return -1;
	t->res->deleted_payments += (int)n[1];
	t->res->deleted_items += (int)n[2];
	t->res->deleted_orders += (int)n[3];
	t->res->deleted_customers += (int)customers;
	return 0;
}

/* Abandoned carts: the oldest `created` orders, not the ones this tick made. */
static int delete_abandoned(tick *t, int n)
{
	params p = { 0 };
	floe_pg_result *r = NULL;
	int error = -1;
	if (n <= 0)
		return 0;
	p_str(&p, untouchable(t));
	p_fmt(&p, "%d", n);
	if (floe_pg_query(&r, t->pg,
			  "SELECT order_id, customer_id FROM orders WHERE order_status = 'created' "
			  "AND order_id <> ALL ($1::uuid[]) ORDER BY order_purchase_timestamp, order_id "
			  "LIMIT $2 FOR UPDATE SKIP LOCKED",
			  p.n, p.v) < 0)
		return -1;
	for (int i = 0; i < floe_pg_result_rows(r); i++)
		if (delete_order(t, floe_pg_result_text(r, i, 0), floe_pg_result_text(r, i, 1)) < 0)
			goto cleanup;
	error = 0;
cleanup:
	floe_pg_result_free(r);
	return error;
}

/* ---- the transactions ---- */

static int begin_tick(tick *t, const char *schema)
{
	bool exists = false;
	if (shop_use_schema(t->pg, schema) < 0 || shop_exists(&exists, t->pg, schema) < 0)
		return -1;
	if (!exists) {
		floe_error_set(FLOE_ERR_USAGE, "schema \"%s\" holds no shop", schema);
		floe_error_hint("Create one with `floe shop generate`.");
		return -1;
	}
	return floe_pg_begin(t->pg) < 0 || read_clock(t) < 0 ? -1 : 0;
}

static int main_work(tick *t, const floe_shop_tick_opts *opts)
{
	if (opts->orders > 0) {
		if (sample_offers(t, opts->orders * 3) < 0 || sample_people(t, opts->orders) < 0)
			return -1;
		if (t->n_offers == 0 || t->n_people == 0) {
			floe_error_set(FLOE_ERR_CHECK, "the shop has no order items or customers to model new orders on");
			floe_error_hint("Generate it again with `floe shop generate --replace`.");
			return -1;
		}
	}
	for (int i = 0; i < opts->orders; i++)
		if (new_order(t) < 0)
			return floe_error_context("while inserting new order %d of %d", i + 1, opts->orders);
	if (progress_some(t, opts->updates, NULL) < 0)
		return floe_error_context("while progressing open orders");
	if (edit_reviews(t, opts->updates > 0 ? 1 + opts->updates / 10 : 0) < 0)
		return floe_error_context("while editing reviews");
	if (delete_abandoned(t, opts->deletes) < 0)
		return floe_error_context("while deleting abandoned orders");
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void tick_init(tick *t, floe_pg *pg, const shop_world *prof, uint64_t seed, uint64_t stream,
		      floe_shop_tick_result *res)
{
	memset(t, 0, sizeof(*t));
	t->pg = pg;
	t->prof = prof;
	t->res = res;
	floe_shop_rng_init(&t->rng, seed, SHOP_STREAM_TICK, stream);
	floe_buf_init(&t->untouchable, 0);
}

static void tick_free(tick *t)
{
	free(t->offers);
	free(t->people);
	floe_buf_free(&t->untouchable);
}

static uint64_t clock_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t s = ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 40);
	return floe_shop_splitmix64(&s) >> 1;
}

static int late_first(tick *late, const floe_shop_tick_opts *opts, floe_buf *late_ids)
{
	if (begin_tick(late, opts->schema) < 0 || progress_some(late, opts->late, late_ids) < 0)
		return -1;
	return 0;
}

/* What the late transaction did, into the tick's result. */
static void merge_late(floe_shop_tick_result *out, const floe_shop_tick_result *late, const tick *late_tx,
		       const floe_buf *late_ids)
{
	for (int s = 0; s < SHOP_N_STATUS; s++)
		out->progressed[s] += late->progressed[s];
	out->progressed_total += late->progressed_total;
	out->payment_updates += late->payment_updates;
	out->new_reviews += late->new_reviews;
	out->late = late->progressed_total;
	snprintf(out->late_stamp, sizeof(out->late_stamp), "%s", late_tx->stamp);
	if (late_ids->len > 1)
		snprintf(out->late_order, sizeof(out->late_order), "%.36s", late_ids->ptr + 1);
}

int floe_shop_tick(floe_shop_tick_result *out, floe_pg *pg, floe_pg *late_pg, const floe_shop_tick_opts *opts)
{
	tick main_tx, late_tx;
	floe_shop_tick_result late_res;
	uint64_t seed = opts->seed ? opts->seed : clock_seed();
	shop_world *prof = shop_world_profiles(seed);
	floe_buf late_ids = FLOE_BUF_INIT;
	bool late = opts->late > 0 && late_pg;
	int error = -1;
	memset(out, 0, sizeof(*out));
	memset(&late_res, 0, sizeof(late_res));
	snprintf(out->seed, sizeof(out->seed), "%llu", (unsigned long long)seed);
	tick_init(&main_tx, pg, prof, seed, 1, out);
	tick_init(&late_tx, late_pg, prof, seed, 2, &late_res);
	/* The late transaction writes first, so its now() is the earlier stamp. */
	if (late && late_first(&late_tx, opts, &late_ids) < 0)
		goto cleanup;
	if (late_ids.len)
		floe_buf_puts(&main_tx.untouchable, floe_buf_cstr(&late_ids));
	if (begin_tick(&main_tx, opts->schema) < 0 || main_work(&main_tx, opts) < 0 || floe_pg_commit(pg) < 0)
		goto cleanup;
	snprintf(out->ontime_stamp, sizeof(out->ontime_stamp), "%s", main_tx.stamp);
	if (late) {
		sleep_ms(opts->hold_ms);
		if (floe_pg_commit(late_pg) < 0)
			goto cleanup;
		merge_late(out, &late_res, &late_tx, &late_ids);
	}
	error = 0;
cleanup:
	if (error < 0) {
		floe_pg_rollback(pg);
		floe_pg_rollback(late ? late_pg : NULL);
		floe_error_context("while applying a tick to schema \"%s\"", opts->schema);
	}
	tick_free(&main_tx);
	tick_free(&late_tx);
	floe_buf_free(&late_ids);
	shop_world_free(prof);
	return error;
}
