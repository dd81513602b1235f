# floe — `make` builds, `make test` runs everything CI runs, `make demo` runs the demo.
#
#   make                      build build/floe
#   make test                 set up (packages, DuckDB, venv), unit tests, integration tests
#   make test SANITIZE=address,undefined
#   make it SANITIZE=thread CC=clang   integration tests under ThreadSanitizer (build-thread-clang/)
#   make unit | make it       one half of the suite (after `make setup`)
#   make fuzz FUZZ_SECONDS=60 libFuzzer targets (clang)
#   make soak                 floe serve on a 1-minute schedule for 30 min with shop traffic (bench/soak/run.sh)
#   make soak-mor             200 cycles of shop tick → floe run, merge-on-read with compaction and expiry
#   make bench-shop           `floe shop generate` against psql COPY (bench/shop/run.sh)
#   make bench-parquet        floe's Parquet writer vs DuckDB and pyarrow
#   make bench-write-mode     the default write mode decided: the shop's pipeline after 0.1 %, copy-on-write vs merge-on-read (bench/bronze/write-mode.sh)
#   make bench-parallel       one table's full load by 1, 2, 4 connections vs COPY (bench/bronze/parallel.sh)
#   make bench-s3             a full bronze load to S3 (moto and gofakes3) vs local disk (bench/s3/run.sh)
#   make bench-reconcile      md5 vs hashtextextended; floe reconcile V1-V3 vs COPY (bench/reconcile/run.sh)
#   make bench-serve          floe serve under 50 concurrent clients: REST catalog loads and /metrics (bench/serve/run.sh)
#   make rest-compat          the REST catalog against Apache Iceberg's reference server, same requests (scripts/rest-compat.sh)
#   make bench-silver         floe's silver build vs dbt build; incremental after 0.1 % (bench/silver/run.sh)
#   make airflow-test         real Airflow runs the generated DAG over a small shop (scripts/airflow-test.sh)
#   make scale-out            Spark and Trino read and write floe's tables, dbt-trino builds the project (own venvs, Java 17+ and 25)
#   make install [PREFIX=/usr/local] [DESTDIR=]   floe, its DuckDB library, man page, bash completion
#   make uninstall [PREFIX=…] exactly what make install put there
#   make deb                  build/floe_VERSION_ARCH.deb (scripts/deb.sh); make deb-check installs and removes it
#   make CC=clang             any C11 compiler; warnings are errors

CC ?= cc
SANITIZE ?=
DUCKDB_DIR := .deps/duckdb
VENV := .venv

# One build directory per compiler and sanitizer setting, so they never mix objects:
# build/, build-clang/, build-address-undefined/, build-thread-clang/ …
comma := ,
BUILD := build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))$(if $(findstring clang,$(CC)),-clang)
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)

PG_INCLUDE := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0)
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter -Wformat=2 -Wno-format-nonliteral -Wvla
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -Isrc -I$(PG_INCLUDE) -MMD -MP
RPATH_BUILD := -Wl,-rpath,'$$ORIGIN/../$(DUCKDB_DIR):$$ORIGIN/../../$(DUCKDB_DIR)'
# The installed binary (make install, make deb) finds DuckDB in PREFIX/lib/floe only.
RPATH_INSTALLED := -Wl,-rpath,'$$ORIGIN/../lib/floe'
LDLIBS := $(RPATH_BUILD) -lpq -lsqlite3 -lpg_query -lgit2 $(shell pkg-config --libs libxml-2.0) -lz -lzstd -lseccomp -lmicrohttpd -lcurl -lcrypto -lyaml -lrdkafka -lm -lpthread -ldl
LDFLAGS_ALL := $(SANFLAGS) $(LDFLAGS)

