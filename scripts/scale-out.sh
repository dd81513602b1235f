#!/usr/bin/env bash
# Scale-out check (`make scale-out`; not part of `make test`): Spark reads floe's Iceberg tables
# through Iceberg's JDBC catalog on warehouse/catalog.db and must return the rows PyIceberg reads;
# Spark and Trino read and write them through floe serve's REST catalog, and dbt-trino runs the
# generated project's `trino` target (tests/scaleout/test_trino.py).
#
# Creates .venv-spark from tests/scaleout/requirements.txt (reinstalled only when that file or
# tests/constraints.txt changes), checks for Java 17+, then runs pytest on tests/scaleout.
# Spark resolves the Iceberg runtime and the SQLite JDBC driver (pinned in
# tests/scaleout/conftest.py) from Maven Central into .spark-ivy/ on the first run.
# scripts/trino.sh fetches trino-server (Maven Central, sha256 checked) into .deps/trino/ and
# .venv-dbt-trino gets dbt-trino (tests/dbt-trino/requirements.txt).
#
#   FLOE_BIN       floe binary (default build/floe)
#   FLOE_PYTHON    interpreter for the venv (default /usr/bin/python3)
#   FLOE_SPARK_IVY Ivy cache for Spark's --packages (default .spark-ivy)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
VENV=$REPO/.venv-spark
REQ=tests/scaleout/requirements.txt
PY=${FLOE_PYTHON:-/usr/bin/python3}

if ! command -v java >/dev/null; then
    echo "scale-out: java not found; Spark 4 needs Java 17 or newer" >&2
    exit 1
fi
JAVA_MAJOR=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
if [ -z "$JAVA_MAJOR" ] || [ "$JAVA_MAJOR" -lt 17 ]; then
    echo "scale-out: Java ${JAVA_MAJOR:-?} found; Spark 4 needs Java 17 or newer" >&2
    exit 1
fi

STAMP=$(cat "$REQ" tests/constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.floe-requirements.sha256" 2>/dev/null)" != "$STAMP" ]; then
    echo "scale-out: creating $VENV" >&2
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
    echo "$STAMP" > "$VENV/.floe-requirements.sha256"
fi

scripts/venv-from.sh "$REPO/.venv-dbt-trino" tests/dbt-trino dbt
export FLOE_TRINO_HOME=${FLOE_TRINO_HOME:-$(scripts/trino.sh fetch)}
export FLOE_DBT_TRINO=${FLOE_DBT_TRINO:-$REPO/.venv-dbt-trino/bin/dbt}

export FLOE_BIN=${FLOE_BIN:-$REPO/build/floe}
export FLOE_SPARK_IVY=${FLOE_SPARK_IVY:-$REPO/.spark-ivy}
export TZ=UTC  # PySpark hands timestamps to Python as naive datetimes in the process's zone
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/scaleout "$@"
