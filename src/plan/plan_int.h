/*
 * plan_int.h — what the files of the plan module share (not for other modules).
 */
#ifndef FLOE_PLAN_PLAN_INT_H
#define FLOE_PLAN_PLAN_INT_H

#include "base/json.h"
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

/* libpg_query trees (proof.c): {"Kind": {...}} → the inner object and its kind; NULL: not one node. */
const floe_json_value *floe_plan_node_unwrap(const floe_json_value *node, floe_slice *kind);
/* A string member, NULL when absent or not a string. */
const char *floe_plan_node_str(const floe_json_value *obj, const char *key);
/* The last name of a list of {"String": {"sval": …}} (one, or two with pg_catalog first); NULL otherwise. */
const char *floe_plan_node_name(const floe_json_value *names);

/* check.c: what silver makes of one CHECK constraint of `rel` (see floe_plan_check). */
void floe_plan_check_classify(floe_plan_check *out, floe_arena *arena, const floe_pg_check *check,
			      const floe_pg_relation *rel);

#endif
