/*
 * rows.c — COPY rows for every table of the shop in PostgreSQL's binary format,
 * written straight into a growing buffer (one reserve per row, then plain
 * stores: this is the hot loop of `floe shop generate`).
 *
 * Binary rather than text because the server, not this generator, is the
 * bottleneck of a load, and binary input costs it a third of text's parsing
 * (measured on the orders table: 0.20 s against 0.68 s at scale 1).
 *
 * Each row: int16 column count, then per column an int32 length (-1 for NULL)
 * and the value in the type's send/recv form, all big-endian. Local times are
 * Brasília's (UTC−3, no daylight saving): timestamp columns carry them as they
 * are, timestamptz columns as the instant they name.
 */
#include "shop/shop_int.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* No row is longer: the longest is a review with a three-phrase comment. */
#define ROW_MAX 2048

/* PostgreSQL's epoch (2000-01-01) in days and seconds since 1970-01-01. */
#define PG_EPOCH_DAYS 10957LL
#define PG_EPOCH_SECS (PG_EPOCH_DAYS * SHOP_DAY)
#define LOCAL_UTC_OFFSET (3 * SHOP_HOUR)
#define TEXT_OID 25

typedef struct row {
	char *p;
} row;

static inline void put(row *r, const void *s, size_t n)
{
	memcpy(r->p, s, n);
	r->p += n;
}

static inline void put_u16(row *r, uint16_t v)
{
	r->p[0] = (char)(v >> 8);
	r->p[1] = (char)v;
	r->p += 2;
}

static inline void put_u32(row *r, uint32_t v)
{
	put_u16(r, (uint16_t)(v >> 16));
	put_u16(r, (uint16_t)v);
}

static inline void put_u64(row *r, uint64_t v)
{
	put_u32(r, (uint32_t)(v >> 32));
	put_u32(r, (uint32_t)v);
}

/* ---- fields ---- */

static void f_null(row *r)
{
	put_u32(r, UINT32_MAX); /* length -1 */
}

static void f_int2(row *r, int v)
{
	put_u32(r, 2);
	put_u16(r, (uint16_t)(int16_t)v);
}

static void f_int4(row *r, int64_t v)
{
	put_u32(r, 4);
	put_u32(r, (uint32_t)(int32_t)v);
}

static void f_int8(row *r, int64_t v)
{
	put_u32(r, 8);
	put_u64(r, (uint64_t)v);
}

static void f_bool(row *r, bool v)
{
	put_u32(r, 1);
	*r->p++ = v ? 1 : 0;
}

static void f_float8(row *r, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	put_u32(r, 8);
	put_u64(r, bits);
}

static void f_bytes(row *r, const char *s, size_t n)
{
	put_u32(r, (uint32_t)n);
	put(r, s, n);
}

static void f_text(row *r, const char *s)
{
	f_bytes(r, s, strlen(s));
}

static void f_uuid(row *r, const uint8_t id[16])
{
	f_bytes(r, (const char *)id, 16);
}

static void f_date(row *r, int64_t days)
{
	f_int4(r, days - PG_EPOCH_DAYS);
}

/* timestamp: the local wall-clock time as written. */
static void f_ts(row *r, int64_t secs)
{
	if (secs == SHOP_NONE)
		f_null(r);
	else
		f_int8(r, (secs - PG_EPOCH_SECS) * 1000000);
}

/* timestamptz: the instant a Brasília wall-clock time names. */
static void f_tstz(row *r, int64_t secs)
{
	f_int8(r, (secs + LOCAL_UTC_OFFSET - PG_EPOCH_SECS) * 1000000);
}

/* numeric with two decimals: base-10000 digits, weight of the first, sign, display scale. */
static void f_cents(row *r, int64_t cents)
{
	uint16_t digits[8];
	int n = 0, weight = -1;
	uint64_t whole = (uint64_t)(cents < 0 ? -cents : cents) / 100;
	uint16_t frac = (uint16_t)((cents < 0 ? -cents : cents) % 100 * 100);
	uint16_t groups[6];
	int g = 0;
	for (; whole; whole /= 10000)
		groups[g++] = (uint16_t)(whole % 10000);
	weight = g - 1;
	while (g)
		digits[n++] = groups[--g];
	if (frac)
		digits[n++] = frac;
	if (n == 0)
		weight = 0;
	put_u32(r, (uint32_t)(8 + 2 * n));
	put_u16(r, (uint16_t)n);
	put_u16(r, (uint16_t)(int16_t)weight);
	put_u16(r, cents < 0 ? 0x4000 : 0x0000);
	put_u16(r, 2);
	for (int i = 0; i < n; i++)
		put_u16(r, digits[i]);
}

