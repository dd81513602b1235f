/*
 * world.c — the pools one (seed, scale) draws orders from: the purchase
 * calendar, geolocation (one row per CEP prefix), sellers, products with the
 * sellers that offer them, and which orders belong to the same person.
 *
 * Each pool member comes from its own stream, so pools are the same whatever
 * the order of construction; only the "same person" chain is built in order
 * (order i may return to the person of an earlier order j < i).
 */
#include "shop/shop_int.h"
#include "base/arena.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Olist's pool sizes at scale 1. */
#define OLIST_ORDERS 99441.0
#define OLIST_PRODUCTS 32951.0
#define OLIST_SELLERS 3095.0
#define OLIST_ZIP_PREFIXES 19015.0

/* Model: share of orders placed by someone who ordered before (Olist: 3,345 of 99,441). */
#define REPEAT_SHARE (3345.0 / 99441.0)
/* Olist: 610 of 32,951 products have no category, 2 have no dimensions. */
#define NO_CATEGORY_SHARE (610.0 / 32951.0)
#define NO_DIMS_SHARE (2.0 / 32951.0)
/* Model: products offered by a second seller (Olist: about 1 in 27), and a third. */
#define SECOND_SELLER_SHARE 0.037
#define THIRD_SELLER_SHARE 0.15
/* Model: the share of late deliveries the on-time review mix is solved against. */
#define LATE_SHARE 0.078
#define CANCELED_REVIEW_SHARE 0.0052

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* ---- calendar ---- */

static int64_t month_start(int m)
{
	int months = shop_first_month - 1 + m;
	return floe_days_from_civil(shop_first_year + months / 12, months % 12 + 1, 1);
}

static void build_calendar(shop_world *w)
{
	int64_t first = month_start(0), black_friday = floe_days_from_civil(2017, 11, 24);
	w->first_day = first;
	w->n_days = (uint32_t)(month_start(SHOP_N_MONTHS) - first);
	double *cum = floe_xcalloc(w->n_days, sizeof(double));
	for (int m = 0; m < SHOP_N_MONTHS; m++) {
		/* Within a month, days weigh as their weekday does (Olist's Monday peak). */
		int64_t start = month_start(m), stop = month_start(m + 1);
		double month_weight = 0;
		for (int64_t day = start; day < stop; day++) {
			double wd = shop_weekday_counts[shop_weekday(day)] * (day == black_friday ? 4.5 : 1.0);
			month_weight += cum[day - first] = wd;
		}
		for (int64_t day = start; day < stop; day++)
			cum[day - first] *= shop_month_counts[m] / month_weight;
	}
	double run = 0, total = 0;
	for (uint32_t i = 0; i < w->n_days; i++)
		total += cum[i];
	for (uint32_t i = 0; i < w->n_days; i++) {
		run += cum[i];
		cum[i] = run / total;
	}
	cum[w->n_days - 1] = 1.0;
	w->day_cum = cum;
}

/* ---- geolocation ---- */

/* Where a state's city lies: fixed geography, independent of the seed. */
static void city_center(double *lat, double *lng, size_t state, int city)
{
	const shop_state *s = &shop_states[state];
	if (city == 0) {
		*lat = s->lat, *lng = s->lng;
		return;
	}
	floe_shop_rng r;
	floe_shop_rng_init(&r, 0, SHOP_STREAM_GEO, 1000000 + state * 16 + (uint64_t)city);
	double angle = floe_shop_rng_uniform(&r) * 2 * M_PI;
	double dist = s->spread * (0.25 + 0.75 * floe_shop_rng_uniform(&r));
	*lat = s->lat + dist * sin(angle);
	*lng = s->lng + dist * cos(angle);
}

static int n_cities(size_t state)
{
	int n = 0;
	while (n < 8 && shop_states[state].cities[n])
		n++;
	return n;
}

