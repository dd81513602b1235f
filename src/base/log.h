/*
 * log.h — leveled logging to stderr, plain or JSON lines.
 *
 * Every line passes through the secret scrubber (base/secret.h), so a credential
 * registered at start-up never reaches a log, even when a library quotes it back.
 */
#ifndef FLOE_BASE_LOG_H
#define FLOE_BASE_LOG_H

#include <stdbool.h>

typedef enum floe_log_level {
	FLOE_LOG_ERROR = 0,
	FLOE_LOG_WARN,
	FLOE_LOG_INFO,
	FLOE_LOG_DEBUG
} floe_log_level;

/* Default: WARN, plain text. `--verbose` raises to INFO, twice to DEBUG. */
void floe_log_configure(floe_log_level level, bool json_lines);
floe_log_level floe_log_get_level(void);

void floe_log(floe_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define floe_log_warn(...) floe_log(FLOE_LOG_WARN, __VA_ARGS__)
#define floe_log_info(...) floe_log(FLOE_LOG_INFO, __VA_ARGS__)
#define floe_log_debug(...) floe_log(FLOE_LOG_DEBUG, __VA_ARGS__)

#endif
