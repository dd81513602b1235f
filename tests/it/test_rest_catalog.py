"""The Iceberg REST catalog of `floe serve` (/iceberg), driven by real clients: PyIceberg's RestCatalog
lists, loads and scans every shop bronze table equal to the source; PyIceberg creates a table and
appends, and `floe query` sees it; racing writers get one 409 and lose no snapshot, also against
`floe run`; every requirement type is checked (a failing one is a 409, a holding one commits); the
spec's error model for what is unknown or unsupported."""
import threading

import pyarrow as pa
import pytest
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import CommitFailedException, ForbiddenError, NoSuchTableError, UnauthorizedError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from lakecheck import catalog as sql_catalog, lock_of, norm, source_rows
from servekit import Serve, call_json
from sourcedb import Source


@pytest.fixture(scope="module")
def src(stack):
    s = Source(stack, "rest_it", "rest_reader").shop()
    s.grant_read("public")
    return s


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("rest")
    src.generated(d)
    src.floe(d, "run", "--layer", "bronze", "--no-sync", check=0)
    return d


TOKENS = {}


@pytest.fixture(scope="module")
def server(src, proj):
    for role in ("viewer", "operator"):  # a token exists: every request must bring one
        TOKENS[role] = src.floe(proj, "serve", "token", "add", "--role", role, "--name", f"rest-{role}",
                                check=0).out.strip()
    s = Serve(proj, src.password)
    yield s
    s.stop()


def rest(server, role="operator"):
    return RestCatalog("floe", uri=f"{server.base}/iceberg", token=TOKENS[role])


def call(server, method, path, body=None, role="operator"):
    """(status, parsed JSON or None) of a raw request to the catalog, with `role`'s token (None: none)."""
    auth = {"Authorization": "Bearer " + TOKENS[role]} if role else {}
    return call_json(method, f"{server.base}/iceberg{path}", body, auth)


def assert_error(reply, code, kind):
    status, body = reply
    assert status == code, reply
    assert body["error"]["code"] == code and body["error"]["type"] == kind, reply
    assert body["error"]["message"], reply


def test_config_lists_exactly_what_is_served(server):
    status, body = call(server, "GET", "/v1/config")
    assert status == 200 and body["defaults"] == {} and body["overrides"] == {}, body
    eps = set(body["endpoints"])
    assert "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}" in eps
    assert "POST /v1/{prefix}/tables/rename" in eps
    assert not [e for e in eps if "views" in e or "oauth" in e or "transactions" in e], eps
    assert_error(call(server, "GET", "/v1/namespaces/bronze/views"), 406, "UnsupportedOperationException")


def test_a_viewer_reads_an_operator_writes_no_token_is_refused(server):
    viewer = rest(server, "viewer")
    assert ("bronze",) in viewer.list_namespaces() and viewer.load_table("bronze.orders")
    with pytest.raises(ForbiddenError):
        viewer.create_namespace("viewer_was_here")
    assert_error(call(server, "DELETE", "/v1/namespaces/bronze/tables/orders", role="viewer"), 403,
                 "ForbiddenException")
    assert_error(call(server, "GET", "/v1/namespaces", role=None), 401, "NotAuthorizedException")
    assert_error(call(server, "POST", "/v1/namespaces", {"namespace": ["x"]}, role=None), 401, "NotAuthorizedException")
    with pytest.raises(UnauthorizedError):
        RestCatalog("floe", uri=f"{server.base}/iceberg", token="floe_" + "0" * 64).list_namespaces()
    assert ("viewer_was_here",) not in rest(server).list_namespaces()


def test_pyiceberg_reads_every_bronze_table_equal_to_the_source(src, proj, server):
    cat = rest(server)
    assert ("bronze",) in cat.list_namespaces()
    lock = lock_of(proj)
    want = sorted(t["bronze"] for t in lock["tables"])
    got = sorted(".".join(i) for i in cat.list_tables("bronze"))
    assert got == want and len(got) >= 5, (got, want)
    sql = sql_catalog(proj)
    for t in lock["tables"]:
        tbl = cat.load_table(t["bronze"])
        assert tbl.metadata_location == sql.load_table(t["bronze"]).metadata_location
        rows = sorted(([norm(v) for v in r.values()] for r in tbl.scan().to_arrow().to_pylist()), key=repr)
        assert rows == source_rows(src, proj, t), t["bronze"]


