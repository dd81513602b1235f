#!/usr/bin/env bash
# .venv-dbt: dbt-core and dbt-duckdb (tests/dbt/requirements.txt) for the checks that run real dbt
# on the project `floe generate` writes (tests/it/test_dbt_project.py). A venv of its own: see
# tests/dbt/requirements.txt (scripts/venv-from.sh). Reinstalled only when the requirements or
# constraints change.
#
#   FLOE_PYTHON    interpreter for the venv (default /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$PWD/.venv-dbt
scripts/venv-from.sh "$VENV" tests/dbt dbt
echo "setup-dbt: $("$VENV/bin/dbt" --version 2>/dev/null | sed -n 's/.*installed: *//p' | head -1) in $VENV" >&2
