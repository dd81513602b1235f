/*
 * outcome.h — what a reconciliation concluded, on its own so the check after each
 * bronze load (bronze.h) speaks it without depending on the rest of reconcile.h.
 *
 * The text of each value lives in one name table (reconcile.c) and only at the
 * edges: the run ledger's reconcile_results.outcome, JSON and text output.
 */
#ifndef FLOE_RECONCILE_OUTCOME_H
#define FLOE_RECONCILE_OUTCOME_H

typedef enum floe_reconcile_outcome {
	FLOE_RECONCILE_VERIFIED = 0, /* both sides equal, and the planted control was caught */
	FLOE_RECONCILE_DIVERGED,     /* the sides differ */
	FLOE_RECONCILE_UNVERIFIED,   /* equal, but the comparison could not prove it can fail */
	FLOE_RECONCILE_FAILED,       /* the comparison did not complete (the error says why) */
	/*
	 * "verified (partial)": verified, with columns not compared. A result's state
	 * (floe_reconcile_state), never its outcome: the ledger stores verified and the
	 * columns left out.
	 */
	FLOE_RECONCILE_PARTIAL
} floe_reconcile_outcome;

/* "verified", "diverged", "unverified", "failed", "verified (partial)". */
const char *floe_reconcile_outcome_name(floe_reconcile_outcome outcome);
/* The outcome `text` names; -1 (FLOE_ERR_CONFIG) for any other text. */
int floe_reconcile_outcome_parse(floe_reconcile_outcome *out, const char *text);

#endif
