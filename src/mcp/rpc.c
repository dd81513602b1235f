/*
 * rpc.c — the protocol half of the MCP server: JSON-RPC 2.0 envelopes, the handshake
 * (initialize, notifications/initialized, ping), tools/list and tools/call over the tool
 * table, and the protocol errors. Nothing here knows what a tool does (tools.c).
 *
 * Ids are echoed as written (a string, or an integer's text); a notification (no id) is
 * never answered; a response sent to us is ignored. Batches were removed in 2025-06-18 and
 * get −32600. Unknown methods — `server/discover` of the stateless 2026-07-28 revision
 * included — get −32601 at once, which is what makes the official SDK's default mode fall
 * back to `initialize` without waiting for its probe timeout.
 */
#include "mcp/mcp_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/version.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602

/* Newest first: what `initialize` answers when the client asks for a version it does not know. */
static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" };

static const char instructions[] =
	"floe loads PostgreSQL into Apache Iceberg tables (bronze, silver, gold) and proves each load "
	"against the source. These tools only read: the state of every table, one table's health, "
	"schema changes and marts waiting on branches for a person to merge, and Pentaho translation "
	"reports. Nothing here runs, merges or approves anything; tell the user which floe command to run.";

floe_mcp *floe_mcp_new(const floe_config *config)
{
	floe_mcp *m = floe_xcalloc(1, sizeof(*m));
	m->config = config;
	m->tools = mcp_tools;
	m->n_tools = mcp_n_tools;
	return m;
}

void floe_mcp_free(floe_mcp *m)
{
	free(m);
}

/* A JSON-RPC id we echo: a string or an integer (never null, a fraction, a container). */
static bool id_valid(const floe_json_value *id)
{
	int64_t i;
	if (!id)
		return false;
	if (floe_json_type_of(id) == FLOE_JSON_STRING)
		return true;
	return floe_json_type_of(id) == FLOE_JSON_NUMBER && floe_json_int64(&i, id) == 0;
}

static void put_head(floe_buf *out, const floe_json_value *id)
{
	floe_buf_puts(out, "{\"jsonrpc\":\"2.0\",\"id\":");
	if (id_valid(id))
		mcp_put_json(out, id);
	else
		floe_buf_puts(out, "null");
}

