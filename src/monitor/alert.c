/*
 * alert.c — transitions into the outbox, the outbox to the webhook (see alert.h).
 */
#include "monitor/alert.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/log.h"
#include "base/secret.h"
#include "monitor/otlp.h"
#include "net/http_client.h"
#include "state/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POST_TIMEOUT 10
#define MAX_BACKOFF 3600

/* States that say nothing about health (in progress, not yet, on purpose): never alerted on. */
static bool neutral(const char *state)
{
	static const char *const names[] = { "never loaded", "never built", "loading", "skipped",
					     "interrupted", "refused", NULL };
	for (int i = 0; names[i]; i++)
		if (strcmp(state, names[i]) == 0)
			return true;
	return false;
}

static bool good(const char *state)
{
	static const char *const names[] = { "loaded", "verified", "verified (partial)", "built", "unchanged", NULL };
	for (int i = 0; names[i]; i++)
		if (strcmp(state, names[i]) == 0)
			return true;
	return false;
}

bool floe_alert_enabled(const floe_config *config)
{
	const char *url = getenv(config->alerts.webhook_env);
	return url && url[0];
}

static const char *key_of(floe_arena *a, const floe_config *c, const char *table, const char *layer)
{
	return floe_arena_printf(a, "floe/%s/%s/%s", c->project_name, table, layer);
}

/* Queue each row's transition; returns how many were queued, -1 on a ledger error. */
static int observe(floe_state *st, floe_arena *a, const floe_config *c, const floe_status *status, const char *now)
{
	int queued = 0;
	for (size_t i = 0; i < status->n_rows; i++) {
		const floe_status_row *r = &status->rows[i];
		const char *state = floe_status_state_name(r);
		if (neutral(state))
			continue;
		floe_state_alert e = { .key = key_of(a, c, r->table, r->layer), .table_name = r->table, .layer = r->layer,
				       .to_state = state, .bad = !good(state), .facts = r->facts, .cause = r->cause,
				       .run_id = r->last_run, .created_at = now, .arena = a };
		bool q = false;
		if (floe_state_alert_observe(st, &e, false, &q) < 0)
			return -1;
		queued += q;
	}
	return queued;
}

static void put_facts_text(floe_buf *t, const floe_state_alert *e)
{
	if (e->facts && e->facts[0])
		floe_buf_printf(t, "\nfacts: %s", e->facts);
	if (e->cause && e->cause[0])
		floe_buf_printf(t, "\nprobable cause: %s", e->cause);
	if (e->run_id)
		floe_buf_printf(t, "\nrun: %s", e->run_id);
}

static void summary(floe_buf *t, const char *project, const floe_state_alert *e)
{
	if (e->bad)
		floe_buf_printf(t, "floe %s: %s (%s) is %s", project, e->table_name, e->layer, e->to_state);
	else
		floe_buf_printf(t, "floe %s: %s (%s) recovered: %s", project, e->table_name, e->layer, e->to_state);
	if (e->from_state)
		floe_buf_printf(t, " (was %s)", e->from_state);
}

static void teams_card(floe_buf *out, const char *title, const char *text)
{
	floe_buf_puts(out, ",\"attachments\":[{\"contentType\":\"application/vnd.microsoft.card.adaptive\","
			   "\"content\":{\"type\":\"AdaptiveCard\",\"version\":\"1.4\","
			   "\"$schema\":\"http://adaptivecards.io/schemas/adaptive-card.json\",\"body\":[");
	floe_buf_puts(out, "{\"type\":\"TextBlock\",\"weight\":\"Bolder\",\"wrap\":true");
	floe_json_put_member(out, "text", title);
	floe_buf_puts(out, "},{\"type\":\"TextBlock\",\"wrap\":true");
	floe_json_put_member(out, "text", text);
	floe_buf_puts(out, "}]}}]");
}

static void pagerduty(floe_buf *out, const char *project, const floe_state_alert *e, const char *title,
		      const char *routing_key)
{
	floe_buf_puts(out, "{");
	floe_buf_puts(out, "\"routing_key\":");
	floe_json_put_cstr(out, routing_key ? routing_key : "");
	floe_json_put_member(out, "event_action", e->bad ? "trigger" : "resolve");
	floe_json_put_member(out, "dedup_key", e->key);
	if (e->bad) {
		floe_buf_puts(out, ",\"payload\":{\"summary\":");
		floe_json_put_string(out, title, strlen(title) > 1024 ? 1024 : strlen(title));
		floe_json_put_member(out, "source", project);
		floe_json_put_member(out, "severity", strcmp(e->to_state, "catalog missing") == 0 ? "critical" : "error");
		floe_json_put_member(out, "component", e->table_name);
		floe_json_put_member(out, "group", e->layer);
		floe_json_put_member(out, "class", e->to_state);
		floe_buf_puts(out, ",\"custom_details\":{");
		floe_buf_puts(out, "\"state\":");
		floe_json_put_cstr(out, e->to_state);
		floe_json_put_member(out, "was", e->from_state);
		floe_json_put_member(out, "facts", e->facts);
		floe_json_put_member(out, "probable_cause", e->cause);
		floe_json_put_member(out, "run_id", e->run_id);
		floe_buf_puts(out, "}}");
	}
	floe_buf_puts(out, ",\"client\":\"floe\"}");
}

