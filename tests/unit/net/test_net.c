/*
 * test_net.c — src/net without a real server: retry classification, backoff bounds, SigV4
 * URI encoding, response header lookup, S3 reply XML extraction, and what floe_net_perform
 * puts on the wire (captured by a one-shot loopback listener in a thread).
 */
#include "harness.h"
#include "base/error.h"
#include "net/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

FLOE_TEST(net_classify_by_status_and_transport_code)
{
	FLOE_CHECK(floe_net_classify(200, FLOE_NET_OK) == FLOE_NET_DONE);
	FLOE_CHECK(floe_net_classify(206, FLOE_NET_OK) == FLOE_NET_DONE);
	FLOE_CHECK(floe_net_classify(503, FLOE_NET_OK) == FLOE_NET_RETRY); /* SlowDown */
	FLOE_CHECK(floe_net_classify(500, FLOE_NET_OK) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_net_classify(429, FLOE_NET_OK) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_net_classify(408, FLOE_NET_OK) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_net_classify(403, FLOE_NET_OK) == FLOE_NET_FAIL);
	FLOE_CHECK(floe_net_classify(404, FLOE_NET_OK) == FLOE_NET_FAIL);
	FLOE_CHECK(floe_net_classify(412, FLOE_NET_OK) == FLOE_NET_FAIL);
	FLOE_CHECK(floe_net_classify(0, FLOE_NET_ERR_CONNECT) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_net_classify(0, FLOE_NET_ERR_TIMEOUT) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_net_classify(0, FLOE_NET_ERR_TRANSFER) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_net_classify(0, FLOE_NET_ERR_RESOLVE) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_net_classify(0, FLOE_NET_ERR_TLS) == FLOE_NET_FAIL);
	FLOE_CHECK(floe_net_classify(0, FLOE_NET_ERR_ABORTED) == FLOE_NET_FAIL);
	FLOE_CHECK(floe_net_classify(0, FLOE_NET_ERR_OTHER) == FLOE_NET_FAIL);
}

FLOE_TEST(net_backoff_is_full_jitter_under_a_doubling_cap)
{
	long max_seen = 0;
	for (int i = 0; i < 200; i++) {
		long a1 = floe_net_backoff_ms(1, 100, 5000), a4 = floe_net_backoff_ms(4, 100, 5000);
		long a20 = floe_net_backoff_ms(20, 100, 5000);
		FLOE_CHECK(a1 >= 0 && a1 <= 100);
		FLOE_CHECK(a4 >= 0 && a4 <= 800);
		FLOE_CHECK(a20 >= 0 && a20 <= 5000);
		if (a20 > max_seen)
			max_seen = a20;
	}
	FLOE_CHECK(max_seen > 800); /* the ceiling really grows */
}

FLOE_TEST(net_uri_encode_follows_sigv4)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *key = "bronze/Odd Schema__Select \"Me\" \xc3\xbc=1+~a_b.c-d";
	floe_net_uri_encode(&b, key, strlen(key), true);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "bronze/Odd%20Schema__Select%20%22Me%22%20%C3%BC%3D1%2B~a_b.c-d");
	floe_buf_clear(&b);
	floe_net_uri_encode(&b, "a/b", 3, false);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "a%2Fb");
	floe_buf_free(&b);
}

FLOE_TEST(net_xml_next_decodes_and_refuses_malformed)
{
	floe_buf v = FLOE_BUF_INIT;
	const char *x = "<?xml version=\"1.0\"?><R><Key>a&amp;b &lt;c&gt; &#x263A;&#65;</Key><Key></Key>"
			"<Code>SlowDown</Code></R>";
	size_t cur = 0;
	FLOE_CHECK(floe_net_xml_next(&v, x, strlen(x), &cur, "Key") == 1);
	FLOE_CHECK_STR(floe_buf_cstr(&v), "a&b <c> \xe2\x98\xba" "A");
	FLOE_CHECK(floe_net_xml_next(&v, x, strlen(x), &cur, "Key") == 1);
	FLOE_CHECK_STR(floe_buf_cstr(&v), "");
	FLOE_CHECK(floe_net_xml_next(&v, x, strlen(x), &cur, "Key") == 0);
	cur = 0;
	FLOE_CHECK(floe_net_xml_next(&v, x, strlen(x), &cur, "Code") == 1);
	FLOE_CHECK_STR(floe_buf_cstr(&v), "SlowDown");
	const char *bad[] = { "<Key>open", "<Key>a<b/></Key>", "<Key>&bogus;</Key>", "<Key>&#xD800;</Key>",
			      "<Key>&#0;</Key>", "<Key>&#12" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cur = 0;
		FLOE_CHECK(floe_net_xml_next(&v, bad[i], strlen(bad[i]), &cur, "Key") == -1);
		floe_error_clear();
	}
	floe_buf_free(&v);
}

