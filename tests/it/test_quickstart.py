"""docs/quickstart.md cannot rot: every fenced `sh` block runs, in order and verbatim, in one bash
session (from the top of this tree, with a fresh HOME), and each `text` block right after one lists
lines that block's output must contain (`…` stands for anything).

`make install` in the first block installs this tree's build, so the test runs in the
non-sanitized pass only (.ci/run's SAN_SKIP)."""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "docs" / "quickstart.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)


def blocks():
    """[(sh text, [expected lines])] in the document's order."""
    out = []
    for m in FENCE.finditer(QUICKSTART.read_text()):
        lang, body = m.group(1), m.group(2)
        if lang == "sh":
            out.append((body, []))
        elif lang == "text" and out and not out[-1][1]:
            out[-1] = (out[-1][0], [line for line in body.splitlines() if line.strip()])
    return out


def matches(expected, output):
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.search(pattern, output) is not None


def server_log_tail(home, lines=40):
    """The end of the quickstart stack's PostgreSQL log: why a block could not reach it."""
    log = home / "shop-lake" / ".floe" / "pg" / "postgresql.log"
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError as e:
        return f"(none: {e.strerror})"


def test_the_parser_finds_the_blocks_and_their_expectations():
    found = blocks()
    assert len(found) >= 6
    assert found[0][0].startswith("make install")
    assert all(expect for _, expect in found[:-1]), "every block but the last says what it prints"
    assert matches("floe … (DuckDB v…)", "floe 0.1.0 (DuckDB v1.5.5)")
    assert not matches("floe … (DuckDB v…)", "floe 0.1.0")


def test_every_block_of_the_quickstart_runs_verbatim_in_order():
    home = Path(tempfile.mkdtemp(prefix="floe-it-qs-"))
    home.chmod(0o755)  # the postgres OS user reaches the stack under it (we may be root)
    work = home / "run"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "FLOE_SOURCE_PASSWORD", "PGHOST", "PGPORT",
                        "PGDATABASE", "PGUSER")}
    env["HOME"] = str(home)
    script = ["set -euo pipefail"]
    for i, (text, _) in enumerate(blocks()):
        script.append(f"{{\n{text}}} > {work}/block{i}.out 2>&1")
        script.append(f"echo {i} > {work}/done")
    try:
        proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=900)
        done = int((work / "done").read_text()) if (work / "done").exists() else -1
        for i, (text, expected) in enumerate(blocks()):
            out = (work / f"block{i}.out").read_text() if (work / f"block{i}.out").exists() else ""
            assert i <= done, (f"block {i} failed (rc {proc.returncode}):\n{text}\n--- its output:\n{out}"
                               f"\n--- the stack's server log, last lines:\n{server_log_tail(home)}")
            for line in expected:
                assert matches(line, out), f"block {i} did not print {line!r}:\n{text}\n--- its output:\n{out}"
        assert proc.returncode == 0, proc.stderr
    finally:
        floe = home / ".local" / "bin" / "floe"
        if floe.exists():
            subprocess.run([str(floe), "-C", str(home / "shop-lake"), "stack", "down"], capture_output=True)
        subprocess.run(["pkill", "-f", "floe serve --listen 127.0.0.1:8470"], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)
