/*
 * lock_read.c — lakehouse.lock.json into the lock model, every value checked:
 * types, ranges, unique field ids within a table, last-column-id at least the
 * highest id. The first problem is reported with its JSON path, e.g.
 * `tables[2].columns[0].id must be an integer from 1 to 2147483647`.
 */
#include "plan/lock_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"

#include <limits.h>
#include <string.h>

#define MAX_LOCK_BYTES ((size_t)256 << 20)

typedef struct reader {
	floe_arena *arena;
	const char *name;
	int *ids;                 /* field ids seen in the current table */
	size_t n_ids, cap_ids;
	int max_id;
	bool silver;              /* reading silver columns: ids must be the table's, not new ones */
} reader;

static int bad(reader *r, const char *path, const char *what)
{
	floe_error_set(FLOE_ERR_CONFIG, "%s: %s %s", r->name, path, what);
	floe_error_hint("lakehouse.lock.json is written by `floe generate`; restore it from git "
			"(git -C pipeline checkout lakehouse.lock.json) rather than editing it.");
	return -1;
}

static const char *at(reader *r, const char *path, const char *key)
{
	return floe_arena_printf(r->arena, "%s%s%s", path, path[0] ? "." : "", key);
}

static const char *item(reader *r, const char *path, size_t i)
{
	return floe_arena_printf(r->arena, "%s[%zu]", path, i);
}

static int want_type(reader *r, const floe_json_value *v, floe_json_type type, const char *path)
{
	if (v && floe_json_type_of(v) == type)
		return 0;
	return bad(r, path, floe_arena_printf(r->arena, "must be a%s %s", type == FLOE_JSON_ARRAY ||
					      type == FLOE_JSON_OBJECT ? "n" : "", floe_json_type_name(type)));
}

static int get_string(const char **out, reader *r, const floe_json_value *obj, const char *key,
		      const char *path, bool nullable)
{
	const floe_json_value *v = floe_json_get(obj, key);
	*out = NULL;
	if (nullable && (!v || floe_json_type_of(v) == FLOE_JSON_NULL))
		return 0;
	if (want_type(r, v, FLOE_JSON_STRING, at(r, path, key)) < 0)
		return -1;
	floe_slice s = floe_json_string(v);
	if (memchr(s.ptr, '\0', s.len))
		return bad(r, at(r, path, key), "must not contain NUL");
	*out = floe_arena_strndup(r->arena, s.ptr, s.len);
	return 0;
}

static int get_int(int *out, reader *r, const floe_json_value *obj, const char *key, const char *path,
		   int min, int max)
{
	int64_t v = 0;
	const floe_json_value *x = floe_json_get(obj, key);
	if (!x || floe_json_type_of(x) != FLOE_JSON_NUMBER || floe_json_int64(&v, x) < 0 || v < min || v > max)
		return bad(r, at(r, path, key), floe_arena_printf(r->arena, "must be an integer from %d to %d",
								   min, max));
	*out = (int)v;
	return 0;
}

static int get_bool(bool *out, reader *r, const floe_json_value *obj, const char *key, const char *path)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (want_type(r, v, FLOE_JSON_BOOL, at(r, path, key)) < 0)
		return -1;
	*out = floe_json_bool(v);
	return 0;
}

/* A field id: positive and not seen before in this table. */
static int take_id(int *out, reader *r, const floe_json_value *obj, const char *key, const char *path)
{
	if (get_int(out, r, obj, key, path, 1, INT_MAX) < 0)
		return -1;
	for (size_t i = 0; i < r->n_ids; i++)
		if (r->ids[i] == *out)
			return r->silver ? 0 : bad(r, at(r, path, key), floe_arena_printf(r->arena, "repeats field id %d", *out));
	if (r->silver)
		return bad(r, at(r, path, key), floe_arena_printf(r->arena, "is %d, not a field id of the table's "
								   "columns", *out));
	r->ids = floe_arena_grow(r->arena, r->ids, r->n_ids, &r->cap_ids, sizeof(int));
	r->ids[r->n_ids++] = *out;
	if (*out > r->max_id)
		r->max_id = *out;
	return 0;
}

