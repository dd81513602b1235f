/*
 * test_toml_corpus.c — floe's TOML parser against the toml-test corpus.
 *
 * For every case that `tests/data/toml-test/files-toml-1.0.0` lists: a valid case
 * must parse and equal its tagged JSON (read with floe's JSON reader); an invalid
 * case must be rejected with a positioned message. Floats compare as numbers
 * (nan equals nan, -0.0 equals 0.0); date-times compare field by field at
 * millisecond precision, the expected side parsed here independently of the
 * parser under test. Prints one summary line and each failing file.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/json.h"
#include "config/toml.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct corpus_dt {
	int year, month, day, hour, minute, second, ms, offset;
	bool has_date, has_time, has_offset;
} corpus_dt;

static int digits_at(const char *s, size_t n, size_t at, size_t k)
{
	int v = 0;
	if (at + k > n)
		return -1;
	for (size_t i = at; i < at + k; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* RFC 3339 as toml-test writes it: date, time, or both, with optional offset. */
static bool expected_dt(corpus_dt *dt, const char *s, size_t n)
{
	size_t i = 0;
	memset(dt, 0, sizeof(*dt));
	if (n >= 10 && s[4] == '-') {
		dt->has_date = true;
		dt->year = digits_at(s, n, 0, 4);
		dt->month = digits_at(s, n, 5, 2);
		dt->day = digits_at(s, n, 8, 2);
		i = n > 10 ? 11 : 10;
	}
	if (i < n) {
		dt->has_time = true;
		dt->hour = digits_at(s, n, i, 2);
		dt->minute = digits_at(s, n, i + 3, 2);
		dt->second = digits_at(s, n, i + 6, 2);
		i += 8;
		if (i < n && s[i] == '.') {
			int scale = 100; /* digits past milliseconds add 0 */
			for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
				dt->ms += (s[i] - '0') * scale;
		}
	}
	if (i < n) {
		dt->has_offset = true;
		if (s[i] != 'Z' && s[i] != 'z')
			dt->offset = (s[i] == '-' ? -1 : 1) *
				     (digits_at(s, n, i + 1, 2) * 60 + digits_at(s, n, i + 4, 2));
	}
	return dt->year >= 0 && dt->month >= 0 && dt->day >= 0 && dt->hour >= 0 &&
	       dt->minute >= 0 && dt->second >= 0;
}

static bool same_dt(const floe_toml_value *t, floe_slice text)
{
	floe_toml_datetime got = floe_toml_datetime_of(t);
	corpus_dt want;
	if (!expected_dt(&want, text.ptr, text.len))
		return false;
	return got.has_date == want.has_date && got.has_time == want.has_time &&
	       got.has_offset == want.has_offset && got.year == want.year &&
	       got.month == want.month && got.day == want.day && got.hour == want.hour &&
	       got.minute == want.minute && got.second == want.second &&
	       got.nanosecond / 1000000 == want.ms && got.offset_minutes == want.offset;
}

static const struct {
	const char *tag;
	floe_toml_type type;
} tags[] = {
	{ "string", FLOE_TOML_STRING },
	{ "integer", FLOE_TOML_INTEGER },
	{ "float", FLOE_TOML_FLOAT },
	{ "bool", FLOE_TOML_BOOL },
	{ "datetime", FLOE_TOML_DATETIME },
	{ "datetime-local", FLOE_TOML_DATETIME_LOCAL },
	{ "date-local", FLOE_TOML_DATE_LOCAL },
	{ "time-local", FLOE_TOML_TIME_LOCAL },
};

/* {"type": "...", "value": "..."}: a tagged scalar rather than a table. */
static bool is_tagged(const floe_json_value *j)
{
	const floe_json_value *type = floe_json_get(j, "type"), *value = floe_json_get(j, "value");
	return floe_json_count(j) == 2 && type && value &&
	       floe_json_type_of(type) == FLOE_JSON_STRING &&
	       floe_json_type_of(value) == FLOE_JSON_STRING;
}

static bool same_scalar(const floe_toml_value *t, const floe_json_value *j)
{
	floe_slice tag = floe_json_string(floe_json_get(j, "type"));
	floe_slice text = floe_json_string(floe_json_get(j, "value"));
	char *copy = floe_xstrndup(text.ptr, text.len);
	bool ok = false;
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (floe_slice_eq_cstr(tag, tags[i].tag))
			ok = floe_toml_type_of(t) == tags[i].type;
	}
	if (ok && floe_toml_type_of(t) == FLOE_TOML_STRING)
		ok = floe_slice_eq(floe_toml_string(t), text);
	else if (ok && floe_toml_type_of(t) == FLOE_TOML_INTEGER)
		ok = floe_toml_int(t) == strtoll(copy, NULL, 10);
	else if (ok && floe_toml_type_of(t) == FLOE_TOML_FLOAT)
		ok = (isnan(floe_toml_float(t)) && isnan(strtod(copy, NULL))) ||
		     floe_toml_float(t) == strtod(copy, NULL);
	else if (ok && floe_toml_type_of(t) == FLOE_TOML_BOOL)
		ok = floe_slice_eq_cstr(text, floe_toml_bool(t) ? "true" : "false");
	else if (ok)
		ok = same_dt(t, text);
	free(copy);
	return ok;
}

