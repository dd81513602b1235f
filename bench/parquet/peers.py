"""floe's Parquet writer against DuckDB's and pyarrow's on the same rows, for run.sh.

usage: peers.py ROWS FLOE_BENCH_BINARY WORKDIR [ROUNDS] [LEVELS]

LEVELS: floe's zstd levels to run, comma-separated, the first being the baseline of the
ratios (default "1,2,3": floe's default, then levels 2 and 3).

floe-parquet-bench writes an orders-shaped table and reports the seconds its writer took
(batches of 8192 rows, generation not timed). The rows it wrote are then loaded into memory
once — an Arrow table for pyarrow, a table in an in-memory database for DuckDB — and each
writer is timed writing them with ZSTD, in wall-clock and in CPU seconds (CPU time is the
fair measure on a shared machine, where wall-clock time mostly says how long a process
waited for a CPU; for a multi-threaded writer it sums its threads). The writers take turns
for ROUNDS rounds (default 5) and each keeps its best times. The files are checked to hold
the same rows (DuckDB's EXCEPT ALL both ways), and a Markdown table is printed.
"""
import json
import os
import subprocess
import sys
import time

import duckdb
import pyarrow.parquet as pq


def floe_run(binary, path, rows, level):
    out = subprocess.run([binary, path, str(rows), str(level)], check=True, capture_output=True,
                         text=True).stdout
    res = json.loads(out)
    return res["seconds"], res["cpu_seconds"]


def timed(fn):
    """Wall-clock and CPU seconds (all threads of this process) of fn()."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def main():
    rows, binary, work = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    levels = [int(x) for x in (sys.argv[5] if len(sys.argv) > 5 else "1,2,3").split(",")]
    threads = os.cpu_count() or 1
    paths = {lv: os.path.join(work, f"floe-{lv}.parquet") for lv in levels}
    base_path = paths[levels[0]]
    floe_run(binary, base_path, rows, levels[0])
    table = pq.read_table(base_path)
    cons = {t: duckdb.connect(config={"threads": t}) for t in sorted({1, threads})}
    for con in cons.values():
        con.execute(f"CREATE TABLE t AS SELECT * FROM read_parquet('{base_path}')")

    writers = {}
    for lv in levels:
        writers[f"floe (ZSTD level {lv}, 1 thread)"] = (
            paths[lv], lambda lv=lv: floe_run(binary, paths[lv], rows, lv))
    writers.update({
        "pyarrow write_table (ZSTD, its default level 1)": (
            os.path.join(work, "pyarrow.parquet"),
            lambda: timed(lambda: pq.write_table(table, os.path.join(work, "pyarrow.parquet"),
                                                 compression="zstd"))),
    })
    for t, con in cons.items():
        path = os.path.join(work, f"duckdb-{t}.parquet")
        writers[f"DuckDB COPY … TO (ZSTD, its default level 3, {t} thread{'s' if t > 1 else ''})"] = (
            path, lambda con=con, path=path: timed(lambda: con.execute(
                f"COPY t TO '{path}' (FORMAT parquet, COMPRESSION zstd)")))
    best = {name: (float("inf"), float("inf")) for name in writers}
    for _ in range(rounds):
        for name, (_, run) in writers.items():
            wall, cpu = run()
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))

    con = duckdb.connect()
    for name, (path, _) in writers.items():
        for a, b in ((base_path, path), (path, base_path)):
            diff = con.sql(f"SELECT count(*) FROM (SELECT * FROM read_parquet('{a}') EXCEPT ALL "
                           f"SELECT * FROM read_parquet('{b}'))").fetchone()[0]
            assert diff == 0, f"{a} and {b} differ in {diff} rows"

    base = f"floe (ZSTD level {levels[0]}, 1 thread)"
    base_cpu, base_bytes = best[base][1], os.path.getsize(writers[base][0])
    print(f"{rows:,} rows × {len(table.column_names)} columns, best of {rounds} interleaved rounds; "
          "every file holds the same rows.\n")
    print("| writer | rows/s (CPU) | CPU s | wall s | file MiB | CPU vs floe | size vs floe |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (path, _) in writers.items():
        (wall, cpu), size = best[name], os.path.getsize(path)
        print(f"| {name} | {rows / cpu:,.0f} | {cpu:.2f} | {wall:.2f} | {size / 2**20:.1f} | "
              f"{cpu / base_cpu:.2f}× | {size / base_bytes:.2f}× |")


if __name__ == "__main__":
    main()
