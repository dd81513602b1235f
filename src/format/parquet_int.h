/*
 * parquet_int.h — what the Parquet writer, reader and their tests share inside src/format/:
 * Parquet's enums, the RLE/bit-packed hybrid, page compression, and the Iceberg bound
 * encoding. Not for other modules (they use parquet.h).
 */
#ifndef FLOE_FORMAT_PARQUET_INT_H
#define FLOE_FORMAT_PARQUET_INT_H

#include "base/buf.h"
#include "format/parquet.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "floe's Parquet code copies values in host order, which must be little-endian"
/* A PLAIN statistics value of the right size for the leaf; and two of them compared in the
 * leaf's order (signed numbers and decimals, floats with -0.0 < +0.0, else unsigned bytes). */
bool pq_plain_valid(const floe_parquet_leaf *leaf, int physical, size_t len);
int pq_plain_cmp(const floe_parquet_leaf *leaf, int physical, const uint8_t *a, size_t alen,
		 const uint8_t *b, size_t blen);

#endif

/* Encoding */
enum {
	PQ_ENC_PLAIN = 0,
	PQ_ENC_PLAIN_DICTIONARY = 2,
	PQ_ENC_RLE = 3,
	PQ_ENC_BIT_PACKED = 4,
	PQ_ENC_RLE_DICTIONARY = 8
};

/* PageType */
enum { PQ_PAGE_DATA = 0, PQ_PAGE_INDEX = 1, PQ_PAGE_DICTIONARY = 2, PQ_PAGE_DATA_V2 = 3 };

/* ConvertedType */
enum {
	PQ_CT_UTF8 = 0,
	PQ_CT_LIST = 3,
	PQ_CT_DECIMAL = 5,
	PQ_CT_DATE = 6,
	PQ_CT_TIME_MILLIS = 7,
	PQ_CT_TIME_MICROS = 8,
	PQ_CT_TIMESTAMP_MILLIS = 9,
	PQ_CT_TIMESTAMP_MICROS = 10,
	PQ_CT_INT_8 = 15,
	PQ_CT_INT_16 = 16,
	PQ_CT_INT_32 = 17,
	PQ_CT_INT_64 = 18
};

/* The 4-byte magic at both ends of a file. */
#define PQ_MAGIC "PAR1"

/* Bytes of a FIXED_LEN_BYTE_ARRAY decimal of `precision` (19..38), as Iceberg and Spark
 * size them: the fewest that hold 10^precision - 1 in two's complement. */
int pq_decimal_bytes(int precision);

/* Grow `b` by `n` bytes and return where they start (uninitialised); NULL past b->max. */
uint8_t *pq_buf_extend(floe_buf *b, size_t n);

/* Bits needed for values up to `max` (0 for 0). */
int pq_bit_width(uint64_t max);

/* ---- RLE / bit-packed hybrid ---- */

/* Append `n` values of `bit_width` (0..32) bits, without any length prefix. */
int pq_rle_encode(floe_buf *out, const uint32_t *values, size_t n, int bit_width);
/* Same for byte-sized values (levels). */
int pq_rle_encode_u8(floe_buf *out, const uint8_t *values, size_t n, int bit_width);

typedef struct pq_rle_decoder {
	const uint8_t *p, *end;
	int bit_width;
	uint32_t run_left;   /* values left in the current run */
	bool packed;         /* current run is bit-packed */
	uint32_t value;      /* RLE run value */
	const uint8_t *bits; /* bit-packed run data */
	uint64_t bit_pos;    /* next bit inside `bits` */
} pq_rle_decoder;

void pq_rle_decoder_init(pq_rle_decoder *d, const uint8_t *data, size_t len, int bit_width);

/* Decode exactly `n` values; -1 when the data ends early or is malformed. Values of RLE
 * runs wider than bit_width are rejected. */
int pq_rle_decode(pq_rle_decoder *d, uint32_t *out, size_t n);

/* ---- page compression ---- */

typedef struct pq_codec pq_codec;

/* A compressor/decompressor for `codec` at `level` (zstd). Fails on a codec floe lacks. */
int pq_codec_new(pq_codec **out, int codec, int level);
void pq_codec_free(pq_codec *c);

/* Append the compressed form of `len` bytes at `in` to `out`. `raw_literals` (zstd): at a negative
 * level, whose frames store their literals as they are — for pages entropy coding barely shrinks
 * (random ids), which then decode at memory speed, not through Huffman tables. */
int pq_codec_compress(pq_codec *c, floe_buf *out, const void *in, size_t len, bool raw_literals);

/* Decompress into `out` of exactly `out_len` bytes. UNCOMPRESSED copies. */
int pq_codec_decompress(pq_codec *c, uint8_t *out, size_t out_len, const void *in, size_t len);

/* A page's checksum (PageHeader.crc): zlib's CRC-32 of its bytes as written, after compression. */
uint32_t pq_page_crc(const void *data, size_t len);

/*
 * Whether `len` bytes are exactly one zstd frame that carries its content checksum (RFC 8878:
 * after the magic number, the frame header descriptor's bit 2): decompressing them verifies
 * every byte, as a CRC of them would.
 */
bool pq_zstd_checks_itself(const void *data, size_t len);

/* ---- Iceberg single-value serialization of Parquet statistics ---- */

/*
 * Turn a Parquet min/max value of a leaf (PLAIN bytes, as in Statistics) into Iceberg's
 * bound encoding, truncating strings and binaries to 16 (code points or bytes) as
 * Iceberg's default metrics mode does. `upper` selects the upper-bound rule. Writes into
 * `out` (cleared first); returns false when there is no bound.
 */
bool pq_iceberg_bound(floe_buf *out, const floe_parquet_leaf *leaf, int physical,
		      const uint8_t *value, size_t len, bool upper);

/* A PLAIN statistics value of the right size for the leaf; and two of them compared in the
 * leaf's order (signed numbers and decimals, floats with -0.0 < +0.0, else unsigned bytes). */
bool pq_plain_valid(const floe_parquet_leaf *leaf, int physical, size_t len);
int pq_plain_cmp(const floe_parquet_leaf *leaf, int physical, const uint8_t *a, size_t alen,
		 const uint8_t *b, size_t blen);

#endif
