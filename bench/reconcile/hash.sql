-- bench/reconcile/hash.sql — one query per line: "label|SQL" over hash_bench (run.sh makes it).
-- canon is the canonical row text floe builds for these five columns (docs/reconcile.md).
count(*)|SELECT count(*) FROM hash_bench
hashtextextended, one text column|SELECT sum(hashtextextended(name, 0)) FROM hash_bench
md5 → 64 bits, one text column|SELECT sum(('x' || left(md5(name), 16))::bit(64)::bigint) FROM hash_bench
canonical row text only|SELECT sum(octet_length(coalesce(id::text, 'N') || '|' || coalesce(octet_length(name)::text || ':' || name, 'N') || '|' || coalesce(round(amount, 2)::text, 'N') || '|' || coalesce(encode(timestamptz_send(ts), 'hex'), 'N') || '|' || coalesce(CASE WHEN flag THEN 't' WHEN NOT flag THEN 'f' END, 'N'))) FROM hash_bench
hashtextextended of the row|SELECT sum(hashtextextended(coalesce(id::text, 'N') || '|' || coalesce(octet_length(name)::text || ':' || name, 'N') || '|' || coalesce(round(amount, 2)::text, 'N') || '|' || coalesce(encode(timestamptz_send(ts), 'hex'), 'N') || '|' || coalesce(CASE WHEN flag THEN 't' WHEN NOT flag THEN 'f' END, 'N'), 0)) FROM hash_bench
md5 → 64 bits of the row|SELECT sum(('x' || left(md5(coalesce(id::text, 'N') || '|' || coalesce(octet_length(name)::text || ':' || name, 'N') || '|' || coalesce(round(amount, 2)::text, 'N') || '|' || coalesce(encode(timestamptz_send(ts), 'hex'), 'N') || '|' || coalesce(CASE WHEN flag THEN 't' WHEN NOT flag THEN 'f' END, 'N')), 16))::bit(64)::bigint) FROM hash_bench
timestamptz as extract(epoch) µs|SELECT sum(hashtextextended((extract(epoch FROM ts) * 1000000)::int8::text, 0)) FROM hash_bench
timestamptz as binary hex|SELECT sum(hashtextextended(encode(timestamptz_send(ts), 'hex'), 0)) FROM hash_bench
