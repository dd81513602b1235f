"""floe's Parquet writer and reader against readers and writers floe did not write.

build/tools/parquet_fixture (tests/tools/parquet_fixture.c) writes the type-matrix cases with
floe's writer and prints the values it wrote and the Iceberg statistics the writer returned;
these tests read the files with pyarrow.parquet and DuckDB and require every value, the
schema (field ids, logical types), the footer's sizes and offsets and the statistics to be
what was written. The Iceberg bounds are recomputed here, independently, from the values
(Iceberg spec, Appendix D). In the other direction, `parquet_fixture dump` reads files
pyarrow and DuckDB wrote, and must return their values.
"""
import decimal
import json
import math
import os
import struct
import subprocess
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

decimal.getcontext().prec = 80  # room for decimal(38, s) arithmetic without rounding

REPO = Path(__file__).resolve().parents[2]
FIXTURE = str(Path(os.environ.get("FLOE_TOOLS", str(REPO / "build" / "tools"))) / "parquet_fixture")

CASES = ["types", "required", "allnull", "lists", "big", "card", "floats"]
CODECS = {"zstd": "ZSTD", "snappy": "SNAPPY", "none": "UNCOMPRESSED"}


def run_fixture(*args):
    proc = subprocess.run([FIXTURE, *args], capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def write_case(tmp_path, case, *opts):
    path = tmp_path / f"{case}.parquet"
    return path, run_fixture("write", case, str(path), *opts)


# ---- canonical values (the fixture's form; see parquet_fixture.c) ----

def canon(arr):
    """An Arrow array in the fixture's canonical form (decimals as Decimal)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if isinstance(t, pa.BaseExtensionType):
        return canon(arr.storage)
    valid = arr.is_valid().to_pylist()
    if pa.types.is_list(t):
        values = canon(arr.values)
        offs = arr.offsets.to_pylist()
        return [values[offs[i]:offs[i + 1]] if valid[i] else None for i in range(len(arr))]
    if pa.types.is_float32(t):
        return [f"f32:{b:08x}" if b is not None else None for b in arr.view(pa.uint32()).to_pylist()]
    if pa.types.is_float64(t):
        return [f"f64:{b:016x}" if b is not None else None for b in arr.view(pa.uint64()).to_pylist()]
    if pa.types.is_date32(t):
        return arr.view(pa.int32()).to_pylist()
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        raw = arr.view(pa.int64()).to_pylist()
        scale = 1000 if pa.types.is_timestamp(t) and t.unit == "ms" else 1
        return [None if v is None else v * scale for v in raw]
    if pa.types.is_binary(t) or pa.types.is_fixed_size_binary(t) or pa.types.is_large_binary(t):
        return [None if v is None else "x:" + v.hex() for v in arr.to_pylist()]
    if pa.types.is_integer(t):
        return arr.cast(pa.int64()).to_pylist()
    return arr.to_pylist()


def expected_values(field, values):
    """The fixture's JSON values with decimals as Decimal (lists element-wise)."""
    t = field["type"]
    if t == "list":
        return [None if v is None else expected_values(field["element"], v) for v in values]
    if t == "decimal":
        return [None if v is None else Decimal(v) for v in values]
    return values


def f32(bits):
    return struct.unpack("<f", bytes.fromhex(bits[4:])[::-1])[0]


def f64(bits):
    return struct.unpack("<d", bytes.fromhex(bits[4:])[::-1])[0]


# ---- Iceberg single-value serialization (Appendix D), computed independently ----

def float_key(x):
    """Order floats with -0.0 before +0.0 (NaN excluded by the caller)."""
    return (x, math.copysign(1.0, x))


def truncate_str_upper(s, n=16):
    if len(s) <= n:
        return s
    cps = list(s[:n])
    while cps:
        c = ord(cps[-1]) + 1
        if 0xD800 <= c <= 0xDFFF:
            c = 0xE000
        if c <= 0x10FFFF:
            cps[-1] = chr(c)
            return "".join(cps)
        cps.pop()
    return None


def truncate_bytes_upper(b, n=16):
    if len(b) <= n:
        return b
    b = bytearray(b[:n])
    while b:
        if b[-1] != 0xFF:
            b[-1] += 1
            return bytes(b)
        b.pop()
    return None


def decimal_bytes(d, scale):
    unscaled = int(d.scaleb(scale))
    n = 1
    while not -(1 << (8 * n - 1)) <= unscaled < (1 << (8 * n - 1)):
        n += 1
    return unscaled.to_bytes(n, "big", signed=True)


def iceberg_bounds(field, values):
    """(lower, upper) as hex, or None, for a top-level primitive field's values."""
    t = field["type"]
    vals = [v for v in values if v is not None]
    if t in ("float", "double"):
        conv = f32 if t == "float" else f64
        vals = [conv(v) for v in vals]
        vals = [v for v in vals if not math.isnan(v)]
    if not vals:
        return None, None
    if t in ("float", "double"):
        lo, hi = min(vals, key=float_key), max(vals, key=float_key)
        fmt = "<f" if t == "float" else "<d"
        return struct.pack(fmt, lo).hex(), struct.pack(fmt, hi).hex()
    if t == "boolean":
        return ("01" if min(vals) else "00"), ("01" if max(vals) else "00")
    if t in ("int", "date"):
        return struct.pack("<i", min(vals)).hex(), struct.pack("<i", max(vals)).hex()
    if t in ("long", "time", "timestamp", "timestamptz"):
        return struct.pack("<q", min(vals)).hex(), struct.pack("<q", max(vals)).hex()
    if t == "decimal":
        ds = [Decimal(v) for v in vals]
        return (decimal_bytes(min(ds), field["scale"]).hex(),
                decimal_bytes(max(ds), field["scale"]).hex())
    if t == "string":
        # UTF-8 byte order is code point order.
        lo, hi = min(vals, key=lambda s: s.encode()), max(vals, key=lambda s: s.encode())
        up = truncate_str_upper(hi)
        return lo[:16].encode().hex(), None if up is None else up.encode().hex()
    bs = [bytes.fromhex(v[2:]) for v in vals]
    lo, hi = min(bs), max(bs)
    up = truncate_bytes_upper(hi)
    return lo[:16].hex(), None if up is None else up.hex()


def level_counts(field, values):
    """value_count, null_count, nan_count of a field's leaf column, as Parquet counts them."""
    t = field["type"]
    if t == "list":
        et = field["element"]["type"]
        entries = nulls = nans = 0
        for v in values:
            if not v:
                entries += 1
                nulls += 1
                continue
            entries += len(v)
            nulls += sum(1 for x in v if x is None)
            if et in ("float", "double"):
                conv = f32 if et == "float" else f64
                nans += sum(1 for x in v if x is not None and math.isnan(conv(x)))
        return entries, nulls, nans if et in ("float", "double") else None
    nulls = sum(1 for v in values if v is None)
    nans = None
    if t in ("float", "double"):
        conv = f32 if t == "float" else f64
        nans = sum(1 for v in values if v is not None and math.isnan(conv(v)))
    return len(values), nulls, nans


# ---- the writer, read by pyarrow ----

ARROW_TYPES = {
    "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(),
    "double": pa.float64(), "date": pa.date32(), "time": pa.time64("us"),
    "timestamp": pa.timestamp("us"), "timestamptz": pa.timestamp("us", tz="UTC"),
    "string": pa.string(), "binary": pa.binary(),
}


def arrow_type(field):
    t = field["type"]
    if t == "decimal":
        return pa.decimal128(field["precision"], field["scale"])
    if t == "fixed":
        return pa.binary(field["length"])
    if t == "list":
        el = arrow_type(field["element"])
        return pa.list_(el) if el is not None else None
    if t == "uuid":
        return None
    return ARROW_TYPES[t]


def check_arrow_schema(pf, fields):
    schema = pf.schema_arrow
    assert schema.names == [f["name"] for f in fields]
    for f in fields:
        af = schema.field(f["name"])
        assert af.metadata[b"PARQUET:field_id"] == str(f["id"]).encode()
        assert af.nullable == (not f["required"])
        want = arrow_type(f)
        if f["type"] == "uuid":
            # pyarrow maps the UUID logical type to its uuid extension type.
            assert getattr(af.type, "extension_name", "") == "arrow.uuid" or af.type == pa.binary(16)
        elif f["type"] == "list":
            assert pa.types.is_list(af.type), f["name"]
            assert want is None or af.type.value_type == want.value_type, f["name"]
        else:
            assert af.type == want, (f["name"], af.type, want)
        if f["type"] == "list":
            el = af.type.value_field
            assert el.metadata[b"PARQUET:field_id"] == str(f["element"]["id"]).encode()
            assert el.nullable == (not f["element"]["required"])
    assert pf.metadata.created_by.startswith("floe version ")


def check_layout(path, pf):
    """Chunks back to back from byte 4 to the footer; sizes and offsets exact."""
    md = pf.metadata
    size = os.path.getsize(path)
    data = path.read_bytes()
    assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    footer_len = struct.unpack("<I", data[-8:-4])[0]
    pos = 4
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for c in range(rg.num_columns):
            col = rg.column(c)
            start = col.data_page_offset
            if col.has_dictionary_page:
                assert col.dictionary_page_offset == pos and col.dictionary_page_offset > 0
                start = col.dictionary_page_offset
                assert col.data_page_offset > start
            assert start == pos, (g, c, start, pos)
            pos += col.total_compressed_size
        assert rg.total_byte_size == sum(
            rg.column(c).total_uncompressed_size for c in range(rg.num_columns))
    assert pos == size - 8 - footer_len


def first_chunk_start(rg):
    col = rg.column(0)
    return col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset


def check_iceberg_stats(path, pf, fields, columns, stats):
    md = pf.metadata
    assert stats["file_size"] == os.path.getsize(path)
    assert stats["record_count"] == md.num_rows
    assert stats["split_offsets"] == [first_chunk_start(md.row_group(g))
                                      for g in range(md.num_row_groups)]
    assert len(stats["columns"]) == len(fields)
    for i, (f, cs) in enumerate(zip(fields, stats["columns"])):
        values = columns[f["name"]]
        leaf_id = f["element"]["id"] if f["type"] == "list" else f["id"]
        assert cs["field_id"] == leaf_id
        assert cs["column_size"] == sum(md.row_group(g).column(i).total_compressed_size
                                        for g in range(md.num_row_groups))
        entries, nulls, nans = level_counts(f, values)
        assert (cs["value_count"], cs["null_count"], cs["nan_count"]) == (entries, nulls, nans), f
        if f["type"] == "list":
            assert cs["lower"] is None and cs["upper"] is None
            continue
        lo, hi = iceberg_bounds(f, values)
        assert (cs["lower"], cs["upper"]) == (lo, hi), f["name"]


def physical_stats(f, values):
    """Expected Parquet min_raw/max_raw for a row group's values, or None."""
    t = f["type"]
    vals = [v for v in values if v is not None]
    if t in ("float", "double"):
        conv = f32 if t == "float" else f64
        vals = [x for x in (conv(v) for v in vals) if not math.isnan(x)]
        if not vals:
            return None
        lo, hi = min(vals), max(vals)
        return (-0.0 if lo == 0 else lo), (0.0 if hi == 0 else hi)
    if not vals:
        return None
    if t == "decimal":
        ds = [int(Decimal(v).scaleb(f["scale"])) for v in vals]
        lo, hi = min(ds), max(ds)
        if f["precision"] <= 18:
            return lo, hi
        n = len(decimal_bytes(Decimal(10 ** f["precision"] - 1), 0))
        return lo.to_bytes(n, "big", signed=True), hi.to_bytes(n, "big", signed=True)
    if t == "string":
        bs = [v.encode() for v in vals]
        lo, hi = min(bs), max(bs)
        if len(lo) > 64:
            lo = lo[:64].decode("utf-8", "ignore").encode()
        if len(hi) > 64:
            up = truncate_str_upper(hi[:64].decode("utf-8", "ignore"), 64)
            hi = None if up is None else up.encode()
        return lo, hi
    if t in ("binary", "fixed", "uuid"):
        bs = [bytes.fromhex(v[2:]) for v in vals]
        lo, hi = min(bs), max(bs)
        if t == "binary" and len(lo) > 64:
            lo = lo[:64]
        if t == "binary" and len(hi) > 64:
            hi = truncate_bytes_upper(hi, 64)
        return lo, hi
    return min(vals), max(vals)


def check_row_group_stats(pf, fields, columns):
    md = pf.metadata
    start = 0
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        end = start + rg.num_rows
        for i, f in enumerate(fields):
            st = rg.column(i).statistics
            values = columns[f["name"]][start:end]
            assert st is not None and st.has_null_count
            if f["type"] == "list":
                assert st.null_count == level_counts(f, values)[1]
                continue
            assert st.null_count == sum(1 for v in values if v is None)
            want = physical_stats(f, values)
            if want is None or want[1] is None:
                # No value, or a max that cannot be cut and incremented: pyarrow shows
                # min and max only together.
                assert not st.has_min_max, f["name"]
                continue
            assert st.has_min_max, f["name"]
            lo, hi = st.min_raw, st.max_raw
            if f["type"] in ("float", "double"):
                assert (struct.pack("<d", lo), struct.pack("<d", hi)) == \
                       (struct.pack("<d", want[0]), struct.pack("<d", want[1])), f["name"]
            else:
                assert (lo, hi) == want, f["name"]
        start = end


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("codec", list(CODECS))
def test_pyarrow_reads_what_floe_writes(tmp_path, case, codec):
    opts = ["--codec", codec]
    if case in ("types", "lists", "card", "floats"):
        # Many pages and row groups: small pages and row groups, a few thousand rows.
        opts += ["--rows", "3000", "--page-rows", "500", "--row-group-bytes", "60000"]
    path, exp = write_case(tmp_path, case, *opts)
    pf = pq.ParquetFile(path)
    fields, columns = exp["fields"], exp["columns"]
    check_arrow_schema(pf, fields)
    check_layout(path, pf)
    table = pf.read()
    for f in fields:
        assert canon(table.column(f["name"])) == expected_values(f, columns[f["name"]]), f["name"]
    for g in range(pf.metadata.num_row_groups):
        for c in range(pf.metadata.num_columns):
            assert pf.metadata.row_group(g).column(c).compression == CODECS[codec]
    check_row_group_stats(pf, fields, columns)
    check_iceberg_stats(path, pf, fields, columns, exp["stats"])


def zstd_pages(chunk):
    """The zstd frames of a column chunk's pages, in order: per frame, the literals block type of
    each compressed block (0 raw, 1 RLE, 2 Huffman, 3 Huffman with the last table) and "raw" or
    "rle" for a block stored whole — parsed by the zstd format spec (RFC 8878, 3.1), not by floe."""
    import zstandard
    pages, p = [], 0
    while p < len(chunk):
        f = chunk.find(b"\x28\xb5\x2f\xfd", p, p + 512)  # past the page's Thrift header
        assert f >= 0, p
        fhd = chunk[f + 4]
        single, dict_flag, fcs_flag = (fhd >> 5) & 1, fhd & 3, fhd >> 6
        at = f + 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag] + ((1 if single else 0), 2, 4, 8)[fcs_flag]
        kinds = []
        while True:
            b = int.from_bytes(chunk[at:at + 3], "little")
            last, btype, size = b & 1, (b >> 1) & 3, b >> 3
            kinds.append(chunk[at + 3] & 3 if btype == 2 else ("raw", "rle")[btype])
            at += 3 + (1 if btype == 1 else size)
            if last:
                break
        out = zstandard.ZstdDecompressor().decompressobj()
        out.decompress(chunk[f:])
        p = len(chunk) - len(out.unused_data)
        assert p == at + (4 if (fhd >> 2) & 1 else 0), (p, at)  # the frame ends where its blocks (and checksum) do
        pages.append(kinds)
    return pages


