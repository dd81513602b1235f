/*
 * request.c — request parts parsed by floe serve itself (request.h).
 */
#include "server/request.h"

#include <arpa/inet.h>
#include <string.h>

bool floe_server_is_loopback(const char *host)
{
	struct in_addr v4;
	struct in6_addr v6;
	if (strcmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, &v4) == 1)
		return (ntohl(v4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, host, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool floe_server_host_is_loopback(const char *host)
{
	char name[256];
	if (!host)
		return false;
	size_t len;
	if (host[0] == '[') {
		const char *end = strchr(host, ']');
		if (!end || (end[1] != '\0' && end[1] != ':'))
			return false;
		host++;
		len = (size_t)(end - host);
	} else {
		const char *colon = strchr(host, ':');
		len = colon ? (size_t)(colon - host) : strlen(host);
	}
	if (len == 0 || len >= sizeof(name))
		return false;
	memcpy(name, host, len);
	name[len] = '\0';
	return floe_server_is_loopback(name);
}

bool floe_server_cross_origin(const char *site, const char *origin, const char *host)
{
	if (site)
		return strcmp(site, "same-origin") != 0 && strcmp(site, "none") != 0;
	if (!origin)
		return false;
	const char *rest = strstr(origin, "://");
	return !host || !rest || strcmp(rest + 3, host) != 0;
}

bool floe_server_job_path(char id[FLOE_JOB_ID_MAX], const char **action, const char *path)
{
	static const char prefix[] = "/api/jobs/";
	static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-";
	if (strncmp(path, prefix, sizeof(prefix) - 1) != 0)
		return false;
	const char *p = path + sizeof(prefix) - 1;
	const char *slash = strchr(p, '/');
	size_t n = slash ? (size_t)(slash - p) : 0;
	if (!slash || n == 0 || n >= FLOE_JOB_ID_MAX || strspn(p, allowed) != n)
		return false;
	memcpy(id, p, n);
	id[n] = '\0';
	*action = slash + 1;
	return true;
}
