/*
 * shop_int.h — what the shop module's files share. Not for other modules; they
 * use shop.h.
 *
 *   rng.c       streams and samplers (rng.h, public for the unit tests)
 *   profile.c   the data tables: Olist's measured mixes, geography, categories, texts
 *   calendar.c  civil dates and the purchase calendar
 *   world.c     the pools (geolocation, sellers, products, customers) for one seed and scale
 *   order.c     one order with its customer, items, payments and reviews, from its own stream
 *   rows.c      COPY text rows for every table
 *   schema.c    DDL: types, tables, comments (pre-data); keys, indexes, triggers (post-data)
 *   load.c      floe_shop_generate: one transaction, a generator thread, COPY
 *   checksum.c  the contents' checksum, computed by PostgreSQL
 *   query.c     statements they all run: the schema, whether a shop is there, one value
 *   tick.c      floe_shop_tick: OLTP traffic and late commits
 *   evolve.c    floe_shop_evolve: one schema change
 */
#ifndef FLOE_SHOP_SHOP_INT_H
#define FLOE_SHOP_SHOP_INT_H

#include "base/civil.h"
#include "base/buf.h"
#include "shop/rng.h"
#include "shop/shop.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- profile.c: data tables ---- */

/* Stream kinds: each pool and fact draws from its own family of streams. */
enum {
	SHOP_STREAM_GEO = 1,
	SHOP_STREAM_SELLER,
	SHOP_STREAM_PRODUCT,
	SHOP_STREAM_PRODUCT_TEXT, /* a product's descriptive columns */
	SHOP_STREAM_CUSTOMER,   /* a unique customer (person): home, e-mail */
	SHOP_STREAM_REPEAT,     /* whether an order is a returning customer's */
	SHOP_STREAM_ORDER,      /* everything else about one order */
	SHOP_STREAM_TICK
};

/* Order status labels in lifecycle order: the enum type's order. */
enum {
	SHOP_CREATED,
	SHOP_APPROVED,
	SHOP_INVOICED,
	SHOP_PROCESSING,
	SHOP_SHIPPED,
	SHOP_DELIVERED,
	SHOP_CANCELED,
	SHOP_UNAVAILABLE,
	SHOP_N_STATUS
};
extern const char *const shop_status_names[SHOP_N_STATUS];
extern const double shop_status_counts[SHOP_N_STATUS];

/* Payment types; the primary (non-voucher) ones come first. */
enum { SHOP_PAY_CREDIT_CARD, SHOP_PAY_BOLETO, SHOP_PAY_DEBIT_CARD, SHOP_PAY_NOT_DEFINED, SHOP_PAY_VOUCHER, SHOP_N_PAY };
extern const char *const shop_payment_names[SHOP_N_PAY];
extern const double shop_payment_counts[SHOP_N_PAY]; /* Olist rows per type */

#define SHOP_MAX_ITEMS 21
#define SHOP_MAX_PAYMENTS 29
#define SHOP_MAX_INSTALLMENTS 24

extern const double shop_items_per_order[SHOP_MAX_ITEMS + 1];   /* index = items; Olist orders */
extern const double shop_installments[SHOP_MAX_INSTALLMENTS + 1]; /* credit card rows by installments */
extern const double shop_review_scores[6];                        /* index = score, [0] unused */
extern const double shop_hour_counts[24];
extern const double shop_weekday_counts[7]; /* Monday first */

/* Orders per month from 2016-09 to 2018-10, and a per-month transit slowdown. */
#define SHOP_N_MONTHS 26
extern const int shop_first_year, shop_first_month;
extern const double shop_month_counts[SHOP_N_MONTHS];
extern const double shop_month_slowdown[SHOP_N_MONTHS];

typedef struct shop_state {
	char code[3];
	int customers;         /* Olist customers living there */
	int sellers;           /* Olist sellers based there */
	int zip_lo, zip_hi;    /* its CEP range, as 5-digit prefixes */
	double lat, lng;       /* the capital */
	double spread;         /* degrees: how far its other cities lie from the capital */
	double capital_share;  /* share of customers living in the capital */
	const char *cities[8]; /* capital first; NULL-terminated when shorter */
} shop_state;
#define SHOP_N_STATES 27
extern const shop_state shop_states[SHOP_N_STATES];

typedef enum shop_attr_kind { SHOP_ATTR_HOME, SHOP_ATTR_TECH, SHOP_ATTR_FASHION, SHOP_ATTR_MEDIA,
			      SHOP_ATTR_FOOD, SHOP_ATTR_BEAUTY, SHOP_ATTR_GENERIC } shop_attr_kind;

typedef struct shop_category {
	const char *name;      /* Olist's product_category_name */
	const char *english;   /* its translation */
	int products;          /* products in it (Olist, approximate outside the top 30) */
	double price_median;   /* R$ */
	double price_sigma;    /* log-space */
	double weight_median;  /* grams */
	shop_attr_kind attrs;
} shop_category;
#define SHOP_N_CATEGORIES 71
extern const shop_category shop_categories[SHOP_N_CATEGORIES];