def test_random_ids_keep_their_literals_raw_after_a_page_zstd_barely_shrank(tmp_path):
    """A page of sorted random ids shrinks by ~2 % under zstd's entropy coding: the column's later
    pages keep their literals raw (they then decode at memory speed), a counter beside them stays
    entropy coded — and pyarrow, DuckDB and floe's own reader read every value back."""
    path, exp = write_case(tmp_path, "ids", "--codec", "zstd", "--rows", "80000", "--page-rows", "20000",
                           "--dict-bytes", "0")
    pf = pq.ParquetFile(path)
    raw = path.read_bytes()
    kinds = {}
    for c in range(pf.metadata.num_columns):
        col = pf.metadata.row_group(0).column(c)
        kinds[col.path_in_schema] = zstd_pages(raw[col.data_page_offset:col.data_page_offset + col.total_compressed_size])
    ids, counter = kinds["id"], kinds["n"]
    assert len(ids) == 4 and len(counter) == 4, kinds
    assert 2 in ids[0] or 3 in ids[0], ids  # the first page: entropy coded, and found wanting
    assert all(k in (0, 1, "raw", "rle") for page in ids[1:] for k in page), ids
    n = pf.metadata.row_group(0).column(1)
    assert all(2 in page or 0 in page for page in counter), counter  # compressed blocks, not stored
    assert n.total_compressed_size * 4 < n.total_uncompressed_size, n  # the counter still shrinks
    table = pf.read()
    for f in exp["fields"]:
        assert canon(table.column(f["name"])) == expected_values(f, exp["columns"][f["name"]]), f["name"]
    con = duckdb.connect()
    sel = ", ".join(duck_select(f) for f in exp["fields"])
    rows = con.sql(f"SELECT {sel} FROM read_parquet('{path}', file_row_number=true) ORDER BY file_row_number").fetchall()
    for i, f in enumerate(exp["fields"]):
        assert [duck_canon(f, r[i]) for r in rows] == expected_values(f, exp["columns"][f["name"]]), f["name"]
    assert run_fixture("dump", str(path))["columns"] == exp["columns"]


