/*
 * toml_value.c — TOML values: booleans, integers, floats, the four date-time
 * kinds, arrays, inline tables, and the `key = value` expression that holds them.
 *
 * Bare values are read as one token (letters, digits and `_+-.:`, plus the one
 * space allowed between a date and a time) and then checked against the grammar
 * of the kind their shape suggests, so a message can quote the whole token.
 * Floats are converted with strtod, which assumes the C locale's decimal point
 * (floe never calls setlocale); a conversion that stops early is an error.
 */
#include "config/toml_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN_SHOW 40 /* characters of a bad token quoted in a message */

typedef struct token {
	const char *s;
	size_t n;
	int line, col;
} token;

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_token_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' ||
	       c == '+' || c == '-' || c == '.' || c == ':';
}

static bool looks_like_date(const char *s, size_t n)
{
	return n >= 5 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
	       s[4] == '-';
}

static token scan_token(const toml_parser *ps)
{
	token t = { ps->text + ps->pos, 0, ps->line, ps->col };
	while (is_token_char(toml_peek(ps, t.n)))
		t.n++;
	/* "1979-05-27 07:32:00": one space may separate the date from the time. */
	if (t.n == 10 && looks_like_date(t.s, t.n) && toml_peek(ps, 10) == ' ' &&
	    is_digit(toml_peek(ps, 11)) && is_digit(toml_peek(ps, 12)) && toml_peek(ps, 13) == ':') {
		t.n = 11;
		while (is_token_char(toml_peek(ps, t.n)))
			t.n++;
	}
	return t;
}

static int token_fail(toml_parser *ps, const token *t, const char *kind, const char *why)
{
	int show = t->n > TOKEN_SHOW ? TOKEN_SHOW : (int)t->n;
	return toml_fail_at(ps, t->line, t->col, "invalid %s `%.*s%s`: %s", kind, show, t->s,
			    t->n > TOKEN_SHOW ? "..." : "", why);
}

static int digit_value(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Digits of `base` with single underscores between them; NULL or why not. */
static const char *check_digits(const char *s, size_t n, int base)
{
	if (n == 0)
		return "digits expected";
	if (s[0] == '_' || s[n - 1] == '_')
		return "an underscore must be between two digits";
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '_' && s[i + 1] == '_')
			return "an underscore must be between two digits";
		if (s[i] != '_' && digit_value((unsigned char)s[i]) >= base)
			return base == 16 ? "hexadecimal digits are 0-9 and a-f" :
			       base == 8  ? "octal digits are 0-7" :
			       base == 2  ? "binary digits are 0 and 1" :
					    "unexpected character in number";
	}
	return NULL;
}

/* After the sign and prefix have been checked: the magnitude, or why not. */
static const char *integer_magnitude(uint64_t *out, const char *s, size_t n, int base,
				     uint64_t limit)
{
	const char *why = check_digits(s, n, base);
	uint64_t mag = 0;
	for (size_t i = 0; !why && i < n; i++) {
		if (s[i] == '_')
			continue;
		uint64_t d = (uint64_t)digit_value((unsigned char)s[i]);
		if (mag > (limit - d) / (uint64_t)base)
			return "out of range for a 64-bit signed integer";
		mag = mag * (uint64_t)base + d;
	}
	*out = mag;
	return why;
}

static int parse_integer(floe_toml_value *v, toml_parser *ps, const token *t)
{
	const char *s = t->s, *why;
	size_t n = t->n;
	bool sign = n > 0 && (s[0] == '+' || s[0] == '-'), neg = sign && s[0] == '-';
	int base = 10;
	uint64_t mag = 0;
	if (sign) {
		s++;
		n--;
	}
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
		if (sign)
			return token_fail(ps, t, "integer", "hexadecimal, octal and binary integers "
					  "take no sign");
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		s += 2;
		n -= 2;
	} else if (n > 1 && s[0] == '0' && (is_digit(s[1]) || s[1] == '_')) {
		return token_fail(ps, t, "integer", "leading zeros are not allowed");
	}
	why = integer_magnitude(&mag, s, n, base, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX);
	if (why)
		return token_fail(ps, t, "integer", why);
	v->type = FLOE_TOML_INTEGER;
	v->u.i = !neg ? (int64_t)mag : mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag;
	return 0;
}

