/*
 * civil.c — civil dates and timestamps (civil.h).
 *
 * days_from_civil / civil_from_days follow Howard Hinnant's "chrono-compatible
 * low-level date algorithms" (public domain).
 */
#include "base/civil.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define DAY_MICROS INT64_C(86400000000)

int64_t floe_days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void floe_civil_from_days(int64_t z, int *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

size_t floe_civil_format_days(char out[FLOE_CIVIL_TEXT_MAX], int64_t days)
{
	int y, m, d;
	floe_civil_from_days(days, &y, &m, &d);
	int n = snprintf(out, FLOE_CIVIL_TEXT_MAX, "%04d-%02d-%02d", y, m, d);
	return n < 0 ? 0 : (size_t)n;
}

size_t floe_civil_format_micros(char out[FLOE_CIVIL_TEXT_MAX], int64_t micros, int utc)
{
	int64_t days = micros / DAY_MICROS, rem = micros % DAY_MICROS;
	if (rem < 0) {
		rem += DAY_MICROS;
		days--;
	}
	size_t n = floe_civil_format_days(out, days);
	int64_t secs = rem / 1000000;
	int k = snprintf(out + n, FLOE_CIVIL_TEXT_MAX - n, " %02d:%02d:%02d.%06d%s", (int)(secs / 3600),
			 (int)(secs / 60 % 60), (int)(secs % 60), (int)(rem % 1000000), utc ? "+00" : "");
	return k < 0 ? n : n + (size_t)k;
}

/* Exactly `width` digits at *p into *out; advances *p. */
static bool digits(const char **p, int width, int *out)
{
	int v = 0;
	for (int i = 0; i < width; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	*p += width;
	*out = v;
	return true;
}

static bool date_part(const char **p, int64_t *days)
{
	int y, m, d;
	if (!digits(p, 4, &y) || *(*p)++ != '-' || !digits(p, 2, &m) || *(*p)++ != '-' || !digits(p, 2, &d))
		return false;
	static const int month_days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (m < 1 || m > 12 || d < 1 || d > month_days[m - 1])
		return false;
	*days = floe_days_from_civil(y, m, d);
	int yy, mm, dd; /* 29 February of a common year comes back as 1 March */
	floe_civil_from_days(*days, &yy, &mm, &dd);
	return mm == m;
}

int floe_civil_parse_days(int64_t *out, const char *text)
{
	const char *p = text;
	if (!date_part(&p, out) || *p)
		return -1;
	return 0;
}

int floe_civil_parse_micros(int64_t *out, const char *text)
{
	const char *p = text;
	int64_t days;
	int h, mi, s, frac = 0;
	if (!date_part(&p, &days) || (*p != ' ' && *p != 'T'))
		return -1;
	p++;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' || !digits(&p, 2, &s))
		return -1;
	if (h > 23 || mi > 59 || s > 59)
		return -1;
	if (*p == '.') {
		int n = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, n++)
			if (n < 6)
				frac = frac * 10 + (*p - '0');
			else
				return -1;
		if (n == 0)
			return -1;
		for (; n < 6; n++)
			frac *= 10;
	}
	if (strcmp(p, "+00") == 0 || strcmp(p, "Z") == 0 || strcmp(p, "+00:00") == 0)
		p += strlen(p);
	if (*p)
		return -1;
	*out = days * DAY_MICROS + ((int64_t)h * 3600 + mi * 60 + s) * 1000000 + frac;
	return 0;
}
