/*
 * log.c — stderr logger.
 */
#include "base/log.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/secret.h"
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static floe_log_level max_level = FLOE_LOG_WARN;
static bool as_json;

static const char *level_names[] = { "error", "warn", "info", "debug" };

void floe_log_configure(floe_log_level level, bool json_lines)
{
	max_level = level;
	as_json = json_lines;
}

floe_log_level floe_log_get_level(void)
{
	return max_level;
}

void floe_log(floe_log_level level, const char *fmt, ...)
{
	if (level > max_level)
		return;
	floe_buf msg = FLOE_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	floe_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	floe_secret_scrub_buf(&msg);

	if (as_json) {
		floe_buf line = FLOE_BUF_INIT;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		floe_buf_printf(&line, "{\"ts\":%lld.%03ld,\"level\":\"%s\",\"msg\":",
				(long long)ts.tv_sec, ts.tv_nsec / 1000000, level_names[level]);
		floe_json_put_string(&line, msg.ptr ? msg.ptr : "", msg.len);
		floe_buf_puts(&line, "}\n");
		fputs(floe_buf_cstr(&line), stderr);
		floe_buf_free(&line);
	} else {
		floe_buf line = FLOE_BUF_INIT;
		floe_buf_printf(&line, "floe: %s: ", level_names[level]);
		floe_text_put_printable(&line, floe_buf_cstr(&msg)); /* a message may quote a source name */
		floe_buf_putc(&line, '\n');
		fputs(floe_buf_cstr(&line), stderr);
		floe_buf_free(&line);
	}
	floe_buf_free(&msg);
}
