/*
 * secret.h — credentials known to this process, scrubbed from everything it prints.
 *
 * A command that reads a password registers the value once; the logger, the
 * error printer and the output helpers replace every occurrence with "********".
 * The values are copies held in locked-down process memory and wiped at exit.
 */
#ifndef FLOE_BASE_SECRET_H
#define FLOE_BASE_SECRET_H

#include "base/buf.h"

#include <stdbool.h>

#define FLOE_SECRET_MIN_LEN 8

/*
 * Remember `value` as secret; returns whether it will be masked. A value shorter
 * than FLOE_SECRET_MIN_LEN bytes, or of letters only or digits only, is a word or
 * a number floe's own output may hold ("verified", a row count): masking it would
 * corrupt that output, so it is not masked and a warning (once per process, never
 * quoting the value) tells the user to choose a stronger password.
 */
bool floe_secret_register(const char *value);

/* Replace registered secrets inside `buf` in place. */
void floe_secret_scrub_buf(floe_buf *buf);

/* Forget every value (tests). */
void floe_secret_reset(void);

#endif
