/*
 * watermark.c — the watermark an incremental load reached: the largest value of
 * the proven watermark column among the rows it read, kept in the snapshot
 * summary as `floe.watermark` in PostgreSQL's text form (UTC for timestamptz).
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/civil.h"

void bronze_watermark_track(bronze_load *l, const floe_vector *rows)
{
	if (l->keys.watermark < 0)
		return;
	const floe_vector *v = &rows[l->keys.watermark];
	for (size_t i = 0; i < v->len; i++)
		if (floe_vector_is_valid(v, i) && (!l->has_watermark || v->v.i64[i] > l->watermark)) {
			l->watermark = v->v.i64[i];
			l->has_watermark = true;
		}
}

const char *bronze_watermark_text(bronze_load *l, int64_t value)
{
	char text[FLOE_CIVIL_TEXT_MAX];
	bool utc = l->cols.copy[l->keys.watermark].vec == FLOE_VEC_TIMESTAMPTZ;
	floe_civil_format_micros(text, value, utc);
	return floe_arena_strdup(l->job->arena, text);
}

int bronze_watermark_parse(bronze_load *l, int64_t *out, const char *text)
{
	return text ? floe_civil_parse_micros(out, text) : -1;
}
