/*
 * mcp.h — floe as a Model Context Protocol server for coding agents (docs/mcp.md): JSON-RPC
 * 2.0 messages, the `initialize` handshake with version negotiation, `ping`, `tools/list`
 * and `tools/call` over four read-only tools — floe_pipeline_status, floe_table_health,
 * floe_schema_changes and floe_pentaho_translation. No tool runs, merges, approves or
 * writes anything: the ledger is opened read-only, the pipeline repository only read.
 *
 * The same handler serves both transports: stdio (`floe mcp serve`, one message per line)
 * and streamable HTTP (`POST /mcp` in `floe serve`). It keeps no state between messages,
 * so concurrent callers may share one floe_mcp.
 */
#ifndef FLOE_MCP_MCP_H
#define FLOE_MCP_MCP_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest message read from stdin or an HTTP body; a longer line gets −32600. */
#define FLOE_MCP_MAX_MESSAGE ((size_t)4 << 20)

typedef struct floe_mcp floe_mcp;

/* A server over the project `config` describes (borrowed: it must outlive the server). */
floe_mcp *floe_mcp_new(const floe_config *config);
void floe_mcp_free(floe_mcp *m);

/* What floe_mcp_handle did with a message. */
typedef enum floe_mcp_outcome {
	FLOE_MCP_SILENT = 0,  /* a notification or a response: nothing to answer (HTTP: 202) */
	FLOE_MCP_REPLIED,     /* a reply (a result, or an error naming the request's id) */
	FLOE_MCP_REFUSED      /* not a message we can accept: an error with id null (HTTP: 400) */
} floe_mcp_outcome;

/*
 * Answer one JSON-RPC message of `len` bytes: the reply (one line, no newline) appended to
 * `out`, nothing for a notification or a response. Malformed input gets a JSON-RPC error
 * (−32700, −32600, −32601, −32602), a tool's failure a result with isError.
 */
floe_mcp_outcome floe_mcp_handle(floe_buf *out, const floe_mcp *m, const char *msg, size_t len);

/*
 * Serve the stdio transport: read messages from `in_fd` one per line until end of file,
 * write each reply and a newline to `out`, flushed. Returns 0 at end of file, -1 when
 * reading or writing fails (error set).
 */
int floe_mcp_serve_stdio(const floe_mcp *m, int in_fd, FILE *out);

/* The line splitter the stdio transport uses (fuzz/fuzz_mcp.c feeds it too). */
typedef struct floe_mcp_lines {
	floe_buf line;      /* the line being read */
	bool overlong;      /* the line passed FLOE_MCP_MAX_MESSAGE: its rest is skipped */
} floe_mcp_lines;

/*
 * Feed `len` bytes; each complete line is answered with floe_mcp_handle and the reply,
 * with a newline, appended to `replies`. At end of input call it with len 0 and `eof`.
 */
void floe_mcp_lines_feed(floe_mcp_lines *l, floe_buf *replies, const floe_mcp *m, const char *data, size_t len,
			 bool eof);
void floe_mcp_lines_free(floe_mcp_lines *l);

#endif
