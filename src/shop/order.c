/*
 * order.c — one order and everything that hangs off it, drawn from the order's
 * own stream: who placed it (a new person or one returning), when, what status
 * it reached, its items (products from the sellers that offer them), how it was
 * paid (vouchers split off), its timeline, and its reviews.
 *
 * Causality holds by construction: purchase ≤ approval ≤ hand-over to the
 * carrier ≤ delivery; reviews follow delivery (or cancellation); updated_at
 * follows the last event.
 */
#include "shop/shop_int.h"

#include <math.h>
#include <string.h>

/* Olist: orders without items — all `created`, nearly all `unavailable`, a quarter of `canceled`. */
#define EMPTY_UNAVAILABLE 0.99
#define EMPTY_CANCELED 0.26
/* Model: a further item repeats the previous product (Olist writes quantity 2 as two rows). */
#define SAME_PRODUCT_AGAIN 0.55
/* Model: a product is bought from its first seller, else from another that offers it. */
#define FIRST_SELLER_SHARE 0.85
/* Olist: 383 of 112,650 items ship free. */
#define FREE_FREIGHT_SHARE 0.0034
/* Olist payments: 1,329 of 99,440 orders paid by vouchers alone (a third of them with several),
 * and 2,6xx orders split between a card or boleto and vouchers. */
#define VOUCHER_ONLY_SHARE (1329.0 / 99440.0)
#define VOUCHER_ONLY_MORE 0.25
#define VOUCHER_SPLIT_SHARE 0.0268
#define VOUCHER_SPLIT_MORE 0.342
/* Olist: 99.3 % of delivered orders are reviewed, 0.55 % of reviewed orders twice (model for canceled). */
#define REVIEW_DELIVERED 0.993
#define REVIEW_CANCELED 0.80
#define SECOND_REVIEW 0.0055
/*
 * Model: the promised date is generous (Olist: 23 days on average for 12 taken),
 * and a few parcels meet an incident that multiplies their transit time; together
 * they make Olist's 8 % of late deliveries.
 */
#define PROMISE_FACTOR 1.75
#define INCIDENT_SHARE 0.085
#define INCIDENT_DELAY 3.2
/* Model: canceled orders — approved first in 77 % (Olist: 484 of 625), handed to the carrier in 12 %. */
#define CANCELED_APPROVED 0.77
#define CANCELED_CARRIER 0.12
/* Olist: written comments by score (41 % overall) and a title on 12 % of reviews. */
static const double message_share[6] = { 0, 0.75, 0.70, 0.52, 0.29, 0.33 };
#define TITLE_SHARE 0.117
/* Model: one returning customer in ten orders to another address. */
#define MOVED_SHARE 0.10

static int64_t minutes(double m)
{
	return (int64_t)llround(m * 60.0);
}

static int64_t days(double d)
{
	return (int64_t)llround(d * (double)SHOP_DAY);
}

/* ---- who and when ---- */

static void order_customer(shop_order *o, const shop_world *w, floe_shop_rng *r)
{
	uint32_t first = w->first_order[o->index];
	floe_shop_rng person;
	floe_shop_rng_init(&person, w->seed, SHOP_STREAM_CUSTOMER, first);
	floe_shop_rng_uuid(&person, o->customer_unique);
	size_t state = floe_shop_dist_sample(&w->customer_state, &person);
	o->customer_geo = shop_world_pick_geo(w, &person, state, shop_states[state].capital_share);
	o->email_tag = (uint32_t)floe_shop_rng_next(&person);
	if (first != o->index && floe_shop_rng_chance(r, MOVED_SHARE)) {
		state = floe_shop_dist_sample(&w->customer_state, r);
		o->customer_geo = shop_world_pick_geo(w, r, state, shop_states[state].capital_share);
	}
}

static void order_purchase(shop_order *o, const shop_world *w, floe_shop_rng *r)
{
	/* Orders are numbered in time: order i falls on the day holding quantile (i + ½) / n. */
	floe_shop_dist cal = { w->day_cum, w->n_days };
	size_t day = floe_shop_dist_quantile(&cal, (o->index + 0.5) / w->n_orders);
	int64_t hour = (int64_t)floe_shop_dist_sample(&w->hour, r);
	o->purchase = (w->first_day + (int64_t)day) * SHOP_DAY + hour * SHOP_HOUR +
		      floe_shop_rng_range(r, 0, SHOP_HOUR - 1);
}

