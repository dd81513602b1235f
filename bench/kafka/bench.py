"""Kafka → bronze: sustained throughput and end-to-end freshness (`make bench-kafka`).

One real broker (tests/streams/kafkakit.py: KRaft, 3 partitions, loopback). Two measurements:
  batch:     N events produced first (`floe shop stream --count`), then one `floe run`: messages/s.
  sustained: `floe shop stream --rate R --seconds S` while `floe run` loops back to back; then
             per loaded message, freshness = commit time of the snapshot that added it − the
             message's Kafka timestamp (producer create time): p50, p99, max; and the loop's
             messages/s. Prints a Markdown block for bench/RESULTS.md."""
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "streams"))
sys.path.insert(0, str(ROOT / "tests" / "it"))
import kafkakit  # noqa: E402
import lakecheck  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

FLOE = os.environ.get("FLOE_BIN", str(ROOT / "build" / "floe"))
N = int(os.environ.get("EVENTS", "100000"))
RATE = int(os.environ.get("RATE", "2000"))
SECONDS = int(os.environ.get("SECONDS", "60"))
ORDERS = ('{ order_id = "uuid", customer_id = "uuid", order_status = "string", '
          'order_purchase_timestamp = "timestamp", order_estimated_delivery_date = "date", updated_at = "timestamp" }')


def project(d, broker, prefix):
    topics = [{"topic": f'"{prefix}{t}"', "table": f'"{t}"', "columns": ORDERS if t == "orders" else '{ order_id = "uuid" }'}
              for t in ("orders", "customers", "order_items", "payments", "reviews")]
    return kafkakit.write_project(d, broker, topics, group=f"bench-{prefix.strip('.')}", max_batch=1000000)


def messages(out):
    return sum(t["messages"] for t in json.loads(out)["kafka"] if not t["error"])


def run(d, starting=False):
    """One `floe run`; while the producer is `starting`, a topic it has not created yet fails its run
    (exit 2, "does not exist"): that run counts the messages of the topics that exist."""
    p = subprocess.run([FLOE, "-C", str(d), "run", "--json"], capture_output=True, text=True)
    if p.returncode != 0 and not (starting and "does not exist" in p.stdout):
        raise RuntimeError(f"floe run failed ({p.returncode}): {p.stdout}{p.stderr}")
    return p.stdout


def freshness(d, table):
    """Per loaded message: commit time of the snapshot that added its file − its Kafka timestamp (ms)."""
    tbl = lakecheck.catalog(d).load_table(table)
    ages, before = [], set()
    for snap in tbl.metadata.snapshots:  # append-only: a snapshot's new files are its additions
        files = {t.file.file_path for t in tbl.scan(snapshot_id=snap.snapshot_id).plan_files()}
        for path in files - before:
            ts = pq.read_table(path.removeprefix("file://"), columns=["_kafka_timestamp"]).column(0).to_pylist()
            ages += [snap.timestamp_ms - t.timestamp() * 1000 for t in ts if t is not None]
        before = files
    return sorted(ages)


def pct(xs, p):
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    work = Path(tempfile.mkdtemp(prefix="floe-bench-kafka-"))
    broker = kafkakit.Broker(str(work / "kafka"), partitions=3).start()
    try:
        load = os.getloadavg()
        # batch
        t0 = time.time()
        subprocess.run([FLOE, "shop", "stream", "--brokers", broker.bootstrap, "--topic-prefix", "b.", "--count",
                        str(N)], check=True, capture_output=True)
        produce_s = time.time() - t0
        d = project(work / "batch", broker, "b.")
        t0 = time.time()
        n_batch = messages(run(d))
        batch_s = time.time() - t0
        # sustained
        d2 = project(work / "sustained", broker, "s.")
        prod = subprocess.Popen([FLOE, "shop", "stream", "--brokers", broker.bootstrap, "--topic-prefix", "s.",
                                 "--rate", str(RATE), "--seconds", str(SECONDS), "--json"], stdout=subprocess.PIPE,
                                text=True)
        t0, loaded, runs = time.time(), 0, 0
        while prod.poll() is None or runs == 0:
            loaded += messages(run(d2, starting=True))
            runs += 1
        sent = sum(json.loads(prod.stdout.read())["messages"].values())
        while True:  # catch up
            m = messages(run(d2))
            loaded += m
            runs += 1
            if m == 0:
                break
        loop_s = time.time() - t0
        ages = freshness(d2, "bronze.orders")
        print(f"### floe shop stream → floe run (Kafka → bronze) — {time.strftime('%Y-%m-%d')} on {platform.node()}, "
              f"{os.cpu_count()} cores shared by 8 people's work (load average before: "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f})\n")
        print(f"Command: `EVENTS={N} RATE={RATE} SECONDS={SECONDS} make bench-kafka` "
              f"(git {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=ROOT).stdout.strip()})"
              "; one broker (Apache Kafka 4.1.0, KRaft, 3 partitions, loopback), five topics\n")
        print("| measurement | messages | seconds | messages/s |")
        print("|---|---|---|---|")
        print(f"| produce (`floe shop stream --count {N}`) | {n_batch} | {produce_s:.1f} | {n_batch / produce_s:.0f} |")
        print(f"| batch: one `floe run` over the backlog | {n_batch} | {batch_s:.1f} | {n_batch / batch_s:.0f} |")
        print(f"| sustained: {RATE} events/s for {SECONDS} s, `floe run` back to back ({runs} runs) | {loaded} "
              f"(sent {sent}) | {loop_s:.1f} | {loaded / loop_s:.0f} |")
        print()
        print(f"End-to-end freshness of bronze.orders in the sustained run (snapshot commit time − message "
              f"timestamp, {len(ages)} messages): p50 {pct(ages, 50) / 1000:.2f} s, p99 {pct(ages, 99) / 1000:.2f} s, "
              f"max {ages[-1] / 1000:.2f} s, mean {statistics.mean(ages) / 1000:.2f} s.")
    finally:
        broker.stop()


if __name__ == "__main__":
    main()