/* The decimal float grammar: int part, optional fraction, optional exponent. */
static const char *check_float(const char *s, size_t n)
{
	size_t i = 0, j;
	const char *why;
	while (i < n && s[i] != '.' && s[i] != 'e' && s[i] != 'E')
		i++;
	if (i > 1 && s[0] == '0')
		return "leading zeros are not allowed";
	if ((why = check_digits(s, i, 10)) != NULL)
		return why;
	if (i < n && s[i] == '.') {
		for (j = ++i; i < n && s[i] != 'e' && s[i] != 'E'; i++)
			;
		if ((why = check_digits(s + j, i - j, 10)) != NULL)
			return i == j ? "digits must follow the decimal point" : why;
	}
	if (i < n) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if ((why = check_digits(s + i, n - i, 10)) != NULL)
			return why;
	}
	return NULL;
}

static int parse_float(floe_toml_value *v, toml_parser *ps, const token *t)
{
	const char *s = t->s, *why;
	size_t n = t->n;
	bool sign = n > 0 && (s[0] == '+' || s[0] == '-'), neg = sign && s[0] == '-';
	char *end = NULL;
	v->type = FLOE_TOML_FLOAT;
	if (sign) {
		s++;
		n--;
	}
	if ((n == 3 && memcmp(s, "inf", 3) == 0) || (n == 3 && memcmp(s, "nan", 3) == 0)) {
		v->u.f = s[0] == 'i' ? (neg ? -INFINITY : INFINITY) : (neg ? -NAN : NAN);
		return 0;
	}
	if ((why = check_float(s, n)) != NULL)
		return token_fail(ps, t, "float", why);
	floe_buf_clear(&ps->scratch);
	for (size_t i = 0; i < t->n; i++) {
		if (t->s[i] != '_' && floe_buf_putc(&ps->scratch, t->s[i]) < 0)
			return token_fail(ps, t, "float", "too long");
	}
	errno = 0;
	v->u.f = strtod(ps->scratch.ptr, &end);
	if (end != ps->scratch.ptr + ps->scratch.len)
		return token_fail(ps, t, "float", "could not convert (is LC_NUMERIC not \"C\"?)");
	if (isinf(v->u.f))
		return token_fail(ps, t, "float", "out of range for a 64-bit float");
	return 0;
}

static int two_digits(const char *s)
{
	return is_digit(s[0]) && is_digit(s[1]) ? (s[0] - '0') * 10 + (s[1] - '0') : -1;
}

static int days_in_month(int year, int month)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return month == 2 && leap ? 29 : days[month - 1];
}

/* YYYY-MM-DD at the start of s. */
static const char *date_part(floe_toml_datetime *dt, const char *s, size_t n)
{
	if (n < 10 || !looks_like_date(s, n) || s[7] != '-')
		return "expected a date as YYYY-MM-DD";
	dt->year = two_digits(s) * 100 + two_digits(s + 2);
	dt->month = two_digits(s + 5);
	dt->day = two_digits(s + 8);
	dt->has_date = 1;
	if (dt->month < 1 || dt->month > 12)
		return dt->month < 0 ? "expected a date as YYYY-MM-DD" : "month must be 01-12";
	if (dt->day < 1 || dt->day > days_in_month(dt->year, dt->month))
		return dt->day < 0 ? "expected a date as YYYY-MM-DD" :
				     "day is out of range for the month";
	return NULL;
}

/* HH:MM:SS[.fraction] at the start of s; *used says how far it went. */
static const char *time_part(floe_toml_datetime *dt, const char *s, size_t n, size_t *used)
{
	size_t i = 9;
	if (n < 8 || s[2] != ':' || s[5] != ':')
		return "expected a time as HH:MM:SS";
	dt->hour = two_digits(s);
	dt->minute = two_digits(s + 3);
	dt->second = two_digits(s + 6);
	dt->has_time = 1;
	if (dt->hour < 0 || dt->minute < 0 || dt->second < 0)
		return "expected a time as HH:MM:SS";
	if (dt->hour > 23 || dt->minute > 59 || dt->second > 60)
		return "hour must be 00-23, minute 00-59 and second 00-60";
	*used = 8;
	if (n == 8 || s[8] != '.')
		return NULL;
	for (int scale = 100000000; i < n && is_digit(s[i]); i++, scale /= 10)
		dt->nanosecond += (s[i] - '0') * scale;
	if (i == 9)
		return "digits must follow the decimal point";
	*used = i;
	return NULL;
}

/* Z or +HH:MM / -HH:MM: all of s. */
static const char *offset_part(floe_toml_datetime *dt, const char *s, size_t n)
{
	dt->has_offset = 1;
	if (n == 1 && (s[0] == 'Z' || s[0] == 'z'))
		return NULL;
	if (n != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' || two_digits(s + 1) < 0 ||
	    two_digits(s + 4) < 0)
		return "expected an offset as Z, +HH:MM or -HH:MM after the time";
	if (two_digits(s + 1) > 23 || two_digits(s + 4) > 59)
		return "offset hour must be 00-23 and minute 00-59";
	dt->offset_minutes = (two_digits(s + 1) * 60 + two_digits(s + 4)) * (s[0] == '-' ? -1 : 1);
	return NULL;
}

