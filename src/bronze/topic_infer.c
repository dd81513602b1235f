/*
 * topic_infer.c — a topic without declared columns: the columns inferred from its first
 * messages (TOPIC_INFER_MESSAGES at most), before the table exists. Once the table is
 * created with them, its schema is the lock: later runs read the columns from it and
 * never infer again, so a message that no longer fits is rejected, not a new type.
 */
#include "bronze/topic_int.h"
#include "base/civil.h"
#include "base/error.h"
#include "base/json.h"

#include <string.h>

enum { K_BOOL = 1, K_INT = 2, K_NUM = 4, K_UUID = 8, K_DATE = 16, K_TS = 32, K_TSTZ = 64, K_TEXT = 128, K_OTHER = 256 };

static bool is_uuid(floe_slice s)
{
	static const char hex[] = "0123456789abcdefABCDEF";
	if (s.len != 36)
		return false;
	for (size_t i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? s.ptr[i] != '-' : !strchr(hex, s.ptr[i]) || !s.ptr[i])
			return false;
	return true;
}

/* Which time kind a string is: the decoder's own parse decides (topic_decode.c accepts what this names). */
static unsigned time_kind(floe_slice s)
{
	char text[40];
	int64_t v;
	if (s.len == 10 && s.len < sizeof(text)) {
		memcpy(text, s.ptr, 10);
		text[10] = '\0';
		return floe_civil_parse_days(&v, text) == 0 ? K_DATE : K_TEXT;
	}
	if (s.len < 19 || s.len >= sizeof(text) || (s.ptr[10] != ' ' && s.ptr[10] != 'T'))
		return K_TEXT;
	memcpy(text, s.ptr, s.len);
	text[s.len] = '\0';
	text[10] = ' ';
	bool zone = text[s.len - 1] == 'Z' || (s.len >= 25 && (text[s.len - 6] == '+' || text[s.len - 6] == '-'));
	if (zone && text[s.len - 1] != 'Z')
		text[s.len - 6] = '\0';
	return floe_civil_parse_micros(&v, text) == 0 ? (zone ? K_TSTZ : K_TS) : K_TEXT;
}

static unsigned kind_of(const floe_json_value *v)
{
	int64_t i;
	switch (floe_json_type_of(v)) {
	case FLOE_JSON_NULL: return 0;
	case FLOE_JSON_BOOL: return K_BOOL;
	case FLOE_JSON_NUMBER: return floe_json_int64(&i, v) == 0 ? K_INT : K_NUM;
	case FLOE_JSON_STRING: return is_uuid(floe_json_string(v)) ? K_UUID : time_kind(floe_json_string(v));
	default: return K_OTHER;
	}
}

static bool column_name(floe_slice k)
{
	if (k.len == 0 || k.len > 63 || k.ptr[0] == '_' || (k.ptr[0] >= '0' && k.ptr[0] <= '9'))
		return false;
	for (size_t i = 0; i < k.len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", k.ptr[i]) || !k.ptr[i])
			return false;
	return true;
}

void topic_infer_add(topic_infer *st, const char *value, size_t len)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	if (!value || floe_json_parse(&doc, value, len, &jerr) < 0 || floe_json_type_of(floe_json_root(doc)) != FLOE_JSON_OBJECT) {
		floe_error_clear();
		floe_json_free(doc);
		return;
	}
	const floe_json_value *root = floe_json_root(doc);
	st->messages++;
	for (size_t i = 0; i < floe_json_count(root); i++) {
		floe_slice k = floe_json_key_at(root, i);
		size_t c = 0;
		if (!column_name(k))
			continue;
		while (c < st->n && !(strlen(st->names[c]) == k.len && memcmp(st->names[c], k.ptr, k.len) == 0))
			c++;
		if (c == st->n) {
			if (st->n == TOPIC_INFER_MAX_COLUMNS)
				continue;
			st->names[st->n++] = floe_arena_strndup(st->arena, k.ptr, k.len);
		}
		st->kinds[c] |= kind_of(floe_json_value_at(root, i));
	}
	floe_json_free(doc);
}

static const char *type_of(unsigned k)
{
	static const struct { unsigned kinds; const char *type; } narrowest[] = {
		{ K_BOOL, "boolean" }, { K_INT, "long" }, { K_INT | K_NUM, "double" }, { K_UUID, "uuid" },
		{ K_DATE, "date" }, { K_TS, "timestamp" }, { K_TSTZ, "timestamptz" },
	};
	for (size_t i = 0; i < sizeof(narrowest) / sizeof(narrowest[0]); i++)
		if (k && (k & ~narrowest[i].kinds) == 0)
			return narrowest[i].type;
	return "string";
}

void topic_infer_columns(const topic_infer *st, floe_config_kafka_column **out, size_t *n_out)
{
	floe_config_kafka_column *cols = floe_arena_alloc(st->arena, (st->n + 1) * sizeof(*cols));
	for (size_t i = 0; i < st->n; i++)
		cols[i] = (floe_config_kafka_column){ .name = st->names[i], .type = type_of(st->kinds[i]) };
	*out = cols;
	*n_out = st->n;
}

int topic_columns_from_schema(floe_config_kafka_column **out, size_t *n_out, floe_arena *a,
			      const floe_iceberg_schema *schema)
{
	size_t n = schema->n_fields > TOPIC_META_COLUMNS ? schema->n_fields - TOPIC_META_COLUMNS : 0;
	floe_config_kafka_column *cols = floe_arena_alloc(a, (n + 1) * sizeof(*cols));
	for (size_t i = 0; i < n; i++) {
		const floe_iceberg_field *f = &schema->fields[TOPIC_META_COLUMNS + i];
		cols[i] = (floe_config_kafka_column){ .name = floe_arena_strdup(a, f->name), /* the schema is the table's, freed first */
						      .type = floe_iceberg_type_string(a, f->type) };
		if (!cols[i].type)
			return floe_error_set(FLOE_ERR_CHECK, "column \"%s\" of the topic's table has a type floe cannot name",
					      f->name);
	}
	*out = cols;
	*n_out = n;
	return 0;
}
