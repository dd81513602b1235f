/*
 * watermark.c — which column, if any, proves that a row's timestamp moves on
 * every change, so an incremental load cannot miss an update.
 *
 * A column is proven when (1) a BEFORE UPDATE … FOR EACH ROW trigger — enabled,
 * without WHEN or UPDATE OF, present on every partition — runs a PL/pgSQL
 * function that sets it from the clock on every path (proof.h), or is contrib's
 * moddatetime(column); (2) no trigger firing after it may overwrite the column;
 * and (3) inserts get the clock too: a column default of now()/current_timestamp
 * or such a trigger that also fires BEFORE INSERT. Every failure is reported as
 * one sentence naming the table, the column and the trigger.
 */
#include "plan/plan_int.h"
#include "plan/proof.h"
#include "base/arena.h"

#include <string.h>

typedef struct trig_eval {
	const floe_pg_trigger *trigger;
	floe_proof_result proof;
	bool analysed;            /* PL/pgSQL, or moddatetime */
	const char *problem;      /* why it cannot prove on UPDATE; NULL when it fires right */
} trig_eval;

typedef struct candidate_work {
	floe_plan_candidate *out;
	int score;                /* how close to proven: for choosing which failure to report */
	int attnum;
} candidate_work;

static bool is_timestamp(const floe_pg_type *t)
{
	while (t->typtype == 'd' && t->base)
		t = t->base;
	return strcmp(t->schema, "pg_catalog") == 0 &&
	       (strcmp(t->name, "timestamptz") == 0 || strcmp(t->name, "timestamp") == 0);
}

static bool fires_enabled(const floe_pg_trigger *t)
{
	return t->enabled == 'O' || t->enabled == 'A';
}

/* Why `t` cannot set a row's column on UPDATE (NULL: it can). */
static const char *update_problem(floe_arena *arena, const floe_pg_relation *rel, const floe_pg_trigger *t)
{
	if (t->type & FLOE_PG_TRIGGER_INSTEAD)
		return "is an INSTEAD OF trigger";
	if (!(t->type & FLOE_PG_TRIGGER_ROW))
		return "is FOR EACH STATEMENT: only a FOR EACH ROW trigger can change the row";
	if (!(t->type & FLOE_PG_TRIGGER_BEFORE))
		return "fires AFTER: only a BEFORE trigger can change the row being written";
	if (!(t->type & FLOE_PG_TRIGGER_UPDATE))
		return "does not fire on UPDATE";
	if (t->enabled == 'D')
		return "is disabled";
	if (t->enabled == 'R')
		return "fires only in replica sessions (ENABLE REPLICA TRIGGER)";
	if (t->update_of)
		return "fires only on UPDATE OF some columns";
	if (t->has_when)
		return "has a WHEN condition";
	if (rel->kind == 'p' && t->n_leaves_enabled < t->n_leaves)
		return floe_arena_printf(arena, "is missing or disabled on %lld of %lld partitions",
					 t->n_leaves - t->n_leaves_enabled, t->n_leaves);
	return NULL;
}

static bool fires_before_insert(const floe_pg_relation *rel, const floe_pg_trigger *t)
{
	int need = FLOE_PG_TRIGGER_ROW | FLOE_PG_TRIGGER_BEFORE | FLOE_PG_TRIGGER_INSERT;
	return (t->type & need) == need && !(t->type & FLOE_PG_TRIGGER_INSTEAD) && fires_enabled(t) &&
	       !t->has_when && (rel->kind != 'p' || t->n_leaves_enabled == t->n_leaves);
}

static int eval_trigger(trig_eval *e, floe_arena *arena, const floe_pg_relation *rel,
			const floe_pg_trigger *t, const char *column)
{
	e->trigger = t;
	e->proof = (floe_proof_result){ FLOE_PROOF_UNTOUCHED, 0, NULL };
	e->analysed = false;
	e->problem = update_problem(arena, rel, t);
	if (strcmp(t->language, "plpgsql") == 0 && t->definition) {
		e->analysed = true;
		return floe_proof_analyze_source(&e->proof, arena, t->definition, column);
	}
	if (strcmp(t->language, "c") == 0 && strcmp(t->prosrc, "moddatetime") == 0) {
		e->analysed = true; /* contrib: sets its first argument to the current timestamp */
		if (t->first_arg && strcmp(t->first_arg, column) == 0)
			e->proof.verdict = FLOE_PROOF_PROVEN;
	}
	return 0;
}