/* ---- items ---- */

static int32_t offer_price(const shop_product *p, uint32_t seller)
{
	if (seller == p->sellers[0])
		return p->price_cents;
	/* Other sellers price within ±8 % of the first, always the same for the same pair. */
	uint64_t st = ((uint64_t)seller << 32) ^ (uint64_t)p->price_cents ^ 0x5eed;
	double f = 0.92 + 0.16 * (double)(floe_shop_splitmix64(&st) >> 11) * 0x1.0p-53;
	int32_t cents = (int32_t)llround(p->price_cents * f / 10.0) * 10 - 1;
	return cents < 85 ? 85 : cents;
}

static int32_t freight(const shop_world *w, floe_shop_rng *r, const shop_product *p, uint32_t seller,
		       uint32_t customer_geo)
{
	/* Carriers charge the larger of weight and cubic weight (cm³ / 6000 kg), plus distance. */
	double grams = 1000;
	if (!p->no_dims)
		grams = fmax(p->weight_g, p->length_cm * p->height_cm * p->width_cm / 6.0);
	double km = shop_world_distance_km(w, w->sellers[seller].geo, customer_geo);
	double reais = (9.0 + 0.0025 * grams + 0.0055 * km) * floe_shop_rng_lognormal(r, 1.0, 0.18);
	if (floe_shop_rng_chance(r, FREE_FREIGHT_SHARE))
		return 0;
	return (int32_t)llround(fmin(reais, 400.0) * 100.0);
}

void shop_order_items(shop_order *o, const shop_world *w, floe_shop_rng *r)
{
	bool empty = o->status == SHOP_CREATED ||
		     (o->status == SHOP_UNAVAILABLE && floe_shop_rng_chance(r, EMPTY_UNAVAILABLE)) ||
		     (o->status == SHOP_CANCELED && floe_shop_rng_chance(r, EMPTY_CANCELED));
	o->n_items = empty ? 0 : (int)floe_shop_dist_sample(&w->items, r);
	for (int k = 0; k < o->n_items; k++) {
		shop_item *it = &o->items[k];
		if (k > 0 && floe_shop_rng_chance(r, SAME_PRODUCT_AGAIN)) {
			*it = o->items[k - 1];
			continue;
		}
		/* Popularity: product i is bought ∝ i^-0.5 (a long tail of products sold once). */
		double u = floe_shop_rng_uniform(r);
		it->product = (uint32_t)(w->n_products * u * u);
		const shop_product *p = &w->products[it->product];
		it->seller = p->sellers[0];
		if (p->n_sellers > 1 && !floe_shop_rng_chance(r, FIRST_SELLER_SHARE))
			it->seller = p->sellers[1 + floe_shop_rng_below(r, p->n_sellers - 1)];
		it->price_cents = offer_price(p, it->seller);
		it->freight_cents = freight(w, r, p, it->seller, o->customer_geo);
	}
}

/* ---- payments ---- */

/* 1 + a geometric number of further vouchers, at most `cap`. */
static int voucher_count(floe_shop_rng *r, double more, int cap)
{
	int n = 1;
	while (n < cap && floe_shop_rng_chance(r, more))
		n++;
	return n;
}

static void add_payment(shop_order *o, uint8_t type, uint8_t installments, int64_t cents)
{
	shop_payment *p = &o->payments[o->n_payments++];
	p->type = type;
	p->installments = installments;
	p->value_cents = (int32_t)cents;
}

