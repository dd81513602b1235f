/*
 * test_stream.c — the shop's traffic as messages (src/shop/stream.c): the same seed gives the
 * same messages byte for byte, a different seed others; every value is a JSON object; a
 * tombstone only ever removes a key an earlier message created.
 */
#include "harness.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/json.h"
#include "shop/shop.h"

#include <string.h>

typedef struct recorded {
	floe_buf all;                /* table \t key \t value (or \N) \n, every message */
	int messages, tombstones, orphans, not_objects;
	floe_buf created;            /* "table key\n" of every value sent */
} recorded;

static int record(void *ctx, const char *table, const char *key, size_t key_len, const char *value, size_t value_len)
{
	recorded *r = ctx;
	floe_buf id = FLOE_BUF_INIT;
	floe_buf_printf(&id, "%s %.*s\n", table, (int)key_len, key);
	floe_buf_printf(&r->all, "%s\t%.*s\t", table, (int)key_len, key);
	if (value) {
		floe_json_doc *doc = NULL;
		floe_json_error jerr;
		floe_buf_put(&r->all, value, value_len);
		if (floe_json_parse(&doc, value, value_len, &jerr) < 0 ||
		    floe_json_type_of(floe_json_root(doc)) != FLOE_JSON_OBJECT)
			r->not_objects++;
		floe_json_free(doc);
		floe_buf_put(&r->created, id.ptr, id.len);
	} else {
		floe_buf_puts(&r->all, "\\N");
		r->tombstones++;
		if (!r->created.len || !strstr(floe_buf_cstr(&r->created), floe_buf_cstr(&id)))
			r->orphans++;
	}
	floe_buf_putc(&r->all, '\n');
	r->messages++;
	floe_buf_free(&id);
	floe_error_clear();
	return 0;
}

static void run(recorded *r, uint64_t seed, int events)
{
	floe_shop_stream *s = NULL;
	memset(r, 0, sizeof(*r));
	floe_buf_init(&r->all, 0);
	floe_buf_init(&r->created, 0);
	if (floe_shop_stream_new(&s, seed) < 0)
		return;
	for (int i = 0; i < events; i++)
		floe_shop_stream_next(s, record, r);
	floe_shop_stream_free(s);
}

FLOE_TEST(shop_stream_is_reproducible_per_seed)
{
	recorded a, b, c;
	run(&a, 5, 3000);
	run(&b, 5, 3000);
	run(&c, 6, 3000);
	FLOE_CHECK(a.messages > 3000 && a.all.len == b.all.len && memcmp(a.all.ptr, b.all.ptr, a.all.len) == 0);
	FLOE_CHECK(c.all.len != a.all.len || memcmp(a.all.ptr, c.all.ptr, a.all.len) != 0);
	FLOE_CHECK(a.not_objects == 0);
	FLOE_CHECK(a.tombstones > 0 && a.orphans == 0);
	FLOE_CHECK(strstr(floe_buf_cstr(&a.all), "reviews\t") && strstr(floe_buf_cstr(&a.all), "\"delivered\""));
	recorded *all[] = { &a, &b, &c };
	for (int i = 0; i < 3; i++) {
		floe_buf_free(&all[i]->all);
		floe_buf_free(&all[i]->created);
	}
}
