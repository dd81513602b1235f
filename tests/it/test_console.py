"""The console of `floe serve` in a real browser: Debian's chromium driven by Selenium (headless,
chromium-driver) on a shop project. The panels show the states `floe status --json` reports, the
lock's load modes, the branch waiting for a merge and where the stack runs (no credential); an
operator starts `run` and its output streams into the page; a viewer's buttons are disabled and a
forged POST with a viewer token gets 403; the admin confirmation rejects a wrong name; a page of
another origin cannot make an open (token-less) server start a job."""
import json
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from servekit import Serve, free_port
from test_gold import shop_project, shop_source

WAIT = 60


@pytest.fixture(scope="module")
def src(stack):
    return shop_source(stack, "console_it", 5)


@pytest.fixture(scope="module")
def proj(src, tmp_path_factory):
    d = shop_project(src, tmp_path_factory.mktemp("console"))
    git = ["git", "-C", str(d / "pipeline"), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["checkout", "-q", "-b", "floe/mart/waiting_demo"], check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "a mart to review"], check=True)
    subprocess.run(git + ["checkout", "-q", "main"], check=True)
    return d


@pytest.fixture(scope="module")
def tokens(src, proj):
    out = {}
    for role in ("viewer", "operator", "admin"):
        out[role] = src.floe(proj, "serve", "token", "add", "--role", role, "--name", role, check=0).out.strip()
    return out


@pytest.fixture(scope="module")
def server(src, proj, tokens):
    s = Serve(proj, src.password)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        opts.add_argument(a)
    b = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    yield b
    b.quit()


def wait(browser, cond, timeout=WAIT):
    return WebDriverWait(browser, timeout, poll_frequency=0.2).until(lambda b: cond(b))


def login(browser, server, token):
    browser.delete_all_cookies()
    browser.get(server.base + "/")
    wait(browser, lambda b: b.find_element(By.ID, "login").is_displayed())
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "#login button").click()
    wait(browser, lambda b: b.find_element(By.ID, "role-badge").get_attribute("data-role") != "none")
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#job-buttons button"))
    return browser.find_element(By.ID, "role-badge").get_attribute("data-role")


def post(url, body, headers):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers=dict(headers, **{"Content-Type": "application/json"}))
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def jobs(server, token):
    req = urllib.request.Request(server.base + "/api/jobs", headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())["jobs"]


def test_panels_show_what_floe_status_reports(src, proj, server, tokens, browser):
    assert login(browser, server, tokens["viewer"]) == "viewer"
    status = json.loads(src.floe(proj, "status", "--json", check=0).out)["tables"]
    expected = {(t["table"], t["layer"]): t["state"] for t in status}
    assert expected and "verified" in expected.values()
    wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#health tbody tr")) == len(expected))
    shown = {(r.get_attribute("data-table"), r.get_attribute("data-layer")): r.get_attribute("data-state")
             for r in browser.find_elements(By.CSS_SELECTOR, "#health tbody tr")}
    assert shown == expected
    lock = json.loads((proj / "pipeline" / "lakehouse.lock.json").read_text())
    modes = sorted(r.get_attribute("data-mode") for r in browser.find_elements(By.CSS_SELECTOR, "#tables tbody tr"))
    assert modes == sorted(t["mode"] for t in lock["tables"])
    branches = [li.get_attribute("data-branch") for li in browser.find_elements(By.CSS_SELECTOR, "#branches li")]
    assert branches == ["floe/mart/waiting_demo"]
    db = sqlite3.connect(proj / ".floe" / "state.db")
    ledger_runs = [r[0] for r in db.execute("SELECT run_id FROM runs ORDER BY started_at DESC, run_id DESC LIMIT 30")]
    db.close()
    wait(browser, lambda b: [r.get_attribute("data-run") for r in b.find_elements(By.CSS_SELECTOR, "#runs tbody tr")]
         == ledger_runs)
    stack = browser.find_element(By.ID, "stack").text
    assert f"127.0.0.1:{src.stack['port']}/console_it" in stack and server.base in stack
    assert src.password not in browser.page_source and src.password not in stack