static void f_jsonb(row *r, const char *json, size_t n)
{
	put_u32(r, (uint32_t)(n + 1));
	*r->p++ = 1; /* jsonb's binary format version */
	put(r, json, n);
}

/* text[] with `n` elements (one dimension, no NULLs). */
static void f_text_array(row *r, const char *const *items, int n)
{
	size_t len = n ? 20 : 12;
	for (int i = 0; i < n; i++)
		len += 4 + strlen(items[i]);
	put_u32(r, (uint32_t)len);
	put_u32(r, n ? 1 : 0); /* dimensions */
	put_u32(r, 0);         /* no NULL elements */
	put_u32(r, TEXT_OID);
	if (n) {
		put_u32(r, (uint32_t)n);
		put_u32(r, 1); /* lower bound */
	}
	for (int i = 0; i < n; i++)
		f_text(r, items[i]);
}

/* ---- text forms (for tick.c's SQL and for messages) ---- */

static void put_int(row *r, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*r->p++ = '-';
	while (n)
		*r->p++ = tmp[--n];
}

size_t shop_format_cents(char *out, int64_t cents)
{
	row r = { out };
	if (cents < 0) {
		*r.p++ = '-';
		cents = -cents;
	}
	put_int(&r, cents / 100);
	*r.p++ = '.';
	*r.p++ = (char)('0' + cents % 100 / 10);
	*r.p++ = (char)('0' + cents % 10);
	*r.p = '\0';
	return (size_t)(r.p - out);
}

size_t shop_format_uuid(char *out, const uint8_t id[16])
{
	static const char hex[] = "0123456789abcdef";
	char *p = out;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[id[i] >> 4];
		*p++ = hex[id[i] & 15];
	}
	*p = '\0';
	return 36;
}

/* ---- rows ---- */

static row row_begin(floe_buf *out, int columns)
{
	int rc = floe_buf_reserve(out, ROW_MAX);
	assert(rc == 0); /* the buffer's limit is far above one chunk */
	(void)rc;
	row r = { out->ptr + out->len };
	put_u16(&r, (uint16_t)columns);
	return r;
}

static void row_end(floe_buf *out, row *r)
{
	size_t n = (size_t)(r->p - (out->ptr + out->len));
	assert(n <= ROW_MAX);
	out->len += n;
	out->ptr[out->len] = '\0';
}

void shop_rows_header(floe_buf *out)
{
	static const char signature[11] = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0' };
	floe_buf_put(out, signature, sizeof(signature));
	floe_buf_put(out, "\0\0\0\0\0\0\0\0", 8); /* flags, header extension length */
}

void shop_rows_trailer(floe_buf *out)
{
	floe_buf_put(out, "\377\377", 2);
}

/* ---- pools ---- */

static void emit_category(floe_buf *out, uint32_t i)
{
	row r = row_begin(out, 2);
	f_text(&r, shop_categories[i].name);
	f_text(&r, shop_categories[i].english);
	row_end(out, &r);
}

/* zip prefix, city, state: the address columns of customers and sellers */
static void f_place(row *r, const shop_world *w, uint32_t geo)
{
	const shop_geo *g = &w->geo[geo];
	f_int4(r, g->zip);
	f_text(r, shop_states[g->state].cities[g->city]);
	f_bytes(r, shop_states[g->state].code, 2);
}

/* Degrees rounded to six decimals (about 10 cm), the precision Olist publishes. */
static double micro_degrees(double deg)
{
	return (double)llround(deg * 1e6) / 1e6;
}

static void emit_geo(floe_buf *out, const shop_world *w, uint32_t i)
{
	const shop_geo *g = &w->geo[i];
	row r = row_begin(out, 5);
	f_int4(&r, g->zip);
	f_float8(&r, micro_degrees(g->lat));
	f_float8(&r, micro_degrees(g->lng));
	f_text(&r, shop_states[g->state].cities[g->city]);
	f_bytes(&r, shop_states[g->state].code, 2);
	row_end(out, &r);
}

static void emit_seller(floe_buf *out, const shop_world *w, uint32_t i)
{
	const shop_seller *s = &w->sellers[i];
	row r = row_begin(out, 6);
	f_uuid(&r, s->id);
	f_place(&r, w, s->geo);
	f_bool(&r, s->active);
	f_date(&r, s->joined_day);
	row_end(out, &r);
}

