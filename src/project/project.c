/*
 * project.c — `floe init`: discover the source, write floe.toml and the layout.
 *
 * Order matters for "nothing half-written": directories first, then the
 * catalog, then floe.toml last and atomically (link, never overwrite), so an
 * interrupted init leaves either no floe.toml or a complete one.
 */
#include "project/project.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/secret.h"
#include "base/text.h"
#include "config/config.h"
#include "iceberg/catalog_sql.h"
#include "pg/introspect.h"
#include "pg/pg.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct init_state {
	floe_arena *arena;
	floe_init_result *result;
	const char *dir;          /* absolute */
	floe_config_seed seed;
	const char *password;
	const char *warehouse;    /* absolute: [warehouse] location of the kept floe.toml, or DIR/warehouse */
	const char *location;     /* as floe.toml writes it, for notes and .gitignore */
} init_state;

static void note(init_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(init_state *st, const char *fmt, ...)
{
	if (st->result->n_notes == FLOE_INIT_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	st->result->notes[st->result->n_notes++] = floe_arena_vprintf(st->arena, fmt, ap);
	va_end(ap);
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && v[0] ? v : fallback;
}

/* A running `floe stack` in the project: its port. */
static int local_stack_port(const char *dir)
{
	char path[1100];
	floe_buf text = FLOE_BUF_INIT;
	int64_t port = 0;
	snprintf(path, sizeof(path), "%s/" FLOE_STATE_DIR "/pg/port", dir);
	if (floe_fs_exists(path) && floe_fs_read_file(&text, path) == 0)
		floe_text_parse_int64(&port, text.ptr, strcspn(floe_buf_cstr(&text), "\n"), 1, 65535);
	floe_buf_free(&text);
	floe_error_clear();
	return (int)port;
}

static int fill_seed(init_state *st, const floe_init_opts *o)
{
	floe_config_seed *s = &st->seed;
	int64_t env_port = 0;
	const char *pgport = getenv("PGPORT");
	int stack_port = local_stack_port(st->dir);
	if (pgport)
		floe_text_parse_int64(&env_port, pgport, strlen(pgport), 1, 65535);
	s->host = o->host ? o->host : env_or("PGHOST", "127.0.0.1");
	s->port = o->port ? o->port : env_port ? (int)env_port : stack_port ? stack_port : 5432;
	s->database = o->database ? o->database : getenv("PGDATABASE");
	struct passwd *pw = getpwuid(geteuid());
	s->user = o->user ? o->user : env_or("PGUSER", pw ? pw->pw_name : "floe_reader");
	s->password_env = o->password_env ? o->password_env : "FLOE_SOURCE_PASSWORD";
	const char *base = strrchr(st->dir, '/');
	s->project_name = base && base[1] ? base + 1 : "floe";
	if (!s->database) {
		floe_error_set(FLOE_ERR_USAGE, "no source database given, and PGDATABASE is not set");
		floe_error_hint("Pass --source HOST:PORT/DATABASE, e.g. `floe init --source 127.0.0.1:5432/shop "
				"--source-user floe_reader`.");
		return -1;
	}
	st->password = getenv(s->password_env);
	if (st->password && st->password[0])
		floe_secret_register(st->password);
	else
		st->password = NULL;
	return 0;
}

/*
 * With floe.toml kept, the layout follows it: the warehouse goes where its
 * [warehouse] location says, and --save-password reads the variable it names.
 */
static int read_existing(init_state *st, const floe_init_opts *o)
{
	floe_config *config = NULL;
	if (floe_config_load(&config, st->result->config_path) < 0)
		return -1;
	st->warehouse = floe_arena_strdup(st->arena, floe_config_warehouse_dir(config));
	st->location = floe_arena_strdup(st->arena, config->warehouse.location);
	st->seed.password_env = floe_arena_strdup(st->arena, config->source.password_env);
	floe_config_free(config);
	if (!o->save_password)
		return 0;
	st->password = getenv(st->seed.password_env);
	if (st->password && st->password[0])
		floe_secret_register(st->password);
	else
		st->password = NULL;
	return 0;
}

/* Ask the source which schemas hold tables; failure is a note, not an error. */
static void discover(init_state *st)
{
	static const char *fallback[] = { "public", NULL };
	floe_pg *pg = NULL;
	floe_pg_schema_facts *found = NULL;
	size_t n = 0;
	floe_pg_target t = FLOE_PG_TARGET_INIT;
	t.host = st->seed.host;
	t.port = st->seed.port;
	t.database = st->seed.database;
	t.user = st->seed.user;
	t.password = st->password;
	st->seed.schemas.items = fallback;
	st->seed.schemas.count = 1;
	if (floe_pg_connect(&pg, &t) < 0 || floe_pg_schemas_discover(&found, &n, pg, st->arena) < 0) {
		const floe_error *e = floe_error_last();
		note(st, "could not discover the source (%s%s%s); schemas = [\"public\"] assumed — fix the "
			 "source and run `floe doctor`", e ? e->message : "?", e && e->detail ? ": " : "",
		     e && e->detail ? e->detail : "");
		st->seed.discovery_note = "not discovered: the source did not answer";
		floe_error_clear();
		floe_pg_close(pg);
		return;
	}
	floe_init_result *r = st->result;
	r->discovered = true;
	snprintf(r->source_version, sizeof(r->source_version), "%s", floe_pg_server_version_text(pg));
	floe_buf list = FLOE_BUF_INIT;
	if (n > 0) {
		const char **items = floe_arena_alloc(st->arena, sizeof(char *) * (n + 1));
		for (size_t i = 0; i < n; i++) {
			items[i] = found[i].name;
			r->n_tables += found[i].n_tables;
			floe_buf_printf(&list, "%s%s (%lld table%s)", i ? ", " : "", found[i].name,
					found[i].n_tables, found[i].n_tables == 1 ? "" : "s");
		}
		st->seed.schemas.items = items;
		st->seed.schemas.count = n;
	} else {
		floe_buf_puts(&list, "no schema with tables the role can read");
	}
	r->n_schemas = n;
	snprintf(r->schemas, sizeof(r->schemas), "%s", floe_buf_cstr(&list));
	st->seed.discovery_note = floe_arena_printf(st->arena, "discovered: %s", floe_buf_cstr(&list));
	floe_buf_free(&list);
	floe_pg_close(pg);
}

/* Create `path` (absolute), named `shown` in the notes. */
static int make_dir_at(init_state *st, const char *path, const char *shown, mode_t mode)
{
	bool existed = floe_fs_is_dir(path);
	if (floe_fs_mkdir_p(path, mode) < 0)
		return -1;
	if (!existed)
		note(st, "created %s/", shown);
	return 0;
}

static int make_dir(init_state *st, const char *rel, mode_t mode)
{
	return make_dir_at(st, floe_arena_printf(st->arena, "%s/%s", st->dir, rel), rel, mode);
}

/* Write `rel` unless it exists; an existing file is the user's. */
static int write_new(init_state *st, const char *rel, const char *text, mode_t mode)
{
	const char *path = floe_arena_printf(st->arena, "%s/%s", st->dir, rel);
	floe_fs_write_opts opts = FLOE_FS_WRITE_OPTS_INIT;
	opts.mode = mode;
	opts.exclusive = true;
	if (floe_fs_exists(path)) {
		note(st, "kept %s (exists)", rel);
		return 0;
	}
	if (floe_fs_write_atomic(path, text, strlen(text), &opts) < 0) {
		const floe_error *e = floe_error_last();
		if (e && e->cls == FLOE_ERR_EXISTS) { /* created meanwhile: still the user's */
			floe_error_clear();
			note(st, "kept %s (exists)", rel);
			return 0;
		}
		return -1;
	}
	note(st, "wrote %s", rel);
	return 0;
}

static int make_layout(init_state *st)
{
	if (make_dir(st, "marts", 0755) < 0 || make_dir(st, FLOE_STATE_DIR, 0700) < 0 ||
	    make_dir_at(st, st->warehouse, st->location, 0755) < 0)
		return -1;
	if (write_new(st, "marts/README.md",
		      "# marts\n\nOne Markdown file per gold mart, with YAML front matter (mart, grain,\n"
		      "dimensions, measures, filters). `floe gold draft marts/NAME.md` turns it into a model.\n",
		      0644) < 0 ||
	    write_new(st, ".gitignore", floe_arena_printf(st->arena, "# floe: local state, data and "
								"credentials stay out of git\n" FLOE_STATE_DIR "/\n%s%s",
								st->location[0] == '/' ? "" : st->location,
								st->location[0] == '/' ? "" : "/\n"),
		      0644) < 0)
		return -1;
	floe_catalog_sql *cat = NULL;
	const char *path = floe_arena_printf(st->arena, "%s/" FLOE_CATALOG_FILE, st->warehouse);
	bool existed = floe_fs_exists(path);
	if (floe_catalog_sql_open(&cat, path, true) < 0)
		return -1;
	floe_catalog_sql_close(cat);
	note(st, existed ? "kept %s/" FLOE_CATALOG_FILE : "created %s/" FLOE_CATALOG_FILE " (Iceberg SQL catalog)",
	     st->location);
	return 0;
}

static int save_password(init_state *st)
{
	if (!st->password) {
		floe_error_set(FLOE_ERR_USAGE, "--save-password needs the password in %s", st->seed.password_env);
		floe_error_hint("export %s=… first; floe never takes a password on the command line.",
				st->seed.password_env);
		return -1;
	}
	if (make_dir(st, FLOE_STATE_DIR "/secrets", 0700) < 0)
		return -1;
	floe_buf path = FLOE_BUF_INIT;
	floe_config_password_file(&path, st->dir);
	floe_fs_write_opts opts = FLOE_FS_WRITE_OPTS_INIT;
	opts.mode = 0600;
	int rc = floe_fs_write_atomic(path.ptr, st->password, strlen(st->password), &opts);
	floe_buf_free(&path);
	if (rc == 0)
		note(st, "saved the password to .floe/secrets/source-password (mode 0600)");
	return rc;
}

static int write_config(init_state *st)
{
	floe_buf text = FLOE_BUF_INIT;
	floe_config *check = NULL;
	int rc = -1;
	floe_config_render_initial(&text, &st->seed);
	/* What we write must read back: the same parser and checks as every command. */
	if (floe_config_parse(&check, st->result->config_path, text.ptr, text.len) < 0) {
		floe_error_context("while checking the floe.toml floe init was about to write (a bug)");
		goto cleanup;
	}
	floe_fs_write_opts opts = FLOE_FS_WRITE_OPTS_INIT;
	opts.exclusive = true;
	rc = floe_fs_write_atomic(st->result->config_path, text.ptr, text.len, &opts);
	if (rc == 0)
		st->result->config_written = true;
cleanup:
	floe_config_free(check);
	floe_buf_free(&text);
	return rc;
}

int floe_project_init(floe_init_result *out, const floe_init_opts *opts)
{
	floe_buf dir = FLOE_BUF_INIT;
	memset(out, 0, sizeof(*out));
	init_state st = { .arena = floe_arena_new(), .result = out };
	out->owned = st.arena;
	int error = -1;
	if (floe_fs_absolute(&dir, opts->dir) < 0 || floe_fs_mkdir_p(dir.ptr, 0755) < 0)
		goto cleanup;
	st.dir = floe_arena_strdup(st.arena, dir.ptr);
	snprintf(out->config_path, sizeof(out->config_path), "%s/floe.toml", st.dir);
	bool have_config = floe_fs_exists(out->config_path);
	st.warehouse = floe_arena_printf(st.arena, "%s/warehouse", st.dir);
	st.location = "warehouse";
	if (have_config ? read_existing(&st, opts) < 0 : fill_seed(&st, opts) < 0)
		goto cleanup;
	if (make_layout(&st) < 0 || (opts->save_password && save_password(&st) < 0))
		goto cleanup;
	if (have_config) {
		note(&st, "kept floe.toml (exists; floe never overwrites it)");
	} else {
		discover(&st);
		if (write_config(&st) < 0)
			goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&dir);
	if (error < 0)
		floe_error_context("while initialising the project in \"%s\"", opts->dir);
	return error;
}

void floe_init_result_free(floe_init_result *result)
{
	if (result)
		floe_arena_free(result->owned);
}
