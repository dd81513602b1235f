/*
 * digest.c — one-shot SHA-256 and MD5 through libcrypto's EVP_Digest().
 */
#include "base/digest.h"
#include "base/error.h"

#include <openssl/err.h>
#include <openssl/evp.h>

/* Digest `len` bytes with `md` into `out` (*out_len bytes); 0, or -1 with the error set. */
static int digest(const EVP_MD *md, const char *name, unsigned char out[EVP_MAX_MD_SIZE], unsigned int *out_len,
		  const void *data, size_t len)
{
	static const unsigned char empty[1] = { 0 };
	char why[256];
	int error = 0;
	if (!md || EVP_Digest(len ? data : empty, len, out, out_len, md, NULL) != 1) {
		ERR_error_string_n(ERR_get_error(), why, sizeof(why));
		error = floe_error_set(FLOE_ERR_INTERNAL, "libcrypto could not compute %s", name);
		floe_error_detail("%s", why);
	}
	return error;
}

int floe_digest_sha256_hex(char out[FLOE_DIGEST_SHA256_HEX_LEN + 1], const void *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int error = digest(EVP_sha256(), "a SHA-256", md, &n, data, len);
	for (unsigned int i = 0; error == 0 && i < n && i < FLOE_DIGEST_SHA256_HEX_LEN / 2; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[FLOE_DIGEST_SHA256_HEX_LEN] = '\0';
	return error;
}

int floe_digest_md5_base64(char out[FLOE_DIGEST_MD5_BASE64_LEN + 1], const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int error = digest(EVP_md5(), "an MD5", md, &n, data, len);
	out[0] = '\0';
	if (error == 0)
		EVP_EncodeBlock((unsigned char *)out, md, (int)n); /* 16 bytes: 24 characters and a NUL */
	return error;
}
