"""OpenTelemetry: `[alerts] otlp-endpoint` makes floe push its metrics over OTLP/HTTP with the JSON
encoding after each run and, in `floe serve`, on an interval. The receiver (stdlib http.server)
decodes every push strictly with the `opentelemetry-proto` package and protobuf's json_format, and the
values must be the ones `floe status --json` reports."""
import json
import time

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

from servekit import Serve
from sourcedb import Source
from webhookkit import Receiver

SQL = '''
CREATE TABLE public.orders (order_id bigint PRIMARY KEY, amount numeric(10,2));
INSERT INTO public.orders SELECT g, g * 1.5 FROM generate_series(1, 70) g;
'''


def otlp_request(body):
    """The push decoded strictly (unknown fields fail) by opentelemetry-proto and protobuf's json_format."""
    return json_format.Parse(body, ExportMetricsServiceRequest())


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "otlp_it", "otlp_reader", SQL)


@pytest.fixture
def receiver():
    r = Receiver(parse=otlp_request, answer=b"{}")
    yield r
    r.close()


def pushes(receiver):
    """(path, content type, ExportMetricsServiceRequest) of every push."""
    return [(r["path"], r["headers"]["Content-Type"], r["body"]) for r in receiver.requests]


def generated(src, d, endpoint):
    src.project(d, extra=f'\n[alerts]\notlp-endpoint = "{endpoint}"\n')
    src.floe(d, "init", check=0)
    src.floe(d, "generate", check=0)


def points(req):
    """{metric name: {(table, layer): (value, attributes)}}"""
    out = {}
    (rm,) = req.resource_metrics
    (sm,) = rm.scope_metrics
    for m in sm.metrics:
        for p in m.gauge.data_points:
            attrs = {a.key: a.value.string_value for a in p.attributes}
            value = p.as_int if p.WhichOneof("value") == "as_int" else p.as_double
            out.setdefault(m.name, {})[(attrs["table"], attrs["layer"])] = (value, attrs)
    return out


def test_a_run_pushes_the_status_values(src, tmp_path, receiver):
    generated(src, tmp_path, f"http://127.0.0.1:{receiver.port}")
    src.floe(tmp_path, "run", check=0)
    assert len(pushes(receiver)) == 1
    path, ctype, req = pushes(receiver)[0]
    assert path == "/v1/metrics" and ctype == "application/json"
    res = {a.key: a.value.string_value for a in req.resource_metrics[0].resource.attributes}
    assert res["service.name"] == "floe" and res["service.instance.id"] == "otlp_it"
    got = points(req)
    assert set(got) == {"lakehouse.table.state", "lakehouse.table.freshness", "lakehouse.table.rows_written",
                        "lakehouse.run.duration"}
    status = {(t["table"], t["layer"]): t for t in json.loads(src.floe(tmp_path, "status", "--json").out)["tables"]}
    for key, t in status.items():
        value, attrs = got["lakehouse.table.state"][key]
        assert value == 1 and attrs["state"] == t["state"], key
        assert abs(got["lakehouse.table.freshness"][key][0] - t["age_seconds"]) <= 5
        assert got["lakehouse.run.duration"][key][0] >= 0
    assert got["lakehouse.table.rows_written"][("bronze.orders", "bronze")][0] == 70
    units = {m.name: m.unit for m in req.resource_metrics[0].scope_metrics[0].metrics}
    assert units["lakehouse.run.duration"] == "s" and units["lakehouse.table.freshness"] == "s"


def test_serve_pushes_on_an_interval(src, tmp_path, receiver):
    generated(src, tmp_path, f"http://127.0.0.1:{receiver.port}/v1/metrics")
    clock = tmp_path / "clock"
    clock.write_text("1800000000")
    s = Serve(tmp_path, src.password, env={"FLOE_TEST_CLOCK": str(clock)})
    try:
        deadline = time.time() + 20
        while time.time() < deadline and not pushes(receiver):
            time.sleep(0.2)
        assert len(pushes(receiver)) == 1
        clock.write_text("1800000031")
        deadline = time.time() + 20
        while time.time() < deadline and len(pushes(receiver)) < 2:
            time.sleep(0.2)
        assert len(pushes(receiver)) == 2
        assert all(p[0] == "/v1/metrics" for p in pushes(receiver))
        state = points(pushes(receiver)[1][2])["lakehouse.table.state"]
        assert state[("bronze.orders", "bronze")][1]["state"] == "never loaded"
    finally:
        assert s.stop() == 0