def test_pyiceberg_creates_and_appends_and_floe_query_sees_it(src, proj, server):
    cat = rest(server)
    cat.create_namespace("ext", {"owner": "analytics"})
    # "location" where its tables go, as Java's catalogs answer (Trino places new tables below it)
    assert cat.load_namespace_properties("ext") == {"owner": "analytics", "location": f"file://{proj}/warehouse/ext"}
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "name", StringType()))
    tbl = cat.create_table("ext.events", schema)
    tbl.append(pa.Table.from_pylist([{"id": i, "name": f"n{i}"} for i in range(1, 101)],
                                    schema=tbl.schema().as_arrow()))
    tbl.append(pa.Table.from_pylist([{"id": 1000, "name": None}], schema=tbl.schema().as_arrow()))
    assert len(tbl.scan().to_arrow()) == 101
    r = src.floe(proj, "query", "--csv", "select count(*) AS n, sum(id) AS s from ext.events", check=0)
    assert r.out == "n,s\n101,6050\n", r
    # the same metadata through the SQL catalog (one catalog, two doors)
    assert sql_catalog(proj).load_table("ext.events").metadata_location == cat.load_table("ext.events").metadata_location
    cat.rename_table("ext.events", "ext.events2")
    assert [".".join(i) for i in cat.list_tables("ext")] == ["ext.events2"]
    assert_error(call(server, "DELETE", "/v1/namespaces/ext"), 409, "NamespaceNotEmptyException")
    cat.drop_table("ext.events2")
    with pytest.raises(NoSuchTableError):
        cat.load_table("ext.events2")
    cat.drop_namespace("ext")
    assert ("ext",) not in cat.list_namespaces()