/* Word lists for attributes, tags and review texts. */
typedef struct shop_words {
	const char *const *words;
	size_t n;
} shop_words;
extern const shop_words shop_colors, shop_materials, shop_brands, shop_sizes, shop_languages, shop_tags;
extern const shop_words shop_titles[3], shop_phrases[3]; /* [0] bad (1–2), [1] middling (3), [2] good (4–5) */

/* ---- calendar.c ---- */

int shop_weekday(int64_t days); /* 0 = Monday */

#define SHOP_DAY 86400LL
#define SHOP_HOUR 3600LL

/* "YYYY-MM-DD" and "YYYY-MM-DD HH:MM:SS" for seconds since the epoch (shop local time). */
size_t shop_format_date(char *out, int64_t days);
size_t shop_format_timestamp(char *out, int64_t secs);

/* ---- world.c: the pools ---- */

typedef struct shop_geo {
	int32_t zip;
	uint8_t state;
	uint8_t city;  /* index into shop_states[state].cities */
	double lat, lng;
} shop_geo;

typedef struct shop_seller {
	uint8_t id[16];
	uint32_t geo;
	int32_t joined_day;
	bool active;
} shop_seller;

#define SHOP_MAX_OFFERS 3
typedef struct shop_product {
	uint8_t id[16];
	int16_t category;  /* -1: none (as for 1.85 % of Olist's products) */
	uint8_t n_sellers;
	bool no_dims;      /* dimensions and weight unknown */
	int32_t price_cents;
	int32_t weight_g;
	int16_t length_cm, height_cm, width_cm;
	uint32_t sellers[SHOP_MAX_OFFERS];
} shop_product;

typedef struct shop_world {
	uint64_t seed;
	double scale;
	uint32_t n_orders, n_products, n_sellers, n_geo;
	shop_geo *geo;
	uint32_t geo_start[SHOP_N_STATES], geo_count[SHOP_N_STATES], geo_capital[SHOP_N_STATES];
	shop_seller *sellers;
	shop_product *products;
	uint32_t *first_order;  /* per order: the first order of the same person */
	/* purchase calendar: cumulative share of orders by day */
	int64_t first_day;
	uint32_t n_days;
	double *day_cum;
	floe_shop_dist status, items, primary_pay, installments, hour, customer_state, seller_state, category;
	floe_shop_dist score_on_time, score_late, score_canceled;
} shop_world;

/* Build every pool for (seed, scale). Fails only on an absurd scale (usage). */
int shop_world_build(shop_world **out, uint64_t seed, double scale);
void shop_world_free(shop_world *w);

/* Only the distributions (no pools, no calendar): what tick.c draws from. */
shop_world *shop_world_profiles(uint64_t seed);

/* A geolocation entry for a new address in `state`: the capital with its share, else elsewhere. */
uint32_t shop_world_pick_geo(const shop_world *w, floe_shop_rng *rng, size_t state, double capital_share);

/* Great-circle distance in km between two geolocation entries. */
double shop_world_distance_km(const shop_world *w, uint32_t a, uint32_t b);

/* ---- order.c: one order ---- */

typedef struct shop_item {
	uint32_t product, seller;
	int32_t price_cents, freight_cents;
} shop_item;

typedef struct shop_payment {
	uint8_t type;
	uint8_t installments;
	int32_t value_cents;
} shop_payment;

typedef struct shop_review {
	uint8_t id[16];
	uint8_t score;
	int8_t title;        /* index into shop_titles[group], -1: none */
	uint16_t phrases;    /* up to 3 phrase indexes, 5 bits each; 0: no message */
	uint8_t n_phrases;
	bool line_breaks;    /* phrases separated by CR LF, as some Olist reviews are */
	int64_t created_day;
	int64_t answered;    /* seconds; -1: not answered */
} shop_review;

#define SHOP_NONE INT64_MIN

typedef struct shop_order {
	uint32_t index;
	uint8_t id[16], customer_id[16], customer_unique[16];
	uint32_t customer_geo;
	uint32_t email_tag;
	uint8_t status;
	int64_t purchase, approved, carrier, delivered;  /* seconds, local time; SHOP_NONE: null */
	int64_t estimated_day;
	int64_t shipping_limit;
	int64_t updated_at, payments_updated_at;          /* seconds, local time */
	int n_items, n_payments, n_reviews;
	shop_item items[SHOP_MAX_ITEMS];
	shop_payment payments[SHOP_MAX_PAYMENTS];
	shop_review reviews[2];
	bool late;
} shop_order;

/* Order `index` (< w->n_orders), entirely determined by the seed and the index. */
void shop_order_build(shop_order *o, const shop_world *w, uint32_t index);

/*
 * The parts of an order a tick reuses: items for a new order, their payments, a
 * review. Each draws from `rng`.
 */
