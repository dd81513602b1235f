"""What floe reads from the command line and floe.toml, taken at its word only when it can be:
passwords on the command line, a password too plain to mask, NUL escapes, oversized files,
and a warehouse location init must follow."""
import pytest

from conftest import floe
from sourcedb import Source

SECRET = "Cmdline-Secret-51d0"


@pytest.mark.parametrize("address", [
    f"host=127.0.0.1 port=5432 dbname=shop user=u password={SECRET}",
    f"host=127.0.0.1 dbname=shop PASSWORD = {SECRET}",
    f"postgresql://u:{SECRET}@127.0.0.1:5432/shop",
    f"postgres://u:{SECRET}@127.0.0.1/shop",
    f"postgresql://127.0.0.1:5432/shop?password={SECRET}",
    f"postgresql://u@127.0.0.1/shop?sslmode=disable&password={SECRET}",
    f"u:{SECRET}@127.0.0.1:5432/shop",
    f"postgresql://u:{SECRET}/with/slash@127.0.0.1/shop",
])
def test_a_password_on_the_command_line_is_refused_and_never_echoed(project, address):
    r = floe("init", "--source", address, str(project), check=2)
    assert "the source address contains a password" in r.err, r
    assert "FLOE_SOURCE_PASSWORD" in r.err, r
    assert SECRET not in r.out + r.err, r
    assert not (project / "floe.toml").exists()



@pytest.mark.parametrize("command", [["init"], ["plan"], ["run"], ["query", "select 1"], ["status"],
                                     ["doctor"], ["reconcile"], ["generate"], ["stack", "up"],
                                     ["shop", "generate"]])
@pytest.mark.parametrize("option", [f"--password={SECRET}", f"--pasword={SECRET}", f"-p{SECRET}",
                                    f"--source-password={SECRET}\x1b[2J"])
def test_an_unknown_option_is_named_without_its_value(project, command, option):
    r = floe("-C", str(project), *command, option, check=2)
    shown = option.split("=")[0] if option.startswith("--") else "-p…"
    assert f"unknown option `{shown}` for `floe {command[0]}" in r.err, r
    assert SECRET not in r.out + r.err and "\x1b" not in r.out + r.err, r


def test_an_unknown_option_before_the_command_is_named_without_its_value(project):
    r = floe(f"--password={SECRET}", "init", str(project), check=2)
    assert "unknown option `--password` before the command" in r.err, r
    assert SECRET not in r.out + r.err, r

def test_uri_parameters_are_refused_not_dropped(project):
    r = floe("init", "--source", "postgresql://127.0.0.1/shop?sslmode=require", str(project), check=2)
    assert "URI parameters" in r.err and "[source]" in r.err, r
    assert not (project / "floe.toml").exists()


def test_a_nul_escape_in_floe_toml_is_refused_with_its_position(project):
    (project / "floe.toml").write_text('[source]\nuser = "r"\ndatabase = "shop\\u0000other"\n')
    r = floe("-C", str(project), "plan", check=2)
    assert "floe.toml:3:12: `source.database` holds a NUL character" in r.err, r


def test_a_huge_floe_toml_is_a_configuration_error(project):
    body = '[source]\nuser = "r"\ndatabase = "shop"\n' + ("#" * 99 + "\n") * 52_000
    (project / "floe.toml").write_text(body)
    r = floe("-C", str(project), "plan", check=2)
    assert "floe.toml" in r.err and "more than the 4194304 floe reads" in r.err, r
    assert "hint:" in r.err, r


def test_a_directory_named_floe_toml_is_a_configuration_error(project):
    (project / "floe.toml").mkdir()
    r = floe("-C", str(project), "plan", check=2)
    assert "is a directory" in r.err and "hint:" in r.err, r


def test_init_creates_the_warehouse_where_floe_toml_says(project):
    (project / "floe.toml").write_text('[source]\nuser = "r"\ndatabase = "shop"\n\n'
                                       '[warehouse]\nlocation = "lake/tables"\n')
    r = floe("init", str(project), check=0)
    assert (project / "lake" / "tables" / "catalog.db").is_file(), r
    assert not (project / "warehouse").exists(), r
    assert "lake/tables/catalog.db" in r.out, r
    assert "lake/tables/" in (project / ".gitignore").read_text()
    d = floe("-C", str(project), "doctor", "--json")
    checks = {c["id"]: c for c in __import__("json").loads(d.out)["checks"]}
    assert checks["warehouse.writable"]["status"] == "ok", d
    assert checks["catalog.opens"]["status"] == "ok", d


def test_a_password_that_is_a_word_floe_prints_is_not_masked_but_warned_about(stack, tmp_path):
    src = Source(stack, "trust_it", "trust_reader")
    src.password = "verified"
    src.create("CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a');")
    src.grant_read("public")
    d = tmp_path / "p"
    d.mkdir()
    src.generated(d)
    r = src.floe(d, "run", check=0)
    assert "bronze.t" in r.out and "verified: 1 rows" in r.out, r
    assert "********" not in r.out + r.err, r
    assert r.err.count("too short or too plain to be masked") == 1, r
    # a password that mixes characters is still masked wherever it appears
    r = src.floe(d, "run", env={"FLOE_SOURCE_PASSWORD": "verified-9x"})
    assert r.rc == 3 and "verified-9x" not in r.out + r.err, r
