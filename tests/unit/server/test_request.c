/*
 * test_request.c — the request parts floe serve parses itself: Host, cross-origin, job paths.
 */
#include "harness.h"
#include "server/request.h"

#include <string.h>

FLOE_TEST(request_host_header_names_loopback)
{
	const char *yes[] = { "127.0.0.1", "127.0.0.1:9464", "127.1.2.3:80", "localhost", "localhost:1", "[::1]:9464", "[::1]", NULL };
	const char *no[] = { "evil.example", "evil.example:9464", "10.0.0.1:80", "[::2]:80", "[::1", "[::1]x", "",
			     ":80", "localhost.evil.example", "127.0.0.1.evil.example:80", NULL };
	for (int i = 0; yes[i]; i++)
		FLOE_CHECK(floe_server_host_is_loopback(yes[i]));
	for (int i = 0; no[i]; i++)
		FLOE_CHECK(!floe_server_host_is_loopback(no[i]));
	FLOE_CHECK(!floe_server_host_is_loopback(NULL));
	FLOE_CHECK(floe_server_is_loopback("::1") && !floe_server_is_loopback("0.0.0.0") && !floe_server_is_loopback("::"));
}

FLOE_TEST(request_cross_origin)
{
	FLOE_CHECK(!floe_server_cross_origin("same-origin", "http://evil.example", "127.0.0.1:1"));
	FLOE_CHECK(!floe_server_cross_origin("none", NULL, NULL));
	FLOE_CHECK(floe_server_cross_origin("cross-site", NULL, "127.0.0.1:1"));
	FLOE_CHECK(floe_server_cross_origin("same-site", NULL, "127.0.0.1:1"));
	FLOE_CHECK(!floe_server_cross_origin(NULL, NULL, "127.0.0.1:1")); /* curl, PyIceberg */
	FLOE_CHECK(!floe_server_cross_origin(NULL, "http://127.0.0.1:1", "127.0.0.1:1"));
	FLOE_CHECK(floe_server_cross_origin(NULL, "http://127.0.0.1:2", "127.0.0.1:1"));
	FLOE_CHECK(floe_server_cross_origin(NULL, "null", "127.0.0.1:1"));
	FLOE_CHECK(floe_server_cross_origin(NULL, "http://127.0.0.1:1", NULL));
}

FLOE_TEST(request_job_paths)
{
	char id[FLOE_JOB_ID_MAX];
	const char *action = NULL;
	FLOE_CHECK(floe_server_job_path(id, &action, "/api/jobs/j20261202T050052Z-run-0ff760d5/events"));
	FLOE_CHECK_STR(id, "j20261202T050052Z-run-0ff760d5");
	FLOE_CHECK_STR(action, "events");
	const char *bad[] = { "/api/jobs/", "/api/jobs/x", "/api/jobs//log", "/api/jobs/../log", "/api/jobs/a.b/log",
			      "/api/job/x/log", "/api/jobs/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/log", NULL };
	for (int i = 0; bad[i]; i++)
		FLOE_CHECK(!floe_server_job_path(id, &action, bad[i]));
}
