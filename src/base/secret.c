/*
 * secret.c — registry of secret values and their scrubbing.
 */
#include "base/secret.h"
#include "base/arena.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SECRETS 16
#define MASK "********"

static char *secrets[MAX_SECRETS];
static int n_secrets;
/* Load threads register the password as they connect while others scrub their log lines. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void add(const char *value)
{
	if (!value || strlen(value) < 4 || n_secrets == MAX_SECRETS)
		return;
	for (int i = 0; i < n_secrets; i++)
		if (strcmp(secrets[i], value) == 0)
			return;
	secrets[n_secrets++] = floe_xstrndup(value, strlen(value));
}

void floe_secret_register(const char *value)
{
	pthread_mutex_lock(&mu);
	add(value);
	pthread_mutex_unlock(&mu);
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
