"""An S3-compatible server for the tests: moto's server mode (tests/requirements.txt pins it),
started on a private port with request authentication on — every request must carry a valid
AWS Signature V4 of an IAM key moto issued, so floe's signing (libcurl's) is checked by a server —
or, with FLOE_S3_SERVER=gofakes3, build/tools/s3server (gofakes3 with signature and payload-hash
checks; scripts/build-s3server.sh, run here when the binary is missing); and a small fault-injecting proxy to put between floe and it (503 storms, a store that dies in the
middle of a multipart upload). Plus what a floe project, PyIceberg and DuckDB need to use it."""
import base64
import hashlib
import http.client
import http.server
import json
import os
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import boto3
import duckdb
import duckdb_extension_httpfs
import pytest

WHEEL_DIR = Path(duckdb_extension_httpfs.__file__).parent / "extensions" / f"v{duckdb.__version__}"
REPO = Path(__file__).resolve().parents[2]


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


class S3Server:
    """What the tests use of an S3 server; a subclass starts it and sets port, proc, log, key_id, secret."""

    verifies_content_md5 = True  # refuses a body that does not match its Content-MD5 (400 BadDigest), as S3 does

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def env(self):
        """The variables a project made by warehouse_toml reads its credentials from."""
        env = {"FLOE_S3_KEY": self.key_id, "FLOE_S3_SECRET": self.secret}
        # floe loads httpfs from extensions/ beside libduckdb.so, where scripts/setup.sh httpfs puts
        # the pinned build; a checkout set up before that step points it at the same build's wheel.
        if not (REPO / ".deps" / "duckdb" / "extensions" / "httpfs.duckdb_extension").exists():
            env["FLOE_DUCKDB_EXTENSION_DIR"] = str(WHEEL_DIR)
        return env

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def client(self):
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=self.key_id,
                            aws_secret_access_key=self.secret, region_name="us-east-1")

    def bucket(self):
        name = "lake-" + uuid.uuid4().hex[:12]
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket):
        out, token = [], None
        while True:
            page = self.client().list_objects_v2(Bucket=bucket, **({"ContinuationToken": token} if token else {}))
            out += [o["Key"] for o in page.get("Contents", [])]
            token = page.get("NextContinuationToken")
            if not token:
                return out

    def pyiceberg_props(self, endpoint=None):
        return {"s3.endpoint": endpoint or self.endpoint, "s3.access-key-id": self.key_id,
                "s3.secret-access-key": self.secret, "s3.region": "us-east-1",
                "s3.force-virtual-addressing": "false"}

    def duckdb(self, con):
        """Give a DuckDB connection the pinned httpfs and a secret for this server."""
        con.execute(f"LOAD '{WHEEL_DIR}/httpfs.duckdb_extension'")
        con.execute(f"CREATE OR REPLACE SECRET s3test (TYPE s3, KEY_ID '{self.key_id}', SECRET '{self.secret}', "
                    f"REGION 'us-east-1', ENDPOINT '127.0.0.1:{self.port}', URL_STYLE 'path', USE_SSL false)")
        return con


