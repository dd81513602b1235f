/*
 * test_model.c — the shop's data tables, calendar, pools and order model,
 * without a database: profile sums, causality and money invariants of every
 * order, determinism, and the mixes the orders come out with.
 */
#include "harness.h"
#include "shop/shop_int.h"

#include <math.h>
#include <string.h>

static double sum(const double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

FLOE_TEST(shop_profile_tables_reproduce_olist_totals)
{
	double items = 0;
	for (int k = 0; k <= SHOP_MAX_ITEMS; k++)
		items += k * shop_items_per_order[k];
	FLOE_CHECK(sum(shop_status_counts, SHOP_N_STATUS) == 99441);
	FLOE_CHECK(sum(shop_items_per_order, SHOP_MAX_ITEMS + 1) == 98666);
	FLOE_CHECK(items == 112650);
	FLOE_CHECK(sum(shop_payment_counts, SHOP_N_PAY) == 103886);
	FLOE_CHECK(sum(shop_installments, SHOP_MAX_INSTALLMENTS + 1) == 76793);
	FLOE_CHECK(sum(shop_hour_counts, 24) == 99441);
	FLOE_CHECK(sum(shop_weekday_counts, 7) == 99441);
	FLOE_CHECK(sum(shop_month_counts, SHOP_N_MONTHS) == 99441);
	FLOE_CHECK(fabs(sum(shop_review_scores, 6) - 1.0) < 0.002);
	int customers = 0, sellers = 0;
	for (int s = 0; s < SHOP_N_STATES; s++) {
		customers += shop_states[s].customers;
		sellers += shop_states[s].sellers;
		FLOE_CHECK(shop_states[s].zip_lo < shop_states[s].zip_hi && shop_states[s].cities[0]);
	}
	FLOE_CHECK(customers == 99441);
	FLOE_CHECK(sellers == 3095);
	FLOE_CHECK(strcmp(shop_categories[SHOP_N_CATEGORIES - 1].english, "cds_dvds_musicals") == 0);
	for (int g = 0; g < 3; g++)
		FLOE_CHECK(shop_phrases[g].n <= 31); /* five bits per phrase in a review */
}

FLOE_TEST(shop_calendar_civil_days)
{
	int y, m, d;
	FLOE_CHECK(floe_days_from_civil(1970, 1, 1) == 0);
	FLOE_CHECK(floe_days_from_civil(2000, 1, 1) == 10957);
	FLOE_CHECK(floe_days_from_civil(2016, 2, 29) + 1 == floe_days_from_civil(2016, 3, 1));
	for (int64_t day = -1000; day < 30000; day += 7) {
		floe_civil_from_days(day, &y, &m, &d);
		FLOE_CHECK(floe_days_from_civil(y, m, d) == day);
	}
	FLOE_CHECK(shop_weekday(floe_days_from_civil(2017, 11, 24)) == 4); /* Black Friday 2017: a Friday */
	char buf[32];
	buf[shop_format_timestamp(buf, floe_days_from_civil(2017, 10, 2) * SHOP_DAY + 10 * 3600 + 56 * 60 + 33)] = 0;
	FLOE_CHECK_STR(buf, "2017-10-02 10:56:33");
	buf[shop_format_date(buf, floe_days_from_civil(2018, 8, 9))] = 0;
	FLOE_CHECK_STR(buf, "2018-08-09");
	shop_format_cents(buf, 12345);
	FLOE_CHECK_STR(buf, "123.45");
	shop_format_cents(buf, 7);
	FLOE_CHECK_STR(buf, "0.07");
}

static bool orders_equal(const shop_order *a, const shop_order *b)
{
	return memcmp(a->id, b->id, 16) == 0 && a->status == b->status && a->purchase == b->purchase &&
	       a->n_items == b->n_items && a->n_payments == b->n_payments && a->updated_at == b->updated_at &&
	       (a->n_items == 0 || memcmp(a->items, b->items, sizeof(shop_item) * (size_t)a->n_items) == 0);
}

static void check_order(const shop_order *o, const shop_world *w)
{
	int64_t total = 0, paid = 0;
	for (int k = 0; k < o->n_items; k++) {
		total += o->items[k].price_cents + o->items[k].freight_cents;
		FLOE_CHECK(o->items[k].product < w->n_products && o->items[k].seller < w->n_sellers);
		FLOE_CHECK(o->items[k].price_cents >= 85 && o->items[k].freight_cents >= 0);
	}
	for (int k = 0; k < o->n_payments; k++) {
		paid += o->payments[k].value_cents;
		FLOE_CHECK(o->payments[k].value_cents >= 0 && o->payments[k].installments >= 1);
	}
	FLOE_CHECK(o->n_payments >= 1);
	FLOE_CHECK(o->n_items == 0 || paid == total);
	FLOE_CHECK(o->approved == SHOP_NONE || o->approved >= o->purchase);
	FLOE_CHECK(o->carrier == SHOP_NONE || (o->approved != SHOP_NONE && o->carrier >= o->approved));
	FLOE_CHECK(o->delivered == SHOP_NONE || (o->carrier != SHOP_NONE && o->delivered >= o->carrier));
	FLOE_CHECK((o->delivered != SHOP_NONE) == (o->status == SHOP_DELIVERED));
	FLOE_CHECK(o->shipping_limit > o->purchase && o->updated_at >= o->purchase);
	FLOE_CHECK(o->estimated_day > o->purchase / SHOP_DAY);
	FLOE_CHECK(o->n_reviews == 0 || o->status == SHOP_DELIVERED || o->status == SHOP_CANCELED);
	for (int k = 0; k < o->n_reviews; k++) {
		const shop_review *r = &o->reviews[k];
		FLOE_CHECK(r->score >= 1 && r->score <= 5);
		FLOE_CHECK(o->status != SHOP_DELIVERED || r->created_day >= o->delivered / SHOP_DAY);
		FLOE_CHECK(r->created_day >= o->purchase / SHOP_DAY && r->answered >= r->created_day * SHOP_DAY);
	}
	FLOE_CHECK(w->first_order[o->index] <= o->index);
}

FLOE_TEST(shop_orders_are_causal_balanced_and_deterministic)
{
	shop_world *w = NULL, *again = NULL;
	FLOE_CHECK(shop_world_build(&w, 7, 0.05) == 0);
	FLOE_CHECK(shop_world_build(&again, 7, 0.05) == 0);
	FLOE_CHECK(w->n_orders == 4972 && w->n_sellers == 155);
	for (uint32_t i = 0; i < w->n_orders; i++) {
		shop_order a, b;
		shop_order_build(&a, w, i);
		shop_order_build(&b, again, i); /* another world, same seed */
		FLOE_CHECK(orders_equal(&a, &b));
		check_order(&a, w);
	}
	shop_world_free(w);
	shop_world_free(again);
}

FLOE_TEST(shop_geolocation_prefixes_are_unique_and_in_their_state)
{
	shop_world *w = NULL;
	FLOE_CHECK(shop_world_build(&w, 1, 1.0) == 0);
	for (uint32_t g = 0; g < w->n_geo; g++) {
		const shop_state *s = &shop_states[w->geo[g].state];
		FLOE_CHECK(w->geo[g].zip >= s->zip_lo && w->geo[g].zip <= s->zip_hi);
		FLOE_CHECK(g == 0 || w->geo[g].zip > w->geo[g - 1].zip || w->geo[g].state != w->geo[g - 1].state);
	}
	shop_world_free(w);
}

FLOE_TEST(shop_order_mixes_match_olist_at_scale_one)
{
	shop_world *w = NULL;
	FLOE_CHECK(shop_world_build(&w, 1, 1.0) == 0);
	long status[SHOP_N_STATUS] = { 0 }, pay[SHOP_N_PAY] = { 0 }, scores[6] = { 0 };
	long with_items = 0, single = 0, payments = 0, reviews = 0, late = 0, delivered = 0, repeats = 0;
	for (uint32_t i = 0; i < w->n_orders; i++) {
		shop_order o;
		shop_order_build(&o, w, i);
		status[o.status]++;
		with_items += o.n_items > 0;
		single += o.n_items == 1;
		for (int k = 0; k < o.n_payments; k++)
			pay[o.payments[k].type]++;
		payments += o.n_payments;
		for (int k = 0; k < o.n_reviews; k++)
			scores[o.reviews[k].score]++;
		reviews += o.n_reviews;
		delivered += o.status == SHOP_DELIVERED;
		late += o.late;
		repeats += w->first_order[i] != i;
	}
	FLOE_CHECK(fabs(status[SHOP_DELIVERED] / (double)w->n_orders - 0.970) < 0.01);
	FLOE_CHECK(fabs(single / (double)with_items - 0.901) < 0.01);
	FLOE_CHECK(fabs(pay[SHOP_PAY_CREDIT_CARD] / (double)payments - 0.739) < 0.02);
	FLOE_CHECK(fabs(pay[SHOP_PAY_BOLETO] / (double)payments - 0.190) < 0.01);
	FLOE_CHECK(fabs(pay[SHOP_PAY_VOUCHER] / (double)payments - 0.056) < 0.01);
	FLOE_CHECK(fabs(scores[5] / (double)reviews - 0.583) < 0.01);
	FLOE_CHECK(fabs(scores[1] / (double)reviews - 0.109) < 0.01);
	FLOE_CHECK(fabs(late / (double)delivered - 0.08) < 0.015);
	FLOE_CHECK(fabs(repeats / (double)w->n_orders - 3345.0 / 99441.0) < 0.003);
	FLOE_CHECK(fabs(payments / 103886.0 - 1) < 0.01);
	shop_world_free(w);
}

FLOE_TEST(shop_world_refuses_absurd_scales)
{
	shop_world *w = NULL;
	FLOE_CHECK(shop_world_build(&w, 1, 0) < 0 && w == NULL);
	FLOE_CHECK(shop_world_build(&w, 1, -1) < 0);
	FLOE_CHECK(shop_world_build(&w, 1, FLOE_SHOP_MAX_SCALE * 2) < 0);
	FLOE_CHECK(shop_world_build(&w, 1, 0.0001) == 0 && w->n_orders >= 1 && w->n_products >= 20);
	shop_world_free(w);
}
