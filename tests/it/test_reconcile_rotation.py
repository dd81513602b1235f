"""Proof that follows the change ([reconcile] full-every, docs/parallel-load.md): after an
incremental load V3 hashes in full the buckets the run touched plus a rotating share of the
others; a silent change outside the share is caught within full-every runs, every result names
what it covered, the planted control fires every run, and `floe status` says when each table was
last proven in full."""
import json
import re

import pytest

from lakecheck import assert_equals_source
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.events (id bigint PRIMARY KEY, payload text,
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.events SELECT g, 'p' || g, now() - interval '1 day' - g * interval '1 second'
    FROM generate_series(1, 40000) g;
'''


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "rot_it", "rot_reader", SQL)


def ledger(d):
    import sqlite3
    con = sqlite3.connect(d / ".floe" / "state.db")
    rows = con.execute("select run_id, outcome, attempt, numbers, detail from reconcile_results "
                       "where table_name = 'bronze.events' order by started_at").fetchall()
    con.close()
    return [{"run": r[0], "outcome": r[1], "attempt": r[2], "v3": json.loads(r[3])["v3"], "detail": r[4]}
            for r in rows]


def run(src, d):
    out = json.loads(src.floe(d, "run", "--no-sync", "--json", "--layer", "bronze").out)
    return out["run_id"], {t["table"]: t for t in out["tables"]}["bronze.events"]


def status(src, d):
    out = json.loads(src.floe(d, "status", "--json", check=0).out)
    return next(t for t in out["tables"] if t["table"] == "bronze.events")


def silently(src, sql):
    """A change whose watermark does not move: an incremental load cannot see it."""
    src.admin(f"ALTER TABLE public.events DISABLE TRIGGER touch; {sql}; "
              "ALTER TABLE public.events ENABLE TRIGGER touch")


def test_a_silent_change_outside_the_share_is_caught_within_full_every_runs(src, tmp_path):
    d = tmp_path
    src.project(d, extra='\n[bronze]\nlate-window = "0s"\n[reconcile]\nfull-every = 2\n')
    src.floe(d, "generate", check=0)
    run_id, first = run(src, d)
    assert first["check"] == "verified", first
    full = ledger(d)[-1]
    assert full["v3"]["buckets"] == 4 and full["v3"]["covered"] == 4 and not full["v3"]["rotating"], full
    proof = status(src, d)["reconcile"]["last_full_proof"]
    assert proof, status(src, d)

    # Touched rows (the changed one, and the one at the watermark a load re-reads): their buckets
    # plus share 1 of 2 (buckets 0 and 2) are hashed in full; the others' rows by their keys.
    src.admin("UPDATE public.events SET payload = 'changed' WHERE id = 7")
    _, res = run(src, d)
    r = ledger(d)[-1]
    assert r["outcome"] == "verified" and r["v3"]["rotating"], r
    m = re.match(r"V3 on (\d) of 4 buckets \(([12]) touched by the run, share 1 of 2 rotating", r["detail"])
    assert m and int(m.group(1)) == r["v3"]["covered"] < 4, r
    assert "control" in r["detail"] and "caught" in r["detail"], r
    assert "last full proof " + proof in r["detail"], r
    assert res["check"] == "verified" and res["check_detail"] == r["detail"], res

    # A silent change V1 and V2 cannot see (same length, neither min nor max, still distinct): only
    # V3 catches it, within 2 runs (when its bucket's share comes, if no touch covers it first).
    silently(src, "UPDATE public.events SET payload = 'p2000x' WHERE id = 20000")
    caught = None
    for i in range(2):
        _, res = run(src, d)
        last = ledger(d)[-2:] if "repair" in res["detail"] else ledger(d)[-1:]
        assert last[-1]["outcome"] == "verified", last  # after a repair, or with the change still outside
        if "repair" in res["detail"]:
            assert last[0]["outcome"] == "diverged" and last[0]["v3"]["rotating"], last
            assert len(last[0]["v3"]["diverged"]) == 1 and "0 of 13 measures differ" in last[0]["detail"], last
            caught = i
            break
        assert last[-1]["v3"]["rotating"] and last[-1]["v3"]["covered"] < 4, last
    assert caught is not None, ledger(d)[-3:]
    assert_equals_source(src, d, "bronze.events")

    # Every bucket proven since: status names the last full proof, never a bare "verified".
    for _ in range(2):
        run(src, d)
    st = status(src, d)
    assert st["reconcile"]["last_full_proof"] > proof, st
    assert "last full proof" in st["facts"] and "V3 on" in st["facts"], st
    human = src.floe(d, "status", check=0).out
    line = next(x for x in human.splitlines() if x.startswith("bronze.events"))
    assert "V3 on" in line and "last full proof" in line, line


def test_full_every_one_proves_every_bucket_every_run(src, tmp_path):
    d = tmp_path
    src.project(d)
    src.floe(d, "generate", check=0)
    run(src, d)
    silently(src, "UPDATE public.events SET payload = 'silent2' WHERE id = 30000")
    src.admin("UPDATE public.events SET payload = 'x' WHERE id = 8")
    _, res = run(src, d)
    rows = ledger(d)
    assert rows[-2]["outcome"] == "diverged" and not rows[-2]["v3"]["rotating"], rows[-2:]
    assert rows[-2]["v3"]["covered"] == 4 and rows[-1]["outcome"] == "verified", rows[-2:]
    assert_equals_source(src, d, "bronze.events")


def test_a_touched_bucket_outside_the_share_is_always_hashed(src, tmp_path):
    """A silent change in the bucket of a row the run changed, that bucket outside the run's
    rotating share: the touched bucket is hashed in full, so the run catches it (V3 alone)."""
    d = tmp_path
    src.project(d, extra='\n[bronze]\nlate-window = "0s"\n[reconcile]\nfull-every = 2\n')
    src.floe(d, "generate", check=0)
    run(src, d)
    # Which bucket each of 40 keys falls in: a full `floe reconcile` of them changed, then undone.
    silently(src, "UPDATE public.events SET payload = payload || '!' WHERE id BETWEEN 30001 AND 30040")
    src.floe(d, "reconcile", "--table", "public.events", "--json")
    keys = ledger(d)[-1]["v3"]["keys"]
    silently(src, "UPDATE public.events SET payload = 'p' || id WHERE id BETWEEN 30001 AND 30040")
    bucket_of = {int(k["key"][0]): k["bucket"] for k in keys}
    assert len(bucket_of) == 40 and len(set(bucket_of.values())) == 4, keys
    import sqlite3
    con = sqlite3.connect(d / ".floe" / "state.db")
    share = con.execute("select next_share from reconcile_coverage where table_name = 'bronze.events'").fetchone()[0] % 2
    con.close()
    outside = sorted(k for k, b in bucket_of.items() if b % 2 != share)
    bucket = bucket_of[outside[0]]
    silent, touched = [k for k in outside if bucket_of[k] == bucket][:2]
    silently(src, f"UPDATE public.events SET payload = left(payload, -1) || 'x' WHERE id = {silent}")
    src.admin(f"UPDATE public.events SET payload = payload WHERE id = {touched}")  # the trigger moves it
    _, res = run(src, d)
    first, second = ledger(d)[-2:]
    assert first["outcome"] == "diverged" and first["v3"]["rotating"], first
    # V3 alone saw it; the touched bucket(s): this row's, and the row the load re-reads at its watermark
    assert "0 of 13 measures differ" in first["detail"] and re.search(r"\(\d touched by the run", first["detail"]), first
    assert [b["bucket"] for b in first["v3"]["diverged"]] == [bucket], first
    assert [k["key"] for k in first["v3"]["keys"]] == [[str(silent)]], first
    assert second["outcome"] == "verified" and res["check"] == "verified", (second, res)
    assert_equals_source(src, d, "bronze.events")
