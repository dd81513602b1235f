/*
 * test_secret.c — which values the scrubber masks, and that it masks them everywhere.
 */
#include "harness.h"
#include "base/buf.h"
#include "base/secret.h"

static const char *scrubbed(floe_buf *b, const char *text)
{
	floe_buf_clear(b);
	floe_buf_puts(b, text);
	floe_secret_scrub_buf(b);
	return floe_buf_cstr(b);
}

FLOE_TEST(secret_masks_a_strong_value_everywhere)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_secret_reset();
	FLOE_CHECK(floe_secret_register("Planted-Secret-9f3e"));
	FLOE_CHECK_STR(scrubbed(&b, "a Planted-Secret-9f3e b Planted-Secret-9f3e"), "a ******** b ********");
	floe_buf_free(&b);
	floe_secret_reset();
}

FLOE_TEST(secret_leaves_words_and_numbers_floe_prints)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_secret_reset();
	/* a word, a number, a short value: masking them would corrupt floe's output */
	FLOE_CHECK(!floe_secret_register("verified"));
	FLOE_CHECK(!floe_secret_register("12345678"));
	FLOE_CHECK(!floe_secret_register("ab-1"));
	FLOE_CHECK(!floe_secret_register("Unverified"));
	FLOE_CHECK_STR(scrubbed(&b, "public.t: verified, 12345678 rows"), "public.t: verified, 12345678 rows");
	FLOE_CHECK(floe_secret_register("verified-1"));
	FLOE_CHECK_STR(scrubbed(&b, "verified verified-1"), "verified ********");
	floe_buf_free(&b);
	floe_secret_reset();
}
