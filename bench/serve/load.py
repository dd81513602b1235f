"""bench/serve/load.py BASE PID SECONDS CLIENTS — CLIENTS threads, each on its own keep-alive
connection, for SECONDS: load an Iceberg table through the REST catalog (a random bronze table,
GET /iceberg/v1/namespaces/bronze/tables/T) or, every fifth request, scrape /metrics. Samples the
server's RSS (VmRSS of PID) once a second. Prints one JSON object: requests, errors, p50/p99/max
latency per kind, RSS first/last/max (MB)."""
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    base, pid, seconds, clients = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request("GET", "/iceberg/v1/namespaces/bronze/tables")
    tables = [i["name"] for i in json.loads(conn.getresponse().read())["identifiers"]]
    conn.close()
    assert tables, "no bronze tables to load"
    lat = {"load": [], "metrics": []}
    errors, lock, stop = [], threading.Lock(), time.monotonic() + seconds
    gate = threading.Barrier(clients)

    def client(seed):
        rnd = random.Random(seed)
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        mine = {"load": [], "metrics": []}
        gate.wait()
        n = 0
        while time.monotonic() < stop:
            n += 1
            kind = "metrics" if n % 5 == 0 else "load"
            path = "/metrics" if kind == "metrics" else f"/iceberg/v1/namespaces/bronze/tables/{rnd.choice(tables)}"
            t0 = time.perf_counter()
            try:
                c.request("GET", path)
                r = c.getresponse()
                body = r.read()
                ok = r.status == 200 and (kind == "metrics" or b'"metadata-location"' in body)
                if not ok:
                    with lock:
                        errors.append(f"{path}: {r.status} {body[:200]!r}")
            except Exception as e:  # a dropped connection counts as an error
                with lock:
                    errors.append(f"{path}: {e!r}")
                c.close()
                c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
                continue
            mine[kind].append(time.perf_counter() - t0)
        c.close()
        with lock:
            for k in lat:
                lat[k].extend(mine[k])

    rss = [rss_mb(pid)]
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    while time.monotonic() < stop:
        time.sleep(1)
        rss.append(rss_mb(pid))
    for t in threads:
        t.join()
    rss.append(rss_mb(pid))

    def pct(xs, p):
        xs = sorted(xs)
        return round(1000 * xs[min(len(xs) - 1, int(p * len(xs)))], 1) if xs else None

    out = {"clients": clients, "seconds": seconds, "tables": len(tables), "errors": len(errors),
           "first_errors": errors[:5]}
    for k, xs in lat.items():
        out[k] = {"requests": len(xs), "per_s": round(len(xs) / seconds, 1), "p50_ms": pct(xs, 0.5),
                  "p99_ms": pct(xs, 0.99), "max_ms": pct(xs, 1.0)}
    out["rss_mb"] = {"start": round(rss[1] if len(rss) > 1 else rss[0], 1), "end": round(rss[-1], 1),
                     "max": round(max(rss), 1), "at_10s": round(rss[min(10, len(rss) - 1)], 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
