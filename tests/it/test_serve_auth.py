"""Access to `floe serve` (docs/console.md "Access"), spoken to with a real HTTP client (urllib):
tokens stored hashed, bearer and cookie sessions, 401/403 in the Iceberg error model, the CSRF and
cross-origin checks, and the refusal to listen beyond loopback without tokens or TLS (real TLS
with a certificate made by openssl)."""
import http.cookiejar
import json
from concurrent.futures import ThreadPoolExecutor
import sqlite3
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import FLOE, floe
from servekit import Serve

TOML = '[source]\nhost = "127.0.0.1"\nport = 1\ndatabase = "nowhere"\nuser = "nobody"\n'


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "floe.toml").write_text(TOML)
    return tmp_path


def call(base, path, method="GET", body=None, headers=None, opener=None, context=None):
    """(status, headers, body text) of one request."""
    data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    try:
        open_ = opener.open if opener else urllib.request.urlopen
        with open_(req, timeout=30, **({"context": context} if context else {})) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def add_token(proj, role, name):
    r = floe("-C", str(proj), "serve", "token", "add", "--role", role, "--name", name, check=0)
    token = r.out.strip()
    assert token.startswith("floe_") and len(token) == 69 and name in r.err
    return token


def test_open_on_loopback_until_a_token_exists(proj):
    s = Serve(proj, "unused")
    try:
        assert "every request to this loopback address acts as admin" in s.stderr()
        code, _, body = call(s.base, "/api/session")
        assert code == 200 and json.loads(body)["role"] == "admin" and json.loads(body)["open"] is True
        # A web page elsewhere may not make the open server change anything, nor reach it by DNS rebinding.
        code, _, body = call(s.base, "/api/logout", "POST", headers={"Origin": "http://evil.example"})
        assert code == 403 and json.loads(body)["error"]["type"] == "ForbiddenException", body
        code, _, _ = call(s.base, "/api/logout", "POST", headers={"Sec-Fetch-Site": "cross-site"})
        assert code == 403
        code, _, body = call(s.base, "/api/session", headers={"Host": "evil.example:80"})
        assert code == 403 and "Host" in body
        assert call(s.base, "/api/logout", "POST")[0] == 204  # a non-browser client on the machine
        # The first token turns access control on at once, for the running server too.
        add_token(proj, "viewer", "late")
        code, headers, body = call(s.base, "/api/logout", "POST")
        assert code == 401 and headers["WWW-Authenticate"].startswith("Bearer"), body
        # With tokens, a proxy in front may name the server as it likes.
        assert call(s.base, "/api/session", headers={"Host": "floe.example:443"})[0] == 200
        assert json.loads(body) == {"error": {"message": json.loads(body)["error"]["message"],
                                              "type": "NotAuthorizedException", "code": 401}}
    finally:
        s.stop()


def test_tokens_are_hashed_listed_and_revoked(proj):
    token = add_token(proj, "operator", "ops")
    add_token(proj, "viewer", "other")
    assert floe("-C", str(proj), "serve", "token", "add", "--role", "operator", "--name", "ops").rc == 2
    assert floe("-C", str(proj), "serve", "token", "add", "--role", "root").rc == 2
    listed = floe("-C", str(proj), "serve", "token", "list", check=0).out
    assert "ops" in listed and "operator" in listed and token not in listed
    db = sqlite3.connect(proj / ".floe" / "state.db")
    rows = db.execute("SELECT name, hash, role FROM serve_tokens").fetchall()
    db.close()
    assert rows and all(token not in str(r) and token[5:] not in str(r) for r in rows)
    s = Serve(proj, "unused")
    try:
        auth = {"Authorization": "Bearer " + token}
        code, _, body = call(s.base, "/api/session", headers=auth)
        assert code == 200 and json.loads(body)["role"] == "operator" and json.loads(body)["who"] == "ops"
        assert call(s.base, "/api/session")[0] == 200 and json.loads(call(s.base, "/api/session")[2])["role"] == "none"
        assert call(s.base, "/healthz")[0] == 200  # operations routes stay open for probes
        assert call(s.base, "/api/logout", "POST", headers={"Authorization": "Bearer floe_" + "0" * 64})[0] == 401
        assert call(s.base, "/api/logout", "POST", headers=auth)[0] == 204
        # Many clients at once (a connection each, concurrent handlers, one ledger): all answered.
        with ThreadPoolExecutor(max_workers=32) as pool:
            codes = list(pool.map(lambda _: call(s.base, "/api/session", headers=auth)[0], range(320)))
        assert codes == [200] * 320
        floe("-C", str(proj), "serve", "token", "revoke", "ops", check=0)
        assert call(s.base, "/api/logout", "POST", headers=auth)[0] == 401
        assert floe("-C", str(proj), "serve", "token", "revoke", "ops").rc == 2
        # Revoking the last token opens loopback again, and says so.
        r = floe("-C", str(proj), "serve", "token", "revoke", "other", check=0)
        assert "no token is left" in r.out
        assert json.loads(call(s.base, "/api/session")[2])["role"] == "admin"
    finally:
        s.stop()


