"""Alerts: a state transition of a table and layer is posted once to the webhook (a local receiver
records the exact payloads), a persisting state posts nothing, a recovery posts once; a receiver that
fails three times then recovers gets the transition exactly once (the outbox retries with backoff on
a controllable clock); PagerDuty's Events API v2 gets trigger and resolve with one dedup_key; the
webhook URL and the routing key never appear in output or in the ledger."""
import time

import pytest

from conftest import OUTPUTS
from sourcedb import Source
from webhookkit import Receiver

SQL = '''
CREATE TABLE public.orders (order_id bigint PRIMARY KEY, amount numeric(10,2));
INSERT INTO public.orders SELECT g, g * 1.5 FROM generate_series(1, 50) g;
'''
SECRET = "T0KEN-SECRET-42"
ROUTING = "R0UTING-KEY-77"


@pytest.fixture(scope="module")
def src(stack):
    return Source.readable(stack, "alert_it", "alert_reader", SQL)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def make_project(src, d, fmt="slack"):
    src.project(d, extra=f'\n[alerts]\nwebhook-env = "HOOK_URL"\nformat = "{fmt}"\nrouting-key-env = "PD_KEY"\n')
    src.floe(d, "init", check=0)
    src.floe(d, "generate", check=0)
    return d


def floe_env(receiver, clock=None):
    env = {"HOOK_URL": receiver.url(SECRET), "PD_KEY": ROUTING}
    if clock:
        env["FLOE_TEST_CLOCK"] = str(clock)
    return env


def no_secrets(d):
    data = b"".join(f.read_bytes() for f in (d / ".floe").glob("state.db*"))
    assert SECRET.encode() not in data and ROUTING.encode() not in data
    assert not any(SECRET in t or ROUTING in t for t in OUTPUTS.texts)


def test_a_transition_posts_once_and_a_recovery_once(src, tmp_path, receiver):
    d = make_project(src, tmp_path)
    env = floe_env(receiver)
    src.floe(d, "run", env=env, check=0)
    assert receiver.requests == [], "healthy tables seen for the first time post nothing"
    src.admin(f'ALTER ROLE "{src.role}" NOLOGIN')
    try:
        src.floe(d, "run", env=env)
        src.floe(d, "alert", env=env, check=0)
        bodies = receiver.accepted()
        assert len(bodies) == 1, bodies
        text = bodies[0]["text"]
        assert "bronze.orders (bronze) is failed (was verified)" in text, text
        assert "probable cause:" in text
        assert receiver.requests[0]["path"] == f"/hooks/{SECRET}"
        assert receiver.requests[0]["headers"]["Content-Type"] == "application/json"
        src.floe(d, "run", env=env)
        src.floe(d, "alert", env=env, check=0)
        assert len(receiver.requests) == 1, "a state that persists posts nothing"
    finally:
        src.admin(f'ALTER ROLE "{src.role}" LOGIN')
    src.floe(d, "run", env=env, check=0)
    bodies = receiver.accepted()
    assert len(bodies) == 2, bodies
    assert "bronze.orders (bronze) recovered: verified (was failed)" in bodies[1]["text"]
    no_secrets(d)


def test_a_failing_receiver_gets_the_transition_exactly_once(src, tmp_path, receiver):
    receiver.fail_first = 3
    clock = tmp_path / "clock"
    t = 1800000000
    clock.write_text(str(t))
    d = make_project(src, tmp_path)
    env = floe_env(receiver, clock)
    src.floe(d, "run", env=env, check=0)
    src.admin(f'ALTER ROLE "{src.role}" NOLOGIN')
    try:
        src.floe(d, "run", env=env)
        src.floe(d, "alert", env=env)  # attempt 1 (or the run's) failed; the next is not due yet
        first = len(receiver.requests)
        assert first == 1, receiver.requests
        r = src.floe(d, "alert", env=env, check=0)
        assert "1 waiting" in r.out or "0 failed" in r.out, r
        assert len(receiver.requests) == 1, "not retried before its backoff"
        for step in (31, 61, 121):
            t += step
            clock.write_text(str(t))
            src.floe(d, "alert", env=env)
        assert [x["status"] for x in receiver.requests] == [500, 500, 500, 200]
        for _ in range(3):
            t += 4000
            clock.write_text(str(t))
            src.floe(d, "alert", env=env, check=0)
        assert len(receiver.requests) == 4, "sent once accepted, never again"
        assert len(receiver.accepted()) == 1
        assert all(x["body"] == receiver.requests[0]["body"] for x in receiver.requests)
    finally:
        src.admin(f'ALTER ROLE "{src.role}" LOGIN')
    no_secrets(d)


