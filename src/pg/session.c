/*
 * session.c — libpq connections, queries and error translation.
 */
#include "pg/pg.h"
#include "pg/pg_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "base/secret.h"
#include "base/text.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct floe_pg {
	PGconn *conn;
	char describe[512];
	char version_text[64];
	int version;
};

struct floe_pg_result {
	PGresult *res;
};

/* libpq messages end with a newline and may span lines; keep the first line, scrubbed. */
static char *libpq_message(const char *raw)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *msg = raw ? raw : "unknown error";
	size_t n = strcspn(msg, "\n");
	floe_buf_put(&b, msg, n);
	floe_secret_scrub_buf(&b);
	return floe_buf_detach(&b, NULL);
}

/*
 * The hint for a failed connection, from what libpq knows of it — whether the server asked
 * for a password, and whether one was sent — never from the message's text. Returns whether
 * the server was reached and refused the login.
 */
static bool connect_hint(PGconn *conn, const floe_pg_target *t)
{
	const char *user = t->user ? t->user : "", *db = t->database ? t->database : "";
	const char *var = t->password_env ? t->password_env
					  : "the variable named by [source] password-env (FLOE_SOURCE_PASSWORD by default)";
	if (conn && PQconnectionNeedsPassword(conn)) {
		floe_error_hint("The server asks role `%s` for a password and none was given: set %s.", user, var);
		return true;
	}
	if (conn && PQconnectionUsedPassword(conn)) {
		floe_error_hint("Check the password in %s, the role `%s` and that database `%s` exists.", var, user, db);
		return true;
	}
	floe_error_hint("Is PostgreSQL running and listening there, and does database `%s` exist? Check `host`, "
			"`port` and `database` under [source]; for a local test cluster run `floe stack up`.", db);
	return false;
}

/* Server notices ("… already exists, skipping") are for the debug log, not the user's terminal. */
static void notice_to_log(void *arg, const char *message)
{
	(void)arg;
	floe_log_debug("postgres: %.*s", (int)strcspn(message, "\n"), message);
}

int floe_pg_connect(floe_pg **out, const floe_pg_target *t)
{
	const char *keys[16], *vals[16];
	int n = 0;
	char port[16], timeout[16], options[160];
	*out = NULL;

	snprintf(port, sizeof(port), "%d", t->port);
	snprintf(timeout, sizeof(timeout), "%d", t->connect_timeout > 0 ? t->connect_timeout : 10);
	keys[n] = "host", vals[n++] = t->host;
	keys[n] = "port", vals[n++] = port;
	keys[n] = "dbname", vals[n++] = t->database;
	keys[n] = "user", vals[n++] = t->user;
	if (t->password)
		keys[n] = "password", vals[n++] = t->password;
	if (t->sslmode)
		keys[n] = "sslmode", vals[n++] = t->sslmode;
	keys[n] = "connect_timeout", vals[n++] = timeout;
	keys[n] = "application_name", vals[n++] = "floe";
	if (t->replication)
		keys[n] = "replication", vals[n++] = "database";
	/* Read-only and lock_timeout are set at startup, so no statement of ours runs before they
	 * apply. Without a lock timeout, a read queued behind another session's ALTER TABLE waits
	 * forever — and every later query on that table queues behind floe's read. */
	snprintf(options, sizeof(options), "-c client_encoding=UTF8%s -c lock_timeout=%lld",
		 t->read_only ? " -c default_transaction_read_only=on" : "",
		 (long long)(t->lock_timeout_seconds > 0 ? t->lock_timeout_seconds * 1000 : 0));
	keys[n] = "options", vals[n++] = options;
	keys[n] = NULL, vals[n] = NULL;

	floe_pg *pg = floe_xcalloc(1, sizeof(*pg));
	snprintf(pg->describe, sizeof(pg->describe), "%s:%d/%s", t->host ? t->host : "localhost",
		 t->port, t->database ? t->database : "");
	floe_log_info("connecting to %s as \"%s\"%s", pg->describe, t->user ? t->user : "",
		      t->read_only ? " (read-only session)" : "");
	pg->conn = PQconnectdbParams(keys, vals, 0);
	if (!pg->conn || PQstatus(pg->conn) != CONNECTION_OK) {
		char *why = libpq_message(pg->conn ? PQerrorMessage(pg->conn) : NULL);
		floe_error_set(FLOE_ERR_UNREACHABLE, "could not connect to PostgreSQL at %s as \"%s\"",
			       pg->describe, t->user ? t->user : "");
		floe_error_detail("%s", why);
		bool login = connect_hint(pg->conn, t);
		const floe_error *e = floe_error_last();
		floe_error_code_set(login ? FLOE_CODE_SOURCE_LOGIN : FLOE_CODE_SOURCE_UNREACHABLE, "%s%s%s", why,
				    e->hint ? " — " : "", e->hint ? e->hint : "");
		free(why);
		floe_pg_close(pg);
		return -1;
	}
	PQsetNoticeProcessor(pg->conn, notice_to_log, NULL);
	pg->version = PQserverVersion(pg->conn);
	floe_log_debug("connected to %s, server_version_num %d", pg->describe, pg->version);
	const char *sv = PQparameterStatus(pg->conn, "server_version");
	snprintf(pg->version_text, sizeof(pg->version_text), "%s", sv ? sv : "?");
	*out = pg;
	return 0;
}