static int read_type(const floe_lock_type **out, reader *r, const floe_json_value *v, const char *path);

static int read_struct(floe_lock_type *t, reader *r, const floe_json_value *v, const char *path)
{
	const floe_json_value *fields = floe_json_get(v, "fields");
	const char *fp = at(r, path, "fields");
	if (want_type(r, fields, FLOE_JSON_ARRAY, fp) < 0)
		return -1;
	t->kind = FLOE_PLAN_STRUCT;
	t->n_fields = floe_json_count(fields);
	t->fields = floe_arena_alloc(r->arena, sizeof(*t->fields) * (t->n_fields + 1));
	for (size_t i = 0; i < t->n_fields; i++) {
		const floe_json_value *f = floe_json_value_at(fields, i);
		const char *p = item(r, fp, i);
		floe_lock_field *lf = &t->fields[i];
		if (want_type(r, f, FLOE_JSON_OBJECT, p) < 0 || take_id(&lf->id, r, f, "id", p) < 0 ||
		    get_string(&lf->name, r, f, "name", p, false) < 0 ||
		    get_bool(&lf->required, r, f, "required", p) < 0 ||
		    read_type(&lf->type, r, floe_json_get(f, "type"), at(r, p, "type")) < 0)
			return -1;
	}
	return 0;
}

static int read_type(const floe_lock_type **out, reader *r, const floe_json_value *v, const char *path)
{
	floe_lock_type *t = floe_arena_alloc(r->arena, sizeof(*t));
	*out = t;
	if (v && floe_json_type_of(v) == FLOE_JSON_STRING) {
		floe_slice s = floe_json_string(v);
		if (s.len == 0 || memchr(s.ptr, '\0', s.len))
			return bad(r, path, "must name a type");
		t->kind = FLOE_PLAN_PRIMITIVE;
		t->primitive = floe_arena_strndup(r->arena, s.ptr, s.len);
		return 0;
	}
	const char *kind = NULL;
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0 || get_string(&kind, r, v, "type", path, false) < 0)
		return -1;
	if (strcmp(kind, "struct") == 0)
		return read_struct(t, r, v, path);
	if (strcmp(kind, "list") != 0)
		return bad(r, at(r, path, "type"), "must be \"list\" or \"struct\"");
	t->kind = FLOE_PLAN_LIST;
	if (take_id(&t->element_id, r, v, "element-id", path) < 0 ||
	    get_bool(&t->element_required, r, v, "element-required", path) < 0)
		return -1;
	return read_type(&t->element, r, floe_json_get(v, "element"), at(r, path, "element"));
}

static int read_column(floe_lock_column *c, reader *r, const floe_json_value *v, const char *path)
{
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0 || take_id(&c->id, r, v, "id", path) < 0 ||
	    get_string(&c->name, r, v, "name", path, false) < 0 ||
	    get_int(&c->attnum, r, v, "attnum", path, 1, SHRT_MAX) < 0 ||
	    get_string(&c->pg_type, r, v, "pg-type", path, false) < 0 ||
	    get_string(&c->cls, r, v, "class", path, false) < 0 ||
	    get_bool(&c->required, r, v, "required", path) < 0)
		return -1;
	return read_type(&c->type, r, floe_json_get(v, "type"), at(r, path, "type"));
}

static int read_strings(const char ***out, size_t *n, reader *r, const floe_json_value *v, const char *path)
{
	if (want_type(r, v, FLOE_JSON_ARRAY, path) < 0)
		return -1;
	*n = floe_json_count(v);
	*out = floe_arena_alloc(r->arena, sizeof(char *) * (*n + 1));
	for (size_t i = 0; i < *n; i++) {
		const floe_json_value *s = floe_json_value_at(v, i);
		if (want_type(r, s, FLOE_JSON_STRING, item(r, path, i)) < 0)
			return -1;
		(*out)[i] = floe_arena_strndup(r->arena, floe_json_string(s).ptr, floe_json_string(s).len);
	}
	return 0;
}