FLOE_TEST(net_response_header_is_case_insensitive_and_trimmed)
{
	floe_net_response r = FLOE_NET_RESPONSE_INIT;
	floe_buf v = FLOE_BUF_INIT;
	floe_buf_puts(&r.headers, "HTTP/1.1 200 OK\r\nETag:  \"abc\" \r\ncontent-length: 12\r\n\r\n");
	FLOE_CHECK(floe_net_response_header(&r, "etag", &v) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&v), "\"abc\"");
	FLOE_CHECK(floe_net_response_header(&r, "Content-Length", &v) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&v), "12");
	FLOE_CHECK(floe_net_response_header(&r, "content", &v) == -1);
	floe_buf_free(&v);
	floe_net_response_free(&r);
}

/* A listener that takes one connection, keeps what it received and answers `reply`. */
typedef struct capture {
	int fd;
	int port;
	const char *reply;
	char got[8192];
	size_t n;
} capture;

static void *serve_one(void *arg)
{
	capture *c = arg;
	int conn = accept(c->fd, NULL, NULL);
	if (conn < 0)
		return NULL;
	/* Read the head and, when it says so, a body: enough for these small requests. */
	for (;;) {
		ssize_t k = recv(conn, c->got + c->n, sizeof(c->got) - 1 - c->n, 0);
		if (k <= 0)
			break;
		c->n += (size_t)k;
		c->got[c->n] = '\0';
		const char *end = strstr(c->got, "\r\n\r\n"), *cl = strstr(c->got, "Content-Length: ");
		size_t want = cl ? strtoul(cl + 16, NULL, 10) : 0;
		if (end && c->n >= (size_t)(end + 4 - c->got) + want)
			break;
	}
	if (send(conn, c->reply, strlen(c->reply), 0) < 0)
		perror("send");
	close(conn);
	return NULL;
}

static void capture_start(capture *c, pthread_t *t, const char *reply)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	memset(c, 0, sizeof(*c));
	c->reply = reply;
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	bind(c->fd, (struct sockaddr *)&a, sizeof(a));
	listen(c->fd, 1);
	getsockname(c->fd, (struct sockaddr *)&a, &len);
	c->port = ntohs(a.sin_port);
	pthread_create(t, NULL, serve_one, c);
}

FLOE_TEST(net_perform_signs_with_sigv4_and_sends_the_body)
{
	capture c;
	pthread_t t;
	char url[128];
	const char *hdrs[] = { "x-amz-content-sha256: UNSIGNED-PAYLOAD", "If-None-Match: *" };
	capture_start(&c, &t, "HTTP/1.1 503 Slow Down\r\nContent-Length: 40\r\nETag: \"e\"\r\n\r\n"
			      "<Error><Code>SlowDown</Code></Error>    ");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/bucket/a%%20b?partNumber=1&uploadId=x", c.port);
	floe_net_request req = FLOE_NET_REQUEST_INIT;
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	req.method = "PUT";
	req.url = url;
	req.headers = hdrs;
	req.n_headers = 2;
	req.body = "hello";
	req.body_len = 5;
	req.aws_sigv4 = "aws:amz:eu-west-1:s3";
	req.user = "AKIDEXAMPLE";
	req.password = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
	FLOE_CHECK(floe_net_perform(&resp, &req) == 0);
	pthread_join(t, NULL);
	close(c.fd);
	FLOE_CHECK(strncmp(c.got, "PUT /bucket/a%20b?partNumber=1&uploadId=x HTTP/1.1\r\n", 52) == 0);
	FLOE_CHECK(strstr(c.got, "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") != NULL);
	FLOE_CHECK(strstr(c.got, "/eu-west-1/s3/aws4_request") != NULL);
	FLOE_CHECK(strstr(c.got, "SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date,") != NULL);
	FLOE_CHECK(strstr(c.got, "wJalrXUtnFEMI") == NULL); /* the secret never travels */
	FLOE_CHECK(strstr(c.got, "\r\n\r\nhello") != NULL);
	FLOE_CHECK(resp.status == 503 && resp.error == FLOE_NET_OK);
	FLOE_CHECK(floe_net_classify(resp.status, resp.error) == FLOE_NET_RETRY);
	floe_net_response_free(&resp);
}

FLOE_TEST(net_perform_reports_a_refused_connection_as_retryable)
{
	capture c;
	pthread_t t;
	char url[128];
	capture_start(&c, &t, "");
	int port = c.port;
	pthread_cancel(t);
	pthread_join(t, NULL);
	close(c.fd); /* nothing listens there now */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/x?secret-query", port);
	floe_net_request req = FLOE_NET_REQUEST_INIT;
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	req.url = url;
	FLOE_CHECK(floe_net_perform(&resp, &req) == -1);
	FLOE_CHECK(resp.error == FLOE_NET_ERR_CONNECT);
	FLOE_CHECK(floe_net_classify(resp.status, resp.error) == FLOE_NET_RETRY);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_UNREACHABLE);
	FLOE_CHECK(strstr(floe_error_last()->message, "secret-query") == NULL);
	floe_error_clear();
	floe_net_response_free(&resp);
}