void floe_pg_close(floe_pg *pg)
{
	if (!pg)
		return;
	if (pg->conn)
		PQfinish(pg->conn);
	free(pg);
}

const char *floe_pg_describe(const floe_pg *pg)
{
	return pg->describe;
}

int floe_pg_server_version(const floe_pg *pg)
{
	return pg->version;
}

const char *floe_pg_server_version_text(const floe_pg *pg)
{
	return pg->version_text;
}

floe_error_code floe_pg_code_of_sqlstate(const char *state, bool connected)
{
	static const struct {
		const char *state; /* five characters, or a two-character class */
		floe_error_code code;
	} map[] = {
		{ "57P01", FLOE_CODE_SOURCE_SHUTDOWN },     /* admin_shutdown (pg_terminate_backend too) */
		{ "57P02", FLOE_CODE_SOURCE_SHUTDOWN },     /* crash_shutdown */
		{ "57P03", FLOE_CODE_SOURCE_SHUTDOWN },     /* cannot_connect_now */
		{ "57014", FLOE_CODE_SOURCE_CANCELED },     /* query_canceled */
		{ "22021", FLOE_CODE_SOURCE_ENCODING },     /* character_not_in_repertoire */
		{ "22P05", FLOE_CODE_SOURCE_ENCODING },     /* untranslatable_character */
		{ "42703", FLOE_CODE_SOURCE_CHANGED },      /* undefined_column */
		{ "42P01", FLOE_CODE_SOURCE_CHANGED },      /* undefined_table */
		{ "42501", FLOE_CODE_SOURCE_PRIVILEGE },    /* insufficient_privilege */
		{ "55P03", FLOE_CODE_SOURCE_LOCKED },       /* lock_not_available */
		{ "55006", FLOE_CODE_SOURCE_LOCKED },       /* object_in_use: a replication slot another process holds */
		{ "40001", FLOE_CODE_SOURCE_SERIALIZATION }, /* serialization_failure */
		{ "40P01", FLOE_CODE_SOURCE_SERIALIZATION }, /* deadlock_detected */
		{ "53100", FLOE_CODE_DISK_FULL },           /* disk_full: the server's disk */
		{ "08", FLOE_CODE_SOURCE_LOST },            /* connection exception */
	};
	for (size_t i = 0; state && strlen(state) == 5 && i < sizeof(map) / sizeof(map[0]); i++)
		if (strncmp(state, map[i].state, strlen(map[i].state)) == 0)
			return map[i].code;
	return connected ? FLOE_CODE_NONE : FLOE_CODE_SOURCE_LOST;
}

int floe_pg_result_error(floe_pg *pg, PGresult *res, const char *sql)
{
	char *why = libpq_message(res ? PQresultErrorMessage(res) : PQerrorMessage(pg->conn));
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	floe_error_code code = floe_pg_code_of_sqlstate(state, PQstatus(pg->conn) == CONNECTION_OK);
	/* The cause quotes the server's words without the severity ("ERROR:  "). */
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char *words = primary ? libpq_message(primary) : NULL;
	floe_error_set(FLOE_ERR_INTERNAL, "query on %s failed: %s", pg->describe, why);
	floe_error_code_set(code, "%s", words ? words : why);
	free(words);
	free(why);
	const char *hint = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_HINT) : NULL;
	if (hint)
		floe_error_hint("%s", hint);
	/* The statement text is ours, never user data; keep only its first line. */
	floe_error_context("while running: %.*s", (int)strcspn(sql, "\n"), sql);
	return -1;
}

PGresult *floe_pg_results(floe_pg *pg, int sent)
{
	PGresult *kept = NULL, *res;
	while (sent && (res = PQgetResult(pg->conn)) != NULL) {
		if (kept && PQresultStatus(kept) == PGRES_FATAL_ERROR) {
			PQclear(res);
		} else {
			PQclear(kept);
			kept = res;
		}
		ExecStatusType st = PQresultStatus(res);
		if (st == PGRES_COPY_OUT || st == PGRES_COPY_IN || st == PGRES_COPY_BOTH ||
		    PQstatus(pg->conn) == CONNECTION_BAD)
			break;
	}
	return kept;
}

int floe_pg_query(floe_pg_result **out, floe_pg *pg, const char *sql, int nparams,
		  const char *const *params)
{
	*out = NULL;
	PGresult *res = floe_pg_results(pg, PQsendQueryParams(pg->conn, sql, nparams, NULL, params, NULL, NULL, 0));
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
		floe_pg_result_error(pg, res, sql);
		PQclear(res);
		return -1;
	}
	floe_pg_result *r = floe_xcalloc(1, sizeof(*r));
	r->res = res;
	*out = r;
	return 0;
}