void shop_order_items(shop_order *o, const shop_world *w, floe_shop_rng *rng);
void shop_order_payments(shop_order *o, const shop_world *w, floe_shop_rng *rng, int64_t total_cents);
void shop_order_review(shop_review *r, const shop_world *w, floe_shop_rng *rng, const shop_order *o);

/* ---- events.c: the live traffic `tick` writes to PostgreSQL and `stream` sends to Kafka ---- */

#define SHOP_ID_LEN 37

/* Something on sale (a product from a seller at a price) and a place people order from. */
typedef struct shop_offer {
	char product[SHOP_ID_LEN], seller[SHOP_ID_LEN];
	int64_t price, freight;
} shop_offer;

typedef struct shop_person {
	char unique[SHOP_ID_LEN], city[72], state[3];
	int64_t zip;
} shop_person;

/* A new order: its customer record, items (as offers) and payments, drawn in one order. */
typedef struct shop_new_order {
	shop_order o;                       /* ids, status created, purchase, estimated_day, payments */
	const shop_person *where;
	bool returning;                     /* the person ordered before: `where->unique` is theirs */
	const shop_offer *items[SHOP_MAX_ITEMS];
	int64_t total;                      /* items' price plus freight, cents */
} shop_new_order;

/* Draw a new order placed at `now` (local seconds) from `offers` and `people` (both non-empty). */
void shop_event_new_order(shop_new_order *out, const shop_world *w, floe_shop_rng *rng, const shop_offer *offers,
			  int n_offers, const shop_person *people, int n_people, int64_t now);

/* The status an open order moves to next (created may be canceled). */
int shop_event_next_status(floe_shop_rng *rng, int status);

/* Whether an order delivered now gets a review (99.3 %), and that review. */
bool shop_event_reviewed(floe_shop_rng *rng);
void shop_event_review(shop_review *out, const shop_world *w, floe_shop_rng *rng, int64_t at, int64_t estimated_day);

/* ---- rows.c: COPY rows (binary format) ---- */

typedef enum shop_table_id {
	SHOP_T_PRODUCT_CATEGORIES,
	SHOP_T_GEOLOCATION,
	SHOP_T_SELLERS,
	SHOP_T_PRODUCTS,
	SHOP_T_CUSTOMERS,
	SHOP_T_ORDERS,
	SHOP_T_ORDER_ITEMS,
	SHOP_T_PAYMENTS,
	SHOP_T_REVIEWS,
	SHOP_N_TABLES
} shop_table_id;

typedef struct shop_table {
	const char *name;
	const char *columns;  /* the COPY column list */
} shop_table;
extern const shop_table shop_tables[SHOP_N_TABLES];

/* How many units (pool members or orders) a table's rows come from. */
uint32_t shop_rows_units(const shop_world *w, shop_table_id t);

/* The binary COPY stream's header and trailer, around every table's rows. */
void shop_rows_header(floe_buf *out);
void shop_rows_trailer(floe_buf *out);

/* Append the rows of units [from, to) of table `t` to `out`. */
void shop_rows_emit(floe_buf *out, const shop_world *w, shop_table_id t, uint32_t from, uint32_t to);

/* Append the rows order `o` gives table `t` (customers … reviews). */
void shop_rows_emit_order(floe_buf *out, const shop_world *w, shop_table_id t, const shop_order *o);

/* Text forms for tick.c's SQL parameters (NUL-terminated; the length is returned). */
size_t shop_format_uuid(char *out, const uint8_t id[16]);
size_t shop_format_cents(char *out, int64_t cents);
size_t shop_review_message(char *out, size_t cap, const shop_review *r);
const char *shop_review_title(const shop_review *r);
size_t shop_customer_email(char *out, size_t cap, const shop_order *o);

/* ---- schema.c ---- */

/* CREATE TYPE / TABLE / FUNCTION and COMMENT statements, one per entry. */
extern const char *const shop_schema_pre[];
/* Keys, foreign keys, indexes, triggers, sequence position. */
extern const char *const shop_schema_post[];
/* Every object generate may replace (DROP … IF EXISTS … CASCADE). */
extern const char *const shop_schema_drop[];

/* ---- checksum.c ---- */

int shop_checksum(floe_shop_sum *out, floe_pg *pg);

/* ---- query.c: shared by load.c, checksum.c, tick.c, evolve.c ---- */

/*
 * Run a query and append the first row's first value to `out` (when not NULL);
 * *found (when not NULL) says whether there was a row.
 */
int shop_value(floe_buf *out, bool *found, floe_pg *pg, const char *sql, int nparams, const char *const *params);

/* SET search_path to `schema` (quoted), so every statement may name tables bare. */
int shop_use_schema(floe_pg *pg, const char *schema);

/* Whether `schema` holds the shop (its orders table). */
int shop_exists(bool *out, floe_pg *pg, const char *schema);

#endif
