/*
 * proof.c — the watermark proof over libpg_query's PL/pgSQL tree (see proof.h).
 *
 * A path state is UNASSIGNED, ASSIGNED (NEW.col holds a clock value) or
 * UNREACHABLE (the path has returned or raised). Branches join: a path is
 * ASSIGNED only if every reachable branch is. Loop bodies may run zero times,
 * so a loop leaves the state as it found it. EXIT/CONTINUE taken while
 * UNASSIGNED are remembered until the loop or labelled block they leave, whose
 * end state then joins UNASSIGNED. Exception handlers start from the state the
 * block started with (the error may come before the assignment).
 */
#include "plan/proof.h"
#include "plan/plan_int.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "sqlparse/sqlparse.h"

#include <stdarg.h>
#include <string.h>

#define MAX_DEPTH 200
#define MAX_PENDING 64
#define ELOG_ERROR 21 /* PostgreSQL's ERROR level: RAISE EXCEPTION and bare RAISE */

typedef enum path_state { ST_UNASSIGNED = 0, ST_ASSIGNED, ST_UNREACHABLE } path_state;

typedef enum target_effect { T_NONE = 0, T_COLUMN, T_WHOLE_NEW } target_effect;

typedef struct walk {
	floe_arena *arena;
	const floe_json_value *datums;
	int64_t new_varno;
	const char *column;
	bool touched;                       /* some statement assigns the column */
	bool failed;
	int line;
	const char *why;
	const char *pending[MAX_PENDING];   /* labels of EXIT/CONTINUE taken while UNASSIGNED ("" none) */
	int n_pending;
	int depth;
} walk;

static path_state walk_list(walk *w, const floe_json_value *list, path_state st);

static path_state join(path_state a, path_state b)
{
	if (a == ST_UNREACHABLE)
		return b;
	if (b == ST_UNREACHABLE)
		return a;
	return a == ST_ASSIGNED && b == ST_ASSIGNED ? ST_ASSIGNED : ST_UNASSIGNED;
}

