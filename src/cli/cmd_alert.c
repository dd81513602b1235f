/*
 * cmd_alert.c — `floe alert [--test | --task-failed --table T --layer L [--run-id ID] [--message TEXT]]`.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/text.h"
#include "monitor/alert.h"
#include "schedule/clock.h"

#include <string.h>

static const floe_cli_option options[] = {
	{ "test", 0, NULL, "post one sample payload through the configured webhook" },
	{ "task-failed", 0, NULL, "record (and post) a failure an outside orchestrator reports" },
	{ "table", 't', "TABLE", "--task-failed: the table (e.g. bronze.orders)" },
	{ "layer", 0, "LAYER", "--task-failed: bronze, silver or gold" },
	{ "run-id", 0, "ID", "--task-failed: the orchestrator's run id" },
	{ "message", 'm', "TEXT", "--task-failed: what failed" },
	{ NULL, 0, NULL, NULL },
};

static void report(const floe_alert_report *r)
{
	if (r->off) {
		floe_cli_printf("alerts are off: the webhook variable is not set ([alerts] webhook-env)\n");
		return;
	}
	floe_cli_printf("%zu new transition%s, %zu sent, %zu failed, %zu waiting for a later attempt\n", r->queued,
			r->queued == 1 ? "" : "s", r->sent, r->failed, r->waiting);
	if (r->failed)
		floe_cli_printf("last error: %s (kept; retried by the next floe alert, floe run or floe serve)\n",
				r->last_error);
}

static int task_failed(floe_cli_ctx *ctx, const floe_config *config, floe_alert_report *rep)
{
	const char *table = floe_cli_value(ctx, "table"), *layer = floe_cli_value(ctx, "layer");
	if (!table || !layer) {
		floe_error_set(FLOE_ERR_USAGE, "--task-failed needs --table and --layer");
		floe_error_hint("E.g. `floe alert --task-failed --table bronze.orders --layer bronze --message \"...\"`.");
		return -1;
	}
	return floe_alert_task_failed(rep, config, table, layer, floe_cli_value(ctx, "run-id"),
				      floe_cli_value(ctx, "message"), floe_schedule_now());
}

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_alert_report rep = { 0 };
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "test")) {
		long status = 0;
		if (floe_alert_send_test(&status, config) < 0)
			goto cleanup;
		floe_cli_printf("sent a test alert (%s format): the webhook answered HTTP %ld\n", config->alerts.format, status);
		rc = 0;
		goto cleanup;
	}
	if (floe_cli_flag(ctx, "task-failed") ? task_failed(ctx, config, &rep) < 0
					      : floe_alert_check(&rep, config, floe_schedule_now()) < 0)
		goto cleanup;
	report(&rep);
	rc = rep.failed ? FLOE_EXIT_UNREACHABLE : 0;
	if (floe_cli_flag(ctx, "task-failed"))
		rc = 0; /* recorded: a post that failed is retried later, never lost */
cleanup:
	floe_config_free(config);
	return rc;
}

const floe_cli_command floe_cmd_alert = {
	.name = "alert",
	.summary = "post state transitions to the alert webhook (Slack, Teams, PagerDuty)",
	.usage = "alert [--test | --task-failed --table T --layer L [--run-id ID] [--message TEXT]]",
	.description =
		"Without options: compares every table and layer's state with the one last notified,\n"
		"queues each transition (into or out of a failure: failed, diverged, unverified, catalog\n"
		"missing, …; recovered) once in the ledger's outbox, and posts what is due to the webhook\n"
		"in the variable [alerts] webhook-env names, as [alerts] format says (slack, teams,\n"
		"pagerduty). floe run and floe serve do the same after every run. A post that fails is\n"
		"kept and retried later with backoff; exit 3 when one failed now.\n"
		"--test posts one sample payload. --task-failed records a failure an orchestrator reports\n"
		"(Airflow's on_failure_callback) and posts it; exit 0 once recorded. See docs/alerts.md.",
	.examples = "  FLOE_ALERT_WEBHOOK=https://hooks.example/… floe alert --test\n"
		    "  floe alert --task-failed --table bronze.orders --layer bronze --run-id manual__1 --message \"task timed out\"\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
