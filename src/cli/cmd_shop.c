/*
 * cmd_shop.c — `floe shop generate | tick | evolve | checksum`: the Olist-shaped
 * source (src/shop) against a PostgreSQL the user can create objects in.
 *
 * Where it connects: --target HOST:PORT/DB, else the project's [source] host,
 * port and database; as --target-user (default postgres, the source's owner —
 * not floe's read-only role), password from FLOE_SHOP_PASSWORD when one is
 * needed. When the address is this project's `floe stack` cluster, the trusted
 * local socket is used instead of TCP.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/secret.h"
#include "base/text.h"
#include "shop/shop.h"
#include "stack/stack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PASSWORD_ENV "FLOE_SHOP_PASSWORD"

#define TARGET_OPTIONS                                                                                   \
	{ "target", 't', "HOST:PORT/DB", "the database to write (default: the project's [source], "          \
					 "through this project's `floe stack` socket when it is that)" },    \
	{ "target-user", 'U', "USER", "role that owns the shop's objects (default: postgres); password "   \
				      "from " PASSWORD_ENV },                                          \
	{ "schema", 0, "NAME", "schema of the shop (default: public)" },                                   \
	{ "json", 0, NULL, "print the result as JSON" }

/* ---- the target ---- */

typedef struct shop_conn {
	floe_pg_target target;
	floe_pg_address addr;
	floe_stack_info stack;
	bool stack_running;
} shop_conn;

static bool is_loopback(const char *host)
{
	return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "localhost") == 0 || strcmp(host, "::1") == 0;
}

/* This project's cluster, if it runs; anything going wrong here just means "no". */
static void find_stack(shop_conn *c, const char *dir)
{
	c->stack_running = floe_stack_status(&c->stack, dir) == 0 && c->stack.running;
	floe_error_clear();
}

static int address_from_config(shop_conn *c, const floe_cli_ctx *ctx, const char *dir)
{
	floe_config *config = NULL;
	floe_buf path = FLOE_BUF_INIT;
	int error = -1;
	if (ctx->config_path)
		floe_buf_puts(&path, ctx->config_path);
	else
		floe_fs_join(&path, dir, "floe.toml");
	if (!floe_fs_exists(floe_buf_cstr(&path))) {
		if (c->stack_running) { /* a bare `floe stack up --database shop` */
			snprintf(c->addr.host, sizeof(c->addr.host), "127.0.0.1");
			c->addr.port = c->stack.port;
			snprintf(c->addr.database, sizeof(c->addr.database), "shop");
			error = 0;
		} else {
			floe_error_set(FLOE_ERR_USAGE, "no database to write the shop to");
			floe_error_hint("Pass --target HOST:PORT/DB, run inside a floe project (floe.toml), or start "
					"a local cluster with `floe stack up --database shop`.");
		}
		goto cleanup;
	}
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	snprintf(c->addr.host, sizeof(c->addr.host), "%s", config->source.host);
	snprintf(c->addr.database, sizeof(c->addr.database), "%s", config->source.database);
	c->addr.port = config->source.port;
	error = 0;
cleanup:
	floe_config_free(config);
	floe_buf_free(&path);
	return error;
}

static int resolve_target(shop_conn *c, const floe_cli_ctx *ctx)
{
	floe_buf dir = FLOE_BUF_INIT;
	const char *target = floe_cli_value(ctx, "target");
	int error = -1;
	memset(c, 0, sizeof(*c));
	if (floe_fs_absolute(&dir, ctx->project_dir ? ctx->project_dir : ".") < 0)
		goto cleanup;
	find_stack(c, floe_buf_cstr(&dir));
	if (target ? floe_pg_parse_address(&c->addr, target) < 0 : address_from_config(c, ctx, dir.ptr) < 0)
		goto cleanup;
	floe_pg_target t = FLOE_PG_TARGET_INIT;
	t.host = c->addr.host;
	t.port = c->addr.port;
	if (c->stack_running && is_loopback(c->addr.host) && c->addr.port == c->stack.port)
		t.host = c->stack.socket_dir; /* trusted: no password needed */
	t.database = c->addr.database;
	t.user = floe_cli_value(ctx, "target-user");
	if (!t.user)
		t.user = c->addr.user[0] ? c->addr.user : "postgres";
	t.password = getenv(PASSWORD_ENV);
	if (t.password && !t.password[0])
		t.password = NULL;
	if (t.password)
		floe_secret_register(t.password);
	t.password_env = PASSWORD_ENV;
	t.read_only = false;
	c->target = t;
	error = 0;
cleanup:
	floe_buf_free(&dir);
	return error;
}