static const char *word(const shop_words *words, floe_shop_rng *rng)
{
	return words->words[floe_shop_rng_below(rng, words->n)];
}

/*
 * Category-specific attributes as JSON text (our words need no escapes). Draws
 * happen in statements of their own: the order in which a call's arguments are
 * evaluated is unspecified in C, and the contents must not depend on the compiler.
 */
static size_t attributes(char *out, size_t cap, const shop_product *p, floe_shop_rng *rng)
{
	shop_attr_kind kind = p->category < 0 ? SHOP_ATTR_GENERIC : shop_categories[p->category].attrs;
	const char *brand = word(&shop_brands, rng);
	const char *a = NULL, *b = NULL;
	int k = 0, n = 0;
	switch (kind) {
	case SHOP_ATTR_HOME:
		a = word(&shop_materials, rng);
		b = word(&shop_colors, rng);
		n = snprintf(out, cap, "{\"brand\": \"%s\", \"material\": \"%s\", \"color\": \"%s\"}", brand, a, b);
		break;
	case SHOP_ATTR_TECH:
		a = floe_shop_rng_chance(rng, 0.6) ? "bivolt" : "220V";
		k = (int)floe_shop_rng_range(rng, 3, 24);
		n = snprintf(out, cap, "{\"brand\": \"%s\", \"voltage\": \"%s\", \"warranty_months\": %d}", brand, a, k);
		break;
	case SHOP_ATTR_FASHION:
		a = word(&shop_sizes, rng);
		b = word(&shop_colors, rng);
		n = snprintf(out, cap, "{\"brand\": \"%s\", \"size\": \"%s\", \"color\": \"%s\"}", brand, a, b);
		break;
	case SHOP_ATTR_MEDIA:
		a = word(&shop_languages, rng);
		k = (int)floe_shop_rng_range(rng, 48, 900);
		n = snprintf(out, cap, "{\"brand\": \"%s\", \"language\": \"%s\", \"pages\": %d}", brand, a, k);
		break;
	case SHOP_ATTR_FOOD:
		k = (int)floe_shop_rng_range(rng, 30, 720);
		a = floe_shop_rng_chance(rng, 0.2) ? "true" : "false";
		n = snprintf(out, cap, "{\"brand\": \"%s\", \"shelf_life_days\": %d, \"organic\": %s}", brand, k, a);
		break;
	case SHOP_ATTR_BEAUTY:
		k = (int)floe_shop_rng_range(rng, 1, 20) * 25;
		a = floe_shop_rng_chance(rng, 0.3) ? "true" : "false";
		n = snprintf(out, cap, "{\"brand\": \"%s\", \"volume_ml\": %d, \"vegan\": %s}", brand, k, a);
		break;
	case SHOP_ATTR_GENERIC:
		a = word(&shop_colors, rng);
		n = snprintf(out, cap, "{\"brand\": \"%s\", \"color\": \"%s\"}", brand, a);
		break;
	}
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Up to three distinct merchandising tags. */
static int tags(const char **out, floe_shop_rng *rng)
{
	int want = (int)floe_shop_rng_below(rng, 4), n = 0;
	uint32_t used = 0;
	for (int k = 0; k < want; k++) {
		size_t t = floe_shop_rng_below(rng, shop_tags.n);
		if (!(used & (1u << t))) {
			used |= 1u << t;
			out[n++] = shop_tags.words[t];
		}
	}
	return n;
}

static void f_small(row *r, bool null, int64_t v, bool int4)
{
	if (null)
		f_null(r);
	else if (int4)
		f_int4(r, v);
	else
		f_int2(r, (int)v);
}

static void emit_product(floe_buf *out, const shop_world *w, uint32_t i)
{
	const shop_product *p = &w->products[i];
	floe_shop_rng rng;
	floe_shop_rng_init(&rng, w->seed, SHOP_STREAM_PRODUCT_TEXT, i);
	bool listed = p->category >= 0; /* Olist: products without a category lack these too */
	int64_t name_len = llround(fmin(fmax(48 + 10 * floe_shop_rng_normal(&rng), 5), 76));
	int64_t desc_len = llround(fmin(fmax(floe_shop_rng_lognormal(&rng, 600, 0.75), 4), 3992));
	int64_t photos = 1;
	while (photos < 20 && floe_shop_rng_chance(&rng, 0.45))
		photos++;
	char json[256];
	size_t json_len = attributes(json, sizeof(json), p, &rng);
	const char *tag_list[4];
	int n_tags = tags(tag_list, &rng);
	uint64_t hash = floe_shop_rng_next(&rng);
	row r = row_begin(out, 12);
	f_uuid(&r, p->id);
	if (listed)
		f_text(&r, shop_categories[p->category].name);
	else
		f_null(&r);
	f_small(&r, !listed, name_len, false);
	f_small(&r, !listed, desc_len, true);
	f_small(&r, !listed, photos, false);
	f_small(&r, p->no_dims, p->weight_g, true);
	f_small(&r, p->no_dims, p->length_cm, false);
	f_small(&r, p->no_dims, p->height_cm, false);
	f_small(&r, p->no_dims, p->width_cm, false);
	f_jsonb(&r, json, json_len);
	f_text_array(&r, tag_list, n_tags);
	if (listed) {
		/* An 8-byte perceptual hash of the main photo. */
		put_u32(&r, 8);
		put_u64(&r, hash);
	} else {
		f_null(&r);
	}
	row_end(out, &r);
}

/* ---- per order ---- */

static const char *const first_names[] = {
	"ana", "maria", "joao", "jose", "paulo", "carlos", "lucas", "pedro", "julia", "beatriz", "camila",
	"rafael", "bruno", "fernanda", "larissa", "gabriel", "marcos", "patricia", "rodrigo", "aline",
	"thiago", "vanessa", "felipe", "leticia",
};
static const char *const last_names[] = {
	"silva", "santos", "oliveira", "souza", "rodrigues", "ferreira", "alves", "pereira", "lima", "gomes",
	"costa", "ribeiro", "martins", "carvalho", "almeida", "lopes", "soares", "fernandes", "vieira",
	"barbosa", "rocha", "dias", "nascimento", "moreira",
};

size_t shop_customer_email(char *out, size_t cap, const shop_order *o)
{
	static const char *const domains[] = { "example.com", "example.net", "example.org" };
	uint32_t t = o->email_tag;
	int n = snprintf(out, cap, "%s.%s%02u@%s", first_names[t % 24], last_names[t / 24 % 24], t / 576 % 100,
			 domains[t / 57600 % 3]);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

static void emit_customer(floe_buf *out, const shop_world *w, const shop_order *o)
{
	char email[96];
	size_t email_len = shop_customer_email(email, sizeof(email), o);
	row r = row_begin(out, 6);
	f_uuid(&r, o->customer_id);
	f_uuid(&r, o->customer_unique);
	f_place(&r, w, o->customer_geo);
	f_bytes(&r, email, email_len);
	row_end(out, &r);
}

static void emit_order(floe_buf *out, const shop_order *o)
{
	row r = row_begin(out, 10);
	f_uuid(&r, o->id);
	f_int8(&r, (int64_t)o->index + 1);
	f_uuid(&r, o->customer_id);
	f_text(&r, shop_status_names[o->status]);
	f_ts(&r, o->purchase);
	f_ts(&r, o->approved);
	f_ts(&r, o->carrier);
	f_ts(&r, o->delivered);
	f_date(&r, o->estimated_day);
	f_tstz(&r, o->updated_at);
	row_end(out, &r);
}

static void emit_items(floe_buf *out, const shop_world *w, const shop_order *o)
{
	for (int k = 0; k < o->n_items; k++) {
		const shop_item *it = &o->items[k];
		row r = row_begin(out, 7);
		f_uuid(&r, o->id);
		f_int2(&r, k + 1);
		f_uuid(&r, w->products[it->product].id);
		f_uuid(&r, w->sellers[it->seller].id);
		f_ts(&r, o->shipping_limit);
		f_cents(&r, it->price_cents);
		f_cents(&r, it->freight_cents);
		row_end(out, &r);
	}
}

static void emit_payments(floe_buf *out, const shop_order *o)
{
	for (int k = 0; k < o->n_payments; k++) {
		const shop_payment *p = &o->payments[k];
		row r = row_begin(out, 6);
		f_uuid(&r, o->id);
		f_int2(&r, k + 1);
		f_text(&r, shop_payment_names[p->type]);
		f_int2(&r, p->installments);
		f_cents(&r, p->value_cents);
		f_tstz(&r, o->payments_updated_at);
		row_end(out, &r);
	}
}

const char *shop_review_title(const shop_review *rv)
{
	int group = rv->score <= 2 ? 0 : rv->score == 3 ? 1 : 2;
	return rv->title < 0 ? NULL : shop_titles[group].words[rv->title];
}

size_t shop_review_message(char *out, size_t cap, const shop_review *rv)
{
	int group = rv->score <= 2 ? 0 : rv->score == 3 ? 1 : 2;
	size_t n = 0;
	out[0] = '\0';
	for (int k = 0; k < rv->n_phrases; k++) {
		const char *sep = k == 0 ? "" : rv->line_breaks ? "\r\n" : " ";
		const char *phrase = shop_phrases[group].words[(rv->phrases >> (5 * k)) & 31];
		int w = snprintf(out + n, cap - n, "%s%s", sep, phrase);
		if (w < 0 || (size_t)w >= cap - n)
			break;
		n += (size_t)w;
	}
	return n;
}

static void emit_reviews(floe_buf *out, const shop_order *o)
{
	for (int k = 0; k < o->n_reviews; k++) {
		const shop_review *rv = &o->reviews[k];
		const char *title = shop_review_title(rv);
		char text[512];
		size_t text_len = shop_review_message(text, sizeof(text), rv);
		row r = row_begin(out, 8);
		f_uuid(&r, rv->id);
		f_uuid(&r, o->id);
		f_int2(&r, rv->score);
		if (title)
			f_text(&r, title);
		else
			f_null(&r);
		if (rv->n_phrases)
			f_bytes(&r, text, text_len);
		else
			f_null(&r);
		f_date(&r, rv->created_day);
		f_ts(&r, rv->answered);
		f_tstz(&r, rv->answered);
		row_end(out, &r);
	}
}

/* ---- tables ---- */

const shop_table shop_tables[SHOP_N_TABLES] = {
	{ "product_categories",
	  "product_category_name, product_category_name_english" },
	{ "geolocation",
	  "geolocation_zip_code_prefix, geolocation_lat, geolocation_lng, geolocation_city, geolocation_state" },
	{ "sellers",
	  "seller_id, seller_zip_code_prefix, seller_city, seller_state, seller_active, seller_joined_on" },
	{ "products",
	  "product_id, product_category_name, product_name_length, product_description_length, "
	  "product_photos_qty, product_weight_g, product_length_cm, product_height_cm, product_width_cm, "
	  "product_attributes, product_tags, product_image_hash" },
	{ "customers",
	  "customer_id, customer_unique_id, customer_zip_code_prefix, customer_city, customer_state, "
	  "customer_email" },
	{ "orders",
	  "order_id, order_number, customer_id, order_status, order_purchase_timestamp, order_approved_at, "
	  "order_delivered_carrier_date, order_delivered_customer_date, order_estimated_delivery_date, "
	  "updated_at" },
	{ "order_items",
	  "order_id, order_item_id, product_id, seller_id, shipping_limit_date, price, freight_value" },
	{ "payments",
	  "order_id, payment_sequential, payment_type, payment_installments, payment_value, updated_at" },
	{ "reviews",
	  "review_id, order_id, review_score, review_comment_title, review_comment_message, "
	  "review_creation_date, review_answer_timestamp, updated_at" },
};

uint32_t shop_rows_units(const shop_world *w, shop_table_id t)
{
	switch (t) {
	case SHOP_T_PRODUCT_CATEGORIES:
		return SHOP_N_CATEGORIES;
	case SHOP_T_GEOLOCATION:
		return w->n_geo;
	case SHOP_T_SELLERS:
		return w->n_sellers;
	case SHOP_T_PRODUCTS:
		return w->n_products;
	default:
		return w->n_orders;
	}
}

void shop_rows_emit_order(floe_buf *out, const shop_world *w, shop_table_id t, const shop_order *o)
{
	switch (t) {
	case SHOP_T_CUSTOMERS:
		emit_customer(out, w, o);
		break;
	case SHOP_T_ORDERS:
		emit_order(out, o);
		break;
	case SHOP_T_ORDER_ITEMS:
		emit_items(out, w, o);
		break;
	case SHOP_T_PAYMENTS:
		emit_payments(out, o);
		break;
	default:
		emit_reviews(out, o);
		break;
	}
}

void shop_rows_emit(floe_buf *out, const shop_world *w, shop_table_id t, uint32_t from, uint32_t to)
{
	shop_order o;
	for (uint32_t i = from; i < to; i++) {
		switch (t) {
		case SHOP_T_PRODUCT_CATEGORIES:
			emit_category(out, i);
			break;
		case SHOP_T_GEOLOCATION:
			emit_geo(out, w, i);
			break;
		case SHOP_T_SELLERS:
			emit_seller(out, w, i);
			break;
		case SHOP_T_PRODUCTS:
			emit_product(out, w, i);
			break;
		default:
			shop_order_build(&o, w, i);
			shop_rows_emit_order(out, w, t, &o);
			break;
		}
	}
}
