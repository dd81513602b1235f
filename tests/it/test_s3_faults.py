"""An S3 warehouse when the store misbehaves: a 503 SlowDown storm is retried; a store that dies in
the middle of a multipart upload leaves the previous snapshot readable, no snapshot referencing a
missing object, and the next run succeeds; an upload the store keeps failing is aborted
(AbortMultipartUpload) and referenced by nothing; wrong or missing credentials fail naming the
variable, never showing its value; `floe doctor` checks the store. floe talks to moto through a
fault-injecting proxy (tests/it/s3kit.py) that passes requests through untouched otherwise; readers
go to moto directly."""
import json
import os
import subprocess
from pathlib import Path

import pytest

import icebergkit
import lakecheck
import s3kit
from s3kit import moto  # noqa: F401  (the session's S3 server)
from sourcedb import Source

TOOLS = Path(os.environ.get("FLOE_TOOLS", Path(__file__).resolve().parents[2] / "build" / "tools"))

SQL = '''
CREATE TABLE public.big (id bigint PRIMARY KEY, a text, b text);
INSERT INTO public.big SELECT g, md5(g::text) || md5((g * 7)::text), md5((g * 13)::text) FROM generate_series(1, 170000) g;
CREATE TABLE public.small (id int PRIMARY KEY, v text);
INSERT INTO public.small SELECT g, 'v' || g FROM generate_series(1, 100) g;
'''


@pytest.fixture
def proxy(moto):
    p = s3kit.FaultProxy(moto.port)
    yield p
    p.stop()


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "s3_faults_it", "s3_faults_reader", SQL)


def project(src, moto, proxy, d, warehouse=""):
    """A project whose warehouse is a fresh bucket on moto, reached through `proxy`; one file per load.
    `warehouse`: more [warehouse] lines."""
    location = f"s3://{moto.bucket()}/wh"
    src.project(d, extra=s3kit.warehouse_toml(location, proxy.endpoint) + warehouse +
                '\n[bronze]\ntarget-file-rows = 10000000\n')
    lakecheck.S3_WAREHOUSES[str(d)] = (location, moto)
    src.floe(d, "generate", check=0)
    return d


def run(src, d, moto, *args, env=None):
    r = src.floe(d, "run", "--json", "--layer", "bronze", *args, env={**moto.env(), **(env or {})})
    return r, {t["table"]: t for t in json.loads(r.out)["tables"]} if r.out.strip() else {}


def errors(r):
    """The per-table errors of a `run --json`, for assertion messages."""
    try:
        return [(t["table"], t.get("error")) for t in json.loads(r.out)["tables"]] + [r.err[-1500:]]
    except ValueError:
        return r


def assert_nothing_missing(moto, d, table):
    """Every object any snapshot of `table` references is in the bucket."""
    location, _ = lakecheck.S3_WAREHOUSES[str(d)]
    bucket = location[len("s3://"):].split("/")[0]
    keys = {f"s3://{bucket}/{k}" for k in moto.keys(bucket)}
    refs = icebergkit.referenced_files(lakecheck.catalog(d), table)
    assert refs and refs <= keys, sorted(refs - keys)


def test_a_503_storm_is_retried(src, moto, proxy, tmp_path):
    d = project(src, moto, proxy, tmp_path)
    proxy.storm = 5
    r, tables = run(src, d, moto, "--table", "public.small")
    assert r.rc == 0, errors(r)
    assert proxy.storm_served == 5 and proxy.storm == 0
    assert tables["bronze.small"]["state"] == "loaded", tables
    lakecheck.assert_equals_source(src, d, "bronze.small")


