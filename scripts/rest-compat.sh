#!/usr/bin/env bash
# REST compatibility check (`make rest-compat`; not part of `make test`): floe serve's Iceberg REST
# catalog and Apache Iceberg's reference server (RESTCatalogServer from the iceberg-open-api test
# fixtures, with iceberg-core's test jar for its servlet) get the same requests; status codes,
# error types and response shapes must agree where the two overlap (tests/restcompat).
#
# Resolves the reference server's classpath from tests/restcompat/pom.xml with Maven (into
# ~/.m2 on the first run: Maven Central), checks for Java 17+, and runs pytest with .venv.
# With REST_COMPAT_RECORD=1 the comparison is appended to bench/RESULTS.md.
#
#   FLOE_BIN   floe binary (default build/floe)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD

command -v java >/dev/null || { echo "rest-compat: java not found (Java 17+ needed)" >&2; exit 1; }
command -v mvn >/dev/null || { echo "rest-compat: mvn not found (apt-get install maven)" >&2; exit 1; }
JAVA_MAJOR=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
if [ -z "$JAVA_MAJOR" ] || [ "$JAVA_MAJOR" -lt 17 ]; then
    echo "rest-compat: Java ${JAVA_MAJOR:-?} found; the reference server needs Java 17 or newer" >&2
    exit 1
fi
mkdir -p build
CPFILE=$REPO/build/rest-compat.classpath
if [ ! -s "$CPFILE" ] || [ tests/restcompat/pom.xml -nt "$CPFILE" ]; then
    (cd tests/restcompat && mvn -q dependency:build-classpath -Dmdep.outputFile="$CPFILE")
fi
export FLOE_REST_COMPAT_CP="$(cat "$CPFILE")"
export FLOE_BIN=${FLOE_BIN:-$REPO/build/floe}
export FLOE_REST_COMPAT_OUT=$REPO/build/rest-compat.md
rc=0
.venv/bin/python -m pytest -q -p no:cacheprovider -s tests/restcompat "$@" || rc=$?
if [ "${REST_COMPAT_RECORD:-0}" = 1 ] && [ -s "$FLOE_REST_COMPAT_OUT" ]; then
    {
        printf '\n### floe serve /iceberg vs Apache Iceberg'"'"'s reference REST server — %s\n\n' "$(date -u +%F)"
        printf 'Command: `make rest-compat` (git %s; reference: iceberg-open-api %s test fixtures on %s); exit %s. ' \
            "$(git rev-parse --short HEAD)" "$(sed -n 's:.*<iceberg.version>\(.*\)</iceberg.version>.*:\1:p' tests/restcompat/pom.xml)" \
            "$(java -version 2>&1 | head -1)" "$rc"
        cat "$FLOE_REST_COMPAT_OUT"
    } >>bench/RESULTS.md
fi
exit "$rc"
