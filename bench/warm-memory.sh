#!/usr/bin/env bash
# bench/warm-memory.sh — touch the machine's free memory once before a benchmark on a fresh VM.
#
# A virtual machine's memory is backed by its host page by page, on the guest's first touch of
# each page. On the bench machine (a 24 GiB VM) that first touch costs ~2.4 s a GiB of system time
# (measured: 21 GiB in 51 s), so any run that meets never-touched memory — a page cache page for
# a file it writes, a buffer it fills — pays the hypervisor, not the software: writing 24 MB to
# a new file took 66 ms the first time and 4.4 ms once its pages had been used before. Which runs
# pay depends on how much memory earlier work happened to touch, so a bench's ratios drift with
# the machine's history. Run this once after the machine starts (it holds all but 2 GiB of the
# available memory for a moment, then gives it back) and every run afterwards meets memory as a
# long-running machine does. Not run by the benchmarks themselves: on a laptop it only pushes the
# page cache out.
set -euo pipefail
python3 - <<'PY'
import mmap, time
avail_kib = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemAvailable:"))
gib = max(0, avail_kib // (1 << 20) - 2)
chunk = b"\1" * (1 << 26)
held, t0 = [], time.monotonic()
for _ in range(gib):
    m = mmap.mmap(-1, 1 << 30)
    for off in range(0, 1 << 30, len(chunk)):
        m[off:off + len(chunk)] = chunk
    held.append(m)
print(f"touched {gib} GiB in {time.monotonic() - t0:.1f} s")
PY
