"""`floe sync` with `[git] remote = "origin"`: a local bare repository stands in for the forge.
New change branches are pushed (never forced); `gh pr create` is called when gh is on PATH (a
stub records its exact arguments), else status says to open the request by hand; a merge done
in another clone of the bare repository resumes the table on the next `floe run`; a main
diverged from the remote's is an error naming both commits."""
import json
import os
import subprocess
import sys

import pytest

from lakecheck import assert_equals_source, catalog, lock_table
from sourcedb import TOUCH, Source

SOURCE = TOUCH + '''
CREATE TABLE public.orders (id int PRIMARY KEY, status text NOT NULL, total numeric(10,2),
                            updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.orders FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.orders SELECT g, 's' || (g % 4), g / 7.0, now() - g * interval '1 minute'
    FROM generate_series(1, 300) g;
CREATE TABLE public.customers (id int PRIMARY KEY, name text, city text);
INSERT INTO public.customers SELECT g, 'n' || g, 'c' || g FROM generate_series(1, 60) g;
'''

GIT_ENV = {"GIT_AUTHOR_NAME": "reviewer", "GIT_AUTHOR_EMAIL": "reviewer@example.com",
           "GIT_COMMITTER_NAME": "reviewer", "GIT_COMMITTER_EMAIL": "reviewer@example.com"}

GH_STUB = '''#!{python}
import json, sys
with open({log!r}, "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
print("https://forge.invalid/shop/pipeline/pull/7")
'''


def git(cwd, *args, check=True):
    r = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, env=dict(os.environ, **GIT_ENV))
    assert not check or r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.fixture(scope="module")
def remote(stack, tmp_path_factory):
    base = tmp_path_factory.mktemp("sync_remote")
    src = Source.readable(stack, "sync_remote_it", "sync_remote_reader", SOURCE)
    d = base / "proj"
    d.mkdir()
    src.project(d, extra='\n[git]\nremote = "origin"\n')
    src.floe(d, "generate", check=0)
    bare = base / "forge.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(d / "pipeline", "remote", "add", "origin", str(bare))
    git(d / "pipeline", "push", "-q", "origin", "main")
    other = base / "other"
    subprocess.run(["git", "clone", "-q", str(bare), str(other)], check=True)
    first = json.loads(src.floe(d, "run", "--json", check=0).out)
    assert all(t["state"] == "loaded" for t in first["tables"]), first
    stub = base / "bin"
    stub.mkdir()
    log = base / "gh.log"
    (stub / "gh").write_text(GH_STUB.format(python=sys.executable, log=str(log)))
    (stub / "gh").chmod(0o755)
    return {"src": src, "d": d, "bare": bare, "other": other, "stub": stub, "log": log}


def sync(r, *args, env=None, check=0):
    return json.loads(r["src"].floe(r["d"], "sync", "--json", *args, env=env, check=check).out)


def no_gh_path():
    return ":".join(p for p in os.environ["PATH"].split(":") if not os.path.exists(os.path.join(p, "gh")))


def test_a_branch_is_pushed_and_a_merge_in_another_clone_resumes_the_table(remote):
    r, src, d = remote, remote["src"], remote["d"]
    old = {c["name"]: c["id"] for c in lock_table(d, "bronze.orders")["columns"]}
    src.admin("ALTER TABLE public.orders RENAME COLUMN status TO order_status")
    out = sync(r, env={"PATH": no_gh_path()})
    t = next(x for x in out["tables"] if x["table"] == "public.orders")
    branch = t["branch"]
    assert t["pull_request"].startswith("open one by hand: gh is not installed"), t
    assert branch in git(r["bare"], "branch", "--list", "floe/change/*")  # pushed
    status = {x["table"]: x for x in json.loads(src.floe(d, "status", "--json", check=0).out)["tables"]}
    assert status["bronze.orders"]["state"] == "paused" and "open one by hand" in status["bronze.orders"]["facts"]

    # the approval, on the forge: a merge in another clone, pushed to its main
    git(r["other"], "fetch", "-q", "origin")
    git(r["other"], "merge", "-q", "--no-ff", "-m", "approve", f"origin/{branch}")
    git(r["other"], "push", "-q", "origin", "main")

    runs = json.loads(src.floe(d, "run", "--json", env={"PATH": no_gh_path()}, check=0).out)
    orders = next(x for x in runs["tables"] if x["source"] == "public.orders")
    assert orders["state"] == "loaded" and orders["check"] == "verified", orders
    # silver follows the rename too: the incremental build keeps the rows of the files it rewrites,
    # read by field id (their files still say "status")
    silver = next(x for x in runs["silver"] if x["table"] == "silver.orders")
    assert silver["state"] == "built", silver
    names = [f.name for f in catalog(d).load_table("silver.orders").schema().fields]
    assert "order_status" in names and "status" not in names
    assert git(d / "pipeline", "rev-parse", "HEAD") == git(r["bare"], "rev-parse", "main")  # fast-forwarded
    ids = {c["name"]: c["id"] for c in lock_table(d, "bronze.orders")["columns"]}
    assert ids["order_status"] == old["status"]
    assert {f.name: f.field_id for f in catalog(d).load_table("bronze.orders").schema().fields} == ids
    assert_equals_source(src, d, "bronze.orders")


def test_gh_opens_a_pull_request_with_the_proposal_as_its_body(remote):
    r, src, d = remote, remote["src"], remote["d"]
    src.admin("ALTER TABLE public.customers DROP COLUMN city")
    out = sync(r, env={"PATH": f"{r['stub']}:{os.environ['PATH']}"})
    t = next(x for x in out["tables"] if x["table"] == "public.customers")
    assert t["pull_request"] == "opened https://forge.invalid/shop/pipeline/pull/7", t
    calls = [json.loads(line) for line in r["log"].read_text().splitlines()]
    assert len(calls) == 1
    body = git(d / "pipeline", "show", f"{t['branch']}:proposals/{t['id']}.md")
    assert calls[0] == ["pr", "create", "--base", "main", "--head", t["branch"], "--title",
                        "floe: column city dropped (field id 3 retired) (public.customers)", "--body", body + "\n"]
    # nothing new: no second request, no second branch
    sync(r, env={"PATH": f"{r['stub']}:{os.environ['PATH']}"})
    assert len(r["log"].read_text().splitlines()) == 1


def test_a_diverged_main_is_an_error_naming_both_commits(remote):
    r, d = remote, remote["d"]
    (r["other"] / "NOTES.md").write_text("theirs\n")
    git(r["other"], "add", "NOTES.md")
    git(r["other"], "commit", "-q", "-m", "theirs")
    git(r["other"], "push", "-q", "origin", "main")
    (d / "pipeline" / "MINE.md").write_text("mine\n")
    git(d / "pipeline", "add", "MINE.md")
    git(d / "pipeline", "commit", "-q", "-m", "mine")
    ours, theirs = git(d / "pipeline", "rev-parse", "HEAD"), git(r["other"], "rev-parse", "HEAD")
    res = r["src"].floe(d, "sync", check=None)
    assert res.rc != 0 and "have diverged" in res.err, res
    assert ours[:12] in res.err and theirs[:12] in res.err, res.err
    assert git(r["bare"], "rev-parse", "main") == theirs  # nothing forced