def test_row_groups_and_pages_are_bounded(tmp_path):
    target = 50000
    path, exp = write_case(tmp_path, "card", "--rows", "50000", "--row-group-bytes", str(target),
                           "--page-bytes", "8192", "--page-rows", "1000")
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups >= 5
    for g in range(md.num_row_groups - 1):
        # A row group closes once its buffered size reaches the target (plus one slice).
        size = sum(
            md.row_group(g).column(c).total_compressed_size for c in range(md.num_columns))
        assert target // 2 <= size < 2 * target, size
    assert exp["stats"]["split_offsets"] == sorted(exp["stats"]["split_offsets"])


def test_dictionary_is_kept_for_low_and_dropped_for_high_cardinality(tmp_path):
    path, _ = write_case(tmp_path, "card", "--rows", "20000")
    rg = pq.ParquetFile(path).metadata.row_group(0)
    low, high = rg.column(0), rg.column(1)
    assert low.has_dictionary_page and "RLE_DICTIONARY" in low.encodings
    assert not high.has_dictionary_page and "RLE_DICTIONARY" not in high.encodings
    # Without dictionaries at all:
    path2, _ = write_case(tmp_path, "card", "--rows", "20000", "--dict-bytes", "0")
    assert not any(pq.ParquetFile(path2).metadata.row_group(0).column(c).has_dictionary_page
                   for c in range(4))