/* The table's load mode: one floe_load_mode names, never skipped (the lock holds no skipped table). */
static int get_mode(floe_load_mode *out, reader *r, const floe_json_value *obj, const char *path)
{
	const char *text = NULL;
	if (get_string(&text, r, obj, "mode", path, false) < 0)
		return -1;
	if (floe_load_mode_parse(out, text) == 0 && *out != FLOE_LOAD_SKIPPED)
		return 0;
	floe_error_clear();
	return bad(r, at(r, path, "mode"), "must be \"incremental\", \"full\", \"refused\" or \"removed\"");
}

static int read_file_map(floe_lock_file **files, size_t *n_files, reader *r, const floe_json_value *v,
			 const char *path)
{
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0)
		return -1;
	*n_files = floe_json_count(v);
	floe_lock_file *f = floe_arena_alloc(r->arena, sizeof(*f) * (*n_files + 1));
	*files = f;
	for (size_t i = 0; i < *n_files; i++) {
		floe_slice k = floe_json_key_at(v, i);
		const floe_json_value *h = floe_json_value_at(v, i);
		const char *p = floe_arena_printf(r->arena, "%s[\"%.*s\"]", path, (int)k.len, k.ptr);
		if (want_type(r, h, FLOE_JSON_STRING, p) < 0)
			return -1;
		floe_slice hs = floe_json_string(h);
		if (hs.len != 64 || strspn(hs.ptr, "0123456789abcdef") != 64)
			return bad(r, p, "must be 64 lower-case hex digits (SHA-256)");
		if (k.len == 0 || memchr(k.ptr, '\0', k.len) || k.ptr[0] == '/' || strstr(k.ptr, ".."))
			return bad(r, p, "must be a relative path inside pipeline/");
		f[i].path = floe_arena_strndup(r->arena, k.ptr, k.len);
		f[i].sha256 = floe_arena_strndup(r->arena, hs.ptr, hs.len);
	}
	return 0;
}

static int read_files(floe_lock_table *t, reader *r, const floe_json_value *v, const char *path)
{
	return read_file_map(&t->files, &t->n_files, r, v, path);
}

/* ---- the silver section ---- */

static const char *const TEST_KINDS[] = { "unique", "not_null", "unique_combination", "relationships",
					  "accepted_values", "row_rule", "range", "regex", "row_count",
					  "freshness", NULL };

static int get_choice(const char **out, reader *r, const floe_json_value *obj, const char *key, const char *path,
		      const char *const *choices, const char *expected)
{
	if (get_string(out, r, obj, key, path, false) < 0)
		return -1;
	for (size_t i = 0; choices[i]; i++)
		if (strcmp(*out, choices[i]) == 0)
			return 0;
	return bad(r, at(r, path, key), floe_arena_printf(r->arena, "must be %s", expected));
}

/* An optional array of strings: absent or null is none. */
static int get_strings(const char ***out, size_t *n, reader *r, const floe_json_value *obj, const char *key,
		       const char *path)
{
	const floe_json_value *v = floe_json_get(obj, key);
	*out = NULL;
	*n = 0;
	if (!v || floe_json_type_of(v) == FLOE_JSON_NULL)
		return 0;
	return read_strings(out, n, r, v, at(r, path, key));
}

/* An optional number kept as its JSON text. */
static int get_number(const char **out, reader *r, const floe_json_value *obj, const char *key, const char *path)
{
	const floe_json_value *v = floe_json_get(obj, key);
	*out = NULL;
	if (!v || floe_json_type_of(v) == FLOE_JSON_NULL)
		return 0;
	if (want_type(r, v, FLOE_JSON_NUMBER, at(r, path, key)) < 0)
		return -1;
	floe_slice n = floe_json_number_text(v);
	*out = floe_arena_strndup(r->arena, n.ptr, n.len);
	return 0;
}

