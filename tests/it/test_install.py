"""scripts/install.sh (floe quickstart): from nothing to a running pipeline and the console, twice
(the second run changes nothing and says so), and on your own database (doctor and plan, never a
load, the password kept only in the project's secrets file).

The installer builds and installs floe from this tree with `make`, so these tests run the
non-sanitized build only (they are in .ci/run's SAN_SKIP)."""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import floe
from sourcedb import Source

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "scripts" / "install.sh"


def installer_env(home, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "FLOE_SOURCE_PASSWORD")}
    env.update(HOME=str(home), **extra)
    return env


def install(home, *args, env=None):
    proc = subprocess.run(["bash", str(INSTALL), *args], cwd=ROOT, env=env or installer_env(home),
                          capture_output=True, text=True, timeout=900)
    return proc


def fresh_home():
    home = Path(tempfile.mkdtemp(prefix="floe-it-home-"))
    home.chmod(0o755)  # the postgres OS user reaches the project's cluster (we may be root)
    return home


def line_after(out, label):
    for line in out.splitlines():
        if line.startswith(label):
            return line[len(label):].strip()
    raise AssertionError(f"no line starting {label!r} in:\n{out}")


def tree_digest(path, skip=()):
    """Every file under `path` (names, sizes, contents) as one hash; `skip` names relative prefixes."""
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix()
        if not p.is_file() or any(rel.startswith(s) for s in skip):
            continue
        h.update(rel.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def files_containing(root, needle):
    found = []
    for p in root.rglob("*"):
        try:
            if p.is_file() and not p.is_symlink() and needle in p.read_bytes():
                found.append(p)
        except PermissionError:
            continue
    return found


def get(url, token=None):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.fixture
def home():
    home = fresh_home()
    try:
        yield home
    finally:
        project = home / "floe-shop"
        pid = (project / ".floe" / "serve.pid")
        if pid.exists():
            try:
                os.kill(int(pid.read_text()), signal.SIGTERM)
            except (ProcessLookupError, ValueError):
                pass
        prefix_floe = home / ".local" / "bin" / "floe"
        if prefix_floe.exists() and project.exists():
            subprocess.run([str(prefix_floe), "-C", str(project), "stack", "down"], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def test_the_installer_from_nothing_then_again_changes_nothing(home):
    prefix, project = home / ".local", home / "floe-shop"
    first = install(home, "--prefix", str(prefix), "--project", str(project), "--scale", "0.01")
    assert first.returncode == 0, first.stdout + first.stderr
    out = first.stdout
    # floe was installed into the fresh prefix, and every step said what it did.
    assert (prefix / "bin" / "floe").exists() and (prefix / "share" / "man" / "man1" / "floe.1.gz").exists()
    for step in ("install: floe into", "source: a private PostgreSQL", "shop:", "project: floe init",
                 "doctor:", "plan:", "generate:", "run:", "gold:", "console:"):
        assert step in out, out
    url, token = line_after(out, "The console:"), line_after(out, "Admin token:")
    assert url.startswith("http://127.0.0.1:") and token.startswith("floe_")

    # The console answers; the token works and nothing works without it.
    status, page = get(url)
    assert status == 200 and b"<html" in page.lower()
    assert get(url + "api/status")[0] == 401
    status, body = get(url + "api/status", token)
    assert status == 200, body
    rows = json.loads(body)["tables"]
    assert {r["state"] for r in rows if r["layer"] == "bronze"} == {"verified"}, rows
    assert {r["state"] for r in rows if r["layer"] in ("silver", "gold")} == {"built"}, rows
    assert len([r for r in rows if r["layer"] == "gold"]) == 4, rows  # the shop's example marts

    # Again: nothing to do anywhere, the same console and token, no file of the lake changed.
    lake_before = tree_digest(project / "warehouse")
    head_before = subprocess.run(["git", "-C", str(project / "pipeline"), "rev-parse", "HEAD"],
                                 capture_output=True, text=True).stdout
    second = install(home, "--prefix", str(prefix), "--project", str(project), "--scale", "0.01")
    assert second.returncode == 0, second.stdout + second.stderr
    for step in ("already installed (the same build): nothing to do", "already running: nothing to do",
                 "already there: nothing to do", "floe.toml exists: nothing to do",
                 "already loaded and verified: nothing to do", "every example mart is merged already",
                 "already running (pid"):
        assert step in second.stdout, second.stdout
    assert "nothing changed" in second.stdout  # floe generate's own word
    assert line_after(second.stdout, "The console:") == url
    assert line_after(second.stdout, "Admin token:") == token
    assert tree_digest(project / "warehouse") == lake_before
    assert subprocess.run(["git", "-C", str(project / "pipeline"), "rev-parse", "HEAD"],
                          capture_output=True, text=True).stdout == head_before

    # The installed `floe quickstart` runs the installed copy of the installer: the same, nothing to do.
    third = subprocess.run([str(prefix / "bin" / "floe"), "quickstart", "--project", str(project)],
                           cwd=home, env=installer_env(home), capture_output=True, text=True, timeout=600)
    assert third.returncode == 0, third.stdout + third.stderr
    assert f"floe: installed at {prefix}" in third.stdout and "already loaded and verified" in third.stdout
    assert line_after(third.stdout, "Admin token:") == token
    assert tree_digest(project / "warehouse") == lake_before

    # The password is in the secrets file (0600) and in no other file, and was never printed.
    secret = project / ".floe" / "secrets" / "source-password"
    assert secret.stat().st_mode & 0o777 == 0o600
    password = secret.read_bytes().strip()
    assert len(password) >= 16
    assert files_containing(home, password) == [secret]
    assert password.decode() not in first.stdout + first.stderr + second.stdout + second.stderr + third.stdout
    assert (project / ".floe" / "secrets" / "console-admin-token").stat().st_mode & 0o777 == 0o600


@pytest.fixture(scope="module")
def own_db(stack):
    s = Source(stack, "install_it", "install_reader").shop()
    s.grant_read("public")
    return s


def test_on_your_own_database_doctor_and_plan_run_and_nothing_loads(own_db, stack, home):
    project = home / "mine"
    src = f"127.0.0.1:{stack['port']}/{own_db.name}"
    env = installer_env(home, FLOE_SOURCE_PASSWORD=own_db.password)
    res = install(home, "--prefix", str(home / ".local"), "--project", str(project),
                  "--source", src, "--source-user", own_db.role, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "doctor:" in res.stdout and "plan:" in res.stdout and "nothing was loaded yet" in res.stdout
    secret = project / ".floe" / "secrets" / "source-password"
    assert secret.read_text().strip() == own_db.password and secret.stat().st_mode & 0o777 == 0o600
    assert files_containing(home, own_db.password.encode()) == [secret]
    assert own_db.password not in res.stdout + res.stderr
    assert not (project / "pipeline").exists()  # no generate, no load
    # Without the variable, the saved password serves every later command.
    st = floe("-C", str(project), "status", "--json", env={"FLOE_SOURCE_PASSWORD": ""}, unset=("FLOE_SOURCE_PASSWORD",))
    assert st.rc == 0, st


def test_a_failing_doctor_stops_before_any_load_and_names_the_step(own_db, stack, home):
    project = home / "wrong"
    src = f"127.0.0.1:{stack['port']}/{own_db.name}"
    env = installer_env(home, FLOE_SOURCE_PASSWORD="not-the-password")
    res = install(home, "--prefix", str(home / ".local"), "--project", str(project),
                  "--source", src, "--source-user", own_db.role, env=env)
    assert res.returncode == 1, res.stdout + res.stderr  # floe doctor's code: a check failed (the password)
    assert 'step "doctor: the source, the role, the warehouse, the catalog" failed' in res.stderr
    assert "hint:" in res.stderr
    assert "plan:" not in res.stdout and not (project / "pipeline").exists()
    assert "not-the-password" not in res.stdout + res.stderr


def test_usage_errors_name_the_problem(home):
    res = install(home, "--source", "db:5432/x")
    assert res.returncode == 2 and "--source needs --source-user" in res.stderr
    res = install(home, "--bogus")
    assert res.returncode == 2 and 'unknown option "--bogus"' in res.stderr