static int shop_connect(floe_pg **out, shop_conn *c, const floe_cli_ctx *ctx)
{
	*out = NULL;
	if (resolve_target(c, ctx) < 0)
		return -1;
	return floe_pg_connect(out, &c->target);
}

static const char *schema_of(const floe_cli_ctx *ctx)
{
	const char *s = floe_cli_value(ctx, "schema");
	return s ? s : "public";
}

/*
 * What every action does around its own work: connect, let `act` do the work
 * and write its report into `out`, print it, close. `opts` is the action's
 * options, parsed before connecting so bad input fails before the network.
 */
typedef int (*shop_action)(floe_buf *out, floe_pg *pg, shop_conn *conn, const floe_cli_ctx *ctx, void *opts);

static int run_action(const floe_cli_ctx *ctx, shop_action act, void *opts)
{
	shop_conn conn;
	floe_pg *pg = NULL;
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	if (shop_connect(&pg, &conn, ctx) == 0 && act(&out, pg, &conn, ctx, opts) == 0) {
		floe_cli_out(&out);
		rc = 0;
	}
	floe_pg_close(pg);
	floe_buf_free(&out);
	return rc;
}

/* ---- numbers on the command line ---- */

static int parse_count(int *out, const floe_cli_ctx *ctx, const char *name, int dflt, int max)
{
	const char *v = floe_cli_value(ctx, name);
	int64_t n = dflt;
	if (v && floe_text_parse_int64(&n, v, strlen(v), 0, max) < 0) {
		floe_error_set(FLOE_ERR_USAGE, "--%s \"%s\" is not a whole number from 0 to %d", name, v, max);
		return -1;
	}
	*out = (int)n;
	return 0;
}

static int parse_seed(uint64_t *out, const floe_cli_ctx *ctx, uint64_t dflt)
{
	const char *v = floe_cli_value(ctx, "seed");
	int64_t n = (int64_t)dflt;
	if (v && floe_text_parse_int64(&n, v, strlen(v), 0, INT64_MAX) < 0) {
		floe_error_set(FLOE_ERR_USAGE, "--seed \"%s\" is not a whole number from 0 to %lld", v,
			       (long long)INT64_MAX);
		return -1;
	}
	*out = (uint64_t)n;
	return 0;
}

static int parse_scale(double *out, const floe_cli_ctx *ctx)
{
	const char *v = floe_cli_value(ctx, "scale");
	char *end = NULL;
	*out = 1.0;
	if (!v)
		return 0;
	double s = strtod(v, &end);
	if (!v[0] || *end || !isfinite(s) || s <= 0 || s > FLOE_SHOP_MAX_SCALE) {
		floe_error_set(FLOE_ERR_USAGE, "--scale \"%s\" is not a number above 0 and at most %g", v,
			       FLOE_SHOP_MAX_SCALE);
		floe_error_hint("1 is Olist's size (99,441 orders); 0.1 a tenth of it, 10 ten times.");
		return -1;
	}
	*out = s;
	return 0;
}

/* ---- output helpers ---- */

/* 1234567 → "1,234,567" */
static const char *grouped(char out[32], long long v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%lld", v < 0 ? -v : v), o = 0;
	if (v < 0)
		out[o++] = '-';
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return out;
}

static void json_str(floe_buf *out, const char *key, const char *value, bool comma)
{
	floe_json_put_key(out, key);
	floe_json_put_cstr(out, value);
	if (comma)
		floe_buf_putc(out, ',');
}