LIB_SRC := $(filter-out src/cli/main.c,$(shell find src -name '*.c' | sort))
CLI_MAIN := src/cli/main.c
UNIT_SRC := $(shell find tests/unit -name '*.c' | sort)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOLS := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
# Code the test tools and the unit tests share (tests/tools/support/, not programs).
TOOL_SUPPORT_SRC := $(wildcard tests/tools/support/*.c)
TOOL_SUPPORT_OBJ := $(TOOL_SUPPORT_SRC:%.c=$(BUILD)/%.o)

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
# The console's page, embedded (src/console/assets.h).
CONSOLE_ASSETS := $(sort $(wildcard src/console/assets/*))
LIB_OBJ += $(BUILD)/gen/console_assets.o
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)

PHONY_INSTALL := install uninstall deb deb-check
.PHONY: $(PHONY_INSTALL) all test unit it setup demo fuzz soak clean airflow-test bench-shop bench-parquet bench-bronze bench-parallel bench-write-mode bench-s3 bench-incremental bench-cdc bench-silver bench-reconcile scale-out soak-mor bench-serve rest-compat

all: $(BUILD)/floe

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/gen/console_assets.c: $(CONSOLE_ASSETS) scripts/embed-assets.sh
	@mkdir -p $(dir $@)
	scripts/embed-assets.sh $@ $(CONSOLE_ASSETS)

$(BUILD)/gen/console_assets.o: $(BUILD)/gen/console_assets.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libfloe.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/floe: $(BUILD)/src/cli/main.o $(BUILD)/libfloe.a | $(DUCKDB_DIR)/libduckdb.so
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(BUILD)/installed/floe: $(BUILD)/src/cli/main.o $(BUILD)/libfloe.a | $(DUCKDB_DIR)/libduckdb.so
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(subst $(RPATH_BUILD),$(RPATH_INSTALLED),$(LDLIBS))

$(BUILD)/unit_tests: $(UNIT_OBJ) $(TOOL_SUPPORT_OBJ) $(BUILD)/libfloe.a | $(DUCKDB_DIR)/libduckdb.so
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS)

# floe_build_info's commit label (/metrics).
$(BUILD)/src/monitor/metrics.o: ALL_CFLAGS += -DFLOE_COMMIT='"$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)"'

$(BUILD)/tests/unit/%.o: ALL_CFLAGS += -Itests/unit -Itests/tools/support
$(BUILD)/tests/tools/%.o: ALL_CFLAGS += -Itests/tools/support
# libxml2 (Kettle files) is called from src/pentaho only.
$(BUILD)/src/pentaho/%.o: ALL_CFLAGS += $(XML_CFLAGS)

# Test tools (tests/tools/NAME.c → build/tools/NAME): programs the integration tests drive.
$(BUILD)/tools/%: $(BUILD)/tests/tools/%.o $(TOOL_SUPPORT_OBJ) $(BUILD)/libfloe.a | $(DUCKDB_DIR)/libduckdb.so
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(BUILD)/floe-parquet-bench: $(BUILD)/bench/parquet/bench.o $(BUILD)/libfloe.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS)

$(DUCKDB_DIR)/libduckdb.so:
	scripts/setup.sh duckdb

setup:
	scripts/setup.sh

# Known leaks in third-party libraries (see the file); harmless without sanitizers.
SAN_ENV := LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0
# ThreadSanitizer (`make it SANITIZE=thread CC=clang`): the first report ends the process (exit 66),
# so a race fails its test; tests/tsan.supp names races inside uninstrumented libduckdb only.
SAN_ENV += TSAN_OPTIONS=suppressions=$(abspath tests/tsan.supp):halt_on_error=1:second_deadlock_stack=1
# Tests that measure memory know when a sanitizer's shadow memory and quarantine are in the numbers.
SAN_ENV += $(if $(SANITIZE),FLOE_SANITIZE=$(SANITIZE))
# The integration tests `make it` runs (IT=tests/it/test_bronze.py runs one file).
IT ?= tests/it

unit: $(BUILD)/unit_tests
	$(SAN_ENV) $(BUILD)/unit_tests

it: $(BUILD)/floe $(TOOLS)
	$(SAN_ENV) FLOE_BIN=$(abspath $(BUILD)/floe) FLOE_TOOLS=$(abspath $(BUILD)/tools) $(VENV)/bin/python -m pytest -q -p no:cacheprovider --durations=25 $(IT)

test: setup
	$(MAKE) unit it

demo:
	scripts/demo.sh

# Spark (pyspark + Iceberg's Spark runtime) reads floe's tables through the JDBC catalog and
# returns PyIceberg's rows. Own venv (.venv-spark); needs Java 17+ and the network on first run.
scale-out: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) scripts/scale-out.sh

# A full bronze load against COPY into /dev/null and DuckDB's postgres extension (SCALE=45: ≈ 5 M rows).
bench-bronze: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),10) bench/bronze/run.sh

# One table's full load by 1, 2 and 4 connections against the COPY limit (docs/parallel-load.md).
bench-write-mode: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),10) bench/bronze/write-mode.sh

bench-parallel: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),10) bench/bronze/parallel.sh

# A full bronze load to an S3 warehouse (moto, started by the script) against local disk (SCALE=45: ≈ 5 M rows).
bench-s3: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),10) bench/s3/run.sh

bench-incremental: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),10) bench/bronze/incremental.sh
# CDC catch-up after 0.1 % vs the incremental run and the full load (docs/cdc.md).
bench-cdc: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),3) bench/bronze/cdc.sh

# floe's silver build against real `dbt build` (.venv-dbt) on the same project; incremental after 0.1 %.
# floe serve on a one-minute schedule for SOAK_MINUTES (30) with shop traffic: RSS flat, every run in the ledger, no overlap.
soak: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) bench/soak/run.sh

# Merge-on-read soak: FLOE_SOAK_CYCLES (200) shop ticks → floe run, compaction and expiry along the way,
# bronze checked against the source after every cycle (tests/soak/test_mor_soak.py). Not part of `make test`.
soak-mor: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) FLOE_TOOLS=$(abspath $(BUILD)/tools) .venv/bin/python -m pytest -q -s -p no:cacheprovider tests/soak/test_mor_soak.py

bench-silver: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),10) bench/silver/run.sh

# floe serve's REST catalog and Apache Iceberg's reference server on the same requests (Java 17+, Maven).
rest-compat: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) scripts/rest-compat.sh

# floe serve under load: 50 clients loading tables through /iceberg and scraping /metrics for 60 s (bench/serve/run.sh).
bench-serve: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),1) bench/serve/run.sh

# Reconciliation's cost: md5 vs hashtextextended in PostgreSQL; V1-V3 of order_items vs its COPY export.
bench-reconcile: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) SCALE=$(or $(SCALE),10) bench/reconcile/run.sh

# Real Airflow (.venv-airflow) runs the DAG `floe generate` writes for a small shop: `airflow dags test`.
airflow-test: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) scripts/airflow-test.sh

bench-shop: $(BUILD)/floe
	FLOE_BIN=$(abspath $(BUILD)/floe) bench/shop/run.sh

# floe's Parquet writer against DuckDB and pyarrow (BENCH_ROWS rows); see bench/RESULTS.md.
BENCH_ROWS ?= 5000000
bench-parquet: $(BUILD)/floe-parquet-bench
	bench/parquet/run.sh $(BENCH_ROWS)

# ---- installation (docs/install.md) ----------------------------------------------------------
# floe finds its DuckDB library through the rpath $$ORIGIN/../lib/floe and DuckDB's httpfs
# extension beside it (src/engine/s3.c); the man page and the completion are generated from
# the binary's own --help (scripts/gen-docs.sh). INSTALL_FILES is exactly what uninstall removes.
PREFIX ?= /usr/local
DESTDIR ?=
HTTPFS := $(wildcard $(DUCKDB_DIR)/extensions/httpfs.duckdb_extension)
EXAMPLE_MARTS := $(wildcard examples/shop/marts/*.md)
INSTALL_FILES := bin/floe lib/floe/libduckdb.so $(if $(HTTPFS),lib/floe/extensions/httpfs.duckdb_extension) \
	share/man/man1/floe.1.gz share/bash-completion/completions/floe share/floe/install.sh \
	$(EXAMPLE_MARTS:examples/%=share/floe/examples/%)
INSTALL_DIRS := share/floe/examples/shop/marts share/floe/examples/shop share/floe/examples share/floe \
	lib/floe/extensions lib/floe

$(BUILD)/floe.1.gz: $(BUILD)/floe scripts/gen-docs.sh
	scripts/gen-docs.sh man $(BUILD)/floe | gzip -n9 > $@

$(BUILD)/floe.bash: $(BUILD)/floe scripts/gen-docs.sh
	scripts/gen-docs.sh completion $(BUILD)/floe > $@

install: $(BUILD)/installed/floe $(BUILD)/floe.1.gz $(BUILD)/floe.bash
	@test -n "$(HTTPFS)" || echo "install: note: DuckDB's httpfs extension is not in $(DUCKDB_DIR) (scripts/setup.sh venv httpfs); S3 warehouses will be unavailable"
	install -D -m 0755 $(BUILD)/installed/floe $(DESTDIR)$(PREFIX)/bin/floe
	install -D -m 0644 $(DUCKDB_DIR)/libduckdb.so $(DESTDIR)$(PREFIX)/lib/floe/libduckdb.so
	$(if $(HTTPFS),install -D -m 0644 $(HTTPFS) $(DESTDIR)$(PREFIX)/lib/floe/extensions/httpfs.duckdb_extension)
	install -D -m 0644 $(BUILD)/floe.1.gz $(DESTDIR)$(PREFIX)/share/man/man1/floe.1.gz
	install -D -m 0644 $(BUILD)/floe.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/floe
	install -D -m 0755 scripts/install.sh $(DESTDIR)$(PREFIX)/share/floe/install.sh
	$(foreach m,$(EXAMPLE_MARTS),install -D -m 0644 $(m) $(DESTDIR)$(PREFIX)/share/floe/$(m);)

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALL_FILES))
	-rmdir $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALL_DIRS)) 2>/dev/null

deb: $(BUILD)/installed/floe $(BUILD)/floe.1.gz $(BUILD)/floe.bash
	BUILD=$(BUILD) scripts/deb.sh

# Installs the package on this machine (dpkg -i), runs the demo from the installed binary, removes it
# (dpkg -r) and checks no file is left; needs root.
deb-check: deb
	BUILD=$(BUILD) scripts/deb-check.sh

FUZZ_SECONDS ?= 60
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf build build-* build-fuzz

-include $(LIB_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(TOOL_SRC:%.c=$(BUILD)/%.d) \
	$(TOOL_SUPPORT_OBJ:.o=.d) $(BUILD)/src/cli/main.d $(BUILD)/bench/parquet/bench.d

# The streaming suite (not in `make test`): a real Kafka broker (KRaft) from Maven Central jars
# (scripts/kafka-broker.sh, checksummed; Java 17 from the machine), then tests/streams.
.PHONY: streams
streams: build/floe build/tools/kafka_produce
	scripts/kafka-broker.sh fetch >/dev/null
	FLOE_BIN=$(CURDIR)/build/floe FLOE_TOOLS=$(CURDIR)/build/tools .venv/bin/python -m pytest -q -p no:cacheprovider tests/streams

# Kafka → bronze throughput and freshness (bench/kafka/bench.py; a real broker like `make streams`).
.PHONY: bench-kafka
bench-kafka: build/floe
	scripts/kafka-broker.sh fetch >/dev/null
	FLOE_BIN=$(CURDIR)/build/floe .venv/bin/python bench/kafka/bench.py
