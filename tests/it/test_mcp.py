"""`floe mcp serve`: the Model Context Protocol over stdio, driven by the official `mcp` Python SDK
(tests/requirements.txt) in its default mode (server/discover first, falling back to initialize on
-32601) and in the legacy initialize mode. The four tools are called against a shop project run
through bronze and silver, with a mart drafted (branch floe/mart/…), a breaking schema change
synced (branch floe/change/…) and a Pentaho translation (branch floe/pentaho/…); the whole project
— files, state.db, catalog, warehouse, pipeline/.git — is hashed before and after every call and
must not change. Raw lines check the protocol errors and that the server keeps serving. The same
tools answer POST /mcp of `floe serve` (streamable HTTP), driven by the SDK's HTTP client."""
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from conftest import FLOE, REPO, floe
from servekit import Serve
from test_gold import shop_project, shop_source

TOOLS = {"floe_pipeline_status", "floe_table_health", "floe_schema_changes", "floe_pentaho_translation"}


@pytest.fixture(scope="module")
def shop(stack, tmp_path_factory):
    src = shop_source(stack, "mcp_it", 9)
    d = shop_project(src, tmp_path_factory.mktemp("mcp"))  # bronze and silver built, marts/ made
    target = f"{stack['socket_dir']}:{stack['port']}/mcp_it"
    shutil.copy(REPO / "examples" / "shop" / "marts" / "monthly_revenue.md", d / "marts")
    src.floe(d, "gold", "draft", "marts/monthly_revenue.md", check=0)
    floe("shop", "evolve", "--change", "rename-column", "--target", target, check=0)
    sync = json.loads(src.floe(d, "sync", "--json", check=0).out)
    change = next(t for t in sync["tables"] if t["table"] == "public.order_items")
    pentaho = json.loads(src.floe(d, "pentaho", "translate", str(REPO / "tests" / "data" / "pentaho" / "steps"),
                                  "--name", "steps", "--json", check=None).out)
    status = json.loads(src.floe(d, "status", "--json", check=None).out)
    return {"dir": d, "change": change, "pentaho": pentaho, "status": status}