static void fail(walk *w, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(walk *w, int line, const char *fmt, ...)
{
	if (w->failed)
		return; /* the first finding is the one reported */
	va_list ap;
	va_start(ap, fmt);
	w->why = floe_arena_vprintf(w->arena, fmt, ap);
	va_end(ap);
	w->failed = true;
	w->line = line;
}

/* {"Kind": {...}} → the inner object, and the kind in *kind. */
const floe_json_value *floe_plan_node_unwrap(const floe_json_value *node, floe_slice *kind)
{
	if (floe_json_type_of(node) != FLOE_JSON_OBJECT || floe_json_count(node) != 1)
		return NULL;
	*kind = floe_json_key_at(node, 0);
	return floe_json_value_at(node, 0);
}

static int64_t get_int(const floe_json_value *obj, const char *key, int64_t dflt)
{
	int64_t v;
	const floe_json_value *x = floe_json_get(obj, key);
	if (!x || floe_json_type_of(x) != FLOE_JSON_NUMBER || floe_json_int64(&v, x) < 0)
		return dflt;
	return v;
}

const char *floe_plan_node_str(const floe_json_value *obj, const char *key)
{
	const floe_json_value *x = floe_json_get(obj, key);
	return x && floe_json_type_of(x) == FLOE_JSON_STRING ? floe_json_string(x).ptr : NULL;
}

static bool get_bool(const floe_json_value *obj, const char *key)
{
	const floe_json_value *x = floe_json_get(obj, key);
	return x && floe_json_type_of(x) == FLOE_JSON_BOOL && floe_json_bool(x);
}

/* The text of an {"PLpgSQL_expr": {"query": …}} member. */
static const char *expr_text(const floe_json_value *obj, const char *key)
{
	return floe_plan_node_str(floe_json_get(floe_json_get(obj, key), "PLpgSQL_expr"), "query");
}

/* ---- clock expressions, on the SQL parse tree ---- */

static bool only_keys(const floe_json_value *obj, const char *const *allowed)
{
	for (size_t i = 0; i < floe_json_count(obj); i++) {
		floe_slice k = floe_json_key_at(obj, i);
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = floe_slice_eq_cstr(k, *a);
		if (!ok)
			return false;
	}
	return true;
}

/* The last name of a list of {"String": {"sval": …}}, when any leading one is pg_catalog. */
const char *floe_plan_node_name(const floe_json_value *names)
{
	size_t n = floe_json_count(names);
	if (floe_json_type_of(names) != FLOE_JSON_ARRAY || n < 1 || n > 2)
		return NULL;
	const char *parts[2] = { NULL, NULL };
	for (size_t i = 0; i < n; i++)
		parts[i] = floe_plan_node_str(floe_json_get(floe_json_value_at(names, i), "String"), "sval");
	if (!parts[0] || (n == 2 && (!parts[1] || strcmp(parts[0], "pg_catalog") != 0)))
		return NULL;
	return parts[n - 1];
}

static bool is_clock_node(const floe_json_value *node, int depth)
{
	static const char *const func_keys[] = { "funcname", "funcformat", "location", NULL };
	static const char *const clocks[] = { "now", "clock_timestamp", "statement_timestamp",
					      "transaction_timestamp", NULL };
	floe_slice kind;
	const floe_json_value *v = floe_plan_node_unwrap(node, &kind);
	if (!v || depth > 4)
		return false;
	if (floe_slice_eq_cstr(kind, "FuncCall")) {
		const char *name = floe_plan_node_name(floe_json_get(v, "funcname"));
		if (!name || !only_keys(v, func_keys))
			return false;
		for (const char *const *c = clocks; *c; c++)
			if (strcmp(name, *c) == 0)
				return true;
		return false;
	}
	if (floe_slice_eq_cstr(kind, "SQLValueFunction")) {
		const char *op = floe_plan_node_str(v, "op");
		return op && (strcmp(op, "SVFOP_CURRENT_TIMESTAMP") == 0 ||
			      strcmp(op, "SVFOP_CURRENT_TIMESTAMP_N") == 0);
	}
	if (floe_slice_eq_cstr(kind, "TypeCast")) { /* now()::timestamp, now()::timestamptz(3) */
		const floe_json_value *tn = floe_json_get(v, "typeName");
		const char *name = floe_plan_node_name(floe_json_get(tn, "names"));
		if (!name || floe_json_get(tn, "arrayBounds") ||
		    (strcmp(name, "timestamptz") != 0 && strcmp(name, "timestamp") != 0))
			return false;
		return is_clock_node(floe_json_get(v, "arg"), depth + 1);
	}
	return false;
}

/*
 * Target `index` of `sql`, when `sql` is one plain SELECT that yields exactly one
 * row (no FROM, WHERE, LIMIT, set operation, …); NULL otherwise.
 */
static const floe_json_value *plain_select_target(floe_json_doc **doc, const char *sql, size_t index)
{
	static const char *const select_keys[] = { "targetList", "limitOption", "op", NULL };
	if (floe_sqlparse_sql(doc, sql) < 0) {
		floe_error_clear();
		return NULL;
	}
	const floe_json_value *stmts = floe_json_get(floe_json_root(*doc), "stmts");
	if (floe_json_count(stmts) != 1)
		return NULL;
	const floe_json_value *sel = floe_json_get(floe_json_get(floe_json_value_at(stmts, 0), "stmt"),
						   "SelectStmt");
	const char *limit = floe_plan_node_str(sel, "limitOption"), *op = floe_plan_node_str(sel, "op");
	if (!sel || !only_keys(sel, select_keys) || (limit && strcmp(limit, "LIMIT_OPTION_DEFAULT") != 0) ||
	    (op && strcmp(op, "SETOP_NONE") != 0))
		return NULL;
	const floe_json_value *targets = floe_json_get(sel, "targetList");
	if (index >= floe_json_count(targets))
		return NULL;
	return floe_json_get(floe_json_get(floe_json_value_at(targets, index), "ResTarget"), "val");
}

static bool select_is_clock(const char *sql, size_t index)
{
	floe_json_doc *doc = NULL;
	const floe_json_value *val = plain_select_target(&doc, sql, index);
	bool ok = val && is_clock_node(val, 0);
	floe_json_free(doc);
	return ok;
}

bool floe_proof_is_clock_expr(const char *expr)
{
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "SELECT ");
	floe_buf_puts(&sql, expr);
	bool ok = select_is_clock(floe_buf_cstr(&sql), 0);
	floe_buf_free(&sql);
	return ok;
}

