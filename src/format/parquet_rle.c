/*
 * parquet_rle.c — the RLE / bit-packed hybrid encoding (levels and dictionary indices).
 *
 * A run header is a ULEB128 varint: (count << 1) for an RLE run, followed by the value in
 * ceil(bit_width / 8) little-endian bytes; (groups << 1 | 1) for a bit-packed run of
 * groups * 8 values, packed LSB first, bit_width bits each. The encoder takes runs of 8 or
 * more equal values as RLE runs and packs everything between them; the last group of a
 * stream is padded with zeros (the reader knows how many values to take).
 */
#include "format/parquet_int.h"

#include <string.h>

int pq_bit_width(uint64_t max)
{
	int w = 0;
	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

static int put_varint(floe_buf *out, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	return floe_buf_put(out, tmp, n);
}

static int put_rle_run(floe_buf *out, uint32_t value, size_t count, int bit_width)
{
	uint8_t v[4];
	int bytes = (bit_width + 7) / 8;
	for (int i = 0; i < bytes; i++)
		v[i] = (uint8_t)(value >> (8 * i));
	if (put_varint(out, (uint64_t)count << 1) < 0)
		return -1;
	return floe_buf_put(out, v, (size_t)bytes);
}

/*
 * The encoder, once for 32-bit values (dictionary indices) and once for bytes (levels).
 * Runs of 8 or more equal values become RLE runs; the values between them are bit-packed
 * in whole groups of 8, so only the stream's last group is ever padded.
 */
#define RLE_ENCODER(NAME, T)                                                                \
	static int NAME##_packed(floe_buf *out, const T *values, size_t n, int bit_width)     \
	{                                                                                       \
		size_t groups = (n + 7) / 8;                                                        \
		if (put_varint(out, (uint64_t)groups << 1 | 1) < 0)                                \
			return -1;                                                                      \
		size_t at = out->len, bytes = groups * (size_t)bit_width;                          \
		if (put_zeros(out, bytes) < 0)                                          \
			return -1;                                                                      \
		uint8_t *dst = (uint8_t *)out->ptr + at;                                            \
		uint64_t acc = 0;                                                                   \
		int nbits = 0;                                                                      \
		for (size_t i = 0; i < n; i++) {                                                    \
			acc |= (uint64_t)values[i] << nbits;                                            \
			nbits += bit_width;                                                             \
			while (nbits >= 8) {                                                            \
				*dst++ = (uint8_t)acc;                                                      \
				acc >>= 8;                                                                  \
				nbits -= 8;                                                                 \
			}                                                                               \
		}                                                                                   \
		if (nbits > 0)                                                                      \
			*dst = (uint8_t)acc;                                                            \
		return 0;                                                                           \
	}                                                                                       \
	static size_t NAME##_run(const T *values, size_t i, size_t n)                           \
	{                                                                                       \
		size_t j = i + 1;                                                                   \
		while (j < n && values[j] == values[i])                                             \
			j++;                                                                            \
		return j - i;                                                                       \
	}                                                                                       \
	int NAME(floe_buf *out, const T *values, size_t n, int bit_width)                       \
	{                                                                                       \
		size_t i = 0;                                                                       \
		while (i < n) {                                                                     \
			size_t run = NAME##_run(values, i, n);                                          \
			if (run >= 8) {                                                                 \
				if (put_rle_run(out, values[i], run, bit_width) < 0)                        \
					return -1;                                                              \
				i += run;                                                                   \
				continue;                                                                   \
			}                                                                               \
			size_t j = i + 8;                                                               \
			while (j < n && NAME##_run(values, j, j + 8 < n ? j + 8 : n) < 8)              \
				j += 8;                                                                     \
			if (j > n)                                                                      \
				j = n;                                                                      \
			if (NAME##_packed(out, values + i, j - i, bit_width) < 0)                       \
				return -1;                                                                  \
			i = j;                                                                          \
		}                                                                                   \
		return 0;                                                                           \
	}

/* Grow `out` by `n` zero bytes. */
static int put_zeros(floe_buf *out, size_t n)
{
	static const uint8_t zero[256];
	while (n > 0) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);
		if (floe_buf_put(out, zero, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

RLE_ENCODER(pq_rle_encode, uint32_t)
RLE_ENCODER(pq_rle_encode_u8, uint8_t)

void pq_rle_decoder_init(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width)
{
	memset(d, 0, sizeof(*d));
	d->p = data;
	d->end = data ? data + len : data;
	d->bit_width = bit_width;
}

static int next_run(pq_rle_decoder *d)
{
	uint64_t h = 0;
	int shift = 0;
	for (;;) {
		if (d->p >= d->end || shift > 56)
			return -1;
		uint8_t b = *d->p++;
		h |= (uint64_t)(b & 0x7F) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (h & 1) {
		uint64_t groups = h >> 1;
		uint64_t bytes = groups * (uint64_t)d->bit_width;
		if (groups == 0 || groups > UINT32_MAX / 8 || bytes > (uint64_t)(d->end - d->p))
			return -1;
		d->packed = true;
		d->bits = d->p;
		d->bit_pos = 0;
		d->run_left = (uint32_t)(groups * 8);
		d->p += bytes;
	} else {
		uint64_t count = h >> 1;
		int bytes = (d->bit_width + 7) / 8;
		if (count == 0 || count > UINT32_MAX || (d->end - d->p) < bytes)
			return -1;
		uint32_t v = 0;
		for (int i = 0; i < bytes; i++)
			v |= (uint32_t)d->p[i] << (8 * i);
		d->p += bytes;
		if (d->bit_width < 32 && (v >> d->bit_width) != 0)
			return -1;
		d->packed = false;
		d->value = v;
		d->run_left = (uint32_t)count;
	}
	return 0;
}

static uint32_t unpack_one(pq_rle_decoder *d)
{
	int w = d->bit_width;
	uint64_t pos = d->bit_pos;
	const uint8_t *b = d->bits + (pos >> 3);
	int shift = (int)(pos & 7);
	/* At most 32 + 7 bits span 5 bytes; all of them lie inside the run. */
	uint64_t acc = 0;
	int need = (shift + w + 7) / 8;
	for (int i = 0; i < need; i++)
		acc |= (uint64_t)b[i] << (8 * i);
	d->bit_pos += (uint64_t)w;
	return (uint32_t)((acc >> shift) & (w == 32 ? 0xFFFFFFFFu : ((1u << w) - 1)));
}

int pq_rle_decode(pq_rle_decoder *d, uint32_t *out, size_t n)
{
	size_t i = 0;
	if (d->bit_width == 0) {
		/* Width 0: every value is 0 and the data may be empty. */
		if (n)
			memset(out, 0, n * sizeof(*out));
		return 0;
	}
	while (i < n) {
		if (d->run_left == 0 && next_run(d) < 0)
			return -1;
		size_t k = n - i < d->run_left ? n - i : d->run_left;
		if (d->packed) {
			for (size_t m = 0; m < k; m++)
				out[i + m] = unpack_one(d);
		} else {
			for (size_t m = 0; m < k; m++)
				out[i + m] = d->value;
		}
		d->run_left -= (uint32_t)k;
		i += k;
	}
	return 0;
}
