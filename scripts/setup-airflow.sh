#!/usr/bin/env bash
# .venv-airflow: Apache Airflow 3 (tests/airflow/requirements.txt) for the checks that load and run
# the DAG `floe generate` writes (tests/it/test_airflow.py, make airflow-test). A venv of its own.
#
# Airflow is installed the way its project says to: with the constraints file it publishes for the
# pinned version and this Python (constraints-<version>/constraints-<python>.txt in apache/airflow).
# Where that file cannot be fetched (an offline or filtered network), tests/airflow/constraints.txt
# is used instead: what pip resolved for the same pin, frozen — and the script says which it used.
# Reinstalled only when the requirements or the constraints change.
#
#   FLOE_PYTHON    interpreter for the venv (default /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$PWD/.venv-airflow
REQ=tests/airflow/requirements.txt
PY=${FLOE_PYTHON:-/usr/bin/python3}
VERSION=$(sed -n 's/^apache-airflow==//p' "$REQ")
PYV=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PUBLISHED="https://raw.githubusercontent.com/apache/airflow/constraints-$VERSION/constraints-$PYV.txt"
CONSTRAINTS=$(mktemp)
trap 'rm -f "$CONSTRAINTS"' EXIT
if curl -fsSL --max-time 20 -o "$CONSTRAINTS" "$PUBLISHED" 2>/dev/null; then
	SOURCE="Airflow's published constraints for $VERSION on Python $PYV"
else
	cp tests/airflow/constraints.txt "$CONSTRAINTS"
	SOURCE="tests/airflow/constraints.txt (Airflow's published constraints could not be fetched)"
fi
STAMP=$(cat "$REQ" "$CONSTRAINTS" | sha256sum | cut -d' ' -f1)
if [ ! -x "$VENV/bin/airflow" ] || [ "$(cat "$VENV/.floe-requirements.sha256" 2>/dev/null)" != "$STAMP" ]; then
	echo "setup-airflow: creating $VENV with $SOURCE" >&2
	rm -rf "$VENV"
	"$PY" -m venv "$VENV"
	"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ" -c "$CONSTRAINTS"
	echo "$STAMP" > "$VENV/.floe-requirements.sha256"
fi
echo "setup-airflow: apache-airflow $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("apache-airflow"))') in $VENV" >&2
