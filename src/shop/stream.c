/*
 * stream.c — floe_shop_stream: the traffic of `tick` (events.c) as keyed JSON
 * messages, one event at a time, on a virtual clock that starts the day after
 * Olist's data ends and moves seven seconds per event, so a seed gives the same
 * messages byte for byte. Open orders are kept here (a tick finds them in
 * PostgreSQL); the value of an `orders` message is the order's whole state, so a
 * consumer that upserts by key holds the current order.
 */
#include "shop/shop_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_SCALE 0.01
#define N_PEOPLE 256
#define MAX_OPEN 4096
#define START_SECS 1539820800LL /* 2018-10-18 00:00, local */
#define STEP_SECS 7
#define NEW_ORDER_SHARE 0.4
#define ABANDON_SHARE 0.04

typedef struct open_order {
	uint8_t id[16], customer[16];
	uint8_t status;
	int n_items, n_payments;
	int64_t purchase, approved, carrier, delivered, estimated_day;
} open_order;

struct floe_shop_stream {
	shop_world *w;
	floe_shop_rng rng;
	shop_offer *offers;
	int n_offers;
	shop_person people[N_PEOPLE];
	open_order *open;
	int n_open;
	int64_t now;
	floe_buf key, value;
};

static void fill_offers(floe_shop_stream *s)
{
	const shop_world *w = s->w;
	s->offers = floe_xcalloc(w->n_products + 1, sizeof(shop_offer));
	for (uint32_t i = 0; i < w->n_products; i++) {
		const shop_product *p = &w->products[i];
		shop_offer *of = &s->offers[s->n_offers++];
		shop_format_uuid(of->product, p->id);
		shop_format_uuid(of->seller, w->sellers[p->sellers[0]].id);
		of->price = p->price_cents;
		of->freight = 990 + p->weight_g / 40; /* a flat fee and the weight: what a tick samples has both */
	}
}

static void fill_people(floe_shop_stream *s)
{
	for (int i = 0; i < N_PEOPLE; i++) {
		shop_person *q = &s->people[i];
		uint8_t id[16];
		size_t state = floe_shop_dist_sample(&s->w->customer_state, &s->rng);
		const shop_geo *g = &s->w->geo[shop_world_pick_geo(s->w, &s->rng, state, shop_states[state].capital_share)];
		floe_shop_rng_uuid(&s->rng, id);
		shop_format_uuid(q->unique, id);
		snprintf(q->city, sizeof(q->city), "%s", shop_states[g->state].cities[g->city]);
		snprintf(q->state, sizeof(q->state), "%s", shop_states[g->state].code);
		q->zip = g->zip;
	}
}

int floe_shop_stream_new(floe_shop_stream **out, uint64_t seed)
{
	floe_shop_stream *s = floe_xcalloc(1, sizeof(*s));
	if (shop_world_build(&s->w, seed, STREAM_SCALE) < 0) {
		free(s);
		return -1;
	}
	floe_shop_rng_init(&s->rng, seed, SHOP_STREAM_TICK, 3);
	fill_offers(s);
	fill_people(s);
	s->open = floe_xcalloc(MAX_OPEN, sizeof(open_order));
	s->now = START_SECS;
	floe_buf_init(&s->key, 0);
	floe_buf_init(&s->value, 0);
	*out = s;
	return 0;
}

void floe_shop_stream_free(floe_shop_stream *s)
{
	if (!s)
		return;
	shop_world_free(s->w);
	free(s->offers);
	free(s->open);
	floe_buf_free(&s->key);
	floe_buf_free(&s->value);
	free(s);
}

/* ---- messages ---- */

static void member_uuid(floe_json_writer *j, const char *key, const uint8_t id[16])
{
	char text[SHOP_ID_LEN];
	shop_format_uuid(text, id);
	floe_json_write_member_cstr(j, key, text);
}

static void member_ts(floe_json_writer *j, const char *key, int64_t secs)
{
	char text[32];
	if (secs == SHOP_NONE || secs == 0) {
		floe_json_write_key(j, key);
		floe_json_write_null(j);
		return;
	}
	text[shop_format_timestamp(text, secs)] = '\0';
	floe_json_write_member_cstr(j, key, text);
}

static void member_cents(floe_json_writer *j, const char *key, int64_t cents)
{
	char text[32];
	shop_format_cents(text, cents);
	floe_json_write_key(j, key);
	floe_json_write_number(j, text);
}

/* Start a message's value; finish() sends it under the key printed by the caller into s->key. */
static floe_json_writer *begin(floe_shop_stream *s, floe_json_writer *j)
{
	floe_buf_clear(&s->value);
	floe_json_write_init(j, &s->value, false);
	floe_json_write_begin_object(j, true);
	return j;
}

