"""Kafka topics into bronze exactly once, against a real broker (kafkakit.Broker):
`floe shop stream` → `floe run` → bronze holds every produced message once (PyIceberg and
DuckDB read it); kill -9 of floe at random instants loses and repeats nothing; poison
messages land in <table>__rejected."""
import json
import os
import random
import sqlite3
import subprocess
import time
from pathlib import Path

import kafkakit
import lakecheck

ORDERS = ('{ order_id = "uuid", customer_id = "uuid", order_status = "string", '
          'order_purchase_timestamp = "timestamp", order_estimated_delivery_date = "date", updated_at = "timestamp" }')
PAYMENTS = ('{ order_id = "uuid", payment_sequential = "int", payment_type = "string", '
            'payment_installments = "int", payment_value = "decimal(10,2)" }')


def project(d: Path, broker, prefix, max_batch=100000):
    return kafkakit.write_project(d, broker, [
        {"topic": f'"{prefix}orders"', "table": '"orders_stream"', "columns": ORDERS},
        {"topic": f'"{prefix}payments"', "table": '"payments_stream"', "columns": PAYMENTS},
    ], group=f"floe-{prefix.strip('.')}", max_batch=max_batch)


def stream(floe_bin, broker, prefix, count, seed):
    out = subprocess.run([floe_bin, "shop", "stream", "--brokers", broker.bootstrap, "--topic-prefix", prefix,
                          "--count", str(count), "--seed", str(seed), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["messages"]


def run(floe_bin, d, check=True):
    p = subprocess.run([floe_bin, "-C", str(d), "run", "--json"], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr + p.stdout
    return p


def status(floe_bin, d):
    p = subprocess.run([floe_bin, "-C", str(d), "status", "--json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def positions(d, table):
    rows = lakecheck.catalog(d).load_table(table).scan(selected_fields=("_kafka_partition", "_kafka_offset")).to_arrow()
    return list(zip(rows["_kafka_partition"].to_pylist(), rows["_kafka_offset"].to_pylist()))


def assert_exactly_once(d, table, produced):
    pos = positions(d, table)
    assert len(pos) == len(set(pos)), "a message was loaded twice"
    assert len(pos) == produced, f"{produced - len(pos)} messages missing"
    by_part = {}
    for p, o in pos:
        by_part.setdefault(p, []).append(o)
    for p, offs in by_part.items():  # each partition's offsets 0..n-1, no gap
        assert sorted(offs) == list(range(len(offs))), f"partition {p} has a gap"


def add_upsert_topic(d, prefix):
    with open(d / "floe.toml", "a") as f:
        f.write(f"""
[[kafka.topics]]
topic = "{prefix}orders"
table = "orders_state"
mode = "upsert"
key = "order_id"
columns = {ORDERS}
""")


def assert_final_state_by_key(d):
    """bronze.orders_state holds, per key, the values of the key's last message in the append log
    bronze.orders_stream; a key whose last message is a tombstone is absent."""
    state = lakecheck.catalog(d).load_table("bronze.orders_state")
    got = sorted((str(r["order_id"]), r["order_status"], r["updated_at"])
                 for r in state.scan().to_arrow().to_pylist())
    log = lakecheck.catalog(d).load_table("bronze.orders_stream").metadata_location
    last = f"""select *, row_number() over (partition by _kafka_key order by _kafka_offset desc) as rn
               from iceberg_scan('{log}')"""
    con = lakecheck.duckdb_iceberg(d)
    want = con.execute(f"select order_id::varchar, order_status, updated_at from ({last}) "
                       "where rn = 1 and order_id is not null order by 1").fetchall()
    deleted = con.execute(f"select count(*) from ({last}) where rn = 1 and order_id is null").fetchone()[0]
    assert len(want) > 100 and deleted > 0, "too few keys, or none ended in a tombstone: deletes unseen"
    assert got == sorted(want)
    assert len({g[0] for g in got}) == len(got)
    duck = con.execute(f"select count(*) from iceberg_scan('{state.metadata_location}')").fetchone()[0]
    assert duck == len(got)
    return state


def test_stream_to_bronze_equals_produced(tmp_path, broker, floe_bin):
    sent = stream(floe_bin, broker, "a.", 3000, seed=11)
    d = project(tmp_path / "p", broker, "a.")
    before = {t["table"]: t for t in status(floe_bin, d)["kafka"]}
    assert before["bronze.orders_stream"]["lag"] == sent["a.orders"]  # lag per partition, brokers asked now
    assert sum(p["lag"] for p in before["bronze.orders_stream"]["partitions"]) == sent["a.orders"]
    assert before["bronze.orders_stream"]["freshness_ms"] == -1
    out = json.loads(run(floe_bin, d).stdout)
    after = {t["table"]: t for t in status(floe_bin, d)["kafka"]}
    assert after["bronze.orders_stream"]["lag"] == 0
    assert all(p["lag"] == 0 and p["next"] == p["high"] for p in after["bronze.orders_stream"]["partitions"])
    assert 0 <= after["bronze.orders_stream"]["freshness_ms"] < 600000
    k = {t["table"]: t for t in out["kafka"]}
    assert k["bronze.orders_stream"]["rows"] == sent["a.orders"]
    assert_exactly_once(d, "bronze.orders_stream", sent["a.orders"])
    assert_exactly_once(d, "bronze.payments_stream", sent["a.payments"])
    # values, read by two readers floe did not write
    py = lakecheck.catalog(d).load_table("bronze.payments_stream").scan().to_arrow()
    duck = lakecheck.duckdb_iceberg(d).execute(
        "select count(*), sum(payment_value), count(distinct order_id) from iceberg_scan('"
        + lakecheck.catalog(d).load_table("bronze.payments_stream").metadata_location + "')").fetchone()
    assert duck[0] == py.num_rows == sent["a.payments"]
    assert duck[1] == sum(v for v in py["payment_value"].to_pylist() if v is not None) and duck[1] > 0
    statuses = set(lakecheck.catalog(d).load_table("bronze.orders_stream").scan().to_arrow()["order_status"].to_pylist())
    assert {"created", "approved"} <= statuses
    # a second run reads nothing new and commits nothing
    snaps = len(lakecheck.catalog(d).load_table("bronze.orders_stream").metadata.snapshots)
    again = json.loads(run(floe_bin, d).stdout)
    assert all(t["messages"] == 0 for t in again["kafka"])
    assert len(lakecheck.catalog(d).load_table("bronze.orders_stream").metadata.snapshots) == snaps
    # offsets live in the snapshot summary
    summary = lakecheck.catalog(d).load_table("bronze.orders_stream").current_snapshot().summary
    offsets = json.loads(summary["floe.kafka.offsets"])["a.orders"]
    assert sum(offsets.values()) == sent["a.orders"]


def test_kill_9_loses_and_repeats_nothing(tmp_path, broker, floe_bin):
    sent = stream(floe_bin, broker, "k.", 6000, seed=12)
    d = project(tmp_path / "p", broker, "k.", max_batch=700)
    add_upsert_topic(d, "k.")
    rng = random.Random(22)
    kills = 0
    for _ in range(12):
        p = subprocess.Popen([floe_bin, "-C", str(d), "run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.02, 0.6))
        if p.poll() is None:
            p.kill()
            kills += 1
        p.wait()
    assert kills >= 3, "floe finished before every kill: the test killed nothing"
    for _ in range(30):  # then run to the end
        out = json.loads(run(floe_bin, d).stdout)
        if all(t["messages"] == 0 for t in out["kafka"]):
            break
    assert_exactly_once(d, "bronze.orders_stream", sent["k.orders"])
    assert_exactly_once(d, "bronze.payments_stream", sent["k.payments"])
    assert_final_state_by_key(d)  # the upsert table survived the kills too


def test_poison_messages_go_to_rejected(tmp_path, broker, floe_bin, tools):
    good = '{"order_id": "6f1c3a52-8d0e-4a55-9f0e-0c0c3f1b2a11", "payment_sequential": 1, "payment_type": "boleto", ' \
           '"payment_installments": 1, "payment_value": 12.5}'
    lines = [f"g1\t{good}", "p1\tnot json at all", 'p2\t{"payment_value": 1.234}', 'p3\t[1,2,3]',
             "p4\t{\"payment_type\": \"caf\\xe9\\xff\"}", 'p5\t{"payment_sequential": "one"}', f"g2\t{good}", "t1\t\\N"]
    subprocess.run([str(tools / "kafka_produce"), broker.bootstrap, "x.payments"], input="\n".join(lines) + "\n",
                   check=True, capture_output=True, text=True)
    stream(floe_bin, broker, "x.", 1, seed=3)  # creates x.orders too
    d = project(tmp_path / "p", broker, "x.")
    out = json.loads(run(floe_bin, d).stdout)
    pay = next(t for t in out["kafka"] if t["table"] == "bronze.payments_stream")
    rejected = lakecheck.catalog(d).load_table("bronze.payments_stream__rejected").scan().to_arrow().to_pylist()
    keys = sorted(r["_kafka_key"] for r in rejected)
    assert keys == ["p1", "p2", "p3", "p4", "p5"], rejected
    assert pay["rejected"] == 5
    by = {r["_kafka_key"]: r for r in rejected}
    assert "not JSON" in by["p1"]["reason"] and by["p1"]["raw_value"] == "not json at all"
    assert "payment_value" in by["p2"]["reason"]
    assert "not an object" in by["p3"]["reason"]
    assert "\\xff" in by["p4"]["raw_value"]
    assert "payment_sequential" in by["p5"]["reason"]
    loaded = lakecheck.catalog(d).load_table("bronze.payments_stream").scan().to_arrow().to_pylist()
    mine = sorted(r["_kafka_key"] for r in loaded if r["_kafka_key"] in ("g1", "g2", "t1", "p1", "p2", "p3", "p4", "p5"))
    assert mine == ["g1", "g2", "t1"]  # the tombstone is a row of nulls; no poison among the rows
    assert next(r for r in loaded if r["_kafka_key"] == "t1")["payment_type"] is None
    # never blocking: the partition moved past the poison, and a rerun neither re-rejects nor reloads
    again = json.loads(run(floe_bin, d).stdout)
    assert all(t["messages"] == 0 for t in again["kafka"])
    assert len(lakecheck.catalog(d).load_table("bronze.payments_stream__rejected").scan().to_arrow()) == 5


def test_upsert_with_tombstones_equals_final_state_by_key(tmp_path, broker, floe_bin):
    """An upsert table holds, per key, the last message's values; a key whose last message is a
    tombstone is gone. Small batches make a key's messages span runs, so later runs update and
    delete rows in files earlier runs wrote (the bronze merge path)."""
    stream(floe_bin, broker, "u.", 2500, seed=31)
    d = project(tmp_path / "p", broker, "u.", max_batch=400)
    add_upsert_topic(d, "u.")
    for _ in range(40):
        out = json.loads(run(floe_bin, d).stdout)
        if all(t["messages"] == 0 for t in out["kafka"]):
            break
    state = assert_final_state_by_key(d)
    assert len(state.metadata.snapshots) >= 5, "the batches did not span runs"


def test_columns_inferred_then_locked(tmp_path, broker, floe_bin, tools):
    """No columns declared: the first messages decide the types, the new table's schema locks them,
    and a later message that does not fit is rejected instead of changing a type."""
    first = ['a\t{"id": 1, "price": 2.5, "at": "2018-10-18T10:00:00Z", "ok": true, "name": "x"}',
             'b\t{"id": 2, "price": 3, "at": "2018-10-18T11:00:00Z", "ok": false, "name": "y"}']
    produce = [str(tools / "kafka_produce"), broker.bootstrap, "i.things"]
    subprocess.run(produce, input="\n".join(first) + "\n", check=True, capture_output=True, text=True)
    d = kafkakit.write_project(tmp_path / "p", broker, [{"topic": '"i.things"'}])
    out = json.loads(run(floe_bin, d).stdout)["kafka"][0]
    assert out["rows"] == 2 and 'id = "long"' in out["inferred_columns"]
    schema = {f.name: str(f.field_type) for f in lakecheck.catalog(d).load_table("bronze.i_things").schema().fields}
    assert schema["id"] == "long" and schema["price"] == "double" and schema["ok"] == "boolean"
    assert schema["at"] == "timestamptz" and schema["name"] == "string"
    later = ['c\t{"id": "three", "price": 1}', 'd\t{"id": 4, "price": 1, "extra": "ignored"}']
    subprocess.run(produce, input="\n".join(later) + "\n", check=True, capture_output=True, text=True)
    out = json.loads(run(floe_bin, d).stdout)["kafka"][0]
    assert out["inferred_columns"] is None and out["rows"] == 1 and out["rejected"] == 1
    rej = lakecheck.catalog(d).load_table("bronze.i_things__rejected").scan().to_arrow().to_pylist()
    assert [r["_kafka_key"] for r in rej] == ["c"] and "id" in rej[0]["reason"]
    schema2 = {f.name: str(f.field_type) for f in lakecheck.catalog(d).load_table("bronze.i_things").schema().fields}
    assert schema2 == schema
    # declaring columns that differ from the locked schema fails the topic (exit 2), writing nothing
    toml = (d / "floe.toml").read_text() + 'columns = { id = "string" }\n'
    (d / "floe.toml").write_text(toml)
    snaps = len(lakecheck.catalog(d).load_table("bronze.i_things").metadata.snapshots)
    p = run(floe_bin, d, check=False)
    assert p.returncode == 2 and "differ from its schema" in p.stdout
    assert len(lakecheck.catalog(d).load_table("bronze.i_things").metadata.snapshots) == snaps


def test_transactional_producer_read_committed(tmp_path, broker, floe_bin, tools):
    """A transactional producer (as Debezium's): aborted messages never reach bronze, and the
    transactions' control records at a partition's end do not keep a run waiting for messages
    that will never come."""
    lines = ["BEGIN", 'a\t{"id": 1}', 'b\t{"id": 2}', "COMMIT", "BEGIN", 'c\t{"id": 3}', "ABORT",
             "BEGIN", 'd\t{"id": 4}', "COMMIT"]
    subprocess.run([str(tools / "kafka_produce"), broker.bootstrap, "t.txn", "--transactional"],
                   input="\n".join(lines) + "\n", check=True, capture_output=True, text=True)
    d = kafkakit.write_project(tmp_path / "p", broker, [{"topic": '"t.txn"', "columns": '{ id = "long" }'}])
    t0 = time.time()
    out = json.loads(run(floe_bin, d).stdout)["kafka"][0]
    assert time.time() - t0 < 10, "the run waited for offsets that hold only control records"
    keys = sorted(r["_kafka_key"] for r in lakecheck.catalog(d).load_table("bronze.t_txn").scan().to_arrow().to_pylist())
    assert keys == ["a", "b", "d"] and out["rejected"] == 0
    ends = json.loads(out["offsets"])["t.txn"]
    assert sum(ends.values()) > 3  # past the control records: the next run starts at the end
    again = json.loads(run(floe_bin, d).stdout)["kafka"][0]
    assert again["messages"] == 0


def test_serve_scheduler_consumes_topics_on_the_bronze_schedule(tmp_path, broker, floe_bin):
    """`floe serve` with a bronze schedule makes one job per topic table: at its tick the child
    `floe run --table bronze.<table> --layer bronze` consumes the topic, exactly once."""
    sent = stream(floe_bin, broker, "s.", 500, seed=23)
    d = project(tmp_path / "p", broker, "s.")
    with open(d / "floe.toml", "a") as f:
        f.write('\n[schedule]\nbronze = "*/15 * * * *"\n')
    clock = tmp_path / "now"
    clock.write_text("1798762000")  # 2027-01-01 00:06:40 UTC: the next tick is 00:15
    env = dict(os.environ, FLOE_TEST_CLOCK=str(clock))
    log = open(tmp_path / "serve.log", "w")
    p = subprocess.Popen([floe_bin, "-C", str(d), "serve", "--listen", "127.0.0.1:0"], env=env,
                         stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert p.stdout.readline().startswith("listening on"), (tmp_path / "serve.log").read_text()
        time.sleep(1.5)
        assert "started run" not in (tmp_path / "serve.log").read_text(), "nothing runs before the tick"
        clock.write_text("1798762500")  # 00:15:00
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                if len(positions(d, "bronze.orders_stream")) == sent["s.orders"] and \
                        len(positions(d, "bronze.payments_stream")) == sent["s.payments"]:
                    break
            except Exception:  # not committed yet
                pass
            time.sleep(0.5)
        assert_exactly_once(d, "bronze.orders_stream", sent["s.orders"])
        assert_exactly_once(d, "bronze.payments_stream", sent["s.payments"])
        with sqlite3.connect(d / ".floe" / "state.db") as db:
            ticks = dict(db.execute("SELECT schedule, last_tick FROM schedule_ticks").fetchall())
        assert ticks == {"bronze bronze.orders_stream": 1798762500, "bronze bronze.payments_stream": 1798762500}, ticks
    finally:
        p.terminate()
        assert p.wait(60) == 0, (tmp_path / "serve.log").read_text()
