/*
 * test_pgoutput.c — the pgoutput decoder on messages built byte by byte as PostgreSQL's
 * "Logical Replication Message Formats" chapter lays them out: every message kind of
 * protocol versions 1 to 4, streamed changes carrying their xid, and malformed input
 * (truncated, trailing bytes, unknown kinds) refused.
 */
#include "harness.h"
#include "base/buf.h"
#include "base/error.h"
#include "cdc/pgoutput.h"

#include <string.h>

static void be(floe_buf *b, uint64_t v, int len)
{
	for (int i = len - 1; i >= 0; i--)
		floe_buf_putc(b, (char)(v >> (8 * i) & 0xff));
}

static void cstr(floe_buf *b, const char *s)
{
	floe_buf_put(b, s, strlen(s) + 1);
}

static void text_value(floe_buf *b, const char *s)
{
	floe_buf_putc(b, 't');
	be(b, strlen(s), 4);
	floe_buf_puts(b, s);
}

static int decode(floe_cdc_msg *m, floe_cdc_decoder *d, const floe_buf *b)
{
	floe_error_clear();
	return floe_cdc_decode(m, d, (const uint8_t *)b->ptr, b->len);
}

FLOE_TEST(pgoutput_begin_commit)
{
	floe_cdc_decoder d = FLOE_CDC_DECODER_INIT(1);
	floe_cdc_msg m;
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_putc(&b, 'B'), be(&b, 0x16B3748, 8), be(&b, 123456, 8), be(&b, 742, 4);
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_BEGIN && m.lsn == 0x16B3748 && m.time == 123456 && m.xid == 742);
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'C'), be(&b, 0, 1), be(&b, 0x100000010ull, 8), be(&b, 0x100000040ull, 8), be(&b, 9, 8);
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_COMMIT && m.lsn == 0x100000010ull && m.end_lsn == 0x100000040ull && m.time == 9);
	floe_buf_putc(&b, 0); /* trailing byte */
	FLOE_CHECK(decode(&m, &d, &b) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "trailing") != NULL);
	floe_buf_free(&b);
	floe_cdc_decoder_free(&d);
}

static void relation_msg(floe_buf *b)
{
	floe_buf_putc(b, 'R'), be(b, 16384, 4), cstr(b, "public"), cstr(b, "orders"), floe_buf_putc(b, 'd');
	be(b, 2, 2);
	be(b, 1, 1), cstr(b, "id"), be(b, 20, 4), be(b, (uint32_t)-1, 4);
	be(b, 0, 1), cstr(b, "status"), be(b, 25, 4), be(b, (uint32_t)-1, 4);
}