/* ---- datums and targets ---- */

static bool is_column_datum(const walk *w, int64_t varno)
{
	if (varno < 0 || (size_t)varno >= floe_json_count(w->datums))
		return false;
	const floe_json_value *f = floe_json_get(floe_json_value_at(w->datums, (size_t)varno),
						 "PLpgSQL_recfield");
	const char *name = floe_plan_node_str(f, "fieldname");
	return f && name && get_int(f, "recparentno", -1) == w->new_varno && strcmp(name, w->column) == 0;
}

/* What assigning to `target` (a PLpgSQL_row or PLpgSQL_rec) does to NEW.col; *index: row field. */
static target_effect target_of(const walk *w, const floe_json_value *target, size_t *index)
{
	floe_slice kind;
	const floe_json_value *t = target ? floe_plan_node_unwrap(target, &kind) : NULL;
	if (!t)
		return T_NONE;
	if (floe_slice_eq_cstr(kind, "PLpgSQL_rec"))
		return get_int(t, "dno", -1) == w->new_varno ? T_WHOLE_NEW : T_NONE;
	if (!floe_slice_eq_cstr(kind, "PLpgSQL_row"))
		return T_NONE;
	const floe_json_value *fields = floe_json_get(t, "fields");
	for (size_t i = 0; i < floe_json_count(fields); i++) {
		int64_t varno = get_int(floe_json_value_at(fields, i), "varno", -1);
		if (varno == w->new_varno)
			return T_WHOLE_NEW;
		if (is_column_datum(w, varno)) {
			*index = i;
			return T_COLUMN;
		}
	}
	return T_NONE;
}

/* ---- statements ---- */

/* `NEW.col := expr`: the target must be exactly NEW.col, the value a clock call. */
static path_state walk_assign_column(walk *w, int line, const char *query, path_state st)
{
	floe_sqltok *t = NULL;
	size_t n = 0, k = 0;
	int depth = 0;
	w->touched = true;
	if (!query || floe_sqlparse_scan(&t, &n, w->arena, query) < 0) {
		floe_error_clear();
		fail(w, line, "assigns it with a statement floe cannot read (line %d)", line);
		return st;
	}
	for (; k < n; k++) {
		depth += t[k].kind == FLOE_SQLTOK_OPEN ? 1 : t[k].kind == FLOE_SQLTOK_CLOSE ? -1 : 0;
		if (depth == 0 && t[k].kind == FLOE_SQLTOK_ASSIGN)
			break;
	}
	if (k != 3 || t[0].kind != FLOE_SQLTOK_WORD || t[1].kind != FLOE_SQLTOK_DOT ||
	    t[2].kind != FLOE_SQLTOK_WORD) {
		fail(w, line, "assigns only part of it (`%s`, line %d)", query, line);
		return st;
	}
	const char *value = query + t[k].end;
	const char *sql = floe_arena_printf(w->arena, "SELECT %s", value);
	if (!select_is_clock(sql, 0)) {
		fail(w, line, "assigns it from `%s` (line %d), not from now(), current_timestamp, "
			      "clock_timestamp(), statement_timestamp() or transaction_timestamp()",
		     value + strspn(value, " \t\n"), line);
		return st;
	}
	return st == ST_UNREACHABLE ? st : ST_ASSIGNED;
}

static path_state walk_assign(walk *w, const floe_json_value *s, int line, path_state st)
{
	int64_t varno = get_int(s, "varno", -1);
	if (is_column_datum(w, varno))
		return walk_assign_column(w, line, expr_text(s, "expr"), st);
	if (varno == w->new_varno && st != ST_UNREACHABLE)
		return ST_UNASSIGNED; /* NEW := …: whatever was assigned before is gone */
	return st;
}

