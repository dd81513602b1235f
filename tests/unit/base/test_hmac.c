/*
 * test_hmac.c — HMAC-SHA256 through libcrypto: RFC 4231's test vectors, and empty inputs.
 */
#include "harness.h"
#include "base/hmac.h"

#include <string.h>

FLOE_TEST(hmac_rfc4231_vectors)
{
	char hex[FLOE_HMAC_HEX_LEN + 1];
	unsigned char key1[20];
	memset(key1, 0x0b, sizeof(key1));
	FLOE_CHECK(floe_hmac_sha256_hex(hex, key1, sizeof(key1), "Hi There", 8) == 0);
	FLOE_CHECK_STR(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	FLOE_CHECK(floe_hmac_sha256_hex(hex, "Jefe", 4, "what do ya want for nothing?", 28) == 0);
	FLOE_CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* test case 6: a key longer than the block (131 bytes of 0xaa) is hashed first */
	unsigned char key6[131];
	memset(key6, 0xaa, sizeof(key6));
	const char *msg6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	FLOE_CHECK(floe_hmac_sha256_hex(hex, key6, sizeof(key6), msg6, strlen(msg6)) == 0);
	FLOE_CHECK_STR(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

FLOE_TEST(hmac_empty_message)
{
	char hex[FLOE_HMAC_HEX_LEN + 1];
	FLOE_CHECK(floe_hmac_sha256_hex(hex, "", 0, NULL, 0) == 0);
	FLOE_CHECK_STR(hex, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
	FLOE_CHECK(strlen(hex) == FLOE_HMAC_HEX_LEN);
}
