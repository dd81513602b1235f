/*
 * address.c — the short source address users type: host[:port]/database,
 * [v6addr]:port/database, /socket/directory[:port]/database, or
 * postgresql://[user@]host[:port]/database.
 * A password anywhere in it — user:password@ in a URI, ?password= in its query,
 * password= in a key=value connection string — is refused without echoing the
 * text: floe takes passwords only from the environment (or .floe/secrets/).
 */
#include "pg/pg.h"
#include "base/error.h"
#include "base/text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int address_error(const char *text, const char *why)
{
	floe_error_set(FLOE_ERR_USAGE, "source address \"%s\" is not valid: %s", text, why);
	floe_error_hint("Write it as HOST:PORT/DATABASE, e.g. 127.0.0.1:5432/shop.");
	return -1;
}

static int copy_part(char *dst, size_t cap, const char *src, size_t len)
{
	if (len == 0 || len >= cap)
		return -1;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

/*
 * Whether `text` may hold a password: `user:secret@` before the host (with or
 * without a scheme; a ':' anywhere before the last '@' counts, so a database
 * name holding both is refused too — write it in floe.toml), or the word "password" in a URI query or a key=value
 * string (libpq reads `password=` in both; case-insensitive, as a key may be
 * spelled in any case by mistake).
 */
static bool holds_password(const char *text)
{
	const char *p = strstr(text, "://");
	p = p ? p + 3 : text;
	/* The last '@': a password may itself hold '/', '?' or '@' when not percent-encoded. */
	const char *at = strrchr(p, '@');
	if (at && memchr(p, ':', (size_t)(at - p)))
		return true;
	return strchr(text, '=') && strcasestr(text, "password");
}

int floe_pg_parse_address(floe_pg_address *out, const char *text)
{
	const char *p = text;
	memset(out, 0, sizeof(*out));
	out->port = 5432;

	if (holds_password(text)) {
		/* Never echo the address: it holds a password. */
		floe_error_set(FLOE_ERR_USAGE, "the source address contains a password");
		floe_error_hint("Remove it from the address and put it in FLOE_SOURCE_PASSWORD (or the "
				"variable --password-env names); floe never takes a password on the "
				"command line, where other users and the shell history can read it.");
		return -1;
	}
	if (strchr(text, '=') && !strchr(text, '?'))
		return address_error(text, "key=value connection strings are not read here");
	if (strncmp(p, "postgresql://", 13) == 0 || strncmp(p, "postgres://", 11) == 0) {
		p = strstr(p, "://") + 3;
		const char *at = strchr(p, '@');
		const char *slash = strchr(p, '/');
		if (at && (!slash || at < slash)) {
			if (copy_part(out->user, sizeof(out->user), p, (size_t)(at - p)) < 0)
				return address_error(text, "the user name is empty or too long");
			p = at + 1;
		}
	}
	/* A socket directory is a path itself: the database follows its last '/'. */
	const char *slash = *p == '/' ? strrchr(p, '/') : strchr(p, '/');
	if (!slash || slash == p)
		return address_error(text, "it names no database after a '/'");
	const char *host_end = slash, *port_start = NULL;
	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(slash - p));
		if (!close)
			return address_error(text, "an IPv6 address needs a closing ']'");
		if (copy_part(out->host, sizeof(out->host), p + 1, (size_t)(close - p - 1)) < 0)
			return address_error(text, "the host is empty or too long");
		if (close[1] == ':')
			port_start = close + 2;
	} else {
		const char *colon = *p == '/' ? memrchr(p, ':', (size_t)(slash - p)) : memchr(p, ':', (size_t)(slash - p));
		if (colon) {
			host_end = colon;
			port_start = colon + 1;
		}
		if (copy_part(out->host, sizeof(out->host), p, (size_t)(host_end - p)) < 0)
			return address_error(text, "the host is empty or too long");
	}
	if (port_start) {
		int64_t port;
		if (floe_text_parse_int64(&port, port_start, (size_t)(slash - port_start), 1, 65535) < 0)
			return address_error(text, "the port is not a number from 1 to 65535");
		out->port = (int)port;
	}
	const char *db = slash + 1;
	size_t dblen = strcspn(db, "?");
	if (copy_part(out->database, sizeof(out->database), db, dblen) < 0)
		return address_error(text, "the database name is empty or too long");
	if (db[dblen] == '?')
		return address_error(text, "floe does not read URI parameters (?…); put sslmode and "
				     "the like under [source] in floe.toml");
	return 0;
}
