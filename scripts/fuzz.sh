#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] — build the libFuzzer targets in fuzz/ and run each for SECONDS
# (default 60). Exits non-zero when a target crashes, leaks, hangs or fails to build.
#
# Targets are built with clang (FUZZ_CC to override) against only what they need:
# src/base/*.c (libcrypto, for base/hmac.c); for TOML src/config/toml*.c; for the lock reader
# and the watermark proof the plan module with what it links (libpq, libpg_query, the vectors
# src/pg needs); for Avro and Iceberg metadata src/format/avro_*.c and src/iceberg/ (zlib); for
# the Parquet reader (parquet_footer, parquet_pages) src/format with libzstd; for the silver model
# renderer (silver_render) src/silver/render.c; for mart descriptions (gold_desc) src/gold's reader (over src/yaml, libyaml), grammar, joins and SQL with the plan module;
# for cron expressions (cron) src/schedule/cron.c; for the Kettle reader (kettle) src/pentaho/kettle.c with
# libxml2; for YAML (yaml) src/yaml/yaml.c with libyaml; for S3 replies (s3_xml) src/net/xml.c; for the MCP
# server's JSON-RPC reader (mcp) src/mcp's line splitter and dispatch with a tool table of its own;
# for the logical replication stream (pgoutput) src/cdc/pgoutput.c; for the Iceberg REST catalog's
# requests (rest) src/rest with src/iceberg, src/format, src/db (SQLite), src/net (libcurl); for the
# request parts floe serve parses itself (serve_request) src/server/request.c; for Kafka messages
# (kafka_decode) src/bronze/topic_decode.c.
# Corpora live in build-fuzz/corpus_<target>, seeded from the toml-test corpus
# (tests/data/toml-test, vendored; or $FLOE_TEST_DATA_DIR) and from fuzz/corpus/<target>/ (small files kept in git;
# the Parquet seeds are made by `build/tools/parquet_fixture seeds DIR`); crash inputs land in
# build-fuzz/ as crash-<target>-*.
# Reproduce one with: build-fuzz/fuzz_toml build-fuzz/crash-toml-<hash>
# FUZZ_TARGETS="avro iceberg_metadata" runs only those targets.
set -euo pipefail

secs=${1:-60}
cd "$(dirname "$0")/.."
shared=${FLOE_TEST_DATA_DIR:-tests/data}
cc=${FUZZ_CC:-clang}
out=build-fuzz

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz.sh: $cc not found; install it with: apt-get install -y clang libclang-rt-14-dev" >&2
	exit 2
fi

flags=(-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc)
mkdir -p "$out"