static void build_geo_state(shop_world *w, size_t s, uint32_t start, uint32_t count)
{
	const shop_state *st = &shop_states[s];
	uint32_t capital = (uint32_t)clampd(round(count * st->capital_share * 0.8), 1, count);
	int cities = n_cities(s);
	double range = st->zip_hi - st->zip_lo + 1;
	w->geo_start[s] = start;
	w->geo_count[s] = count;
	w->geo_capital[s] = capital;
	for (uint32_t k = 0; k < count; k++) {
		shop_geo *g = &w->geo[start + k];
		floe_shop_rng r;
		floe_shop_rng_init(&r, w->seed, SHOP_STREAM_GEO, start + k);
		/* Stratified: prefix k is an integer of the k-th slice of the range, so prefixes are distinct and sorted. */
		int64_t lo = (int64_t)floor(k * range / count), hi = (int64_t)floor((k + 1) * range / count);
		g->zip = st->zip_lo + (int32_t)floe_shop_rng_range(&r, lo, hi > lo ? hi - 1 : lo);
		g->state = (uint8_t)s;
		if (k < capital || cities == 1 || count == capital)
			g->city = 0;
		else
			g->city = (uint8_t)(1 + (uint64_t)(k - capital) * (uint64_t)(cities - 1) / (count - capital));
		double lat, lng, jitter = g->city == 0 ? 0.08 : 0.05;
		city_center(&lat, &lng, s, g->city);
		g->lat = lat + (floe_shop_rng_uniform(&r) * 2 - 1) * jitter;
		g->lng = lng + (floe_shop_rng_uniform(&r) * 2 - 1) * jitter;
	}
}

static void build_geo(shop_world *w)
{
	double want = clampd(round(OLIST_ZIP_PREFIXES * sqrt(w->scale)), 4 * SHOP_N_STATES, 90000);
	double weights[SHOP_N_STATES], total = 0;
	uint32_t counts[SHOP_N_STATES], n = 0;
	for (size_t s = 0; s < SHOP_N_STATES; s++)
		total += weights[s] = pow(shop_states[s].customers + 4 * shop_states[s].sellers, 0.75);
	for (size_t s = 0; s < SHOP_N_STATES; s++) {
		double range = shop_states[s].zip_hi - shop_states[s].zip_lo + 1;
		counts[s] = (uint32_t)clampd(round(want * weights[s] / total), 2, range);
		n += counts[s];
	}
	w->n_geo = n;
	w->geo = floe_xcalloc(n, sizeof(shop_geo));
	uint32_t start = 0;
	for (size_t s = 0; s < SHOP_N_STATES; s++) {
		build_geo_state(w, s, start, counts[s]);
		start += counts[s];
	}
}

uint32_t shop_world_pick_geo(const shop_world *w, floe_shop_rng *rng, size_t state, double capital_share)
{
	uint32_t start = w->geo_start[state], count = w->geo_count[state], capital = w->geo_capital[state];
	if (capital >= count || floe_shop_rng_chance(rng, capital_share))
		return start + (uint32_t)floe_shop_rng_below(rng, capital);
	return start + capital + (uint32_t)floe_shop_rng_below(rng, count - capital);
}

double shop_world_distance_km(const shop_world *w, uint32_t a, uint32_t b)
{
	const double rad = M_PI / 180.0;
	double lat1 = w->geo[a].lat * rad, lat2 = w->geo[b].lat * rad;
	double dlat = lat2 - lat1, dlng = (w->geo[b].lng - w->geo[a].lng) * rad;
	double h = sin(dlat / 2) * sin(dlat / 2) + cos(lat1) * cos(lat2) * sin(dlng / 2) * sin(dlng / 2);
	return 2 * 6371.0 * asin(sqrt(clampd(h, 0, 1)));
}

/* ---- sellers and products ---- */

static void build_sellers(shop_world *w)
{
	int64_t opened = floe_days_from_civil(2015, 1, 1);
	w->sellers = floe_xcalloc(w->n_sellers, sizeof(shop_seller));
	for (uint32_t i = 0; i < w->n_sellers; i++) {
		shop_seller *s = &w->sellers[i];
		floe_shop_rng r;
		floe_shop_rng_init(&r, w->seed, SHOP_STREAM_SELLER, i);
		floe_shop_rng_uuid(&r, s->id);
		size_t state = floe_shop_dist_sample(&w->seller_state, &r);
		s->geo = shop_world_pick_geo(w, &r, state, 0.45);
		/* Every seller joined before the first order (2016-09), so joining never follows a sale. */
		s->joined_day = (int32_t)(opened + floe_shop_rng_range(&r, 0, 600));
		s->active = floe_shop_rng_chance(&r, 0.97);
	}
}

