/*
 * test_lock.c — lakehouse.lock.json: field ids kept across generations (and
 * renames), new ids above last-column-id for new and re-added columns, nested
 * ids, removed tables keeping their ids, the checked reader's messages, and a
 * render → parse → render round trip.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "plan/lock.h"
#include "plan_fixture.h"

typedef struct colspec {
	const char *name;
	int attnum;
	const char *type;  /* "int4", "text[]" (an array of text) */
} colspec;

static floe_lock *lock_of(const floe_lock *prev, const colspec *cols, size_t n, bool with_other_table)
{
	floe_arena *a = floe_arena_new();
	floe_pg_relation rels[2];
	fx_table(a, &rels[0], "public", "orders");
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(cols[i].type);
		bool array = len > 2 && strcmp(cols[i].type + len - 2, "[]") == 0;
		floe_pg_type *t = fx_type(a, floe_arena_strndup(a, cols[i].type, array ? len - 2 : len));
		fx_column(a, &rels[0], cols[i].name, cols[i].attnum, array ? fx_array(a, t) : t);
	}
	fx_key(&rels[0], "id");
	fx_table(a, &rels[1], "public", "zeta");
	fx_column(a, &rels[1], "id", 1, fx_type(a, "int8"));
	floe_plan *plan = fx_plan(a, rels, with_other_table ? 2 : 1, "");
	floe_lock *empty = NULL, *lock = NULL;
	if (!prev) {
		floe_lock_parse(&empty, "empty", "{\"format\": 1, \"tables\": []}", 27);
		prev = empty;
	}
	FLOE_CHECK(floe_lock_build(&lock, plan, prev) == 0);
	floe_lock_free(empty);
	floe_plan_free(plan);
	return lock;
}

static int id_of(const floe_lock *lock, const char *column)
{
	const floe_lock_table *t = floe_lock_find(lock, "public", "orders");
	for (size_t i = 0; t && i < t->n_columns; i++)
		if (strcmp(t->columns[i].name, column) == 0)
			return t->columns[i].id;
	return -1;
}

static int last_id(const floe_lock *lock)
{
	return floe_lock_find(lock, "public", "orders")->last_column_id;
}

FLOE_TEST(lock_ids_are_stable_and_never_reused)
{
	colspec v1[] = { { "id", 1, "int4" }, { "note", 2, "text" }, { "tags", 3, "text[]" } };
	floe_lock *l1 = lock_of(NULL, v1, 3, true);
	FLOE_CHECK(id_of(l1, "id") == 1 && id_of(l1, "note") == 2 && id_of(l1, "tags") == 3);
	FLOE_CHECK(last_id(l1) == 4); /* the list's element took id 4 */
	FLOE_CHECK(floe_lock_find(l1, "public", "orders")->columns[2].type->element_id == 4);

	/* Same plan again: same lock, byte for byte. */
	floe_lock *l1b = lock_of(l1, v1, 3, true);
	floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
	floe_lock_render(&a, l1);
	floe_lock_render(&b, l1b);
	FLOE_CHECK_STR(floe_buf_cstr(&a), floe_buf_cstr(&b));

	/* A new column and a rename (same attnum, old name gone). */
	colspec v2[] = { { "id", 1, "int4" }, { "remark", 2, "text" }, { "tags", 3, "text[]" },
			 { "status", 4, "text" } };
	floe_lock *l2 = lock_of(l1, v2, 4, true);
	FLOE_CHECK(id_of(l2, "id") == 1 && id_of(l2, "remark") == 2 && id_of(l2, "tags") == 3);
	FLOE_CHECK(id_of(l2, "status") == 5 && last_id(l2) == 5);
	FLOE_CHECK(floe_lock_find(l2, "public", "orders")->columns[2].type->element_id == 4);

	/* status dropped and added again: a new attnum, so a new id; 5 is never reused. */
	colspec v3[] = { { "id", 1, "int4" }, { "remark", 2, "text" }, { "tags", 3, "text[]" },
			 { "status", 5, "text" } };
	floe_lock *l3 = lock_of(l2, v3, 4, true);
	FLOE_CHECK(id_of(l3, "status") == 6 && last_id(l3) == 6);
	floe_buf changes = FLOE_BUF_INIT;
	floe_lock_describe_changes(&changes, l2, l3);
	FLOE_CHECK(strstr(floe_buf_cstr(&changes), "public.orders: new column status, id 6"));
	FLOE_CHECK(strstr(floe_buf_cstr(&changes), "public.orders: column status dropped, id 5 retired"));
	floe_buf_clear(&changes);
	floe_lock_describe_changes(&changes, l1, l2);
	FLOE_CHECK(strstr(floe_buf_cstr(&changes), "column note renamed to remark, id 2 kept"));

	/* Names swapped between attnums are not renames: both get new ids. */
	colspec v4[] = { { "id", 1, "int4" }, { "tags", 2, "text" }, { "remark", 3, "text[]" },
			 { "status", 5, "text" } };
	floe_lock *l4 = lock_of(l3, v4, 4, true);
	FLOE_CHECK(id_of(l4, "tags") == 7 && id_of(l4, "remark") == 8);
	floe_lock_free(l1);
	floe_lock_free(l1b);
	floe_lock_free(l2);
	floe_lock_free(l3);
	floe_lock_free(l4);
	floe_buf_free(&a);
	floe_buf_free(&b);
	floe_buf_free(&changes);
}