def test_cookie_session_needs_csrf_token_and_same_origin(proj):
    token = add_token(proj, "viewer", "browser")
    s = Serve(proj, "unused")
    try:
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        assert call(s.base, "/api/login", "POST", {"token": "floe_" + "1" * 64}, opener=opener)[0] == 401
        code, headers, body = call(s.base, "/api/login", "POST", {"token": token}, opener=opener)
        assert code == 200, body
        cookie = headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
        assert token not in cookie
        csrf = json.loads(body)["csrf"]
        assert json.loads(call(s.base, "/api/session", opener=opener)[2]) == {
            "role": "viewer", "who": "browser", "csrf": csrf, "open": False}
        code, _, body = call(s.base, "/api/logout", "POST", opener=opener)
        assert code == 403 and "CSRF" in body
        code, _, _ = call(s.base, "/api/logout", "POST", opener=opener,
                          headers={"X-CSRF-Token": "0" * 64})
        assert code == 403
        code, _, _ = call(s.base, "/api/logout", "POST", opener=opener,
                          headers={"X-CSRF-Token": csrf, "Origin": "http://evil.example"})
        assert code == 403
        assert call(s.base, "/api/logout", "POST", opener=opener, headers={"X-CSRF-Token": csrf})[0] == 204
        assert json.loads(call(s.base, "/api/session", opener=opener)[2])["role"] == "none"
    finally:
        s.stop()


def serve_beyond_loopback(proj, *args):
    return subprocess.Popen([FLOE, "-C", str(proj), "serve", "--listen", "0.0.0.0:0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_beyond_loopback_needs_tokens_and_tls(proj, tmp_path):
    p = serve_beyond_loopback(proj)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 2 and "no access token exists" in err and "token add" in err, err
    token = add_token(proj, "admin", "root")
    p = serve_beyond_loopback(proj)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 2 and "without TLS" in err and "--tls-cert" in err, err
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    p = serve_beyond_loopback(proj, "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        line = p.stdout.readline()
        assert line.startswith("listening on https://0.0.0.0:"), (line, p.stderr.read() if p.poll() else "")
        base = "https://127.0.0.1:" + line.rsplit(":", 1)[1].strip()
        ctx = ssl.create_default_context(cafile=str(cert))
        code, _, body = call(base, "/api/session", headers={"Authorization": "Bearer " + token}, context=ctx)
        assert code == 200 and json.loads(body)["role"] == "admin"
        code, headers, _ = call(base, "/api/login", "POST", {"token": token}, context=ctx)
        assert code == 200 and "Secure" in headers["Set-Cookie"]
        with pytest.raises(urllib.error.URLError):  # the untrusted default store refuses the self-signed cert
            urllib.request.urlopen(base + "/healthz", timeout=10)
    finally:
        p.terminate()
        p.wait(timeout=60)
    # The same from floe.toml's [serve] (paths relative to the project), no flags.
    assert cert.parent == proj  # the fixture's project is tmp_path: cert.pem and key.pem are in it
    (proj / "floe.toml").write_text(TOML + '\n[serve]\nlisten = "0.0.0.0:0"\ntls-cert = "cert.pem"\ntls-key = "key.pem"\n')
    p = subprocess.Popen([FLOE, "-C", str(proj), "serve"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("listening on https://0.0.0.0:"), line
        base = "https://127.0.0.1:" + line.rsplit(":", 1)[1].strip()
        code, _, body = call(base, "/api/session", headers={"Authorization": "Bearer " + token}, context=ctx)
        assert code == 200 and json.loads(body)["role"] == "admin"
    finally:
        p.terminate()
        p.wait(timeout=60)
    (proj / "floe.toml").write_text(TOML)
    p = serve_beyond_loopback(proj, "--insecure-http")
    try:
        assert p.stdout.readline().startswith("listening on http://0.0.0.0:")
    finally:
        p.terminate()
        p.wait(timeout=60)