/* Everything after YYYY-MM-DD: a separator, a time and an optional offset. */
static const char *after_date(floe_toml_datetime *dt, const char *s, size_t n)
{
	size_t used = 0;
	const char *why;
	if (s[0] != 'T' && s[0] != 't' && s[0] != ' ')
		return "expected `T` or a space between the date and the time";
	if ((why = time_part(dt, s + 1, n - 1, &used)) != NULL)
		return why;
	if (1 + used == n)
		return NULL;
	return offset_part(dt, s + 1 + used, n - 1 - used);
}

static int parse_datetime(floe_toml_value *v, toml_parser *ps, const token *t)
{
	floe_toml_datetime dt;
	const char *why;
	size_t used = 0;
	memset(&dt, 0, sizeof(dt));
	if (!looks_like_date(t->s, t->n) && memchr(t->s, ':', t->n)) {
		why = time_part(&dt, t->s, t->n, &used);
		if (!why && used != t->n)
			why = "a local time ends after its seconds (and fraction)";
	} else {
		why = date_part(&dt, t->s, t->n);
		if (!why && t->n > 10)
			why = after_date(&dt, t->s + 10, t->n - 10);
	}
	if (why)
		return token_fail(ps, t, "date-time", why);
	v->type = !dt.has_date ? FLOE_TOML_TIME_LOCAL : !dt.has_time ? FLOE_TOML_DATE_LOCAL :
		  dt.has_offset ? FLOE_TOML_DATETIME : FLOE_TOML_DATETIME_LOCAL;
	v->u.dt = dt;
	return 0;
}

/* A digit first, then a `:` or a `-` right after a digit (not an exponent's sign). */
static bool looks_like_datetime(const char *s, size_t n)
{
	if (!is_digit(s[0]))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (s[i] == ':' || (s[i] == '-' && is_digit(s[i - 1])))
			return true;
	}
	return false;
}

static bool is_inf_or_nan(const char *s, size_t n)
{
	if (n > 0 && (s[0] == '+' || s[0] == '-')) {
		s++;
		n--;
	}
	return n == 3 && (memcmp(s, "inf", 3) == 0 || memcmp(s, "nan", 3) == 0);
}

/* Which grammar a bare token should meet, judged by its shape. */
static floe_toml_type classify(const token *t)
{
	const char *s = t->s;
	size_t n = t->n, sign = s[0] == '+' || s[0] == '-';
	const char *digits = s + sign;
	if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0))
		return FLOE_TOML_BOOL;
	if (looks_like_datetime(s, n))
		return FLOE_TOML_DATETIME;
	if (is_inf_or_nan(s, n))
		return FLOE_TOML_FLOAT;
	if (n == sign || !is_digit(digits[0]))
		return FLOE_TOML_STRING; /* not a number at all: an unquoted string */
	if (n - sign >= 2 && digits[0] == '0' &&
	    (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b'))
		return FLOE_TOML_INTEGER;
	if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n))
		return FLOE_TOML_FLOAT;
	return FLOE_TOML_INTEGER;
}

static int parse_bare(floe_toml_value *v, toml_parser *ps)
{
	token t = scan_token(ps);
	int rc = -1;
	if (t.n == 0)
		return -1; /* callers only come here on a token character */
	switch (classify(&t)) {
	case FLOE_TOML_BOOL:
		v->type = FLOE_TOML_BOOL;
		v->u.b = t.s[0] == 't';
		rc = 0;
		break;
	case FLOE_TOML_DATETIME: rc = parse_datetime(v, ps, &t); break;
	case FLOE_TOML_FLOAT: rc = parse_float(v, ps, &t); break;
	case FLOE_TOML_INTEGER: rc = parse_integer(v, ps, &t); break;
	default:
		rc = token_fail(ps, &t, "value", "strings must be quoted, booleans are "
				"true or false");
		break;
	}
	if (rc == 0)
		toml_advance(ps, t.n);
	return rc;
}

static int check_depth(toml_parser *ps, int depth)
{
	if (depth > FLOE_TOML_MAX_DEPTH)
		return toml_fail(ps, "nesting deeper than %d levels", FLOE_TOML_MAX_DEPTH);
	return 0;
}