FLOE_TEST(pgoutput_relation_and_changes)
{
	floe_cdc_decoder d = FLOE_CDC_DECODER_INIT(1);
	floe_cdc_msg m;
	floe_buf b = FLOE_BUF_INIT;
	relation_msg(&b);
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_RELATION && m.relid == 16384 && m.n_columns == 2 && m.replident == 'd');
	FLOE_CHECK_STR(m.nspname, "public");
	FLOE_CHECK_STR(m.relname, "orders");
	FLOE_CHECK(m.columns[0].key && !m.columns[1].key && m.columns[1].type == 25 && m.columns[1].typmod == -1);
	FLOE_CHECK_STR(m.columns[1].name, "status");

	floe_buf_clear(&b); /* insert (42, NULL) */
	floe_buf_putc(&b, 'I'), be(&b, 16384, 4), floe_buf_putc(&b, 'N'), be(&b, 2, 2);
	text_value(&b, "42"), floe_buf_putc(&b, 'n');
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_INSERT && m.new_tuple.n == 2 && m.new_tuple.values[0].kind == 't');
	FLOE_CHECK(m.new_tuple.values[0].len == 2 && memcmp(m.new_tuple.values[0].data, "42", 2) == 0);
	FLOE_CHECK(m.new_tuple.values[1].kind == 'n');

	floe_buf_clear(&b); /* a key change: old key 42, new row (43, unchanged toast) */
	floe_buf_putc(&b, 'U'), be(&b, 16384, 4), floe_buf_putc(&b, 'K'), be(&b, 2, 2);
	text_value(&b, "42"), floe_buf_putc(&b, 'n');
	floe_buf_putc(&b, 'N'), be(&b, 2, 2), text_value(&b, "43"), floe_buf_putc(&b, 'u');
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_UPDATE && m.old_kind == 'K' && m.old_tuple.n == 2 && m.new_tuple.n == 2);
	FLOE_CHECK(memcmp(m.old_tuple.values[0].data, "42", 2) == 0 && memcmp(m.new_tuple.values[0].data, "43", 2) == 0);
	FLOE_CHECK(m.new_tuple.values[1].kind == 'u');

	floe_buf_clear(&b); /* an update without the old key */
	floe_buf_putc(&b, 'U'), be(&b, 16384, 4), floe_buf_putc(&b, 'N'), be(&b, 1, 2), text_value(&b, "7");
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.old_kind == 0 && m.new_tuple.n == 1);

	floe_buf_clear(&b); /* delete by full old row */
	floe_buf_putc(&b, 'D'), be(&b, 16384, 4), floe_buf_putc(&b, 'O'), be(&b, 1, 2), text_value(&b, "7");
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_DELETE && m.old_kind == 'O' && m.old_tuple.n == 1);

	floe_buf_clear(&b); /* a delete needs an old tuple */
	floe_buf_putc(&b, 'D'), be(&b, 16384, 4), floe_buf_putc(&b, 'N'), be(&b, 0, 2);
	FLOE_CHECK(decode(&m, &d, &b) < 0);

	floe_buf_clear(&b); /* truncate of two tables, restart identity */
	floe_buf_putc(&b, 'T'), be(&b, 2, 4), be(&b, 2, 1), be(&b, 16384, 4), be(&b, 16390, 4);
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_TRUNCATE && m.n_relids == 2 && m.relids[1] == 16390 && m.flags == 2);
	floe_buf_free(&b);
	floe_cdc_decoder_free(&d);
}

FLOE_TEST(pgoutput_streamed_transaction)
{
	floe_cdc_decoder d = FLOE_CDC_DECODER_INIT(2);
	floe_cdc_msg m;
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_putc(&b, 'S'), be(&b, 900, 4), be(&b, 1, 1);
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_STREAM_START && m.xid == 900 && m.flags == 1 && d.in_stream);
	floe_buf_clear(&b); /* inside the block a change starts with its xid */
	floe_buf_putc(&b, 'I'), be(&b, 901, 4), be(&b, 16384, 4), floe_buf_putc(&b, 'N'), be(&b, 1, 2);
	text_value(&b, "1");
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.xid == 901 && m.relid == 16384 && m.new_tuple.n == 1);
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'E');
	FLOE_CHECK(decode(&m, &d, &b) == 0 && !d.in_stream);
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'c'), be(&b, 900, 4), be(&b, 0, 1), be(&b, 0x500, 8), be(&b, 0x540, 8), be(&b, 77, 8);
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_STREAM_COMMIT && m.xid == 900 && m.lsn == 0x500 && m.end_lsn == 0x540);
	floe_buf_clear(&b); /* outside a block the same insert has no xid: its relid would be read as 901 */
	floe_buf_putc(&b, 'I'), be(&b, 16384, 4), floe_buf_putc(&b, 'N'), be(&b, 1, 2), text_value(&b, "1");
	FLOE_CHECK(decode(&m, &d, &b) == 0 && m.xid == 0 && m.relid == 16384);
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'A'), be(&b, 900, 4), be(&b, 901, 4);
	FLOE_CHECK(decode(&m, &d, &b) == 0 && m.subxid == 901 && m.lsn == 0);
	d.proto = 4; /* parallel streaming adds the abort's LSN and time */
	be(&b, 0x600, 8), be(&b, 5, 8);
	FLOE_CHECK(decode(&m, &d, &b) == 0 && m.lsn == 0x600 && m.time == 5);
	floe_buf_free(&b);
	floe_cdc_decoder_free(&d);
}