def test_two_racing_writers_get_one_409_and_lose_no_snapshot(server):
    cat = rest(server)
    cat.create_namespace("race")
    schema = Schema(NestedField(1, "id", LongType(), required=True))
    cat.create_table("race.t", schema, properties={"commit.retry.num-retries": "0"})  # see the 409 itself
    a, b = cat.load_table("race.t"), cat.load_table("race.t")  # both on the same base
    gate, results = threading.Barrier(2), {}

    def write(name, tbl, rows):
        gate.wait()
        try:
            tbl.append(pa.Table.from_pylist([{"id": r} for r in rows], schema=tbl.schema().as_arrow()))
            results[name] = tbl.current_snapshot().snapshot_id
        except CommitFailedException as e:
            results[name] = e

    ts = [threading.Thread(target=write, args=("a", a, [1, 2])), threading.Thread(target=write, args=("b", b, [3]))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    failed = [k for k, v in results.items() if isinstance(v, Exception)]
    won = [v for v in results.values() if not isinstance(v, Exception)]
    assert len(failed) == 1 and len(won) == 1, results
    fresh = cat.load_table("race.t")
    assert [s.snapshot_id for s in fresh.snapshots()] == won
    loser = b if failed == ["b"] else a
    loser.refresh()  # the client retries on the fresh metadata: both land
    loser.append(pa.Table.from_pylist([{"id": 9}], schema=loser.schema().as_arrow()))
    fresh = cat.load_table("race.t")
    assert len(fresh.snapshots()) == 2 and won[0] in [s.snapshot_id for s in fresh.snapshots()]
    assert sorted(r["id"] for r in fresh.scan().to_arrow().to_pylist()) in ([1, 2, 9], [3, 9])
    # with PyIceberg's own retries (the default) racing writers all land
    fresh.transaction().remove_properties("commit.retry.num-retries").commit_transaction()
    many = [cat.load_table("race.t") for _ in range(4)]
    results.clear()
    gate = threading.Barrier(4)
    ts = [threading.Thread(target=write, args=(str(i), tbl, [100 + i])) for i, tbl in enumerate(many)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not [v for v in results.values() if isinstance(v, Exception)], results
    ids = sorted(r["id"] for r in cat.load_table("race.t").scan().to_arrow().to_pylist())
    assert ids[-4:] == [100, 101, 102, 103] and len(cat.load_table("race.t").snapshots()) == 6, ids


def commit(server, table, requirements, updates):
    return call(server, "POST", f"/v1/namespaces/race/tables/{table}",
                {"requirements": requirements, "updates": updates})


def test_every_requirement_type_fails_with_409_and_holds_with_200(server):
    cat = rest(server)
    cat.create_table("race.req", Schema(NestedField(1, "id", LongType(), required=True)))
    _, loaded = call(server, "GET", "/v1/namespaces/race/tables/req")
    m = loaded["metadata"]
    holding = [
        {"type": "assert-table-uuid", "uuid": m["table-uuid"]},
        {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None},
        {"type": "assert-last-assigned-field-id", "last-assigned-field-id": m["last-column-id"]},
        {"type": "assert-current-schema-id", "current-schema-id": m["current-schema-id"]},
        {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": m["last-partition-id"]},
        {"type": "assert-default-spec-id", "default-spec-id": m["default-spec-id"]},
        {"type": "assert-default-sort-order-id", "default-sort-order-id": m["default-sort-order-id"]},
    ]
    for i, req in enumerate(holding):
        bad = dict(req)
        key = [k for k in req if k != "type"][-1]
        bad[key] = "00000000-0000-4000-8000-000000000000" if key == "uuid" else 4711
        before = call(server, "GET", "/v1/namespaces/race/tables/req")[1]["metadata-location"]
        assert_error(commit(server, "req", [bad], [{"action": "set-properties", "updates": {"k": "bad"}}]),
                     409, "CommitFailedException")
        assert call(server, "GET", "/v1/namespaces/race/tables/req")[1]["metadata-location"] == before, req
        status, body = commit(server, "req", [req], [{"action": "set-properties", "updates": {"k": str(i)}}])
        assert status == 200 and body["metadata"]["properties"]["k"] == str(i), (req, body)
    assert_error(commit(server, "req", [{"type": "assert-create"}], []), 409, "CommitFailedException")
    assert_error(commit(server, "req", [{"type": "assert-nothing"}], []), 400, "BadRequestException")
    assert_error(commit(server, "req", [], [{"action": "do-something"}]), 400, "BadRequestException")
    assert_error(commit(server, "req", [], [{"action": "upgrade-format-version", "format-version": 1}]),
                 400, "BadRequestException")
    assert_error(commit(server, "nope", [], []), 404, "NoSuchTableException")


def test_updates_evolve_the_schema_and_properties_and_a_staged_create_commits(server):
    moved = call(server, "GET", "/v1/namespaces/race/tables/req")[1]["metadata"]["location"] + "_moved"
    st, body = commit(server, "req", [], [
        {"action": "add-schema", "schema": {"type": "struct", "schema-id": 1, "fields": [
            {"id": 1, "name": "id", "type": "long", "required": True},
            {"id": 2, "name": "note", "type": "string", "required": False}]}, "last-column-id": 2},
        {"action": "set-current-schema", "schema-id": -1},
        {"action": "add-sort-order", "sort-order": {"order-id": 1, "fields": [
            {"transform": "identity", "source-id": 1, "direction": "asc", "null-order": "nulls-first"}]}},
        {"action": "set-default-sort-order", "sort-order-id": -1},
        {"action": "remove-properties", "removals": ["k"]},
        {"action": "set-location", "location": moved}])
    assert st == 200, body
    m = body["metadata"]
    assert m["current-schema-id"] == 1 and m["last-column-id"] == 2 and m["default-sort-order-id"] == 1, m
    assert "k" not in m["properties"] and m["location"] == moved
    # a table stays inside the warehouse: elsewhere it could write (and purge) any file the server can
    for outside in ("file:///tmp/elsewhere", moved + "/../../../../etc"):
        assert_error(commit(server, "req", [], [{"action": "set-location", "location": outside}]),
                     400, "BadRequestException")
    assert_error(call(server, "POST", "/v1/namespaces/race/tables", {"name": "out", "location": "/tmp/out",
                      "schema": {"type": "struct", "fields": []}}), 400, "BadRequestException")
    assert [f.name for f in rest(server).load_table("race.req").schema().fields] == ["id", "note"]
    # Java's clients send ids from 0: the catalog gives fresh ones, the spec's source follows its column
    st, zero = call(server, "POST", "/v1/namespaces/race/tables", {"name": "zero", "schema": {"type": "struct", "fields": [
        {"id": 0, "name": "a", "type": "int", "required": False}, {"id": 1, "name": "b", "type": "string", "required": False}]},
        "partition-spec": {"fields": [{"source-id": 1, "transform": "identity", "name": "b"}]}})
    assert st == 200, zero
    assert [f["id"] for f in zero["metadata"]["schemas"][0]["fields"]] == [1, 2]
    assert zero["metadata"]["partition-specs"][0]["fields"][0]["source-id"] == 2, zero["metadata"]["partition-specs"]
    # Spark's CTAS: stage-create answers metadata without writing; the commit with assert-create creates
    st, staged = call(server, "POST", "/v1/namespaces/race/tables", {
        "name": "staged", "stage-create": True,
        "schema": {"type": "struct", "fields": [{"id": 1, "name": "x", "type": "int", "required": False}]}})
    assert st == 200 and "metadata-location" not in staged, staged
    assert_error(call(server, "GET", "/v1/namespaces/race/tables/staged"), 404, "NoSuchTableException")
    sm = staged["metadata"]
    st, body = commit(server, "staged", [{"type": "assert-create"}], [
        {"action": "assign-uuid", "uuid": sm["table-uuid"]},
        {"action": "upgrade-format-version", "format-version": 2},
        {"action": "add-schema", "schema": sm["schemas"][0], "last-column-id": 1},
        {"action": "set-current-schema", "schema-id": -1},
        {"action": "add-spec", "spec": {"spec-id": 0, "fields": []}},
        {"action": "set-default-spec", "spec-id": -1},
        {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
        {"action": "set-default-sort-order", "sort-order-id": -1},
        {"action": "set-location", "location": sm["location"]},
        {"action": "set-properties", "updates": {"created-by": "spark"}}])
    assert st == 200 and body["metadata"]["table-uuid"] == sm["table-uuid"], body
    assert rest(server).load_table("race.staged").properties["created-by"] == "spark"
    assert call(server, "HEAD", "/v1/namespaces/race/tables/staged")[0] == 204


def test_namespaces_page_list_children_and_update_properties(server):
    for ns in (["p"], ["p", "a"], ["p", "b"], ["p", "c"]):
        assert call(server, "POST", "/v1/namespaces", {"namespace": ns, "properties": {}})[0] == 200
    assert_error(call(server, "POST", "/v1/namespaces", {"namespace": ["p"]}), 409, "AlreadyExistsException")
    st, page = call(server, "GET", "/v1/namespaces?parent=p&pageSize=2")
    assert st == 200 and page["namespaces"] == [["p", "a"], ["p", "b"]], page
    st, rest_page = call(server, "GET", f"/v1/namespaces?parent=p&pageSize=2&pageToken={page['next-page-token']}")
    assert rest_page["namespaces"] == [["p", "c"]] and "next-page-token" not in rest_page, rest_page
    st, top = call(server, "GET", "/v1/namespaces")
    assert ["p"] in top["namespaces"] and ["p", "a"] not in top["namespaces"], top
    assert call(server, "GET", "/v1/namespaces/p%1Fa")[1]["namespace"] == ["p", "a"]
    st, upd = call(server, "POST", "/v1/namespaces/p/properties", {"updates": {"x": "1"}, "removals": ["gone"]})
    assert st == 200 and upd == {"updated": ["x"], "removed": [], "missing": ["gone"]}, upd
    assert call(server, "HEAD", "/v1/namespaces/p")[0] == 204
    assert_error(call(server, "GET", "/v1/namespaces/zz"), 404, "NoSuchNamespaceException")
    assert_error(call(server, "POST", "/v1/namespaces/p/tables", "not an object"), 400, "BadRequestException")


def test_a_pyiceberg_append_racing_floe_run_loses_no_snapshot(src, proj, server):
    t = next(x for x in lock_of(proj)["tables"] if x["mode"] == "full")
    cat = rest(server)
    tbl = cat.load_table(t["bronze"])
    before = {s.snapshot_id for s in tbl.snapshots()}
    sample = tbl.scan(limit=1).to_arrow()
    proc = src.start_load(proj, f"{t['schema']}.{t['table']}", t["bronze"])
    mine, during, lost = [], 0, 0
    while len(mine) < 20 and (proc.poll() is None or len(mine) < 3):
        running = proc.poll() is None
        tbl = cat.load_table(t["bronze"])
        try:
            tbl.append(sample)  # PyIceberg retries a 409 on fresh metadata by itself
            mine.append(tbl.current_snapshot().snapshot_id)
            during += running
        except CommitFailedException:
            lost += 1
    out, err = proc.communicate(timeout=300)
    snaps = {s.snapshot_id: s for s in cat.load_table(t["bronze"]).snapshots()}
    assert during >= 1, (out, err)
    assert all(s in snaps for s in mine), (mine, list(snaps))  # every acknowledged append stays
    theirs = [s for i, s in snaps.items() if i not in before and i not in mine]
    if not any((s.summary or {}).get("floe.run-id") for s in theirs):
        # floe's load commits only on the snapshot it planned on (exactly-once): an append that
        # landed meanwhile fails it with a conflict (exit 1) rather than being replaced unseen
        assert proc.returncode == 1, (proc.returncode, out, err)
        again = src.floe(proj, "run", "--table", f"{t['schema']}.{t['table']}", "--layer", "bronze", "--no-sync", check=0)
        snaps = {s.snapshot_id: s for s in cat.load_table(t["bronze"]).snapshots()}
        assert all(s in snaps for s in mine), again
        assert (cat.load_table(t["bronze"]).current_snapshot().summary or {}).get("floe.run-id"), again