static int parse_array(floe_toml_value **out, toml_parser *ps, int depth)
{
	char what[64];
	floe_toml_value *a = toml_new_value(ps, FLOE_TOML_ARRAY, ps->line, ps->col), *item;
	*out = a;
	a->depth = depth;
	if (check_depth(ps, depth) < 0)
		return -1;
	toml_advance(ps, 1);
	for (;;) {
		if (toml_skip_blank(ps) < 0)
			return -1;
		if (toml_peek(ps, 0) == ']')
			break;
		if (toml_parse_value(&item, ps, depth + 1) < 0)
			return -1;
		toml_array_push(ps, a, item);
		if (toml_skip_blank(ps) < 0)
			return -1;
		if (toml_peek(ps, 0) == ']')
			break;
		if (toml_peek(ps, 0) != ',')
			return toml_fail(ps, "expected `,` or `]` in array, found %s",
					 toml_describe_here(ps, what, sizeof(what)));
		toml_advance(ps, 1);
	}
	toml_advance(ps, 1);
	return 0;
}

/* After an entry of an inline table: 1 at `}`, 0 after a `,`, -1 on error. */
static int inline_table_next(toml_parser *ps)
{
	char what[64];
	int c;
	toml_skip_ws(ps);
	c = toml_peek(ps, 0);
	if (c == '}') {
		toml_advance(ps, 1);
		return 1;
	}
	if (c == '\n' || c == '\r')
		return toml_fail(ps, "newline in inline table (an inline table must be on one line)");
	if (c != ',')
		return toml_fail(ps, "expected `,` or `}` in inline table, found %s",
				 toml_describe_here(ps, what, sizeof(what)));
	toml_advance(ps, 1);
	toml_skip_ws(ps);
	if (toml_peek(ps, 0) == '}')
		return toml_fail(ps, "trailing comma in inline table (not allowed in toml 1.0)");
	return 0;
}

static int parse_inline_table(floe_toml_value **out, toml_parser *ps, int depth)
{
	floe_toml_value *t = toml_new_value(ps, FLOE_TOML_TABLE, ps->line, ps->col);
	int rc = 0;
	*out = t;
	t->depth = depth;
	if (check_depth(ps, depth) < 0)
		return -1;
	toml_advance(ps, 1);
	toml_skip_ws(ps);
	if (toml_peek(ps, 0) == '}') {
		toml_advance(ps, 1);
		return 0;
	}
	while (rc == 0) {
		if (toml_parse_keyval(ps, t) < 0)
			return -1;
		rc = inline_table_next(ps);
	}
	return rc < 0 ? -1 : 0;
}

int toml_parse_value(floe_toml_value **out, toml_parser *ps, int depth)
{
	char what[64];
	int c = toml_peek(ps, 0);
	floe_toml_value *v;
	if (c == '[')
		return parse_array(out, ps, depth);
	if (c == '{')
		return parse_inline_table(out, ps, depth);
	if (c != '"' && c != '\'' && !is_token_char(c))
		return toml_fail(ps, "expected a value, found %s",
				 toml_describe_here(ps, what, sizeof(what)));
	v = toml_new_value(ps, FLOE_TOML_STRING, ps->line, ps->col);
	v->depth = depth;
	*out = v;
	if (c == '"' || c == '\'')
		return toml_parse_string(&v->u.str, ps, true);
	return parse_bare(v, ps);
}

int toml_parse_keyval(toml_parser *ps, floe_toml_value *table)
{
	char name[96], what[64];
	floe_toml_value *target = NULL, *value = NULL;
	toml_key_part last;
	size_t at = 0;
	if (toml_parse_key(ps) < 0)
		return -1;
	toml_skip_ws(ps);
	if (toml_peek(ps, 0) != '=')
		return toml_fail(ps, "expected `=` after key `%s`, found %s",
				 toml_describe_key(ps, ps->nkeys, name, sizeof(name)),
				 toml_describe_here(ps, what, sizeof(what)));
	toml_advance(ps, 1);
	toml_skip_ws(ps);
	if (toml_table_for_dotted(&target, ps, table) < 0)
		return -1;
	last = ps->keys[ps->nkeys - 1];
	if (toml_table_find(target, last.name, &at))
		return toml_fail_at(ps, last.line, last.col,
				    "duplicate key `%s` (first defined on line %d)",
				    toml_describe_key(ps, ps->nkeys, name, sizeof(name)),
				    target->u.tab.entries[at].line);
	if (toml_parse_value(&value, ps, target->depth + 1) < 0)
		return -1;
	toml_table_insert(ps, target, &last, value);
	return 0;
}
