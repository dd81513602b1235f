"""A hand-edited extraction query (pipeline/bronze/<table>.sql) is run as the user wrote it,
whatever its last line: one ending in a `--` comment without a newline still loads and reconciles
(floe wraps the query in COPY, counts and keyed re-reads, and each wrapper must end the comment)."""
import json

import pytest

from sourcedb import Source

SQL = '''
CREATE TABLE public.notes (id bigint PRIMARY KEY, body text NOT NULL);
INSERT INTO public.notes SELECT g, 'note ' || g FROM generate_series(1, 40) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "edit_it", "edit_reader", SQL)


def test_a_query_ending_in_a_comment_loads_and_verifies(src, tmp_path):
    d = src.generated(tmp_path)
    f = d / "pipeline" / "bronze" / "notes.sql"
    f.write_text(f.read_text().rstrip("\n") + "\n-- kept for the auditors, no newline after this")
    r = src.floe(d, "run", "--layer", "bronze", "--json", check=0)
    assert r.rc == 0, r.out + r.err
    st = {t["table"]: t for t in json.loads(src.floe(d, "status", "--json").out)["tables"]}
    assert st["bronze.notes"]["state"] == "verified" and st["bronze.notes"]["rows"] == 40, st["bronze.notes"]
    assert st["bronze.notes"]["drift"] is True
