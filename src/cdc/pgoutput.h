/*
 * pgoutput.h — the pure decoder of a logical replication stream: the CopyData frames of
 * START_REPLICATION (XLogData, primary keepalive) and, inside XLogData, the messages of
 * PostgreSQL's `pgoutput` plugin, protocol versions 1 to 4 (streamed transactions from 2,
 * two-phase from 3, parallel stream aborts from 4), as the "Logical Replication Message
 * Formats" chapter of PostgreSQL's documentation gives them. No I/O, no allocation per
 * message: a decoded message points into the bytes it came from and into the decoder's
 * reused arrays, valid until the next call or until those bytes change. Malformed input
 * (truncated, trailing bytes, an unknown type, a string without its NUL) is an error.
 */
#ifndef FLOE_CDC_PGOUTPUT_H
#define FLOE_CDC_PGOUTPUT_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CopyData frames of the replication stream. */
typedef struct floe_cdc_frame {
	char kind;             /* 'w' XLogData, 'k' primary keepalive */
	uint64_t start, end;   /* w: the data's start LSN and the server's WAL end; k: end only */
	int64_t time;          /* µs since 2000-01-01 (the server's clock when it sent it) */
	bool reply;            /* k: the server asks for a status update now */
	const uint8_t *data;   /* w: the pgoutput message */
	size_t len;
} floe_cdc_frame;

int floe_cdc_frame_decode(floe_cdc_frame *out, const uint8_t *p, size_t n);

/* A standby status update ('r'): written, flushed and applied LSN, the client's clock. */
void floe_cdc_status_encode(floe_buf *out, uint64_t write, uint64_t flush, uint64_t apply, int64_t time,
			    bool reply);

typedef enum floe_cdc_kind {
	FLOE_CDC_BEGIN = 'B', FLOE_CDC_COMMIT = 'C', FLOE_CDC_ORIGIN = 'O', FLOE_CDC_RELATION = 'R',
	FLOE_CDC_TYPE = 'Y', FLOE_CDC_INSERT = 'I', FLOE_CDC_UPDATE = 'U', FLOE_CDC_DELETE = 'D',
	FLOE_CDC_TRUNCATE = 'T', FLOE_CDC_MESSAGE = 'M', FLOE_CDC_STREAM_START = 'S',
	FLOE_CDC_STREAM_STOP = 'E', FLOE_CDC_STREAM_COMMIT = 'c', FLOE_CDC_STREAM_ABORT = 'A',
	FLOE_CDC_BEGIN_PREPARE = 'b', FLOE_CDC_PREPARE = 'P', FLOE_CDC_COMMIT_PREPARED = 'K',
	FLOE_CDC_ROLLBACK_PREPARED = 'r', FLOE_CDC_STREAM_PREPARE = 'p'
} floe_cdc_kind;

/* One column value of a tuple: 'n' NULL, 'u' unchanged TOASTed value, 't' text, 'b' binary. */
typedef struct floe_cdc_value {
	char kind;
	const char *data;      /* t, b: the bytes (not NUL-terminated) */
	uint32_t len;
} floe_cdc_value;

typedef struct floe_cdc_tuple {
	uint16_t n;
	const floe_cdc_value *values;
} floe_cdc_tuple;

typedef struct floe_cdc_column {
	bool key;              /* part of the replica identity */
	const char *name;      /* NUL-terminated, inside the message */
	uint32_t type;         /* oid */
	int32_t typmod;
} floe_cdc_column;

typedef struct floe_cdc_msg {
	floe_cdc_kind kind;
	uint32_t xid;          /* B, S, c, A, prepares; a change inside a streamed block; else 0 */
	uint32_t subxid;       /* A: the (sub)transaction aborted */
	uint64_t lsn;          /* B: final LSN; C, c, K: commit LSN; P, b, p: prepare LSN; M: its LSN;
				  A (proto 4, parallel): abort LSN; r: prepare end LSN */
	uint64_t end_lsn;      /* C, c, K, P, b, p: end LSN; r: rollback end LSN */
	int64_t time;          /* commit / prepare / abort / rollback timestamp (µs since 2000) */
	const char *gid;       /* two-phase messages */
	uint32_t relid;        /* R, Y (the type's oid), I, U, D */
	const char *nspname;   /* R, Y; O: the origin's name */
	const char *relname;   /* R, Y */
	char replident;        /* R: 'd' default, 'n' nothing, 'f' full, 'i' index */
	uint16_t n_columns;    /* R */
	const floe_cdc_column *columns;
	char old_kind;         /* U, D: 'K' old key, 'O' old row, 0 none (U without either) */
	floe_cdc_tuple old_tuple, new_tuple;
	uint32_t n_relids;     /* T */
	const uint32_t *relids;
	uint8_t flags;         /* T: 1 cascade, 2 restart identity; M: 1 transactional; S: 1 first segment */
	const char *prefix;    /* M */
	const uint8_t *content;
	uint32_t content_len;
} floe_cdc_msg;

/* The decoder's state across messages: the protocol version, and whether a streamed block is open. */
typedef struct floe_cdc_decoder {
	int proto;             /* 1..4, as asked for in START_REPLICATION */
	bool in_stream;        /* between Stream Start and Stream Stop: changes carry their xid */
	floe_cdc_value *values[2];
	size_t cap_values[2];
	floe_cdc_column *columns;
	size_t cap_columns;
	uint32_t *relids;
	size_t cap_relids;
} floe_cdc_decoder;

#define FLOE_CDC_DECODER_INIT(p) { .proto = (p) }

/* Decode one pgoutput message. Errors: FLOE_ERR_INTERNAL naming what is malformed. */
int floe_cdc_decode(floe_cdc_msg *out, floe_cdc_decoder *d, const uint8_t *p, size_t n);
void floe_cdc_decoder_free(floe_cdc_decoder *d);

/* Room for n items in a heap array that grows by doubling (free with free()); src/cdc's arrays. */
void *floe_cdc_room(void *items, size_t *cap, size_t n, size_t size);

/* LSNs as PostgreSQL writes them ("16/B374D848"); parse returns -1 for anything else. */
int floe_cdc_lsn_parse(uint64_t *out, const char *text);
void floe_cdc_lsn_format(char out[24], uint64_t lsn);

#endif
