/*
 * status_topics.c — the Kafka topics' part of `floe status`: per topic its bronze table,
 * the lag per partition (the brokers' high watermarks now against the offsets in the
 * table's newest snapshot) and freshness (the age of the newest message bronze holds, and
 * of the last commit). Text: a section after the tables; --json: a "kafka" member.
 */
#include "cli/cli.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "bronze/bronze.h"
#include "iceberg/table.h"

static void age(floe_buf *out, int64_t ms, int64_t now)
{
	if (ms < 0) {
		floe_buf_puts(out, "never");
		return;
	}
	int64_t s = (now - ms) / 1000;
	if (s < 120)
		floe_buf_printf(out, "%llds ago", (long long)s);
	else if (s < 7200)
		floe_buf_printf(out, "%lldm ago", (long long)(s / 60));
	else
		floe_buf_printf(out, "%lldh ago", (long long)(s / 3600));
}

static void render_text(floe_buf *out, const floe_bronze_topic_status *st, size_t n, int64_t now)
{
	floe_buf_puts(out, "\nkafka topics\n");
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(out, "  ");
		floe_text_put_printable(out, st[i].table);
		floe_buf_puts(out, " ← ");
		floe_text_put_printable(out, st[i].topic);
		if (st[i].error) {
			floe_buf_puts(out, ": unknown — ");
			floe_text_put_printable(out, st[i].error);
			floe_buf_putc(out, '\n');
			continue;
		}
		floe_buf_printf(out, ": lag %lld messages; newest message loaded ", (long long)st[i].lag);
		age(out, st[i].newest_ms, now);
		floe_buf_puts(out, ", last commit ");
		age(out, st[i].committed_ms, now);
		floe_buf_puts(out, "\n    partition  next offset  high watermark  lag\n");
		for (size_t p = 0; p < st[i].n_parts; p++)
			floe_buf_printf(out, "    %9d  %11lld  %14lld  %lld\n", (int)st[i].parts[p].partition,
					(long long)st[i].parts[p].next, (long long)st[i].parts[p].high,
					(long long)st[i].parts[p].lag);
	}
}

static void render_json(floe_buf *out, const floe_bronze_topic_status *st, size_t n, int64_t now)
{
	floe_json_writer j;
	floe_json_write_init(&j, out, false);
	floe_json_write_begin_array(&j, true);
	for (size_t i = 0; i < n; i++) {
		floe_json_write_begin_object(&j, true);
		floe_json_write_member_cstr(&j, "topic", st[i].topic);
		floe_json_write_member_cstr(&j, "table", st[i].table);
		floe_json_write_member_cstr(&j, "error", st[i].error);
		floe_json_write_member_int(&j, "lag", st[i].lag);
		floe_json_write_member_int(&j, "freshness_ms", st[i].newest_ms < 0 ? -1 : now - st[i].newest_ms);
		floe_json_write_member_int(&j, "committed_ms", st[i].committed_ms);
		floe_json_write_key(&j, "partitions");
		floe_json_write_begin_array(&j, true);
		for (size_t p = 0; p < st[i].n_parts; p++) {
			floe_json_write_begin_object(&j, true);
			floe_json_write_member_int(&j, "partition", st[i].parts[p].partition);
			floe_json_write_member_int(&j, "next", st[i].parts[p].next);
			floe_json_write_member_int(&j, "high", st[i].parts[p].high);
			floe_json_write_member_int(&j, "lag", st[i].parts[p].lag);
			floe_json_write_end_object(&j);
		}
		floe_json_write_end_array(&j);
		floe_json_write_end_object(&j);
	}
	floe_json_write_end_array(&j);
	floe_json_write_finish(&j);
}

int floe_cli_status_topics(floe_buf *out, const floe_config *config, bool json)
{
	floe_arena *a = floe_arena_new();
	floe_bronze_topic_status *st = NULL;
	size_t n = 0;
	int failed = floe_bronze_topics_status(&st, &n, a, config);
	int64_t now = floe_iceberg_now_ms();
	floe_buf topics = FLOE_BUF_INIT;
	if (json) {
		render_json(&topics, st, n, now);
		floe_cli_json_member_join(out, "kafka", &topics);
	} else {
		render_text(out, st, n, now);
	}
	floe_buf_free(&topics);
	floe_arena_free(a);
	return failed ? FLOE_EXIT_UNREACHABLE : 0;
}
