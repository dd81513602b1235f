/*
 * plan_int.h — what the files of the plan module share (not for other modules).
 */
#ifndef FLOE_PLAN_PLAN_INT_H
#define FLOE_PLAN_PLAN_INT_H

#include "plan/plan.h"

/*
 * The watermark decision for one table (watermark.c): every timestamp column as
 * a candidate with its proof or the reason it fails, and the chosen column —
 * `wanted` when [watermarks] names one (NULL: choose among the proven), NULL
 * when none is proven. *why explains the choice or the failure in one sentence.
 */
typedef struct floe_watermark_choice {
	floe_plan_candidate *candidates;
	size_t n_candidates;
	const char *column;   /* the proven column chosen, NULL: none */
	const char *why;      /* for the plan's reason */
} floe_watermark_choice;

int floe_plan_choose_watermark(floe_watermark_choice *out, floe_arena *arena,
			       const floe_pg_relation *rel, const char *wanted);

#endif