floe_pg_result *floe_pg_result_wrap(PGresult *res)
{
	floe_pg_result *r = floe_xcalloc(1, sizeof(*r));
	r->res = res;
	return r;
}

int floe_pg_exec(floe_pg *pg, const char *sql)
{
	floe_pg_result *r = NULL;
	if (floe_pg_query(&r, pg, sql, 0, NULL) < 0)
		return -1;
	floe_pg_result_free(r);
	return 0;
}

long long floe_pg_result_affected(const floe_pg_result *r)
{
	const char *v = PQcmdTuples(r->res);
	int64_t n = 0;
	if (!v || floe_text_parse_int64(&n, v, strlen(v), 0, INT64_MAX) < 0)
		return 0;
	return (long long)n;
}

int floe_pg_result_rows(const floe_pg_result *r)
{
	return PQntuples(r->res);
}

int floe_pg_result_cols(const floe_pg_result *r)
{
	return PQnfields(r->res);
}

bool floe_pg_result_is_null(const floe_pg_result *r, int row, int col)
{
	return PQgetisnull(r->res, row, col);
}

const char *floe_pg_result_text(const floe_pg_result *r, int row, int col)
{
	return PQgetvalue(r->res, row, col);
}

bool floe_pg_result_bool(const floe_pg_result *r, int row, int col)
{
	const char *v = PQgetvalue(r->res, row, col);
	return v && v[0] == 't';
}

long long floe_pg_result_int(const floe_pg_result *r, int row, int col)
{
	const char *v = PQgetvalue(r->res, row, col);
	int64_t n = 0;
	if (!v || floe_text_parse_int64(&n, v, strlen(v), INT64_MIN, INT64_MAX) < 0)
		return 0;
	return (long long)n;
}

void floe_pg_result_free(floe_pg_result *r)
{
	if (!r)
		return;
	PQclear(r->res);
	free(r);
}

static int put_escaped(floe_buf *out, floe_pg *pg, char *escaped)
{
	if (!escaped) {
		char *why = libpq_message(PQerrorMessage(pg->conn));
		floe_error_set(FLOE_ERR_INTERNAL, "could not quote a value: %s", why);
		free(why);
		return -1;
	}
	int rc = floe_buf_puts(out, escaped);
	PQfreemem(escaped);
	return rc;
}

int floe_pg_quote_ident(floe_buf *out, floe_pg *pg, const char *ident)
{
	return put_escaped(out, pg, PQescapeIdentifier(pg->conn, ident, strlen(ident)));
}

int floe_pg_quote_literal(floe_buf *out, floe_pg *pg, const char *literal)
{
	return put_escaped(out, pg, PQescapeLiteral(pg->conn, literal, strlen(literal)));
}

int floe_pg_set_role_password(floe_pg *pg, const char *role, const char *password)
{
	char *verifier = PQencryptPasswordConn(pg->conn, password, role, "scram-sha-256");
	if (!verifier) {
		char *why = libpq_message(PQerrorMessage(pg->conn));
		floe_error_set(FLOE_ERR_INTERNAL, "could not hash the password of role \"%s\": %s", role, why);
		free(why);
		return -1;
	}
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "ALTER ROLE ");
	int error = floe_pg_quote_ident(&sql, pg, role);
	if (error == 0) {
		floe_buf_puts(&sql, " PASSWORD ");
		error = floe_pg_quote_literal(&sql, pg, verifier);
	}
	if (error == 0)
		error = floe_pg_exec(pg, floe_buf_cstr(&sql));
	PQfreemem(verifier);
	floe_buf_free(&sql);
	return error;
}

PGconn *floe_pg_conn(floe_pg *pg)
{
	return pg->conn;
}

void floe_pg_cancel(floe_pg *pg)
{
	PGcancel *cancel = PQgetCancel(pg->conn);
	char why[256];
	if (cancel) {
		PQcancel(cancel, why, sizeof(why));
		PQfreeCancel(cancel);
	}
}

int floe_pg_begin(floe_pg *pg)
{
	return floe_pg_exec(pg, "BEGIN");
}

int floe_pg_commit(floe_pg *pg)
{
	return floe_pg_exec(pg, "COMMIT");
}

void floe_pg_rollback(floe_pg *pg)
{
	/* The failure being handled is the error worth reporting; this one is not. */
	if (!pg || PQstatus(pg->conn) != CONNECTION_OK)
		return;
	if (PQtransactionStatus(pg->conn) == PQTRANS_ACTIVE)
		floe_pg_copy_in_abort(pg, "rolled back"); /* a COPY … FROM STDIN left open */
	PGresult *res = floe_pg_results(pg, PQsendQuery(pg->conn, "ROLLBACK"));
	PQclear(res);
}