FLOE_TEST(pgoutput_two_phase_and_messages)
{
	floe_cdc_decoder d = FLOE_CDC_DECODER_INIT(3);
	floe_cdc_msg m;
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_putc(&b, 'K'), be(&b, 0, 1), be(&b, 0x10, 8), be(&b, 0x20, 8), be(&b, 3, 8), be(&b, 55, 4);
	cstr(&b, "gid-1");
	FLOE_CHECK(decode(&m, &d, &b) == 0);
	FLOE_CHECK(m.kind == FLOE_CDC_COMMIT_PREPARED && m.xid == 55 && m.end_lsn == 0x20);
	FLOE_CHECK_STR(m.gid, "gid-1");
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'r'), be(&b, 0, 1), be(&b, 0x10, 8), be(&b, 0x30, 8), be(&b, 3, 8), be(&b, 4, 8);
	be(&b, 56, 4), cstr(&b, "g2");
	FLOE_CHECK(decode(&m, &d, &b) == 0 && m.xid == 56 && m.end_lsn == 0x30 && m.time == 3);
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'M'), be(&b, 1, 1), be(&b, 0x99, 8), cstr(&b, "floe"), be(&b, 3, 4), floe_buf_puts(&b, "abc");
	FLOE_CHECK(decode(&m, &d, &b) == 0 && m.content_len == 3 && memcmp(m.content, "abc", 3) == 0);
	FLOE_CHECK_STR(m.prefix, "floe");
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'Y'), be(&b, 16500, 4), cstr(&b, "public"), cstr(&b, "mood");
	FLOE_CHECK(decode(&m, &d, &b) == 0 && m.relid == 16500);
	FLOE_CHECK_STR(m.relname, "mood");
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'Z');
	FLOE_CHECK(decode(&m, &d, &b) < 0);
	floe_buf_clear(&b); /* a string without its NUL */
	floe_buf_putc(&b, 'O'), be(&b, 1, 8), floe_buf_puts(&b, "origin");
	FLOE_CHECK(decode(&m, &d, &b) < 0);
	floe_buf_free(&b);
	floe_cdc_decoder_free(&d);
}

FLOE_TEST(pgoutput_truncated_everywhere_is_refused)
{
	floe_cdc_decoder d = FLOE_CDC_DECODER_INIT(1);
	floe_cdc_msg m;
	floe_buf b = FLOE_BUF_INIT;
	relation_msg(&b);
	for (size_t cut = 0; cut < b.len; cut++)
		FLOE_CHECK(floe_cdc_decode(&m, &d, (const uint8_t *)b.ptr, cut) < 0);
	floe_error_clear();
	floe_buf_free(&b);
	floe_cdc_decoder_free(&d);
}

FLOE_TEST(pgoutput_frames_status_and_lsn)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_cdc_frame f;
	floe_buf_putc(&b, 'k'), be(&b, 0x2A0000BEEFull, 8), be(&b, 1000, 8), be(&b, 1, 1);
	FLOE_CHECK(floe_cdc_frame_decode(&f, (const uint8_t *)b.ptr, b.len) == 0);
	FLOE_CHECK(f.kind == 'k' && f.end == 0x2A0000BEEFull && f.reply);
	floe_buf_clear(&b);
	floe_buf_putc(&b, 'w'), be(&b, 1, 8), be(&b, 2, 8), be(&b, 3, 8), floe_buf_puts(&b, "B");
	FLOE_CHECK(floe_cdc_frame_decode(&f, (const uint8_t *)b.ptr, b.len) == 0);
	FLOE_CHECK(f.kind == 'w' && f.start == 1 && f.end == 2 && f.len == 1 && f.data[0] == 'B');
	FLOE_CHECK(floe_cdc_frame_decode(&f, (const uint8_t *)b.ptr, 10) < 0);
	floe_buf_clear(&b);
	floe_cdc_status_encode(&b, 0x10, 0x20, 0x30, 7, false);
	FLOE_CHECK(b.len == 34 && b.ptr[0] == 'r' && (uint8_t)b.ptr[16] == 0x20 && b.ptr[33] == 0);
	floe_error_clear();
	uint64_t lsn = 0;
	FLOE_CHECK(floe_cdc_lsn_parse(&lsn, "16/B374D848") == 0 && lsn == 0x16B374D848ull);
	char text[24];
	floe_cdc_lsn_format(text, lsn);
	FLOE_CHECK_STR(text, "16/B374D848");
	FLOE_CHECK(floe_cdc_lsn_parse(&lsn, "16B374D848") < 0 && floe_cdc_lsn_parse(&lsn, "0/") < 0);
	FLOE_CHECK(floe_cdc_lsn_parse(&lsn, "1/123456789") < 0 && floe_cdc_lsn_parse(&lsn, "g/0") < 0);
	floe_buf_free(&b);
}
