/*
 * fuzz_rest.c — libFuzzer target for the Iceberg REST catalog's request handling
 * (src/rest): path routing, query parameters and JSON bodies, down to the requirements
 * and updates src/iceberg applies and commits.
 *
 * Input: a first line "METHOD /v1/PATH[?k=v&…]", the rest is the body. Each input runs
 * against a fresh copy of a small catalog (namespace "ns", table "ns.t"). Any input must
 * be answered — never a crash, a leak or a hang — with a status the specification knows
 * and, unless it is a 204 or a HEAD, a JSON body (an error is the error model).
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "rest/rest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static floe_buf template_db = FLOE_BUF_INIT;

static void require(int ok)
{
	if (!ok)
		abort();
}

static char *path_in(const char *name)
{
	static char p[128];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

/* Once: a catalog with ns.t, kept as bytes to restore before every input. */
static void setup(void)
{
	floe_iceberg_catalog_opts o = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_iceberg_catalog *cat = NULL;
	floe_iceberg_table *t = NULL;
	floe_arena *a = floe_arena_new();
	floe_iceberg_schema *s = floe_arena_alloc(a, sizeof(*s));
	snprintf(dir, sizeof(dir), "/tmp/floe-fuzz-rest-XXXXXX");
	require(mkdtemp(dir) != NULL);
	s->n_fields = 1;
	s->fields = floe_arena_alloc(a, sizeof(*s->fields));
	s->fields[0] = (floe_iceberg_field){ 1, "id", true, floe_iceberg_type_new(a, FLOE_ICEBERG_LONG), NULL };
	o.create = true;
	require(floe_iceberg_catalog_open_sql(&cat, path_in("catalog.db"), &o) == 0);
	require(floe_iceberg_table_create(&t, cat, "ns", "t", s, NULL) == 0);
	floe_iceberg_table_free(t);
	floe_iceberg_catalog_free(cat);
	require(floe_fs_read_file(&template_db, path_in("catalog.db")) == 0);
	floe_arena_free(a);
}

typedef struct query {
	const char *text; /* "k=v&k2=v2" */
	char value[256];
} query;

static const char *query_get(void *ctx, const char *name)
{
	query *q = ctx;
	size_t n = strlen(name);
	for (const char *p = q->text; p && *p;) {
		const char *amp = strchr(p, '&'), *end = amp ? amp : p + strlen(p);
		if ((size_t)(end - p) > n && strncmp(p, name, n) == 0 && p[n] == '=') {
			size_t len = (size_t)(end - p) - n - 1;
			if (len >= sizeof(q->value))
				len = sizeof(q->value) - 1;
			memcpy(q->value, p + n + 1, len);
			q->value[len] = '\0';
			return q->value;
		}
		p = amp ? amp + 1 : NULL;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	const char *nl = memchr(data, '\n', size);
	size_t line = nl ? (size_t)(nl - (const char *)data) : size;
	if (line > 512 || memchr(data, '\0', line))
		return 0;
	char head[513];
	memcpy(head, data, line);
	head[line] = '\0';
	char *sp = strchr(head, ' ');
	if (!sp)
		return 0;
	*sp = '\0';
	char *qm = strchr(sp + 1, '?');
	if (qm)
		*qm = '\0';
	floe_fs_write_opts wo = FLOE_FS_WRITE_OPTS_INIT;
	require(floe_fs_write_atomic(path_in("catalog.db"), template_db.ptr, template_db.len, &wo) == 0);
	query q = { qm ? qm + 1 : NULL, "" };
	floe_rest_request req = { head, sp + 1, query_get, &q, nl ? (const char *)data + line + 1 : "",
				  nl ? size - line - 1 : 0 };
	floe_rest_opts opts = { path_in("catalog.db"), NULL };
	floe_rest_response res = { 0, FLOE_BUF_INIT };
	floe_rest_handle(&res, &req, &opts);
	require(res.status >= 200 && res.status <= 599);
	if (res.body.len) {
		floe_json_doc *doc = NULL;
		require(floe_json_parse(&doc, res.body.ptr, res.body.len, NULL) == 0);
		floe_json_free(doc);
	} else {
		require(res.status == 204 || strcmp(head, "HEAD") == 0);
	}
	floe_buf_free(&res.body);
	floe_error_clear();
	return 0;
}
