"""Composite (row) types at every depth: nested composites, arrays inside them, arrays of them,
enums and domains inside (which the extraction rebuilds as anonymous ROW(...)s), NULL records
apart from records of NULLs, doubles inside records.

Shared by the test that loads them (test_bronze_composite.py) and the one that proves the load
(test_reconcile_composite.py)."""

SOURCE = '''
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN positive AS integer CHECK (VALUE > 0);
CREATE TYPE addr AS (street text, zip int, tags text[]);
CREATE TYPE geo AS (lat double precision, lon double precision);
CREATE TYPE place AS (name varchar(20), at addr, pos geo, since timestamptz, price numeric(10,2),
                      id uuid, raw bytea, day date, ok boolean, big bigint, small smallint);
CREATE TYPE tagged AS (label mood, score positive, note jsonb, n numeric, pts int[]);
CREATE TYPE wrapper AS (inner_t tagged, k smallint, g geo);
CREATE TABLE public.comp (
    id integer PRIMARY KEY,
    home addr,
    p place,
    t tagged,
    w wrapper,
    homes addr[],
    geos geo[]
);
INSERT INTO public.comp VALUES
 (1, ROW('Main St ☃', 12345, ARRAY['a', NULL, '']),
     ROW('Café', ROW('Elm', -1, '{}'), ROW(1.5, -0.25), '2000-01-01 12:00:00.123456+02', -12.34,
         'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', '2024-02-29', true, 9223372036854775807, -32768),
     ROW('happy', 7, '{"b": [1, 2], "a": null}', 1.000000000000000000001, ARRAY[1, NULL, 3]),
     ROW(ROW('ok', 1, 'null', 'NaN', '{}'), 5, ROW(0, 0)),
     ARRAY[ROW('A', 1, ARRAY['x'])::addr, NULL, ROW(NULL, NULL, NULL)::addr, ROW('B', 2, '{}')::addr],
     ARRAY[ROW(1, 2)::geo, ROW(NULL, 3)::geo]),
 (2, NULL, NULL, NULL, NULL, NULL, NULL),
 (3, ROW(NULL, NULL, NULL), ROW(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
     ROW(NULL, NULL, NULL, NULL, NULL), ROW(NULL, NULL, NULL), '{}', ARRAY[NULL]::geo[]),
 (4, ROW('', 0, NULL), ROW(NULL, NULL, ROW(NULL, NULL), NULL, 0, NULL, '\\x', NULL, false, 0, 0),
     ROW('sad', NULL, '[]', '-1e-5', '{}'), ROW(NULL, NULL, NULL), ARRAY[NULL]::addr[], '{}');
INSERT INTO public.comp
SELECT g,
       CASE WHEN g % 7 = 0 THEN NULL
            ELSE ROW('street ' || g, g, CASE WHEN g % 3 = 0 THEN NULL ELSE ARRAY['t' || g, NULL] END)::addr END,
       CASE WHEN g % 5 = 0 THEN NULL
            ELSE ROW('n' || (g % 100), ROW(NULL, g, NULL)::addr, CASE WHEN g % 2 = 0 THEN ROW(g, -g)::geo END,
                     timestamptz '2020-01-01' + g * interval '1 minute', g / 100.0,
                     NULL, int4send(g), date '2020-01-01' + g, g % 2 = 0, g * 1000000000000, g % 1000)::place END,
       CASE WHEN g % 4 = 0 THEN NULL ELSE ROW((ARRAY['sad','ok','happy'])[1 + g % 3]::mood, 1 + g % 9,
                                           ('{"g": ' || g || '}')::jsonb, g::numeric / 7, ARRAY[g, NULL])::tagged END,
       ROW(NULL, g % 100, ROW(g, g)::geo)::wrapper,
       CASE WHEN g % 6 = 0 THEN NULL ELSE ARRAY[ROW('h' || g, g, ARRAY['u'])::addr, NULL] END,
       ARRAY[ROW(g, NULL)::geo]
FROM generate_series(10, 25009) g;
CREATE TABLE public.refused_array (id int PRIMARY KEY, ts tagged[]);
'''
