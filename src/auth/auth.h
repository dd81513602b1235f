/*
 * auth.h — who may do what in `floe serve`: roles, access tokens and browser sessions.
 *
 * Roles are ordered: viewer < operator < admin (a route names the least role it needs).
 * A token is "floe_" + 64 hex digits (32 bytes from libcrypto's CSPRNG); it is shown once
 * by `floe serve token add` and the ledger keeps only its SHA-256 (state/console.h). A
 * browser session is a random cookie (its SHA-256 in the ledger) bound to the token that
 * logged in, with its own CSRF token; revoking the token ends its sessions.
 * Every function opens the project's ledger itself (handlers run concurrently).
 */
#ifndef FLOE_AUTH_AUTH_H
#define FLOE_AUTH_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum floe_role {
	FLOE_ROLE_NONE = 0,
	FLOE_ROLE_VIEWER = 1,
	FLOE_ROLE_OPERATOR = 2,
	FLOE_ROLE_ADMIN = 3
} floe_role;

#define FLOE_AUTH_TOKEN_LEN (5 + 64)  /* "floe_" + 32 bytes in hex */
#define FLOE_AUTH_SECRET_LEN 64       /* a session cookie or CSRF token: 32 bytes in hex */
#define FLOE_AUTH_NAME_MAX 64
#define FLOE_AUTH_SESSION_SECONDS (12 * 3600)

/* "viewer" | "operator" | "admin"; FLOE_ERR_USAGE for anything else. */
int floe_auth_role_parse(floe_role *out, const char *text);
/* The name of a role ("none" for FLOE_ROLE_NONE). */
const char *floe_auth_role_name(floe_role role);

/*
 * A new token of `role` named `name` (NULL: "<role>-<8 hex digits>") into `token`; its
 * hash is stored, the token itself nowhere. `name_out` (FLOE_AUTH_NAME_MAX) gets the name.
 * FLOE_ERR_USAGE when the name is taken or is not 1–64 of [A-Za-z0-9._-].
 */
int floe_auth_token_add(char token[FLOE_AUTH_TOKEN_LEN + 1], char name_out[FLOE_AUTH_NAME_MAX],
			const char *project_dir, floe_role role, const char *name);

/* Remove the token `name` and its sessions; FLOE_ERR_USAGE when there is none. */
int floe_auth_token_revoke(const char *project_dir, const char *name);

/* How many tokens exist (0: nobody configured access). */
int floe_auth_token_count(const char *project_dir, int64_t *out);

/* The role of a presented token (FLOE_ROLE_NONE when unknown); `name_out` gets its name. */
int floe_auth_token_check(floe_role *out, char name_out[FLOE_AUTH_NAME_MAX], const char *project_dir,
			  const char *token);

typedef struct floe_auth_session {
	floe_role role;                      /* NONE: no live session has this cookie */
	char csrf[FLOE_AUTH_SECRET_LEN + 1];
	char name[FLOE_AUTH_NAME_MAX];       /* the token that logged in */
} floe_auth_session;

/*
 * Log in with a token: a new session of its role for FLOE_AUTH_SESSION_SECONDS. `cookie` is
 * the value to set (only its hash is stored); out gets the role, the CSRF token state-changing
 * requests echo and the token's name. out->role NONE (and no session) when the token is unknown.
 */
int floe_auth_session_new(char cookie[FLOE_AUTH_SECRET_LEN + 1], floe_auth_session *out, const char *project_dir,
			  const char *token, int64_t now);

/* The live session of a cookie at `now` (out->role NONE when none). */
int floe_auth_session_check(floe_auth_session *out, const char *project_dir, const char *cookie, int64_t now);

int floe_auth_session_end(const char *project_dir, const char *cookie);

/* Whether two secrets are equal, in time independent of where they differ. */
bool floe_auth_secret_eq(const char *a, const char *b);

#endif
