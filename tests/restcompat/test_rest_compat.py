"""floe's REST catalog against Apache Iceberg's reference server: the same requests, in the same
order, to both; the status codes, error types and response shapes (the top-level keys, and the
metadata's) compared where the two overlap. Differences that follow from what floe serves (no
views, no register, no transactions) are listed with the reason and checked to be exactly those.
The comparison is written to $FLOE_REST_COMPAT_OUT (Markdown) for bench/RESULTS.md."""
import json
import os

from servekit import call_json

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "type": "long", "required": True},
    {"id": 2, "name": "name", "type": "string", "required": False}]}


def call(base, method, path, body=None):
    return call_json(method, base + path, body)


def shape(status, body):
    """What is compared: the status, an error's type, the top-level keys, the metadata's keys."""
    if body is None:
        return status, None, None, None
    if "error" in body:
        return status, body["error"].get("type"), None, None
    meta = sorted(body["metadata"]) if isinstance(body.get("metadata"), dict) else None
    return status, None, sorted(k for k, v in body.items() if v is not None), meta  # null = absent


def steps(state):
    """(name, method, path, body) in order; bodies that need an earlier answer are callables."""
    t = "/v1/namespaces/cmp/tables/t"
    return [
        ("config", "GET", "/v1/config", None),
        ("create namespace", "POST", "/v1/namespaces", {"namespace": ["cmp"], "properties": {"owner": "x"}}),
        ("create it again", "POST", "/v1/namespaces", {"namespace": ["cmp"], "properties": {}}),
        ("create child namespace", "POST", "/v1/namespaces", {"namespace": ["cmp", "kid"], "properties": {}}),
        ("list namespaces", "GET", "/v1/namespaces", None),
        ("list children", "GET", "/v1/namespaces?parent=cmp", None),
        ("load namespace", "GET", "/v1/namespaces/cmp", None),
        ("namespace exists", "HEAD", "/v1/namespaces/cmp", None),
        ("missing namespace", "GET", "/v1/namespaces/nope", None),
        ("missing namespace HEAD", "HEAD", "/v1/namespaces/nope", None),
        ("update namespace properties", "POST", "/v1/namespaces/cmp/properties",
         {"updates": {"a": "1"}, "removals": ["zz"]}),
        ("create table", "POST", "/v1/namespaces/cmp/tables", {"name": "t", "schema": SCHEMA}),
        ("create it again", "POST", "/v1/namespaces/cmp/tables", {"name": "t", "schema": SCHEMA}),
        ("create in a missing namespace", "POST", "/v1/namespaces/nope/tables", {"name": "t", "schema": SCHEMA}),
        ("list tables", "GET", "/v1/namespaces/cmp/tables", None),
        ("list tables, one per page", "GET", "/v1/namespaces/cmp/tables?pageSize=1", None),
        ("load table", "GET", t, None),
        ("table exists", "HEAD", t, None),
        ("missing table", "GET", "/v1/namespaces/cmp/tables/nope", None),
        ("commit, stale schema id", "POST", t, {"requirements": [
            {"type": "assert-current-schema-id", "current-schema-id": 5}], "updates": []}),
        ("commit, stale ref", "POST", t, {"requirements": [
            {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 42}], "updates": []}),
        ("commit, wrong uuid", "POST", t, {"requirements": [
            {"type": "assert-table-uuid", "uuid": "00000000-0000-4000-8000-000000000000"}], "updates": []}),
        ("commit, assert-create on an existing table", "POST", t, {"requirements": [{"type": "assert-create"}],
                                                                   "updates": []}),
        ("commit properties", "POST", t, lambda: {"requirements": [
            {"type": "assert-table-uuid", "uuid": state["uuid"]},
            {"type": "assert-last-assigned-field-id", "last-assigned-field-id": 2},
            {"type": "assert-default-spec-id", "default-spec-id": 0},
            {"type": "assert-default-sort-order-id", "default-sort-order-id": 0},
            {"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 999}],
            "updates": [{"action": "set-properties", "updates": {"k": "v"}}]}),
        ("commit schema change", "POST", t, {"requirements": [
            {"type": "assert-current-schema-id", "current-schema-id": 0}], "updates": [
            {"action": "add-schema", "schema": {"type": "struct", "schema-id": 1, "fields": SCHEMA["fields"] + [
                {"id": 3, "name": "extra", "type": "int", "required": False}]}, "last-column-id": 3},
            {"action": "set-current-schema", "schema-id": -1}]}),
        ("commit, unknown requirement", "POST", t, {"requirements": [{"type": "assert-nothing"}], "updates": []}),
        ("commit, unknown update", "POST", t, {"requirements": [], "updates": [{"action": "do-nothing"}]}),
        ("commit to a missing table", "POST", "/v1/namespaces/cmp/tables/nope", {"requirements": [], "updates": []}),
        ("stage create", "POST", "/v1/namespaces/cmp/tables", {"name": "staged", "schema": SCHEMA, "stage-create": True}),
        ("staged table is not there", "GET", "/v1/namespaces/cmp/tables/staged", None),
        ("commit the staged create", "POST", "/v1/namespaces/cmp/tables/staged", lambda: {
            "requirements": [{"type": "assert-create"}], "updates": [
                {"action": "assign-uuid", "uuid": state["staged_uuid"]},
                {"action": "upgrade-format-version", "format-version": 2},
                {"action": "add-schema", "schema": SCHEMA, "last-column-id": 2},
                {"action": "set-current-schema", "schema-id": -1},
                {"action": "add-spec", "spec": {"spec-id": 0, "fields": []}},
                {"action": "set-default-spec", "spec-id": -1},
                {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
                {"action": "set-default-sort-order", "sort-order-id": -1},
                {"action": "set-location", "location": state["staged_location"]}]}),
        ("metrics report", "POST", t + "/metrics", {"report-type": "commit-report", "table-name": "cmp.t",
                                                    "snapshot-id": 1, "sequence-number": 1, "operation": "append",
                                                    "metrics": {}}),
        ("rename", "POST", "/v1/tables/rename", {"source": {"namespace": ["cmp"], "name": "staged"},
                                                 "destination": {"namespace": ["cmp"], "name": "renamed"}}),
        ("rename a missing table", "POST", "/v1/tables/rename", {"source": {"namespace": ["cmp"], "name": "nope"},
                                                                  "destination": {"namespace": ["cmp"], "name": "x"}}),
        ("rename onto an existing table", "POST", "/v1/tables/rename", {
            "source": {"namespace": ["cmp"], "name": "renamed"}, "destination": {"namespace": ["cmp"], "name": "t"}}),
        ("drop a non-empty namespace", "DELETE", "/v1/namespaces/cmp", None),
        ("drop table", "DELETE", "/v1/namespaces/cmp/tables/renamed", None),
        ("drop it again", "DELETE", "/v1/namespaces/cmp/tables/renamed", None),
        ("drop table with purge", "DELETE", t + "?purgeRequested=true", None),
        ("drop the child namespace", "DELETE", "/v1/namespaces/cmp%1Fkid", None),
        ("drop the namespace", "DELETE", "/v1/namespaces/cmp", None),
        ("list views", "GET", "/v1/namespaces/nope/views", None),
    ]


# Where floe differs on purpose, and why (each must still differ exactly so).
EXPECTED = {
    "config": "floe lists only the endpoints it serves (no views, register, transactions, OAuth)",
    "create namespace": "the reference adds a `location` property; floe's namespaces have none",
    "list views": "floe serves no views: 406 UnsupportedOperationException (and does not list them in /v1/config)",
    "create in a missing namespace": "the reference's JDBC catalog creates the table anyway; the specification "
                                     "(and floe) answer 404 NoSuchNamespaceException",
    "commit, unknown requirement": "the reference answers 500 with an HTML page; the specification (and floe) 400",
    "commit, unknown update": "the reference answers 500 with an HTML page; the specification (and floe) 400",
}
# No-content answers: the specification says 204; the reference's servlet sends 200 with an empty body.
NO_CONTENT = "same (no content: floe 204 as the specification says, the reference's servlet 200 with no body)"


def run(base):
    state, out = {}, []
    for name, method, path, body in steps(state):
        status, reply = call(base, method, path, body() if callable(body) else body)
        if name == "create table" and status == 200:
            state["uuid"] = reply["metadata"]["table-uuid"]
        if name == "stage create" and status == 200:
            state["staged_uuid"] = reply["metadata"]["table-uuid"]
            state["staged_location"] = reply["metadata"]["location"]
        out.append((name, method, path, status, reply))
    return out


def test_same_requests_same_answers(reference, floe_serve):
    ref, ours = run(reference), run(floe_serve)
    rows, mismatched = [], []
    for (name, method, path, rs, rb), (_, _, _, fs, fb) in zip(ref, ours):
        a, b = shape(rs, rb), shape(fs, fb)
        same_status = a[0] == b[0] and a[1] == b[1]
        same_shape = a[2:] == b[2:] or (a[2] is not None and b[2] is not None and set(a[2]) <= set(b[2]) | {"stack"})
        if name == "create namespace":  # compare the shape only: both add "location", at their warehouses
            same_shape = a[2] == b[2] and set(rb["properties"]) == set(fb["properties"])
        verdict = "same" if same_status and same_shape else ("expected: " + EXPECTED[name] if name in EXPECTED
                                                             else "DIFFERENT")
        if rs == 200 and rb is None and fs == 204 and fb is None:
            verdict = NO_CONTENT
        if name == "config":
            verdict = "same" if set(fb["endpoints"]) <= set(rb["endpoints"]) and a[0] == b[0] else "DIFFERENT"
            verdict = verdict if verdict == "DIFFERENT" else "same status; " + EXPECTED[name]
        if verdict == "DIFFERENT":
            mismatched.append((name, a, b, rb, fb))
        fmt = lambda s: f"{s[0]}" + (f" {s[1]}" if s[1] else "")  # noqa: E731
        rows.append(f"| {name} | `{method} {path.split('?')[0]}` | {fmt(a)} | {fmt(b)} | {verdict} |")
    table = ("| request | | reference | floe | |\n|---|---|---|---|---|\n" + "\n".join(rows))
    summary = f"{len(rows) - len(mismatched)} of {len(rows)} requests answered alike (or differ as listed)"
    out = os.environ.get("FLOE_REST_COMPAT_OUT")
    if out:
        with open(out, "w") as f:
            f.write(summary + ".\n\n" + table + "\n")
    print("\n" + table)
    assert not mismatched, "\n".join(f"{n}: reference {a} {json.dumps(rb)[:300]} / floe {b} {json.dumps(fb)[:300]}"
                                     for n, a, b, rb, fb in mismatched)