static void put_error(floe_buf *out, const floe_json_value *id, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void put_error(floe_buf *out, const floe_json_value *id, int code, const char *fmt, ...)
{
	floe_buf msg = FLOE_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	floe_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	put_head(out, id);
	floe_buf_printf(out, ",\"error\":{\"code\":%d,\"message\":", code);
	floe_json_put_string(out, msg.ptr ? msg.ptr : "", msg.len);
	floe_buf_puts(out, "}}");
	floe_buf_free(&msg);
}

static void initialize(floe_buf *out, const floe_json_value *id, const floe_json_value *params)
{
	const floe_json_value *asked = floe_json_get(params, "protocolVersion");
	const char *version = versions[0];
	for (size_t i = 0; asked && floe_json_type_of(asked) == FLOE_JSON_STRING && i < sizeof(versions) / sizeof(*versions); i++)
		if (floe_slice_eq_cstr(floe_json_string(asked), versions[i]))
			version = versions[i];
	put_head(out, id);
	floe_buf_puts(out, ",\"result\":{\"protocolVersion\":");
	floe_json_put_cstr(out, version);
	floe_buf_puts(out, ",\"capabilities\":{\"tools\":{\"listChanged\":false}},"
			   "\"serverInfo\":{\"name\":\"floe\",\"title\":\"floe\",\"version\":\"" FLOE_VERSION "\"},"
			   "\"instructions\":");
	floe_json_put_cstr(out, instructions);
	floe_buf_puts(out, "}}");
}

static void put_tool(floe_buf *out, const mcp_tool *t)
{
	floe_buf_puts(out, "{\"name\":");
	floe_json_put_cstr(out, t->name);
	floe_buf_puts(out, ",\"title\":");
	floe_json_put_cstr(out, t->title);
	floe_buf_puts(out, ",\"description\":");
	floe_json_put_cstr(out, t->description);
	floe_buf_printf(out, ",\"inputSchema\":%s,\"outputSchema\":%s", t->input_schema, t->output_schema);
	floe_buf_puts(out, ",\"annotations\":{\"title\":");
	floe_json_put_cstr(out, t->title);
	floe_buf_puts(out, ",\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,"
			   "\"openWorldHint\":false}}");
}

static void tools_list(floe_buf *out, const floe_mcp *m, const floe_json_value *id)
{
	put_head(out, id);
	floe_buf_puts(out, ",\"result\":{\"tools\":[");
	for (size_t i = 0; i < m->n_tools; i++) {
		if (i)
			floe_buf_putc(out, ',');
		put_tool(out, &m->tools[i]);
	}
	floe_buf_puts(out, "]}}");
}

/* A tool's failure as a result the model reads: the message, its detail and hint. */
static void put_tool_error(floe_buf *out, const floe_json_value *id)
{
	floe_buf text = FLOE_BUF_INIT;
	const floe_error *e = floe_error_last();
	if (e)
		floe_error_put_message(&text, e);
	else
		floe_buf_puts(&text, "the tool failed for an unknown reason");
	if (e && e->hint)
		floe_buf_printf(&text, " (hint: %s)", e->hint);
	put_head(out, id);
	floe_buf_puts(out, ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
	floe_json_put_string(out, text.ptr, text.len);
	floe_buf_puts(out, "}],\"isError\":true}}");
	floe_buf_free(&text);
	floe_error_clear();
}

static void put_tool_result(floe_buf *out, const floe_json_value *id, const floe_buf *structured)
{
	put_head(out, id);
	floe_buf_puts(out, ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
	floe_json_put_string(out, structured->ptr, structured->len);
	floe_buf_puts(out, "}],\"structuredContent\":");
	floe_buf_put(out, structured->ptr, structured->len);
	floe_buf_puts(out, ",\"isError\":false}}");
}

static void tools_call(floe_buf *out, const floe_mcp *m, const floe_json_value *id, const floe_json_value *params)
{
	const floe_json_value *name = floe_json_get(params, "name");
	const floe_json_value *args = floe_json_get(params, "arguments");
	if (!name || floe_json_type_of(name) != FLOE_JSON_STRING) {
		put_error(out, id, RPC_INVALID_PARAMS, "invalid params: tools/call needs \"name\", a string");
		return;
	}
	if (args && floe_json_type_of(args) != FLOE_JSON_OBJECT && floe_json_type_of(args) != FLOE_JSON_NULL) {
		put_error(out, id, RPC_INVALID_PARAMS, "invalid params: \"arguments\" must be an object");
		return;
	}
	const mcp_tool *tool = NULL;
	for (size_t i = 0; i < m->n_tools && !tool; i++)
		if (floe_slice_eq_cstr(floe_json_string(name), m->tools[i].name))
			tool = &m->tools[i];
	if (!tool) {
		floe_buf listed = FLOE_BUF_INIT;
		mcp_put_json(&listed, name);
		put_error(out, id, RPC_INVALID_PARAMS, "unknown tool: %s (tools/list names the tools)", listed.ptr);
		floe_buf_free(&listed);
		return;
	}
	floe_buf structured = FLOE_BUF_INIT;
	floe_error_clear();
	if (tool->call(&structured, m, args && floe_json_type_of(args) == FLOE_JSON_OBJECT ? args : NULL) < 0)
		put_tool_error(out, id);
	else
		put_tool_result(out, id, &structured);
	floe_buf_free(&structured);
}

static void dispatch(floe_buf *out, const floe_mcp *m, const floe_json_value *id, floe_slice method,
		     const floe_json_value *params)
{
	if (floe_slice_eq_cstr(method, "initialize"))
		initialize(out, id, params);
	else if (floe_slice_eq_cstr(method, "ping")) {
		put_head(out, id);
		floe_buf_puts(out, ",\"result\":{}}");
	} else if (floe_slice_eq_cstr(method, "tools/list"))
		tools_list(out, m, id);
	else if (floe_slice_eq_cstr(method, "tools/call"))
		tools_call(out, m, id, params);
	else {
		floe_buf name = FLOE_BUF_INIT;
		floe_json_put_string(&name, method.ptr, method.len);
		put_error(out, id, RPC_METHOD_NOT_FOUND, "method not found: %s", name.ptr);
		floe_buf_free(&name);
	}
}

/* Check the envelope of a parsed message; answer (or not) and dispatch. */
static floe_mcp_outcome handle_message(floe_buf *out, const floe_mcp *m, const floe_json_value *msg)
{
	const floe_json_value *id = floe_json_get(msg, "id");
	const floe_json_value *version = floe_json_get(msg, "jsonrpc");
	const floe_json_value *method = floe_json_get(msg, "method");
	const floe_json_value *params = floe_json_get(msg, "params");
	if (id && !id_valid(id)) {
		put_error(out, NULL, RPC_INVALID_REQUEST, "invalid request: an id must be a string or an integer");
		return FLOE_MCP_REFUSED;
	}
	if (!version || floe_json_type_of(version) != FLOE_JSON_STRING ||
	    !floe_slice_eq_cstr(floe_json_string(version), "2.0"))
		put_error(out, id, RPC_INVALID_REQUEST, "invalid request: \"jsonrpc\" must be \"2.0\"");
	else if (!method && id && (floe_json_get(msg, "result") || floe_json_get(msg, "error")))
		return FLOE_MCP_SILENT; /* a response to a request we never send: nothing to answer */
	else if (!method || floe_json_type_of(method) != FLOE_JSON_STRING)
		put_error(out, id, RPC_INVALID_REQUEST, "invalid request: \"method\" must be a string");
	else if (!id)
		return FLOE_MCP_SILENT; /* a notification (notifications/initialized, cancelled, …): never answered */
	else if (params && floe_json_type_of(params) != FLOE_JSON_OBJECT && floe_json_type_of(params) != FLOE_JSON_NULL)
		put_error(out, id, RPC_INVALID_PARAMS, "invalid params: \"params\" must be an object");
	else
		dispatch(out, m, id, floe_json_string(method), params);
	return id ? FLOE_MCP_REPLIED : FLOE_MCP_REFUSED;
}

floe_mcp_outcome floe_mcp_handle(floe_buf *out, const floe_mcp *m, const char *msg, size_t len)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	floe_mcp_outcome outcome = FLOE_MCP_REFUSED;
	if (floe_json_parse(&doc, msg, len, &jerr) < 0)
		put_error(out, NULL, RPC_PARSE_ERROR, "parse error: %s at line %d, column %d", jerr.message, jerr.line,
			  jerr.col);
	else if (floe_json_type_of(floe_json_root(doc)) == FLOE_JSON_ARRAY)
		put_error(out, NULL, RPC_INVALID_REQUEST,
			  "invalid request: batches are not supported (removed in protocol 2025-06-18)");
	else if (floe_json_type_of(floe_json_root(doc)) != FLOE_JSON_OBJECT)
		put_error(out, NULL, RPC_INVALID_REQUEST, "invalid request: a message must be a JSON object");
	else
		outcome = handle_message(out, m, floe_json_root(doc));
	floe_json_free(doc);
	return outcome;
}
