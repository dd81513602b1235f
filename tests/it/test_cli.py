"""The command line: help for every command, suggestions, exit codes."""
import os
import re

from conftest import FLOE, floe

COMMANDS = ["init", "doctor", "stack", "plan", "generate", "run", "reconcile", "status", "query", "shop", "catalog",
            "compact", "expire"]


def test_overview_lists_every_command_and_exit_codes():
    r = floe("--help", check=0)
    for c in COMMANDS:
        assert re.search(rf"^\s+{c}\s+\S", r.out, re.M), r
    for code in range(5):
        assert re.search(rf"^\s+{code}\s+\w", r.out, re.M), r


def test_every_command_has_help_with_an_example():
    for c in COMMANDS:
        r = floe(c, "--help", check=0)
        assert r.out.startswith(f"usage: floe {c}"), r
        assert "examples:" in r.out and f"floe {c}" in r.out.split("examples:")[1], r
        assert "exit codes:" in r.out, r


def test_no_command_is_a_usage_error():
    r = floe(check=2)
    assert "usage:" in r.out


def test_unknown_command_suggests_the_nearest():
    r = floe("doctr", check=2)
    assert "unknown command `doctr` — did you mean `doctor`?" in r.err, r


def test_unknown_option_suggests_the_nearest():
    r = floe("init", "--sourse", "x", check=2)
    assert "did you mean `--source`?" in r.err, r


def test_option_without_value_is_a_usage_error():
    r = floe("init", "--source", check=2)
    assert "needs a value" in r.err, r


def test_bad_source_address_is_a_usage_error(project):
    r = floe("init", "--source", "localhost:99999/shop", str(project), check=2)
    assert "port" in r.err and "hint:" in r.err, r
    assert not (project / "floe.toml").exists()


def test_password_in_uri_is_refused(project):
    r = floe("init", "--source", "postgresql://u:hunter22@h/db", str(project), check=2)
    assert "password" in r.err and "hunter22" not in r.err + r.out, r


def test_version_names_duckdb():
    r = floe("--version", check=0)
    assert re.match(r"floe \d+\.\d+\.\d+ \(DuckDB v1\.5\.5\)", r.out), r


def test_without_its_duckdb_library_floe_starts_and_names_what_is_missing(tmp_path):
    # libduckdb.so is opened when floe first needs DuckDB (src/engine/duckdb_load.c): a floe whose
    # run path finds none still starts, does what needs no SQL, and says what is missing where SQL is asked
    import shutil
    import subprocess
    exe = tmp_path / "bin" / "floe"
    exe.parent.mkdir()
    shutil.copy(FLOE, exe)
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}

    def run(*args):
        return subprocess.run([str(exe), *args], capture_output=True, text=True, cwd=tmp_path, env=env)
    r = run("--version")
    assert r.returncode == 0 and "(DuckDB unavailable)" in r.stdout, r
    assert run("init", "--source", "127.0.0.1:1/x", str(tmp_path / "p")).returncode == 0
    r = run("-C", str(tmp_path / "p"), "query", "select 1")
    assert r.returncode != 0 and "could not load DuckDB's library: libduckdb.so" in r.stderr, r
    assert "hint: An installed floe keeps libduckdb.so in lib/floe" in r.stderr, r
    r = run("-C", str(tmp_path / "p"), "doctor")
    assert re.search(r"fail\s+embedded DuckDB answers\s+could not load DuckDB's library", r.stdout + r.stderr), r
