"""floe.toml errors: file, line and column, the key, what was expected, a suggestion."""
from conftest import floe

GOOD = """[project]
name = "shop"

[source]
host = "127.0.0.1"
port = 5432
database = "shop"
user = "floe_reader"
"""


def write(project, text):
    (project / "floe.toml").write_text(text)


def test_error_on_line_7_names_the_line(project):
    lines = GOOD.splitlines()
    lines[6] = 'database = shop'  # line 7: an unquoted string is not TOML
    write(project, "\n".join(lines) + "\n")
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:7:" in r.err, r


def test_unknown_section_suggests_the_nearest(project):
    write(project, GOOD.replace("[source]", "[sourse]"))
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:4:" in r.err and "unknown key `sourse` — did you mean `source`?" in r.err, r


def test_unknown_key_in_a_section_suggests_and_lists(project):
    write(project, GOOD.replace("host =", "hots ="))
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:5:1: unknown key `hots` in [source] — did you mean `host`?" in r.err, r
    assert "Known keys" in r.err, r


def test_wrong_type_says_what_was_expected(project):
    write(project, GOOD.replace("port = 5432", 'port = "5432"'))
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:6:8: `source.port` must be an integer, not a string" in r.err, r


def test_out_of_range_port(project):
    write(project, GOOD.replace("port = 5432", "port = 70000"))
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:6:8:" in r.err and "1 to 65535" in r.err, r


def test_bad_value_in_a_map(project):
    write(project, GOOD + '\n[silver.pii]\n"public.customer.email" = "md5"\n')
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:11:" in r.err and "`hmac` or `null`" in r.err, r


def test_bad_map_key(project):
    write(project, GOOD + '\n[watermarks]\n"orders" = "updated_at"\n')
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:11:1:" in r.err and "schema.table" in r.err, r


def test_missing_database_is_named(project):
    write(project, GOOD.replace('database = "shop"\n', ""))
    r = floe("-C", str(project), "doctor", check=2)
    assert "has no `database`" in r.err and "hint:" in r.err, r


def test_missing_file_says_how_to_create_one(project):
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml" in r.err and "floe init" in r.err, r


def test_duplicate_key_is_a_toml_error_with_position(project):
    write(project, GOOD + 'port = 1\n')
    r = floe("-C", str(project), "doctor", check=2)
    assert "floe.toml:9:" in r.err, r
