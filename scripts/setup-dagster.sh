#!/usr/bin/env bash
# .venv-dagster: dagster and dagster-dg-cli (`dg`), pinned in tests/dagster/requirements.txt, for
# the checks that run real Dagster on the project `floe generate` writes
# (tests/it/test_dagster_project.py). A venv of its own; reinstalled only when the requirements or
# constraints change. Wheels only.
#
#   FLOE_PYTHON    interpreter for the venv (default /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$PWD/.venv-dagster
REQ=tests/dagster/requirements.txt
PY=${FLOE_PYTHON:-/usr/bin/python3}
STAMP=$(cat "$REQ" tests/dagster/constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -x "$VENV/bin/dg" ] || [ "$(cat "$VENV/.floe-requirements.sha256" 2>/dev/null)" != "$STAMP" ]; then
	echo "setup-dagster: creating $VENV" >&2
	rm -rf "$VENV"
	"$PY" -m venv "$VENV"
	"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQ"
	echo "$STAMP" > "$VENV/.floe-requirements.sha256"
fi
echo "setup-dagster: $("$VENV/bin/dg" --version 2>/dev/null | head -1) in $VENV" >&2