void floe_alert_payload(floe_buf *out, const char *format, const char *project, const floe_state_alert *e,
			const char *routing_key)
{
	floe_buf title = FLOE_BUF_INIT, text = FLOE_BUF_INIT;
	summary(&title, project, e);
	floe_buf_puts(&text, floe_buf_cstr(&title));
	put_facts_text(&text, e);
	if (strcmp(format, "pagerduty") == 0) {
		pagerduty(out, project, e, floe_buf_cstr(&title), routing_key);
	} else {
		floe_buf_puts(out, "{\"text\":");
		floe_json_put_cstr(out, floe_buf_cstr(&text));
		if (strcmp(format, "teams") == 0) {
			floe_json_put_member(out, "type", "message");
			teams_card(out, floe_buf_cstr(&title), floe_buf_cstr(&text));
		}
		floe_buf_putc(out, '}');
	}
	floe_buf_free(&title);
	floe_buf_free(&text);
}

/* The secrets of a post: the URL, and for pagerduty the routing key (registered for scrubbing). */
static int secrets_of(const floe_config *c, const char **url, const char **routing_key)
{
	*url = getenv(c->alerts.webhook_env);
	*routing_key = NULL;
	if (!*url || !(*url)[0]) {
		floe_error_set(FLOE_ERR_CONFIG, "the variable %s holding the alert webhook URL is not set",
			       c->alerts.webhook_env);
		floe_error_hint("Export %s with the webhook URL ([alerts] webhook-env names the variable).",
				c->alerts.webhook_env);
		return -1;
	}
	floe_secret_register(*url);
	if (strcmp(c->alerts.format, "pagerduty") != 0)
		return 0;
	*routing_key = getenv(c->alerts.routing_key_env);
	if (!*routing_key || !(*routing_key)[0]) {
		floe_error_set(FLOE_ERR_CONFIG, "the variable %s holding the PagerDuty routing key is not set",
			       c->alerts.routing_key_env);
		floe_error_hint("Export %s with the integration's routing key ([alerts] routing-key-env names it).",
				c->alerts.routing_key_env);
		return -1;
	}
	floe_secret_register(*routing_key);
	return 0;
}

