"""Helpers for the Iceberg integration tests: drive floe's Iceberg library through
build/tools/iceberg_fixture (tests/tools/iceberg_fixture.c) and read what it wrote with readers floe did not write —
PyIceberg's SqlCatalog on floe's catalog.db, and DuckDB's iceberg extension loaded
offline from the wheels in .venv (see tests/README.md).
"""
import json
import os
import pathlib
import subprocess

import duckdb
import duckdb_extension_avro
import duckdb_extension_iceberg
from pyiceberg.catalog.sql import SqlCatalog

REPO = pathlib.Path(__file__).resolve().parents[2]
TOOLS = pathlib.Path(os.environ.get("FLOE_TOOLS", str(REPO / "build" / "tools")))
FIXTURE = str(TOOLS / "iceberg_fixture")


class Warehouse:
    """A warehouse directory with floe's catalog.db in it."""

    def __init__(self, path: pathlib.Path, catalog_name: str = "floe"):
        self.path = pathlib.Path(path)
        self.db = self.path / "catalog.db"
        self.catalog_name = catalog_name

    def run(self, *args, check=True, timeout=120):
        """Run the fixture; returns (rc, stdout, stderr)."""
        proc = subprocess.run([FIXTURE, "--name", self.catalog_name, str(self.db), *args],
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"fixture {args[:2]} failed ({proc.returncode}):\n{proc.stderr}")
        return proc.returncode, proc.stdout, proc.stderr

    def json(self, *args):
        return json.loads(self.run(*args)[1])

    def popen(self, *args, **kw):
        return subprocess.Popen([FIXTURE, "--name", self.catalog_name, str(self.db), *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)

    def pyiceberg(self) -> SqlCatalog:
        return SqlCatalog(self.catalog_name, uri=f"sqlite:///{self.db}",
                          warehouse=f"file://{self.path}")

    def files(self, table: str):
        """Every file under a table's directory, as absolute paths."""
        ns, name = table.rsplit(".", 1)
        root = self.path.joinpath(*ns.split("."), name)
        return sorted(str(p) for p in root.rglob("*") if p.is_file())


def duckdb_with_iceberg() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(config={"autoinstall_known_extensions": "false",
                                 "autoload_known_extensions": "false"})
    for mod, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        path = (pathlib.Path(mod.__file__).parent / "extensions"
                / f"v{duckdb.__version__}" / f"{name}.duckdb_extension")
        con.execute(f"LOAD '{path}'")
    return con


def local_path(uri: str) -> str:
    if uri.startswith("file://"):
        return uri[len("file://"):]
    if uri.startswith("file:"):
        return uri[len("file:"):]
    return uri


def referenced_files(catalog, table: str):
    """Every file the table's metadata reaches (each snapshot's manifest list, manifests and data
    files, and the metadata log), as local paths."""
    t = catalog.load_table(table)
    io = t.io
    refs = {local_path(t.metadata_location)}
    refs |= {local_path(e.metadata_file) for e in t.metadata.metadata_log}
    manifests = {}
    for snap in t.snapshots():
        refs.add(local_path(snap.manifest_list))
        for manifest in snap.manifests(io):
            manifests.setdefault(manifest.manifest_path, manifest)
    for path, manifest in manifests.items():
        refs.add(local_path(path))
        for entry in manifest.fetch_manifest_entry(io, discard_deleted=False):
            refs.add(local_path(entry.data_file.file_path))
    return refs
