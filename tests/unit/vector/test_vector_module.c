/*
 * test_vector_module.c — pg and format share column vectors through src/vector and
 * nothing else: no file of src/pg includes a header of src/format, and none of
 * src/format includes one of src/pg (docs/architecture.md, code map).
 */
#include "harness.h"

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"

#include <dirent.h>
#include <stdlib.h>

/* Files of src/<module> (.c and .h) that include "<other>/…"; each is reported. */
static int includes_of(floe_arena *a, const char *root, const char *module, const char *other)
{
	DIR *d = opendir(floe_arena_printf(a, "%s/src/%s", root, module));
	const char *needle = floe_arena_printf(a, "#include \"%s/", other);
	struct dirent *e;
	int found = 0;
	FLOE_CHECK(d != NULL);
	while (d && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		floe_buf text = FLOE_BUF_INIT;
		if (len < 3 || (strcmp(e->d_name + len - 2, ".c") != 0 && strcmp(e->d_name + len - 2, ".h") != 0))
			continue;
		FLOE_CHECK(floe_fs_read_file(&text, floe_arena_printf(a, "%s/src/%s/%s", root, module, e->d_name)) == 0);
		if (text.ptr && strstr(text.ptr, needle)) {
			fprintf(stderr, "    src/%s/%s includes a header of src/%s\n", module, e->d_name, other);
			found++;
		}
		floe_buf_free(&text);
	}
	if (d)
		closedir(d);
	return found;
}

FLOE_TEST(vector_pg_and_format_share_only_vector)
{
	floe_arena *a = floe_arena_new();
	const char *root = getenv("FLOE_TEST_DATA_DIR") ? floe_arena_printf(a, "%s/../..", floe_test_data_dir()) : ".";
	FLOE_CHECK(includes_of(a, root, "pg", "format") == 0);
	FLOE_CHECK(includes_of(a, root, "format", "pg") == 0);
	floe_arena_free(a);
	floe_error_clear();
}