static void render_sum_json(floe_buf *out, const floe_shop_sum *sum, const double *seconds)
{
	floe_buf_puts(out, "\"tables\":[");
	for (int i = 0; i < sum->n_tables; i++) {
		floe_buf_puts(out, i ? ",{" : "{");
		json_str(out, "name", sum->tables[i].table, true);
		floe_buf_printf(out, "\"rows\":%lld,", sum->tables[i].rows);
		if (seconds)
			floe_buf_printf(out, "\"seconds\":%.3f,", seconds[i]);
		json_str(out, "hash", sum->tables[i].hash, false);
		floe_buf_putc(out, '}');
	}
	floe_buf_printf(out, "],\"rows\":%lld,", sum->rows);
	json_str(out, "checksum", sum->md5, false);
}

/* ---- generate ---- */

static void render_generate(floe_buf *out, const floe_shop_generate_result *r, const floe_shop_generate_opts *o,
			    const char *where)
{
	char a[32], b[32];
	floe_buf_printf(out, "shop generated in schema %s of %s (scale %g, seed %llu)\n", o->schema, where, o->scale,
			(unsigned long long)o->seed);
	floe_buf_printf(out, "  %-20s %12s %9s %12s\n", "table", "rows", "seconds", "rows/s");
	for (int i = 0; i < r->sum.n_tables; i++) {
		double s = r->table_seconds[i];
		floe_buf_printf(out, "  %-20s %12s %9.2f %12s\n", r->sum.tables[i].table,
				grouped(a, r->sum.tables[i].rows), s, grouped(b, s > 0 ? llround(r->table_rows[i] / s) : 0));
	}
	floe_buf_printf(out, "  %-20s %12s %9.2f %12s\n", "load (COPY)", grouped(a, r->rows), r->seconds_load,
			grouped(b, r->seconds_load > 0 ? llround(r->rows / r->seconds_load) : 0));
	floe_buf_printf(out, "  keys, indexes, triggers, commit %.2f s; checksum %.2f s; total %.2f s "
			"(%s rows/s end to end)\n", r->seconds_post, r->seconds_checksum, r->seconds_total,
			grouped(a, r->seconds_total > 0 ? llround(r->rows / r->seconds_total) : 0));
	floe_buf_printf(out, "checksum %s\n", r->sum.md5);
}

static void render_generate_json(floe_buf *out, const floe_shop_generate_result *r,
				 const floe_shop_generate_opts *o, const char *where)
{
	floe_buf_putc(out, '{');
	json_str(out, "target", where, true);
	json_str(out, "schema", o->schema, true);
	floe_buf_printf(out, "\"scale\":%g,\"seed\":%llu,", o->scale, (unsigned long long)o->seed);
	floe_buf_printf(out, "\"seconds\":{\"load\":%.3f,\"post\":%.3f,\"checksum\":%.3f,\"total\":%.3f},",
			r->seconds_load, r->seconds_post, r->seconds_checksum, r->seconds_total);
	floe_buf_printf(out, "\"rows_per_second\":{\"load\":%.0f,\"total\":%.0f},",
			r->seconds_load > 0 ? r->rows / r->seconds_load : 0,
			r->seconds_total > 0 ? r->rows / r->seconds_total : 0);
	render_sum_json(out, &r->sum, r->table_seconds);
	floe_buf_puts(out, "}\n");
}

static int do_generate(floe_buf *out, floe_pg *pg, shop_conn *conn, const floe_cli_ctx *ctx, void *arg)
{
	const floe_shop_generate_opts *opts = arg;
	floe_shop_generate_result result;
	if (floe_shop_generate(&result, pg, opts) < 0)
		return -1;
	if (floe_cli_flag(ctx, "json"))
		render_generate_json(out, &result, opts, floe_pg_describe(pg));
	else
		render_generate(out, &result, opts, floe_pg_describe(pg));
	return 0;
}

static int run_generate(floe_cli_ctx *ctx)
{
	floe_shop_generate_opts opts = FLOE_SHOP_GENERATE_OPTS_INIT;
	opts.schema = schema_of(ctx);
	opts.replace = floe_cli_flag(ctx, "replace");
	if (parse_scale(&opts.scale, ctx) < 0 || parse_seed(&opts.seed, ctx, 1) < 0)
		return -1;
	return run_action(ctx, do_generate, &opts);
}

