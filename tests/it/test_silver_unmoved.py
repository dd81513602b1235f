"""A relationships test runs again when its parent moved, even over a child whose bronze did not
(docs/silver.md, "What a build skips"): a child loaded incrementally by its watermark, with no
change, keeps its bronze snapshot; its parent deletes a key the child's rows hold. The child is
not `unchanged`: it is built with no changed key, its narrowed test reads the kept rows of the lost
key, and it fails with every orphan counted, its published snapshot kept."""

from lakecheck import query_rows, run_layers, snapshot_id, table_rows
from sourcedb import TOUCH, Source

SQL = TOUCH + '''
CREATE TABLE public.tags (tag text PRIMARY KEY, label text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
INSERT INTO public.tags VALUES ('a', 'one'), ('b', 'two'), ('c', 'three');
CREATE TABLE public.items (item_id int PRIMARY KEY, tag text REFERENCES tags, qty int NOT NULL,
                           updated_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER touch BEFORE UPDATE ON public.tags FOR EACH ROW EXECUTE FUNCTION touch();
CREATE TRIGGER touch BEFORE UPDATE ON public.items FOR EACH ROW EXECUTE FUNCTION touch();
INSERT INTO public.items SELECT g, (ARRAY['a','b','c'])[1 + g % 3], g, now() - interval '1 day'
    FROM generate_series(1, 60) g;
'''


run = run_layers
snapshot = snapshot_id


def test_a_parent_losing_keys_tests_a_child_whose_bronze_stood_still(stack, tmp_path):
    src = Source.readable(stack, "silver_unmoved", "silver_unmoved_reader", SQL)
    d = tmp_path
    src.project(d)
    src.floe(d, "generate", check=0)
    r, bronze, silver = run(src, d)
    assert r.rc == 0 and bronze["bronze.items"]["mode"] == "incremental", r.out + r.err
    assert silver["silver.items"]["state"] == "built", silver
    r, bronze, silver = run(src, d)  # nothing moved: nothing to build or test
    assert r.rc == 0 and silver["silver.items"]["state"] == "unchanged", silver
    items_bronze, items_silver = snapshot(d, "bronze.items"), snapshot(d, "silver.items")
    src.admin("SET session_replication_role = replica; DELETE FROM tags WHERE tag = 'c'")  # under 20 items
    r, bronze, silver = run(src, d)
    assert snapshot(d, "bronze.items") == items_bronze  # the child's bronze stood still
    assert silver["silver.tags"]["state"] == "built", silver["silver.tags"]
    i = silver["silver.items"]
    assert r.rc == 1 and i["state"] == "failed" and i["changed_keys"] == 0, i
    assert "failed: 20 rows" in i["error"], i
    assert snapshot(d, "silver.items") == items_silver
    src.admin("INSERT INTO tags VALUES ('c', 'three again')")  # put right: the child passes again
    r, bronze, silver = run(src, d)
    assert r.rc == 0 and silver["silver.items"]["state"] == "built", silver["silver.items"]
    assert table_rows(d, "silver.items") == query_rows(src, "select item_id, tag, qty, updated_at from items")
