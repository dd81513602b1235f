/*
 * test_address.c — the source address users type: what it yields, and that a
 * password in any form is refused without the message quoting it.
 */
#include "harness.h"
#include "base/error.h"
#include "pg/pg.h"

#include <string.h>

static const char *refusal(const char *text)
{
	floe_pg_address a;
	floe_error_clear();
	if (floe_pg_parse_address(&a, text) == 0)
		return "";
	const floe_error *e = floe_error_last();
	return e && e->cls == FLOE_ERR_USAGE ? e->message : "(not a usage error)";
}

FLOE_TEST(address_forms_parse)
{
	floe_pg_address a;
	FLOE_CHECK(floe_pg_parse_address(&a, "db.internal:6543/shop") == 0);
	FLOE_CHECK_STR(a.host, "db.internal");
	FLOE_CHECK(a.port == 6543);
	FLOE_CHECK_STR(a.database, "shop");
	FLOE_CHECK(floe_pg_parse_address(&a, "postgresql://floe_reader@[::1]:5433/shop") == 0);
	FLOE_CHECK_STR(a.user, "floe_reader");
	FLOE_CHECK_STR(a.host, "::1");
	FLOE_CHECK(a.port == 5433);
	FLOE_CHECK(floe_pg_parse_address(&a, "/var/run/postgresql:5432/shop") == 0);
	FLOE_CHECK_STR(a.host, "/var/run/postgresql");
}

FLOE_TEST(address_with_a_password_is_refused_without_echo)
{
	static const char *const forms[] = {
		"postgresql://u:Pw-S3cret@h/db",
		"postgres://u:Pw-S3cret@h:5432/db",
		"postgresql://u:Pw/S3cret@h/db",
		"u:Pw-S3cret@h:5432/db",
		"postgresql://h/db?password=Pw-S3cret",
		"postgresql://u@h/db?sslmode=disable&password=Pw-S3cret",
		"host=h dbname=db password=Pw-S3cret",
		"host=h dbname=db PASSWORD = Pw-S3cret",
		NULL,
	};
	for (const char *const *f = forms; *f; f++) {
		const char *msg = refusal(*f);
		FLOE_CHECK_STR(msg, "the source address contains a password");
		const floe_error *e = floe_error_last();
		FLOE_CHECK(e && e->hint && !strstr(e->hint, "S3cret"));
	}
}

FLOE_TEST(address_parameters_and_keywords_are_refused_not_dropped)
{
	FLOE_CHECK(strstr(refusal("postgresql://h/db?sslmode=require"), "URI parameters") != NULL);
	FLOE_CHECK(strstr(refusal("host=h dbname=db"), "key=value") != NULL);
}