void shop_order_payments(shop_order *o, const shop_world *w, floe_shop_rng *r, int64_t total)
{
	o->n_payments = 0;
	bool voucher_only = floe_shop_rng_chance(r, VOUCHER_ONLY_SHARE);
	int vouchers = 0;
	uint8_t primary = SHOP_PAY_VOUCHER;
	if (voucher_only) {
		vouchers = voucher_count(r, VOUCHER_ONLY_MORE, SHOP_MAX_PAYMENTS);
	} else {
		primary = (uint8_t)floe_shop_dist_sample(&w->primary_pay, r);
		if (floe_shop_rng_chance(r, VOUCHER_SPLIT_SHARE))
			vouchers = voucher_count(r, VOUCHER_SPLIT_MORE, SHOP_MAX_PAYMENTS - 1);
	}
	/* Vouchers cover what they cover (about R$ 30 each); the primary payment pays the rest. */
	int64_t left = total;
	int64_t parts[SHOP_MAX_PAYMENTS];
	for (int v = 0; v < vouchers; v++) {
		bool last = voucher_only && v == vouchers - 1;
		int64_t want = llround(floe_shop_rng_lognormal(r, 30.0, 0.8) * 100.0);
		parts[v] = last ? left : (want < (left * 9) / 10 ? want : (left * 9) / 10);
		left -= parts[v];
	}
	if (!voucher_only) {
		uint8_t inst = primary == SHOP_PAY_CREDIT_CARD ? (uint8_t)floe_shop_dist_sample(&w->installments, r) : 1;
		add_payment(o, primary, inst, left);
	}
	for (int v = 0; v < vouchers; v++)
		add_payment(o, SHOP_PAY_VOUCHER, 1, parts[v]);
}

/* ---- timeline ---- */

static int64_t approval_delay(floe_shop_rng *r, uint8_t primary)
{
	/* A boleto is paid at a bank and clears a day or two later; cards clear in minutes. */
	if (primary == SHOP_PAY_BOLETO)
		return days(fmin(floe_shop_rng_lognormal(r, 1.1, 0.5), 9.0));
	return minutes(fmin(fmax(floe_shop_rng_lognormal(r, 12.0, 1.2), 1.0), 3 * 24 * 60.0));
}

static int month_of(const shop_world *w, int64_t secs)
{
	int y, m, d;
	floe_civil_from_days(secs / SHOP_DAY, &y, &m, &d);
	int k = (y - shop_first_year) * 12 + (m - shop_first_month);
	return k < 0 ? 0 : k >= SHOP_N_MONTHS ? SHOP_N_MONTHS - 1 : k;
}

static double order_km(const shop_order *o, const shop_world *w)
{
	if (o->n_items == 0)
		return 500.0;
	return shop_world_distance_km(w, w->sellers[o->items[0].seller].geo, o->customer_geo);
}

static void order_timeline(shop_order *o, const shop_world *w, floe_shop_rng *r)
{
	uint8_t primary = o->n_payments ? o->payments[0].type : SHOP_PAY_VOUCHER;
	/* Transit: about 3 days nearby, 18 across the country, slower in congested months. */
	double transit_median = (3.0 + order_km(o, w) / 180.0) * shop_month_slowdown[month_of(w, o->purchase)];
	double promise = (1.0 + 3.0 + transit_median * PROMISE_FACTOR + 5.0) * (0.9 + 0.3 * floe_shop_rng_uniform(r));
	int64_t approval = approval_delay(r, primary);
	int64_t to_carrier = days(fmax(floe_shop_rng_lognormal(r, 2.0, 0.7), 0.125));
	double incident = floe_shop_rng_chance(r, INCIDENT_SHARE) ? floe_shop_rng_lognormal(r, INCIDENT_DELAY, 0.4) : 1.0;
	int64_t transit = days(fmax(floe_shop_rng_lognormal(r, transit_median, 0.55) * incident, 0.5));
	int64_t settle = minutes(floe_shop_rng_range(r, 1, 240));
	bool approved = o->status != SHOP_CREATED &&
			(o->status != SHOP_CANCELED || floe_shop_rng_chance(r, CANCELED_APPROVED));
	bool carrier = o->status == SHOP_SHIPPED || o->status == SHOP_DELIVERED ||
		       (o->status == SHOP_CANCELED && approved && floe_shop_rng_chance(r, CANCELED_CARRIER));
	o->approved = o->carrier = o->delivered = SHOP_NONE;
	o->estimated_day = o->purchase / SHOP_DAY + (int64_t)ceil(promise);
	if (approved)
		o->approved = o->purchase + approval;
	if (carrier)
		o->carrier = o->approved + to_carrier;
	if (o->status == SHOP_DELIVERED)
		o->delivered = o->carrier + transit;
	o->late = o->status == SHOP_DELIVERED && o->delivered / SHOP_DAY > o->estimated_day;
	int64_t base = approved ? o->approved : o->purchase;
	int64_t limit_days = floe_shop_rng_range(r, 5, 7);
	o->shipping_limit = base + days((double)limit_days) + minutes((double)floe_shop_rng_range(r, 0, 59));
	int64_t last = o->delivered != SHOP_NONE ? o->delivered : o->carrier != SHOP_NONE ? o->carrier : base;
	if (o->status == SHOP_CANCELED || o->status == SHOP_UNAVAILABLE)
		last += days(floe_shop_rng_exponential(r, 3.0)); /* the day it was called off */
	o->updated_at = last + settle;
	o->payments_updated_at = base + minutes(1);
}

