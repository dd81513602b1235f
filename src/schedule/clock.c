/*
 * clock.c — "now" for the scheduler and the alert outbox; tests may replace it (clock.h).
 */
#include "schedule/clock.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int64_t floe_schedule_now(void)
{
	const char *path = getenv("FLOE_TEST_CLOCK");
	if (!path || !path[0])
		return (int64_t)time(NULL);
	floe_buf text = FLOE_BUF_INIT;
	long long t = -1;
	if (floe_fs_read_file(&text, path) < 0 || sscanf(floe_buf_cstr(&text), "%lld", &t) != 1) {
		floe_error_clear();
		t = (long long)time(NULL);
	}
	floe_buf_free(&text);
	return (int64_t)t;
}
