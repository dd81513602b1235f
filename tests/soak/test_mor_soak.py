"""Soak (`make soak-mor`, not part of `make test`): FLOE_SOAK_CYCLES (default 200) cycles of
`floe shop tick` (inserts, updates, deletes, late commits) → `floe run` with merge-on-read,
compaction after loads past low thresholds and expiry keeping 5 snapshots. After every cycle
PyIceberg and DuckDB read bronze equal to the source and reconciliation says verified."""
import json
import os
import time

from it_conftest import floe
from lakecheck import assert_equals_source, catalog
from sourcedb import Source

CYCLES = int(os.environ.get("FLOE_SOAK_CYCLES", "200"))
TABLES = ("public.orders", "public.payments", "public.order_items")


def test_merge_on_read_soak(stack, tmp_path):
    src = Source(stack, "mor_soak", "mor_soak_reader")
    src.create("")
    target = f"{stack['socket_dir']}:{stack['port']}/mor_soak"
    floe("shop", "generate", "--scale", "0.3", "--seed", "5", "--target", target, check=0)
    src.admin(f"GRANT USAGE ON SCHEMA public TO {src.role}")
    src.admin(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {src.role}")
    d = tmp_path / "soak"
    d.mkdir()
    src.project(d, extra='\n[warehouse]\nkeep-snapshots = 5\n'
                         '\n[bronze]\nwrite-mode = "merge-on-read"\ntarget-file-rows = 4000\n'
                         '\n[compaction]\ndelete-files = 6\nsmall-files = 12\n')
    src.floe(d, "generate", check=0)
    args = [x for t in TABLES for x in ("--table", t)]
    started, compactions, expired = time.monotonic(), 0, 0
    for cycle in range(CYCLES):
        if cycle:
            floe("shop", "tick", "--target", target, "--orders", "20", "--updates", "25", "--deletes", "4",
                 "--late", "2", check=0)
        out = json.loads(src.floe(d, "run", "--json", "--layer", "bronze", *args, check=0).out)
        for t in out["tables"]:
            assert t["state"] == "loaded" and t["check"] == "verified", (cycle, t)
            compactions += "then compacted" in (t["detail"] or "")
            expired += "snapshots expired" in (t["detail"] or "")
            assert_equals_source(src, d, t["table"])
        assert len(catalog(d).load_table("bronze.orders").snapshots()) <= 6, cycle
    print(f"{CYCLES} cycles in {time.monotonic() - started:.0f} s: {compactions} compactions after loads, "
          f"{expired} expiries")
    assert CYCLES < 10 or compactions > 0
