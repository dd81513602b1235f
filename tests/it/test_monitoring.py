"""`floe generate` writes pipeline/monitoring/: a Grafana dashboard over floe's Prometheus metrics
and an example Prometheus configuration. Real Prometheus (Debian's package) judges both:
`promtool check config` on prometheus.yml, and a Prometheus server started on a private port over
a TSDB backfilled (`promtool tsdb create-blocks-from openmetrics`) with series of exactly the
metrics `floe serve` exposes (the list in docs/monitoring.md) parses and evaluates every panel's
expression — each must return data, so each names only those metrics. A misspelt metric and a
broken expression planted in a copy of the dashboard are caught."""
import hashlib
import json
import re
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from sourcedb import Source

# The metrics floe serve exposes at /metrics and their labels (docs/monitoring.md).
METRICS = {
    "floe_table_state": ("table", "layer", "state"),
    "floe_table_healthy": ("table", "layer"),
    "floe_table_freshness_seconds": ("table", "layer"),
    "floe_table_rows": ("table", "layer"),
    "floe_table_last_run_duration_seconds": ("table", "layer"),
    "floe_table_last_run_rows_written": ("table", "layer"),
    "floe_table_last_run_bytes_read": ("table", "layer"),
    "floe_table_reconcile_verified": ("table",),
    "floe_table_tests_failed": ("table", "layer"),
    "floe_table_tests_warned": ("table", "layer"),
    "floe_table_quarantined_rows": ("table", "layer"),
    "floe_runs_total": ("outcome",),
    "floe_scheduler_skipped_runs_total": ("table", "layer"),
    "floe_scheduler_retries_total": ("table", "layer"),
    "floe_build_info": ("version", "commit"),
}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
            "offset", "inf", "nan"}


@pytest.fixture(scope="module")
def proj(stack, tmp_path_factory):
    s = Source.readable(stack, "monitoring_it", "monitoring_reader",
                        "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a')")
    d = s.generated(tmp_path_factory.mktemp("monitoring"))
    return d / "pipeline" / "monitoring"


def exprs(dashboard):
    return [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p["targets"]]


