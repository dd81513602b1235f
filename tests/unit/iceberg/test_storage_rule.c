/*
 * test_storage_rule.c — the storage rule, checked on the source: no module above
 * src/iceberg/storage opens a warehouse file by path (docs/architecture.md).
 *
 * It reads src/ (the unit tests run from the repository root; FLOE_TEST_DATA_DIR's
 * grandparent otherwise) and flags, outside the storage backends, every turn of a
 * URI into a local path (floe_iceberg_uri_to_path) anywhere, and every raw file call
 * (open, fopen, pread, opendir, floe_fs_*) in the modules that handle table data.
 * The callers not converted yet are listed below with the reason; a listed entry
 * that no longer occurs fails too, so the list only shrinks.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>

/* Modules that read or write table data: raw file calls are not theirs to make. */
static const char *const data_modules[] = {
	"format", "bronze", "reconcile", "query", "iceberg", "engine", "silver", "gold", "compact",
};

static const char *const raw_calls[] = {
	"open(", "fopen(", "pread(", "opendir(", "floe_fs_read_file(", "floe_fs_write_atomic(",
	"floe_fs_mkdir_p(", "floe_fs_remove_tree(",
};

#define URI_TO_PATH "floe_iceberg_uri_to_path("

static const struct allowed {
	const char *file, *call, *why;
} allowed[] = {
	{ "src/bronze/load.c", "floe_fs_read_file(", "reads pipeline/bronze/*.sql, not the warehouse (stays)" },
	{ "src/reconcile/reconcile.c", "floe_fs_read_file(", "reads pipeline/bronze/*.sql, not the warehouse (stays)" },
	{ "src/silver/model.c", "floe_fs_read_file(", "reads pipeline/dbt/models/silver/*.sql, not the warehouse (stays)" },
	{ "src/gold/draft.c", "floe_fs_read_file(", "reads marts/<name>.md, a description people commit, not the warehouse" },
	{ "src/gold/draft.c", "floe_fs_write_atomic(", "writes the questions into marts/<name>.md, not the warehouse" },
	{ "src/iceberg/catalog_sql.c", "floe_fs_mkdir_p(", "the SQLite catalog file's directory, not table data" },
};

#define N_ALLOWED (sizeof(allowed) / sizeof(*allowed))

typedef struct scan {
	floe_arena *a;
	const char *root;      /* the repository */
	bool seen[N_ALLOWED];  /* allowed entries that occur */
	int violations;
} scan;

/* Whether `call` occurs in `line` as a call of that name (not the tail of another name). */
static bool calls(const char *line, const char *call)
{
	for (const char *p = strstr(line, call); p; p = strstr(p + 1, call))
		if (p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			return true;
	return false;
}

static void flag(scan *s, const char *file, int lineno, const char *call)
{
	for (size_t i = 0; i < N_ALLOWED; i++) {
		if (strcmp(allowed[i].file, file) == 0 && strcmp(allowed[i].call, call) == 0) {
			s->seen[i] = true;
			return;
		}
	}
	fprintf(stderr, "    %s:%d calls %s outside src/iceberg/storage: go through storage.h\n", file,
		lineno, call);
	s->violations++;
}

static void check_line(scan *s, const char *file, int lineno, char *line, bool data_module)
{
	char *comment = strstr(line, "/*");
	const char *code = line + strspn(line, " \t");
	if (comment)
		*comment = '\0';
	if (code[0] == '*' || code[0] == '\0')
		return; /* inside a block comment */
	if (calls(line, URI_TO_PATH))
		flag(s, file, lineno, URI_TO_PATH);
	for (size_t i = 0; data_module && i < sizeof(raw_calls) / sizeof(*raw_calls); i++)
		if (calls(line, raw_calls[i]))
			flag(s, file, lineno, raw_calls[i]);
}

static void check_file(scan *s, const char *file, bool data_module)
{
	floe_buf text = FLOE_BUF_INIT;
	char *line, *next;
	int lineno = 0;
	FLOE_CHECK(floe_fs_read_file(&text, floe_arena_printf(s->a, "%s/%s", s->root, file)) == 0);
	for (line = text.ptr; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		check_line(s, file, ++lineno, line, data_module);
	}
	floe_buf_free(&text);
}

static bool is_storage_backend(const char *module, const char *name)
{
	return strcmp(module, "iceberg") == 0 && strncmp(name, "storage", 7) == 0;
}

static void check_module(scan *s, const char *module, bool data_module)
{
	DIR *d = opendir(floe_arena_printf(s->a, "%s/src/%s", s->root, module));
	struct dirent *e;
	if (!d)
		return; /* a module that does not exist yet */
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0 || is_storage_backend(module, e->d_name))
			continue;
		check_file(s, floe_arena_printf(s->a, "src/%s/%s", module, e->d_name), data_module);
	}
	closedir(d);
}

static bool is_data_module(const char *module)
{
	for (size_t i = 0; i < sizeof(data_modules) / sizeof(*data_modules); i++)
		if (strcmp(data_modules[i], module) == 0)
			return true;
	return false;
}

FLOE_TEST(storage_no_module_above_storage_opens_warehouse_paths)
{
	scan s = { .a = floe_arena_new() };
	DIR *d;
	struct dirent *e;
	s.root = getenv("FLOE_TEST_DATA_DIR") ? floe_arena_printf(s.a, "%s/../..", floe_test_data_dir()) : ".";
	d = opendir(floe_arena_printf(s.a, "%s/src", s.root));
	FLOE_CHECK(d != NULL);
	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			check_module(&s, e->d_name, is_data_module(e->d_name));
	if (d)
		closedir(d);
	FLOE_CHECK(s.violations == 0);
	for (size_t i = 0; i < N_ALLOWED; i++) {
		if (!s.seen[i])
			fprintf(stderr, "    %s no longer calls %s: remove it from the list in %s\n",
				allowed[i].file, allowed[i].call, __FILE__);
		FLOE_CHECK(s.seen[i]);
	}
	floe_arena_free(s.a);
	floe_error_clear();
}
