"""Fixtures for floe's integration tests: the real binary, a real PostgreSQL.

The cluster is started once per test session with `floe stack up` (the same
command the demo uses) in a private directory, and stopped at the end.
"""
import json
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg
import pytest

REPO = Path(__file__).resolve().parents[2]
FLOE = os.environ.get("FLOE_BIN", str(REPO / "build" / "floe"))


class Result:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def __repr__(self):
        return f"rc={self.rc}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


class Outputs:
    """Every stdout/stderr floe printed during a test, for secret scans."""

    def __init__(self):
        self.texts = []


OUTPUTS = Outputs()


def floe(*args, cwd=None, env=None, check=None, unset=()):
    full_env = dict(os.environ)
    # every incremental silver build that finds its changed rows in the key index finds them by the
    # scan too, and fails when the two differ (src/silver/keys.c)
    full_env.setdefault("FLOE_SILVER_KEYS_CHECK", "1")
    if env:
        full_env.update(env)
    for name in unset:
        full_env.pop(name, None)
    proc = subprocess.run([FLOE, *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=300)
    OUTPUTS.texts.append(proc.stdout + proc.stderr)
    res = Result(proc)
    if check is not None:
        assert res.rc == check, res
    return res


@pytest.fixture(scope="session")
def stack():
    """A private PostgreSQL, its admin connection string, and the reader's password."""
    base = Path(tempfile.mkdtemp(prefix="floe-it-"))
    base.chmod(0o755)  # the postgres OS user must reach it when we run as root
    password = "it-" + secrets.token_hex(12)
    env = {"FLOE_SOURCE_PASSWORD": password}
    floe("stack", "up", "--database", "shop", "--reader", "floe_reader", cwd=base, env=env, check=0)
    info = json.loads(floe("stack", "status", "--json", cwd=base, check=0).out)
    info["dir"] = base
    info["password"] = password
    info["admin"] = f"host={info['socket_dir']} port={info['port']} user=postgres dbname=shop"
    try:
        yield info
    finally:
        floe("stack", "down", cwd=base)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def admin(stack):
    with psycopg.connect(stack["admin"], autocommit=True) as conn:
        yield conn


@pytest.fixture
def project():
    """An empty project directory the postgres OS user can reach (pytest's tmp_path is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="floe-it-proj-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        floe("stack", "down", cwd=path)  # in case a test left a cluster running
        shutil.rmtree(path, ignore_errors=True)


def make_role(admin, name, password, grants=()):
    """A fresh LOGIN role with the given GRANT statements applied (use {role})."""
    admin.execute(f'DROP OWNED BY "{name}"') if role_exists(admin, name) else None
    admin.execute(f'DROP ROLE IF EXISTS "{name}"')
    admin.execute(f"CREATE ROLE \"{name}\" LOGIN PASSWORD '{password}'")
    admin.execute(f'GRANT USAGE ON SCHEMA public TO "{name}"')
    for g in grants:
        admin.execute(g.format(role=f'"{name}"'))


def role_exists(admin, name):
    return admin.execute("select 1 from pg_roles where rolname = %s", (name,)).fetchone() is not None
