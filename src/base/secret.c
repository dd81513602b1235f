/*
 * secret.c — registry of secret values and their scrubbing.
 */
#include "base/secret.h"
#include "base/arena.h"
#include "base/log.h"

#include <stdbool.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECRETS 16
#define MASK "********"

static char *secrets[MAX_SECRETS];
static int n_secrets;
/* Load threads register the password as they connect while others scrub their log lines. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/*
 * A value that is short, or made of one kind of character only (letters: a word
 * such as "verified"; digits: a number such as a row count), also occurs in
 * floe's own output and in the data it prints: masking it would corrupt that
 * output, so such a value is not masked and the user is warned (once).
 */
static bool maskable(const char *value)
{
	size_t len = strlen(value);
	bool letters = false, digits = false, others = false;
	for (const char *p = value; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
			letters = true;
		else if (*p >= '0' && *p <= '9')
			digits = true;
		else
			others = true;
	}
	return len >= FLOE_SECRET_MIN_LEN && letters + digits + others >= 2;
}

/* The registry's update; the caller holds `mu`. */
static bool add(const char *value)
{
	for (int i = 0; i < n_secrets; i++)
		if (strcmp(secrets[i], value) == 0)
			return true;
	if (n_secrets == MAX_SECRETS)
		return false;
	secrets[n_secrets++] = floe_xstrndup(value, strlen(value));
	return true;
}

bool floe_secret_register(const char *value)
{
	static atomic_bool warned;
	if (!value || !value[0])
		return false;
	if (!maskable(value)) {
		/* logged outside `mu`: the log scrubs its lines, which takes `mu` */
		if (!atomic_exchange(&warned, true))
			floe_log_warn("a password floe was given is too short or too plain to be masked in "
				      "output (it would also mask words and numbers floe prints); floe "
				      "never prints it itself, but cannot hide it where a library or the "
				      "data quotes it. Use a password of at least %d characters that mixes "
				      "letters with digits or symbols.", FLOE_SECRET_MIN_LEN);
		return false;
	}
	pthread_mutex_lock(&mu);
	bool masked = add(value);
	pthread_mutex_unlock(&mu);
	return masked;
}

void floe_secret_reset(void)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < n_secrets; i++) {
		memset(secrets[i], 0, strlen(secrets[i]));
		free(secrets[i]);
	}
	n_secrets = 0;
	pthread_mutex_unlock(&mu);
}

static void scrub_one(floe_buf *buf, const char *secret)
{
	size_t slen = strlen(secret);
	if (buf->len < slen)
		return;
	floe_buf out = FLOE_BUF_INIT;
	size_t i = 0, start = 0;
	int found = 0;
	while (i + slen <= buf->len) {
		if (memcmp(buf->ptr + i, secret, slen) == 0) {
			floe_buf_put(&out, buf->ptr + start, i - start);
			floe_buf_puts(&out, MASK);
			i += slen;
			start = i;
			found = 1;
		} else {
			i++;
		}
	}
	if (!found) {
		floe_buf_free(&out);
		return;
	}
	floe_buf_put(&out, buf->ptr + start, buf->len - start);
	floe_buf_free(buf);
	*buf = out;
}

void floe_secret_scrub_buf(floe_buf *buf)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < n_secrets; i++)
		scrub_one(buf, secrets[i]);
	pthread_mutex_unlock(&mu);
}
