/*
 * test_rpc.c — the MCP server's JSON-RPC handling (src/mcp/rpc.c) and its stdio line
 * splitter (src/mcp/stdio.c), without a project: envelopes, ids echoed as written, the
 * handshake's version negotiation, protocol errors, and tool failures as isError results.
 */
#include "harness.h"
#include "base/json.h"
#include "mcp/mcp.h"

#include <stdlib.h>

/* The reply to `msg` (NUL-terminated), in a static buffer; *outcome what handle said. */
static const char *reply(floe_mcp_outcome *outcome, const char *msg)
{
	static floe_buf out = FLOE_BUF_INIT;
	floe_mcp *m = floe_mcp_new(NULL);
	floe_buf_clear(&out);
	*outcome = floe_mcp_handle(&out, m, msg, strlen(msg));
	floe_mcp_free(m);
	return floe_buf_cstr(&out);
}

/* The error code of a reply, 0 when it is a result. */
static int code_of(const char *text)
{
	floe_json_doc *doc = NULL;
	int64_t code = 0;
	if (floe_json_parse(&doc, text, strlen(text), NULL) < 0)
		return 1;
	const floe_json_value *e = floe_json_get(floe_json_root(doc), "error");
	if (e)
		floe_json_int64(&code, floe_json_get(e, "code"));
	floe_json_free(doc);
	return (int)code;
}

FLOE_TEST(mcp_initialize_echoes_a_known_version_and_counters_an_unknown_one)
{
	floe_mcp_outcome o;
	const char *r = reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
				  "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}");
	FLOE_CHECK(o == FLOE_MCP_REPLIED && strstr(r, "\"protocolVersion\":\"2025-06-18\"") != NULL);
	FLOE_CHECK(strstr(r, "\"capabilities\":{\"tools\":") != NULL && strstr(r, "\"name\":\"floe\"") != NULL);
	r = reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}");
	FLOE_CHECK(strstr(r, "\"protocolVersion\":\"2025-11-25\"") != NULL);
}

FLOE_TEST(mcp_ids_are_echoed_as_written)
{
	floe_mcp_outcome o;
	FLOE_CHECK_STR(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":\"a\\u00e9\",\"method\":\"ping\"}"),
		       "{\"jsonrpc\":\"2.0\",\"id\":\"a\xc3\xa9\",\"result\":{}}");
	FLOE_CHECK_STR(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}"),
		       "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"result\":{}}");
	FLOE_CHECK(o == FLOE_MCP_REPLIED);
}