build() { # name, extra sources and libraries...
	local name=$1
	shift
	echo "fuzz.sh: building $out/fuzz_$name"
	"$cc" "${flags[@]}" "fuzz/fuzz_$name.c" src/base/*.c "$@" -lcrypto -lm -o "$out/fuzz_$name"
}

# The plan module and what it calls: config, pg (libpq), sqlparse (libpg_query).
plan_sources=(src/plan/*.c src/config/*.c src/schedule/cron.c src/pg/*.c src/vector/vector.c src/sqlparse/*.c -I"$(pg_config --includedir)"
	-lpq -lpg_query -lpthread)

seed() { # name, file pattern
	local dir="$out/corpus_$1"
	mkdir -p "$dir"
	if [ -d "$shared/toml-test" ]; then
		find "$shared/toml-test/valid" "$shared/toml-test/invalid" -name "$2" -type f \
			-exec cp -n -t "$dir" {} + 2>/dev/null || true
	else
		echo "fuzz.sh: no $shared/toml-test; starting $1 from an empty corpus" >&2
	fi
}

seed_repo() { # name: the small corpus kept in fuzz/corpus/<name>/
	local dir="$out/corpus_$1"
	mkdir -p "$dir"
	if [ -d "fuzz/corpus/$1" ]; then
		cp -n -t "$dir" fuzz/corpus/"$1"/* 2>/dev/null || true
	fi
}

run() { # name
	echo "fuzz.sh: running fuzz_$1 for ${secs}s"
	local dict=()
	[ -f "fuzz/$1.dict" ] && dict=(-dict="fuzz/$1.dict")
	mkdir -p "$out/corpus_$1"
	"$out/fuzz_$1" "$out/corpus_$1" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=65536 "${dict[@]}" -artifact_prefix="$out/crash-$1-" \
		-print_final_stats=1
}

seed_lock() { # the lock files and PL/pgSQL trees the tests use
	mkdir -p "$out/corpus_lock" "$out/corpus_proof"
	for f in tests/unit/plan/proof/*.json; do
		{ printf '\0'; cat "$f"; } >"$out/corpus_proof/$(basename "$f")"
	done
	printf '\001BEGIN IF a THEN NEW.updated_at := now(); ELSE NEW.updated_at := now(); END IF; RETURN NEW; END' \
		>"$out/corpus_proof/if_else.sql"
	cp -n tests/unit/plan/lock/*.json "$out/corpus_lock/" 2>/dev/null || true
}

seed_quality() { # the rules of docs/silver.md and the TOML corpus
	seed quality '*.toml'
	sed -n '/^```toml$/,/^```$/p' docs/silver.md | sed '/^```/d' >"$out/corpus_quality/silver_md.toml"
}

targets=${FUZZ_TARGETS:-toml json copy_decode lock proof avro iceberg_metadata parquet_footer parquet_pages quality silver_render gold_desc cron kettle yaml s3_xml mcp pgoutput rest kafka_decode serve_request}
iceberg_meta=(src/iceberg/schema.c src/iceberg/metadata_read.c src/iceberg/metadata_write.c)
for t in $targets; do
	case $t in
	toml) build toml src/config/toml*.c && seed toml '*.toml' ;;
	quality) build quality src/config/toml*.c src/config/quality.c && seed_quality ;;
	json) build json && seed json '*.json' ;;
	copy_decode) build copy_decode src/vector/vector.c src/pg/copy_decode.c && seed_repo copy_decode ;;
	lock) build lock "${plan_sources[@]}" && seed_lock ;;
	proof) build proof "${plan_sources[@]}" && seed_lock ;;
	avro) build avro src/format/avro_*.c src/iceberg/manifest.c src/iceberg/manifest_read.c \
		"${iceberg_meta[@]}" -lz && seed_repo avro ;;
	iceberg_metadata) build iceberg_metadata "${iceberg_meta[@]}" && seed_repo iceberg_metadata ;;
	parquet_footer | parquet_pages) build "$t" src/format/*.c src/vector/vector.c -lzstd -lz && seed_repo "$t" ;;
	silver_render) build silver_render src/silver/render.c && seed_repo silver_render ;;
	gold_desc) build gold_desc src/gold/desc.c src/yaml/yaml.c src/gold/phrase.c src/gold/resolve.c src/gold/join.c \
		src/gold/sql.c "${plan_sources[@]}" -lyaml && seed_repo gold_desc ;;
	cron) build cron src/schedule/cron.c && seed_repo cron ;;
	kettle) build kettle src/pentaho/kettle.c $(pkg-config --cflags --libs libxml-2.0) && seed_repo kettle ;;
	yaml) build yaml src/yaml/yaml.c -lyaml && seed_repo yaml ;;
	s3_xml) build s3_xml src/net/xml.c && seed_repo s3_xml ;;
	mcp) build mcp src/mcp/rpc.c src/mcp/json.c src/mcp/stdio.c && seed_repo mcp ;;
	pgoutput) build pgoutput src/cdc/pgoutput.c && seed_repo pgoutput ;;
	rest) build rest src/rest/*.c src/iceberg/*.c src/format/*.c src/db/*.c src/net/*.c src/vector/vector.c \
		-lsqlite3 -lcurl -lz -lzstd -lpthread && seed_repo rest ;;
	kafka_decode) build kafka_decode src/bronze/topic_decode.c src/vector/vector.c "${iceberg_meta[@]}" && seed_repo kafka_decode ;;
	serve_request) build serve_request src/server/request.c && seed_repo serve_request ;;
	*) echo "fuzz.sh: unknown target $t" >&2; exit 2 ;;
	esac
done

# Leaks inside third-party libraries floe cannot fix (libpg_query), listed and explained there.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"

status=0
for t in $targets; do
	run "$t" || status=1
done
if [ "$status" -ne 0 ]; then
	echo "fuzz.sh: a target failed; see the crash-* inputs in $out/" >&2
fi
exit "$status"
