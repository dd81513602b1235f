#!/usr/bin/env bash
# scripts/venv-from.sh VENV REQDIR PROGRAM — a venv of its own for a big Python tool (dbt,
# Dagster): created at VENV from REQDIR/requirements.txt and REQDIR/constraints.txt (pinned,
# wheels only), recreated only when either file changes (their sha256 is stamped in the venv)
# or bin/PROGRAM is missing. Called by scripts/setup-dbt.sh and scripts/setup-dagster.sh.
#
#   FLOE_PYTHON    interpreter for the venv (default /usr/bin/python3)
set -euo pipefail
venv=$1 req=$2/requirements.txt constraints=$2/constraints.txt program=$3
py=${FLOE_PYTHON:-/usr/bin/python3}
stamp=$(cat "$req" "$constraints" | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/$program" ] || [ "$(cat "$venv/.floe-requirements.sha256" 2>/dev/null)" != "$stamp" ]; then
	echo "$(basename "$0"): creating $venv" >&2
	rm -rf "$venv"
	"$py" -m venv "$venv"
	"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
	echo "$stamp" > "$venv/.floe-requirements.sha256"
fi
