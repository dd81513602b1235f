/*
 * snappy.h — the Snappy block format (raw, unframed), as Parquet's SNAPPY codec uses it.
 *
 * floe carries its own codec instead of linking libsnappy: the format is small and frozen
 * (a varint length, then literals and back-references), libsnappy is C++ (its C API still
 * pulls in libstdc++), and a C implementation is built and fuzzed with the rest of floe.
 * See src/format/README.md.
 *
 * The compressor is a greedy LZ77 over 64 KiB blocks with a 4-byte hash; its output is
 * valid for every Snappy decoder. The decompressor checks every length and offset against
 * the input and the declared output size, so it is safe on hostile input.
 */
#ifndef FLOE_FORMAT_SNAPPY_H
#define FLOE_FORMAT_SNAPPY_H

#include <stddef.h>
#include <stdint.h>

/* Worst-case compressed size of `len` input bytes. */
size_t floe_snappy_max_compressed(size_t len);

/* Compress into `out`, which holds at least floe_snappy_max_compressed(len) bytes. Returns
 * the compressed size. */
size_t floe_snappy_compress(uint8_t *out, const uint8_t *in, size_t len);

/* The uncompressed length a block declares; -1 when the varint is malformed. */
int floe_snappy_uncompressed_length(size_t *out, const uint8_t *in, size_t len);

/* Decompress a whole block into `out` of exactly `out_len` bytes (the declared length).
 * Returns 0, or -1 when the block is malformed or does not fill out_len exactly. */
int floe_snappy_decompress(uint8_t *out, size_t out_len, const uint8_t *in, size_t len);

#endif
