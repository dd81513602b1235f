"""DuckDB's and pyarrow's Parquet writers on the rows floe just wrote, for run.sh.

usage: peers.py FLOE_FILE FLOE_JSON WORKDIR

The table is loaded from floe's file into memory first (pyarrow: an Arrow table; DuckDB: a
table in an in-memory database), so each writer is timed on the same rows, from memory, with
ZSTD. The three files are then checked equal (DuckDB's EXCEPT ALL both ways) and a Markdown
table is printed: rows per second, seconds, file size, relative to floe.
"""
import json
import os
import sys
import time

import duckdb
import pyarrow.parquet as pq


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def best_of(n, fn):
    return min(timed(fn) for _ in range(n))


def main():
    floe_file, floe_json, work = sys.argv[1], sys.argv[2], sys.argv[3]
    floe = json.loads(floe_json)
    rows = floe["rows"]
    results = [("floe (ZSTD level 3, 1 thread)", floe["seconds"], floe["bytes"], floe_file)]

    table = pq.read_table(floe_file)
    arrow_file = os.path.join(work, "pyarrow.parquet")
    secs = best_of(3, lambda: pq.write_table(table, arrow_file, compression="zstd"))
    results.append(("pyarrow write_table (ZSTD, defaults)", secs, os.path.getsize(arrow_file), arrow_file))

    for threads in (1, os.cpu_count() or 1):
        con = duckdb.connect(config={"threads": threads})
        con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{floe_file}')")
        duck_file = os.path.join(work, f"duckdb-{threads}.parquet")
        secs = best_of(3, lambda: con.execute(
            f"COPY t TO '{duck_file}' (FORMAT parquet, COMPRESSION zstd)"))
        results.append((f"DuckDB COPY … TO (ZSTD, {threads} thread{'s' if threads > 1 else ''})",
                        secs, os.path.getsize(duck_file), duck_file))
        con.close()

    con = duckdb.connect()
    for _, _, _, path in results[1:]:
        for a, b in ((floe_file, path), (path, floe_file)):
            diff = con.sql(f"SELECT count(*) FROM (SELECT * FROM read_parquet('{a}') EXCEPT ALL "
                           f"SELECT * FROM read_parquet('{b}'))").fetchone()[0]
            assert diff == 0, f"{a} and {b} differ in {diff} rows"

    base_secs, base_bytes = results[0][1], results[0][2]
    print(f"{rows:,} rows, {len(table.column_names)} columns; the three files hold the same rows.\n")
    print("| writer | rows/s | seconds | file MiB | time vs floe | size vs floe |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, secs, size, _ in results:
        print(f"| {name} | {rows / secs:,.0f} | {secs:.2f} | {size / 2**20:.1f} | "
              f"{secs / base_secs:.2f}× | {size / base_bytes:.2f}× |")


if __name__ == "__main__":
    main()
