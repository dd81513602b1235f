/*
 * watermark.c — the watermark an incremental load reached: the largest value of
 * the proven watermark column among the rows it read, kept in the snapshot
 * summary as `floe.watermark` in PostgreSQL's text form (UTC for timestamptz).
 *
 * Never past the source's clock at the load's snapshot: a row whose watermark is in
 * the future ('2100-01-01') is loaded, but holding the watermark there would make every
 * later load ask for changes after 2100 — and find none, even after that row is gone.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/civil.h"
#include "base/log.h"
#include "base/text.h"

#include <stdlib.h>

static bool is_utc(const bronze_load *l)
{
	return l->cols.copy[l->keys.watermark].vec == FLOE_VEC_TIMESTAMPTZ;
}

/* The source's clock at the snapshot in the watermark column's terms; INT64_MAX when unknown. */
static int64_t clock_of(const bronze_load *l)
{
	int64_t clock;
	const char *text = l->clock_text[is_utc(l) ? 0 : 1];
	return text && floe_civil_parse_micros(&clock, text) == 0 ? clock : INT64_MAX;
}

void bronze_watermark_track(bronze_load *l, const floe_vector *rows)
{
	if (l->keys.watermark < 0)
		return;
	const floe_vector *v = &rows[l->keys.watermark];
	int64_t clock = clock_of(l);
	for (size_t i = 0; i < v->len; i++) {
		if (!floe_vector_is_valid(v, i))
			continue;
		l->future_rows += v->v.i64[i] > clock;
		if (!l->has_watermark || v->v.i64[i] > l->watermark) {
			l->watermark = v->v.i64[i];
			l->has_watermark = true;
		}
	}
}

int64_t bronze_watermark_capped(bronze_load *l, int64_t value)
{
	int64_t clock = clock_of(l);
	return value > clock ? clock : value;
}

const char *bronze_watermark_future(bronze_load *l)
{
	if (l->keys.watermark < 0 || l->future_rows == 0)
		return NULL;
	const char *table = l->job->table->bronze, *column = l->job->table->columns[l->keys.watermark].name;
	char *t = floe_text_printable(table), *c = floe_text_printable(column);
	const char *clock = bronze_watermark_text(l, clock_of(l));
	const char *what = floe_arena_printf(l->job->arena,
					     "%lld row%s of %s ha%s \"%s\" past the source's clock (%s): loaded, but the "
					     "watermark stays at the clock",
					     (long long)l->future_rows, l->future_rows == 1 ? "" : "s", t ? t : "?",
					     l->future_rows == 1 ? "s" : "ve", c ? c : "?", clock);
	floe_log_warn("%s", what);
	bronze_load_note(l, "floe.watermark-future-rows", "%lld", (long long)l->future_rows);
	free(t);
	free(c);
	return what;
}

const char *bronze_watermark_text(bronze_load *l, int64_t value)
{
	char text[FLOE_CIVIL_TEXT_MAX];
	floe_civil_format_micros(text, value, is_utc(l));
	return floe_arena_strdup(l->job->arena, text);
}

int bronze_watermark_parse(bronze_load *l, int64_t *out, const char *text)
{
	return text ? floe_civil_parse_micros(out, text) : -1;
}