def metric_names(expr):
    """Identifiers in a PromQL expression that are metric names: not a function (followed by "("),
    not a label inside {...} or by (...), not a keyword, not in a string or a [range]."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r"\{[^}]*\}", "{}", e)
    e = re.sub(r"\[[^\]]*\]", "[]", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        rest = e[m.end():].lstrip()
        if m.group(0).lower() in KEYWORDS or rest.startswith("("):
            continue
        names.add(m.group(0))
    return names


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    """A Prometheus server over two hours of floe's series, ending ten minutes ago."""
    if not (shutil.which("prometheus") and shutil.which("promtool")):
        pytest.fail("prometheus or promtool is missing: scripts/setup.sh packages installs Debian's prometheus")
    d = tmp_path_factory.mktemp("prometheus")
    end = (int(time.time()) // 60 - 10) * 60
    lines = []
    tables = [("public.orders", "bronze"), ("silver.orders", "silver"), ("public.customers", "bronze")]
    for name, labels in METRICS.items():
        lines.append(f"# TYPE {name} gauge")
        for i, (table, layer) in enumerate(tables):
            values = {"table": table, "layer": layer, "state": "verified", "outcome": ["ok", "failed", "ok"][i],
                      "version": "0.1.0", "commit": f"c{i}"}
            lab = ",".join(f'{k}="{values[k]}"' for k in labels)
            for step in range(120, -1, -1):
                ts = end - step * 60
                v = (120 - step) * (i + 1) if name.endswith("_total") else (0 if i == 2 else 1) + step
                lines.append(f"{name}{{{lab}}} {v} {ts}")
    lines.append("# EOF")
    (d / "series.om").write_text("\n".join(lines) + "\n")
    data = d / "data"
    p = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", str(d / "series.om"), str(data)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    (d / "prometheus.yml").write_text("global:\n  scrape_interval: 1m\n")
    port = free_port()
    proc = subprocess.Popen(["prometheus", f"--config.file={d / 'prometheus.yml'}", f"--storage.tsdb.path={data}",
                             f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=30d"],
                            stdout=subprocess.DEVNULL, stderr=open(d / "prometheus.log", "w"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/-/ready", timeout=1)
            break
        except OSError:
            assert proc.poll() is None, (d / "prometheus.log").read_text()
            time.sleep(0.2)
    yield {"url": url, "time": end}
    proc.terminate()
    proc.wait(timeout=30)


def query(prom, expr):
    q = urllib.parse.urlencode({"query": expr, "time": prom["time"]})
    try:
        with urllib.request.urlopen(f"{prom['url']}/api/v1/query?{q}", timeout=30) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:  # 400 bad_data: the expression does not parse
        return json.loads(e.read())


def test_dashboard_is_grafana_dashboard_json(proj):
    dash = json.loads((proj / "grafana-dashboard.json").read_text())
    assert dash["title"] == "floe: monitoring_it" and dash["uid"].startswith("floe-") and len(dash["uid"]) <= 40
    assert dash["schemaVersion"] >= 36 and dash["templating"]["list"][0]["type"] == "datasource"
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)) >= 10
    for p in dash["panels"]:
        g = p["gridPos"]
        assert g["w"] > 0 and g["h"] > 0 and g["x"] + g["w"] <= 24, p
        assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        assert p["targets"] and all(t["refId"] and t["expr"] for t in p["targets"]), p
    titles = {p["title"] for p in dash["panels"]}
    assert {"Health per table and layer", "Freshness", "Last run duration", "Failed runs (24 h)"} <= titles


def test_every_expression_names_only_floe_metrics(proj):
    dash = json.loads((proj / "grafana-dashboard.json").read_text())
    used = set()
    for title, e in exprs(dash):
        names = metric_names(e)
        assert names and names <= set(METRICS), (title, e, names - set(METRICS))
        used |= names
    assert used == set(METRICS)  # every metric floe serves is on the dashboard


def test_prometheus_parses_and_evaluates_every_panel(proj, prometheus):
    dash = json.loads((proj / "grafana-dashboard.json").read_text())
    for title, e in exprs(dash):
        r = query(prometheus, e)
        assert r["status"] == "success", (title, e, r)
        assert r["data"]["result"], (title, e, "no data: a metric floe does not serve?")
    # the evaluation is real: one of three table-layer pairs is unhealthy, one run of three failed
    assert query(prometheus, "sum(1 - floe_table_healthy)")["data"]["result"][0]["value"][1] == "1"


def test_a_broken_or_foreign_expression_is_caught(prometheus):
    bad = query(prometheus, "sum(rate(floe_runs_total[5m])")
    assert bad["status"] == "error" and bad["errorType"] == "bad_data", bad
    assert not query(prometheus, "floe_tabel_healthy")["data"]["result"]
    assert metric_names('sum by (table) (increase(floe_runs_total{outcome="x"}[1h])) / up') == {
        "floe_runs_total", "up"}


def test_promtool_checks_the_prometheus_config(proj, tmp_path):
    p = subprocess.run(["promtool", "check", "config", str(proj / "prometheus.yml")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SUCCESS" in p.stdout + p.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text((proj / "prometheus.yml").read_text().replace("scrape_interval: 30s", "scrape_interval: 30x"))
    assert subprocess.run(["promtool", "check", "config", str(broken)], capture_output=True).returncode != 0


def test_monitoring_files_are_hashed_in_the_lock(proj):
    lock = json.loads((proj.parent / "lakehouse.lock.json").read_text())
    for name in ("grafana-dashboard.json", "prometheus.yml"):
        rel = f"monitoring/{name}"
        assert lock["files"][rel] == hashlib.sha256((proj / name).read_bytes()).hexdigest()