def test_dictionary_falls_back_to_plain_when_it_grows(tmp_path):
    # 60 KiB dictionary limit, distinct values: the dictionary pages stop and PLAIN follows.
    path, exp = write_case(tmp_path, "types", "--rows", "20000", "--dict-bytes", "2000",
                           "--page-rows", "200")
    pf = pq.ParquetFile(path)
    col = pf.metadata.row_group(0).column(2)  # long: distinct values
    assert "PLAIN" in col.encodings
    table = pf.read()
    assert canon(table.column("l")) == exp["columns"]["l"]


# ---- the writer, read by DuckDB ----

def duck_select(field):
    n, t = f'"{field["name"]}"', field["type"]
    if t == "date":
        return f"{n} - DATE '1970-01-01'"
    if t in ("timestamp", "timestamptz"):
        return f"epoch_us({n})"
    if t == "list":
        et = field["element"]["type"]
        if et in ("timestamp", "timestamptz"):
            return f"list_transform({n}, x -> epoch_us(x))"
    return n


def duck_canon(field, v):
    t = field["type"]
    if v is None:
        return None
    if t == "list":
        return [duck_canon(field["element"], x) for x in v]
    if t == "float":
        return "f32:" + struct.pack(">f", v).hex()
    if t == "double":
        return "f64:" + struct.pack(">d", v).hex()
    if t == "time":
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond
    if t == "uuid":
        return "x:" + v.bytes.hex()
    if t in ("binary", "fixed"):
        return "x:" + bytes(v).hex()
    return v


