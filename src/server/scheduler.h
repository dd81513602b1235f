/*
 * scheduler.h — the jobs of [schedule] and the child processes that run them.
 *
 * A job is one table's bronze layer (`bronze = …`: one job per table of the deployed
 * plan), a table's every layer (`"public.orders" = …`, instead of its bronze job), or a
 * whole layer (`silver = …`, `gold = …`: one job each, so floe run builds silver in lineage
 * order, parents before children). Each runs as a child `floe run [--table T] [--layer L]
 * --json` (same code path, same ledger). A job never overlaps itself: a tick that finds
 * its previous run still going is skipped and counted. Two jobs touching one table never
 * run at once either: a job waits (its tick stays due) while another job of its table
 * runs, and a whole-layer job (silver, gold) waits for every other run to end, and they
 * for it. A failed run (any exit but 0 and 2, a configuration error that no retry
 * fixes) is retried up to `retries` times after rand(0, min(1 h, retry-delay·2^n))
 * seconds. The last tick of each job is kept in the ledger (schedule_ticks): ticks
 * missed while the server was down run once when it starts, not once per tick; a job
 * never run before starts at its next tick.
 */
#ifndef FLOE_SERVER_SCHEDULER_H
#define FLOE_SERVER_SCHEDULER_H

#include "config/config.h"
#include "monitor/metrics.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct floe_scheduler floe_scheduler;

/* Jobs of config's [schedule] over the deployed plan; `floe_bin` is the program the children run. */
int floe_scheduler_new(floe_scheduler **out, const floe_config *config, const char *floe_bin, int64_t now);
void floe_scheduler_free(floe_scheduler *s);

/* Start what is due at `now` (and retries whose time came). */
void floe_scheduler_tick(floe_scheduler *s, int64_t now);

/* Collect children that ended (never blocks); returns how many did. */
size_t floe_scheduler_reap(floe_scheduler *s, int64_t now);

/* How many children are running. */
size_t floe_scheduler_running(const floe_scheduler *s);

/* Send `sig` to every running child. */
void floe_scheduler_signal(floe_scheduler *s, int sig);

/* A copy of the counters per job for /metrics (owned by the caller: free(*out)). Thread-safe. */
size_t floe_scheduler_counters(floe_scheduler *s, floe_metrics_sched **out);

#endif