/* SELECT … INTO / EXECUTE … INTO / FETCH … INTO / CALL with INOUT targets. */
static path_state walk_into(walk *w, const floe_json_value *s, floe_slice kind, int line, path_state st)
{
	size_t index = 0;
	target_effect e = target_of(w, floe_json_get(s, "target"), &index);
	if (e == T_WHOLE_NEW)
		return st == ST_UNREACHABLE ? st : ST_UNASSIGNED;
	if (e == T_NONE)
		return st;
	w->touched = true;
	const char *query = expr_text(s, "sqlstmt");
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_execsql") && query && select_is_clock(query, index))
		return st == ST_UNREACHABLE ? st : ST_ASSIGNED;
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_execsql"))
		fail(w, line, "sets it with `%s` (line %d), which is not a one-row SELECT of the clock",
		     query ? query : "?", line);
	else
		fail(w, line, "sets it with %s (line %d), which floe cannot prove",
		     floe_slice_eq_cstr(kind, "PLpgSQL_stmt_dynexecute") ? "EXECUTE … INTO"
		     : floe_slice_eq_cstr(kind, "PLpgSQL_stmt_fetch") ? "FETCH … INTO" : "CALL", line);
	return st;
}

/* RETURN: NEW must be assigned by now; OLD and NULL write nothing new. */
static path_state walk_return(walk *w, const floe_json_value *s, int line, path_state st)
{
	const char *q = expr_text(s, "expr");
	bool is_new = floe_json_get(s, "retvarno") && get_int(s, "retvarno", -1) == w->new_varno;
	bool harmless = false;
	if (q) {
		floe_json_doc *doc = NULL;
		const floe_json_value *v = plain_select_target(&doc, floe_arena_printf(w->arena, "SELECT %s", q), 0);
		floe_slice kind;
		const floe_json_value *inner = v ? floe_plan_node_unwrap(v, &kind) : NULL;
		if (inner && floe_slice_eq_cstr(kind, "ColumnRef")) {
			const char *name = floe_plan_node_name(floe_json_get(inner, "fields"));
			is_new = name && floe_json_count(floe_json_get(inner, "fields")) == 1 && strcmp(name, "new") == 0;
			harmless = name && floe_json_count(floe_json_get(inner, "fields")) == 1 && strcmp(name, "old") == 0;
		} else if (inner && floe_slice_eq_cstr(kind, "A_Const")) {
			harmless = get_bool(inner, "isnull");
		}
		floe_json_free(doc);
	}
	if (is_new && st == ST_UNASSIGNED)
		fail(w, line, "returns NEW (line %d) on a path that does not set it", line);
	else if (!is_new && !harmless && (q || floe_json_get(s, "retvarno")))
		fail(w, line, "returns `%s` (line %d), not NEW", q ? q : "a variable", line);
	return ST_UNREACHABLE;
}

static path_state walk_if(walk *w, const floe_json_value *s, path_state st)
{
	path_state out = walk_list(w, floe_json_get(s, "then_body"), st);
	const floe_json_value *elsifs = floe_json_get(s, "elsif_list");
	for (size_t i = 0; i < floe_json_count(elsifs); i++)
		out = join(out, walk_list(w, floe_json_get(floe_json_get(floe_json_value_at(elsifs, i),
									 "PLpgSQL_if_elsif"), "stmts"), st));
	const floe_json_value *else_body = floe_json_get(s, "else_body");
	return join(out, else_body ? walk_list(w, else_body, st) : st);
}

static path_state walk_case(walk *w, const floe_json_value *s, path_state st)
{
	path_state out = ST_UNREACHABLE; /* no ELSE: CASE_NOT_FOUND is raised, nothing is written */
	const floe_json_value *whens = floe_json_get(s, "case_when_list");
	for (size_t i = 0; i < floe_json_count(whens); i++)
		out = join(out, walk_list(w, floe_json_get(floe_json_get(floe_json_value_at(whens, i),
									 "PLpgSQL_case_when"), "stmts"), st));
	if (get_bool(s, "have_else"))
		out = join(out, walk_list(w, floe_json_get(s, "else_stmts"), st));
	return out;
}