def nan_equal(a, b):
    """Canonical lists equal, any NaN bit pattern equal to any other (DuckDB may canonicalise)."""
    def norm(x):
        if isinstance(x, list):
            return [norm(y) for y in x]
        if isinstance(x, str) and x.startswith("f32:") and math.isnan(f32(x)):
            return "f32:nan"
        if isinstance(x, str) and x.startswith("f64:") and math.isnan(f64(x)):
            return "f64:nan"
        return x
    return norm(a) == norm(b)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("codec", ["zstd", "snappy"])
def test_duckdb_reads_what_floe_writes(tmp_path, case, codec):
    path, exp = write_case(tmp_path, case, "--codec", codec, "--rows", "1500", "--page-rows", "300")
    fields, columns = exp["fields"], exp["columns"]
    con = duckdb.connect()
    sel = ", ".join(duck_select(f) for f in fields)
    rows = con.sql(f"SELECT {sel} FROM read_parquet('{path}', file_row_number=true) "
                   "ORDER BY file_row_number").fetchall()
    for i, f in enumerate(fields):
        got = [duck_canon(f, r[i]) for r in rows]
        assert nan_equal(got, expected_values(f, columns[f["name"]])), f["name"]
    ids = dict(con.sql(f"SELECT name, field_id FROM parquet_schema('{path}')").fetchall())
    for f in fields:
        assert ids[f["name"]] == f["id"]
        if f["type"] == "list":
            assert ids["element"] is not None
    nulls = con.sql(f"SELECT path_in_schema, sum(stats_null_count) FROM parquet_metadata('{path}') "
                    "GROUP BY ALL").fetchall()
    for name, n in nulls:
        top = name.split(",")[0].strip()
        f = next(f for f in fields if f["name"] == top)
        assert n == level_counts(f, columns[top])[1], name


