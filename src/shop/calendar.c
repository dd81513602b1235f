/*
 * calendar.c — civil dates without the C library's time zone machinery (the
 * shop's times are local to Brasília, written without a zone), and fast text
 * forms for COPY.
 *
 * days_from_civil / civil_from_days follow Howard Hinnant's "chrono-compatible
 * low-level date algorithms" (public domain).
 */
#include "shop/shop_int.h"

int64_t shop_days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void shop_civil_from_days(int64_t z, int *y, int *m, int *d)
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

int shop_weekday(int64_t days)
{
	/* 1970-01-01 was a Thursday (3 when Monday is 0). */
	int64_t w = (days + 3) % 7;
	return (int)(w < 0 ? w + 7 : w);
}

static void put2(char *p, int v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
}

size_t shop_format_date(char *out, int64_t days)
{
	int y, m, d;
	shop_civil_from_days(days, &y, &m, &d);
	put2(out, y / 100);
	put2(out + 2, y % 100);
	out[4] = '-';
	put2(out + 5, m);
	out[7] = '-';
	put2(out + 8, d);
	return 10;
}

size_t shop_format_timestamp(char *out, int64_t secs)
{
	int64_t days = secs >= 0 ? secs / SHOP_DAY : -((-secs + SHOP_DAY - 1) / SHOP_DAY);
	int64_t rem = secs - days * SHOP_DAY;
	shop_format_date(out, days);
	out[10] = ' ';
	put2(out + 11, (int)(rem / 3600));
	out[13] = ':';
	put2(out + 14, (int)(rem / 60 % 60));
	out[16] = ':';
	put2(out + 17, (int)(rem % 60));
	return 19;
}
