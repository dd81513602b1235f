/*
 * test_pghash.c — floe_pghash_extended (and the integer hashes) against values PostgreSQL 15's
 * hashtextextended(text, seed) returned (x86-64): every tail length 0..13, a
 * multi-byte UTF-8 string, seeds 0, 1, -1 and a large one, and long generated
 * strings across the 12-byte block boundaries.
 */
#include "harness.h"
#include "base/pghash.h"

#include <math.h>
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

/* hashfloat8extended and hashfloat4extended as PostgreSQL 15 returned them: ±0 hash to the seed,
 * NaN and ±infinity hash as values, a float4 as its value widened to double. */
FLOE_TEST(pghash_floats_match_postgres)
{
	static const struct {
		double v;
		int64_t seed, hash;
	} f8[] = {
		{ -INFINITY, -7, 8031341434349977909LL },
		{ -INFINITY, 0, 58695627279844080LL },
		{ -INFINITY, 42, 8662575402614437175LL },
		{ -2.25, -7, -6777590263922165309LL },
		{ -2.25, 0, 4390199869079249825LL },
		{ -2.25, 42, -8113833352972593938LL },
		{ -0.0, -7, -7LL },
		{ 0.0, -7, -7LL },
		{ -0.0, 0, 0LL },
		{ 0.0, 0, 0LL },
		{ -0.0, 42, 42LL },
		{ 0.0, 42, 42LL },
		{ 5e-324, -7, 2054686776814648908LL },
		{ 5e-324, 0, -6988697407173885264LL },
		{ 5e-324, 42, -6424115764914791627LL },
		{ 0.1, -7, -2696600655974396010LL },
		{ 0.1, 0, -4179333574236083663LL },
		{ 0.1, 42, 6597772057922087147LL },
		{ 1.5, -7, 5852894896946895360LL },
		{ 1.5, 0, 6158159405676898674LL },
		{ 1.5, 42, -5832320990282095783LL },
		{ 1e+308, -7, -2785773562286150658LL },
		{ 1e+308, 0, 8812911499566623584LL },
		{ 1e+308, 42, -2708626330389588983LL },
		{ INFINITY, -7, -1601148545406781702LL },
		{ INFINITY, 0, -4973912021728129854LL },
		{ INFINITY, 42, 5902286530516458022LL },
		{ NAN, -7, 4069007790686844125LL },
		{ NAN, 0, 4719788943832604568LL },
		{ NAN, 42, -4570345281452345396LL },
	};
	static const struct {
		float v;
		int64_t seed, hash;
	} f4[] = {
		{ -2.25f, -7, -6777590263922165309LL },
		{ -2.25f, 0, 4390199869079249825LL },
		{ -2.25f, 42, -8113833352972593938LL },
		{ 0.0f, -7, -7LL },
		{ -0.0f, -7, -7LL },
		{ 0.0f, 0, 0LL },
		{ -0.0f, 0, 0LL },
		{ 0.0f, 42, 42LL },
		{ -0.0f, 42, 42LL },
		{ 1e-45f, -7, -9154813476336391321LL },
		{ 1e-45f, 0, -9086320680330523503LL },
		{ 1e-45f, 42, 9174761444485554419LL },
		{ 0.1f, -7, 1331249708339811919LL },
		{ 0.1f, 0, 45699830491884902LL },
		{ 0.1f, 42, 4906899486223959186LL },
		{ 1.5f, -7, 5852894896946895360LL },
		{ 1.5f, 0, 6158159405676898674LL },
		{ 1.5f, 42, -5832320990282095783LL },
		{ 3.4028235e+38f, -7, 2079991845595105685LL },
		{ 3.4028235e+38f, 0, -8264235364741046398LL },
		{ 3.4028235e+38f, 42, -8063754923080656561LL },
		{ INFINITY, -7, -1601148545406781702LL },
		{ INFINITY, 0, -4973912021728129854LL },
		{ INFINITY, 42, 5902286530516458022LL },
		{ NAN, -7, 4069007790686844125LL },
		{ NAN, 0, 4719788943832604568LL },
		{ NAN, 42, -4570345281452345396LL },
	};
	for (size_t i = 0; i < sizeof(f8) / sizeof(f8[0]); i++)
		FLOE_CHECK((int64_t)floe_pghash_float8_extended(f8[i].v, (uint64_t)f8[i].seed) == f8[i].hash);
	for (size_t i = 0; i < sizeof(f4) / sizeof(f4[0]); i++)
		FLOE_CHECK((int64_t)floe_pghash_float8_extended((double)f4[i].v, (uint64_t)f4[i].seed) == f4[i].hash);
	FLOE_CHECK(floe_pghash_float8_extended(-0.0, 42) == 42);
	FLOE_CHECK(floe_pghash_float8_extended(-NAN, 7) == floe_pghash_float8_extended(NAN, 7));
}
