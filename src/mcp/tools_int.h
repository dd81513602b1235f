/*
 * tools_int.h — what the tool files share (tools.c, branches.c): argument checks and the
 * branch tools' entry points and output schemas.
 */
#ifndef FLOE_MCP_TOOLS_INT_H
#define FLOE_MCP_TOOLS_INT_H

#include "mcp/mcp_int.h"

#include <stdint.h>

/* -1 (error set) when the server has no project. */
int mcp_need_project(const floe_mcp *m);

/* -1 (error set, naming the arguments there are) when `args` has a member not in `known`. */
int mcp_check_args(const floe_json_value *args, const char *const *known, size_t n_known);

/* `,"key":v`, or null when v is negative (unknown). */
void mcp_put_count(floe_buf *out, const char *key, int64_t v);

#define MCP_BRANCHES_SCHEMA                                                                                     \
	"{\"type\":\"object\",\"properties\":{\"branches\":{\"type\":\"array\",\"items\":{\"type\":\"object\","      \
	"\"properties\":{\"branch\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},\"tip\":{\"type\":"          \
	"\"string\"},\"proposal\":{\"type\":[\"string\",\"null\"]}},\"required\":[\"branch\",\"kind\",\"tip\"]}},"    \
	"\"approve\":{\"type\":\"string\"}},\"required\":[\"branches\"]}"

#define MCP_PENTAHO_SCHEMA                                                                                      \
	"{\"type\":\"object\",\"properties\":{\"translations\":{\"type\":\"array\",\"items\":{\"type\":\"object\","  \
	"\"properties\":{\"name\":{\"type\":\"string\"},\"branch\":{\"type\":\"string\"},\"report\":{\"type\":"       \
	"\"object\"}},\"required\":[\"name\",\"branch\",\"report\"]}}},\"required\":[\"translations\"]}"

int mcp_schema_changes(floe_buf *out, const floe_mcp *m, const floe_json_value *args);
int mcp_pentaho_translation(floe_buf *out, const floe_mcp *m, const floe_json_value *args);

#endif
