"""Helpers for `floe serve` tests: start the real server on a free port, speak HTTP to it,
and start a real Prometheus (Debian's) that scrapes it, on private ports, stopped after."""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from conftest import FLOE


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call_json(method, url, body=None, headers=None):
    """(status, parsed JSON body or None) of one request; an error status is returned, not raised."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw) if raw else None
        except ValueError:
            return e.code, {"raw": raw[:200].decode(errors="replace")}


class Serve:
    """`floe serve --listen 127.0.0.1:0` in the background; .port once it listens."""

    def __init__(self, directory, password, *args, env=None):
        full = dict(os.environ, FLOE_SOURCE_PASSWORD=password)
        full.update(env or {})
        self.log = tempfile.NamedTemporaryFile(prefix="floe-serve-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([FLOE, "-C", str(directory), "serve", "--listen", "127.0.0.1:0", *args],
                                     env=full, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), (line, self.stderr())
        self.port = int(line.rsplit(":", 1)[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def get(self, path):
        """(status, content type, body) of GET path."""
        try:
            with urllib.request.urlopen(self.base + path, timeout=30) as r:
                return r.status, r.headers["Content-Type"], r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], e.read().decode()

    def stderr(self):
        return Path(self.log.name).read_text()

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


class Prometheus:
    """Debian's /usr/bin/prometheus scraping `target` every second, on a private port and data dir."""

    def __init__(self, target):
        self.dir = Path(tempfile.mkdtemp(prefix="floe-prom-"))
        (self.dir / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: floe\n    static_configs:\n"
            f"      - targets: ['{target}']\n")
        self.port = free_port()
        self.log = open(self.dir / "prometheus.log", "w")
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={self.dir / 'prometheus.yml'}",
             f"--storage.tsdb.path={self.dir / 'data'}", f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def query(self, promql):
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.loads(r.read())
        assert body["status"] == "success", body
        return body["data"]["result"]

    def wait_for(self, promql, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                result = self.query(promql)
                if result:
                    return result
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.5)
        raise AssertionError(f"Prometheus returned nothing for {promql}:\n" +
                             (self.dir / "prometheus.log").read_text()[-3000:])

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