def test_store_killed_mid_multipart_upload(src, moto, proxy, tmp_path):
    d = project(src, moto, proxy, tmp_path)
    r, _ = run(src, d, moto, "--table", "public.big")
    assert r.rc == 0, errors(r)
    parts = [p for m, p, _ in proxy.seen if m == "PUT" and "partNumber=" in p]
    assert len(parts) >= 2, "the file must be large enough for a multipart upload"
    before = lakecheck.catalog(d).load_table("bronze.big").current_snapshot().snapshot_id
    src.admin("UPDATE public.big SET b = 'changed' WHERE id % 10 = 0")
    proxy.seen.clear()
    proxy.die_when = lambda m, p: m == "PUT" and "partNumber=2&" in p
    r, _ = run(src, d, moto, "--table", "public.big", "--full-refresh")
    assert r.rc in (3, 4), errors(r)
    assert ("PUT", next(p for m, p, _ in proxy.seen if "partNumber=2&" in p), "killed") in proxy.seen
    # the previous snapshot is still the table's, readable, and nothing referenced is missing
    t = lakecheck.catalog(d).load_table("bronze.big")
    assert t.current_snapshot().snapshot_id == before
    assert t.scan().to_arrow().num_rows == 170000
    assert_nothing_missing(moto, d, "bronze.big")
    # the store is back: the next run succeeds and equals the source
    proxy.die_when = None
    proxy.start()
    r, tables = run(src, d, moto, "--table", "public.big", "--full-refresh")
    assert r.rc == 0, errors(r)
    assert tables["bronze.big"]["state"] == "loaded", tables
    lakecheck.assert_equals_source(src, d, "bronze.big")
    assert_nothing_missing(moto, d, "bronze.big")


@pytest.mark.parametrize("parts", ["", "part-size-mb = 5\nparts-in-flight = 3\n"], ids=["one-in-flight", "three-in-flight"])
def test_an_upload_the_store_keeps_failing_is_aborted(src, moto, proxy, tmp_path, parts):
    d = project(src, moto, proxy, tmp_path, warehouse=parts)
    proxy.fail_when = lambda m, p: m == "PUT" and "partNumber=" in p
    r, _ = run(src, d, moto, "--table", "public.big")
    assert r.rc == 4, errors(r)
    assert "HTTP 500 InternalError" in r.out + r.err, r
    aborted = [p for m, p, st in proxy.seen if m == "DELETE" and "uploadId=" in p]
    assert aborted and all(st == 204 for m, p, st in proxy.seen if m == "DELETE" and "uploadId=" in p)
    location, _ = lakecheck.S3_WAREHOUSES[str(d)]
    bucket = location[len("s3://"):].split("/")[0]
    assert moto.client().list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    assert not any(k.endswith(".parquet") for k in moto.keys(bucket))


def test_wrong_credentials_name_the_variable_never_the_value(src, moto, proxy, tmp_path):
    d = project(src, moto, proxy, tmp_path)
    wrong = "wrong-secret-" + "x9" * 10
    r, _ = run(src, d, moto, "--table", "public.small", env={"FLOE_S3_SECRET": wrong})
    assert r.rc == 3, errors(r)
    text = r.out + r.err
    assert "refused the credentials" in text and "FLOE_S3_SECRET" in text and "FLOE_S3_KEY" in text, text
    assert wrong not in text and moto.key_id not in text
    r = src.floe(d, "run", "--table", "public.small", env={**moto.env(), "FLOE_S3_SECRET": ""})
    assert r.rc == 2 and "environment variable FLOE_S3_SECRET is empty" in r.err, r


