/*
 * test_sqlstate.c — PostgreSQL's SQLSTATEs to floe's error codes (never the message text).
 */
#include "harness.h"
#include "pg/pg_int.h"

FLOE_TEST(pg_sqlstate_maps_to_codes)
{
	FLOE_CHECK(floe_pg_code_of_sqlstate("57P01", false) == FLOE_CODE_SOURCE_SHUTDOWN);
	FLOE_CHECK(floe_pg_code_of_sqlstate("57P02", true) == FLOE_CODE_SOURCE_SHUTDOWN);
	FLOE_CHECK(floe_pg_code_of_sqlstate("57P03", true) == FLOE_CODE_SOURCE_SHUTDOWN);
	FLOE_CHECK(floe_pg_code_of_sqlstate("08006", false) == FLOE_CODE_SOURCE_LOST);
	FLOE_CHECK(floe_pg_code_of_sqlstate("08P01", true) == FLOE_CODE_SOURCE_LOST);
	FLOE_CHECK(floe_pg_code_of_sqlstate(NULL, false) == FLOE_CODE_SOURCE_LOST);
	FLOE_CHECK(floe_pg_code_of_sqlstate(NULL, true) == FLOE_CODE_NONE);
	FLOE_CHECK(floe_pg_code_of_sqlstate("22021", true) == FLOE_CODE_SOURCE_ENCODING);
	FLOE_CHECK(floe_pg_code_of_sqlstate("22P05", true) == FLOE_CODE_SOURCE_ENCODING);
	FLOE_CHECK(floe_pg_code_of_sqlstate("42703", true) == FLOE_CODE_SOURCE_CHANGED);
	FLOE_CHECK(floe_pg_code_of_sqlstate("42P01", true) == FLOE_CODE_SOURCE_CHANGED);
	FLOE_CHECK(floe_pg_code_of_sqlstate("42501", true) == FLOE_CODE_SOURCE_PRIVILEGE);
	FLOE_CHECK(floe_pg_code_of_sqlstate("55P03", true) == FLOE_CODE_SOURCE_LOCKED);
	FLOE_CHECK(floe_pg_code_of_sqlstate("40001", true) == FLOE_CODE_SOURCE_SERIALIZATION);
	FLOE_CHECK(floe_pg_code_of_sqlstate("57014", true) == FLOE_CODE_SOURCE_CANCELED);
	FLOE_CHECK(floe_pg_code_of_sqlstate("42601", true) == FLOE_CODE_NONE); /* syntax: a bug */
	FLOE_CHECK(floe_pg_code_of_sqlstate("08", true) == FLOE_CODE_NONE);    /* not a SQLSTATE */
}
