/*
 * parquet_codec.c — page compression: ZSTD (libzstd, called only from here), SNAPPY
 * (format/snappy.c) and UNCOMPRESSED. Each page is one standalone block: a zstd frame, a
 * raw snappy block. zstd's errors become floe errors here.
 */
#include "format/parquet_int.h"

#include "base/arena.h"
#include "base/error.h"
#include "format/snappy.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define RAW_LITERALS_LEVEL (-1) /* zstd's negative levels leave literals uncompressed */

struct pq_codec {
	int codec;
	int level;
	int cctx_level;                /* the level cctx is set to */
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
};

const char *floe_parquet_codec_name(floe_parquet_codec codec)
{
	switch (codec) {
	case FLOE_PARQUET_UNCOMPRESSED: return "uncompressed";
	case FLOE_PARQUET_SNAPPY: return "snappy";
	case FLOE_PARQUET_ZSTD: return "zstd";
	}
	return NULL;
}

static const char *codec_label(int codec)
{
	static const char *const names[] = { "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
					     "BROTLI", "LZ4", "ZSTD", "LZ4_RAW" };
	return codec >= 0 && codec < 8 ? names[codec] : "unknown";
}

int pq_codec_new(pq_codec **out, int codec, int level)
{
	*out = NULL;
	if (codec != FLOE_PARQUET_UNCOMPRESSED && codec != FLOE_PARQUET_SNAPPY &&
	    codec != FLOE_PARQUET_ZSTD) {
		floe_error_set(FLOE_ERR_USAGE, "compression codec %s (%d) is not supported",
			       codec_label(codec), codec);
		floe_error_detail("floe reads and writes ZSTD, SNAPPY and UNCOMPRESSED pages.");
		return -1;
	}
	if (codec == FLOE_PARQUET_ZSTD && (level < 1 || level > ZSTD_maxCLevel())) {
		floe_error_set(FLOE_ERR_USAGE, "zstd level %d is out of range", level);
		floe_error_hint("Use a level from 1 to %d (2 is floe's default).", ZSTD_maxCLevel());
		return -1;
	}
	pq_codec *c = floe_xcalloc(1, sizeof(*c));
	c->codec = codec;
	c->level = level;
	*out = c;
	return 0;
}

void pq_codec_free(pq_codec *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	free(c);
}

uint8_t *pq_buf_extend(floe_buf *b, size_t n)
{
	size_t len = b->len;
	if (n > b->max || len > b->max - n)
		return NULL;
	if (b->cap < len + n + 1) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < len + n + 1)
			cap *= 2;
		b->ptr = floe_xrealloc(b->ptr, cap);
		b->cap = cap;
	}
	b->len += n;
	b->ptr[b->len] = '\0';
	return (uint8_t *)b->ptr + len;
}

/* Room for `extra` more bytes without changing the length. */
static int grow(floe_buf *out, size_t extra)
{
	if (!pq_buf_extend(out, extra))
		return floe_error_set(FLOE_ERR_INTERNAL, "compressed page exceeds %zu bytes", out->max);
	out->len -= extra;
	return 0;
}

static int zstd_compress(pq_codec *c, floe_buf *out, const void *in, size_t len, bool raw_literals)
{
	int level = raw_literals ? RAW_LITERALS_LEVEL : c->level;
	if (!c->cctx) {
		c->cctx = ZSTD_createCCtx();
		if (!c->cctx)
			return floe_error_set(FLOE_ERR_INTERNAL, "could not create a zstd context");
		/* Each frame ends with a checksum of its content, which zstd verifies on decompression. */
		ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, 1);
		c->cctx_level = 0;
	}
	if (c->cctx_level != level) { /* between frames: allowed, and kept for the frames after */
		ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level);
		c->cctx_level = level;
	}
	size_t bound = ZSTD_compressBound(len);
	if (grow(out, bound) < 0)
		return -1;
	size_t n = ZSTD_compress2(c->cctx, out->ptr + out->len, bound, in, len);
	if (ZSTD_isError(n))
		return floe_error_set(FLOE_ERR_INTERNAL, "zstd could not compress a page: %s",
				      ZSTD_getErrorName(n));
	out->len += n;
	out->ptr[out->len] = '\0';
	return 0;
}