def test_doctor_checks_the_object_store(src, moto, proxy, tmp_path):
    d = project(src, moto, proxy, tmp_path)
    checks = lambda r: {c["id"]: c for c in json.loads(r.out)["checks"]}
    good = checks(src.floe(d, "doctor", "--json", env=moto.env()))
    for cid in ("objectstore.reachable", "objectstore.credentials", "objectstore.write", "objectstore.list",
                "objectstore.delete"):
        assert good[cid]["status"] == "ok", good[cid]
    assert any(m == "DELETE" and ".floe-doctor-probe" in p for m, p, _ in proxy.seen)
    bad = checks(src.floe(d, "doctor", "--json", env={**moto.env(), "FLOE_S3_KEY": "AKIANOSUCHKEY0000000"}))
    assert bad["objectstore.reachable"]["status"] == "ok"
    assert bad["objectstore.credentials"]["status"] == "fail" and "FLOE_S3_KEY" in bad["objectstore.credentials"]["todo"]
    proxy.stop()
    down = checks(src.floe(d, "doctor", "--json", env=moto.env()))
    assert down["objectstore.reachable"]["status"] == "fail", down["objectstore.reachable"]
    assert "endpoint" in down["objectstore.reachable"]["todo"]


@pytest.mark.parametrize("size", [1000, 9 * 1024 * 1024 + 17], ids=["put", "multipart"])
def test_a_taken_name_is_never_replaced_and_ranged_reads_are_exact(moto, tmp_path, size):
    """floe's s3 backend itself (build/tools/s3_object): publishing over an existing object is
    refused by the server (If-None-Match: * on the PUT and on the multipart completion: 412), the
    first object stays, and reading it back in 1 MiB ranges returns exactly its bytes."""
    tool = [str(TOOLS / "s3_object"), moto.endpoint]
    env = {**os.environ, **moto.env()}
    first, second = tmp_path / "first", tmp_path / "second"
    first.write_bytes(os.urandom(size))
    second.write_bytes(os.urandom(size))
    uri = f"s3://{moto.bucket()}/obj/a b=1.bin"
    put = lambda f: subprocess.run(tool + ["put", uri, str(f)], env=env, capture_output=True, text=True)
    assert put(first).returncode == 0
    r = put(second)
    assert r.returncode == 1 and "exists" in r.stderr, r.stderr
    got = subprocess.run(tool + ["get", uri], env=env, capture_output=True)
    assert got.returncode == 0 and got.stdout == first.read_bytes()
    bucket = uri[5:].split("/")[0]
    assert moto.client().list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_signed_payloads_by_default_over_http(src, moto, proxy, tmp_path):
    """payload-signing = auto over plain http: every body's SHA-256 is in x-amz-content-sha256."""
    d = project(src, moto, proxy, tmp_path)
    r, _ = run(src, d, moto, "--table", "public.big")
    assert r.rc == 0, errors(r)
    assert sum(1 for m, p, *_ in proxy.bodies if m == "PUT" and "partNumber=" in p) >= 2
    for method, path, headers, _, sha in proxy.bodies:
        assert headers["x-amz-content-sha256"] == sha, (method, path)
        assert "content-md5" not in headers, (method, path)


def test_unsigned_payloads_carry_a_content_md5_the_store_checks(src, moto, proxy, tmp_path):
    """payload-signing = never: UNSIGNED-PAYLOAD and the body's Content-MD5 on every request with a
    body; the store accepts them (the data reads back equal to the source), and a part corrupted
    on its way is refused by a store that checks Content-MD5 — the load fails, the previous
    snapshot stays whole — or, on moto (which ignores Content-MD5), caught by reconciliation."""
    d = project(src, moto, proxy, tmp_path, warehouse='payload-signing = "never"\n')
    r, _ = run(src, d, moto, "--table", "public.big")
    assert r.rc == 0, errors(r)
    assert sum(1 for m, p, *_ in proxy.bodies if m == "PUT" and "partNumber=" in p) >= 2
    for method, path, headers, md5, _ in proxy.bodies:
        assert headers["x-amz-content-sha256"] == "UNSIGNED-PAYLOAD", (method, path)
        assert headers["content-md5"] == md5, (method, path)
    lakecheck.assert_equals_source(src, d, "bronze.big")
    before = lakecheck.catalog(d).load_table("bronze.big").current_snapshot().snapshot_id
    proxy.corrupt_when = lambda m, p: m == "PUT" and "partNumber=1&" in p
    r, _ = run(src, d, moto, "--table", "public.big", "--full-refresh")
    if moto.verifies_content_md5:
        # S3, MinIO, Ceph, gofakes3: the part is refused (400 BadDigest), nothing is committed
        assert r.rc == 4, errors(r)
        assert "BadDigest" in r.out + r.err, errors(r)
        assert lakecheck.catalog(d).load_table("bronze.big").current_snapshot().snapshot_id == before
        assert_nothing_missing(moto, d, "bronze.big")
    else:
        # moto stores what it got: the load's reconciliation is what catches the corrupted file
        assert r.rc == 1, errors(r)
        assert "while reconciling bronze.big" in r.out + r.err, errors(r)