FLOE_TEST(mcp_notifications_and_responses_get_no_reply)
{
	floe_mcp_outcome o;
	FLOE_CHECK_STR(reply(&o, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), "");
	FLOE_CHECK(o == FLOE_MCP_SILENT);
	FLOE_CHECK_STR(reply(&o, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\",\"params\":{}}"), "");
	FLOE_CHECK_STR(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"), "");
	FLOE_CHECK(o == FLOE_MCP_SILENT);
}

FLOE_TEST(mcp_protocol_errors)
{
	floe_mcp_outcome o;
	FLOE_CHECK(code_of(reply(&o, "{\"jsonrpc\":")) == -32700 && o == FLOE_MCP_REFUSED);
	FLOE_CHECK(code_of(reply(&o, "[]")) == -32600 && o == FLOE_MCP_REFUSED);
	FLOE_CHECK(code_of(reply(&o, "42")) == -32600 && o == FLOE_MCP_REFUSED);
	FLOE_CHECK(code_of(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}")) == -32600);
	FLOE_CHECK(code_of(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}")) == -32600);
	FLOE_CHECK(code_of(reply(&o, "{\"id\":1,\"method\":\"ping\"}")) == -32600 && o == FLOE_MCP_REPLIED);
	FLOE_CHECK(code_of(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}")) == -32600);
	FLOE_CHECK(code_of(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\"}")) == -32601);
	FLOE_CHECK(code_of(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[]}")) == -32602);
}

FLOE_TEST(mcp_tools_call_checks_its_params_and_reports_tool_failures_as_results)
{
	floe_mcp_outcome o;
	const char *r = reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\\ny\"}}");
	FLOE_CHECK(code_of(r) == -32602 && strchr(r, '\n') == NULL);
	FLOE_CHECK(code_of(reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}")) == -32602);
	r = reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"floe_pipeline_status\","
		      "\"arguments\":7}}");
	FLOE_CHECK(code_of(r) == -32602);
	r = reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"floe_pipeline_status\"}}");
	FLOE_CHECK(code_of(r) == 0 && strstr(r, "\"isError\":true") != NULL && strstr(r, "no floe project") != NULL);
	r = reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"floe_table_health\","
		      "\"arguments\":{\"table\":\"t\",\"history\":1000}}}");
	FLOE_CHECK(strstr(r, "\"isError\":true") != NULL && strstr(r, "from 1 to 100") != NULL);
}

FLOE_TEST(mcp_tools_list_names_four_read_only_tools)
{
	floe_mcp_outcome o;
	floe_json_doc *doc = NULL;
	const char *r = reply(&o, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	FLOE_CHECK(floe_json_parse(&doc, r, strlen(r), NULL) == 0);
	const floe_json_value *tools = floe_json_get(floe_json_get(floe_json_root(doc), "result"), "tools");
	FLOE_CHECK(floe_json_count(tools) == 4);
	for (size_t i = 0; i < floe_json_count(tools); i++) {
		const floe_json_value *t = floe_json_value_at(tools, i);
		const floe_json_value *a = floe_json_get(t, "annotations");
		FLOE_CHECK(floe_json_bool(floe_json_get(a, "readOnlyHint")) && !floe_json_bool(floe_json_get(a, "destructiveHint")));
		FLOE_CHECK(floe_json_type_of(floe_json_get(t, "inputSchema")) == FLOE_JSON_OBJECT);
		FLOE_CHECK(floe_json_type_of(floe_json_get(t, "outputSchema")) == FLOE_JSON_OBJECT);
	}
	floe_json_free(doc);
}

FLOE_TEST(mcp_lines_split_across_reads_crlf_blank_and_unterminated)
{
	floe_mcp *m = floe_mcp_new(NULL);
	floe_mcp_lines l = { .line = FLOE_BUF_INIT };
	floe_buf out = FLOE_BUF_INIT;
	const char *a = "{\"jsonrpc\":\"2.0\",\"id\":1,\"met", *b = "hod\":\"ping\"}\r\n\n  \n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
	floe_mcp_lines_feed(&l, &out, m, a, strlen(a), false);
	FLOE_CHECK(out.len == 0);
	floe_mcp_lines_feed(&l, &out, m, b, strlen(b), false);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
	floe_mcp_lines_feed(&l, &out, m, NULL, 0, true);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
	floe_buf_free(&out);
	floe_mcp_lines_free(&l);
	floe_mcp_free(m);
}

FLOE_TEST(mcp_an_overlong_line_is_refused_once_and_the_next_answered)
{
	floe_mcp *m = floe_mcp_new(NULL);
	floe_mcp_lines l = { .line = FLOE_BUF_INIT };
	floe_buf out = FLOE_BUF_INIT;
	size_t n = FLOE_MCP_MAX_MESSAGE / 4 + 1;
	char *chunk = malloc(n);
	memset(chunk, 'x', n);
	for (int i = 0; i < 5; i++)
		floe_mcp_lines_feed(&l, &out, m, chunk, n, false);
	const char *next = "\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
	floe_mcp_lines_feed(&l, &out, m, next, strlen(next), true);
	FLOE_CHECK(l.line.cap <= FLOE_MCP_MAX_MESSAGE + 65536);
	FLOE_CHECK(strstr(out.ptr, "-32600") != NULL);
	FLOE_CHECK(strstr(out.ptr, "\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n") != NULL);
	FLOE_CHECK(strchr(out.ptr, '\n') - out.ptr < 200); /* one short error, not an echo of the line */
	free(chunk);
	floe_buf_free(&out);
	floe_mcp_lines_free(&l);
	floe_mcp_free(m);
}
