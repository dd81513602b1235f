/*
 * auth.c — roles, tokens and sessions of `floe serve` (auth.h), kept in the run ledger.
 */
#include "auth/auth.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/hmac.h"
#include "base/sha256.h"
#include "state/console.h"

#include <stdio.h>
#include <string.h>

#define TOKEN_PREFIX "floe_"

static const char *const role_names[] = { "none", "viewer", "operator", "admin" };

int floe_auth_role_parse(floe_role *out, const char *text)
{
	for (int r = FLOE_ROLE_VIEWER; r <= FLOE_ROLE_ADMIN; r++)
		if (text && strcmp(text, role_names[r]) == 0) {
			*out = (floe_role)r;
			return 0;
		}
	floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not a role", text ? text : "");
	floe_error_hint("A role is viewer (reads everything), operator (also runs jobs) or admin (also dangerous actions).");
	return -1;
}

const char *floe_auth_role_name(floe_role role)
{
	return role >= FLOE_ROLE_NONE && role <= FLOE_ROLE_ADMIN ? role_names[role] : "none";
}

bool floe_auth_secret_eq(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char diff = (unsigned char)(na != nb);
	for (size_t i = 0; i < na && i < nb; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

static bool name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= FLOE_AUTH_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", name[i]))
			return false;
	return true;
}

/* A stored role name as a role (NONE for anything unknown: a ledger edited by hand grants nothing). */
static floe_role role_from_text(const char *text)
{
	for (int r = FLOE_ROLE_VIEWER; r <= FLOE_ROLE_ADMIN; r++)
		if (text && strcmp(text, role_names[r]) == 0)
			return (floe_role)r;
	return FLOE_ROLE_NONE;
}

static void hash_of(char out[FLOE_SHA256_HEX_LEN + 1], const char *secret)
{
	floe_sha256_hex(out, secret, strlen(secret));
}

int floe_auth_token_add(char token[FLOE_AUTH_TOKEN_LEN + 1], char name_out[FLOE_AUTH_NAME_MAX],
			const char *project_dir, floe_role role, const char *name)
{
	floe_state *st = NULL;
	char hex[FLOE_AUTH_SECRET_LEN + 1], hash[FLOE_SHA256_HEX_LEN + 1];
	int error = -1;
	token[0] = '\0';
	if (name && !name_ok(name)) {
		floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not a token name", name);
		floe_error_hint("Use 1 to 63 letters, digits, dots, dashes or underscores, e.g. `--name ci-reader`.");
		goto cleanup;
	}
	if (floe_hmac_random_hex(hex, FLOE_AUTH_SECRET_LEN / 2) < 0)
		goto cleanup;
	if (name)
		snprintf(name_out, FLOE_AUTH_NAME_MAX, "%s", name);
	else
		snprintf(name_out, FLOE_AUTH_NAME_MAX, "%s-%.8s", floe_auth_role_name(role), hex + 56);
	snprintf(token, FLOE_AUTH_TOKEN_LEN + 1, TOKEN_PREFIX "%s", hex);
	hash_of(hash, token);
	if (floe_state_open(&st, project_dir) < 0 ||
	    floe_state_token_put(st, name_out, hash, floe_auth_role_name(role)) < 0)
		goto cleanup;
	error = 0;
cleanup:
	if (error < 0)
		token[0] = '\0';
	floe_state_close(st);
	return error;
}

int floe_auth_token_revoke(const char *project_dir, const char *name)
{
	floe_state *st = NULL;
	bool found = false;
	int error = -1;
	if (floe_state_open(&st, project_dir) < 0 || floe_state_token_revoke(st, name, &found) < 0)
		goto cleanup;
	if (!found) {
		floe_error_set(FLOE_ERR_USAGE, "no token is named \"%s\"", name);
		floe_error_hint("`floe serve token list` shows the names.");
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_state_close(st);
	return error;
}

int floe_auth_token_count(const char *project_dir, int64_t *out)
{
	floe_state *st = NULL;
	int error = floe_state_open(&st, project_dir) < 0 ? -1 : floe_state_token_count(st, out);
	floe_state_close(st);
	return error;
}

/* The token's role and name from an open ledger (NONE when unknown or malformed). */
static int token_role(floe_role *out, char name_out[FLOE_AUTH_NAME_MAX], floe_state *st, const char *token)
{
	floe_arena *a = floe_arena_new();
	floe_state_token *t = NULL;
	char hash[FLOE_SHA256_HEX_LEN + 1];
	int error = 0;
	*out = FLOE_ROLE_NONE;
	name_out[0] = '\0';
	if (token && strncmp(token, TOKEN_PREFIX, strlen(TOKEN_PREFIX)) == 0 && strlen(token) == FLOE_AUTH_TOKEN_LEN) {
		hash_of(hash, token);
		error = floe_state_token_find(st, a, hash, &t);
		if (t) {
			*out = role_from_text(t->role);
			snprintf(name_out, FLOE_AUTH_NAME_MAX, "%s", t->name);
		}
	}
	floe_arena_free(a);
	return error;
}

int floe_auth_token_check(floe_role *out, char name_out[FLOE_AUTH_NAME_MAX], const char *project_dir,
			  const char *token)
{
	floe_state *st = NULL;
	*out = FLOE_ROLE_NONE;
	name_out[0] = '\0';
	int error = floe_state_open(&st, project_dir) < 0 ? -1 : token_role(out, name_out, st, token);
	floe_state_close(st);
	return error;
}

int floe_auth_session_new(char cookie[FLOE_AUTH_SECRET_LEN + 1], floe_auth_session *out, const char *project_dir,
			  const char *token, int64_t now)
{
	floe_state *st = NULL;
	char hash[FLOE_SHA256_HEX_LEN + 1];
	int error = -1;
	memset(out, 0, sizeof(*out));
	cookie[0] = '\0';
	if (floe_state_open(&st, project_dir) < 0 || token_role(&out->role, out->name, st, token) < 0)
		goto cleanup;
	if (out->role != FLOE_ROLE_NONE) {
		if (floe_hmac_random_hex(cookie, FLOE_AUTH_SECRET_LEN / 2) < 0 ||
		    floe_hmac_random_hex(out->csrf, FLOE_AUTH_SECRET_LEN / 2) < 0)
			goto cleanup;
		hash_of(hash, cookie);
		floe_state_session s = { out->name, floe_auth_role_name(out->role), out->csrf, now + FLOE_AUTH_SESSION_SECONDS };
		if (floe_state_session_put(st, hash, &s, now) < 0)
			goto cleanup;
	}
	error = 0;
cleanup:
	if (error < 0) {
		cookie[0] = '\0';
		memset(out, 0, sizeof(*out));
	}
	floe_state_close(st);
	return error;
}

int floe_auth_session_check(floe_auth_session *out, const char *project_dir, const char *cookie, int64_t now)
{
	floe_state *st = NULL;
	floe_arena *a = floe_arena_new();
	floe_state_session *s = NULL;
	char hash[FLOE_SHA256_HEX_LEN + 1];
	int error = -1;
	memset(out, 0, sizeof(*out));
	hash_of(hash, cookie);
	if (floe_state_open(&st, project_dir) < 0 || floe_state_session_find(st, a, hash, now, &s) < 0)
		goto cleanup;
	if (s) {
		out->role = role_from_text(s->role);
		snprintf(out->csrf, sizeof(out->csrf), "%s", s->csrf);
		snprintf(out->name, sizeof(out->name), "%s", s->token_name);
	}
	error = 0;
cleanup:
	floe_arena_free(a);
	floe_state_close(st);
	return error;
}

int floe_auth_session_end(const char *project_dir, const char *cookie)
{
	floe_state *st = NULL;
	char hash[FLOE_SHA256_HEX_LEN + 1];
	hash_of(hash, cookie);
	int error = floe_state_open(&st, project_dir) < 0 ? -1 : floe_state_session_delete(st, hash);
	floe_state_close(st);
	return error;
}
