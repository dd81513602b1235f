/*
 * fuzz_cron.c — libFuzzer target for the cron parser (src/schedule/cron.c).
 *
 * Any text must be parsed or refused with a reason (no crash, no hang). A parsed
 * expression must have a next time after a fixed instant (impossible expressions are
 * refused when parsed), that time must match, and no minute in between may match.
 */
#include "schedule/cron.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[256], why[160];
	floe_cron c;
	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (floe_cron_parse(&c, text, why, sizeof(why)) < 0) {
		require(why[0] != '\0');
		return 0;
	}
	const int64_t from = 1798761600; /* 2027-01-01T00:00:00Z */
	int64_t next = floe_cron_next(&c, from);
	require(next > from && next % 60 == 0);
	require(floe_cron_matches(&c, next));
	if (next - from <= 3 * 86400)
		for (int64_t t = from + 60; t < next; t += 60)
			require(!floe_cron_matches(&c, t));
	return 0;
}
