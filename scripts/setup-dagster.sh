#!/usr/bin/env bash
# .venv-dagster: dagster and dagster-dg-cli (`dg`), pinned in tests/dagster/requirements.txt, for
# the checks that run real Dagster on the project `floe generate` writes
# (tests/it/test_dagster_project.py). A venv of its own (scripts/venv-from.sh); reinstalled only
# when the requirements or constraints change. Wheels only.
#
#   FLOE_PYTHON    interpreter for the venv (default /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/venv-from.sh "$PWD/.venv-dagster" tests/dagster dg
echo "setup-dagster: $(.venv-dagster/bin/dg --version 2>/dev/null | head -1) in $PWD/.venv-dagster" >&2
