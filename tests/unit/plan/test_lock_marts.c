/*
 * test_lock_marts.c — the lock's gold marts: written after the tables, read back the same,
 * kept by the next generation (floe_lock_build), replaced by name, checked on reading.
 */
#include "harness.h"
#include "plan/lock.h"
#include "base/buf.h"
#include "base/error.h"

#include <string.h>

static const char hash[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static floe_lock_mart mart(const char *name)
{
	static const char *reads[] = { "silver.orders", "silver.order_items" };
	static const char *grain[] = { "month" };
	static floe_lock_file files[] = { { "dbt/models/gold/m.sql", hash } };
	return (floe_lock_mart){ .name = name, .table = "gold.m", .model = "dbt/models/gold/m.sql", .reads = reads,
				 .n_reads = 2, .grain = grain, .n_grain = 1, .hash = hash, .files = files, .n_files = 1 };
}

FLOE_TEST(lock_marts_round_trip)
{
	floe_lock *lock = NULL, *back = NULL;
	floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
	FLOE_CHECK(floe_lock_parse(&lock, "l", "{\"format\": 1, \"tables\": []}", 27) == 0);
	floe_lock_mart z = mart("zeta"), m = mart("monthly");
	floe_lock_set_mart(lock, &z);
	floe_lock_set_mart(lock, &m);
	m.n_grain = 0;
	floe_lock_set_mart(lock, &m); /* replaced by name */
	FLOE_CHECK(floe_lock_mart_count(lock) == 2);
	FLOE_CHECK_STR(floe_lock_mart_at(lock, 0)->name, "monthly"); /* kept in name order */
	FLOE_CHECK(floe_lock_mart_find(lock, "monthly")->n_grain == 0);
	FLOE_CHECK(floe_lock_render(&a, lock) == 0 && strstr(a.ptr, "\"marts\": ["));
	FLOE_CHECK(floe_lock_parse(&back, "l", a.ptr, a.len) == 0 && floe_lock_render(&b, back) == 0);
	FLOE_CHECK(a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0);
	const floe_lock_mart *r = floe_lock_mart_find(back, "zeta");
	FLOE_CHECK(r && r->n_reads == 2 && strcmp(r->reads[1], "silver.order_items") == 0 && r->n_files == 1);
	FLOE_CHECK(floe_lock_mart_find(back, "nope") == NULL);
	floe_buf_free(&a);
	floe_buf_free(&b);
	floe_lock_free(lock);
	floe_lock_free(back);
}

FLOE_TEST(lock_marts_reader_names_what_is_wrong)
{
	floe_lock *lock = NULL;
	const char *text = "{\"format\": 1, \"tables\": [], \"marts\": [{\"name\": \"m\", \"table\": \"gold.m\", "
			   "\"model\": \"x.sql\", \"hash\": \"h\", \"reads\": [1], \"grain\": []}]}";
	FLOE_CHECK(floe_lock_parse(&lock, "l", text, strlen(text)) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "marts[0].reads[0] must be a string"));
	text = "{\"format\": 1, \"tables\": [], \"marts\": {}}";
	FLOE_CHECK(floe_lock_parse(&lock, "l", text, strlen(text)) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "marts must be an array"));
	floe_error_clear();
}
