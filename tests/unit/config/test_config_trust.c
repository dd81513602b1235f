/*
 * test_config_trust.c — floe.toml values that would be read as something else:
 * a NUL escape (TOML allows "\u0000"; a C string ends there) and a file too large.
 */
#include "harness.h"
#include "base/error.h"
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The message of parsing `text`, or "" when it was accepted. */
static const char *refusal(const char *text)
{
	floe_config *c = NULL;
	floe_error_clear();
	if (floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) == 0) {
		floe_config_free(c);
		return "";
	}
	const floe_error *e = floe_error_last();
	return e && e->cls == FLOE_ERR_CONFIG ? e->message : "(not a configuration error)";
}

FLOE_TEST(config_refuses_nul_in_any_string)
{
	FLOE_CHECK_STR(refusal("[source]\ndatabase = \"shop\\u0000x\"\nuser = \"r\"\n"),
		       "/p/floe.toml:2:12: `source.database` holds a NUL character (\\u0000)");
	FLOE_CHECK(strstr(refusal("[source]\ndatabase = \"shop\"\nuser = \"r\"\n"
				  "schemas = [\"public\", \"a\\U00000000\"]\n"),
			  "/p/floe.toml:4:22: `source.schemas[1]` holds a NUL") != NULL);
	FLOE_CHECK(strstr(refusal("[source]\ndatabase = \"shop\"\nuser = \"r\"\n"
				  "[watermarks]\n\"public.t\\u0000\" = \"updated_at\"\n"),
			  "/p/floe.toml:5:1: ") != NULL);
	FLOE_CHECK(strstr(refusal("[source]\ndatabase = \"shop\"\nuser = \"r\"\n"
				  "[bronze]\nlate-window = \"5m\\u0000\"\n"),
			  "`bronze.late-window` holds a NUL") != NULL);
	FLOE_CHECK_STR(refusal("[source]\ndatabase = \"shop\"\nuser = \"r\"\n[\"source\\u0000x\"]\n"),
		       "/p/floe.toml:4:2: a key holds a NUL character (\\u0000)");
	/* the same strings without NUL are fine */
	FLOE_CHECK_STR(refusal("[source]\ndatabase = \"shop\\u0041\"\nuser = \"r\"\n"), "");
}

FLOE_TEST(config_refuses_a_file_too_large_as_a_configuration_error)
{
	char path[] = "/tmp/floe-config-large-XXXXXX";
	int fd = mkstemp(path);
	FLOE_CHECK(fd >= 0);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "w");
	fputs("[source]\ndatabase = \"shop\"\nuser = \"r\"\n", f);
	for (int i = 0; i < 5 * 1024 * 1024 / 64; i++)
		fputs("# padding padding padding padding padding padding padding pad\n", f);
	fclose(f);
	floe_config *c = NULL;
	floe_error_clear();
	FLOE_CHECK(floe_config_load(&c, path) < 0);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && e->cls == FLOE_ERR_CONFIG);
	FLOE_CHECK(e && strstr(e->message, "bytes, more than the") != NULL);
	floe_config_free(c);
	unlink(path);
}