/* ---- reviews ---- */

void shop_order_review(shop_review *rv, const shop_world *w, floe_shop_rng *r, const shop_order *o)
{
	const floe_shop_dist *mix = o->status == SHOP_CANCELED ? &w->score_canceled
				    : o->late		 ? &w->score_late
							 : &w->score_on_time;
	floe_shop_rng_uuid(r, rv->id);
	rv->score = (uint8_t)(1 + floe_shop_dist_sample(mix, r));
	int group = rv->score <= 2 ? 0 : rv->score == 3 ? 1 : 2;
	rv->title = floe_shop_rng_chance(r, TITLE_SHARE) ? (int8_t)floe_shop_rng_below(r, shop_titles[group].n) : -1;
	rv->n_phrases = 0;
	rv->phrases = 0;
	if (floe_shop_rng_chance(r, message_share[rv->score])) {
		rv->n_phrases = (uint8_t)floe_shop_rng_range(r, 1, 3);
		for (int k = 0; k < rv->n_phrases; k++)
			rv->phrases |= (uint16_t)(floe_shop_rng_below(r, shop_phrases[group].n) << (5 * k));
	}
	rv->line_breaks = rv->n_phrases > 1 && floe_shop_rng_chance(r, 0.15);
	/* The survey goes out the day after delivery (or after the cancellation). */
	int64_t after = o->status == SHOP_DELIVERED ? o->delivered : o->updated_at;
	rv->created_day = after / SHOP_DAY + floe_shop_rng_range(r, 0, 1);
	rv->answered = rv->created_day * SHOP_DAY + minutes(fmin(floe_shop_rng_lognormal(r, 20 * 60.0, 1.0),
								 30 * 24 * 60.0));
}

static void order_reviews(shop_order *o, const shop_world *w, floe_shop_rng *r)
{
	o->n_reviews = 0;
	double p = o->status == SHOP_DELIVERED ? REVIEW_DELIVERED : o->status == SHOP_CANCELED ? REVIEW_CANCELED : 0;
	if (!floe_shop_rng_chance(r, p))
		return;
	shop_order_review(&o->reviews[o->n_reviews++], w, r, o);
	if (floe_shop_rng_chance(r, SECOND_REVIEW)) {
		/* A second thought, days later. */
		shop_review *again = &o->reviews[o->n_reviews++];
		shop_order_review(again, w, r, o);
		int64_t offset = again->answered - again->created_day * SHOP_DAY;
		again->created_day = o->reviews[0].created_day + floe_shop_rng_range(r, 2, 30);
		again->answered = again->created_day * SHOP_DAY + offset;
	}
}

void shop_order_build(shop_order *o, const shop_world *w, uint32_t index)
{
	floe_shop_rng r;
	floe_shop_rng_init(&r, w->seed, SHOP_STREAM_ORDER, index);
	o->index = index;
	floe_shop_rng_uuid(&r, o->id);
	floe_shop_rng_uuid(&r, o->customer_id);
	order_customer(o, w, &r);
	o->status = (uint8_t)floe_shop_dist_sample(&w->status, &r);
	order_purchase(o, w, &r);
	shop_order_items(o, w, &r);
	int64_t total = 0;
	for (int k = 0; k < o->n_items; k++)
		total += o->items[k].price_cents + o->items[k].freight_cents;
	if (o->n_items == 0)
		total = llround(floe_shop_rng_lognormal(&r, 90.0, 0.8) * 100.0);
	shop_order_payments(o, w, &r, total);
	order_timeline(o, w, &r);
	order_reviews(o, w, &r);
}
