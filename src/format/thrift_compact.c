/*
 * thrift_compact.c — Thrift compact protocol writer and bounded reader (see the header).
 *
 * Wire rules: field header (delta << 4 | type) when the id grows by 1..15, else the type byte
 * and a zig-zag varint id; i16/i32/i64 are zig-zag ULEB128 varints, i8 is one byte, doubles
 * are 8 bytes little-endian, binary is a varint length and the bytes; list headers are
 * (n << 4 | type) for n < 15, else 0xF0 | type and a varint n; bools live in the field
 * header's type nibble (1 true, 2 false) and are one byte as list elements (1 true; 0 and 2
 * are read as false).
 */
#include "format/thrift_compact.h"

#include "base/error.h"

#include <string.h>

/* ---- writer ---- */

static void w_put(floe_thrift_writer *w, const void *data, size_t len)
{
	if (w->failed)
		return;
	if (floe_buf_put(w->out, data, len) < 0)
		w->failed = "the output buffer reached its maximum size";
}

static void w_byte(floe_thrift_writer *w, uint8_t b)
{
	w_put(w, &b, 1);
}

static void w_varint(floe_thrift_writer *w, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	w_put(w, tmp, n);
}

static uint64_t zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void w_field_header(floe_thrift_writer *w, int16_t id, int type)
{
	int16_t last = w->last_id[w->depth];
	int delta = (int)id - (int)last;
	if (delta > 0 && delta <= 15) {
		w_byte(w, (uint8_t)(delta << 4 | type));
	} else {
		w_byte(w, (uint8_t)type);
		w_varint(w, zigzag64(id));
	}
	w->last_id[w->depth] = id;
}