def test_duckdb_uses_the_statistics(tmp_path):
    path, exp = write_case(tmp_path, "types", "--rows", "3000", "--row-group-bytes", "30000")
    con = duckdb.connect()
    meta = con.sql(f"SELECT path_in_schema, stats_min_value, stats_max_value FROM "
                   f"parquet_metadata('{path}') WHERE path_in_schema = 'i'").fetchall()
    assert len(meta) > 1
    vals = [v for v in exp["columns"]["i"] if v is not None]
    assert min(int(m[1]) for m in meta) == min(vals)
    assert max(int(m[2]) for m in meta) == max(vals)
    # Filters prune row groups by statistics and still return the right rows.
    want = sum(1 for v in vals if v > 900000)
    assert con.sql(f"SELECT count(*) FROM read_parquet('{path}') WHERE i > 900000").fetchone()[0] == want


# ---- floe's reader, on files pyarrow and DuckDB wrote ----

def arrow_table(rows=3000):
    import random
    rnd = random.Random(7)

    def maybe(v, i):
        return None if i % 11 == 5 else v

    data = {
        "b": pa.array([maybe(i % 3 == 0, i) for i in range(rows)], pa.bool_()),
        "i8": pa.array([maybe(rnd.randint(-128, 127), i) for i in range(rows)], pa.int8()),
        "i32": pa.array([maybe(rnd.randint(-2**31, 2**31 - 1), i) for i in range(rows)], pa.int32()),
        "i64": pa.array([maybe(rnd.randint(-2**63, 2**63 - 1), i) for i in range(rows)], pa.int64()),
        "f": pa.array([maybe(rnd.random() * 100, i) for i in range(rows)], pa.float32()),
        "d": pa.array([maybe(rnd.random() * 1e6, i) for i in range(rows)], pa.float64()),
        "dec9": pa.array([maybe(Decimal(rnd.randint(-10**9 + 1, 10**9 - 1)).scaleb(-2), i)
                          for i in range(rows)], pa.decimal128(9, 2)),
        "dec38": pa.array([maybe(Decimal(rnd.randint(-10**38 + 1, 10**38 - 1)).scaleb(-10), i)
                           for i in range(rows)], pa.decimal128(38, 10)),
        "dt": pa.array([maybe(rnd.randint(-100000, 100000), i) for i in range(rows)], pa.int32()).cast(pa.date32()),
        "tm": pa.array([maybe(rnd.randint(0, 86399999999), i) for i in range(rows)], pa.int64()).cast(pa.time64("us")),
        "ts": pa.array([maybe(rnd.randint(-2**50, 2**50), i) for i in range(rows)], pa.int64()).cast(pa.timestamp("us")),
        "tsms": pa.array([maybe(rnd.randint(-2**40, 2**40), i) for i in range(rows)], pa.int64()).cast(pa.timestamp("ms", tz="UTC")),
        "s": pa.array([maybe(rnd.choice(["a", "bé", "", "Σ" * 20, "x" * 100]), i) for i in range(rows)]),
        "s_uniq": pa.array([maybe(f"row-{i}-{rnd.random()}", i) for i in range(rows)]),
        "bin": pa.array([maybe(bytes(rnd.randrange(256) for _ in range(i % 9)), i) for i in range(rows)], pa.binary()),
        "fx": pa.array([maybe(bytes(rnd.randrange(256) for _ in range(5)), i) for i in range(rows)], pa.binary(5)),
        "li": pa.array([None if i % 13 == 1 else [maybe(j, j + i) for j in range(i % 5)] for i in range(rows)],
                       pa.list_(pa.int32())),
        "ls": pa.array([None if i % 17 == 1 else [f"v{j}" for j in range(i % 4)] for i in range(rows)],
                       pa.list_(pa.string())),
    }
    return pa.table(data)