class Moto(S3Server):
    """moto in server mode on a private port, enforcing signatures from the key it issued."""

    verifies_content_md5 = False  # moto stores a body whatever its Content-MD5 says

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.log = open(workdir / f"moto-{self.port}.log", "ab")
        # The first 3 requests (the IAM calls below) run unauthenticated; every later one must be
        # signed with a key moto knows.
        env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "3"}
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=self.log, stderr=subprocess.STDOUT, cwd=workdir, env=env)
        wait_port(self.port, self.proc)
        iam = boto3.client("iam", endpoint_url=self.endpoint, aws_access_key_id="bootstrap",
                           aws_secret_access_key="bootstrap", region_name="us-east-1")
        iam.create_user(UserName="floe")
        key = iam.create_access_key(UserName="floe")["AccessKey"]
        iam.put_user_policy(UserName="floe", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        self.key_id, self.secret = key["AccessKeyId"], key["SecretAccessKey"]


class GoFakeS3(S3Server):
    """build/tools/s3server (gofakes3, in memory) on a private port, accepting one random key pair:
    it checks every request's Signature V4 and every hashed payload, and logs each request's
    method, path, x-amz-content-sha256 and whether a Content-MD5 came (request_log)."""

    def __init__(self, workdir: Path):
        binary = REPO / "build" / "tools" / "s3server"
        subprocess.run([str(REPO / "scripts" / "build-s3server.sh")], check=True)
        self.port = free_port()
        self.log = open(workdir / f"s3server-{self.port}.log", "ab")
        self.request_log_path = workdir / f"s3server-{self.port}.requests"
        self.key_id = "AKIAFLOETEST" + uuid.uuid4().hex[:8].upper()
        self.secret = uuid.uuid4().hex + uuid.uuid4().hex
        env = {**os.environ, "S3SERVER_KEY": self.key_id, "S3SERVER_SECRET": self.secret}
        self.proc = subprocess.Popen([str(binary), "-addr", f"127.0.0.1:{self.port}", "-access-key-env", "S3SERVER_KEY",
                                      "-secret-key-env", "S3SERVER_SECRET", "-log", str(self.request_log_path)],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        wait_port(self.port, self.proc)

    def request_log(self):
        """[(method, path?query, x-amz-content-sha256 or '-', 'md5' or '-')] of every request so far."""
        return [tuple(line.split(" ")) for line in self.request_log_path.read_text().splitlines()]


def server_kind():
    """The S3 server the tests run on: FLOE_S3_SERVER = moto (default) or gofakes3."""
    kind = os.environ.get("FLOE_S3_SERVER", "moto")
    if kind not in ("moto", "gofakes3"):
        raise ValueError(f"FLOE_S3_SERVER={kind!r}: moto or gofakes3")
    return kind


@pytest.fixture(scope="session")
def moto(tmp_path_factory):
    """One S3 server for the session (test modules import this fixture; moto unless
    FLOE_S3_SERVER=gofakes3); each project gets its own bucket."""
    m = (GoFakeS3 if server_kind() == "gofakes3" else Moto)(tmp_path_factory.mktemp("s3"))
    yield m
    m.stop()


def warehouse_toml(location, endpoint):
    return (f'\n[warehouse]\nlocation = "{location}"\nendpoint = "{endpoint}"\nregion = "us-east-1"\n'
            f'path-style = true\naccess-key-env = "FLOE_S3_KEY"\nsecret-key-env = "FLOE_S3_SECRET"\n')


def self_signed(directory: Path) -> Path:
    """A self-signed certificate for 127.0.0.1 (PEM, its key beside it as .key), made with
    cryptography (moto's dependency)."""
    import datetime
    import ipaddress
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    pem = directory / "store.pem"
    pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem.with_suffix(".key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    return pem


class FaultProxy:
    """An HTTP proxy on a private port in front of moto, passing requests through untouched
    (the signature covers Host, which it keeps), that can answer the next requests with 503
    SlowDown, or die — close the connection and stop listening — at a request it is told of; it
    records the headers and digests of every body it forwards, and can corrupt one on its way."""

    def __init__(self, upstream_port, tls_dir=None):
        self.upstream = upstream_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.storm = 0            # requests left to answer 503 SlowDown
        self.storm_served = 0
        self.die_when = None      # predicate(method, path) -> bool
        self.fail_when = None     # predicate(method, path) -> bool: answer 500 InternalError
        self.corrupt_when = None  # predicate(method, path) -> bool: flip a byte of the body on its way
        self.seen = []            # (method, path, status) of every request
        self.bodies = []          # (method, path, headers in lower case, body's MD5 base64, SHA-256 hex) of each with a body
        self.part_delay = 0.0     # seconds each part upload is held before it is passed on
        self.parts_active = 0     # part uploads being held now
        self.parts_most = 0       # the most held at once
        self.server = None
        # with tls_dir: https with a self-signed certificate for 127.0.0.1, its PEM at self.ca_file
        self.ca_file = self_signed(tls_dir) if tls_dir else None
        self.start()

    @property
    def endpoint(self):
        return f"{'https' if self.ca_file else 'http'}://127.0.0.1:{self.port}"

    def start(self):
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def handle_one(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                if body:
                    proxy.bodies.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                                         base64.b64encode(hashlib.md5(body).digest()).decode(),
                                         hashlib.sha256(body).hexdigest()))
                    if proxy.corrupt_when is not None and proxy.corrupt_when(self.command, self.path):
                        body = body[:n // 2] + bytes([body[n // 2] ^ 0x20]) + body[n // 2 + 1:]
                with proxy.lock:
                    die = proxy.die_when is not None and proxy.die_when(self.command, self.path)
                    fail = not die and proxy.fail_when is not None and proxy.fail_when(self.command, self.path)
                    storm = not die and (fail or proxy.storm > 0)
                    if storm and not fail:
                        proxy.storm -= 1
                        proxy.storm_served += 1
                if die:
                    proxy.seen.append((self.command, self.path, "killed"))
                    self.connection.shutdown(socket.SHUT_RDWR)
                    threading.Thread(target=proxy.stop).start()
                    return
                if storm:
                    status, code = (500, b"InternalError") if fail else (503, b"SlowDown")
                    reply = b"<Error><Code>" + code + b"</Code><Message>injected by the test</Message></Error>"
                    proxy.seen.append((self.command, self.path, status))
                    self.send_response(status)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(reply)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(reply if self.command != "HEAD" else b"")
                    return
                if self.command == "PUT" and "partNumber=" in self.path and proxy.part_delay:
                    # counted while held, before the reply that lets the writer send the next one
                    with proxy.lock:
                        proxy.parts_active += 1
                        proxy.parts_most = max(proxy.parts_most, proxy.parts_active)
                    time.sleep(proxy.part_delay)
                    with proxy.lock:
                        proxy.parts_active -= 1
                self.forward(body)

            def forward(self, body):
                up = http.client.HTTPConnection("127.0.0.1", proxy.upstream, timeout=120)
                up.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for k, v in self.headers.items():
                    up.putheader(k, v)
                up.endheaders(body)
                resp = up.getresponse()
                data = resp.read()
                proxy.seen.append((self.command, self.path, resp.status))
                self.send_response_only(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(k, v)
                # a HEAD's length is the object's, not its empty body's
                length = resp.getheader("Content-Length") if self.command == "HEAD" else None
                self.send_header("Content-Length", length or str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                up.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_one

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            allow_reuse_address = True
            daemon_threads = True

        self.server = Server(("127.0.0.1", self.port), Handler)
        if self.ca_file:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.ca_file, self.ca_file.with_suffix(".key"))
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
