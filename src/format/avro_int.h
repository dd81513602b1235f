/*
 * avro_int.h — the layout of parsed Avro schemas, shared by the schema parser, the
 * writer and the reader (src/format/avro*.c only).
 */
#ifndef FLOE_FORMAT_AVRO_INT_H
#define FLOE_FORMAT_AVRO_INT_H

#include "format/avro.h"

typedef struct avro_field {
	const char *name;
	int64_t id;
	bool has_id;
	floe_avro_type *type;
} avro_field;

struct floe_avro_type {
	floe_avro_kind kind;
	const char *name;     /* full name: record, enum, fixed */
	const char *logical;  /* logicalType, or NULL */
	int64_t element_id;   /* array `element-id` */
	bool has_element_id;
	bool zero_size;       /* some value of this type encodes to no bytes (null, empty record) */
	size_t count;         /* record fields, union branches, enum symbols */
	avro_field *fields;   /* record */
	floe_avro_type **branches; /* union */
	const char **symbols; /* enum */
	floe_avro_type *items;     /* array items, map values */
	size_t size;          /* fixed */
};

struct floe_avro_schema {
	floe_arena *arena;
	floe_avro_type *root;
};

/* Zig-zag varint encoding of `v` into `out` (at most 10 bytes); returns the length. */
size_t floe_avro_zigzag_put(uint8_t out[10], int64_t v);

#endif
