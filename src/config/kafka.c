/*
 * kafka.c — [kafka] and [[kafka.topics]] in floe.toml → floe_config_kafka (see kafka.h).
 * Every value is checked where it is written; messages carry file:line:col.
 */
#include "config/kafka.h"
#include "config/config.h"
#include "config/section.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/toml.h"

#include <string.h>

#define KAFKA_KEYS "brokers, security-protocol, sasl-mechanism, sasl-username, sasl-password-env, group, max-batch, topics"
#define TOPIC_KEYS "topic, table, key, format, mode, columns"

typedef floe_config_reader reader;

static bool name_ok(const char *s, const char *first, const char *rest)
{
	return s[0] && strchr(first, s[0]) && strspn(s, rest) == strlen(s);
}

#define LETTERS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
#define WORD LETTERS "0123456789"

static int one_of(reader *r, const char *s, const floe_toml_value *v, const char *key, const char *const *allowed)
{
	for (size_t i = 0; allowed[i]; i++)
		if (strcmp(s, allowed[i]) == 0)
			return (int)i;
	return floe_config_bad(r, v, "`kafka.%s` = \"%s\" is not one of the values docs/kafka.md lists", key, s);
}

static int key_list(reader *r, floe_config_kafka_topic *t, const floe_toml_value *v)
{
	bool one = floe_toml_type_of(v) == FLOE_TOML_STRING;
	if (!one && floe_toml_type_of(v) != FLOE_TOML_ARRAY)
		return floe_config_bad(r, v, "`kafka.topics.key` must be a column name or an array of them");
	t->n_key = one ? 1 : floe_toml_count(v);
	t->key = floe_arena_alloc(r->arena, sizeof(char *) * (t->n_key + 1));
	for (size_t i = 0; i < t->n_key; i++)
		if (floe_config_text(r, &t->key[i], one ? v : floe_toml_value_at(v, i), "topics.key") < 0)
			return -1;
	return 0;
}

static int columns_of(reader *r, floe_config_kafka_topic *t, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_TABLE || floe_toml_count(v) == 0)
		return floe_config_bad(r, v, "`kafka.topics.columns` must be a table of column = \"type\", e.g. { id = \"long\" }");
	t->n_columns = floe_toml_count(v);
	t->columns = floe_arena_alloc(r->arena, sizeof(*t->columns) * (t->n_columns + 1));
	for (size_t i = 0; i < t->n_columns; i++) {
		floe_slice k = floe_toml_key_at(v, i);
		t->columns[i].name = floe_arena_strndup(r->arena, k.ptr, k.len);
		if (!name_ok(t->columns[i].name, LETTERS, WORD) || t->columns[i].name[0] == '_')
			return floe_config_bad(r, floe_toml_value_at(v, i), "column name \"%s\" must be letters, digits and _, "
				   "not starting with _ (floe's own columns do)", t->columns[i].name);
		if (floe_config_text(r, &t->columns[i].type, floe_toml_value_at(v, i), "topics.columns") < 0)
			return -1;
	}
	return 0;
}

static int topic_key(reader *r, floe_config_kafka_topic *t, floe_slice key, const floe_toml_value *v)
{
	static const char *const modes[] = { "append", "upsert", NULL };
	static const char *const formats[] = { "json", NULL };
	const char *s = NULL;
	if (floe_slice_eq_cstr(key, "topic"))
		return floe_config_text(r, &t->topic, v, "topics.topic");
	if (floe_slice_eq_cstr(key, "table")) {
		if (floe_config_text(r, &t->table, v, "topics.table") < 0)
			return -1;
		return name_ok(t->table, LETTERS, WORD) ? 0 : floe_config_bad(r, v, "`kafka.topics.table` must be letters, digits and _");
	}
	if (floe_slice_eq_cstr(key, "key"))
		return key_list(r, t, v);
	if (floe_slice_eq_cstr(key, "columns"))
		return columns_of(r, t, v);
	if (floe_slice_eq_cstr(key, "mode")) {
		int m = floe_config_text(r, &s, v, "topics.mode") < 0 ? -1 : one_of(r, s, v, "topics.mode", modes);
		t->mode = m == 1 ? FLOE_KAFKA_UPSERT : FLOE_KAFKA_APPEND;
		return m < 0 ? -1 : 0;
	}
	if (floe_slice_eq_cstr(key, "format"))
		return floe_config_text(r, &s, v, "topics.format") < 0 || one_of(r, s, v, "topics.format", formats) < 0 ? -1 : 0;
	return floe_config_bad(r, v, "unknown key `%.*s` in [[kafka.topics]]", (int)key.len, key.ptr);
}

/* "shop.orders" → "shop_orders" */
static const char *table_from_topic(floe_arena *a, const char *topic)
{
	char *s = floe_arena_strndup(a, topic, strlen(topic));
	for (char *p = s; *p; p++)
		if (!strchr(WORD, *p))
			*p = '_';
	return s;
}

