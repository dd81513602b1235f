/*
 * stdio.c — the stdio transport: one JSON-RPC message per line on stdin, one reply per
 * line on stdout, flushed after each (pipes are block-buffered). stdout carries protocol
 * messages only; floe's logs go to stderr. End of file on stdin ends the server.
 */
#include "mcp/mcp_int.h"
#include "base/error.h"
#include "base/secret.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* One complete line (without its newline): answer it unless it is blank. */
static void answer(floe_buf *replies, const floe_mcp *m, const char *line, size_t len)
{
	if (len && line[len - 1] == '\r')
		len--;
	size_t blank = 0;
	while (blank < len && (line[blank] == ' ' || line[blank] == '\t'))
		blank++;
	if (blank == len)
		return;
	if (floe_mcp_handle(replies, m, line, len) != FLOE_MCP_SILENT)
		floe_buf_putc(replies, '\n');
}

static void overlong(floe_buf *replies)
{
	floe_buf_printf(replies,
			"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"invalid request: "
			"a message longer than %zu bytes\"}}\n",
			FLOE_MCP_MAX_MESSAGE);
}

void floe_mcp_lines_feed(floe_mcp_lines *l, floe_buf *replies, const floe_mcp *m, const char *data, size_t len,
			 bool eof)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len;
		if (!l->overlong && l->line.len + take > FLOE_MCP_MAX_MESSAGE) {
			l->overlong = true;
			floe_buf_clear(&l->line);
		}
		if (!l->overlong)
			floe_buf_put(&l->line, data, take);
		if (nl) {
			if (l->overlong)
				overlong(replies);
			else
				answer(replies, m, l->line.ptr ? l->line.ptr : "", l->line.len);
			floe_buf_clear(&l->line);
			l->overlong = false;
			take++;
		}
		data += take;
		len -= take;
	}
	if (eof && (l->line.len || l->overlong)) {
		if (l->overlong)
			overlong(replies);
		else
			answer(replies, m, l->line.ptr, l->line.len);
		floe_buf_clear(&l->line);
		l->overlong = false;
	}
}

void floe_mcp_lines_free(floe_mcp_lines *l)
{
	floe_buf_free(&l->line);
}

int floe_mcp_serve_stdio(const floe_mcp *m, int in_fd, FILE *out)
{
	floe_mcp_lines lines = { .line = FLOE_BUF_INIT };
	floe_buf replies = FLOE_BUF_INIT;
	char chunk[65536];
	int error = -1;
	for (;;) {
		ssize_t got = read(in_fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			floe_error_set_errno(FLOE_ERR_IO, "could not read the MCP client's messages on stdin");
			goto cleanup;
		}
		floe_mcp_lines_feed(&lines, &replies, m, chunk, (size_t)got, got == 0);
		floe_secret_scrub_buf(&replies);
		if (replies.len && (fwrite(replies.ptr, 1, replies.len, out) != replies.len || fflush(out) != 0)) {
			floe_error_set_errno(FLOE_ERR_IO, "could not write a reply to the MCP client on stdout");
			goto cleanup;
		}
		floe_buf_clear(&replies);
		if (got == 0)
			break;
	}
	error = 0;
cleanup:
	floe_mcp_lines_free(&lines);
	floe_buf_free(&replies);
	return error;
}
