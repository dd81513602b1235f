/*
 * cli.h — what the command files share: the option parser, help rendering,
 * the invocation context and output helpers. Commands live in cmd_<verb>.c and
 * call only library headers; they return a process exit code (floe_exit_code).
 */
#ifndef FLOE_CLI_CLI_H
#define FLOE_CLI_CLI_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>

#define FLOE_CLI_MAX_OPTIONS 32
#define FLOE_CLI_MAX_POSITIONAL 16
#define FLOE_CLI_MAX_GIVEN 64

typedef struct floe_cli_option {
	const char *name;   /* long name without dashes */
	char short_name;    /* 0: none */
	const char *arg;    /* metavariable ("DIR"); NULL for a flag */
	const char *help;
} floe_cli_option;

typedef struct floe_cli_ctx floe_cli_ctx;

typedef struct floe_cli_command {
	const char *name;
	const char *summary;     /* one line, for `floe --help` */
	const char *usage;       /* after "floe " */
	const char *description; /* paragraphs */
	const char *examples;    /* lines */
	const floe_cli_option *options; /* terminated by a zeroed entry */
	int min_positional, max_positional;
	int (*run)(floe_cli_ctx *ctx);
	/*
	 * A command made of actions (`floe shop generate`): each is a command of
	 * its own named "<parent> <action>", NULL-terminated. The parent's run is
	 * not called; its help lists the actions.
	 */
	const struct floe_cli_command *const *subcommands;
} floe_cli_command;

struct floe_cli_ctx {
	const floe_cli_command *command;
	const char *values[FLOE_CLI_MAX_OPTIONS]; /* per option of the command (the last given); flags: "" */
	struct {
		int option;
		const char *value;
	} given[FLOE_CLI_MAX_GIVEN];              /* every option value, in order (repeatable options) */
	int n_given;
	const char *positional[FLOE_CLI_MAX_POSITIONAL];
	int n_positional;
	/* common options */
	const char *project_dir; /* -C DIR, default "." */
	const char *config_path; /* --config FILE, default DIR/floe.toml */
	int verbose;
	bool log_json;
};

/* Parse argv (after the verb). On --help prints help and returns 1; on error -1. */
int floe_cli_parse(floe_cli_ctx *ctx, const floe_cli_command *cmd, int argc, char **argv);

const char *floe_cli_value(const floe_cli_ctx *ctx, const char *name);
bool floe_cli_flag(const floe_cli_ctx *ctx, const char *name);

/*
 * Every value given for a repeatable option, split at commas too
 * (`--table a --table b,c`), in `out` (at most `max`). Returns how many.
 */
size_t floe_cli_values(const floe_cli_ctx *ctx, const char *name, char **out, size_t max);

void floe_cli_print_help(const floe_cli_command *cmd);

/*
 * An option argument as an error may show it: its name without any value (`--password=x` →
 * `--password`, `-pSECRET` → `-p…`), escaped for a terminal. The caller frees the result.
 */
char *floe_cli_option_name(const char *arg);

/* The action of `parent` named `word` (the last word of its name), or NULL. */
const floe_cli_command *floe_cli_subcommand(const floe_cli_command *parent, const char *word);

/* Load the project's floe.toml (per -C / --config). */
int floe_cli_load_config(floe_config **out, const floe_cli_ctx *ctx);
/* Route an S3 warehouse for the process (cli/warehouse.c); called by floe_cli_load_config. */
int floe_cli_route_warehouse(const floe_config *config);

/* Write to stdout with registered secrets scrubbed. */
void floe_cli_out(const floe_buf *text);
/* `floe run`'s Kafka topics (run_topics.c): a line each into `out`; the exit code they call for. */
typedef struct floe_config floe_config;
int floe_cli_run_topics(floe_buf *out, const floe_config *config, const char *const *tables, size_t n_tables,
			const char *run_id, bool json);
/* Whether every name in `tables` (`--table`) is a Kafka topic's table (and there is one). */
bool floe_cli_topic_tables_only(const floe_config *config, const char *const *tables, size_t n);
/* `value` (JSON) as member `member` of the JSON object document `doc` (before its closing brace). */
void floe_cli_json_member_join(floe_buf *doc, const char *member, const floe_buf *value);
/* `floe status`'s Kafka topics (status_topics.c): lag per partition and freshness; 3 when brokers were unreachable. */
int floe_cli_status_topics(floe_buf *out, const floe_config *config, bool json);
void floe_cli_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Commands (cmd_<verb>.c). */
extern const floe_cli_command floe_cmd_init;
extern const floe_cli_command floe_cmd_doctor;
extern const floe_cli_command floe_cmd_stack;
extern const floe_cli_command floe_cmd_plan;
extern const floe_cli_command floe_cmd_generate;
extern const floe_cli_command floe_cmd_run;
extern const floe_cli_command floe_cmd_reconcile;
extern const floe_cli_command floe_cmd_status;
extern const floe_cli_command floe_cmd_check;
extern const floe_cli_command floe_cmd_query;
extern const floe_cli_command floe_cmd_publish;
extern const floe_cli_command floe_cmd_shop;
extern const floe_cli_command floe_cmd_shop_stream;
extern const floe_cli_command floe_cmd_catalog;
extern const floe_cli_command floe_cmd_sync;
extern const floe_cli_command floe_cmd_gold;
extern const floe_cli_command floe_cmd_serve;
extern const floe_cli_command floe_cmd_alert;
extern const floe_cli_command floe_cmd_pentaho;
extern const floe_cli_command floe_cmd_mcp;
extern const floe_cli_command floe_cmd_quickstart;
extern const floe_cli_command floe_cmd_compact;
extern const floe_cli_command floe_cmd_expire;

#endif
