/*
 * harness.c — runs the registered unit tests.
 */
#include "harness.h"

#include <stdlib.h>
#include <unistd.h>

#define MAX_TESTS 2048

static struct {
	const char *name;
	floe_test_fn fn;
} tests[MAX_TESTS];
static int n_tests;
static int current_failed;

void floe_test_register(const char *name, floe_test_fn fn)
{
	if (n_tests < MAX_TESTS) {
		tests[n_tests].name = name;
		tests[n_tests].fn = fn;
		n_tests++;
	}
}

void floe_test_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "    %s:%d: check failed: %s\n", file, line, what);
	current_failed = 1;
}

const char *floe_test_data_dir(void)
{
	const char *env = getenv("FLOE_TEST_DATA_DIR");
	return env ? env : "tests/data";
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int passed = 0, failed = 0;
	for (int i = 0; i < n_tests; i++) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		current_failed = 0;
		tests[i].fn();
		if (current_failed) {
			printf("FAIL %s\n", tests[i].name);
			failed++;
		} else {
			printf("ok   %s\n", tests[i].name);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