@pytest.mark.parametrize("compression", ["zstd", "snappy", "none"])
@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
def test_floe_reads_what_pyarrow_writes(tmp_path, compression, dictionary, page_version):
    table = arrow_table()
    path = tmp_path / "arrow.parquet"
    pq.write_table(table, path, compression=compression, use_dictionary=dictionary,
                   data_page_version=page_version, data_page_size=4096, row_group_size=1000)
    got = run_fixture("dump", str(path))
    assert got["num_rows"] == table.num_rows
    assert len(got["row_groups"]) == 3
    cols = got["columns"]
    for name in table.column_names:
        key = name if name in cols else f"{name}.list.element"
        want = canon(table.column(name))
        if pa.types.is_decimal(table.schema.field(name).type):
            assert [None if v is None else Decimal(v) for v in cols[key]] == want, name
        else:
            assert cols[key] == want, name
    # Iceberg metrics from the footer match the values.
    by_path = {leaf["path"]: i for i, leaf in enumerate(got["leaves"])}
    for name, typ in (("i32", "int"), ("i64", "long"), ("s", "string"), ("s_uniq", "string")):
        cs = got["stats"]["columns"][by_path[name]]
        values = cols[name]
        assert cs["null_count"] == sum(1 for v in values if v is None)
        assert (cs["lower"], cs["upper"]) == iceberg_bounds({"type": typ}, values), name


@pytest.mark.parametrize("compression", ["zstd", "snappy", "uncompressed"])
def test_floe_reads_what_duckdb_writes(tmp_path, compression):
    path = tmp_path / "duck.parquet"
    con = duckdb.connect()
    con.execute(f"""
        COPY (SELECT i::BIGINT AS id,
                     CASE WHEN i % 7 = 3 THEN NULL ELSE (i * 37) % 1000 END::INTEGER AS n,
                     (i / 3.0)::DOUBLE AS d,
                     CASE WHEN i % 5 = 0 THEN NULL ELSE 'name-' || (i % 50) END AS s,
                     (i * 1234567)::DECIMAL(18, 3) AS dec,
                     (i * 987654321)::DECIMAL(38, 4) AS dec38,
                     i % 2 = 0 AS b,
                     DATE '2020-01-01' + (i % 1000)::INTEGER AS dt,
                     TIMESTAMP '2020-01-01' + to_microseconds(i * 1000) AS ts,
                     [i, i + 1] AS li
              FROM range(20000) t(i))
        TO '{path}' (FORMAT parquet, COMPRESSION {compression}, ROW_GROUP_SIZE 8000)""")
    got = run_fixture("dump", str(path))
    assert got["num_rows"] == 20000
    table = pq.read_table(path)
    cols = got["columns"]
    for name in table.column_names:
        key = name if name in cols else f"{name}.list.element"
        want = canon(table.column(name))
        if pa.types.is_decimal(table.schema.field(name).type):
            assert [None if v is None else Decimal(v) for v in cols[key]] == want, name
        else:
            assert cols[key] == want, name


def test_floe_reader_refuses_a_truncated_file(tmp_path):
    path, _ = write_case(tmp_path, "types")
    data = path.read_bytes()
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(data[: len(data) // 2] + data[-8:])
    proc = subprocess.run([FIXTURE, "dump", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "malformed" in proc.stderr or "footer" in proc.stderr, proc.stderr