void floe_thrift_writer_init(floe_thrift_writer *w, floe_buf *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

int floe_thrift_writer_finish(floe_thrift_writer *w)
{
	if (w->failed)
		return floe_error_set(FLOE_ERR_INTERNAL, "could not encode Thrift metadata: %s",
				      w->failed);
	if (w->depth != 0)
		return floe_error_set(FLOE_ERR_INTERNAL,
				      "could not encode Thrift metadata: %d structs left open", w->depth);
	return 0;
}

void floe_thrift_struct_begin(floe_thrift_writer *w)
{
	if (w->depth >= FLOE_THRIFT_MAX_DEPTH) {
		if (!w->failed)
			w->failed = "structs nest too deeply";
		return;
	}
	w->depth++;
	w->last_id[w->depth] = 0;
}

void floe_thrift_struct_end(floe_thrift_writer *w)
{
	w_byte(w, FLOE_THRIFT_STOP);
	if (w->depth > 0)
		w->depth--;
}

void floe_thrift_field_bool(floe_thrift_writer *w, int16_t id, bool v)
{
	w_field_header(w, id, v ? FLOE_THRIFT_BOOL_TRUE : FLOE_THRIFT_BOOL_FALSE);
}

void floe_thrift_field_i8(floe_thrift_writer *w, int16_t id, int8_t v)
{
	w_field_header(w, id, FLOE_THRIFT_I8);
	floe_thrift_write_i8(w, v);
}

void floe_thrift_field_i16(floe_thrift_writer *w, int16_t id, int16_t v)
{
	w_field_header(w, id, FLOE_THRIFT_I16);
	floe_thrift_write_i16(w, v);
}

void floe_thrift_field_i32(floe_thrift_writer *w, int16_t id, int32_t v)
{
	w_field_header(w, id, FLOE_THRIFT_I32);
	floe_thrift_write_i32(w, v);
}

void floe_thrift_field_i64(floe_thrift_writer *w, int16_t id, int64_t v)
{
	w_field_header(w, id, FLOE_THRIFT_I64);
	floe_thrift_write_i64(w, v);
}

void floe_thrift_field_double(floe_thrift_writer *w, int16_t id, double v)
{
	w_field_header(w, id, FLOE_THRIFT_DOUBLE);
	floe_thrift_write_double(w, v);
}

void floe_thrift_field_binary(floe_thrift_writer *w, int16_t id, const void *data, size_t len)
{
	w_field_header(w, id, FLOE_THRIFT_BINARY);
	floe_thrift_write_binary(w, data, len);
}

void floe_thrift_field_struct(floe_thrift_writer *w, int16_t id)
{
	w_field_header(w, id, FLOE_THRIFT_STRUCT);
	floe_thrift_struct_begin(w);
}

void floe_thrift_field_list(floe_thrift_writer *w, int16_t id, int elem_type, uint32_t n)
{
	w_field_header(w, id, FLOE_THRIFT_LIST);
	floe_thrift_list_begin(w, elem_type, n);
}

void floe_thrift_list_begin(floe_thrift_writer *w, int elem_type, uint32_t n)
{
	if (n < 15) {
		w_byte(w, (uint8_t)(n << 4 | (uint32_t)elem_type));
	} else {
		w_byte(w, (uint8_t)(0xF0 | elem_type));
		w_varint(w, n);
	}
}

void floe_thrift_write_bool(floe_thrift_writer *w, bool v)
{
	/* The C++ and Java libraries write the type codes; every reader accepts them. */
	w_byte(w, v ? FLOE_THRIFT_BOOL_TRUE : FLOE_THRIFT_BOOL_FALSE);
}

void floe_thrift_write_i8(floe_thrift_writer *w, int8_t v)
{
	w_byte(w, (uint8_t)v);
}

void floe_thrift_write_i16(floe_thrift_writer *w, int16_t v)
{
	w_varint(w, zigzag64(v));
}

void floe_thrift_write_i32(floe_thrift_writer *w, int32_t v)
{
	w_varint(w, zigzag64(v));
}

void floe_thrift_write_i64(floe_thrift_writer *w, int64_t v)
{
	w_varint(w, zigzag64(v));
}

void floe_thrift_write_double(floe_thrift_writer *w, double v)
{
	uint64_t bits;
	uint8_t le[8];
	memcpy(&bits, &v, 8);
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(bits >> (8 * i));
	w_put(w, le, 8);
}

void floe_thrift_write_binary(floe_thrift_writer *w, const void *data, size_t len)
{
	w_varint(w, len);
	w_put(w, data, len);
}

/* ---- reader ---- */

static int r_fail(floe_thrift_reader *r, const char *why)
{
	if (!r->error) {
		r->error = why;
		r->error_offset = (size_t)(r->p - r->start);
	}
	return -1;
}

static size_t r_left(const floe_thrift_reader *r)
{
	return (size_t)(r->end - r->p);
}

void floe_thrift_reader_init(floe_thrift_reader *r, const void *data, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->start = r->p = data;
	r->end = r->p + len;
	r->pending_bool = -1;
}

const char *floe_thrift_reader_error(const floe_thrift_reader *r, size_t *offset)
{
	if (offset)
		*offset = r->error_offset;
	return r->error;
}

size_t floe_thrift_reader_offset(const floe_thrift_reader *r)
{
	return (size_t)(r->p - r->start);
}

static int r_byte(floe_thrift_reader *r, uint8_t *out)
{
	if (r->error)
		return -1;
	if (r->p >= r->end)
		return r_fail(r, "unexpected end of data");
	*out = *r->p++;
	return 0;
}

static int r_varint(floe_thrift_reader *r, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		uint8_t b;
		if (r_byte(r, &b) < 0)
			return -1;
		if (shift == 63 && b > 1)
			return r_fail(r, "varint overflows 64 bits");
		v |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return r_fail(r, "varint longer than 10 bytes");
}

static int64_t unzigzag64(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int r_zigzag(floe_thrift_reader *r, int64_t *out, int64_t min, int64_t max)
{
	uint64_t raw;
	if (r_varint(r, &raw) < 0)
		return -1;
	int64_t v = unzigzag64(raw);
	if (v < min || v > max)
		return r_fail(r, "integer out of range for its type");
	*out = v;
	return 0;
}

int floe_thrift_read_struct_begin(floe_thrift_reader *r)
{
	if (r->error)
		return -1;
	if (r->depth >= FLOE_THRIFT_MAX_DEPTH)
		return r_fail(r, "structs nest too deeply");
	r->depth++;
	r->last_id[r->depth] = 0;
	return 0;
}

bool floe_thrift_type_is_bool(int type)
{
	return type == FLOE_THRIFT_BOOL_TRUE || type == FLOE_THRIFT_BOOL_FALSE;
}

int floe_thrift_read_field(floe_thrift_reader *r, int16_t *id, int *type)
{
	uint8_t b;
	if (r->depth == 0)
		return r_fail(r, "field read outside a struct");
	if (r_byte(r, &b) < 0)
		return -1;
	int t = b & 0x0F;
	if (t == FLOE_THRIFT_STOP) {
		if (b != 0)
			return r_fail(r, "malformed stop byte");
		*type = FLOE_THRIFT_STOP;
		*id = 0;
		r->depth--;
		return 0;
	}
	if (t > FLOE_THRIFT_STRUCT)
		return r_fail(r, "unknown field type");
	int delta = b >> 4;
	int64_t fid;
	if (delta) {
		fid = (int64_t)r->last_id[r->depth] + delta;
		if (fid > INT16_MAX)
			return r_fail(r, "field id out of range");
	} else if (r_zigzag(r, &fid, INT16_MIN, INT16_MAX) < 0) {
		return -1;
	}
	r->last_id[r->depth] = (int16_t)fid;
	r->pending_bool = floe_thrift_type_is_bool(t) ? (t == FLOE_THRIFT_BOOL_TRUE) : -1;
	*id = (int16_t)fid;
	*type = t;
	return 0;
}

int floe_thrift_read_bool(floe_thrift_reader *r, bool *out)
{
	if (r->error)
		return -1;
	if (r->pending_bool >= 0) {
		*out = r->pending_bool == 1;
		r->pending_bool = -1;
		return 0;
	}
	uint8_t b;
	if (r_byte(r, &b) < 0)
		return -1;
	*out = b == FLOE_THRIFT_BOOL_TRUE;
	return 0;
}

int floe_thrift_read_i8(floe_thrift_reader *r, int8_t *out)
{
	uint8_t b;
	if (r_byte(r, &b) < 0)
		return -1;
	*out = (int8_t)b;
	return 0;
}

int floe_thrift_read_i16(floe_thrift_reader *r, int16_t *out)
{
	int64_t v;
	if (r_zigzag(r, &v, INT16_MIN, INT16_MAX) < 0)
		return -1;
	*out = (int16_t)v;
	return 0;
}

int floe_thrift_read_i32(floe_thrift_reader *r, int32_t *out)
{
	int64_t v;
	if (r_zigzag(r, &v, INT32_MIN, INT32_MAX) < 0)
		return -1;
	*out = (int32_t)v;
	return 0;
}

int floe_thrift_read_i64(floe_thrift_reader *r, int64_t *out)
{
	return r_zigzag(r, out, INT64_MIN, INT64_MAX);
}

int floe_thrift_read_double(floe_thrift_reader *r, double *out)
{
	if (r->error)
		return -1;
	if (r_left(r) < 8)
		return r_fail(r, "unexpected end of data in a double");
	uint64_t bits = 0;
	for (int i = 0; i < 8; i++)
		bits |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	memcpy(out, &bits, 8);
	return 0;
}

int floe_thrift_read_binary(floe_thrift_reader *r, const uint8_t **data, size_t *len)
{
	uint64_t n;
	if (r_varint(r, &n) < 0)
		return -1;
	if (n > r_left(r))
		return r_fail(r, "binary length exceeds the bytes left");
	*data = r->p;
	*len = (size_t)n;
	r->p += n;
	return 0;
}

int floe_thrift_read_list_begin(floe_thrift_reader *r, int *elem_type, uint32_t *n)
{
	uint8_t b;
	if (r_byte(r, &b) < 0)
		return -1;
	uint64_t count = b >> 4;
	int t = b & 0x0F;
	if (count == 15 && r_varint(r, &count) < 0)
		return -1;
	if (t == FLOE_THRIFT_STOP || t > FLOE_THRIFT_STRUCT)
		return r_fail(r, "unknown list element type");
	/* Every element takes at least one byte, so a count past the bytes left is a lie. */
	if (count > r_left(r) || count > UINT32_MAX)
		return r_fail(r, "list size exceeds the bytes left");
	*elem_type = t;
	*n = (uint32_t)count;
	return 0;
}

static int skip_map(floe_thrift_reader *r)
{
	uint64_t n;
	uint8_t types = 0;
	int rc = 0;
	if (r_varint(r, &n) < 0)
		return -1;
	if (n == 0)
		return 0;
	if (n > r_left(r))
		return r_fail(r, "map size exceeds the bytes left");
	if (r_byte(r, &types) < 0)
		return -1;
	if (r->depth >= FLOE_THRIFT_MAX_DEPTH)
		return r_fail(r, "containers nest too deeply");
	r->depth++; /* containers count toward the nesting limit too */
	for (uint64_t i = 0; i < n && rc == 0; i++) {
		rc = floe_thrift_skip(r, types >> 4);
		if (rc == 0)
			rc = floe_thrift_skip(r, types & 0x0F);
	}
	r->depth--;
	return rc;
}

static int skip_struct(floe_thrift_reader *r)
{
	if (floe_thrift_read_struct_begin(r) < 0)
		return -1;
	for (;;) {
		int16_t id;
		int type;
		if (floe_thrift_read_field(r, &id, &type) < 0)
			return -1;
		if (type == FLOE_THRIFT_STOP)
			return 0;
		if (floe_thrift_skip(r, type) < 0)
			return -1;
	}
}

static int skip_list(floe_thrift_reader *r)
{
	int et;
	uint32_t n;
	if (floe_thrift_read_list_begin(r, &et, &n) < 0)
		return -1;
	if (r->depth >= FLOE_THRIFT_MAX_DEPTH)
		return r_fail(r, "containers nest too deeply");
	r->depth++; /* containers count toward the nesting limit too */
	int rc = 0;
	for (uint32_t i = 0; i < n && rc == 0; i++)
		rc = floe_thrift_skip(r, et);
	r->depth--;
	return rc;
}

int floe_thrift_skip(floe_thrift_reader *r, int type)
{
	uint64_t v;
	uint8_t b;
	bool flag;
	const uint8_t *data;
	size_t len;
	double d;

	if (r->error)
		return -1;
	switch (type) {
	case FLOE_THRIFT_BOOL_TRUE:
	case FLOE_THRIFT_BOOL_FALSE:
		return floe_thrift_read_bool(r, &flag);
	case FLOE_THRIFT_I8:
		return r_byte(r, &b);
	case FLOE_THRIFT_I16:
	case FLOE_THRIFT_I32:
	case FLOE_THRIFT_I64:
		return r_varint(r, &v);
	case FLOE_THRIFT_DOUBLE:
		return floe_thrift_read_double(r, &d);
	case FLOE_THRIFT_BINARY:
		return floe_thrift_read_binary(r, &data, &len);
	case FLOE_THRIFT_LIST:
	case FLOE_THRIFT_SET:
		return skip_list(r);
	case FLOE_THRIFT_MAP:
		return skip_map(r);
	case FLOE_THRIFT_STRUCT:
		return skip_struct(r);
	default:
		return r_fail(r, "unknown type to skip");
	}
}

int floe_thrift_next_field(floe_thrift_reader *r, int16_t *id, int *type)
{
	if (floe_thrift_read_field(r, id, type) < 0)
		return -1;
	return *type != FLOE_THRIFT_STOP;
}

int floe_thrift_take_i32(floe_thrift_reader *r, int type, int32_t *out, bool *seen)
{
	if (type != FLOE_THRIFT_I32)
		return floe_thrift_skip(r, type);
	if (seen)
		*seen = true;
	return floe_thrift_read_i32(r, out);
}

int floe_thrift_take_i64(floe_thrift_reader *r, int type, int64_t *out, bool *seen)
{
	if (type != FLOE_THRIFT_I64)
		return floe_thrift_skip(r, type);
	if (seen)
		*seen = true;
	return floe_thrift_read_i64(r, out);
}

int floe_thrift_take_bool(floe_thrift_reader *r, int type, bool *out, bool *seen)
{
	if (!floe_thrift_type_is_bool(type))
		return floe_thrift_skip(r, type);
	if (seen)
		*seen = true;
	return floe_thrift_read_bool(r, out);
}
