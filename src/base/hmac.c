/*
 * hmac.c — HMAC-SHA256 through libcrypto's one-shot HMAC().
 */
#include "base/hmac.h"
#include "base/error.h"

#include <limits.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

static const char digits[] = "0123456789abcdef";

int floe_hmac_sha256_hex(char out[FLOE_HMAC_HEX_LEN + 1], const void *key, size_t key_len, const void *msg,
			 size_t len)
{
	static const unsigned char empty[1] = { 0 };
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;
	char why[256];
	if (key_len > INT_MAX) {
		floe_error_set(FLOE_ERR_INTERNAL, "an HMAC key of %zu bytes is too long", key_len);
		return -1;
	}
	if (!HMAC(EVP_sha256(), key_len ? key : empty, (int)key_len, len ? msg : empty, len, md, &md_len) ||
	    md_len * 2 != FLOE_HMAC_HEX_LEN) {
		ERR_error_string_n(ERR_get_error(), why, sizeof(why));
		floe_error_set(FLOE_ERR_INTERNAL, "libcrypto could not compute an HMAC-SHA256");
		floe_error_detail("%s", why);
		return -1;
	}
	for (unsigned int i = 0; i < md_len; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[FLOE_HMAC_HEX_LEN] = '\0';
	return 0;
}

int floe_hmac_random_hex(char *out, size_t n_bytes)
{
	unsigned char raw[64];
	char why[256];
	if (n_bytes > sizeof(raw) || RAND_bytes(raw, (int)n_bytes) != 1) {
		ERR_error_string_n(ERR_get_error(), why, sizeof(why));
		floe_error_set(FLOE_ERR_INTERNAL, "libcrypto could not give %zu random bytes", n_bytes);
		floe_error_detail("%s", why);
		return -1;
	}
	for (size_t i = 0; i < n_bytes; i++) {
		out[2 * i] = digits[raw[i] >> 4];
		out[2 * i + 1] = digits[raw[i] & 15];
	}
	out[2 * n_bytes] = '\0';
	return 0;
}