static const floe_cli_option generate_options[] = {
	{ "scale", 's', "S", "size: 1 is Olist's (99,441 orders); fractions such as 0.1 work (default: 1)" },
	{ "seed", 0, "N", "seed of every random choice; same scale and seed, same contents (default: 1)" },
	{ "replace", 0, NULL, "drop an existing shop in the schema first (in the same transaction)" },
	TARGET_OPTIONS,
	{ NULL, 0, NULL, NULL },
};

static const floe_cli_command shop_generate = {
	.name = "shop generate",
	.summary = "create the shop's schema and fill it (COPY), then print its checksum",
	.usage = "shop generate [--scale S] [--seed N] [--target HOST:PORT/DB] [--replace] [OPTIONS]",
	.description =
		"Creates nine tables modelled on Olist's public Brazilian e-commerce data set — customers,\n"
		"geolocation, sellers, product_categories, products, orders, order_items, payments,\n"
		"reviews — with primary and foreign keys, CHECK constraints, an enum, comments, and the\n"
		"watermark columns real systems have (orders and payments: updated_at kept by a trigger;\n"
		"reviews: a default but no trigger; customers: none). Values follow Olist's measured mixes.\n\n"
		"Everything happens in one transaction: an error leaves nothing behind. The same scale and\n"
		"seed always give the same contents; the checksum printed at the end is computed by\n"
		"PostgreSQL over the loaded rows (see `floe shop checksum`).",
	.examples =
		"  floe stack up --database shop && floe shop generate --scale 0.1\n"
		"  floe shop generate --scale 1 --seed 7 --target 127.0.0.1:5432/shop --target-user app_owner\n"
		"  floe shop generate --scale 10 --replace --json\n",
	.options = generate_options,
	.run = run_generate,
};


/* ---- tick ---- */

static void render_tick(floe_buf *out, const floe_shop_tick_result *r, const char *where, const char *schema)
{
	floe_buf_printf(out, "tick on schema %s of %s (seed %s)\n", schema, where, r->seed);
	floe_buf_printf(out, "  orders      +%d new (created), %d progressed:", r->new_orders, r->progressed_total);
	for (int s = 0; s < 8; s++)
		if (r->progressed[s])
			floe_buf_printf(out, " %d → %s", r->progressed[s], floe_shop_status_name(s));
	floe_buf_printf(out, ", -%d deleted (abandoned)\n", r->deleted_orders);
	floe_buf_printf(out, "  customers   +%d (%d returning), -%d\n", r->new_customers, r->returning_customers,
			r->deleted_customers);
	floe_buf_printf(out, "  order_items +%d, -%d\n", r->new_items, r->deleted_items);
	floe_buf_printf(out, "  payments    +%d, %d updated (installments settled), -%d\n", r->new_payments,
			r->payment_updates, r->deleted_payments);
	floe_buf_printf(out, "  reviews     +%d, %d edited without moving updated_at (no trigger)\n", r->new_reviews,
			r->edited_reviews);
	if (r->late)
		floe_buf_printf(out, "  late commit %d order(s) (e.g. %s) stamped updated_at %s, committed after the "
				"transaction stamped %s\n", r->late, r->late_order, r->late_stamp, r->ontime_stamp);
	else
		floe_buf_printf(out, "  late commit none; changes stamped %s\n", r->ontime_stamp);
}

static void render_tick_json(floe_buf *out, const floe_shop_tick_result *r, const char *where, const char *schema)
{
	floe_buf_putc(out, '{');
	json_str(out, "target", where, true);
	json_str(out, "schema", schema, true);
	json_str(out, "seed", r->seed, true);
	floe_buf_printf(out, "\"orders\":{\"inserted\":%d,\"progressed\":%d,\"deleted\":%d,\"reached\":{",
			r->new_orders, r->progressed_total, r->deleted_orders);
	for (int s = 0, n = 0; s < 8; s++)
		if (r->progressed[s])
			floe_buf_printf(out, "%s\"%s\":%d", n++ ? "," : "", floe_shop_status_name(s), r->progressed[s]);
	floe_buf_printf(out, "}},\"customers\":{\"inserted\":%d,\"returning\":%d,\"deleted\":%d},", r->new_customers,
			r->returning_customers, r->deleted_customers);
	floe_buf_printf(out, "\"order_items\":{\"inserted\":%d,\"deleted\":%d},", r->new_items, r->deleted_items);
	floe_buf_printf(out, "\"payments\":{\"inserted\":%d,\"updated\":%d,\"deleted\":%d},", r->new_payments,
			r->payment_updates, r->deleted_payments);
	floe_buf_printf(out, "\"reviews\":{\"inserted\":%d,\"edited\":%d},", r->new_reviews, r->edited_reviews);
	floe_buf_printf(out, "\"late\":{\"orders\":%d,", r->late);
	json_str(out, "order_id", r->late_order, true);
	json_str(out, "stamp", r->late_stamp, true);
	json_str(out, "committed_after_stamp", r->ontime_stamp, false);
	floe_buf_puts(out, "}}\n");
}

