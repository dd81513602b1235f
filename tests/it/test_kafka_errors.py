"""Kafka topics without a broker (the default suite; `make streams` runs the real one): what a user
sees when the brokers are down or floe.toml's [kafka] is wrong — exit codes 3 and 2, the topic named,
the reason and what to do, and a SASL password from its variable never in any output."""
import socket
from concurrent.futures import ThreadPoolExecutor

from conftest import floe

SECRET = "kafka-secret-planted-7f3a"


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the with ends: nothing listens there


def write(project, kafka):
    (project / "floe.toml").write_text('[project]\nname = "k"\n[source]\ndatabase = "shop"\nuser = "r"\n' + kafka)


def test_brokers_down_is_exit_3_naming_the_topic(project):
    write(project, f"""[kafka]
brokers = "127.0.0.1:{closed_port()}"
security-protocol = "sasl_plaintext"
sasl-mechanism = "PLAIN"
sasl-username = "floe"
sasl-password-env = "FLOE_TEST_KAFKA_PASSWORD"
[[kafka.topics]]
topic = "shop.orders"
columns = {{ order_id = "uuid" }}
""")
    env = {"FLOE_TEST_KAFKA_PASSWORD": SECRET}
    j = floe("status", "--json", cwd=project, env=env)  # first alone: it creates the run ledger
    calls = [("run",), ("status",), ("shop", "stream", "--count", "1")]
    with ThreadPoolExecutor(len(calls)) as pool:  # each waits out librdkafka's timeouts: at once
        r, s, p = pool.map(lambda args: floe(*args, cwd=project, env=env), calls)
    assert r.rc == 3 and "failed   bronze.shop_orders ← kafka shop.orders" in r.out, r
    assert "could not read kafka metadata" in r.out, r
    assert s.rc == 3 and "bronze.shop_orders ← shop.orders: unknown" in s.out, s
    assert j.rc == 3 and '"kafka"' in j.out and '"error"' in j.out, j
    assert p.rc == 3 and "while streaming the shop's traffic to kafka" in p.err, p
    for out in (r, s, j, p):
        assert SECRET not in out.out + out.err


def test_kafka_config_errors_are_exit_2_with_the_place(project):
    write(project, '[kafka]\nbrokers = "127.0.0.1:9092"\n[[kafka.topics]]\ntopic = "t"\nmode = "upsert"\n')
    r = floe("run", cwd=project, check=2)
    assert "floe.toml:8:1:" in r.err, r
    assert 'mode = "upsert" and no `key`' in r.err, r
    write(project, '[kafka]\nbrokers = "127.0.0.1:9092"\n[[kafka.topics]]\ntopic = "t"\ncolumns = { x = "list<int>" }\n')
    r = floe("run", cwd=project)
    assert r.rc == 2 and "does not read from JSON" in r.out, r