def tree_hash(d):
    """Every file under the project (names, modes, contents), so a created, removed or changed file shows."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for name in sorted(files):
            p = os.path.join(root, name)
            h.update(os.path.relpath(p, d).encode() + b"\0" + oct(os.lstat(p).st_mode).encode())
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def params(d):
    # the SDK's child inherits only HOME, PATH, …: floe's location is passed explicitly
    return StdioServerParameters(command=FLOE, args=["mcp", "serve", "--workspace", str(d)],
                                 env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})


def session(d, calls, mode="auto"):
    """Connect, list the tools and make `calls` [(name, args)], hashing the project around each call."""
    async def go():
        started = time.monotonic()
        async with Client(params(d), mode=mode) as c:
            connected = time.monotonic() - started
            tools = (await c.list_tools()).tools
            results = []
            for name, args in calls:
                before = tree_hash(d)
                r = await c.call_tool(name, args)
                assert tree_hash(d) == before, f"{name}({args}) changed the project"
                results.append(r)
            return {"version": c.protocol_version, "info": c.server_info, "tools": tools,
                    "results": results, "connected": connected}
    return asyncio.run(go())


def structured(r):
    assert not r.is_error, r.content
    # the same JSON as the text block
    assert json.loads(r.content[0].text) == r.structured_content
    return r.structured_content


def test_default_mode_connects_at_once_and_lists_four_read_only_tools(shop):
    s = session(shop["dir"], [])
    assert s["connected"] < 5, "server/discover must get -32601 at once, not the SDK's 10 s probe timeout"
    assert s["version"] == "2025-11-25" and s["info"].name == "floe"
    assert {t.name for t in s["tools"]} == TOOLS
    for t in s["tools"]:
        assert t.input_schema["type"] == "object" and t.output_schema["type"] == "object"
        a = t.annotations
        assert (a.read_only_hint, a.idempotent_hint, a.destructive_hint, a.open_world_hint) == (True, True, False, False)


def test_legacy_initialize_and_every_tool_against_the_shop_changes_nothing(shop):
    d = shop["dir"]
    before = tree_hash(d)
    s = session(d, [("floe_pipeline_status", {}),
                    ("floe_table_health", {"table": "orders", "history": 3}),
                    ("floe_table_health", {"table": "public.orders", "history": 1}),
                    ("floe_schema_changes", {}),
                    ("floe_pentaho_translation", {"name": "steps"}),
                    ("floe_pentaho_translation", {})], mode="legacy")
    assert tree_hash(d) == before
    assert s["version"] == "2025-11-25"
    status, health, by_source, changes, one, every = s["results"]

    # floe_pipeline_status is `floe status --json`: every table and layer with the same state
    got = structured(status)
    assert [(t["table"], t["layer"], t["state"]) for t in got["tables"]] == \
        [(t["table"], t["layer"], t["state"]) for t in shop["status"]["tables"]]
    layers = {t["layer"] for t in got["tables"]}
    assert {"bronze", "silver"} <= layers

    # floe_table_health: both layers of orders, loads and reconciliations from the ledger
    h = structured(health)
    assert {r["table"] for r in h["layers"]} == {"bronze.orders", "silver.orders"}
    bronze = next(r for r in h["layers"] if r["layer"] == "bronze")
    assert bronze["state"] == "verified" and bronze["reconcile"]["tier"] in ("V1", "V2", "V3"), bronze
    assert bronze["reconcile"]["control"] and bronze["reconcile"]["control_fired"] is True, bronze
    assert bronze["age_seconds"] >= 0 and bronze["rows"] > 0
    silver = next(r for r in h["layers"] if r["layer"] == "silver")
    assert silver["tests_passed"] > 0 and silver["tests_failed"] == 0, silver
    assert {x["table"] for x in h["loads"]} == {"bronze.orders", "silver.orders"}
    assert all(x["state"] == "loaded" for x in h["loads"]), h["loads"]
    assert h["reconciliations"] and h["reconciliations"][0]["outcome"] == "verified"
    # the source's name is its bronze table; history limits the records per layer
    b = structured(by_source)
    assert [r["table"] for r in b["layers"]] == ["bronze.orders"] and len(b["loads"]) == 1, b

    # floe_schema_changes: the synced rename and the drafted mart, each open with its proposal
    c = structured(changes)
    branches = {b["branch"]: b for b in c["branches"]}
    assert set(branches) == {shop["change"]["branch"], "floe/mart/monthly_revenue"}, branches
    change = branches[shop["change"]["branch"]]
    assert change["kind"] == "schema change" and change["table"] == "order_items"
    assert "column freight_value renamed to shipping_cost" in change["proposal"], change
    assert branches["floe/mart/monthly_revenue"]["kind"] == "mart"

    # floe_pentaho_translation: the committed report, equal to what translate printed
    p = structured(one)
    assert [t["name"] for t in p["translations"]] == ["steps"]
    report, printed = p["translations"][0]["report"], shop["pentaho"]
    # the committed report was written before its commit (no id) and before the report files were listed
    assert report["types"] == printed["types"] and report["files"] == printed["files"], report
    assert {k: v for k, v in report.items() if k not in ("commit", "outputs")} == \
        {k: v for k, v in printed.items() if k not in ("commit", "outputs")}
    assert set(report["outputs"]) <= set(printed["outputs"]) and printed["commit"]
    assert structured(every) == p


def test_bad_arguments_are_tool_errors_the_agent_can_correct(shop):
    s = session(shop["dir"], [("floe_table_health", {"table": "no_such_table"}),
                              ("floe_table_health", {}),
                              ("floe_table_health", {"table": "orders", "history": 0}),
                              ("floe_pipeline_status", {"verbose": True}),
                              ("floe_pentaho_translation", {"name": "never"})])
    missing, absent, history, unknown, never = s["results"]
    assert all(r.is_error for r in s["results"])
    text = missing.content[0].text
    assert 'no table "no_such_table"' in text and "bronze.orders" in text, text
    assert "required" in absent.content[0].text
    assert "from 1 to 100" in history.content[0].text
    assert 'unknown argument "verbose"' in unknown.content[0].text
    assert "floe pentaho translate" in never.content[0].text


def raw(d, lines):
    """Send raw lines to `floe mcp serve` and close stdin: (replies, exit code, stderr)."""
    p = subprocess.run([FLOE, "mcp", "serve", "--workspace", str(d)], input="".join(l + "\n" for l in lines),
                       capture_output=True, text=True, timeout=60)
    return [json.loads(x) for x in p.stdout.splitlines()], p.returncode, p.stderr


def test_protocol_errors_and_the_server_keeps_serving(shop):
    d = shop["dir"]
    before = tree_hash(d)
    replies, rc, err = raw(d, [
        '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}',
        '{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"2099-01-01",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        'this is not json',
        '{"jsonrpc":"2.0","id":2,"method":',
        '[{"jsonrpc":"2.0","id":3,"method":"ping"}]',
        '{"jsonrpc":"2.0","id":null,"method":"ping"}',
        '{"jsonrpc":"1.0","id":4,"method":"ping"}',
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"floe_drop_everything"}}',
        '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}',
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}',
        '"just a string"',
        '',
        '{"jsonrpc":"2.0","id":8,"result":{}}',
        '{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        '{"jsonrpc":"2.0","id":10,"method":"ping"}',
    ])
    assert rc == 0 and tree_hash(d) == before
    codes = [(r["id"], r.get("error", {}).get("code")) for r in replies]
    assert codes == [(1, -32601), ("x", None), (None, -32700), (None, -32700), (None, -32600), (None, -32600),
                     (4, -32600), (5, -32602), (6, -32602), (7, -32602), (None, -32600), (9, None), (10, None)], codes
    assert replies[1]["result"]["protocolVersion"] == "2025-11-25"  # unknown version: the newest supported
    assert replies[11]["result"]["protocolVersion"] == "2025-06-18"  # a supported one is echoed
    assert replies[12]["result"] == {}
    assert "floe_drop_everything" in replies[7]["error"]["message"]
    assert "serving project" in err  # logs on stderr only


def test_a_huge_line_is_refused_and_the_next_one_answered(shop):
    replies, rc, _ = raw(shop["dir"], ['{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + "a" * (5 << 20) + '"}}',
                                       '{"jsonrpc":"2.0","id":2,"method":"ping"}'])
    assert rc == 0
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [(None, -32600), (2, None)]


def post(base, body, headers=None):
    """(status, body) of POST /mcp."""
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    req = urllib.request.Request(base + "/mcp", data=body.encode(), headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture
def server(shop):
    s = Serve(shop["dir"], "unused-the-mcp-tools-read-no-source")
    yield s
    assert s.stop() == 0


def test_streamable_http_with_the_sdk_client_changes_nothing(shop, server):
    d = shop["dir"]
    before = tree_hash(d)

    async def go(mode):
        async with Client(server.base + "/mcp", mode=mode) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            status = await c.call_tool("floe_pipeline_status", {})
            health = await c.call_tool("floe_table_health", {"table": "bronze.customers"})
            bad = await c.call_tool("floe_table_health", {"table": "nope"})
            return c.protocol_version, tools, status, health, bad
    for mode in ("auto", "legacy"):
        version, tools, status, health, bad = asyncio.run(go(mode))
        assert version == "2025-11-25" and tools == TOOLS
        assert [(t["table"], t["layer"], t["state"]) for t in structured(status)["tables"]] == \
            [(t["table"], t["layer"], t["state"]) for t in shop["status"]["tables"]]
        assert [r["table"] for r in structured(health)["layers"]] == ["bronze.customers"]
        assert bad.is_error and 'no table "nope"' in bad.content[0].text
    assert tree_hash(d) == before


def test_streamable_http_statuses(server):
    ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert post(server.base, ping) == (200, '{"jsonrpc":"2.0","id":1,"result":{}}')
    assert post(server.base, '{"jsonrpc":"2.0","method":"notifications/initialized"}') == (202, "")
    code, body = post(server.base, "{not json")
    assert code == 400 and json.loads(body)["error"]["code"] == -32700
    code, body = post(server.base, '{"jsonrpc":"2.0","id":2,"method":"resources/list"}')
    assert code == 200 and json.loads(body)["error"]["code"] == -32601
    # a page on another origin (DNS rebinding) is refused by floe serve's authenticator; this server's own is not
    assert post(server.base, ping, {"Origin": "http://evil.example"})[0] == 403
    assert post(server.base, ping, {"Origin": server.base})[0] == 200
    assert server.get("/mcp")[0] == 405  # no server-sent event stream is offered


def test_streamable_http_needs_a_viewer_token_once_tokens_exist(shop):
    """Last in the file: it adds a token to the project's ledger."""
    d = shop["dir"]
    token = floe("-C", str(d), "serve", "token", "add", "--role", "viewer", "--name", "agent", check=0).out.strip()
    s = Serve(d, "unused-the-mcp-tools-read-no-source")
    ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    try:
        code, body = post(s.base, ping)
        assert code == 401 and "NotAuthorizedException" in body, body
        assert post(s.base, ping, {"Authorization": "Bearer floe_" + "0" * 64})[0] == 401
        assert post(s.base, ping, {"Authorization": f"Bearer {token}"}) == (200, '{"jsonrpc":"2.0","id":1,"result":{}}')

        async def go():
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
                async with Client(streamable_http_client(s.base + "/mcp", http_client=http)) as c:
                    return await c.call_tool("floe_schema_changes", {})
        assert {b["branch"] for b in structured(asyncio.run(go()))["branches"]} == \
            {shop["change"]["branch"], "floe/mart/monthly_revenue"}
    finally:
        assert s.stop() == 0