static int tick_options(floe_shop_tick_opts *opts, const floe_cli_ctx *ctx)
{
	opts->schema = schema_of(ctx);
	if (parse_count(&opts->orders, ctx, "orders", opts->orders, 100000) < 0 ||
	    parse_count(&opts->updates, ctx, "updates", opts->updates, 100000) < 0 ||
	    parse_count(&opts->deletes, ctx, "deletes", opts->deletes, 100000) < 0 ||
	    parse_count(&opts->late, ctx, "late", opts->late, 10000) < 0 ||
	    parse_count(&opts->hold_ms, ctx, "hold-ms", opts->hold_ms, 600000) < 0)
		return -1;
	return parse_seed(&opts->seed, ctx, 0);
}

static int do_tick(floe_buf *out, floe_pg *pg, shop_conn *conn, const floe_cli_ctx *ctx, void *arg)
{
	const floe_shop_tick_opts *opts = arg;
	floe_shop_tick_result result;
	floe_pg *late = NULL;
	/* The late transaction needs a session of its own. */
	if ((opts->late > 0 && floe_pg_connect(&late, &conn->target) < 0) ||
	    floe_shop_tick(&result, pg, late, opts) < 0) {
		floe_pg_close(late);
		return -1;
	}
	floe_pg_close(late);
	if (floe_cli_flag(ctx, "json"))
		render_tick_json(out, &result, floe_pg_describe(pg), opts->schema);
	else
		render_tick(out, &result, floe_pg_describe(pg), opts->schema);
	return 0;
}

static int run_tick(floe_cli_ctx *ctx)
{
	floe_shop_tick_opts opts = FLOE_SHOP_TICK_OPTS_INIT;
	if (tick_options(&opts, ctx) < 0)
		return -1;
	return run_action(ctx, do_tick, &opts);
}

static const floe_cli_option tick_options_table[] = {
	{ "orders", 'o', "N", "new orders, each with its customer, items and payments (default: 10)" },
	{ "updates", 'u', "M", "open orders moved one status on; delivered ones get a review (default: 20)" },
	{ "deletes", 'd', "K", "abandoned `created` orders deleted with their rows (default: 2)" },
	{ "late", 'l', "L", "orders progressed in a transaction that commits last (default: 1)" },
	{ "hold-ms", 0, "MS", "how long the late transaction stays open after the others commit (default: 500)" },
	{ "seed", 0, "N", "seed of the tick's random choices (default: from the clock)" },
	TARGET_OPTIONS,
	{ NULL, 0, NULL, NULL },
};

static const floe_cli_command shop_tick = {
	.name = "shop tick",
	.summary = "apply OLTP traffic: new orders, status changes, reviews, deletes, late commits",
	.usage = "shop tick [--orders N] [--updates M] [--deletes K] [--late L] [OPTIONS]",
	.description =
		"Applies one burst of the traffic a live shop sees, and prints what it did:\n"
		"  - new orders (status created) with a customer record, items and payments;\n"
		"  - status progressions (created → approved → invoiced → processing → shipped →\n"
		"    delivered): fresh checkouts are approved, one cart in eight is abandoned, orders\n"
		"    further along move on oldest first; the updates fire the updated_at triggers of\n"
		"    orders and payments, and a delivered order gets a review;\n"
		"  - a few review edits, which do not move reviews.updated_at (it has no trigger);\n"
		"  - deletes of abandoned `created` orders with their items, payments and customer;\n"
		"  - late commits: a transaction that stamps updated_at first and commits after the\n"
		"    others, so the newest watermark is not the newest commit.\n"
		"Business times are Brasília local time, taken from the database's clock.",
	.examples =
		"  floe shop tick\n"
		"  floe shop tick --orders 100 --updates 300 --deletes 5 --late 3 --hold-ms 2000\n"
		"  floe shop tick --orders 0 --updates 0 --deletes 0 --late 1 --json\n",
	.options = tick_options_table,
	.run = run_tick,
};