/* The failure to report when no trigger proves the column, and how close it came. */
static const char *no_proof_reason(int *score, floe_arena *arena, const char *label,
				   const trig_eval *ev, size_t n)
{
	const trig_eval *unread = NULL;
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < n; i++) {
			const trig_eval *e = &ev[i];
			const char *tn = e->trigger->name, *fn = e->trigger->function;
			if (pass == 0 && e->proof.verdict == FLOE_PROOF_PROVEN && e->problem) {
				*score = 2;
				return floe_arena_printf(arena, "%s is set by trigger %s, but that trigger %s",
							 label, tn, e->problem);
			}
			if (pass == 1 && e->proof.verdict == FLOE_PROOF_FAILED && !e->problem) {
				*score = 2;
				return floe_arena_printf(arena, "%s is not proven: trigger %s runs %s, which %s",
							 label, tn, fn, e->proof.why);
			}
			if (pass == 2 && e->proof.verdict == FLOE_PROOF_FAILED) {
				*score = 1;
				return floe_arena_printf(arena, "%s is not proven: trigger %s %s, and its function "
								"%s %s", label, tn, e->problem, fn, e->proof.why);
			}
			if (!e->analysed && !e->problem)
				unread = e;
		}
	}
	*score = 0;
	if (unread)
		return floe_arena_printf(arena, "%s has no BEFORE UPDATE trigger floe can read setting it "
						"(trigger %s runs %s, written in %s)", label, unread->trigger->name,
					 unread->trigger->function, unread->trigger->language);
	return floe_arena_printf(arena, "%s has no BEFORE UPDATE trigger setting it", label);
}

/* A trigger firing after `p` on UPDATE that may overwrite the column, as a reason; NULL: none. */
static const char *overwritten(floe_arena *arena, const char *label, const trig_eval *p,
			       const trig_eval *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const trig_eval *q = &ev[i];
		if (q->problem || strcmp(q->trigger->name, p->trigger->name) <= 0)
			continue; /* BEFORE ROW triggers fire in name order */
		if (q->proof.verdict == FLOE_PROOF_FAILED)
			return floe_arena_printf(arena, "%s is set by trigger %s, but trigger %s fires after it "
							"and its function %s %s", label, p->trigger->name,
						 q->trigger->name, q->trigger->function, q->proof.why);
		if (!q->analysed)
			return floe_arena_printf(arena, "%s is set by trigger %s, but trigger %s fires after it "
							"and runs %s (written in %s), which floe cannot check",
						 label, p->trigger->name, q->trigger->name,
						 q->trigger->function, q->trigger->language);
	}
	return NULL;
}

/* How inserts get the clock: "its default now()", "trigger t", or NULL. */
static const char *insert_side(floe_arena *arena, const floe_pg_relation *rel, const floe_pg_column *col,
			       const trig_eval *ev, size_t n)
{
	if (col->default_expr && floe_proof_is_clock_expr(col->default_expr))
		return floe_arena_printf(arena, "its default %s", col->default_expr);
	for (size_t i = 0; i < n; i++)
		if (ev[i].proof.verdict == FLOE_PROOF_PROVEN && fires_before_insert(rel, ev[i].trigger))
			return floe_arena_printf(arena, "trigger %s", ev[i].trigger->name);
	return NULL;
}

static int prove_column(candidate_work *cw, floe_arena *arena, const floe_pg_relation *rel,
			const floe_pg_column *col)
{
	const char *label = floe_arena_printf(arena, "%s.%s", rel->name, col->name);
	trig_eval *ev = floe_arena_alloc(arena, sizeof(*ev) * (rel->n_triggers + 1));
	const trig_eval *proving = NULL;
	for (size_t i = 0; i < rel->n_triggers; i++) {
		if (eval_trigger(&ev[i], arena, rel, &rel->triggers[i], col->name) < 0)
			return -1;
		if (!proving && ev[i].proof.verdict == FLOE_PROOF_PROVEN && !ev[i].problem)
			proving = &ev[i];
	}
	cw->out->column = col->name;
	cw->attnum = col->attnum;
	if (!proving) {
		cw->out->reason = no_proof_reason(&cw->score, arena, label, ev, rel->n_triggers);
		return 0;
	}
	cw->score = 3;
	const char *later = overwritten(arena, label, proving, ev, rel->n_triggers);
	const char *insert = insert_side(arena, rel, col, ev, rel->n_triggers);
	if (later) {
		cw->out->reason = later;
	} else if (!insert) {
		cw->out->reason = floe_arena_printf(arena, "%s is set on every update by trigger %s, but has no "
							   "insert default of now() or current_timestamp (and no "
							   "BEFORE INSERT trigger sets it)", label, proving->trigger->name);
	} else {
		cw->out->proven = true;
		cw->out->reason = floe_arena_printf(arena, "%s is set from the clock on every update by trigger %s "
							   "(BEFORE UPDATE FOR EACH ROW, %s) and on insert by %s",
						    label, proving->trigger->name, proving->trigger->function, insert);
	}
	return 0;
}