/* What each kind needs beyond name, kind, severity and origin. */
static int check_test(reader *r, const floe_lock_test *t, const char *path)
{
	const char *k = t->kind;
	bool needs_columns = strcmp(k, "row_rule") != 0 && strcmp(k, "row_count") != 0;
	if (needs_columns && t->n_columns == 0)
		return bad(r, at(r, path, "columns"), floe_arena_printf(r->arena, "must name a column for a %s test", k));
	if (strcmp(k, "relationships") == 0 && (!t->to || t->n_fields != t->n_columns))
		return bad(r, at(r, path, "fields"), "must name one referenced column per column, with \"to\"");
	if (strcmp(k, "row_rule") == 0 && !t->expression)
		return bad(r, at(r, path, "expression"), "must be a string for a row_rule test");
	if (strcmp(k, "regex") == 0 && !t->pattern)
		return bad(r, at(r, path, "pattern"), "must be a string for a regex test");
	if ((strcmp(k, "range") == 0 || strcmp(k, "row_count") == 0) && !t->min && !t->max)
		return bad(r, path, floe_arena_printf(r->arena, "needs \"min\" or \"max\" for a %s test", k));
	return 0;
}

static int read_test(floe_lock_test *t, reader *r, const floe_json_value *v, const char *path)
{
	static const char *const severities[] = { "error", "warn", NULL };
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0 || get_string(&t->name, r, v, "name", path, false) < 0 ||
	    get_choice(&t->kind, r, v, "kind", path, TEST_KINDS, "a test kind (see docs/silver.md)") < 0 ||
	    get_choice(&t->severity, r, v, "severity", path, severities, "\"error\" or \"warn\"") < 0 ||
	    get_string(&t->origin, r, v, "origin", path, false) < 0 ||
	    get_strings(&t->columns, &t->n_columns, r, v, "columns", path) < 0 ||
	    get_string(&t->to, r, v, "to", path, true) < 0 ||
	    get_strings(&t->fields, &t->n_fields, r, v, "fields", path) < 0 ||
	    get_strings(&t->values, &t->n_values, r, v, "values", path) < 0 ||
	    get_string(&t->expression, r, v, "expression", path, true) < 0 ||
	    get_string(&t->pattern, r, v, "pattern", path, true) < 0 ||
	    get_number(&t->min, r, v, "min", path) < 0 || get_number(&t->max, r, v, "max", path) < 0)
		return -1;
	if (strcmp(t->kind, "accepted_values") == 0 && (get_bool(&t->quote, r, v, "quote", path) < 0 ||
							 read_strings(&t->values, &t->n_values, r,
								      floe_json_get(v, "values"), at(r, path, "values")) < 0))
		return -1;
	if (strcmp(t->kind, "freshness") == 0) {
		int secs = 0;
		if (get_int(&secs, r, v, "max_age_seconds", path, 1, INT_MAX) < 0)
			return -1;
		t->max_age_seconds = secs;
	}
	return check_test(r, t, path);
}

static int read_silver_column(floe_lock_silver_column *c, reader *r, const floe_json_value *v, const char *path)
{
	static const char *const pii[] = { "hmac", "null", NULL };
	const floe_json_value *p = floe_json_get(v, "pii");
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0 || get_string(&c->name, r, v, "name", path, false) < 0 ||
	    take_id(&c->id, r, v, "id", path) < 0 ||
	    read_type(&c->type, r, floe_json_get(v, "type"), at(r, path, "type")) < 0 ||
	    get_string(&c->description, r, v, "description", path, true) < 0)
		return -1;
	if (p && floe_json_type_of(p) != FLOE_JSON_NULL &&
	    get_choice(&c->pii, r, v, "pii", path, pii, "\"hmac\", \"null\" or null") < 0)
		return -1;
	return 0;
}

static int read_silver_items(floe_lock_silver *s, reader *r, const floe_json_value *v, const char *path)
{
	const floe_json_value *cols = floe_json_get(v, "columns"), *tests = floe_json_get(v, "tests");
	const char *cp = at(r, path, "columns"), *tp = at(r, path, "tests");
	if (want_type(r, cols, FLOE_JSON_ARRAY, cp) < 0 || want_type(r, tests, FLOE_JSON_ARRAY, tp) < 0)
		return -1;
	s->n_columns = floe_json_count(cols);
	floe_lock_silver_column *c = floe_arena_alloc(r->arena, sizeof(*c) * (s->n_columns + 1));
	s->columns = c;
	r->silver = true;
	for (size_t i = 0; i < s->n_columns; i++)
		if (read_silver_column(&c[i], r, floe_json_value_at(cols, i), item(r, cp, i)) < 0)
			return -1;
	r->silver = false;
	s->n_tests = floe_json_count(tests);
	floe_lock_test *t = floe_arena_alloc(r->arena, sizeof(*t) * (s->n_tests + 1));
	s->tests = t;
	for (size_t i = 0; i < s->n_tests; i++) {
		if (read_test(&t[i], r, floe_json_value_at(tests, i), item(r, tp, i)) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(t[j].name, t[i].name) == 0)
				return bad(r, at(r, item(r, tp, i), "name"), "repeats the name of a test before it");
	}
	return 0;
}