def test_parts_go_up_several_at_once_when_asked(src, moto, proxy, tmp_path):
    """parts-in-flight = 3: while the store holds each part a moment, the writer has several on
    their way; the completed object lists them in order and reads back equal to the source."""
    d = project(src, moto, proxy, tmp_path, warehouse="part-size-mb = 5\nparts-in-flight = 3\n")
    proxy.part_delay = 2.0  # one in flight: the writer collects part N before it sends N + 1, so never 2
    r, _ = run(src, d, moto, "--table", "public.big")
    assert r.rc == 0, errors(r)
    parts = [p for m, p, _ in proxy.seen if m == "PUT" and "partNumber=" in p]
    assert len(parts) >= 2, parts
    assert proxy.parts_most >= 2, proxy.parts_most
    lakecheck.assert_equals_source(src, d, "bronze.big")
    assert_nothing_missing(moto, d, "bronze.big")


def test_part_settings_are_checked(src, moto, proxy, tmp_path):
    for bad, says in (("part-size-mb = 4", "part-size-mb = 4 is out of range"),
                      ("parts-in-flight = 9", "parts-in-flight = 9 is out of range"),
                      ('payload-signing = "sometimes"', "`auto`, `always` or `never`")):
        d = tmp_path / bad.split(" ")[0]
        d.mkdir()
        src.project(d, extra=s3kit.warehouse_toml(f"s3://{moto.bucket()}/wh", proxy.endpoint) + bad + "\n")
        r = src.floe(d, "run", "--table", "public.small", env=moto.env())
        assert r.rc == 2 and says in r.err, r


def test_unsigned_payloads_by_default_over_https(src, moto, tmp_path):
    """payload-signing = auto on an https endpoint (a TLS proxy in front of the store, its
    self-signed certificate trusted through [warehouse] ca-file, by floe and by DuckDB's httpfs when
    it reconciles): UNSIGNED-PAYLOAD and Content-MD5; without ca-file the certificate is refused
    (exit 3)."""
    tls = s3kit.FaultProxy(moto.port, tls_dir=tmp_path)
    try:
        d = tmp_path / "p"
        d.mkdir()
        d = project(src, moto, tls, d, warehouse=f'ca-file = "{tls.ca_file}"\n')
        r, tables = run(src, d, moto, "--table", "public.big")  # reconciled: DuckDB reads over https too
        assert r.rc == 0, errors(r)
        assert tables["bronze.big"]["state"] == "loaded", tables
        assert sum(1 for m, p, *_ in tls.bodies if m == "PUT" and "partNumber=" in p) >= 2
        for method, path, headers, md5, _ in tls.bodies:
            assert headers["x-amz-content-sha256"] == "UNSIGNED-PAYLOAD", (method, path)
            assert headers["content-md5"] == md5, (method, path)
        lakecheck.assert_equals_source(src, d, "bronze.big")
        toml = (d / "floe.toml").read_text().replace(f'ca-file = "{tls.ca_file}"\n', "")
        (d / "floe.toml").write_text(toml)
        r, _ = run(src, d, moto, "--table", "public.small", "--no-reconcile")
        assert r.rc == 3, errors(r)
    finally:
        tls.stop()
