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

/* Remember `value` as secret. Values shorter than 4 bytes are ignored (too common). */
void floe_secret_register(const char *value);

/* Replace registered secrets inside `buf` in place. */
void floe_secret_scrub_buf(floe_buf *buf);

/* Forget every value (tests). */
void floe_secret_reset(void);

#endif
