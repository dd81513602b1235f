"""Fixtures for the scale-out checks: the integration suite's (tests/it/conftest.py) under their
own names, so `sourcedb` and the session's `stack` work unchanged, plus one Spark session."""
import importlib.util
import os
import sys
import time
from pathlib import Path

import pytest

IT = Path(__file__).resolve().parents[1] / "it"
sys.path.insert(0, str(IT))
_spec = importlib.util.spec_from_file_location("it_conftest", IT / "conftest.py")
_it = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_it)

REPO, FLOE, floe, stack = _it.REPO, _it.FLOE, _it.floe, _it.stack

# The Iceberg Spark runtime must match pyspark's minor version (4.1 ↔ iceberg-spark-runtime-4.1);
# pyspark itself is pinned in tests/scaleout/requirements.txt.
ICEBERG_RUNTIME = "org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0"
SQLITE_JDBC = "org.xerial:sqlite-jdbc:3.54.1.0"


@pytest.fixture(scope="session")
def spark_conf():
    """Per-warehouse settings are added by `spark_for`; these are the session's."""
    return {
        "spark.master": "local[2]",
        "spark.driver.memory": "2g",
        "spark.ui.enabled": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.jars.packages": f"{ICEBERG_RUNTIME},{SQLITE_JDBC}",
        "spark.jars.ivy": os.environ.get("FLOE_SPARK_IVY", str(REPO / ".spark-ivy")),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
    }


@pytest.fixture(scope="session")
def spark_session(spark_conf):
    """One local Spark for the whole run. Timestamps come back to Python as naive datetimes in
    the process's zone, so the process runs in UTC."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    from pyspark.sql import SparkSession
    b = SparkSession.builder.appName("floe-scale-out")
    for k, v in spark_conf.items():
        b = b.config(k, v)
    s = b.getOrCreate()
    s.sparkContext.setLogLevel("WARN")
    yield s
    s.stop()


def register_catalog(spark, project: Path, name="floe"):
    """Point Spark catalog `name` at a floe project's warehouse (JDBC catalog on catalog.db).
    The JDBC catalog's `catalog_name` column is what floe wrote: the Spark catalog must be `floe`."""
    wh = project / "warehouse"
    p = f"spark.sql.catalog.{name}"
    spark.conf.set(p, "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(f"{p}.type", "jdbc")
    spark.conf.set(f"{p}.uri", f"jdbc:sqlite:{wh / 'catalog.db'}")
    spark.conf.set(f"{p}.warehouse", f"file://{wh}")
    spark.conf.set(f"{p}.jdbc.schema-version", "V1")
