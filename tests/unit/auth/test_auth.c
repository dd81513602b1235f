/*
 * test_auth.c — roles, hashed tokens and sessions in the run ledger (src/auth).
 */
#include "harness.h"
#include "auth/auth.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "state/console.h"

#include <stdlib.h>
#include <string.h>

static char *temp_project(void)
{
	char *dir = strdup("/tmp/floe-auth-XXXXXX");
	return mkdtemp(dir);
}

FLOE_TEST(auth_roles_parse_and_order)
{
	floe_role r = FLOE_ROLE_NONE;
	FLOE_CHECK(floe_auth_role_parse(&r, "viewer") == 0 && r == FLOE_ROLE_VIEWER);
	FLOE_CHECK(floe_auth_role_parse(&r, "operator") == 0 && r == FLOE_ROLE_OPERATOR);
	FLOE_CHECK(floe_auth_role_parse(&r, "admin") == 0 && r == FLOE_ROLE_ADMIN);
	FLOE_CHECK(floe_auth_role_parse(&r, "root") < 0 && floe_error_exit_code() == 2);
	floe_error_clear();
	FLOE_CHECK(floe_auth_role_parse(&r, "none") < 0);
	floe_error_clear();
	FLOE_CHECK(FLOE_ROLE_VIEWER < FLOE_ROLE_OPERATOR && FLOE_ROLE_OPERATOR < FLOE_ROLE_ADMIN);
	FLOE_CHECK_STR(floe_auth_role_name(FLOE_ROLE_OPERATOR), "operator");
	FLOE_CHECK(floe_auth_secret_eq("abc", "abc") && !floe_auth_secret_eq("abc", "abd") &&
		   !floe_auth_secret_eq("abc", "abcd") && !floe_auth_secret_eq("", "a"));
}

FLOE_TEST(auth_tokens_are_stored_hashed_and_revocable)
{
	char *dir = temp_project();
	char t1[FLOE_AUTH_TOKEN_LEN + 1], t2[FLOE_AUTH_TOKEN_LEN + 1], name[FLOE_AUTH_NAME_MAX], who[FLOE_AUTH_NAME_MAX];
	floe_role r = FLOE_ROLE_NONE;
	int64_t n = -1;
	FLOE_CHECK(floe_auth_token_count(dir, &n) == 0 && n == 0);
	FLOE_CHECK(floe_auth_token_add(t1, name, dir, FLOE_ROLE_OPERATOR, "ops") == 0);
	FLOE_CHECK(strlen(t1) == FLOE_AUTH_TOKEN_LEN && strncmp(t1, "floe_", 5) == 0);
	FLOE_CHECK_STR(name, "ops");
	FLOE_CHECK(floe_auth_token_add(t2, name, dir, FLOE_ROLE_VIEWER, NULL) == 0);
	FLOE_CHECK(strncmp(name, "viewer-", 7) == 0 && strcmp(t1, t2) != 0);
	FLOE_CHECK(floe_auth_token_add(t2, name, dir, FLOE_ROLE_VIEWER, "ops") < 0 && t2[0] == '\0');
	floe_error_clear();
	FLOE_CHECK(floe_auth_token_add(t2, name, dir, FLOE_ROLE_VIEWER, "no spaces") < 0);
	floe_error_clear();
	/* The ledger holds the SHA-256, never the token. */
	floe_buf db = FLOE_BUF_INIT, path = FLOE_BUF_INIT;
	char hash[FLOE_SHA256_HEX_LEN + 1];
	floe_sha256_hex(hash, t1, strlen(t1));
	floe_buf_printf(&path, "%s/.floe/state.db", dir);
	FLOE_CHECK(floe_fs_read_file(&db, path.ptr) == 0);
	FLOE_CHECK(memmem(db.ptr, db.len, t1 + 5, 64) == NULL && memmem(db.ptr, db.len, hash, 64) != NULL);
	floe_buf_free(&db);
	floe_buf_free(&path);
	FLOE_CHECK(floe_auth_token_check(&r, who, dir, t1) == 0 && r == FLOE_ROLE_OPERATOR);
	FLOE_CHECK_STR(who, "ops");
	t1[10] ^= 1;
	FLOE_CHECK(floe_auth_token_check(&r, who, dir, t1) == 0 && r == FLOE_ROLE_NONE);
	t1[10] ^= 1;
	FLOE_CHECK(floe_auth_token_check(&r, who, dir, "floe_short") == 0 && r == FLOE_ROLE_NONE);
	FLOE_CHECK(floe_auth_token_count(dir, &n) == 0 && n == 2);
	FLOE_CHECK(floe_auth_token_revoke(dir, "ops") == 0);
	FLOE_CHECK(floe_auth_token_check(&r, who, dir, t1) == 0 && r == FLOE_ROLE_NONE);
	FLOE_CHECK(floe_auth_token_revoke(dir, "ops") < 0 && floe_error_exit_code() == 2);
	floe_error_clear();
	floe_fs_remove_tree(dir);
	free(dir);
}

FLOE_TEST(auth_sessions_follow_their_token)
{
	char *dir = temp_project();
	char tok[FLOE_AUTH_TOKEN_LEN + 1], name[FLOE_AUTH_NAME_MAX];
	char cookie[FLOE_AUTH_SECRET_LEN + 1];
	FLOE_CHECK(floe_auth_token_add(tok, name, dir, FLOE_ROLE_ADMIN, "boss") == 0);
	floe_auth_session made, ses;
	FLOE_CHECK(floe_auth_session_new(cookie, &made, dir, "floe_wrong", 1000) == 0 && made.role == FLOE_ROLE_NONE &&
		   cookie[0] == '\0');
	FLOE_CHECK(floe_auth_session_new(cookie, &made, dir, tok, 1000) == 0 && made.role == FLOE_ROLE_ADMIN);
	FLOE_CHECK(strlen(cookie) == 64 && strlen(made.csrf) == 64 && strcmp(cookie, made.csrf) != 0);
	FLOE_CHECK_STR(made.name, "boss");
	FLOE_CHECK(floe_auth_session_check(&ses, dir, cookie, 1001) == 0 && ses.role == FLOE_ROLE_ADMIN);
	FLOE_CHECK_STR(ses.csrf, made.csrf);
	FLOE_CHECK_STR(ses.name, "boss");
	/* Expired, then ended by revoking the token. */
	FLOE_CHECK(floe_auth_session_check(&ses, dir, cookie, 1000 + FLOE_AUTH_SESSION_SECONDS) == 0 &&
		   ses.role == FLOE_ROLE_NONE);
	FLOE_CHECK(floe_auth_token_revoke(dir, "boss") == 0);
	FLOE_CHECK(floe_auth_session_check(&ses, dir, cookie, 1001) == 0 && ses.role == FLOE_ROLE_NONE);
	floe_fs_remove_tree(dir);
	free(dir);
}
