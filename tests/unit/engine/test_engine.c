/*
 * test_engine.c — the embedded DuckDB: queries, results as text, files, and DuckDB's
 * errors arriving as floe errors.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "engine/engine.h"

static const char *error_message(void)
{
	const floe_error *err = floe_error_last();
	return err && err->message ? err->message : "";
}

static const char *error_detail(void)
{
	const floe_error *err = floe_error_last();
	return err && err->detail ? err->detail : "";
}

FLOE_TEST(engine_select_scalar)
{
	floe_engine *engine = NULL;
	floe_buf out = FLOE_BUF_INIT;

	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select 40 + 2") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "42");
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select 'floe' || ' ' || 'engine'") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "floe engine");
	floe_buf_free(&out);
	floe_engine_close(engine);
}

FLOE_TEST(engine_version_is_pinned)
{
	const char *v = floe_engine_version();
	FLOE_CHECK(v != NULL);
	FLOE_CHECK(v && strncmp(v, "v1.5.5", 6) == 0);
}

FLOE_TEST(engine_error_carries_duckdb_message)
{
	floe_engine *engine = NULL;
	floe_buf out = FLOE_BUF_INIT;

	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	floe_error_clear();
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select * from floe_no_such_table") < 0);
	FLOE_CHECK(floe_error_last() != NULL);
	FLOE_CHECK(strstr(error_message(), "select * from floe_no_such_table") != NULL);
	FLOE_CHECK(strstr(error_detail(), "Catalog Error") != NULL);
	FLOE_CHECK(strstr(error_detail(), "floe_no_such_table") != NULL);
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_USAGE);

	floe_error_clear();
	FLOE_CHECK(floe_engine_exec(engine, "selec 1") < 0);
	FLOE_CHECK(strstr(error_detail(), "syntax error") != NULL);

	/* The engine stays usable after an error. */
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select 1") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "1");
	floe_error_clear();
	floe_buf_free(&out);
	floe_engine_close(engine);
}

FLOE_TEST(engine_result_as_text)
{
	floe_engine *engine = NULL;
	floe_engine_result *res = NULL;

	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	FLOE_CHECK(floe_engine_exec(engine,
				    "create table t (id integer, name varchar, price decimal(10,2));"
				    "insert into t values (1, 'a', 9.99), (2, null, 0.5), (3, 'c', null);") == 0);
	FLOE_CHECK(floe_engine_query(engine, &res, "select id, name, price from t order by id") == 0);
	if (res) {
		FLOE_CHECK(floe_engine_result_rows(res) == 3);
		FLOE_CHECK(floe_engine_result_columns(res) == 3);
		FLOE_CHECK_STR(floe_engine_result_name(res, 1), "name");
		FLOE_CHECK_STR(floe_engine_result_text(res, 0, 2), "9.99");
		FLOE_CHECK(floe_engine_result_text(res, 1, 1) == NULL);
		FLOE_CHECK_STR(floe_engine_result_text(res, 1, 2), "0.50");
		FLOE_CHECK(floe_engine_result_text(res, 2, 2) == NULL);
	}
	floe_engine_result_free(res);

	/* An empty result is a result; for query_text it is an error. */
	FLOE_CHECK(floe_engine_query(engine, &res, "select * from t where id > 10") == 0);
	FLOE_CHECK(res && floe_engine_result_rows(res) == 0 && floe_engine_result_columns(res) == 3);
	floe_engine_result_free(res);
	floe_buf out = FLOE_BUF_INIT;
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select id from t where id > 10") < 0);
	FLOE_CHECK(strstr(error_message(), "returned no rows") != NULL);
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select null") < 0);
	FLOE_CHECK(strstr(error_message(), "returned NULL") != NULL);
	floe_error_clear();
	floe_buf_free(&out);
	floe_engine_close(engine);
}

