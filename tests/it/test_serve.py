"""`floe serve`: /healthz, /readyz and /metrics, scraped by a real Prometheus (Debian's) whose query
API must return the values `floe status --json` reports; `promtool check metrics` lints the text;
SIGTERM exits 0."""
import json
import signal
import subprocess

import pytest

from servekit import Prometheus, Serve
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.customers (customer_id int PRIMARY KEY, name text NOT NULL,
                               updated_at timestamptz NOT NULL DEFAULT now());
INSERT INTO public.customers SELECT g, 'c' || g, now() - interval '1 day' FROM generate_series(1, 40) g;
CREATE TABLE public.orders (order_id bigint PRIMARY KEY, customer_id int NOT NULL REFERENCES customers,
                            amount numeric(10,2), updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.orders FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.orders SELECT g, 1 + g % 40, g * 1.5, now() - interval '1 day' FROM generate_series(1, 300) g;
'''

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "serve_it", "serve_reader", SQL)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = tmp_path_factory.mktemp("serve")
    src.generated(d)
    src.floe(d, "run", "--json", check=0)
    return d


@pytest.fixture
def server(src, proj):
    s = Serve(proj, src.password)
    yield s
    s.stop()


def status_of(src, d):
    r = src.floe(d, "status", "--json")
    return {(t["table"], t["layer"]): t for t in json.loads(r.out)["tables"]}


def test_healthz_and_readyz(server):
    assert server.get("/healthz")[0] == 200
    code, _, body = server.get("/readyz")
    assert code == 200, body
    assert server.get("/nothing")[0] == 404


def test_readyz_says_why_the_source_is_unreachable(src, proj):
    s = Serve(proj, "wrong-password")
    try:
        code, _, body = s.get("/readyz")
        assert s.get("/healthz")[0] == 200
    finally:
        assert s.stop() == 0
    assert code == 503 and "source" in body, body
    assert "wrong-password" not in body and "wrong-password" not in s.stderr()


def test_readyz_says_when_the_catalog_does_not_open(proj, server):
    catalog = proj / "warehouse" / "catalog.db"
    moved = proj / "warehouse" / "catalog.db.away"
    catalog.rename(moved)
    try:
        code, _, body = server.get("/readyz")
    finally:
        moved.rename(catalog)
    assert code == 503 and body.startswith("not ready: catalog:"), body
    assert server.get("/readyz")[0] == 200


def test_metrics_content_type_and_promtool(server):
    code, ctype, body = server.get("/metrics")
    assert code == 200
    assert ctype == CONTENT_TYPE
    lint = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True)
    assert lint.returncode == 0 and not lint.stdout.strip() and not lint.stderr.strip(), lint
    assert 'floe_table_state{table="bronze.orders",layer="bronze",state="verified"} 1' in body
    assert 'floe_runs_total{outcome="ok"} 1' in body


def test_prometheus_scrapes_what_floe_status_reports(src, proj, server):
    prom = Prometheus(f"127.0.0.1:{server.port}")
    try:
        rows = prom.wait_for("floe_table_rows")
        status = status_of(src, proj)
        got = {(r["metric"]["table"], r["metric"]["layer"]): float(r["value"][1]) for r in rows}
        assert set(got) == set(status)
        for key, t in status.items():
            assert got[key] == t["rows"], key
        states = prom.query("floe_table_state == 1")
        got_states = {(r["metric"]["table"], r["metric"]["layer"]): r["metric"]["state"] for r in states}
        assert got_states == {k: t["state"] for k, t in status.items()}
        fresh = {(r["metric"]["table"], r["metric"]["layer"]): float(r["value"][1])
                 for r in prom.query("floe_table_freshness_seconds")}
        for key, t in status_of(src, proj).items():
            assert abs(fresh[key] - t["age_seconds"]) <= 5, key
        pairs = {"floe_table_last_run_rows_written": "last_run_rows_written",
                 "floe_table_last_run_bytes_read": "last_run_bytes", "floe_table_tests_failed": "tests_failed",
                 "floe_table_tests_warned": "tests_warned", "floe_table_quarantined_rows": "quarantined_rows",
                 "floe_table_last_run_duration_seconds": "last_run_duration_seconds"}
        for name, field in pairs.items():
            series = {(r["metric"]["table"], r["metric"]["layer"]): r["value"][1] for r in prom.query(name)}
            for key, t in status.items():
                want = t[field]
                if want is None:
                    assert series[key] == "NaN", (name, key)
                else:
                    assert abs(float(series[key]) - want) < 0.01, (name, key, series[key], want)
        assert status[("silver.orders", "silver")]["tests_failed"] == 0
        assert status[("bronze.orders", "bronze")]["last_run_rows_written"] == 300
        verified = prom.query('floe_table_reconcile_verified{table="bronze.orders"}')
        assert float(verified[0]["value"][1]) == 1
        info = prom.query("floe_build_info")
        assert info and info[0]["metric"]["version"]
        up = prom.query('up{job="floe"}')
        assert float(up[0]["value"][1]) == 1
    finally:
        prom.stop()


def test_sigterm_exits_zero(src, proj):
    s = Serve(proj, src.password)
    assert s.get("/healthz")[0] == 200
    assert s.stop(signal.SIGTERM, timeout=20) == 0, s.stderr()
