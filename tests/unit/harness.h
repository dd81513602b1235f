/*
 * harness.h — the unit test harness: tests register themselves, one binary runs
 * them all (or those whose name contains argv[1]) and ends with "N passed, N failed".
 *
 *   FLOE_TEST(buf_grows) { ... FLOE_CHECK(x == 1); FLOE_CHECK_STR(a, "b"); }
 *
 * A failed check prints file:line and the expression, and marks the test failed;
 * the test goes on so one run shows every broken check.
 */
#ifndef FLOE_TESTS_HARNESS_H
#define FLOE_TESTS_HARNESS_H

#include <stdio.h>
#include <string.h>

typedef void (*floe_test_fn)(void);
void floe_test_register(const char *name, floe_test_fn fn);
void floe_test_fail(const char *file, int line, const char *what);
/* Directory of the repository's test data (tests/data, or $FLOE_TEST_DATA_DIR). */
const char *floe_test_data_dir(void);

#define FLOE_TEST(name)                                                              \
	static void test_##name(void);                                                  \
	__attribute__((constructor)) static void register_##name(void)                  \
	{                                                                               \
		floe_test_register(#name, test_##name);                                     \
	}                                                                               \
	static void test_##name(void)

#define FLOE_CHECK(expr)                                                             \
	do {                                                                            \
		if (!(expr))                                                                \
			floe_test_fail(__FILE__, __LINE__, #expr);                              \
	} while (0)

#define FLOE_CHECK_STR(a, b)                                                         \
	do {                                                                            \
		const char *a_ = (a), *b_ = (b);                                            \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                    \
			char msg_[512];                                                         \
			snprintf(msg_, sizeof(msg_), "%s == %s (\"%s\" vs \"%s\")", #a, #b,     \
				 a_ ? a_ : "(null)", b_ ? b_ : "(null)");                           \
			floe_test_fail(__FILE__, __LINE__, msg_);                               \
		}                                                                           \
	} while (0)

#endif