static int read_silver(const floe_lock_silver **out, reader *r, const floe_json_value *v, const char *path)
{
	static const char *const materialized[] = { "incremental", "table", NULL };
	floe_lock_silver *s = floe_arena_alloc(r->arena, sizeof(*s));
	memset(s, 0, sizeof(*s));
	*out = s;
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0 || get_string(&s->table, r, v, "table", path, false) < 0 ||
	    get_string(&s->model, r, v, "model", path, false) < 0 ||
	    get_choice(&s->materialized, r, v, "materialized", path, materialized, "\"incremental\" or \"table\"") < 0 ||
	    read_strings(&s->unique_key, &s->n_unique_key, r, floe_json_get(v, "unique_key"),
			 at(r, path, "unique_key")) < 0 ||
	    get_string(&s->description, r, v, "description", path, true) < 0 ||
	    get_bool(&s->history, r, v, "history", path) < 0)
		return -1;
	if (s->model[0] == '/' || strstr(s->model, ".."))
		return bad(r, at(r, path, "model"), "must be a relative path inside pipeline/");
	return read_silver_items(s, r, v, path);
}

static int read_table(floe_lock_table *t, reader *r, const floe_json_value *v, const char *path)
{
	r->n_ids = 0;
	r->max_id = 0;
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0 || get_string(&t->schema, r, v, "schema", path, false) < 0 ||
	    get_string(&t->name, r, v, "table", path, false) < 0 ||
	    get_string(&t->bronze, r, v, "bronze", path, false) < 0 ||
	    get_mode(&t->mode, r, v, path) < 0 ||
	    get_string(&t->reason, r, v, "reason", path, true) < 0 ||
	    get_string(&t->watermark, r, v, "watermark", path, true) < 0 ||
	    read_strings(&t->key, &t->n_key, r, floe_json_get(v, "key"), at(r, path, "key")) < 0 ||
	    get_int(&t->last_column_id, r, v, "last-column-id", path, 0, INT_MAX) < 0)
		return -1;
	const floe_json_value *cols = floe_json_get(v, "columns");
	const char *cp = at(r, path, "columns");
	if (want_type(r, cols, FLOE_JSON_ARRAY, cp) < 0)
		return -1;
	t->n_columns = floe_json_count(cols);
	t->columns = floe_arena_alloc(r->arena, sizeof(*t->columns) * (t->n_columns + 1));
	for (size_t i = 0; i < t->n_columns; i++)
		if (read_column(&t->columns[i], r, floe_json_value_at(cols, i), item(r, cp, i)) < 0)
			return -1;
	if (r->max_id > t->last_column_id)
		return bad(r, at(r, path, "last-column-id"),
			   floe_arena_printf(r->arena, "is %d, below field id %d in use", t->last_column_id, r->max_id));
	if (read_files(t, r, floe_json_get(v, "files"), at(r, path, "files")) < 0)
		return -1;
	const floe_json_value *silver = floe_json_get(v, "silver");
	if (!silver || floe_json_type_of(silver) == FLOE_JSON_NULL)
		return 0; /* locks written before silver have none */
	return read_silver(&t->silver, r, silver, at(r, path, "silver"));
}

/* ---- gold marts ---- */

