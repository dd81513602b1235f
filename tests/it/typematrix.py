"""The type matrix: one table with a column of (nearly) every type floe carries, values at the
edges of each (NaN, ±Infinity, the largest numeric(38,0), an unconstrained numeric with 21
fractional digits, microsecond timestamps, empty and NULL arrays), under hostile names (a
schema with a space, a table name with quotes and non-ASCII letters, a column named `select`).

Shared by the tests that load it (test_bronze.py) and the ones that prove the load
(test_reconcile.py)."""

SCHEMA = "Odd Schema"
TABLE = 'Select "Me" ünï'
BRONZE = 'bronze.Odd Schema__Select "Me" ünï'

SQL = '''
CREATE SCHEMA "Odd Schema";
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN positive AS integer CHECK (VALUE > 0);
CREATE TABLE "Odd Schema"."Select ""Me"" ünï" (
    "id" integer PRIMARY KEY,
    "Mixed Case" text,
    "select" boolean,
    i2 smallint, i8 bigint, f4 real, f8 double precision,
    n numeric(12,3), n38 numeric(38,0), nu numeric, m money,
    d date, t time, tt timetz, ts timestamp, tz timestamptz, iv interval,
    u uuid, b bytea, c char(3), vc varchar(10), j jsonb, js json, x xml,
    ip inet, mac macaddr, bits bit varying(8), pt point, rng int4range,
    e mood, dom positive,
    ai integer[], at text[], an numeric(6,2)[]
);
INSERT INTO "Odd Schema"."Select ""Me"" ünï" VALUES
 (1, 'ünï ☃', true, -32768, 9223372036854775807, 1.5, -0.1, 123456789.123,
  99999999999999999999999999999999999999, 1.000000000000000000001, 12.34,
  '2024-02-29', '23:59:59.999999', '10:00+05:30', '1970-01-01 00:00:00',
  '2000-01-01 12:00:00.123456+02', '1 year 2 mons 3 days 04:05:06.7',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', 'ab', 'x', '{"b": [1, 2], "a": null}',
  '{"b":1,  "a":2}', '<a>1</a>', '192.168.0.1/24', '08:00:2b:01:02:03', B'101', '(1.5,-2)',
  '[1,10)', 'happy', 7, '{1,NULL,3}', '{"a","",NULL}', '{1.25,NULL}'),
 (2, '', false, 0, 0, 'NaN', '-Infinity', -0.001, -1, 0, -0.01, '0001-01-01', '00:00', '00:00-12',
  '1677-09-21 00:12:43.145225', '9999-12-31 23:59:59.999999+00', '-1 day', '00000000-0000-0000-0000-000000000000',
  '\\x', '', '', '[]', 'null', '<b/>', '::1', 'ff:ff:ff:ff:ff:ff', B'', '(0,0)', 'empty', 'sad', 1,
  '{}', '{}', '{}'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
'''
