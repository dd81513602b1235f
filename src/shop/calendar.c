/*
 * calendar.c — civil dates without the C library's time zone machinery (the
 * shop's times are local to Brasília, written without a zone), and fast text
 * forms for COPY.
 */
#include "shop/shop_int.h"
#include "base/civil.h"

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
	floe_civil_from_days(days, &y, &m, &d);
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