int pq_codec_compress(pq_codec *c, floe_buf *out, const void *in, size_t len, bool raw_literals)
{
	switch (c->codec) {
	case FLOE_PARQUET_ZSTD:
		return zstd_compress(c, out, in, len, raw_literals);
	case FLOE_PARQUET_SNAPPY:
		if (len > UINT32_MAX)
			return floe_error_set(FLOE_ERR_INTERNAL, "page too large for snappy");
		if (grow(out, floe_snappy_max_compressed(len)) < 0)
			return -1;
		out->len += floe_snappy_compress((uint8_t *)out->ptr + out->len, in, len);
		out->ptr[out->len] = '\0';
		return 0;
	default:
		if (floe_buf_put(out, in, len) < 0)
			return floe_error_set(FLOE_ERR_INTERNAL, "page exceeds %zu bytes", out->max);
		return 0;
	}
}

static int zstd_decompress(pq_codec *c, uint8_t *out, size_t out_len, const void *in, size_t len)
{
	if (!c->dctx) {
		c->dctx = ZSTD_createDCtx();
		if (!c->dctx)
			return floe_error_set(FLOE_ERR_INTERNAL, "could not create a zstd context");
	}
	/*
	 * One page may hold several frames; together they must fill out_len exactly. Decoded straight
	 * into `out` (one call, every frame; a frame's checksum verified when it has one): no window
	 * buffer to copy through.
	 */
	if (len == 0 && out_len == 0)
		return 0;
	size_t n = ZSTD_decompressDCtx(c->dctx, out, out_len, in, len);
	if (ZSTD_isError(n)) {
		if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
			return floe_error_set(FLOE_ERR_CHECK,
					      "zstd page decompresses to more than its declared %zu bytes", out_len);
		if (ZSTD_getErrorCode(n) == ZSTD_error_srcSize_wrong)
			return floe_error_set(FLOE_ERR_CHECK, "zstd page is truncated");
		return floe_error_set(FLOE_ERR_CHECK, "zstd could not decompress a page: %s", ZSTD_getErrorName(n));
	}
	if (n != out_len)
		return floe_error_set(FLOE_ERR_CHECK, "zstd page decompresses to %zu bytes, not its declared %zu",
				      n, out_len);
	return 0;
}

int pq_codec_decompress(pq_codec *c, uint8_t *out, size_t out_len, const void *in, size_t len)
{
	switch (c->codec) {
	case FLOE_PARQUET_ZSTD:
		return zstd_decompress(c, out, out_len, in, len);
	case FLOE_PARQUET_SNAPPY:
		if (floe_snappy_decompress(out, out_len, in, len) < 0)
			return floe_error_set(FLOE_ERR_CHECK,
					      "snappy page is malformed or does not decompress to %zu bytes",
					      out_len);
		return 0;
	default:
		if (len != out_len)
			return floe_error_set(FLOE_ERR_CHECK,
					      "uncompressed page holds %zu bytes, not its declared %zu", len,
					      out_len);
		if (len)
			memcpy(out, in, len);
		return 0;
	}
}

bool pq_zstd_checks_itself(const void *data, size_t len)
{
	const uint8_t *p = data;
	if (len < 5 || p[0] != 0x28 || p[1] != 0xB5 || p[2] != 0x2F || p[3] != 0xFD || !(p[4] & 0x04))
		return false;
	size_t n = ZSTD_findFrameCompressedSize(data, len);
	return !ZSTD_isError(n) && n == len;
}

uint32_t pq_page_crc(const void *data, size_t len)
{
	return (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), data, len);
}
