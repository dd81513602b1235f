/*
 * fuzz_mcp.c — libFuzzer target for the MCP server's JSON-RPC reader (src/mcp/stdio.c's line
 * splitter and src/mcp/rpc.c's envelope checks and dispatch).
 *
 * The input is fed in two chunks (split where its first byte says) as stdin would deliver it.
 * Whatever arrives, every reply must be one line of valid JSON, a JSON-RPC 2.0 object with an
 * id and exactly one of result or error. The tool table here is the fuzz target's own (the real
 * tools read a project, which this target has none of): one tool that answers its arguments
 * and one that fails, so tools/call's result and isError paths run on hostile arguments.
 */
#include "mcp/mcp_int.h"
#include "base/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

static int echo(floe_buf *out, const floe_mcp *m, const floe_json_value *args)
{
	if (!args)
		return floe_buf_puts(out, "{}");
	return mcp_put_json(out, args);
}

static int fail(floe_buf *out, const floe_mcp *m, const floe_json_value *args)
{
	floe_error_set(FLOE_ERR_USAGE, "argument \"x\" must be \"\\n\"");
	floe_error_hint("a hint with a newline\ninside");
	return -1;
}

const mcp_tool mcp_tools[] = {
	{ "echo", "Echo", "answers its arguments", "{\"type\":\"object\"}", "{\"type\":\"object\"}", echo },
	{ "fail", "Fail", "always fails", "{\"type\":\"object\"}", "{\"type\":\"object\"}", fail },
};
const size_t mcp_n_tools = 2;

/* One reply line: valid JSON, a JSON-RPC response. */
static void check_reply(const char *line, size_t len)
{
	floe_json_doc *doc = NULL;
	require(floe_json_parse(&doc, line, len, NULL) == 0);
	const floe_json_value *root = floe_json_root(doc);
	require(floe_json_type_of(root) == FLOE_JSON_OBJECT);
	require(floe_json_get(root, "id") != NULL);
	require((floe_json_get(root, "result") != NULL) != (floe_json_get(root, "error") != NULL));
	floe_json_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_mcp *m = floe_mcp_new(NULL);
	floe_mcp_lines lines = { .line = FLOE_BUF_INIT };
	floe_buf replies = FLOE_BUF_INIT;
	size_t split = size ? data[0] % (size + 1) : 0;
	floe_mcp_lines_feed(&lines, &replies, m, (const char *)data, split, false);
	floe_mcp_lines_feed(&lines, &replies, m, (const char *)data + split, size - split, false);
	floe_mcp_lines_feed(&lines, &replies, m, NULL, 0, true);
	for (size_t at = 0; at < replies.len;) {
		const char *nl = memchr(replies.ptr + at, '\n', replies.len - at);
		require(nl != NULL);
		check_reply(replies.ptr + at, (size_t)(nl - (replies.ptr + at)));
		at = (size_t)(nl - replies.ptr) + 1;
	}
	floe_buf_free(&replies);
	floe_mcp_lines_free(&lines);
	floe_mcp_free(m);
	floe_error_clear();
	return 0;
}
