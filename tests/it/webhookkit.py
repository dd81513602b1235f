"""A local webhook receiver (Python's http.server on a private port) that records every request
exactly as it came — path, headers, body as `parse` reads it (JSON by default) — and can fail the first N with a status, as a
Slack, Teams or PagerDuty endpoint does when it is down. Stands in for services that cannot exist
offline; the tests assert on the protocol it recorded."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    def __init__(self, fail_first=0, fail_status=500, ok_status=200, parse=json.loads, answer=b"ok"):
        self.requests = []
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.ok_status = ok_status
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                failing = len(outer.requests) < outer.fail_first
                status = outer.fail_status if failing else outer.ok_status
                outer.requests.append({"path": self.path, "headers": dict(self.headers),
                                       "body": parse(body), "status": status})
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"rollup_error" if failing else answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, secret="T0KEN-SECRET-42"):
        return f"http://127.0.0.1:{self.port}/hooks/{secret}"

    def accepted(self):
        return [r["body"] for r in self.requests if 200 <= r["status"] < 300]

    def close(self):
        self.server.shutdown()
        self.server.server_close()