static int topic_of(reader *r, floe_config_kafka_topic *t, const floe_toml_value *v)
{
	if (floe_toml_type_of(v) != FLOE_TOML_TABLE)
		return floe_config_bad(r, v, "`kafka.topics` must be an array of tables ([[kafka.topics]])");
	memset(t, 0, sizeof(*t));
	t->line = floe_toml_line(v);
	for (size_t i = 0; i < floe_toml_count(v); i++)
		if (topic_key(r, t, floe_toml_key_at(v, i), floe_toml_value_at(v, i)) < 0)
			return -1;
	if (!t->topic)
		return floe_config_bad(r, v, "[[kafka.topics]] has no `topic`");
	if (!t->table)
		t->table = table_from_topic(r->arena, t->topic);
	if (t->mode == FLOE_KAFKA_UPSERT && t->n_key == 0)
		return floe_config_bad(r, v, "topic \"%s\" has mode = \"upsert\" and no `key`: name the columns it upserts by", t->topic);
	for (size_t k = 0; k < t->n_key && t->columns; k++) {
		bool found = false;
		for (size_t c = 0; c < t->n_columns; c++)
			found |= strcmp(t->key[k], t->columns[c].name) == 0;
		if (!found)
			return floe_config_bad(r, v, "key column \"%s\" of topic \"%s\" is not among its columns", t->key[k], t->topic);
	}
	return 0;
}

static int kafka_key(reader *r, floe_config_kafka *k, floe_slice key, const floe_toml_value *v)
{
	static const char *const protocols[] = { "plaintext", "ssl", "sasl_plaintext", "sasl_ssl", NULL };
	static const struct { const char *name; size_t offset; } strings[] = {
		{ "brokers", offsetof(floe_config_kafka, brokers) },
		{ "sasl-mechanism", offsetof(floe_config_kafka, sasl_mechanism) },
		{ "sasl-username", offsetof(floe_config_kafka, sasl_username) },
		{ "sasl-password-env", offsetof(floe_config_kafka, sasl_password_env) },
		{ "group", offsetof(floe_config_kafka, group) },
	};
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (floe_slice_eq_cstr(key, strings[i].name))
			return floe_config_text(r, (const char **)((char *)k + strings[i].offset), v, strings[i].name);
	if (floe_slice_eq_cstr(key, "security-protocol"))
		return floe_config_text(r, &k->security_protocol, v, "security-protocol") < 0 ||
			       one_of(r, k->security_protocol, v, "security-protocol", protocols) < 0
			       ? -1
			       : 0;
	if (floe_slice_eq_cstr(key, "max-batch")) {
		if (floe_toml_type_of(v) != FLOE_TOML_INTEGER || floe_toml_int(v) < 1 || floe_toml_int(v) > 10000000)
			return floe_config_bad(r, v, "`kafka.max-batch` must be a whole number from 1 to 10000000");
		k->max_batch = floe_toml_int(v);
		return 0;
	}
	if (floe_slice_eq_cstr(key, "topics")) {
		if (floe_toml_type_of(v) != FLOE_TOML_ARRAY)
			return floe_config_bad(r, v, "`kafka.topics` must be an array of tables ([[kafka.topics]])");
		k->n_topics = floe_toml_count(v);
		k->topics = floe_arena_alloc(r->arena, sizeof(*k->topics) * (k->n_topics + 1));
		for (size_t i = 0; i < k->n_topics; i++)
			if (topic_of(r, &k->topics[i], floe_toml_value_at(v, i)) < 0)
				return -1;
		return 0;
	}
	return floe_config_bad(r, v, "unknown key `%.*s` in [kafka]", (int)key.len, key.ptr);
}

int floe_config_kafka_load(floe_config *config, const char *path, const floe_toml_value *section)
{
	reader r = { config->arena, path, "kafka",
		     "See docs/kafka.md: [kafka] takes " KAFKA_KEYS "; [[kafka.topics]] takes " TOPIC_KEYS "." };
	if (floe_toml_type_of(section) != FLOE_TOML_TABLE)
		return floe_config_bad(&r, section, "`kafka` must be a table ([kafka])");
	floe_config_kafka *k = floe_arena_alloc(r.arena, sizeof(*k));
	memset(k, 0, sizeof(*k));
	k->group = "floe";
	k->max_batch = 100000;
	k->line = floe_toml_line(section);
	for (size_t i = 0; i < floe_toml_count(section); i++)
		if (kafka_key(&r, k, floe_toml_key_at(section, i), floe_toml_value_at(section, i)) < 0)
			return -1;
	if (!k->brokers)
		return floe_config_bad(&r, section, "[kafka] has no `brokers`, e.g. brokers = \"127.0.0.1:9092\"");
	if (k->sasl_password_env && !floe_config_env_name_ok(k->sasl_password_env))
		return floe_config_bad(&r, section, "`kafka.sasl-password-env` must name an environment variable (letters, digits, _)");
	for (size_t i = 0; i < k->n_topics; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(k->topics[i].table, k->topics[j].table) == 0)
				return floe_config_bad(&r, section, "topics \"%s\" and \"%s\" both load bronze.%s", k->topics[j].topic,
					   k->topics[i].topic, k->topics[i].table);
	config->kafka = k;
	return 0;
}