static int finish(floe_shop_stream *s, floe_json_writer *j, const char *table, floe_shop_emit_fn emit, void *ctx)
{
	floe_json_write_end_object(j);
	floe_json_write_finish(j);
	return emit(ctx, table, s->key.ptr, s->key.len, s->value.ptr, s->value.len);
}

static void key_of(floe_shop_stream *s, const uint8_t id[16], int n)
{
	char text[SHOP_ID_LEN];
	shop_format_uuid(text, id);
	floe_buf_clear(&s->key);
	if (n > 0)
		floe_buf_printf(&s->key, "%s:%d", text, n);
	else
		floe_buf_puts(&s->key, text);
}

static int send_order(floe_shop_stream *s, const open_order *oo, floe_shop_emit_fn emit, void *ctx)
{
	floe_json_writer j;
	char day[16];
	day[shop_format_date(day, oo->estimated_day)] = '\0';
	key_of(s, oo->id, 0);
	begin(s, &j);
	member_uuid(&j, "order_id", oo->id);
	member_uuid(&j, "customer_id", oo->customer);
	floe_json_write_member_cstr(&j, "order_status", shop_status_names[oo->status]);
	member_ts(&j, "order_purchase_timestamp", oo->purchase);
	member_ts(&j, "order_approved_at", oo->approved);
	member_ts(&j, "order_delivered_carrier_date", oo->carrier);
	member_ts(&j, "order_delivered_customer_date", oo->delivered);
	floe_json_write_member_cstr(&j, "order_estimated_delivery_date", day);
	member_ts(&j, "updated_at", s->now);
	return finish(s, &j, "orders", emit, ctx);
}

static int send_customer(floe_shop_stream *s, const shop_new_order *no, floe_shop_emit_fn emit, void *ctx)
{
	floe_json_writer j;
	char email[96];
	shop_customer_email(email, sizeof(email), &no->o);
	key_of(s, no->o.customer_id, 0);
	begin(s, &j);
	member_uuid(&j, "customer_id", no->o.customer_id);
	if (no->returning)
		floe_json_write_member_cstr(&j, "customer_unique_id", no->where->unique);
	else
		member_uuid(&j, "customer_unique_id", no->o.customer_unique);
	floe_json_write_member_int(&j, "customer_zip_code_prefix", no->where->zip);
	floe_json_write_member_cstr(&j, "customer_city", no->where->city);
	floe_json_write_member_cstr(&j, "customer_state", no->where->state);
	floe_json_write_member_cstr(&j, "customer_email", email);
	return finish(s, &j, "customers", emit, ctx);
}

static int send_items(floe_shop_stream *s, const shop_new_order *no, floe_shop_emit_fn emit, void *ctx)
{
	for (int k = 0; k < no->o.n_items; k++) {
		floe_json_writer j;
		key_of(s, no->o.id, k + 1);
		begin(s, &j);
		member_uuid(&j, "order_id", no->o.id);
		floe_json_write_member_int(&j, "order_item_id", k + 1);
		floe_json_write_member_cstr(&j, "product_id", no->items[k]->product);
		floe_json_write_member_cstr(&j, "seller_id", no->items[k]->seller);
		member_ts(&j, "shipping_limit_date", no->o.purchase + 6 * SHOP_DAY);
		member_cents(&j, "price", no->items[k]->price);
		member_cents(&j, "freight_value", no->items[k]->freight);
		if (finish(s, &j, "order_items", emit, ctx) < 0)
			return -1;
	}
	return 0;
}

static int send_payments(floe_shop_stream *s, const shop_order *o, floe_shop_emit_fn emit, void *ctx)
{
	for (int k = 0; k < o->n_payments; k++) {
		floe_json_writer j;
		key_of(s, o->id, k + 1);
		begin(s, &j);
		member_uuid(&j, "order_id", o->id);
		floe_json_write_member_int(&j, "payment_sequential", k + 1);
		floe_json_write_member_cstr(&j, "payment_type", shop_payment_names[o->payments[k].type]);
		floe_json_write_member_int(&j, "payment_installments", o->payments[k].installments);
		member_cents(&j, "payment_value", o->payments[k].value_cents);
		if (finish(s, &j, "payments", emit, ctx) < 0)
			return -1;
	}
	return 0;
}

