/*
 * sqlparse.c — libpg_query calls and their translation: JSON trees into
 * floe_json_doc, errors into the error chain, and the scanner's protobuf output
 * (ScanResult; see pg_query.proto) decoded by hand, since only its token kinds
 * and offsets are needed and the protobuf-c headers are not packaged.
 */
#include "sqlparse/sqlparse.h"
#include "base/arena.h"
#include "base/error.h"

#include <pg_query.h>
#include <string.h>

/* Token numbers from pg_query.proto (enum Token). */
enum {
	TOK_OPEN_PAREN = 40, TOK_CLOSE_PAREN = 41, TOK_DOT = 46, TOK_EQUALS = 61,
	TOK_OPEN_BRACKET = 91, TOK_CLOSE_BRACKET = 93, TOK_IDENT = 258, TOK_UIDENT = 259,
	TOK_COLON_EQUALS = 270, TOK_SQL_COMMENT = 275, TOK_C_COMMENT = 276
};

static int parse_error(const PgQueryError *e, const char *what)
{
	floe_error_set(FLOE_ERR_CHECK, "could not parse %s: %s", what, e->message ? e->message : "?");
	if (e->cursorpos > 0)
		floe_error_detail("PostgreSQL's parser stopped at byte %d.", e->cursorpos);
	return -1;
}

static int to_doc(floe_json_doc **out, const char *json, const char *what)
{
	floe_json_error jerr;
	if (!json)
		return floe_error_set(FLOE_ERR_INTERNAL, "libpg_query returned no tree for %s", what);
	if (floe_json_parse(out, json, strlen(json), &jerr) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "libpg_query's tree for %s is not JSON: %s",
				      what, jerr.message);
	return 0;
}

int floe_sqlparse_sql(floe_json_doc **out, const char *sql)
{
	*out = NULL;
	PgQueryParseResult r = pg_query_parse(sql);
	int rc = r.error ? parse_error(r.error, "SQL") : to_doc(out, r.parse_tree, "SQL");
	pg_query_free_parse_result(r);
	return rc;
}

int floe_sqlparse_plpgsql(floe_json_doc **out, const char *create_function)
{
	*out = NULL;
	PgQueryPlpgsqlParseResult r = pg_query_parse_plpgsql(create_function);
	int rc = r.error ? parse_error(r.error, "PL/pgSQL function")
			 : to_doc(out, r.plpgsql_funcs, "PL/pgSQL function");
	pg_query_free_plpgsql_parse_result(r);
	return rc;
}

/* ---- protobuf wire format, just enough for ScanResult ---- */

typedef struct pb {
	const unsigned char *p, *end;
	bool bad;
} pb;

static uint64_t pb_varint(pb *b)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end) {
			b->bad = true;
			return 0;
		}
		unsigned char c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	b->bad = true;
	return 0;
}

/* Skip a field of `wire` type; false when malformed. */
static bool pb_skip(pb *b, unsigned wire)
{
	size_t n = 0;
	switch (wire) {
	case 0: pb_varint(b); return !b->bad;
	case 1: n = 8; break;
	case 2: n = (size_t)pb_varint(b); break;
	case 5: n = 4; break;
	default: return false;
	}
	if (b->bad || n > (size_t)(b->end - b->p))
		return false;
	b->p += n;
	return true;
}

static floe_sqltok_kind token_kind(uint64_t token, uint64_t keyword_kind)
{
	switch (token) {
	case TOK_DOT: return FLOE_SQLTOK_DOT;
	case TOK_EQUALS:
	case TOK_COLON_EQUALS: return FLOE_SQLTOK_ASSIGN;
	case TOK_OPEN_PAREN:
	case TOK_OPEN_BRACKET: return FLOE_SQLTOK_OPEN;
	case TOK_CLOSE_PAREN:
	case TOK_CLOSE_BRACKET: return FLOE_SQLTOK_CLOSE;
	case TOK_IDENT:
	case TOK_UIDENT: return FLOE_SQLTOK_WORD;
	default: return keyword_kind ? FLOE_SQLTOK_WORD : FLOE_SQLTOK_OTHER;
	}
}

/* One ScanToken message; *keep is false for comments. */
static bool decode_token(floe_sqltok *t, bool *keep, pb msg)
{
	uint64_t start = 0, end = 0, token = 0, keyword = 0;
	while (msg.p < msg.end) {
		uint64_t tag = pb_varint(&msg);
		unsigned field = (unsigned)(tag >> 3), wire = (unsigned)(tag & 7);
		if (msg.bad)
			return false;
		if (wire != 0 || field < 1 || field > 5) {
			if (!pb_skip(&msg, wire))
				return false;
			continue;
		}
		uint64_t v = pb_varint(&msg);
		if (field == 1)
			start = v;
		else if (field == 2)
			end = v;
		else if (field == 4)
			token = v;
		else if (field == 5)
			keyword = v;
	}
	if (msg.bad || start > end)
		return false;
	t->kind = token_kind(token, keyword);
	t->start = (size_t)start;
	t->end = (size_t)end;
	*keep = token != TOK_SQL_COMMENT && token != TOK_C_COMMENT;
	return true;
}

static int decode_scan(floe_sqltok **out, size_t *n_out, floe_arena *arena, pb b, size_t text_len)
{
	size_t cap = 0, n = 0;
	floe_sqltok *toks = NULL;
	while (b.p < b.end) {
		uint64_t tag = pb_varint(&b);
		unsigned field = (unsigned)(tag >> 3), wire = (unsigned)(tag & 7);
		if (b.bad)
			break;
		if (field != 2 || wire != 2) {
			if (!pb_skip(&b, wire))
				break;
			continue;
		}
		size_t len = (size_t)pb_varint(&b);
		if (b.bad || len > (size_t)(b.end - b.p))
			break;
		pb msg = { b.p, b.p + len, false };
		b.p += len;
		floe_sqltok t;
		bool keep;
		if (!decode_token(&t, &keep, msg) || t.end > text_len)
			return floe_error_set(FLOE_ERR_INTERNAL, "libpg_query's token list is malformed");
		if (!keep)
			continue;
		toks = floe_arena_grow(arena, toks, n, &cap, sizeof(*toks));
		toks[n++] = t;
	}
	if (b.p != b.end)
		return floe_error_set(FLOE_ERR_INTERNAL, "libpg_query's token list is malformed");
	*out = toks;
	*n_out = n;
	return 0;
}

int floe_sqlparse_scan(floe_sqltok **out, size_t *n_out, floe_arena *arena, const char *sql)
{
	*out = NULL;
	*n_out = 0;
	PgQueryScanResult r = pg_query_scan(sql);
	int rc;
	if (r.error) {
		rc = parse_error(r.error, "SQL tokens");
	} else {
		pb b = { (const unsigned char *)r.pbuf.data,
			 (const unsigned char *)r.pbuf.data + r.pbuf.len, false };
		rc = decode_scan(out, n_out, arena, b, strlen(sql));
	}
	pg_query_free_scan_result(r);
	return rc;
}
