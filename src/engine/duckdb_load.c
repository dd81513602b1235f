/*
 * duckdb_load.c — libduckdb.so opened when the first engine opens (duckdb_api.h says why).
 */
#define FLOE_DUCKDB_LOADER
#include "engine/duckdb_api.h"
#include "base/error.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

floe_duckdb_api floe_duckdb;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[512]; /* the loader's reason, when it failed */

static void load(void)
{
	void *lib = dlopen("libduckdb.so", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(why, sizeof(why), "%s", e ? e : "dlopen failed");
		return;
	}
	/* POSIX's way to a function pointer from dlsym: through an object pointer's bytes */
#define FLOE_DUCKDB_RESOLVE(name)                                                           \
	if (!(*(void **)&floe_duckdb.name = dlsym(lib, #name))) {                             \
		snprintf(why, sizeof(why), "libduckdb.so has no %s (not DuckDB v1.5.5?)", #name); \
		return;                                                                       \
	}
	FLOE_DUCKDB_FUNCTIONS(FLOE_DUCKDB_RESOLVE)
#undef FLOE_DUCKDB_RESOLVE
	loaded = true; /* the library stays open for the process */
}

int floe_duckdb_load(void)
{
	pthread_once(&once, load);
	if (loaded)
		return 0;
	floe_error_set(FLOE_ERR_INTERNAL, "could not load DuckDB's library: %s", why);
	floe_error_hint("An installed floe keeps libduckdb.so in lib/floe beside its bin/; a build, in "
			".deps/duckdb (scripts/setup.sh duckdb fetches it).");
	return -1;
}
