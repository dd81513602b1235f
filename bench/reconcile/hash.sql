-- bench/reconcile/hash.sql — one query per line: "label|SQL" over hash_bench (run.sh makes it).
-- canon is the canonical row text floe hashed for these five columns before typed hashes; the last
-- query is the row hash floe's V3 computes now (docs/reconcile.md).
count(*)|SELECT count(*) FROM hash_bench
hashtextextended, one text column|SELECT sum(hashtextextended(name, 0)) FROM hash_bench
md5 → 64 bits, one text column|SELECT sum(('x' || left(md5(name), 16))::bit(64)::bigint) FROM hash_bench
canonical row text only|SELECT sum(octet_length(coalesce(id::text, 'N') || '|' || coalesce(octet_length(name)::text || ':' || name, 'N') || '|' || coalesce(round(amount, 2)::text, 'N') || '|' || coalesce(encode(timestamptz_send(ts), 'hex'), 'N') || '|' || coalesce(CASE WHEN flag THEN 't' WHEN NOT flag THEN 'f' END, 'N'))) FROM hash_bench
hashtextextended of the row|SELECT sum(hashtextextended(coalesce(id::text, 'N') || '|' || coalesce(octet_length(name)::text || ':' || name, 'N') || '|' || coalesce(round(amount, 2)::text, 'N') || '|' || coalesce(encode(timestamptz_send(ts), 'hex'), 'N') || '|' || coalesce(CASE WHEN flag THEN 't' WHEN NOT flag THEN 'f' END, 'N'), 0)) FROM hash_bench
md5 → 64 bits of the row|SELECT sum(('x' || left(md5(coalesce(id::text, 'N') || '|' || coalesce(octet_length(name)::text || ':' || name, 'N') || '|' || coalesce(round(amount, 2)::text, 'N') || '|' || coalesce(encode(timestamptz_send(ts), 'hex'), 'N') || '|' || coalesce(CASE WHEN flag THEN 't' WHEN NOT flag THEN 'f' END, 'N')), 16))::bit(64)::bigint) FROM hash_bench
timestamptz as extract(epoch) µs|SELECT sum(hashtextextended((extract(epoch FROM ts) * 1000000)::int8::text, 0)) FROM hash_bench
timestamptz as binary hex|SELECT sum(hashtextextended(encode(timestamptz_send(ts), 'hex'), 0)) FROM hash_bench
bigint as text, hashed|SELECT sum(hashtextextended(id::text, 0)) FROM hash_bench
bigint: hashint8extended (folded) and its high word|SELECT sum(hashint8extended(id, 0) # hashint4extended((id >> 32)::int4, -1)) FROM hash_bench
numeric as text, hashed|SELECT sum(hashtextextended(amount::numeric(12,2)::text, 0)) FROM hash_bench
numeric: hash_numeric_extended and its sign|SELECT sum(hash_numeric_extended(amount, 0) # CASE WHEN amount < 0 THEN 1 ELSE 0 END) FROM hash_bench
timestamptz: hash_record_extended of its binary form|SELECT sum(hash_record_extended(ROW(timestamptz_send(ts)), 0)) FROM hash_bench
row: hash_record_extended of the columns|SELECT sum(hash_record_extended(ROW(id, name, amount, ts, flag), 0)) FROM hash_bench
row: typed hashes XORed and mixed (floe's V3)|SELECT sum(hashint4extended(0, coalesce(hashint8extended(id, 11) # hashint4extended((id >> 32)::int4, -12), 1) # coalesce(hashtextextended(name COLLATE "C", 13), 2) # coalesce(hashtextextended(amount::numeric(12,2)::text, 14), 3) # coalesce(hashtextextended(encode(timestamptz_send(ts), 'hex'), 15), 4) # coalesce(hashint4extended(flag::int4, 16), 5))) FROM hash_bench
