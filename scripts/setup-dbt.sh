#!/usr/bin/env bash
# .venv-dbt: dbt-core and dbt-duckdb (tests/dbt/requirements.txt) for the checks that run real dbt
# on the project `floe generate` writes (tests/it/test_dbt_project.py). A venv of its own: see
# tests/dbt/requirements.txt. Reinstalled only when the requirements or constraints change.
#
#   FLOE_PYTHON    interpreter for the venv (default /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$PWD/.venv-dbt
REQ=tests/dbt/requirements.txt
PY=${FLOE_PYTHON:-/usr/bin/python3}
STAMP=$(cat "$REQ" tests/dbt/constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -x "$VENV/bin/dbt" ] || [ "$(cat "$VENV/.floe-requirements.sha256" 2>/dev/null)" != "$STAMP" ]; then
	echo "setup-dbt: creating $VENV" >&2
	rm -rf "$VENV"
	"$PY" -m venv "$VENV"
	"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
	echo "$STAMP" > "$VENV/.floe-requirements.sha256"
fi
echo "setup-dbt: $("$VENV/bin/dbt" --version 2>/dev/null | sed -n 's/.*installed: *//p' | head -1) in $VENV" >&2