FLOE_TEST(lock_removed_tables_keep_their_ids)
{
	colspec v1[] = { { "id", 1, "int4" } };
	floe_lock *with = lock_of(NULL, v1, 1, true);
	floe_lock *without = lock_of(with, v1, 1, false);
	const floe_lock_table *z = floe_lock_find(without, "public", "zeta");
	FLOE_CHECK(z && z->mode == FLOE_LOAD_REMOVED && z->n_files == 0 && z->n_columns == 1);
	floe_lock *back = lock_of(without, v1, 1, true);
	z = floe_lock_find(back, "public", "zeta");
	FLOE_CHECK(z && z->mode == FLOE_LOAD_FULL && z->columns[0].id == 1 && z->last_column_id == 1);
	floe_lock_free(with);
	floe_lock_free(without);
	floe_lock_free(back);
}

FLOE_TEST(lock_round_trip)
{
	colspec v1[] = { { "id", 1, "int4" }, { "tags", 2, "int8[]" } };
	floe_lock *l = lock_of(NULL, v1, 2, true);
	floe_lock_set_file_hash(l, "bronze/orders.sql", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
	floe_lock *back = NULL;
	FLOE_CHECK(floe_lock_render(&a, l) == 0);
	FLOE_CHECK(floe_lock_parse(&back, "lock", a.ptr, a.len) == 0);
	if (back) {
		floe_lock_render(&b, back);
		FLOE_CHECK_STR(floe_buf_cstr(&a), floe_buf_cstr(&b));
		FLOE_CHECK_STR(floe_lock_file_hash(back, "bronze/orders.sql"),
			       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	}
	FLOE_CHECK(strstr(floe_buf_cstr(&a), "{\"id\": 2, \"name\": \"tags\", \"attnum\": 2, \"pg-type\": \"int8[]\", "
					     "\"type\": {\"type\": \"list\", \"element-id\": 3, \"element\": \"long\", "
					     "\"element-required\": false}"));
	floe_lock_free(l);
	floe_lock_free(back);
	floe_buf_free(&a);
	floe_buf_free(&b);
}

static const char *parse_error(const char *text)
{
	static char msg[512];
	floe_lock *l = NULL;
	floe_error_clear();
	if (floe_lock_parse(&l, "lakehouse.lock.json", text, strlen(text)) == 0) {
		floe_lock_free(l);
		return "";
	}
	snprintf(msg, sizeof(msg), "%s", floe_error_last()->message);
	floe_error_clear();
	return msg;
}

#define TABLE_HEAD "{\"format\": 1, \"tables\": [{\"schema\": \"public\", \"table\": \"t\", \"bronze\": \"bronze.t\", " \
	"\"mode\": \"full\", \"key\": [], "

FLOE_TEST(lock_reader_names_what_is_wrong)
{
	FLOE_CHECK(strstr(parse_error("{\"format\": 1, \"tables\": [}"), "lakehouse.lock.json:1:"));
	FLOE_CHECK(strstr(parse_error("[]"), "the document must be an object"));
	FLOE_CHECK(strstr(parse_error("{\"format\": 2, \"tables\": []}"), "format is 2"));
	FLOE_CHECK(strstr(parse_error("{\"tables\": []}"), "format must be an integer"));
	FLOE_CHECK(strstr(parse_error(TABLE_HEAD "\"last-column-id\": 1, \"columns\": [{\"id\": 1, \"name\": \"a\", "
				      "\"attnum\": 1, \"pg-type\": \"int4\", \"class\": \"exact\", \"required\": true, "
				      "\"type\": \"int\"}, {\"id\": 1, \"name\": \"b\", \"attnum\": 2, \"pg-type\": \"int4\", "
				      "\"class\": \"exact\", \"required\": true, \"type\": \"int\"}], \"files\": {}}]}"),
			  "tables[0].columns[1].id repeats field id 1"));
	FLOE_CHECK(strstr(parse_error(TABLE_HEAD "\"last-column-id\": 0, \"columns\": [{\"id\": 1, \"name\": \"a\", "
				      "\"attnum\": 1, \"pg-type\": \"int4\", \"class\": \"exact\", \"required\": true, "
				      "\"type\": \"int\"}], \"files\": {}}]}"),
			  "tables[0].last-column-id is 0, below field id 1 in use"));
	FLOE_CHECK(strstr(parse_error(TABLE_HEAD "\"last-column-id\": 0, \"columns\": [], "
				      "\"files\": {\"bronze/t.sql\": \"abc\"}}]}"), "must be 64 lower-case hex"));
	FLOE_CHECK(strstr(parse_error(TABLE_HEAD "\"last-column-id\": 0, \"columns\": [], \"files\": "
				      "{\"../escape.sql\": \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}]}"),
			  "must be a relative path inside pipeline/"));
	FLOE_CHECK(strstr(parse_error(TABLE_HEAD "\"last-column-id\": 2, \"columns\": [{\"id\": 1, \"name\": \"a\", "
				      "\"attnum\": 1, \"pg-type\": \"x\", \"class\": \"exact\", \"required\": false, "
				      "\"type\": {\"type\": \"map\"}}], \"files\": {}}]}"),
			  "tables[0].columns[0].type.type must be \"list\" or \"struct\""));
	FLOE_CHECK(strstr(parse_error(TABLE_HEAD "\"last-column-id\": 0, \"columns\": [], \"files\": {}}, "
				      "{\"schema\": \"public\", \"table\": \"t\", \"bronze\": \"bronze.t\", \"mode\": \"full\", "
				      "\"key\": [], \"last-column-id\": 0, \"columns\": [], \"files\": {}}]}"),
			  "tables[1] repeats a table"));
}

/* A silver section with one test of every kind, as floe generate sets it. */
static floe_lock_silver *silver_of(floe_arena *a, const floe_lock_table *t)
{
	static const char *key[] = { "id" }, *pair[] = { "id", "tags" }, *vals[] = { "new", "o'k" };
	static const char *ref[] = { "id" };
	floe_lock_silver *s = floe_arena_alloc(a, sizeof(*s));
	memset(s, 0, sizeof(*s));
	s->table = "silver.orders";
	s->model = "dbt/models/silver/orders.sql";
	s->materialized = "incremental";
	s->unique_key = key;
	s->n_unique_key = 1;
	s->description = "orders \"placed\"\nby customers";
	s->n_columns = t->n_columns;
	s->columns = floe_arena_alloc(a, sizeof(*s->columns) * t->n_columns);
	for (size_t i = 0; i < t->n_columns; i++)
		s->columns[i] = (floe_lock_silver_column){ t->columns[i].name, t->columns[i].id, t->columns[i].type,
							   i ? NULL : "the key", i ? "hmac" : NULL };
	floe_lock_test tests[] = {
		{ .name = "unique_orders_id", .kind = "unique", .columns = key, .n_columns = 1 },
		{ .name = "not_null_orders_id", .kind = "not_null", .columns = key, .n_columns = 1 },
		{ .name = "uc", .kind = "unique_combination", .columns = pair, .n_columns = 2 },
		{ .name = "rel", .kind = "relationships", .columns = key, .n_columns = 1, .to = "silver.zeta",
		  .fields = ref, .n_fields = 1, .origin = "foreign key orders_zeta_fk" },
		{ .name = "av", .kind = "accepted_values", .columns = key, .n_columns = 1, .values = vals,
		  .n_values = 2, .quote = true, .severity = "warn" },
		{ .name = "rr", .kind = "row_rule", .expression = "\"id\" > 0" },
		{ .name = "rg", .kind = "range", .columns = key, .n_columns = 1, .min = "0", .max = "1.5e3" },
		{ .name = "rx", .kind = "regex", .columns = key, .n_columns = 1, .pattern = "^[0-9]+\\\\d$" },
		{ .name = "rc", .kind = "row_count", .min = "1" },
		{ .name = "fr", .kind = "freshness", .columns = key, .n_columns = 1, .max_age_seconds = 86400 },
	};
	s->n_tests = sizeof(tests) / sizeof(tests[0]);
	s->tests = floe_arena_alloc(a, sizeof(tests));
	for (size_t i = 0; i < s->n_tests; i++) {
		s->tests[i] = tests[i];
		s->tests[i].severity = tests[i].severity ? tests[i].severity : "error";
		s->tests[i].origin = tests[i].origin ? tests[i].origin : "primary key";
	}
	s->history = true;
	return s;
}

FLOE_TEST(lock_silver_round_trip)
{
	colspec v1[] = { { "id", 1, "int4" }, { "tags", 2, "int8[]" } };
	floe_lock *l = lock_of(NULL, v1, 2, true);
	floe_arena *a = floe_arena_new();
	const floe_lock_table *t = floe_lock_find(l, "public", "orders");
	FLOE_CHECK(floe_lock_set_silver(l, "public", "orders", silver_of(a, t)) == 0);
	FLOE_CHECK(floe_lock_set_silver(l, "public", "nope", silver_of(a, t)) == -1);
	floe_arena_free(a); /* the lock holds its own copy */
	floe_lock_add_project_file(l, "dbt/dbt_project.yml", "1111111111111111111111111111111111111111111111111111111111111111");
	floe_lock_add_project_file(l, "dbt/a.yml", "2222222222222222222222222222222222222222222222222222222222222222");
	floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
	floe_lock *back = NULL;
	FLOE_CHECK(floe_lock_render(&x, l) == 0);
	FLOE_CHECK(floe_lock_parse(&back, "lock", x.ptr, x.len) == 0);
	if (back) {
		floe_lock_render(&y, back);
		FLOE_CHECK_STR(floe_buf_cstr(&x), floe_buf_cstr(&y));
		const floe_lock_silver *s = floe_lock_find(back, "public", "orders")->silver;
		FLOE_CHECK(s && s->n_columns == 2 && s->n_tests == 10 && s->history);
		FLOE_CHECK(s && strcmp(s->columns[1].pii, "hmac") == 0 && !s->columns[0].pii);
		FLOE_CHECK(s && s->columns[1].type->element_id == 3);
		FLOE_CHECK(s && strcmp(s->tests[3].fields[0], "id") == 0 && strcmp(s->tests[3].to, "silver.zeta") == 0);
		FLOE_CHECK(s && strcmp(s->tests[4].values[1], "o'k") == 0 && s->tests[4].quote);
		FLOE_CHECK(s && strcmp(s->tests[6].max, "1.5e3") == 0 && s->tests[9].max_age_seconds == 86400);
		FLOE_CHECK(!floe_lock_find(back, "public", "zeta")->silver);
		FLOE_CHECK(floe_lock_project_file_count(back) == 2);
		FLOE_CHECK_STR(floe_lock_project_file_at(back, 0)->path, "dbt/a.yml");
		FLOE_CHECK_STR(floe_lock_file_hash(back, "dbt/dbt_project.yml"),
			       "1111111111111111111111111111111111111111111111111111111111111111");
	}
	FLOE_CHECK(floe_lock_test_row_level("row_rule") && !floe_lock_test_row_level("unique"));
	FLOE_CHECK(strstr(floe_buf_cstr(&x), "{\"name\": \"rg\", \"kind\": \"range\", \"columns\": [\"id\"], "
					     "\"min\": 0, \"max\": 1.5e3, \"severity\": \"error\", \"origin\": \"primary key\"}"));
	FLOE_CHECK(strstr(floe_buf_cstr(&x), "\"materialized\": \"incremental\""));
	floe_lock_free(l);
	floe_lock_free(back);
	floe_buf_free(&x);
	floe_buf_free(&y);
}

#define SILVER_TABLE TABLE_HEAD "\"last-column-id\": 1, \"columns\": [{\"id\": 1, \"name\": \"a\", \"attnum\": 1, " \
	"\"pg-type\": \"int4\", \"class\": \"exact\", \"required\": true, \"type\": \"int\"}], \"files\": {}, " \
	"\"silver\": {\"table\": \"silver.t\", \"model\": \"dbt/models/silver/t.sql\", \"materialized\": \"table\", " \
	"\"unique_key\": [], \"history\": false, "

FLOE_TEST(lock_silver_reader_names_what_is_wrong)
{
	static const struct {
		const char *tail;     /* after SILVER_TABLE */
		const char *message;  /* "" : accepted */
	} cases[] = {
		{ "\"columns\": [], \"tests\": []}}]}", "" },
		{ "\"columns\": [{\"name\": \"a\", \"id\": 2, \"type\": \"int\"}], \"tests\": []}}]}",
		  "tables[0].silver.columns[0].id is 2, not a field id of the table's columns" },
		{ "\"columns\": [{\"name\": \"a\", \"id\": 1, \"type\": \"int\", \"pii\": \"md5\"}], \"tests\": []}}]}",
		  "tables[0].silver.columns[0].pii must be \"hmac\", \"null\" or null" },
		{ "\"columns\": [], \"tests\": [{\"name\": \"x\", \"kind\": \"nope\", \"severity\": \"error\", "
		  "\"origin\": \"o\"}]}}]}", "tables[0].silver.tests[0].kind must be a test kind" },
		{ "\"columns\": [], \"tests\": [{\"name\": \"x\", \"kind\": \"unique\", \"severity\": \"fatal\", "
		  "\"origin\": \"o\", \"columns\": [\"a\"]}]}}]}", "tests[0].severity must be \"error\" or \"warn\"" },
		{ "\"columns\": [], \"tests\": [{\"name\": \"x\", \"kind\": \"range\", \"severity\": \"warn\", "
		  "\"origin\": \"o\", \"columns\": [\"a\"]}]}}]}", "tests[0] needs \"min\" or \"max\" for a range test" },
		{ "\"columns\": [], \"tests\": [{\"name\": \"x\", \"kind\": \"relationships\", \"severity\": \"warn\", "
		  "\"origin\": \"o\", \"columns\": [\"a\"], \"to\": \"silver.u\"}]}}]}",
		  "tests[0].fields must name one referenced column per column" },
		{ "\"columns\": [], \"tests\": [{\"name\": \"x\", \"kind\": \"unique\", \"severity\": \"warn\", "
		  "\"origin\": \"o\", \"columns\": [\"a\"]}, {\"name\": \"x\", \"kind\": \"not_null\", "
		  "\"severity\": \"warn\", \"origin\": \"o\", \"columns\": [\"a\"]}]}}]}", "tests[1].name repeats the name" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048];
		snprintf(text, sizeof(text), "%s%s", SILVER_TABLE, cases[i].tail);
		const char *got = parse_error(text);
		if (!cases[i].message[0])
			FLOE_CHECK_STR(got, "");
		else
			FLOE_CHECK(strstr(got, cases[i].message));
	}
	FLOE_CHECK(strstr(parse_error("{\"format\": 1, \"tables\": [], \"files\": {\"/etc/x\": "
				      "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}"),
			  "files[\"/etc/x\"] must be a relative path inside pipeline/"));
}
