/*
 * test_lock_modes.c — a table's mode in lakehouse.lock.json: read into floe_load_mode
 * and written back as the same text, and any other text refused with its JSON path.
 */
#include "harness.h"
#include "base/buf.h"
#include "base/error.h"
#include "plan/lock.h"

#include <stdio.h>
#include <string.h>

static int parse_with_mode(floe_lock **out, const char *mode)
{
	char text[512];
	snprintf(text, sizeof(text),
		 "{\"format\": 1, \"tables\": [{\"schema\": \"public\", \"table\": \"t\", \"bronze\": \"bronze.t\", "
		 "\"mode\": \"%s\", \"key\": [], \"last-column-id\": 0, \"columns\": [], \"files\": {}}]}", mode);
	floe_error_clear();
	return floe_lock_parse(out, "lakehouse.lock.json", text, strlen(text));
}

FLOE_TEST(lock_modes_read_and_written_as_the_same_text)
{
	static const struct {
		const char *text;
		floe_load_mode mode;
	} cases[] = { { "incremental", FLOE_LOAD_INCREMENTAL }, { "full", FLOE_LOAD_FULL },
		      { "refused", FLOE_LOAD_REFUSED }, { "removed", FLOE_LOAD_REMOVED } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		floe_lock *l = NULL;
		floe_buf out = FLOE_BUF_INIT;
		char want[64];
		FLOE_CHECK(parse_with_mode(&l, cases[i].text) == 0);
		FLOE_CHECK(l && floe_lock_count(l) == 1 && floe_lock_at(l, 0)->mode == cases[i].mode);
		FLOE_CHECK(l && floe_lock_render(&out, l) == 0);
		snprintf(want, sizeof(want), "\"mode\": \"%s\"", cases[i].text);
		FLOE_CHECK(strstr(floe_buf_cstr(&out), want) != NULL);
		floe_buf_free(&out);
		floe_lock_free(l);
	}
}

FLOE_TEST(lock_modes_other_text_is_refused_with_its_path)
{
	static const char *const bad[] = { "skipped", "Full", "bogus", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		floe_lock *l = NULL;
		FLOE_CHECK(parse_with_mode(&l, bad[i]) < 0 && l == NULL);
		const floe_error *e = floe_error_last();
		FLOE_CHECK(e && e->cls == FLOE_ERR_CONFIG);
		FLOE_CHECK(e && strstr(e->message, "tables[0].mode must be \"incremental\", \"full\", \"refused\" or "
					       "\"removed\"") != NULL);
		floe_error_clear();
	}
}
