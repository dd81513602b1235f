/*
 * toml_parse.c — floe_toml_parse: checks the encoding once, then reads the
 * document one expression (line) at a time: a `[header]`, a `[[header]]`, a
 * `key = value`, or nothing, each followed by an optional comment and a newline.
 *
 * The parser writes into a document it owns until the end; on any error the
 * whole document is released and the caller gets the first error only.
 */
#include "config/toml_int.h"

#include <string.h>

/* At `[`: a table header or an array-of-tables header. */
static int parse_header(toml_parser *ps)
{
	char what[64];
	int line = ps->line, col = ps->col;
	bool aot = toml_peek(ps, 1) == '[';
	toml_advance(ps, aot ? 2 : 1);
	toml_skip_ws(ps);
	if (toml_parse_key(ps) < 0)
		return -1;
	toml_skip_ws(ps);
	if (toml_peek(ps, 0) != ']' || (aot && toml_peek(ps, 1) != ']'))
		return toml_fail(ps, "expected `%s` to close the header, found %s", aot ? "]]" : "]",
				 toml_describe_here(ps, what, sizeof(what)));
	toml_advance(ps, aot ? 2 : 1);
	return toml_table_open(ps, aot, line, col);
}

static int parse_expression(toml_parser *ps)
{
	int c;
	toml_skip_ws(ps);
	c = toml_peek(ps, 0);
	if (c == '[' && parse_header(ps) < 0)
		return -1;
	if (c != '[' && c != '#' && c != '\n' && c != '\r' && c >= 0 &&
	    toml_parse_keyval(ps, ps->current) < 0)
		return -1;
	return toml_expect_eol(ps);
}

static void parser_init(toml_parser *ps, floe_toml_doc *doc, const char *text, size_t len,
			floe_toml_error *err)
{
	memset(ps, 0, sizeof(*ps));
	ps->arena = doc->arena;
	ps->text = text;
	ps->len = len;
	ps->line = 1;
	ps->col = 1;
	ps->err = err;
	/* A decoded string is never longer than the text it came from. */
	floe_buf_init(&ps->scratch, len + 16);
	ps->root = ps->current = doc->root;
}

int floe_toml_parse(floe_toml_doc **out, const char *text, size_t len, floe_toml_error *err)
{
	floe_toml_error local;
	floe_toml_doc *doc = floe_xcalloc(1, sizeof(*doc));
	toml_parser ps;
	int error = -1;
	*out = NULL;
	doc->arena = floe_arena_new();
	doc->root = floe_arena_alloc(doc->arena, sizeof(*doc->root));
	doc->root->type = FLOE_TOML_TABLE;
	doc->root->origin = TOML_HEADER;
	doc->root->line = doc->root->col = 1;
	parser_init(&ps, doc, len ? text : "", len, err ? err : &local);
	memset(ps.err, 0, sizeof(*ps.err));
	if (len > (size_t)1 << 30) {
		toml_fail(&ps, "document too large (more than 1 GiB)");
		goto cleanup;
	}
	if (toml_check_encoding(&ps) < 0)
		goto cleanup;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		toml_advance(&ps, 3);
	ps.col = 1; /* the BOM is not a character of the first line */
	while (!toml_at_end(&ps)) {
		if (parse_expression(&ps) < 0)
			goto cleanup;
	}
	*out = doc;
	doc = NULL;
	error = 0;
cleanup:
	floe_buf_free(&ps.scratch);
	floe_toml_free(doc);
	return error;
}