def test_pagerduty_trigger_then_resolve_with_one_dedup_key(src, tmp_path, receiver):
    receiver.ok_status = 202
    d = make_project(src, tmp_path, fmt="pagerduty")
    env = floe_env(receiver)
    src.floe(d, "run", env=env, check=0)
    src.admin(f'ALTER ROLE "{src.role}" NOLOGIN')
    try:
        src.floe(d, "run", env=env)
        src.floe(d, "alert", env=env, check=0)
    finally:
        src.admin(f'ALTER ROLE "{src.role}" LOGIN')
    src.floe(d, "run", env=env, check=0)
    bodies = receiver.accepted()
    assert [b["event_action"] for b in bodies] == ["trigger", "resolve"], bodies
    trigger, resolve = bodies
    assert trigger["routing_key"] == ROUTING and resolve["routing_key"] == ROUTING
    assert trigger["dedup_key"] == resolve["dedup_key"] == "floe/alert_it/bronze.orders/bronze"
    p = trigger["payload"]
    assert p["severity"] == "error" and p["source"] == "alert_it" and p["component"] == "bronze.orders"
    assert p["custom_details"]["state"] == "failed" and p["custom_details"]["was"] == "verified"
    assert len(p["summary"]) <= 1024
    assert "payload" not in resolve


def test_alert_test_and_teams_payload(src, tmp_path, receiver):
    d = make_project(src, tmp_path, fmt="teams")
    r = src.floe(d, "alert", "--test", env=floe_env(receiver), check=0)
    assert "HTTP 200" in r.out
    (body,) = receiver.accepted()
    assert body["text"].startswith("floe alert_it: floe.test (test) is a test alert")
    card = body["attachments"][0]
    assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert card["content"]["type"] == "AdaptiveCard"
    receiver.ok_status = 404
    r = src.floe(d, "alert", "--test", env=floe_env(receiver))
    assert r.rc == 1 and "HTTP 404" in r.err, r
    no_secrets(d)


def test_task_failed_is_recorded_when_the_webhook_is_down_and_sent_later(src, tmp_path, receiver):
    d = make_project(src, tmp_path)
    env = floe_env(receiver)
    down = dict(env, HOOK_URL="http://127.0.0.1:9/hooks/" + SECRET)
    r = src.floe(d, "alert", "--task-failed", "--table", "bronze.orders", "--layer", "bronze",
                 "--run-id", "manual__2027", "--message", "task timed out", env=down, check=0)
    assert "1 failed" in r.out
    clock = tmp_path / "clock"
    clock.write_text(str(int(time.time()) + 60))
    src.floe(d, "alert", env=dict(env, FLOE_TEST_CLOCK=str(clock)), check=0)
    (body,) = receiver.accepted()
    assert "bronze.orders (bronze) is task failed" in body["text"]
    assert "task timed out" in body["text"] and "manual__2027" in body["text"]
    no_secrets(d)


def test_a_failed_silver_test_posts_its_transition(src, tmp_path, receiver):
    (tmp_path / "quality").mkdir()
    (tmp_path / "quality" / "orders.toml").write_text(
        '[[rule]]\nname = "orders_row_count"\ntable = "public.orders"\nkind = "row_count"\nmax = 50\n')
    d = make_project(src, tmp_path)
    env = floe_env(receiver)
    src.floe(d, "run", env=env, check=0)
    assert receiver.requests == []
    src.admin("INSERT INTO public.orders VALUES (999999, 5000000)")
    try:
        src.floe(d, "run", env=env, check=1)
        bodies = receiver.accepted()
        assert len(bodies) == 1, bodies
        text = bodies[0]["text"]
        assert "silver.orders (silver) is failed (was built)" in text, text
        assert "orders_row_count" in text and "probable cause: a silver test found rows" in text
    finally:
        src.admin("DELETE FROM public.orders WHERE order_id = 999999")
    src.floe(d, "run", env=env, check=0)
    assert "silver.orders (silver) recovered: built (was failed)" in receiver.accepted()[-1]["text"]