FLOE_TEST(engine_file_database_and_parquet)
{
	char dir[] = "/tmp/floe-engine-XXXXXX";
	char db_path[256], parquet_path[256], sql[512];
	floe_engine *engine = NULL;
	floe_buf out = FLOE_BUF_INIT;

	FLOE_CHECK(mkdtemp(dir) != NULL);
	snprintf(db_path, sizeof(db_path), "%s/test.duckdb", dir);
	snprintf(parquet_path, sizeof(parquet_path), "%s/t.parquet", dir);

	FLOE_CHECK(floe_engine_open(&engine, db_path) == 0);
	FLOE_CHECK(floe_engine_exec(engine, "create table t as select range as id from range(1000)") == 0);
	snprintf(sql, sizeof(sql), "copy t to '%s' (format parquet)", parquet_path);
	FLOE_CHECK(floe_engine_exec(engine, sql) == 0);
	floe_engine_close(engine);
	engine = NULL;

	/* Reopened, the table is still there, and the Parquet file reads back. */
	FLOE_CHECK(floe_engine_open(&engine, db_path) == 0);
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select sum(id) from t") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "499500");
	snprintf(sql, sizeof(sql), "select count(*) from read_parquet('%s')", parquet_path);
	FLOE_CHECK(floe_engine_query_text(engine, &out, sql) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "1000");
	floe_engine_close(engine);

	unlink(parquet_path);
	unlink(db_path);
	snprintf(sql, sizeof(sql), "%s.wal", db_path);
	unlink(sql);
	rmdir(dir);
	floe_buf_free(&out);
}

FLOE_TEST(engine_open_missing_directory_fails)
{
	floe_engine *engine = NULL;

	floe_error_clear();
	FLOE_CHECK(floe_engine_open(&engine, "/nonexistent-floe-dir/x/test.duckdb") < 0);
	FLOE_CHECK(engine == NULL);
	FLOE_CHECK(strstr(error_message(), "could not open DuckDB database") != NULL);
	FLOE_CHECK(strstr(error_message(), "/nonexistent-floe-dir/x/test.duckdb") != NULL);
	FLOE_CHECK(error_detail()[0] != '\0');
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_INTERNAL);
	floe_error_clear();
	floe_engine_close(NULL);
	floe_engine_result_free(NULL);
}

FLOE_TEST(engine_does_not_fetch_extensions)
{
	floe_engine *engine = NULL;
	floe_buf out = FLOE_BUF_INIT;

	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	FLOE_CHECK(floe_engine_query_text(engine, &out,
					  "select current_setting('autoinstall_known_extensions')") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "false");
	floe_buf_free(&out);
	floe_engine_close(engine);
}

/* floe's hashtextextended in DuckDB returns what PostgreSQL returns (values from PostgreSQL 15). */
FLOE_TEST(engine_hashtextextended_matches_postgres)
{
	floe_engine *engine = NULL;
	floe_engine_result *res = NULL;

	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	FLOE_CHECK(floe_engine_query(engine, &res,
				     "select hashtextextended('', 0), hashtextextended('abc', 1),"
				     " hashtextextended('The quick brown fox jumps over the lazy dog', 0),"
				     " hashtextextended('ünï ☃', 8243819122212345678), hashtextextended(NULL, 0),"
				     " hashtextextended('a', NULL)") == 0);
	if (res) {
		FLOE_CHECK_STR(floe_engine_result_text(res, 0, 0), "-6939563903564495251");
		FLOE_CHECK_STR(floe_engine_result_text(res, 0, 1), "2125675926272891485");
		FLOE_CHECK_STR(floe_engine_result_text(res, 0, 2), "2182139051089226439");
		FLOE_CHECK_STR(floe_engine_result_text(res, 0, 3), "9073333025453900614");
		FLOE_CHECK(floe_engine_result_text(res, 0, 4) == NULL);
		FLOE_CHECK(floe_engine_result_text(res, 0, 5) == NULL);
	}
	floe_engine_result_free(res);
	res = NULL;
	/* Over many rows (several chunks, inline and pointer strings, some NULL): the sum PostgreSQL gives. */
	FLOE_CHECK(floe_engine_query(engine, &res,
				     "select sum(hashtextextended(case when i % 7 = 0 then null else repeat('x', i % 40) || i end, i)),"
				     " count(hashtextextended(case when i % 7 = 0 then null else 'v' end, 0))"
				     " from range(1, 10001) t(i)") == 0);
	if (res) {
		FLOE_CHECK_STR(floe_engine_result_text(res, 0, 0), "196215889636533867998");
		FLOE_CHECK_STR(floe_engine_result_text(res, 0, 1), "8572");
	}
	floe_engine_result_free(res);
	floe_engine_close(engine);
}