/* Does the TOML value equal the tagged JSON? On a difference, `path` names where. */
static bool same(const floe_toml_value *t, const floe_json_value *j, floe_buf *path)
{
	size_t n = floe_json_count(j), mark = path->len;
	bool ok = true;
	if (floe_json_type_of(j) == FLOE_JSON_OBJECT && is_tagged(j))
		return same_scalar(t, j);
	if (floe_json_type_of(j) == FLOE_JSON_ARRAY) {
		if (floe_toml_type_of(t) != FLOE_TOML_ARRAY || floe_toml_count(t) != n)
			return false;
		for (size_t i = 0; ok && i < n; i++) {
			floe_buf_printf(path, "[%zu]", i);
			ok = same(floe_toml_value_at(t, i), floe_json_value_at(j, i), path);
			if (ok)
				path->len = mark;
		}
		return ok;
	}
	if (floe_json_type_of(j) != FLOE_JSON_OBJECT || floe_toml_type_of(t) != FLOE_TOML_TABLE ||
	    floe_toml_count(t) != n)
		return false;
	for (size_t i = 0; ok && i < n; i++) {
		floe_slice key = floe_json_key_at(j, i);
		const floe_toml_value *tv = floe_toml_get_slice(t, key);
		floe_buf_putc(path, '.');
		floe_buf_put(path, key.ptr, key.len);
		ok = tv && same(tv, floe_json_value_at(j, i), path);
		if (ok)
			path->len = mark;
	}
	return ok;
}

typedef struct corpus_run {
	const char *dir;
	int valid, valid_ok, invalid, invalid_ok;
} corpus_run;

/* <dir>/<name[0..len)><suffix> */
static bool read_case(floe_buf *out, const corpus_run *run, const char *name, size_t len,
		      const char *suffix)
{
	floe_buf path = FLOE_BUF_INIT;
	bool ok;
	floe_buf_printf(&path, "%s/%.*s%s", run->dir, (int)len, name, suffix);
	floe_buf_clear(out);
	ok = floe_fs_read_file(out, floe_buf_cstr(&path)) == 0;
	floe_buf_free(&path);
	return ok;
}

static void run_valid(corpus_run *run, const char *name, size_t len)
{
	floe_buf toml = FLOE_BUF_INIT, json = FLOE_BUF_INIT, where = FLOE_BUF_INIT;
	floe_toml_doc *doc = NULL;
	floe_json_doc *want = NULL;
	floe_toml_error err;
	floe_json_error jerr;
	run->valid++;
	if (!read_case(&toml, run, name, len, "") ||
	    !read_case(&json, run, name, len - 4, "json")) {
		printf("  FAIL %.*s: cannot read the case\n", (int)len, name);
	} else if (floe_toml_parse(&doc, toml.ptr, toml.len, &err) < 0) {
		printf("  FAIL %.*s: rejected at %d:%d: %s\n", (int)len, name, err.line, err.col,
		       err.message);
	} else if (floe_json_parse(&want, json.ptr, json.len, &jerr) < 0) {
		printf("  FAIL %.*s: expected json unreadable: %s\n", (int)len, name, jerr.message);
	} else if (!same(floe_toml_root(doc), floe_json_root(want), &where)) {
		printf("  FAIL %.*s: differs at %s\n", (int)len, name,
		       where.len ? floe_buf_cstr(&where) : "the root");
	} else {
		run->valid_ok++;
	}
	floe_toml_free(doc);
	floe_json_free(want);
	floe_buf_free(&toml);
	floe_buf_free(&json);
	floe_buf_free(&where);
}

static void run_invalid(corpus_run *run, const char *name, size_t len)
{
	floe_buf toml = FLOE_BUF_INIT;
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	run->invalid++;
	if (!read_case(&toml, run, name, len, "")) {
		printf("  FAIL %.*s: cannot read the case\n", (int)len, name);
	} else if (floe_toml_parse(&doc, toml.ptr, toml.len, &err) == 0) {
		printf("  FAIL %.*s: accepted\n", (int)len, name);
	} else if (err.line < 1 || err.col < 1 || err.message[0] == '\0') {
		printf("  FAIL %.*s: rejected without a positioned message\n", (int)len, name);
	} else {
		run->invalid_ok++;
	}
	floe_toml_free(doc);
	floe_buf_free(&toml);
}

static void run_line(corpus_run *run, const char *line, size_t len)
{
	bool toml = len > 5 && memcmp(line + len - 5, ".toml", 5) == 0;
	if (toml && len > 6 && memcmp(line, "valid/", 6) == 0)
		run_valid(run, line, len);
	else if (toml && len > 8 && memcmp(line, "invalid/", 8) == 0)
		run_invalid(run, line, len);
}

FLOE_TEST(toml_corpus_1_0)
{
	floe_buf dir = FLOE_BUF_INIT, list = FLOE_BUF_INIT;
	corpus_run run = { NULL, 0, 0, 0, 0 };
	floe_buf_printf(&dir, "%s/toml-test", floe_test_data_dir());
	run.dir = floe_buf_cstr(&dir);
	if (!read_case(&list, &run, "files-toml-1.0.0", 16, "")) {
		printf("  toml-test corpus not found under %s\n", run.dir);
		FLOE_CHECK(!"toml-test corpus present");
	}
	for (size_t i = 0; i < list.len;) {
		const char *nl = memchr(list.ptr + i, '\n', list.len - i);
		size_t end = nl ? (size_t)(nl - list.ptr) : list.len;
		size_t n = end - i;
		if (n > 0 && list.ptr[i + n - 1] == '\r')
			n--;
		run_line(&run, list.ptr + i, n);
		i = end + 1;
	}
	printf("toml-test 1.0: valid %d/%d, invalid %d/%d\n", run.valid_ok, run.valid,
	       run.invalid_ok, run.invalid);
	FLOE_CHECK(run.valid > 0 && run.invalid > 0);
	FLOE_CHECK(run.valid_ok == run.valid);
	FLOE_CHECK(run.invalid_ok == run.invalid);
	floe_buf_free(&dir);
	floe_buf_free(&list);
}
