/*
 * run_topics.c — the Kafka topics' part of `floe run` (src/bronze/topic.c): consume
 * every [[kafka.topics]] entry (or those --table names) and report each in a line, or
 * (--json) as the members of the run document's "kafka" array (floe_cli_json_member_join).
 */
#include "cli/cli.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "bronze/bronze.h"
#include "config/kafka.h"

#include <string.h>

static bool wanted(const char *table, const char *const *tables, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tables[i], table) == 0 || strcmp(tables[i], table + strlen("bronze.")) == 0)
			return true;
	return n == 0;
}

bool floe_cli_topic_tables_only(const floe_config *config, const char *const *tables, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool topic = false;
		for (size_t t = 0; config->kafka && t < config->kafka->n_topics; t++) {
			const char *name = config->kafka->topics[t].table;
			topic |= strcmp(tables[i], name) == 0 ||
				 (strncmp(tables[i], "bronze.", 7) == 0 && strcmp(tables[i] + 7, name) == 0);
		}
		if (!topic)
			return false;
	}
	return n > 0;
}

static void render(floe_buf *out, const floe_bronze_topic_result *r, bool json)
{
	if (json) {
		floe_json_writer j;
		if (out->len)
			floe_buf_puts(out, ", ");
		floe_json_write_init(&j, out, false);
		floe_json_write_begin_object(&j, true);
		floe_json_write_member_cstr(&j, "topic", r->topic);
		floe_json_write_member_cstr(&j, "table", r->table);
		floe_json_write_member_cstr(&j, "state", r->error ? "failed" : "loaded");
		floe_json_write_member_int(&j, "messages", r->messages);
		floe_json_write_member_int(&j, "rows", r->rows);
		floe_json_write_member_int(&j, "rejected", r->rejected);
		floe_json_write_member_cstr(&j, "offsets", r->offsets);
		floe_json_write_member_cstr(&j, "inferred_columns", r->inferred);
		floe_json_write_member_cstr(&j, "error", r->error);
		floe_json_write_end_object(&j);
		floe_json_write_finish(&j);
		return;
	}
	floe_buf_printf(out, "%-8s ", r->error ? "failed" : "loaded");
	floe_text_put_printable(out, r->table);
	floe_buf_puts(out, " ← kafka ");
	floe_text_put_printable(out, r->topic);
	floe_buf_puts(out, ": ");
	floe_text_put_printable(out, r->error ? r->error : r->detail);
	floe_buf_putc(out, '\n');
	if (r->inferred) {
		floe_buf_puts(out, "         columns inferred from its first messages, locked in the table: { ");
		floe_text_put_printable(out, r->inferred);
		floe_buf_puts(out, " }\n");
	}
}

int floe_cli_run_topics(floe_buf *out, const floe_config *config, const char *const *tables, size_t n_tables,
			const char *run_id, bool json)
{
	floe_arena *a = floe_arena_new();
	floe_bronze_topic_result *res = NULL;
	floe_config_kafka only = *config->kafka;
	floe_config scoped = *config;
	int rc = 0;
	size_t n = 0;
	only.topics = floe_arena_alloc(a, (only.n_topics + 1) * sizeof(*only.topics));
	only.n_topics = 0;
	for (size_t i = 0; i < config->kafka->n_topics; i++)
		if (wanted(floe_arena_printf(a, "bronze.%s", config->kafka->topics[i].table), tables, n_tables))
			only.topics[only.n_topics++] = config->kafka->topics[i];
	scoped.kafka = &only;
	floe_bronze_topics_run(&res, &n, a, &scoped, run_id);
	for (size_t i = 0; i < n; i++) {
		render(out, &res[i], json);
		if (res[i].error && (res[i].exit_code > rc || rc == 0))
			rc = res[i].exit_code > 1 ? res[i].exit_code : 1;
	}
	floe_arena_free(a);
	return rc;
}

void floe_cli_json_member_join(floe_buf *doc, const char *member, const floe_buf *value)
{
	size_t end = doc->len;
	while (end > 0 && doc->ptr[end - 1] != '}')
		end--;
	if (!value->len || end == 0)
		return;
	floe_buf tail = FLOE_BUF_INIT;
	floe_buf_put(&tail, doc->ptr + end - 1, doc->len - (end - 1));
	doc->len = end - 1;
	floe_buf_printf(doc, ", \"%s\": ", member);
	floe_buf_put(doc, value->ptr, value->len);
	floe_buf_put(doc, tail.ptr, tail.len);
	floe_buf_free(&tail);
}