def test_operator_starts_run_and_sees_its_output_stream(proj, server, tokens, browser):
    assert login(browser, server, tokens["operator"]) == "operator"
    run = browser.find_element(By.CSS_SELECTOR, '#job-buttons button[data-kind="run"]')
    assert run.is_enabled()
    assert not browser.find_element(By.ID, "destroy").is_enabled()  # admin only
    run.click()
    out = browser.find_element(By.ID, "output")
    wait(browser, lambda b: out.text.strip() != "")  # lines arrive while the job runs
    wait(browser, lambda b: out.get_attribute("data-ended"), timeout=120)
    assert out.get_attribute("data-ended") == "ok", out.text
    job = jobs(server, tokens["viewer"])[0]
    assert job["kind"] == "run" and job["status"] == "ok" and job["started_by"] == "operator"
    log = (proj / ".floe" / "jobs" / f"{job['id']}.log").read_text()
    assert log.strip() and log.strip().splitlines()[-1] in out.text
    # One job per kind at a time, enforced by the server.
    s1, b1 = post(server.base + "/api/jobs", {"kind": "plan"}, {"Authorization": "Bearer " + tokens["operator"]})
    s2, b2 = post(server.base + "/api/jobs", {"kind": "plan"}, {"Authorization": "Bearer " + tokens["operator"]})
    assert s1 == 202 and s2 == 409 and b2["error"]["type"] == "ConflictException", (b1, b2)


def test_a_job_is_cancelled_and_its_stream_ends(proj, server, tokens):
    op = {"Authorization": "Bearer " + tokens["operator"]}
    code, body = post(server.base + "/api/jobs", {"kind": "run"}, op)
    assert code == 202, body
    events = urllib.request.urlopen(urllib.request.Request(
        f"{server.base}/api/jobs/{body['id']}/events", headers=op), timeout=60)
    assert events.headers["Content-Type"] == "text/event-stream"
    vc, _ = post(f"{server.base}/api/jobs/{body['id']}/cancel", {}, {"Authorization": "Bearer " + tokens["viewer"]})
    assert vc == 403
    cc, _ = post(f"{server.base}/api/jobs/{body['id']}/cancel", {}, op)
    assert cc == 202
    text = events.read().decode()  # the stream ends by itself once the job has ended
    assert text.rstrip().splitlines()[-2:][0] == "event: end" and '"status":"cancelled"' in text, text
    job = next(j for j in jobs(server, tokens["viewer"]) if j["id"] == body["id"])
    assert job["status"] == "cancelled" and job["finished_at"]
    assert post(f"{server.base}/api/jobs/{body['id']}/cancel", {}, op)[0] == 409  # not running any more


