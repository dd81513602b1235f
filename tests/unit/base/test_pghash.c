/*
 * test_pghash.c — floe_pghash_extended (and the integer hashes) against values PostgreSQL 15's
 * hashtextextended(text, seed) returned (x86-64): every tail length 0..13, a
 * multi-byte UTF-8 string, seeds 0, 1, -1 and a large one, and long generated
 * strings across the 12-byte block boundaries.
 */
#include "harness.h"
#include "base/pghash.h"

#include <stdlib.h>

typedef struct vector {
	const char *text;
	int64_t seed;
	int64_t want; /* PostgreSQL's int8 */
} vector;

static const vector vectors[] = {
	{ "", 0, -6939563903564495251LL },
	{ "", 1, -150071773020461347LL },
	{ "", -1, -5142811166230430645LL },
	{ "", 8243819122212345678LL, -7601506196664750240LL },
	{ "a", 0, 3591986179850072241LL },
	{ "a", -1, 8688456822845412000LL },
	{ "ab", 0, 2833316173711343549LL },
	{ "abc", 0, -6747756470228489321LL },
	{ "abc", 1, 2125675926272891485LL },
	{ "abcd", 0, -1038429303365892052LL },
	{ "abcd", 8243819122212345678LL, 6456444314038634647LL },
	{ "abcde", 0, 3076356108696143428LL },
	{ "abcdefgh", 0, -8882191227074733005LL },
	{ "abcdefghi", 0, -3278210106038014113LL },
	{ "abcdefghi", 1, 5773402991589158274LL },
	{ "abcdefghijk", 0, 3112909444737856467LL },
	{ "abcdefghijk", -1, 2833918571160852060LL },
	{ "abcdefghijkl", 0, -7556637188122330412LL },
	{ "abcdefghijklm", 0, 8871624171452417744LL },
	{ "abcdefghijklm", 8243819122212345678LL, 5568329521358348177LL },
	{ "The quick brown fox jumps over the lazy dog", 0, 2182139051089226439LL },
	{ "The quick brown fox jumps over the lazy dog", 1, 6385648752505156361LL },
	{ "\xc3\xbcn\xc3\xaf \xe2\x98\x83", 0, -7649490148507942167LL },
	{ "\xc3\xbcn\xc3\xaf \xe2\x98\x83", 8243819122212345678LL, 9073333025453900614LL },
	{ "0:|N|12.340", 0, -1742581205452284303LL },
	{ "0:|N|12.340", -1, 3447496717409618709LL },
};

static uint64_t hash_of(const char *s, int64_t seed)
{
	return floe_pghash_extended(s, strlen(s), (uint64_t)seed);
}

FLOE_TEST(pghash_matches_postgres)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const vector *v = &vectors[i];
		if ((int64_t)hash_of(v->text, v->seed) != v->want) {
			char msg[160];
			snprintf(msg, sizeof(msg), "hashtextextended('%s', %lld)", v->text, (long long)v->seed);
			floe_test_fail(__FILE__, __LINE__, msg);
		}
	}
}

/* string_agg(chr(32 + (i*7) % 95), '' ORDER BY i) for i in 1..n, as the server built it. */
static char *generated(size_t n)
{
	char *s = malloc(n + 1);
	for (size_t i = 1; i <= n; i++)
		s[i - 1] = (char)(32 + (i * 7) % 95);
	s[n] = '\0';
	return s;
}

FLOE_TEST(pghash_long_values_match_postgres)
{
	static const struct {
		size_t n;
		int64_t seed, want;
	} cases[] = {
		{ 23, 0, 2554039549839808255LL },   { 23, 42, 6978953671476455790LL },
		{ 24, 0, -7684486486210881402LL },  { 24, 42, 6609386130495011941LL },
		{ 25, 0, 5099950198436339550LL },   { 25, 42, 6195374641798016850LL },
		{ 100, 0, -1649373347692413267LL }, { 100, 42, -3324933983261235392LL },
		{ 1000, 0, 9216832776595199518LL }, { 1000, 42, -2316780318264640301LL },
		{ 4099, 0, -1886734956437253171LL }, { 4099, 42, 5111149166521678738LL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = generated(cases[i].n);
		FLOE_CHECK((int64_t)hash_of(s, cases[i].seed) == cases[i].want);
		free(s);
	}
}

/* Unaligned input gives the same hash as aligned input (PostgreSQL has two code paths). */
FLOE_TEST(pghash_alignment_does_not_matter)
{
	char *buf = malloc(64);
	const char *text = "alignment matters not at all";
	size_t n = strlen(text);
	uint64_t want = floe_pghash_extended(text, n, 7);
	for (size_t off = 0; off < 8; off++) {
		memcpy(buf + off, text, n);
		FLOE_CHECK(floe_pghash_extended(buf + off, n, 7) == want);
	}
	free(buf);
}

/* hashint4extended and hashint8extended as PostgreSQL 15 returned them (0, 2^32 + 1, -2^32 fold alike). */
FLOE_TEST(pghash_integers_match_postgres)
{
	FLOE_CHECK((int64_t)floe_pghash_uint32_extended(0, 0) == 4154612158245552303LL);
	FLOE_CHECK((int64_t)floe_pghash_uint32_extended((uint32_t)-1, 0) == -1888257769727981238LL);
	FLOE_CHECK((int64_t)floe_pghash_uint32_extended(42, (uint64_t)-1) == -6198169983862266934LL);
	FLOE_CHECK((int64_t)floe_pghash_uint32_extended(2147483647u, 8243819122212345678ULL) == 4433464225703300764LL);
	FLOE_CHECK((int64_t)floe_pghash_int8_extended(1, 0) == -3670598878359251130LL);
	FLOE_CHECK((int64_t)floe_pghash_int8_extended(4294967297LL, 0) == 4154612158245552303LL);
	FLOE_CHECK((int64_t)floe_pghash_int8_extended(-4294967296LL, 0) == 4154612158245552303LL);
	FLOE_CHECK((int64_t)floe_pghash_int8_extended(INT64_MIN, 8243819122212345678ULL) == 4433464225703300764LL);
	FLOE_CHECK((int64_t)floe_pghash_int8_extended(1234567890123LL, 8243819122212345678ULL) == -6534696391461876273LL);
	/* One word hashed alone is the same as its four little-endian bytes hashed as text. */
	const unsigned char bytes[4] = { 42, 0, 0, 0 };
	FLOE_CHECK(floe_pghash_uint32_extended(42, 7) == floe_pghash_extended(bytes, 4, 7));
}
