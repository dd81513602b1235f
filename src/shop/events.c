/*
 * events.c — the shop's live traffic as draws: a new order (customer, items,
 * payments), the next step of an open order, a review at delivery. `tick.c`
 * writes them to PostgreSQL, `stream.c` sends them as Kafka messages; both draw
 * from here, so the two carry the same mixes.
 */
#include "shop/shop_int.h"

#include <string.h>

#define RETURNING_SHARE 0.03
#define CANCEL_CREATED_SHARE 0.05
#define REPEAT_ITEM_SHARE 0.55
#define REVIEWED_SHARE 0.993

void shop_event_new_order(shop_new_order *out, const shop_world *w, floe_shop_rng *rng, const shop_offer *offers,
			  int n_offers, const shop_person *people, int n_people, int64_t now)
{
	memset(out, 0, sizeof(*out));
	shop_order *o = &out->o;
	floe_shop_rng_uuid(rng, o->id);
	floe_shop_rng_uuid(rng, o->customer_id);
	floe_shop_rng_uuid(rng, o->customer_unique);
	out->where = &people[floe_shop_rng_below(rng, (uint64_t)n_people)];
	out->returning = floe_shop_rng_chance(rng, RETURNING_SHARE);
	o->email_tag = (uint32_t)floe_shop_rng_next(rng);
	o->status = SHOP_CREATED;
	o->purchase = now;
	o->estimated_day = now / SHOP_DAY + floe_shop_rng_range(rng, 10, 30);
	o->n_items = (int)floe_shop_dist_sample(&w->items, rng);
	const shop_offer *prev = NULL;
	for (int k = 0; k < o->n_items; k++) {
		const shop_offer *of = prev && floe_shop_rng_chance(rng, REPEAT_ITEM_SHARE)
					       ? prev
					       : &offers[floe_shop_rng_below(rng, (uint64_t)n_offers)];
		out->items[k] = of;
		out->total += of->price + of->freight;
		prev = of;
	}
	shop_order_payments(o, w, rng, out->total);
}

int shop_event_next_status(floe_shop_rng *rng, int status)
{
	switch (status) {
	case SHOP_CREATED:
		return floe_shop_rng_chance(rng, CANCEL_CREATED_SHARE) ? SHOP_CANCELED : SHOP_APPROVED;
	case SHOP_APPROVED:
		return SHOP_INVOICED;
	case SHOP_INVOICED:
		return SHOP_PROCESSING;
	case SHOP_PROCESSING:
		return SHOP_SHIPPED;
	default:
		return SHOP_DELIVERED;
	}
}

bool shop_event_reviewed(floe_shop_rng *rng)
{
	return floe_shop_rng_chance(rng, REVIEWED_SHARE);
}

void shop_event_review(shop_review *out, const shop_world *w, floe_shop_rng *rng, int64_t at, int64_t estimated_day)
{
	shop_order o;
	memset(&o, 0, sizeof(o));
	o.status = SHOP_DELIVERED;
	o.delivered = at;
	o.late = at / SHOP_DAY > estimated_day;
	shop_order_review(out, w, rng, &o);
}