/* One row of `sql`'s values against `want` (NULL: SQL NULL), column by column. */
static void check_row(floe_engine *engine, const char *sql, const char *const *want, size_t n)
{
	floe_engine_result *res = NULL;
	FLOE_CHECK(floe_engine_query(engine, &res, sql) == 0);
	for (size_t i = 0; res && i < n; i++) {
		const char *got = floe_engine_result_text(res, 0, i);
		if (want[i] ? !got || strcmp(got, want[i]) != 0 : got != NULL) {
			char msg[256];
			snprintf(msg, sizeof(msg), "column %zu of %.120s: got %s, PostgreSQL %s", i, sql,
				 got ? got : "NULL", want[i] ? want[i] : "NULL");
			floe_test_fail(__FILE__, __LINE__, msg);
		}
	}
	floe_engine_result_free(res);
}

/* The typed hashes PostgreSQL 15 returned for the same values (x86-64). */
FLOE_TEST(engine_typed_hashes_match_postgres)
{
	floe_engine *engine = NULL;
	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	static const char *const int4[] = { "4154612158245552303", "-9109110466470504941", "1977219185673256887",
					    "3812564155960986560", "-6198169983862266934", "-3251482184925362179",
					    NULL, NULL };
	check_row(engine,
		  "select hashint4extended(0, 0), hashint4extended(2147483647, 0), hashint4extended(-2147483648, 0),"
		  " hashint4extended(42, 1), hashint4extended(42, -1), hashint4extended(-1, 8243819122212345678),"
		  " hashint4extended(NULL, 0), hashint4extended(1, NULL)",
		  int4, 8);
	/* 0, 2^32 + 1 and -2^32 share PostgreSQL's fold: the same hash. */
	static const char *const int8[] = { "4154612158245552303", "4154612158245552303", "4154612158245552303",
					    "1977219185673256887", "-9109110466470504941", "-6534696391461876273",
					    NULL };
	check_row(engine,
		  "select hashint8extended(0, 0), hashint8extended(4294967297, 0), hashint8extended(-4294967296, 0),"
		  " hashint8extended(9223372036854775807, 0), hashint8extended(-9223372036854775808, 0),"
		  " hashint8extended(1234567890123, 8243819122212345678), hashint8extended(NULL, 0)",
		  int8, 7);
	static const char *const uuid[] = { "-6859010066814654381", "293445543803463785", "2231415091957768059",
					    "8527343610006993252", NULL };
	check_row(engine,
		  "select uuid_hash_extended('00000000-0000-0000-0000-000000000000', 0),"
		  " uuid_hash_extended('ffffffff-ffff-ffff-ffff-ffffffffffff', 0),"
		  " uuid_hash_extended('80000000-0000-0000-0000-000000000001', 8243819122212345678),"
		  " uuid_hash_extended('00112233-4455-6677-8899-aabbccddeeff', 8243819122212345678),"
		  " uuid_hash_extended(NULL, 0)",
		  uuid, 5);
	/* hashfloat8extended and hashfloat4extended: ±0 hash to the seed, every NaN alike, a float as its double. */
	static const char *const floats[] = { "-5832320990282095783", "42", "42", "-4570345281452345396",
					      "-4570345281452345396", "58695627279844080", "-2696600655974396010",
					      "-2708626330389588983", "4906899486223959186", "6158159405676898674",
					      "-8063754923080656561", "-4570345281452345396", NULL };
	check_row(engine,
		  "select hashfloat8extended(1.5::DOUBLE, 42), hashfloat8extended(-0.0::DOUBLE, 42),"
		  " hashfloat8extended(0::DOUBLE, 42), hashfloat8extended('NaN'::DOUBLE, 42),"
		  " hashfloat8extended(-('NaN'::DOUBLE), 42), hashfloat8extended('-inf'::DOUBLE, 0),"
		  " hashfloat8extended(0.1::DOUBLE, -7), hashfloat8extended(1e308::DOUBLE, 42),"
		  " hashfloat4extended(0.1::FLOAT, 42), hashfloat4extended(1.5::FLOAT, 0),"
		  " hashfloat4extended(3.4028235e38::FLOAT, 42), hashfloat4extended('NaN'::FLOAT, 42),"
		  " hashfloat8extended(NULL::DOUBLE, 42)",
		  floats, 13);
	/* hashtextextended(encode(timestamp_send(x), 'hex'), seed) and the same for timestamptz and time. */
	static const char *const send[] = { "3482200605369303630", "2743391531674101432", "-1589811267695044851",
					    "-6469959656877109066", "7638720618353646396", "-2253262807443845367",
					    "-2720640356083459285", "-2952876147259794595", "-3668635425669657518",
					    "-9113515623694216046", "-2494722774740650874", "-4214470528174417947",
					    NULL };
	check_row(engine,
		  "select hash_send_hex_extended(TIMESTAMP '2000-01-01', 8243819122212345678),"
		  " hash_send_hex_extended(TIMESTAMP '1970-01-01', 8243819122212345678),"
		  " hash_send_hex_extended(TIMESTAMP 'infinity', 8243819122212345678),"
		  " hash_send_hex_extended(TIMESTAMP '-infinity', 8243819122212345678),"
		  " hash_send_hex_extended(TIMESTAMP '4713-01-01 (BC)', 8243819122212345678),"
		  " hash_send_hex_extended(TIMESTAMP '2024-02-29 12:34:56.789012', 8243819122212345678),"
		  " hash_send_hex_extended(TIMESTAMP '1677-09-21 00:12:43.145225', 8243819122212345678),"
		  " hash_send_hex_extended(TIMESTAMPTZ '2024-02-29 12:34:56.789012+00', 42),"
		  " hash_send_hex_extended(TIMESTAMPTZ '-infinity', 42),"
		  " hash_send_hex_extended(TIME '00:00', 42), hash_send_hex_extended(TIME '24:00:00', 42),"
		  " hash_send_hex_extended(TIME '12:34:56.789012', 42), hash_send_hex_extended(NULL::TIME, 42)",
		  send, 13);
	/* hashtextextended(x::numeric(p,s)::text, 42): every width DuckDB stores a decimal in. */
	static const char *const dec[] = { "-2164716179127649467", "4356467200318375829", "-1702456693323632067",
					   "7306197795257980634", "-1083413722783809784", "4188306916927990707",
					   "2605058134147175296", "4213945813919096539", "7393467143098496283",
					   "-3660505565114829929", "-3982142839462981406", "-7316951547123449155",
					   NULL };
	check_row(engine,
		  "select hash_decimal_text_extended(0.00123::DECIMAL(5,5), 42),"
		  " hash_decimal_text_extended(-0.00001::DECIMAL(5,5), 42),"
		  " hash_decimal_text_extended(-0.001::DECIMAL(12,3), 42),"
		  " hash_decimal_text_extended(12.30::DECIMAL(10,2), 42), hash_decimal_text_extended(0::DECIMAL(10,2), 42),"
		  " hash_decimal_text_extended(-5::DECIMAL(10,2), 42), hash_decimal_text_extended(12.34::DECIMAL(4,2), 42),"
		  " hash_decimal_text_extended(-99999.9999::DECIMAL(9,4), 42),"
		  " hash_decimal_text_extended(18446744073709551615::DECIMAL(20,0), 42),"
		  " hash_decimal_text_extended('-1234567890123456789012345678.0123456789'::DECIMAL(38,10), 42),"
		  " hash_decimal_text_extended(0::DECIMAL(38,10), 42), hash_decimal_text_extended(7::DECIMAL(1,0), 42),"
		  " hash_decimal_text_extended(NULL::DECIMAL(10,2), 42)",
		  dec, 13);
	floe_buf out = FLOE_BUF_INIT;
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select hash_decimal_text_extended('1.5', 42)") < 0);
	floe_error_clear();
	floe_buf_free(&out);
	floe_engine_close(engine);
}

