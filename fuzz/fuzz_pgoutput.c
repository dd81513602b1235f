/*
 * fuzz_pgoutput.c — libFuzzer target for the replication stream decoder (src/cdc/pgoutput.c),
 * which reads what a PostgreSQL server (or anything answering as one) streams to floe.
 *
 * The first byte picks the protocol version (1..4) and whether a streamed block is open; the
 * rest is split at 0xFF 0x00 pairs into messages decoded in turn with one decoder, as a
 * stream is. Every call returns 0 or -1 (with an error set); on 0 every pointer of the
 * message lies inside the input, and a frame decodes the same way.
 */
#include "base/error.h"
#include "cdc/pgoutput.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

static int inside(const void *p, size_t len, const uint8_t *msg, size_t n)
{
	const uint8_t *b = p;
	return !p || (b >= msg && b + len <= msg + n);
}

static void check_tuple(const floe_cdc_tuple *t, const uint8_t *msg, size_t n)
{
	for (uint16_t i = 0; i < t->n; i++) {
		const floe_cdc_value *v = &t->values[i];
		require(v->kind == 'n' || v->kind == 'u' || v->kind == 't' || v->kind == 'b');
		require(inside(v->data, v->len, msg, n));
	}
}

static void one(floe_cdc_decoder *d, const uint8_t *msg, size_t n)
{
	floe_cdc_msg m;
	floe_cdc_frame f;
	floe_error_clear();
	if (floe_cdc_decode(&m, d, msg, n) == 0) {
		check_tuple(&m.old_tuple, msg, n);
		check_tuple(&m.new_tuple, msg, n);
		for (uint16_t i = 0; i < m.n_columns; i++)
			require(inside(m.columns[i].name, strlen(m.columns[i].name) + 1, msg, n));
		require(inside(m.content, m.content_len, msg, n));
	} else {
		require(floe_error_last() != NULL);
	}
	floe_error_clear();
	if (floe_cdc_frame_decode(&f, msg, n) == 0)
		require(inside(f.data, f.len, msg, n));
	else
		require(floe_error_last() != NULL);
	floe_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	floe_cdc_decoder d = FLOE_CDC_DECODER_INIT(1 + (data[0] & 3));
	d.in_stream = (data[0] & 4) != 0;
	size_t start = 1;
	for (size_t i = 1; i + 1 < size; i++)
		if (data[i] == 0xFF && data[i + 1] == 0x00) {
			one(&d, data + start, i - start);
			start = i + 2;
			i++;
		}
	if (start <= size)
		one(&d, data + start, size - start);
	floe_cdc_decoder_free(&d);
	return 0;
}
