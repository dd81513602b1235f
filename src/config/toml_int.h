/*
 * toml_int.h — what the toml_*.c files share: the value layout, the parser state
 * and the cursor. Not for other modules; they use toml.h.
 *
 *   toml.c        document lifetime and accessors
 *   toml_scan.c   cursor, whitespace, comments, encoding check, strings, keys, errors
 *   toml_value.c  values: numbers, date-times, arrays, inline tables
 *   toml_table.c  tables and the rules about defining them (headers, dotted keys)
 *   toml_parse.c  floe_toml_parse: the document, line by line
 */
#ifndef FLOE_CONFIG_TOML_INT_H
#define FLOE_CONFIG_TOML_INT_H

#include "base/arena.h"
#include "base/buf.h"
#include "config/toml.h"

/*
 * How a table or array came to be; decides what may still be added to it.
 * Scalars are LITERAL.
 */
typedef enum toml_origin {
	TOML_LITERAL,  /* inline table `{...}` or array `[...]`: closed once written */
	TOML_IMPLICIT, /* table made by a header on the way to another: [a.b] makes a */
	TOML_HEADER,   /* table defined by [header], or an element of [[header]] */
	TOML_DOTTED,   /* table made by a dotted key: a.b = 1 makes a */
	TOML_AOT       /* array made by [[header]] */
} toml_origin;

typedef struct toml_entry {
	floe_slice key;
	int line, col;
	floe_toml_value *value;
} toml_entry;

struct floe_toml_value {
	floe_toml_type type;
	toml_origin origin;
	int line, col;
	int depth; /* root table is 0 */
	union {
		floe_slice str;
		int64_t i;
		double f;
		bool b;
		floe_toml_datetime dt;
		struct {
			floe_toml_value **items;
			size_t len, cap;
		} arr;
		struct {
			toml_entry *entries;
			size_t len, cap;
			size_t *index; /* open addressing, entry index + 1; NULL while small */
			size_t index_cap;
		} tab;
	} u;
};

struct floe_toml_doc {
	floe_arena *arena;
	floe_toml_value *root;
};

typedef struct toml_key_part {
	floe_slice name;
	int line, col;
} toml_key_part;

typedef struct toml_parser {
	floe_arena *arena;   /* the document's */
	const char *text;
	size_t len, pos;
	int line, col;       /* of text[pos] */
	floe_toml_error *err;
	bool failed;
	floe_buf scratch;    /* decoded string being built */
	floe_toml_value *root, *current;
	toml_key_part keys[FLOE_TOML_MAX_DEPTH]; /* the key just read, split at dots */
	int nkeys;
} toml_parser;

/* Byte `ahead` of the cursor, or -1 past the end. */
static inline int toml_peek(const toml_parser *ps, size_t ahead)
{
	return ahead < ps->len - ps->pos ? (unsigned char)ps->text[ps->pos + ahead] : -1;
}

static inline bool toml_at_end(const toml_parser *ps)
{
	return ps->pos >= ps->len;
}

/* Move `n` bytes on, keeping line and column (columns count characters). */
void toml_advance(toml_parser *ps, size_t n);

/* Record the first error, at a position or at the cursor. Returns -1. */
int toml_fail_at(toml_parser *ps, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define toml_fail(ps, ...) toml_fail_at((ps), (ps)->line, (ps)->col, __VA_ARGS__)

/* "`x`", "U+0007", "end of file", "a newline": what the cursor is on, for messages. */
const char *toml_describe_here(const toml_parser *ps, char *buf, size_t cap);
/* keys[0..n) as a dotted path, quoted where needed and cut to fit `cap`. */
const char *toml_describe_key(const toml_parser *ps, int n, char *buf, size_t cap);

/* The whole text is UTF-8 without NUL; checked once before parsing. */
int toml_check_encoding(toml_parser *ps);
void toml_skip_ws(toml_parser *ps);
/* 1 after eating LF or CRLF, 0 when not at a newline, -1 on a bare CR. */
int toml_eat_newline(toml_parser *ps);
/* At `#`: the comment up to its newline, rejecting control characters. */
int toml_skip_comment(toml_parser *ps);
/* Whitespace, newlines and comments, as allowed between array items. */
int toml_skip_blank(toml_parser *ps);
/* Whitespace, an optional comment, then a newline or the end of the text. */
int toml_expect_eol(toml_parser *ps);

/* At a quote: a string into the document's arena. Keys pass allow_multiline false. */
int toml_parse_string(floe_slice *out, toml_parser *ps, bool allow_multiline);
/* A possibly dotted key into ps->keys / ps->nkeys. */
int toml_parse_key(toml_parser *ps);

/* A new value owned by the document, placed at (line, col). */
floe_toml_value *toml_new_value(toml_parser *ps, floe_toml_type type, int line, int col);
/* The value at the cursor, to live at nesting `depth`. */
int toml_parse_value(floe_toml_value **out, toml_parser *ps, int depth);
/* `key = value` into `table` (the current table or an inline table being read). */
int toml_parse_keyval(toml_parser *ps, floe_toml_value *table);

floe_toml_value *toml_table_find(const floe_toml_value *table, floe_slice key, size_t *index_out);
void toml_table_insert(toml_parser *ps, floe_toml_value *table, const toml_key_part *key,
		       floe_toml_value *value);
void toml_array_push(toml_parser *ps, floe_toml_value *array, floe_toml_value *item);
/* The table keys[0..nkeys-1) name from `table`, making dotted tables on the way. */
int toml_table_for_dotted(floe_toml_value **out, toml_parser *ps, floe_toml_value *table);
/* Make the table named by keys the current one, for `[header]` or `[[header]]`. */
int toml_table_open(toml_parser *ps, bool array_of_tables, int line, int col);

#endif
