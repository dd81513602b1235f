"""Fixtures for `make rest-compat`: the integration suite's (tests/it/conftest.py, for the private
PostgreSQL that `floe serve` needs a project on), Apache Iceberg's reference REST catalog server
(RESTCatalogServer from the iceberg-open-api test fixtures; classpath in $FLOE_REST_COMPAT_CP,
resolved by scripts/rest-compat.sh) on a private port, and `floe serve` on an empty project."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

IT = Path(__file__).resolve().parents[1] / "it"
sys.path.insert(0, str(IT))
_spec = importlib.util.spec_from_file_location("it_conftest", IT / "conftest.py")
_it = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_it)

REPO, FLOE, floe, stack = _it.REPO, _it.FLOE, _it.floe, _it.stack

from servekit import Serve, free_port  # noqa: E402
from sourcedb import Source  # noqa: E402


@pytest.fixture(scope="session")
def reference():
    """The reference server on 127.0.0.1:PORT/ (its paths start at /v1), a JDBC catalog in memory."""
    cp = os.environ.get("FLOE_REST_COMPAT_CP")
    if not cp:
        pytest.fail("FLOE_REST_COMPAT_CP is not set: run `make rest-compat` (scripts/rest-compat.sh)")
    port, wh = free_port(), tempfile.mkdtemp(prefix="floe-rest-ref-")
    log = open(Path(wh) / "server.log", "w")
    env = dict(os.environ, CATALOG_REST_PORT=str(port), CATALOG_WAREHOUSE=f"file://{wh}/warehouse")
    proc = subprocess.Popen(["java", "-cp", cp, "org.apache.iceberg.rest.RESTCatalogServer"], env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(base + "/v1/config", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(Path(wh, "server.log").read_text()[-3000:])
            time.sleep(0.5)
    yield base
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="session")
def floe_serve(stack, tmp_path_factory):
    """`floe serve` on a project whose catalog holds nothing yet; its catalog at /iceberg."""
    src = Source.readable(stack, "restcompat", "restcompat_reader", "CREATE TABLE public.one (id int PRIMARY KEY);")
    d = tmp_path_factory.mktemp("restcompat")
    src.generated(d)
    s = Serve(d, src.password)
    yield s.base + "/iceberg"
    s.stop()