/* Drop pending exits that leave this loop (label NULL: a block) and say whether any did. */
static bool settle_exits(walk *w, int from, const char *label, bool is_loop)
{
	bool any = false;
	int kept = from;
	for (int i = from; i < w->n_pending; i++) {
		const char *p = w->pending[i];
		if ((is_loop && p[0] == '\0') || (label && strcmp(p, label) == 0))
			any = true;
		else
			w->pending[kept++] = p;
	}
	w->n_pending = kept;
	return any;
}

static path_state walk_loop(walk *w, const floe_json_value *s, int line, path_state st)
{
	size_t index = 0;
	if (target_of(w, floe_json_get(s, "var"), &index) != T_NONE) {
		w->touched = true;
		fail(w, line, "uses it as a loop variable (line %d)", line);
	}
	int from = w->n_pending;
	walk_list(w, floe_json_get(s, "body"), st); /* may run zero times: only its findings count */
	bool exited = settle_exits(w, from, floe_plan_node_str(s, "label"), true);
	return exited ? join(st, ST_UNASSIGNED) : st;
}

static path_state walk_exit(walk *w, const floe_json_value *s, int line, path_state st)
{
	if (st == ST_UNASSIGNED) {
		const char *label = floe_plan_node_str(s, "label");
		if (w->n_pending == MAX_PENDING)
			fail(w, line, "has too many EXIT/CONTINUE statements to analyse (line %d)", line);
		else
			w->pending[w->n_pending++] = label ? label : "";
	}
	return floe_json_get(s, "cond") ? st : ST_UNREACHABLE;
}

static path_state walk_block(walk *w, const floe_json_value *s, path_state st)
{
	int from = w->n_pending;
	path_state out = walk_list(w, floe_json_get(s, "body"), st);
	const floe_json_value *handlers = floe_json_get(floe_json_get(floe_json_get(s, "exceptions"),
								      "PLpgSQL_exception_block"), "exc_list");
	for (size_t i = 0; i < floe_json_count(handlers); i++)
		out = join(out, walk_list(w, floe_json_get(floe_json_get(floe_json_value_at(handlers, i),
									 "PLpgSQL_exception"), "action"), st));
	const char *label = floe_plan_node_str(s, "label");
	if (label && settle_exits(w, from, label, false))
		out = join(out, ST_UNASSIGNED);
	return out;
}

static path_state walk_getdiag(walk *w, const floe_json_value *s, int line, path_state st)
{
	const floe_json_value *items = floe_json_get(s, "diag_items");
	for (size_t i = 0; i < floe_json_count(items); i++)
		if (is_column_datum(w, get_int(floe_json_get(floe_json_value_at(items, i), "PLpgSQL_diag_item"),
					       "target", -1))) {
			w->touched = true;
			fail(w, line, "sets it with GET DIAGNOSTICS (line %d)", line);
		}
	return st;
}

static bool kind_is(floe_slice kind, const char *const *names)
{
	for (const char *const *n = names; *n; n++)
		if (floe_slice_eq_cstr(kind, *n))
			return true;
	return false;
}

