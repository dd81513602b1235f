/*
 * fuzz_serve_request.c — libFuzzer target for the request parts floe serve parses itself
 * (src/server/request.c): the input is split at newlines into a Host header, a Sec-Fetch-Site,
 * an Origin and a path. No crash; an accepted job id holds only [A-Za-z0-9-] and the path
 * is "/api/jobs/" + id + "/" + action; a loopback Host stays loopback with a port added.
 */
#include "server/request.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[1024], id[FLOE_JOB_ID_MAX], with_port[1100], rebuilt[1100];
	const char *field[4] = { NULL, NULL, NULL, NULL }, *action = NULL;
	if (size >= sizeof(text) || memchr(data, '\0', size))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *p = text;
	for (int i = 0; i < 4 && p; i++) {
		field[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	bool loop = floe_server_host_is_loopback(field[0]);
	if (loop && field[0][0] != '[' && !strchr(field[0], ':')) {
		snprintf(with_port, sizeof(with_port), "%s:9464", field[0]);
		require(floe_server_host_is_loopback(with_port));
	}
	floe_server_cross_origin(field[1], field[2], field[0]);
	if (field[3] && floe_server_job_path(id, &action, field[3])) {
		require(id[0] && strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == strlen(id));
		snprintf(rebuilt, sizeof(rebuilt), "/api/jobs/%s/%s", id, action);
		require(strcmp(rebuilt, field[3]) == 0);
	}
	return 0;
}