static int send_review(floe_shop_stream *s, const open_order *oo, floe_shop_emit_fn emit, void *ctx)
{
	shop_review rv;
	floe_json_writer j;
	char text[512], day[16];
	shop_event_review(&rv, s->w, &s->rng, s->now, oo->estimated_day);
	size_t n = shop_review_message(text, sizeof(text), &rv);
	day[shop_format_date(day, s->now / SHOP_DAY)] = '\0';
	key_of(s, rv.id, 0);
	begin(s, &j);
	member_uuid(&j, "review_id", rv.id);
	member_uuid(&j, "order_id", oo->id);
	floe_json_write_member_int(&j, "review_score", rv.score);
	floe_json_write_member_cstr(&j, "review_comment_title", shop_review_title(&rv));
	floe_json_write_member_cstr(&j, "review_comment_message", n ? text : NULL);
	floe_json_write_member_cstr(&j, "review_creation_date", day);
	member_ts(&j, "review_answer_timestamp", s->now);
	return finish(s, &j, "reviews", emit, ctx);
}

static int tombstone(floe_shop_stream *s, const char *table, const uint8_t id[16], int n, floe_shop_emit_fn emit,
		     void *ctx)
{
	key_of(s, id, n);
	return emit(ctx, table, s->key.ptr, s->key.len, NULL, 0);
}

/* ---- events ---- */

static int new_order(floe_shop_stream *s, floe_shop_emit_fn emit, void *ctx)
{
	shop_new_order no;
	shop_event_new_order(&no, s->w, &s->rng, s->offers, s->n_offers, s->people, N_PEOPLE, s->now);
	open_order *oo = &s->open[s->n_open++];
	memset(oo, 0, sizeof(*oo));
	memcpy(oo->id, no.o.id, 16);
	memcpy(oo->customer, no.o.customer_id, 16);
	oo->status = SHOP_CREATED;
	oo->purchase = s->now;
	oo->estimated_day = no.o.estimated_day;
	oo->n_items = no.o.n_items;
	oo->n_payments = no.o.n_payments;
	if (send_customer(s, &no, emit, ctx) < 0 || send_order(s, oo, emit, ctx) < 0 || send_items(s, &no, emit, ctx) < 0 ||
	    send_payments(s, &no.o, emit, ctx) < 0)
		return -1;
	return 2 + no.o.n_items + no.o.n_payments;
}

static void close_order(floe_shop_stream *s, int i)
{
	s->open[i] = s->open[--s->n_open];
}

static int progress(floe_shop_stream *s, int i, floe_shop_emit_fn emit, void *ctx)
{
	open_order *oo = &s->open[i];
	oo->status = (uint8_t)shop_event_next_status(&s->rng, oo->status);
	if (oo->status == SHOP_APPROVED)
		oo->approved = s->now;
	else if (oo->status == SHOP_SHIPPED)
		oo->carrier = s->now;
	else if (oo->status == SHOP_DELIVERED)
		oo->delivered = s->now;
	if (send_order(s, oo, emit, ctx) < 0)
		return -1;
	int sent = 1;
	if (oo->status == SHOP_DELIVERED && shop_event_reviewed(&s->rng)) {
		if (send_review(s, oo, emit, ctx) < 0)
			return -1;
		sent++;
	}
	if (oo->status == SHOP_DELIVERED || oo->status == SHOP_CANCELED)
		close_order(s, i);
	return sent;
}

/* An abandoned cart: the order, its items, payments and customer record removed. */
static int abandon(floe_shop_stream *s, int i, floe_shop_emit_fn emit, void *ctx)
{
	open_order oo = s->open[i];
	close_order(s, i);
	for (int k = 0; k < oo.n_items; k++)
		if (tombstone(s, "order_items", oo.id, k + 1, emit, ctx) < 0)
			return -1;
	for (int k = 0; k < oo.n_payments; k++)
		if (tombstone(s, "payments", oo.id, k + 1, emit, ctx) < 0)
			return -1;
	if (tombstone(s, "orders", oo.id, 0, emit, ctx) < 0 || tombstone(s, "customers", oo.customer, 0, emit, ctx) < 0)
		return -1;
	return oo.n_items + oo.n_payments + 2;
}

int floe_shop_stream_next(floe_shop_stream *s, floe_shop_emit_fn emit, void *ctx)
{
	s->now += STEP_SECS;
	double u = floe_shop_rng_uniform(&s->rng);
	if (s->n_open == 0 || (u < NEW_ORDER_SHARE && s->n_open < MAX_OPEN))
		return new_order(s, emit, ctx);
	int i = (int)floe_shop_rng_below(&s->rng, (uint64_t)s->n_open);
	if (u < NEW_ORDER_SHARE + ABANDON_SHARE && s->open[i].status == SHOP_CREATED)
		return abandon(s, i, emit, ctx);
	return progress(s, i, emit, ctx);
}