FLOE_TEST(engine_floe_hmac)
{
	floe_engine *engine = NULL;
	floe_buf out = FLOE_BUF_INIT;
	floe_engine_result *res = NULL;

	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	/* no key yet: a call fails the statement rather than hashing under no key */
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select floe_hmac('x')") < 0);
	FLOE_CHECK(strstr(error_detail(), "no PII key") != NULL);
	FLOE_CHECK(floe_engine_set_pii_key(engine, "Jefe", 4) == 0);
	FLOE_CHECK(floe_engine_query_text(engine, &out, "select floe_hmac('what do ya want for nothing?')") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* NULL stays NULL, over a whole vector with some NULLs and long values */
	FLOE_CHECK(floe_engine_query(engine, &res,
				     "select count(*) filter (where h is null), count(distinct h), min(length(h)) "
				     "from (select floe_hmac(case when i % 3 = 0 then null else repeat('é', i) end) h "
				     "from range(3000) t(i))") == 0);
	FLOE_CHECK_STR(floe_engine_result_text(res, 0, 0), "1000");
	FLOE_CHECK_STR(floe_engine_result_text(res, 0, 1), "2000");
	FLOE_CHECK_STR(floe_engine_result_text(res, 0, 2), "64");
	floe_engine_result_free(res);
	FLOE_CHECK(floe_engine_set_pii_key(engine, "", 0) < 0);
	floe_buf_free(&out);
	floe_engine_close(engine);
}

/* floe_engine_connect: a second connection shares the database, its key-reading functions and
   its catalog, keeps its temporary tables and its current catalog to itself, and closing it
   leaves the database open. */
FLOE_TEST(engine_connect_shares_the_database_not_the_temporary_objects)
{
	floe_engine *db = NULL, *a = NULL, *b = NULL;
	floe_buf out = FLOE_BUF_INIT;

	FLOE_CHECK(floe_engine_open(&db, NULL) == 0);
	FLOE_CHECK(floe_engine_set_pii_key(db, "k", 1) == 0);
	FLOE_CHECK(floe_engine_query_text(db, &out, "select floe_hmac('x')") == 0);
	char *want = strdup(floe_buf_cstr(&out));
	FLOE_CHECK(floe_engine_connect(&a, db) == 0);
	FLOE_CHECK(floe_engine_connect(&b, db) == 0);
	FLOE_CHECK(floe_engine_query_text(a, &out, "select floe_hmac('x')") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), want);
	FLOE_CHECK(floe_engine_exec(a, "create temp table t as select 1 as x; attach ':memory:' as own; use own; "
				       "create view v as select 2 as y") == 0);
	FLOE_CHECK(floe_engine_exec(b, "create temp table t as select 3 as x") == 0); /* no clash: a's is a's */
	FLOE_CHECK(floe_engine_query_text(b, &out, "select x from t") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "3");
	FLOE_CHECK(floe_engine_exec(b, "select * from v") < 0); /* a's catalog is not b's current one */
	floe_error_clear();
	FLOE_CHECK(floe_engine_query_text(b, &out, "select y from own.v") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "2");
	floe_engine_close(a);
	floe_engine_close(b);
	FLOE_CHECK(floe_engine_query_text(db, &out, "select 40 + 2") == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "42");
	free(want);
	floe_buf_free(&out);
	floe_engine_close(db);
}

FLOE_TEST(engine_int64_rows_are_one_split_literal)
{
	floe_engine *engine = NULL;
	floe_buf sql = FLOE_BUF_INIT, out = FLOE_BUF_INIT;
	int64_t v[3] = { -7, 0, 4294967296 * 3 + 12 };
	floe_buf_puts(&sql, "SELECT count(*) || ' ' || sum(x) || ' ' || min(x) FROM (");
	floe_engine_put_int64_rows(&sql, v, 3);
	floe_buf_puts(&sql, ") AS t(x)");
	FLOE_CHECK(strstr(floe_buf_cstr(&sql), "'-7,0,12884901900'") != NULL);
	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	FLOE_CHECK(floe_engine_query_text(engine, &out, floe_buf_cstr(&sql)) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "3 12884901893 -7");
	floe_buf_free(&sql);
	floe_buf_free(&out);
	floe_engine_close(engine);
}