/* POST one payload; 0 on a 2xx, else -1 with why in `why` (status and the answer's first line, no URL). */
static int post(const floe_config *c, const char *payload, long *status, char *why, size_t why_size)
{
	const char *url = NULL, *key = NULL;
	floe_http_post_result res = { 0 };
	int error = -1;
	*status = 0;
	if (secrets_of(c, &url, &key) < 0 ||
	    floe_http_post(&res, url, "application/json", payload, strlen(payload), POST_TIMEOUT) < 0) {
		const floe_error *e = floe_error_last();
		snprintf(why, why_size, "%s", e && e->message ? e->message : "the post failed");
		floe_error_clear();
		goto cleanup;
	}
	*status = res.status;
	if (res.status >= 200 && res.status < 300) {
		error = 0;
		goto cleanup;
	}
	const char *body = floe_buf_cstr(&res.body);
	snprintf(why, why_size, "the webhook answered HTTP %ld: %.120s", res.status, body);
	for (char *p = why; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
cleanup:
	floe_buf_free(&res.body);
	return error;
}

static int64_t backoff(int64_t attempts)
{
	int64_t d = 30;
	for (int64_t i = 1; i < attempts && d < MAX_BACKOFF; i++)
		d *= 2;
	return d < MAX_BACKOFF ? d : MAX_BACKOFF;
}

/* Post each due transition, claimed for one attempt; stops at the first failure (the rest wait). */
static int deliver(floe_alert_report *out, floe_state *st, floe_arena *a, const floe_config *c, int64_t now)
{
	floe_state_alert *due = NULL;
	size_t n = 0;
	if (floe_state_alert_pending(st, a, now, &due, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		bool claimed = false;
		if (out->failed) {
			out->waiting++;
			continue;
		}
		if (floe_state_alert_claim(st, due[i].id, now, now + backoff(due[i].attempts + 1), &claimed) < 0)
			return -1;
		if (!claimed)
			continue;
		floe_buf payload = FLOE_BUF_INIT;
		const char *url = NULL, *key = NULL;
		if (secrets_of(c, &url, &key) < 0)
			floe_error_clear();
		floe_alert_payload(&payload, c->alerts.format, c->project_name, &due[i], key);
		long status = 0;
		char sent_at[32];
		floe_state_now(sent_at, sizeof(sent_at));
		bool ok = post(c, floe_buf_cstr(&payload), &status, out->last_error, sizeof(out->last_error)) == 0;
		floe_buf_free(&payload);
		if (floe_state_alert_result(st, due[i].id, ok ? sent_at : NULL, ok ? NULL : out->last_error) < 0)
			return -1;
		out->sent += ok;
		out->failed += !ok;
	}
	return 0;
}

int floe_alert_check(floe_alert_report *out, const floe_config *config, int64_t now)
{
	floe_status status = { 0 };
	floe_state *st = NULL;
	floe_arena *a = floe_arena_new();
	char stamp[32];
	int error = -1;
	memset(out, 0, sizeof(*out));
	if (!floe_alert_enabled(config)) {
		out->off = true;
		error = 0;
		goto cleanup;
	}
	floe_state_now(stamp, sizeof(stamp));
	if (floe_status_build(&status, config) < 0 || floe_state_open(&st, config->project_dir) < 0)
		goto cleanup;
	int q = observe(st, a, config, &status, stamp);
	if (q < 0 || deliver(out, st, a, config, now) < 0)
		goto cleanup;
	out->queued = (size_t)q;
	error = 0;
cleanup:
	floe_state_close(st);
	floe_status_free(&status);
	floe_arena_free(a);
	return error;
}

void floe_alert_after_run(const floe_config *config, int64_t now)
{
	floe_alert_report rep;
	if (floe_alert_check(&rep, config, now) < 0) {
		const floe_error *e = floe_error_last();
		floe_log_warn("alerts: %s", e && e->message ? e->message : "the check failed");
		floe_error_clear();
	} else if (rep.failed) {
		floe_log_warn("alerts: a webhook post failed (%s); the transition is kept and retried later",
			      rep.last_error);
	}
	if (floe_otlp_push(config) < 0) {
		const floe_error *e = floe_error_last();
		floe_log_warn("otlp: %s", e && e->message ? e->message : "the push failed");
		floe_error_clear();
	}
}

int floe_alert_task_failed(floe_alert_report *out, const floe_config *config, const char *table, const char *layer,
			   const char *run_id, const char *message, int64_t now)
{
	floe_state *st = NULL;
	floe_arena *a = floe_arena_new();
	char stamp[32];
	int error = -1;
	memset(out, 0, sizeof(*out));
	floe_state_now(stamp, sizeof(stamp));
	floe_state_alert e = { .key = key_of(a, config, table, layer), .table_name = table, .layer = layer,
			       .to_state = "task failed", .bad = true, .facts = message,
			       .cause = "the orchestrator reported the task failed", .run_id = run_id,
			       .created_at = stamp, .arena = a };
	bool queued = false;
	if (floe_state_open(&st, config->project_dir) < 0 || floe_state_alert_observe(st, &e, true, &queued) < 0)
		goto cleanup;
	out->queued = queued;
	out->off = !floe_alert_enabled(config);
	if (!out->off && deliver(out, st, a, config, now) < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_state_close(st);
	floe_arena_free(a);
	return error;
}

int floe_alert_send_test(long *status, const floe_config *config)
{
	floe_buf payload = FLOE_BUF_INIT;
	const char *url = NULL, *key = NULL;
	char why[256] = "";
	int error = -1;
	if (secrets_of(config, &url, &key) < 0)
		goto cleanup;
	floe_state_alert e = { .key = "floe/test/alert", .table_name = "floe.test", .layer = "test",
			       .to_state = "a test alert", .bad = true,
			       .facts = "sent by `floe alert --test`: the webhook works", .cause = "none: this is a test" };
	floe_alert_payload(&payload, config->alerts.format, config->project_name, &e, key);
	if (post(config, floe_buf_cstr(&payload), status, why, sizeof(why)) < 0) {
		floe_error_set(*status ? FLOE_ERR_CHECK : FLOE_ERR_UNREACHABLE, "the test alert was not accepted: %s", why);
		floe_error_hint("Check the URL in %s and that the webhook is enabled.", config->alerts.webhook_env);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&payload);
	return error;
}
