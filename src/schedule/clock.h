/*
 * clock.h — now, in unix seconds (UTC), for the scheduler and the alert outbox.
 *
 * FLOE_TEST_CLOCK names a file whose first number is "now" (unix seconds): a controllable
 * clock for tests only, never for production. Unset: the system clock.
 */
#ifndef FLOE_SCHEDULE_CLOCK_H
#define FLOE_SCHEDULE_CLOCK_H

#include <stdint.h>

int64_t floe_schedule_now(void);

#endif
