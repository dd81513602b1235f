"""An S3-compatible server for the tests: moto's server mode (tests/requirements.txt pins it),
started on a private port, and what a floe project, PyIceberg and DuckDB need to use it."""
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import boto3
import duckdb
import duckdb_extension_httpfs

KEY_ID, SECRET = "floe-test-key", "floe-test-secret"
WHEEL_DIR = Path(duckdb_extension_httpfs.__file__).parent / "extensions" / f"v{duckdb.__version__}"
REPO = Path(__file__).resolve().parents[2]
ENV = {"FLOE_S3_KEY": KEY_ID, "FLOE_S3_SECRET": SECRET}
# floe loads httpfs from extensions/ beside libduckdb.so, where scripts/setup.sh httpfs puts the
# pinned build; a checkout whose set-up predates that step points it at the same build's wheel.
if not (REPO / ".deps" / "duckdb" / "extensions" / "httpfs.duckdb_extension").exists():
    ENV["FLOE_DUCKDB_EXTENSION_DIR"] = str(WHEEL_DIR)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, deadline=30):
    end = time.time() + deadline
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the S3 server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the S3 server did not start listening")


class Moto:
    """moto in server mode on a private port; restartable (its state is in memory)."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.proc = None
        self.start()

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        log = open(self.workdir / f"moto-{self.port}.log", "ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=log, stderr=subprocess.STDOUT, cwd=self.workdir)
        wait_port(self.port, self.proc)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def client(self):
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=KEY_ID,
                            aws_secret_access_key=SECRET, region_name="us-east-1")

    def bucket(self):
        name = "lake-" + uuid.uuid4().hex[:12]
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket):
        out, token = [], None
        while True:
            kw = {"Bucket": bucket, **({"ContinuationToken": token} if token else {})}
            page = self.client().list_objects_v2(**kw)
            out += [o["Key"] for o in page.get("Contents", [])]
            token = page.get("NextContinuationToken")
            if not token:
                return out


def warehouse_toml(location, endpoint):
    return (f'\n[warehouse]\nlocation = "{location}"\nendpoint = "{endpoint}"\nregion = "us-east-1"\n'
            f'path-style = true\naccess-key-env = "FLOE_S3_KEY"\nsecret-key-env = "FLOE_S3_SECRET"\n')


def pyiceberg_props(endpoint):
    return {"s3.endpoint": endpoint, "s3.access-key-id": KEY_ID, "s3.secret-access-key": SECRET,
            "s3.region": "us-east-1", "s3.force-virtual-addressing": "false"}


def duckdb_s3(con, endpoint):
    """Give a DuckDB connection the pinned httpfs and a secret for the test server."""
    con.execute(f"LOAD '{WHEEL_DIR}/httpfs.duckdb_extension'")
    host = endpoint.split("://", 1)[1]
    con.execute(f"CREATE OR REPLACE SECRET s3test (TYPE s3, KEY_ID '{KEY_ID}', SECRET '{SECRET}', "
                f"REGION 'us-east-1', ENDPOINT '{host}', URL_STYLE 'path', USE_SSL false)")
    return con