static bool looks_like_update_time(const char *name)
{
	return strstr(name, "updated") || strstr(name, "modified") || strstr(name, "changed");
}

/* The failing candidate whose reason says the most: closest to proven, then by its name. */
static const candidate_work *best_failure(const candidate_work *cw, size_t n)
{
	const candidate_work *best = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!best || cw[i].score > best->score ||
		    (cw[i].score == best->score && looks_like_update_time(cw[i].out->column) &&
		     !looks_like_update_time(best->out->column)))
			best = &cw[i];
	}
	return best;
}

static const floe_pg_column *find_column(const floe_pg_relation *rel, const char *name)
{
	for (size_t i = 0; i < rel->n_columns; i++)
		if (strcmp(rel->columns[i].name, name) == 0)
			return &rel->columns[i];
	return NULL;
}

static void choose_wanted(floe_watermark_choice *out, floe_arena *arena, const floe_pg_relation *rel,
			  const char *wanted)
{
	const floe_pg_column *col = find_column(rel, wanted);
	if (!col) {
		out->why = floe_arena_printf(arena, "[watermarks] names %s.%s, which does not exist", rel->name, wanted);
		return;
	}
	if (!is_timestamp(col->type)) {
		out->why = floe_arena_printf(arena, "[watermarks] names %s.%s, which is %s: a watermark must be "
						    "timestamp or timestamptz", rel->name, wanted, col->type_text);
		return;
	}
	const char *other = NULL;
	for (size_t i = 0; i < out->n_candidates; i++) {
		const floe_plan_candidate *c = &out->candidates[i];
		if (strcmp(c->column, wanted) != 0) {
			other = !other && c->proven ? c->column : other;
			continue;
		}
		out->why = floe_arena_printf(arena, "[watermarks] names %s: %s", wanted, c->reason);
		if (c->proven)
			out->column = c->column;
	}
	if (!out->column && other)
		out->why = floe_arena_printf(arena, "%s; %s is proven (name it in [watermarks], or remove the entry)",
					     out->why, other);
}

static void choose_any(floe_watermark_choice *out, floe_arena *arena, const floe_pg_relation *rel,
		       const candidate_work *cw)
{
	floe_buf others = FLOE_BUF_INIT;
	for (size_t i = 0; i < out->n_candidates; i++) {
		if (!out->candidates[i].proven)
			continue;
		if (!out->column) {
			out->column = out->candidates[i].column;
			out->why = out->candidates[i].reason;
		} else {
			floe_buf_printf(&others, "%s%s", others.len ? ", " : "", out->candidates[i].column);
		}
	}
	if (others.len)
		out->why = floe_arena_printf(arena, "%s; also proven: %s (name one in [watermarks] to choose)",
					     out->why, floe_buf_cstr(&others));
	floe_buf_free(&others);
	if (!out->column && out->n_candidates)
		out->why = best_failure(cw, out->n_candidates)->out->reason;
	else if (!out->column)
		out->why = floe_arena_printf(arena, "%s has no timestamp column to serve as a watermark", rel->name);
}

int floe_plan_choose_watermark(floe_watermark_choice *out, floe_arena *arena,
			       const floe_pg_relation *rel, const char *wanted)
{
	*out = (floe_watermark_choice){ 0 };
	out->candidates = floe_arena_alloc(arena, sizeof(*out->candidates) * (rel->n_columns + 1));
	candidate_work *cw = floe_arena_alloc(arena, sizeof(*cw) * (rel->n_columns + 1));
	for (size_t i = 0; i < rel->n_columns; i++) {
		if (!is_timestamp(rel->columns[i].type))
			continue;
		cw[out->n_candidates].out = &out->candidates[out->n_candidates];
		if (prove_column(&cw[out->n_candidates], arena, rel, &rel->columns[i]) < 0)
			return -1;
		out->n_candidates++;
	}
	if (wanted)
		choose_wanted(out, arena, rel, wanted);
	else
		choose_any(out, arena, rel, cw);
	return 0;
}
