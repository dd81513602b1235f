/*
 * cron.c — parse five-field cron expressions and find their next time (see cron.h).
 */
#include "schedule/cron.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct field_spec {
	const char *name;
	int min, max;
	const char *const *names; /* names[i] is value i + names_base; NULL: none */
	int names_base;
} field_spec;

static const char *const MONTH_NAMES[] = { "jan", "feb", "mar", "apr", "may", "jun",
					   "jul", "aug", "sep", "oct", "nov", "dec", NULL };
static const char *const DAY_NAMES[] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL };

static const field_spec FIELDS[5] = {
	{ "minute", 0, 59, NULL, 0 },
	{ "hour", 0, 23, NULL, 0 },
	{ "day of month", 1, 31, NULL, 0 },
	{ "month", 1, 12, MONTH_NAMES, 1 },
	{ "day of week", 0, 7, DAY_NAMES, 0 },
};

/* A number or a name at *p (advanced past it); -1 when neither. */
static int atom(const char **p, const char *end, const field_spec *f)
{
	const char *s = *p;
	if (s < end && *s >= '0' && *s <= '9') {
		int v = 0;
		while (s < end && *s >= '0' && *s <= '9' && v < 1000)
			v = v * 10 + (*s++ - '0');
		*p = s;
		return v;
	}
	for (int i = 0; f->names && f->names[i]; i++)
		if (end - s >= 3 && strncasecmp(s, f->names[i], 3) == 0) {
			*p = s + 3;
			return i + f->names_base;
		}
	return -1;
}

static int fail(char *why, size_t size, const field_spec *f, const char *what)
{
	snprintf(why, size, "the %s field %s", f->name, what);
	return -1;
}

/* One comma-separated item [start, end) of field f into *bits. */
static int item(uint64_t *bits, const char *s, const char *end, const field_spec *f, char *why, size_t size)
{
	int lo = f->min, hi = f->max, step = 1;
	const char *p = s;
	if (p < end && *p == '*') {
		p++;
	} else {
		lo = hi = atom(&p, end, f);
		if (lo < 0)
			return fail(why, size, f, "holds something that is neither a number nor a name");
		if (p < end && *p == '-') {
			p++;
			hi = atom(&p, end, f);
			if (hi < 0)
				return fail(why, size, f, "has a range without an end");
		} else if (p < end && *p == '/') {
			hi = f->max; /* a/n: from a to the field's end */
		}
	}
	if (p < end && *p == '/') {
		p++;
		step = atom(&p, end, &(field_spec){ f->name, 0, 0, NULL, 0 });
		if (step < 1)
			return fail(why, size, f, "has a step that is not a positive number");
	}
	if (p != end)
		return fail(why, size, f, "has unexpected characters");
	if (lo < f->min || hi > f->max || lo > hi)
		return fail(why, size, f, "is out of range or has a range that runs backwards");
	for (int v = lo; v <= hi; v += step)
		*bits |= UINT64_C(1) << v;
	return 0;
}

static int field(uint64_t *bits, bool *star, const char *s, const char *end, const field_spec *f, char *why,
		 size_t size)
{
	*bits = 0;
	*star = s < end && *s == '*';
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *stop = comma ? comma : end;
		if (stop == s)
			return fail(why, size, f, "has an empty list item");
		if (item(bits, s, stop, f, why, size) < 0)
			return -1;
		s = comma ? comma + 1 : end;
		if (comma && s == end)
			return fail(why, size, f, "ends with a comma");
	}
	return 0;
}

/* Whether some date can match: a restricted day of month must exist in some allowed month. */
static bool possible(const floe_cron *c)
{
	static const int longest[13] = { 0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (c->days_star || !c->weekdays_star)
		return true;
	for (int m = 1; m <= 12; m++)
		for (int d = 1; d <= longest[m] && (c->months >> m & 1); d++)
			if (c->days >> d & 1)
				return true;
	return false;
}

int floe_cron_parse(floe_cron *out, const char *text, char *why, size_t why_size)
{
	const char *s = text;
	uint64_t bits[5];
	bool star[5];
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 5; i++) {
		while (*s == ' ' || *s == '\t')
			s++;
		const char *e = s;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		if (e == s) {
			snprintf(why, why_size, "has %d fields; cron needs five (minute hour day-of-month month day-of-week)", i);
			return -1;
		}
		if (field(&bits[i], &star[i], s, e, &FIELDS[i], why, why_size) < 0)
			return -1;
		s = e;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s) {
		snprintf(why, why_size, "has more than five fields");
		return -1;
	}
	out->minutes = bits[0];
	out->hours = (uint32_t)bits[1];
	out->days = (uint32_t)bits[2];
	out->months = (uint16_t)bits[3];
	out->weekdays = (uint8_t)((bits[4] | bits[4] >> 7) & 0x7f); /* 7 is Sunday */
	out->days_star = star[2];
	out->weekdays_star = star[4];
	if (!possible(out)) {
		snprintf(why, why_size, "matches no date (the day of month never occurs in the months given)");
		return -1;
	}
	return 0;
}

static bool day_matches(const floe_cron *c, const struct tm *tm)
{
	if (!(c->months >> (tm->tm_mon + 1) & 1))
		return false;
	bool dom = c->days >> tm->tm_mday & 1, dow = c->weekdays >> tm->tm_wday & 1;
	if (c->days_star || c->weekdays_star)
		return dom && dow;
	return dom || dow;
}

bool floe_cron_matches(const floe_cron *c, int64_t t)
{
	struct tm tm;
	time_t tt = (time_t)t;
	gmtime_r(&tt, &tm);
	return day_matches(c, &tm) && (c->hours >> tm.tm_hour & 1) && (c->minutes >> tm.tm_min & 1);
}

/* The first matching minute of the day of `tm` at or after hh:mm; -1 when none. */
static int first_minute(const floe_cron *c, int hour, int minute)
{
	for (int h = hour; h < 24; h++) {
		if (!(c->hours >> h & 1))
			continue;
		for (int m = h == hour ? minute : 0; m < 60; m++)
			if (c->minutes >> m & 1)
				return h * 60 + m;
	}
	return -1;
}

int64_t floe_cron_next(const floe_cron *c, int64_t after)
{
	int64_t t = (after - (after % 60 + 60) % 60) + 60; /* the next whole minute */
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	int64_t day = t - (tm.tm_hour * 3600 + tm.tm_min * 60);
	int hour = tm.tm_hour, minute = tm.tm_min;
	/* Leap days recur within 8 years (2096 → 2104): nine years of days bound the search. */
	for (int i = 0; i < 366 * 9; i++, day += 86400, hour = minute = 0) {
		tt = (time_t)day;
		gmtime_r(&tt, &tm);
		if (!day_matches(c, &tm))
			continue;
		int at = first_minute(c, hour, minute);
		if (at >= 0)
			return day + at * 60;
	}
	return -1;
}