/* A price as shops write them: R$ 49,90, 49,99 or 49,00. */
static int32_t shop_price(floe_shop_rng *r, double reais)
{
	static const int endings[] = { 90, 99, 0, 90, 99, 50 };
	double whole = floor(reais);
	int32_t cents = (int32_t)whole * 100 + endings[floe_shop_rng_below(r, 6)];
	return cents < 85 ? 85 : cents; /* Olist's cheapest item: R$ 0,85 */
}

static void product_dims(shop_product *p, floe_shop_rng *r, double weight_median)
{
	p->weight_g = (int32_t)clampd(round(floe_shop_rng_lognormal(r, weight_median, 0.9)), 50, 40000);
	/* Packaged goods: about 0.12 g/cm³, within the carriers' limits (16×11×2 cm to 105 cm a side). */
	double volume = p->weight_g / floe_shop_rng_lognormal(r, 0.12, 0.6);
	double side = cbrt(volume);
	double length = clampd(round(side * floe_shop_rng_lognormal(r, 1.3, 0.2)), 16, 105);
	double width = clampd(round(side * floe_shop_rng_lognormal(r, 1.0, 0.2)), 11, 105);
	double height = clampd(round(volume / (length * width)), 2, 105);
	p->length_cm = (int16_t)length, p->width_cm = (int16_t)width, p->height_cm = (int16_t)height;
	p->no_dims = floe_shop_rng_chance(r, NO_DIMS_SHARE);
}

static void build_products(shop_world *w)
{
	w->products = floe_xcalloc(w->n_products, sizeof(shop_product));
	for (uint32_t i = 0; i < w->n_products; i++) {
		shop_product *p = &w->products[i];
		floe_shop_rng r;
		floe_shop_rng_init(&r, w->seed, SHOP_STREAM_PRODUCT, i);
		floe_shop_rng_uuid(&r, p->id);
		bool none = floe_shop_rng_chance(&r, NO_CATEGORY_SHARE);
		size_t c = floe_shop_dist_sample(&w->category, &r);
		p->category = none ? -1 : (int16_t)c;
		const shop_category *cat = &shop_categories[c];
		p->price_cents = shop_price(&r, floe_shop_rng_lognormal(&r, cat->price_median, cat->price_sigma));
		product_dims(p, &r, cat->weight_median);
		/* A few sellers hold most of the catalogue: seller k offers ∝ k^-0.375 of it. */
		p->sellers[0] = (uint32_t)(w->n_sellers * pow(floe_shop_rng_uniform(&r), 1.6));
		p->n_sellers = 1;
		if (floe_shop_rng_chance(&r, SECOND_SELLER_SHARE)) {
			p->sellers[p->n_sellers++] = (uint32_t)floe_shop_rng_below(&r, w->n_sellers);
			if (floe_shop_rng_chance(&r, THIRD_SELLER_SHARE))
				p->sellers[p->n_sellers++] = (uint32_t)floe_shop_rng_below(&r, w->n_sellers);
		}
	}
}

/* ---- people ---- */

/* The first order placed on the day of order i (orders are numbered in time). */
static uint32_t first_of_day(const shop_world *w, uint32_t i)
{
	floe_shop_dist cal = { w->day_cum, w->n_days };
	size_t day = floe_shop_dist_quantile(&cal, (i + 0.5) / w->n_orders);
	if (day == 0)
		return 0;
	double first = ceil(w->day_cum[day - 1] * w->n_orders - 0.5);
	return first < 0 ? 0 : first > i ? i : (uint32_t)first;
}

/* A returning customer is one who ordered on an earlier day: order i takes the person of such an order. */
static void build_repeats(shop_world *w)
{
	w->first_order = floe_xcalloc(w->n_orders, sizeof(uint32_t));
	for (uint32_t i = 0; i < w->n_orders; i++) {
		floe_shop_rng r;
		floe_shop_rng_init(&r, w->seed, SHOP_STREAM_REPEAT, i);
		uint32_t earlier = floe_shop_rng_chance(&r, REPEAT_SHARE) ? first_of_day(w, i) : 0;
		w->first_order[i] = earlier ? w->first_order[floe_shop_rng_below(&r, earlier)] : i;
	}
}

/* ---- review scores ---- */

/*
 * Late deliveries and canceled orders are reviewed worse (model); the on-time
 * mix is what is left of the target mix, so the overall shares stay Olist's.
 */
