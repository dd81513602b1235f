/*
 * mcp_int.h — what the files of src/mcp share: the tool table (tools.c) the protocol
 * (rpc.c) lists and calls, and the compact JSON writer both use.
 */
#ifndef FLOE_MCP_MCP_INT_H
#define FLOE_MCP_MCP_INT_H

#include "mcp/mcp.h"
#include "base/json.h"

/*
 * One tool. `call` appends the structured result (a JSON object) to `out` and returns 0,
 * or returns -1 with the error set: the caller answers a result with isError and the
 * message, so the agent can correct its arguments. `args` is an object (maybe empty).
 */
typedef struct mcp_tool {
	const char *name, *title, *description;
	const char *input_schema;  /* compact JSON Schema (2020-12) */
	const char *output_schema;
	int (*call)(floe_buf *out, const floe_mcp *m, const floe_json_value *args);
} mcp_tool;

struct floe_mcp {
	const floe_config *config;  /* NULL: no project (every tool fails) */
	const mcp_tool *tools;
	size_t n_tools;
};

extern const mcp_tool mcp_tools[];
extern const size_t mcp_n_tools;

/* `v` as compact JSON (no whitespace, so no newline), appended to `out`. */
int mcp_put_json(floe_buf *out, const floe_json_value *v);

/* Reformat the JSON text `text` compactly into `out`; -1 (error set) when it does not parse. */
int mcp_put_json_text(floe_buf *out, const char *text, size_t len);

#endif