/* ---- evolve ---- */

static void render_kinds(floe_buf *out, bool json)
{
	int n = 0;
	const floe_shop_change_kind *k = floe_shop_evolve_kinds(&n);
	if (json)
		floe_buf_puts(out, "{\"kinds\":[");
	else
		floe_buf_printf(out, "  %-20s %-19s %s\n", "kind", "default table", "what it does");
	for (int i = 0; i < n; i++) {
		if (json) {
			floe_buf_puts(out, i ? ",{" : "{");
			json_str(out, "name", k[i].name, true);
			json_str(out, "default_table", k[i].default_table, true);
			json_str(out, "summary", k[i].summary, false);
			floe_buf_putc(out, '}');
		} else {
			floe_buf_printf(out, "  %-20s %-19s %s\n", k[i].name, k[i].default_table, k[i].summary);
		}
	}
	if (json)
		floe_buf_puts(out, "]}\n");
}

static void render_evolve(floe_buf *out, const floe_shop_evolve_result *r, const char *where, const char *schema,
			  bool json)
{
	if (json) {
		floe_buf_putc(out, '{');
		json_str(out, "target", where, true);
		json_str(out, "schema", schema, true);
		json_str(out, "kind", r->kind, true);
		json_str(out, "table", r->table, true);
		json_str(out, "summary", floe_buf_cstr(&r->summary), true);
		json_str(out, "ddl", floe_buf_cstr(&r->ddl), false);
		floe_buf_puts(out, "}\n");
		return;
	}
	floe_buf_printf(out, "%s on schema %s of %s: %s\n", r->kind, schema, where, floe_buf_cstr(&r->summary));
	floe_buf_puts(out, "ran:\n");
	for (const char *p = floe_buf_cstr(&r->ddl); *p;) {
		size_t n = strcspn(p, "\n");
		floe_buf_printf(out, "  %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

static int do_evolve(floe_buf *out, floe_pg *pg, shop_conn *conn, const floe_cli_ctx *ctx, void *arg)
{
	const floe_shop_evolve_opts *opts = arg;
	floe_shop_evolve_result result;
	int rc = floe_shop_evolve(&result, pg, opts);
	if (rc == 0)
		render_evolve(out, &result, floe_pg_describe(pg), opts->schema, floe_cli_flag(ctx, "json"));
	floe_shop_evolve_result_free(&result);
	return rc;
}

static int run_evolve(floe_cli_ctx *ctx)
{
	floe_shop_evolve_opts opts = FLOE_SHOP_EVOLVE_OPTS_INIT;
	if (floe_cli_flag(ctx, "list")) {
		floe_buf out = FLOE_BUF_INIT;
		render_kinds(&out, floe_cli_flag(ctx, "json"));
		floe_cli_out(&out);
		floe_buf_free(&out);
		return 0;
	}
	opts.kind = floe_cli_value(ctx, "change");
	opts.table = floe_cli_value(ctx, "table");
	opts.schema = schema_of(ctx);
	if (!opts.kind) {
		floe_error_set(FLOE_ERR_USAGE, "`floe shop evolve` needs --change KIND");
		floe_error_hint("`floe shop evolve --list` shows the kinds.");
		return -1;
	}
	return run_action(ctx, do_evolve, &opts);
}

static const floe_cli_option evolve_options[] = {
	{ "change", 'c', "KIND", "the change to apply (see --list)" },
	{ "table", 0, "T", "the table to change (default: the kind's; for add-table, the new table's name)" },
	{ "list", 0, NULL, "list the kinds of change and exit" },
	TARGET_OPTIONS,
	{ NULL, 0, NULL, NULL },
};

static const floe_cli_command shop_evolve = {
	.name = "shop evolve",
	.summary = "apply one realistic schema change and print the DDL it ran",
	.usage = "shop evolve --change KIND [--table T] | --list",
	.description =
		"Applies one schema change of the kinds real sources go through — a column added (nullable,\n"
		"or NOT NULL with a default), renamed or dropped, a type widened or narrowed, a primary key\n"
		"changed, a table added, the trigger behind a watermark dropped, an enum value added — in\n"
		"one transaction, and prints what it did and the DDL it ran. The change is planned from the\n"
		"catalog as it is, so changes can follow one another. A kind that does not fit the table\n"
		"says why and changes nothing (exit 2).",
	.examples =
		"  floe shop evolve --list\n"
		"  floe shop evolve --change add-column\n"
		"  floe shop evolve --change widen-varchar --table payments\n"
		"  floe shop evolve --change drop-trigger --table payments --json\n",
	.options = evolve_options,
	.run = run_evolve,
};

/* ---- checksum ---- */

static int do_checksum(floe_buf *out, floe_pg *pg, shop_conn *conn, const floe_cli_ctx *ctx, void *arg)
{
	floe_shop_sum sum;
	char a[32];
	(void)arg;
	if (floe_shop_checksum(&sum, pg, schema_of(ctx)) < 0)
		return -1;
	if (floe_cli_flag(ctx, "json")) {
		floe_buf_putc(out, '{');
		json_str(out, "schema", schema_of(ctx), true);
		render_sum_json(out, &sum, NULL);
		floe_buf_puts(out, "}\n");
		return 0;
	}
	for (int i = 0; i < sum.n_tables; i++)
		floe_buf_printf(out, "  %-20s %12s  %s\n", sum.tables[i].table, grouped(a, sum.tables[i].rows),
				sum.tables[i].hash);
	floe_buf_printf(out, "checksum %s\n", sum.md5);
	return 0;
}

static int run_checksum(floe_cli_ctx *ctx)
{
	return run_action(ctx, do_checksum, NULL);
}

static const floe_cli_option checksum_options[] = {
	TARGET_OPTIONS,
	{ NULL, 0, NULL, NULL },
};

static const floe_cli_command shop_checksum = {
	.name = "shop checksum",
	.summary = "print the checksum of the shop's contents as they are now",
	.usage = "shop checksum [--target HOST:PORT/DB] [--schema NAME] [--json]",
	.description =
		"Computes, inside PostgreSQL and in one snapshot, each table's row count and the md5 of the\n"
		"md5 of every row's text in key order, and one checksum over them all. A freshly generated\n"
		"shop prints the same checksum as `floe shop generate` did.",
	.examples =
		"  floe shop checksum\n"
		"  floe shop checksum --json --target /path/.floe/pg/run:5432/shop\n",
	.options = checksum_options,
	.run = run_checksum,
};

/* ---- the command ---- */

static const floe_cli_command *const shop_actions[] = {
	&shop_generate,
	&shop_tick,
	&shop_evolve,
	&shop_checksum,
	&floe_cmd_shop_stream,
	NULL,
};

static const floe_cli_option no_options[] = { { NULL, 0, NULL, NULL } };

const floe_cli_command floe_cmd_shop = {
	.name = "shop",
	.summary = "an Olist-shaped e-commerce source in PostgreSQL, with live changes",
	.usage = "shop generate|tick|evolve|checksum|stream [OPTIONS]",
	.description =
		"A realistic PostgreSQL source whose truth is known, for demos, tests and benchmarks:\n"
		"Olist's Brazilian e-commerce data set as a generator (any scale, deterministic per seed),\n"
		"OLTP traffic with late commits, and the schema changes real systems go through.\n"
		"It writes as the source's owner (--target-user, default postgres), never as floe's reader.",
	.examples =
		"  floe stack up --database shop\n"
		"  floe shop generate --scale 0.1\n"
		"  floe shop tick --orders 50 --updates 100 --late 2\n"
		"  floe shop evolve --list\n"
		"  floe shop evolve --change widen-numeric\n",
	.options = no_options,
	.subcommands = shop_actions,
};