static void build_scores(shop_world *w)
{
	static const double late[6] = { 0, 0.46, 0.09, 0.12, 0.11, 0.22 };
	static const double canceled[6] = { 0, 0.75, 0.07, 0.06, 0.04, 0.08 };
	double f_c = CANCELED_REVIEW_SHARE, f_l = (1 - f_c) * LATE_SHARE, f_o = 1 - f_c - f_l;
	double on_time[6] = { 0 };
	for (int s = 1; s <= 5; s++)
		on_time[s] = fmax(0, (shop_review_scores[s] - f_l * late[s] - f_c * canceled[s]) / f_o);
	floe_shop_dist_init(&w->score_on_time, on_time + 1, 5);
	floe_shop_dist_init(&w->score_late, late + 1, 5);
	floe_shop_dist_init(&w->score_canceled, canceled + 1, 5);
}

static void build_dists(shop_world *w)
{
	double customers[SHOP_N_STATES], sellers[SHOP_N_STATES], categories[SHOP_N_CATEGORIES];
	double primary[4];
	for (size_t s = 0; s < SHOP_N_STATES; s++) {
		customers[s] = shop_states[s].customers;
		sellers[s] = shop_states[s].sellers;
	}
	for (size_t c = 0; c < SHOP_N_CATEGORIES; c++)
		categories[c] = shop_categories[c].products;
	/* The primary (non-voucher) payment of an order; voucher-only orders take the rest. */
	for (int t = 0; t < 4; t++)
		primary[t] = shop_payment_counts[t];
	floe_shop_dist_init(&w->status, shop_status_counts, SHOP_N_STATUS);
	floe_shop_dist_init(&w->items, shop_items_per_order, SHOP_MAX_ITEMS + 1);
	floe_shop_dist_init(&w->primary_pay, primary, 4);
	floe_shop_dist_init(&w->installments, shop_installments, SHOP_MAX_INSTALLMENTS + 1);
	floe_shop_dist_init(&w->hour, shop_hour_counts, 24);
	floe_shop_dist_init(&w->customer_state, customers, SHOP_N_STATES);
	floe_shop_dist_init(&w->seller_state, sellers, SHOP_N_STATES);
	floe_shop_dist_init(&w->category, categories, SHOP_N_CATEGORIES);
	build_scores(w);
}

static uint32_t scaled(double olist, double scale, double floor_)
{
	return (uint32_t)fmax(floor_, round(olist * scale));
}

int shop_world_build(shop_world **out, uint64_t seed, double scale)
{
	*out = NULL;
	if (!(scale > 0) || scale > FLOE_SHOP_MAX_SCALE) {
		floe_error_set(FLOE_ERR_USAGE, "scale %g is out of range", scale);
		floe_error_hint("Use a scale above 0 and at most %g; 1 is Olist's size, 0.1 a tenth of it.",
				FLOE_SHOP_MAX_SCALE);
		return -1;
	}
	shop_world *w = floe_xcalloc(1, sizeof(*w));
	w->seed = seed;
	w->scale = scale;
	w->n_orders = scaled(OLIST_ORDERS, scale, 1);
	w->n_products = scaled(OLIST_PRODUCTS, scale, 20);
	w->n_sellers = scaled(OLIST_SELLERS, scale, 5);
	build_dists(w);
	build_calendar(w);
	build_geo(w);
	build_sellers(w);
	build_products(w);
	build_repeats(w);
	*out = w;
	return 0;
}

shop_world *shop_world_profiles(uint64_t seed)
{
	shop_world *w = floe_xcalloc(1, sizeof(*w));
	w->seed = seed;
	build_dists(w);
	return w;
}

void shop_world_free(shop_world *w)
{
	if (!w)
		return;
	floe_shop_dist *dists[] = { &w->status, &w->items, &w->primary_pay, &w->installments, &w->hour,
				    &w->customer_state, &w->seller_state, &w->category, &w->score_on_time,
				    &w->score_late, &w->score_canceled };
	for (size_t i = 0; i < sizeof(dists) / sizeof(dists[0]); i++)
		floe_shop_dist_free(dists[i]);
	free(w->day_cum);
	free(w->geo);
	free(w->sellers);
	free(w->products);
	free(w->first_order);
	free(w);
}