def test_viewer_sees_disabled_buttons_and_a_forged_post_is_refused(server, tokens, browser):
    assert login(browser, server, tokens["viewer"]) == "viewer"
    buttons = browser.find_elements(By.CSS_SELECTOR, "#job-buttons button")
    assert len(buttons) == 6 and not any(b.is_enabled() for b in buttons)
    assert not browser.find_element(By.ID, "destroy").is_enabled()
    before = len(jobs(server, tokens["viewer"]))
    code, body = post(server.base + "/api/jobs", {"kind": "run"}, {"Authorization": "Bearer " + tokens["viewer"]})
    assert code == 403 and body["error"]["type"] == "ForbiddenException"
    # The same from inside the page, with the viewer's session and its CSRF token: 403 too.
    status = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/api/session').then(r => r.json()).then(s => fetch('/api/jobs', {method: 'POST',
          headers: {'Content-Type': 'application/json', 'X-CSRF-Token': s.csrf}, body: '{"kind":"run"}'}))
          .then(r => done(r.status));""")
    assert status == 403
    assert len(jobs(server, tokens["viewer"])) == before


def test_admin_confirmation_must_equal_the_project_name(server, tokens, browser):
    assert login(browser, server, tokens["admin"]) == "admin"
    before = len(jobs(server, tokens["admin"]))
    browser.find_element(By.ID, "confirm").send_keys("console_i")
    browser.find_element(By.ID, "destroy").click()
    wait(browser, lambda b: "does not equal the project's name" in b.find_element(By.ID, "message").text)
    assert len(jobs(server, tokens["admin"])) == before
    auth = {"Authorization": "Bearer " + tokens["admin"]}
    assert post(server.base + "/api/jobs", {"kind": "destroy"}, auth)[0] == 400
    code, body = post(server.base + "/api/jobs", {"kind": "destroy", "confirm": "console_it"},
                      {"Authorization": "Bearer " + tokens["operator"]})
    assert code == 403  # an operator may not, even with the right name
    code, body = post(server.base + "/api/jobs", {"kind": "destroy", "confirm": "console_it"}, auth)
    assert code == 202 and body["kind"] == "destroy"  # the right name from an admin starts it


ATTACKER = """<!doctype html><html><body>
<form id="f" method="POST" enctype="text/plain" action="http://127.0.0.1:{port}/api/jobs">
<input name='{{"kind":"doctor","x":"' value='"}}'></form></body></html>"""


def test_another_origin_cannot_start_a_job_on_an_open_server(src, proj, tmp_path, browser):
    open_proj = tmp_path / "open"
    open_proj.mkdir()
    shutil.copy(proj / "floe.toml", open_proj / "floe.toml")  # no ledger: no token, loopback is open
    s = Serve(open_proj, src.password)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(ATTACKER.format(port=s.port))
    port = free_port()
    other = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                              "--directory", str(site)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        browser.delete_all_cookies()
        wait(browser, lambda b: b.get(f"http://127.0.0.1:{port}/") or "form" in b.page_source, timeout=30)
        # A page elsewhere: a no-cors fetch and a classic form post (whose text/plain body is valid JSON).
        result = browser.execute_async_script(f"""
            const done = arguments[arguments.length - 1];
            fetch('http://127.0.0.1:{s.port}/api/jobs', {{method: 'POST', mode: 'no-cors',
              headers: {{'Content-Type': 'text/plain'}}, body: '{{"kind":"doctor"}}'}})
              .then(() => done('sent'), e => done('error ' + e));""")
        assert result == "sent"
        browser.find_element(By.ID, "f").submit()
        wait(browser, lambda b: "ForbiddenException" in b.page_source)
        with urllib.request.urlopen(s.base + "/api/jobs", timeout=30) as r:
            assert json.loads(r.read())["jobs"] == []
        # The console on its own origin may (a same-origin request to an open server).
        browser.get(s.base + "/")
        status = browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch('/api/jobs', {method: 'POST', headers: {'Content-Type': 'application/json'},
              body: '{"kind":"doctor"}'}).then(r => done(r.status));""")
        assert status == 202
    finally:
        other.terminate()
        other.wait()
        s.stop()


def test_stopping_the_server_ends_streams_and_cancels_jobs(src, proj, tokens):
    s = Serve(proj, src.password)
    op = {"Authorization": "Bearer " + tokens["operator"]}
    try:
        code, body = post(s.base + "/api/jobs", {"kind": "run"}, op)
        assert code == 202, body
        events = urllib.request.urlopen(urllib.request.Request(
            f"{s.base}/api/jobs/{body['id']}/events", headers=op), timeout=60)
        started = time.monotonic()
        assert s.stop() == 0
        assert time.monotonic() - started < 15
        assert "event: end" in events.read().decode()
    finally:
        s.stop()
    db = sqlite3.connect(proj / ".floe" / "state.db")
    status = db.execute("SELECT status FROM serve_jobs WHERE id = ?", (body["id"],)).fetchone()[0]
    db.close()
    assert status in ("cancelled", "ok")  # a run that finished in the meantime is ok