static int read_mart(floe_lock_mart *m, reader *r, const floe_json_value *v, const char *path)
{
	if (want_type(r, v, FLOE_JSON_OBJECT, path) < 0 || get_string(&m->name, r, v, "name", path, false) < 0 ||
	    get_string(&m->table, r, v, "table", path, false) < 0 ||
	    get_string(&m->model, r, v, "model", path, false) < 0 ||
	    get_string(&m->hash, r, v, "hash", path, false) < 0 ||
	    read_strings(&m->reads, &m->n_reads, r, floe_json_get(v, "reads"), at(r, path, "reads")) < 0 ||
	    read_strings(&m->grain, &m->n_grain, r, floe_json_get(v, "grain"), at(r, path, "grain")) < 0)
		return -1;
	const floe_json_value *files = floe_json_get(v, "files");
	if (files && read_file_map(&m->files, &m->n_files, r, files, at(r, path, "files")) < 0)
		return -1;
	return 0;
}

/* The optional "marts" array (none before gold). */
static int read_marts(floe_lock *lock, reader *r, const floe_json_value *v)
{
	if (!v || floe_json_type_of(v) == FLOE_JSON_NULL)
		return 0;
	if (want_type(r, v, FLOE_JSON_ARRAY, "marts") < 0)
		return -1;
	for (size_t i = 0; i < floe_json_count(v); i++) {
		floe_lock_mart m = { 0 };
		if (read_mart(&m, r, floe_json_value_at(v, i), item(r, "marts", i)) < 0)
			return -1;
		if (floe_lock_mart_find(lock, m.name))
			return bad(r, item(r, "marts", i), "repeats a mart listed before it");
		floe_lock_set_mart(lock, &m);
	}
	return 0;
}

static int read_root(floe_lock *lock, reader *r, const floe_json_value *root)
{
	int format = 0;
	if (want_type(r, root, FLOE_JSON_OBJECT, "the document") < 0)
		return -1;
	if (get_int(&format, r, root, "format", "", 1, INT_MAX) < 0)
		return -1;
	if (format > FLOE_LOCK_FORMAT)
		return bad(r, "format", floe_arena_printf(r->arena, "is %d; this floe reads format %d (upgrade floe)",
							   format, FLOE_LOCK_FORMAT));
	if (get_string(&lock->database, r, root, "database", "", true) < 0)
		return -1;
	const floe_json_value *tables = floe_json_get(root, "tables");
	if (want_type(r, tables, FLOE_JSON_ARRAY, "tables") < 0)
		return -1;
	for (size_t i = 0; i < floe_json_count(tables); i++) {
		floe_lock_table *t = floe_lock_add_table(lock);
		if (read_table(t, r, floe_json_value_at(tables, i), item(r, "tables", i)) < 0)
			return -1;
		if (floe_lock_find(lock, t->schema, t->name) != t)
			return bad(r, item(r, "tables", i), "repeats a table listed before it");
	}
	const floe_json_value *files = floe_json_get(root, "files");
	if (files) { /* none in a lock from before the dbt project */
		if (read_file_map(&lock->files, &lock->n_files, r, files, "files") < 0)
			return -1;
		lock->cap_files = lock->n_files;
	}
	return read_marts(lock, r, floe_json_get(root, "marts"));
}

int floe_lock_parse(floe_lock **out, const char *name, const char *text, size_t len)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	floe_lock *lock = floe_lock_new();
	reader r = { lock->arena, name, NULL, 0, 0, 0, false };
	*out = NULL;
	if (floe_json_parse(&doc, text, len, &jerr) < 0) {
		floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", name, jerr.line, jerr.col, jerr.message);
		floe_error_hint("Restore it from git (git -C pipeline checkout lakehouse.lock.json).");
		floe_lock_free(lock);
		return -1;
	}
	int rc = read_root(lock, &r, floe_json_root(doc));
	floe_json_free(doc);
	if (rc < 0) {
		floe_lock_free(lock);
		return -1;
	}
	floe_lock_mark_owners(lock);
	*out = lock;
	return 0;
}

int floe_lock_load(floe_lock **out, const char *path)
{
	floe_buf text;
	*out = NULL;
	if (!floe_fs_exists(path)) {
		*out = floe_lock_new();
		return 0;
	}
	floe_buf_init(&text, MAX_LOCK_BYTES);
	int rc = floe_fs_read_file(&text, path);
	if (rc == 0)
		rc = floe_lock_parse(out, path, text.ptr ? text.ptr : "", text.len);
	floe_buf_free(&text);
	return rc;
}
