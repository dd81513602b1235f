/*
 * alert.h — alerts on state transitions (docs/alerts.md).
 *
 * Every table and layer's state (the status model) is compared with the state last
 * notified (the ledger's alert_state): a change into a failure state (failed, diverged,
 * unverified, catalog missing, paused, a task an orchestrator reports failed), between
 * failure states, or out of one (recovered) is queued once in the ledger's outbox, and
 * posted to the webhook whose URL is in the variable [alerts] webhook-env names, in the
 * [alerts] format: `slack` ({"text"}), `teams` ({"text"} plus an Adaptive Card) or
 * `pagerduty` (Events API v2: routing_key from the variable routing-key-env names,
 * event_action trigger/resolve, dedup_key per table and layer). A state that persists
 * posts nothing. A failed post is retried on later attempts with backoff (30 s, doubling,
 * at most 1 h); a transition is never lost and, once a 2xx answered, never sent again.
 * The URL and the routing key are secrets: never logged, stored or printed.
 * With the webhook variable unset, alerts are off: nothing is observed or queued.
 */
#ifndef FLOE_MONITOR_ALERT_H
#define FLOE_MONITOR_ALERT_H

#include "base/buf.h"
#include "config/config.h"
#include "monitor/status.h"

#include <stddef.h>
#include <stdint.h>

typedef struct floe_alert_report {
	size_t queued;      /* transitions found now */
	size_t sent;        /* posted and answered 2xx */
	size_t failed;      /* attempts that failed (kept, retried later) */
	size_t waiting;     /* not yet due for their next attempt */
	bool off;           /* the webhook variable is unset */
	char last_error[256];
} floe_alert_report;

/* Whether alerts are on: the webhook variable is set. */
bool floe_alert_enabled(const floe_config *config);

/* Queue the transitions of `status` (at `now`, unix seconds) and post what is due. */
int floe_alert_check(floe_alert_report *out, const floe_config *config, int64_t now);

/* After a run (floe run, floe serve): floe_alert_check and the OTLP push (otlp.h), errors logged, never returned. */
void floe_alert_after_run(const floe_config *config, int64_t now);

/* Record (and post) a failure an orchestrator reports: state "task failed" of table and layer. */
int floe_alert_task_failed(floe_alert_report *out, const floe_config *config, const char *table, const char *layer,
			   const char *run_id, const char *message, int64_t now);

/* Post one sample payload; *status gets the HTTP status. */
int floe_alert_send_test(long *status, const floe_config *config);

/* The payload of `e` in `format` ("slack", "teams", "pagerduty"); routing_key for pagerduty. */
void floe_alert_payload(floe_buf *out, const char *format, const char *project, const floe_state_alert *e,
			const char *routing_key);

#endif