static path_state walk_stmt(walk *w, const floe_json_value *node, path_state st)
{
	static const char *const loops[] = { "PLpgSQL_stmt_loop", "PLpgSQL_stmt_while", "PLpgSQL_stmt_fori",
		"PLpgSQL_stmt_fors", "PLpgSQL_stmt_forc", "PLpgSQL_stmt_foreach_a", "PLpgSQL_stmt_dynfors", NULL };
	static const char *const intos[] = { "PLpgSQL_stmt_execsql", "PLpgSQL_stmt_dynexecute",
		"PLpgSQL_stmt_fetch", "PLpgSQL_stmt_call", NULL };
	static const char *const inert[] = { "PLpgSQL_stmt_perform", "PLpgSQL_stmt_open", "PLpgSQL_stmt_close",
		"PLpgSQL_stmt_commit", "PLpgSQL_stmt_rollback", "PLpgSQL_stmt_assert",
		"PLpgSQL_stmt_return_next", "PLpgSQL_stmt_return_query", NULL };
	floe_slice kind;
	const floe_json_value *s = floe_plan_node_unwrap(node, &kind);
	if (!s || floe_json_type_of(s) != FLOE_JSON_OBJECT) {
		fail(w, 0, "has a statement floe cannot read");
		return st;
	}
	int line = (int)get_int(s, "lineno", 0);
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_assign"))
		return walk_assign(w, s, line, st);
	if (kind_is(kind, intos))
		return walk_into(w, s, kind, line, st);
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_return"))
		return walk_return(w, s, line, st);
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_if"))
		return walk_if(w, s, st);
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_case"))
		return walk_case(w, s, st);
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_block"))
		return walk_block(w, s, st);
	if (kind_is(kind, loops))
		return walk_loop(w, s, line, st);
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_exit"))
		return walk_exit(w, s, line, st);
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_raise"))
		return get_int(s, "elog_level", ELOG_ERROR) >= ELOG_ERROR ? ST_UNREACHABLE : st;
	if (floe_slice_eq_cstr(kind, "PLpgSQL_stmt_getdiag"))
		return walk_getdiag(w, s, line, st);
	if (kind_is(kind, inert))
		return st;
	fail(w, line, "has a statement floe does not know (%.*s, line %d)", (int)kind.len, kind.ptr, line);
	return st;
}

static path_state walk_list(walk *w, const floe_json_value *list, path_state st)
{
	if (!list)
		return st;
	if (floe_json_type_of(list) != FLOE_JSON_ARRAY || ++w->depth > MAX_DEPTH) {
		fail(w, 0, "is nested too deeply or malformed");
		return st;
	}
	for (size_t i = 0; i < floe_json_count(list); i++)
		st = walk_stmt(w, floe_json_value_at(list, i), st);
	w->depth--;
	return st;
}

int floe_proof_analyze(floe_proof_result *out, floe_arena *arena, const floe_json_value *tree,
		       const char *column)
{
	walk w = { .arena = arena, .column = column };
	bool array = floe_json_type_of(tree) == FLOE_JSON_ARRAY && floe_json_count(tree) > 0;
	const floe_json_value *fn = array ? floe_json_get(floe_json_value_at(tree, 0), "PLpgSQL_function") : NULL;
	*out = (floe_proof_result){ FLOE_PROOF_UNTOUCHED, 0, NULL };
	if (!fn) {
		*out = (floe_proof_result){ FLOE_PROOF_FAILED, 0, "is not a PL/pgSQL function" };
		return 0;
	}
	w.datums = floe_json_get(fn, "datums");
	w.new_varno = get_int(fn, "new_varno", -1);
	if (w.new_varno < 0)
		return 0; /* not a trigger function: no NEW to assign */
	const floe_json_value *action = floe_json_get(fn, "action");
	if (!action) {
		*out = (floe_proof_result){ FLOE_PROOF_FAILED, 0, "has no body" };
		return 0;
	}
	walk_stmt(&w, action, ST_UNASSIGNED);
	if (!w.touched)
		return 0; /* whatever else it does, it never sets the column */
	if (w.failed)
		*out = (floe_proof_result){ FLOE_PROOF_FAILED, w.line, w.why };
	else
		*out = (floe_proof_result){ FLOE_PROOF_PROVEN, 0, NULL };
	return 0;
}

int floe_proof_analyze_source(floe_proof_result *out, floe_arena *arena, const char *create_function,
			      const char *column)
{
	floe_json_doc *doc = NULL;
	if (floe_sqlparse_plpgsql(&doc, create_function) < 0) {
		const floe_error *e = floe_error_last();
		*out = (floe_proof_result){ FLOE_PROOF_FAILED, 0,
					    floe_arena_printf(arena, "could not be parsed (%s)",
							      e ? e->message : "?") };
		floe_error_clear();
		return 0;
	}
	int rc = floe_proof_analyze(out, arena, floe_json_root(doc), column);
	floe_json_free(doc);
	return rc;
}
