/*
 * storage_s3.c — the `s3` backend (storage.h): objects at `s3://bucket/key` on any
 * S3-compatible store, through src/net (libcurl, AWS Signature V4 by libcurl).
 *
 * Writers buffer one part (8 MiB by default): an object that fits is one conditional PUT
 * (`If-None-Match: *`: create, never replace) at close; a larger one becomes a multipart
 * upload whose parts go out as they fill, each by a thread while the next fills, completed
 * (conditionally) at close — memory stays two parts whatever the size. Until completion nothing is visible at the key; a failed
 * write or close, or an abort, aborts the upload (AbortMultipartUpload). Readers are
 * ranged GETs; listing is ListObjectsV2; stat is HEAD. Every request is retried with
 * jittered backoff while floe_net_classify says it may help (5xx, SlowDown, 429, broken
 * connections).
 */
#include "iceberg/storage_s3.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/civil.h"
#include "base/error.h"
#include "base/secret.h"
#include "base/digest.h"
#include "net/http.h"

#define S3_DEFAULT_PART ((size_t)8 << 20)
#define S3_MIN_PART ((size_t)5 << 20)
#define S3_DEFAULT_ATTEMPTS 8
#define S3_MAX_IN_FLIGHT 8
#define S3_DEFAULT_IN_FLIGHT 1

typedef struct s3_state {
	char *endpoint;     /* scheme://host[:port], no trailing slash */
	char *sigv4;        /* "aws:amz:<region>:s3" */
	char *region;
	char *access, *secret, *token;
	char *ca_file;      /* NULL: the system's trust store */
	const char *access_env, *secret_env; /* for messages: the names, never the values */
	bool path_style;
	bool unsigned_payload; /* UNSIGNED-PAYLOAD and Content-MD5 rather than the body's SHA-256 */
	int attempts;
	size_t part_size;
	int in_flight;      /* parts sent at once, 1..S3_MAX_IN_FLIGHT */
	long backoff_base_ms;
} s3_state;

/* One object: its bucket and key (borrowed from the URI copy). */
typedef struct s3_obj {
	char *bucket;
	char *key;
} s3_obj;

/* Split `s3://bucket/key` into `o` (strings in `arena`); false when it is not one. */
static bool parse_uri(floe_arena *arena, const char *uri, s3_obj *o)
{
	if (strncmp(uri, "s3://", 5) != 0)
		return false;
	const char *b = uri + 5, *slash = strchr(b, '/');
	size_t blen = slash ? (size_t)(slash - b) : strlen(b);
	if (blen == 0)
		return false;
	o->bucket = floe_arena_strndup(arena, b, blen);
	o->key = floe_arena_strdup(arena, slash ? slash + 1 : "");
	return true;
}

static bool s3_handles(void *state, const char *uri)
{
	(void)state;
	return strncmp(uri, "s3://", 5) == 0 && uri[5] && uri[5] != '/';
}

/* The URL of `key` in `bucket` (either may be empty: the bucket itself), and `query`. */
static char *object_url(const s3_state *s, floe_arena *arena, const s3_obj *o, const char *query)
{
	floe_buf u = FLOE_BUF_INIT;
	if (s->path_style) {
		floe_buf_printf(&u, "%s/", s->endpoint);
		floe_net_uri_encode(&u, o->bucket, strlen(o->bucket), false);
		floe_buf_puts(&u, "/");
	} else {
		size_t scheme = (size_t)(strstr(s->endpoint, "://") - s->endpoint) + 3;
		floe_buf_put(&u, s->endpoint, scheme);
		floe_buf_printf(&u, "%s.%s/", o->bucket, s->endpoint + scheme);
	}
	floe_net_uri_encode(&u, o->key, strlen(o->key), true);
	if (query && query[0])
		floe_buf_printf(&u, "?%s", query);
	char *out = floe_arena_strdup(arena, floe_buf_cstr(&u));
	floe_buf_free(&u);
	return out;
}

/* One S3 call's description: what s3_call sends. */
typedef struct s3_req {
	const char *method;
	const s3_obj *obj;
	const char *query;           /* sorted and encoded */
	const void *body;
	size_t body_len;
	const char *extra[4];        /* more header lines */
	floe_net_write_fn write;     /* response body sink (ranged GET) */
	void *write_ctx;
	void (*rewind)(void *write_ctx); /* before each retry */
	bool quiet;                  /* leave the error chain alone (cleanup calls) */
	int attempts;                /* 0: the storage's */
} s3_req;

/* Perform `r` once, signed; `payload` the header lines that describe its body (1 or 2). */
static int s3_once(s3_state *s, floe_arena *arena, floe_net_response *resp, const s3_req *r,
		   const char *const payload[2])
{
	const char *hdrs[8];
	size_t n = 0;
	for (size_t i = 0; i < 2 && payload[i]; i++)
		hdrs[n++] = payload[i];
	if (s->token)
		hdrs[n++] = floe_arena_printf(arena, "x-amz-security-token: %s", s->token);
	for (size_t i = 0; i < 4 && r->extra[i]; i++)
		hdrs[n++] = r->extra[i];
	floe_net_request req = FLOE_NET_REQUEST_INIT;
	req.method = r->method;
	req.url = object_url(s, arena, r->obj, r->query);
	req.headers = hdrs;
	req.n_headers = n;
	req.body = r->body ? r->body : (strcmp(r->method, "PUT") == 0 ? "" : NULL);
	req.body_len = r->body_len;
	req.write = r->write;
	req.write_ctx = r->write_ctx;
	req.aws_sigv4 = s->sigv4;
	req.user = s->access;
	req.password = s->secret;
	req.quiet = r->quiet;
	req.ca_file = s->ca_file;
	return floe_net_perform(resp, &req);
}

/*
 * The header lines describing `r`'s body into `out` (in `arena`): x-amz-content-sha256 with the
 * body's SHA-256, or UNSIGNED-PAYLOAD and (for a body) its Content-MD5, which the store checks.
 */
static int payload_headers(const s3_state *s, floe_arena *arena, const s3_req *r, const char *out[2])
{
	const void *body = r->body ? r->body : "";
	size_t len = r->body ? r->body_len : 0;
	char md5[FLOE_DIGEST_MD5_BASE64_LEN + 1], sha[FLOE_DIGEST_SHA256_HEX_LEN + 1];
	int error = 0;
	out[0] = out[1] = NULL;
	if (s->unsigned_payload) {
		out[0] = "x-amz-content-sha256: UNSIGNED-PAYLOAD";
		if (r->body && (error = floe_digest_md5_base64(md5, body, len)) == 0)
			out[1] = floe_arena_printf(arena, "Content-MD5: %s", md5);
	} else if ((error = floe_digest_sha256_hex(sha, body, len)) == 0) {
		out[0] = floe_arena_printf(arena, "x-amz-content-sha256: %s", sha);
	}
	return error;
}

/*
 * Perform `r`, retrying while the outcome says it may help. 0 when a final response
 * arrived (any status: the caller reads it), -1 (error set) when none did.
 */
static int s3_call(s3_state *s, floe_net_response *resp, const s3_req *r)
{
	floe_arena *arena = floe_arena_new();
	const char *payload[2];
	int rc = -1;
	if (payload_headers(s, arena, r, payload) < 0)
		goto cleanup;
	for (int attempt = 1;; attempt++) {
		if (r->rewind)
			r->rewind(r->write_ctx);
		rc = s3_once(s, arena, resp, r, payload);
		floe_net_outcome o = floe_net_classify(resp->status, resp->error);
		if (o != FLOE_NET_RETRY || attempt >= (r->attempts ? r->attempts : s->attempts))
			break;
		if (rc < 0 && !r->quiet)
			floe_error_clear();
		floe_net_sleep_ms(floe_net_backoff_ms(attempt, s->backoff_base_ms, 5000));
	}
	if (rc < 0 && !r->quiet)
		floe_error_context("after %d attempts", r->attempts ? r->attempts : s->attempts);
cleanup:
	floe_arena_free(arena);
	return rc;
}

/* The S3 error code (`<Code>`) of a reply, in `arena`, or "". */
static const char *error_code(floe_arena *arena, const floe_net_response *resp)
{
	floe_buf code = FLOE_BUF_INIT;
	size_t cur = 0;
	const char *out = "";
	if (resp->body.len && floe_net_xml_next(&code, resp->body.ptr, resp->body.len, &cur, "Code") == 1)
		out = floe_arena_strdup(arena, floe_buf_cstr(&code));
	floe_buf_free(&code);
	return out;
}

/* Append `text` escaped for XML character data. */
static void put_xml_text(floe_buf *out, const char *text)
{
	for (const char *p = text; *p; p++) {
		const char *esc = *p == '"' ? "&quot;" : *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : NULL;
		if (esc)
			floe_buf_puts(out, esc);
		else
			floe_buf_putc(out, *p);
	}
}

static bool code_is(const char *code, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(code, *list) == 0)
			return true;
	return false;
}

/*
 * Set the error for a final response that is not a success: `what` ("could not read
 * \"s3://…\"") plus the status and S3's error code; classified by status and code.
 */
static int fail_status(const s3_state *s, const floe_net_response *resp, const char *what)
{
	static const char *const bad_keys[] = { "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken",
						"ExpiredToken", "AuthorizationHeaderMalformed", NULL };
	floe_arena *arena = floe_arena_new();
	const char *code = error_code(arena, resp);
	long st = resp->status;
	const char *shown = code[0] ? floe_arena_printf(arena, " %s", code) : "";
	if (st == 412) {
		floe_error_set(FLOE_ERR_EXISTS, "%s: an object is there already", what);
	} else if (st == 404) {
		floe_error_set(FLOE_ERR_IO, "%s: not found (HTTP 404%s)", what, shown);
		floe_error_errno(ENOENT);
	} else if ((st == 403 || st == 400 || st == 401) && code_is(code, bad_keys)) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "%s: the object store refused the credentials (HTTP %ld %s)",
			       what, st, code);
		/* Not EACCES, whose code would make it a file permission problem (exit 4). */
		floe_error_errno(EKEYREJECTED);
		floe_error_detail("The access key comes from the environment variable %s and the secret key "
				  "from %s ([warehouse] access-key-env, secret-key-env).", s->access_env, s->secret_env);
		floe_error_hint("Check that %s and %s hold a key pair the store accepts (and the session "
				"token, if one is configured, is current).", s->access_env, s->secret_env);
	} else if (st == 403) {
		floe_error_set(FLOE_ERR_IO, "%s: access denied (HTTP 403%s)", what, shown);
		floe_error_errno(EACCES);
		floe_error_hint("Give the key in %s permission to read, write, list and delete under the "
				"warehouse location.", s->access_env);
	} else {
		floe_error_set(FLOE_ERR_IO, "%s: HTTP %ld%s", what, st, shown);
		floe_error_errno(EIO);
		if (floe_net_classify(st, FLOE_NET_OK) == FLOE_NET_RETRY)
			floe_error_detail("The store kept answering so after %d attempts with backoff.", s->attempts);
	}
	floe_arena_free(arena);
	return -1;
}

/* ---- stat, remove ---- */

static int head(s3_state *s, const char *uri, floe_net_response *resp, s3_obj *o, floe_arena *arena)
{
	if (!parse_uri(arena, uri, o))
		return floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not an s3:// object URI", uri);
	s3_req r = { .method = "HEAD", .obj = o };
	if (s3_call(s, resp, &r) < 0)
		return floe_error_context("while looking up \"%s\"", uri);
	return 0;
}

static int64_t content_length(const floe_net_response *resp)
{
	floe_buf v = FLOE_BUF_INIT;
	int64_t n = -1;
	if (floe_net_response_header(resp, "content-length", &v) == 0) {
		n = 0;
		for (const char *p = floe_buf_cstr(&v); *p >= '0' && *p <= '9' && n < (INT64_C(1) << 50); p++)
			n = n * 10 + (*p - '0');
	}
	floe_buf_free(&v);
	return n;
}

/*
 * A HEAD answered 403: its reply has no body, so no S3 error code to tell refused credentials
 * from a denied object. Ask again with a one-byte GET, whose reply says, into `resp`.
 */
static int head_refused(s3_state *s, const s3_obj *o, floe_net_response *resp)
{
	s3_req r = { .method = "GET", .obj = o, .extra = { "Range: bytes=0-0" } };
	return s3_call(s, resp, &r);
}

static int s3_stat(void *state, const char *uri, bool *exists, int64_t *size)
{
	floe_arena *arena = floe_arena_new();
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	s3_obj o;
	int error = -1;
	*exists = false;
	*size = 0;
	if (head(state, uri, &resp, &o, arena) < 0)
		goto cleanup;
	if (resp.status == 404) {
		error = 0;
	} else if (resp.status >= 200 && resp.status < 300) {
		*exists = true;
		*size = content_length(&resp);
		error = *size < 0 ? floe_error_set(FLOE_ERR_IO, "\"%s\": the store gave no size", uri) : 0;
	} else if (resp.status != 403 || head_refused(state, &o, &resp) == 0) {
		fail_status(state, &resp, floe_arena_printf(arena, "could not look up \"%s\"", uri));
	}
cleanup:
	floe_net_response_free(&resp);
	floe_arena_free(arena);
	return error;
}

static int s3_remove(void *state, const char *uri)
{
	floe_arena *arena = floe_arena_new();
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	s3_obj o;
	int error = -1;
	if (!parse_uri(arena, uri, &o)) {
		floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not an s3:// object URI", uri);
		goto cleanup;
	}
	s3_req r = { .method = "DELETE", .obj = &o };
	if (s3_call(state, &resp, &r) < 0)
		goto cleanup;
	if (resp.status != 404 && (resp.status < 200 || resp.status >= 300)) {
		fail_status(state, &resp, floe_arena_printf(arena, "could not delete \"%s\"", uri));
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_net_response_free(&resp);
	floe_arena_free(arena);
	return error;
}

/* ---- writers ---- */

/*
 * One part of a multipart upload, sent by a thread of its own while the writer fills the next
 * part: encoding and uploading overlap, and memory stays 1 + in_flight parts. Errors are
 * thread-local, so the thread's is carried back in the fields below and set again in the
 * writer's thread.
 */
typedef struct part_job {
	s3_state *s;
	const s3_obj *obj;     /* the writer's, unchanged while the job runs */
	const char *uri;
	const char *upload_id;
	const floe_buf *data;  /* the writer's buffer of the slot */
	int number;
	int rc;
	char *etag;            /* on success */
	floe_error_class cls;  /* on failure: the error, to set again */
	int sys_errno;
	char *message, *detail, *hint;
} part_job;

typedef struct s3_writer {
	s3_state *s;
	floe_arena *arena;
	char *uri;
	s3_obj obj;
	floe_buf part;        /* the part being filled (at most part_size bytes) */
	char *upload_id;      /* once the object went multipart */
	floe_buf complete;    /* the CompleteMultipartUpload body so far */
	int parts;            /* parts handed off */
	/* Parts on their way: a ring of the first in_flight slots (so only their buffers are ever
	   made), `first` the oldest, `pending` of them in use. */
	struct part_slot {
		floe_buf data;    /* the part being sent */
		part_job job;
		bool threaded;    /* a thread still to join */
		pthread_t thread;
	} slot[S3_MAX_IN_FLIGHT];
	int first, pending;
} s3_writer;

/* `resp` a success, else the error set for `what`. */
static int expect_ok(s3_writer *w, const floe_net_response *resp, const char *what)
{
	if (resp->status >= 200 && resp->status < 300)
		return 0;
	return fail_status(w->s, resp, floe_arena_printf(w->arena, "could not %s \"%s\"", what, w->uri));
}

static int start_upload(s3_writer *w)
{
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	floe_buf id = FLOE_BUF_INIT;
	size_t cur = 0;
	int error = -1;
	s3_req r = { .method = "POST", .obj = &w->obj, .query = "uploads=" };
	if (s3_call(w->s, &resp, &r) < 0 || expect_ok(w, &resp, "start a multipart upload of") < 0)
		goto cleanup;
	if (floe_net_xml_next(&id, resp.body.ptr ? resp.body.ptr : "", resp.body.len, &cur, "UploadId") != 1) {
		floe_error_set(FLOE_ERR_IO, "the store started a multipart upload of \"%s\" without an upload id",
			       w->uri);
		goto cleanup;
	}
	w->upload_id = floe_arena_strdup(w->arena, floe_buf_cstr(&id));
	floe_buf_puts(&w->complete, "<CompleteMultipartUpload>");
	error = 0;
cleanup:
	floe_buf_free(&id);
	floe_net_response_free(&resp);
	return error;
}

/* The query naming `upload_id` (and part `part` when positive), encoded, in `arena`. */
static const char *upload_query(floe_arena *arena, const char *upload_id, int part)
{
	floe_buf q = FLOE_BUF_INIT;
	if (part > 0)
		floe_buf_printf(&q, "partNumber=%d&", part);
	floe_buf_puts(&q, "uploadId=");
	floe_net_uri_encode(&q, upload_id, strlen(upload_id), false);
	const char *out = floe_arena_strdup(arena, floe_buf_cstr(&q));
	floe_buf_free(&q);
	return out;
}

static char *dup_or_null(const char *s)
{
	return s ? floe_xstrndup(s, strlen(s)) : NULL;
}

/* Send the job's part; its result (ETag, or the error) in the job. */
static void *part_send(void *arg)
{
	part_job *j = arg;
	floe_arena *arena = floe_arena_new();
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	floe_buf etag = FLOE_BUF_INIT;
	j->rc = -1;
	s3_req r = { .method = "PUT", .obj = j->obj, .query = upload_query(arena, j->upload_id, j->number),
		     .body = j->data->ptr ? j->data->ptr : "", .body_len = j->data->len };
	if (s3_call(j->s, &resp, &r) < 0)
		goto cleanup;
	if (resp.status < 200 || resp.status >= 300) {
		fail_status(j->s, &resp, floe_arena_printf(arena, "could not upload part %d of \"%s\"", j->number, j->uri));
		goto cleanup;
	}
	if (floe_net_response_header(&resp, "etag", &etag) < 0) {
		floe_error_set(FLOE_ERR_IO, "the store took part %d of \"%s\" without an ETag", j->number, j->uri);
		goto cleanup;
	}
	j->etag = floe_xstrndup(floe_buf_cstr(&etag), etag.len);
	j->rc = 0;
cleanup:
	if (j->rc < 0) {
		const floe_error *e = floe_error_last();
		j->cls = e ? e->cls : FLOE_ERR_INTERNAL;
		j->sys_errno = e ? e->sys_errno : 0;
		j->message = dup_or_null(e ? e->message : "could not upload a part");
		j->detail = dup_or_null(e ? e->detail : NULL);
		j->hint = dup_or_null(e ? e->hint : NULL);
		floe_error_clear(); /* this thread's own chain, copied into the job: it would leak at thread exit */
	}
	floe_buf_free(&etag);
	floe_net_response_free(&resp);
	floe_arena_free(arena);
	return NULL;
}

static void job_free(part_job *j)
{
	free(j->etag);
	free(j->message);
	free(j->detail);
	free(j->hint);
	j->etag = j->message = j->detail = j->hint = NULL;
}

/* Wait for the oldest part on its way and add it to the completion, or set its error. */
static int collect_part(s3_writer *w)
{
	struct part_slot *sl = &w->slot[w->first];
	part_job *j = &sl->job;
	int rc = 0;
	if (!w->pending)
		return 0;
	if (sl->threaded)
		pthread_join(sl->thread, NULL);
	sl->threaded = false;
	w->first = (w->first + 1) % w->s->in_flight;
	w->pending--;
	if (j->rc < 0) {
		floe_error_set(j->cls, "%s", j->message);
		floe_error_errno(j->sys_errno);
		if (j->detail)
			floe_error_detail("%s", j->detail);
		if (j->hint)
			floe_error_hint("%s", j->hint);
		rc = -1;
	} else {
		floe_buf_printf(&w->complete, "<Part><PartNumber>%d</PartNumber><ETag>", j->number);
		put_xml_text(&w->complete, j->etag);
		floe_buf_puts(&w->complete, "</ETag></Part>");
	}
	job_free(j);
	return rc;
}

/* Collect every part on its way, in order, up to the first error (s3_discard joins the rest). */
static int collect_parts(s3_writer *w)
{
	while (w->pending)
		if (collect_part(w) < 0)
			return -1;
	return 0;
}

/*
 * Hand the filled part off as the next part of the upload (started first if need be), once
 * fewer than in_flight parts are on their way.
 */
static int send_part(s3_writer *w, bool in_background)
{
	floe_buf t;
	if ((w->pending >= w->s->in_flight && collect_part(w) < 0) || (!w->upload_id && start_upload(w) < 0))
		return -1;
	struct part_slot *sl = &w->slot[(w->first + w->pending) % w->s->in_flight];
	t = sl->data, sl->data = w->part, w->part = t;
	if (w->part.max)
		floe_buf_clear(&w->part);
	else /* a slot's first use: its buffer is made on demand */
		floe_buf_init(&w->part, w->s->part_size);
	sl->job = (part_job){ .s = w->s, .obj = &w->obj, .uri = w->uri, .upload_id = w->upload_id,
			      .data = &sl->data, .number = ++w->parts };
	w->pending++;
	sl->threaded = in_background && pthread_create(&sl->thread, NULL, part_send, &sl->job) == 0;
	if (!sl->threaded)
		part_send(&sl->job);
	return 0;
}

static int s3_open_write(void *state, void **h, const char *uri)
{
	s3_state *s = state;
	/*
	 * No request here: a taken name is refused when the object is published (the PUT or the
	 * completion carries If-None-Match: *, answered 412) — a look-up now would cost a round
	 * trip per file and still race.
	 */
	s3_writer *w = floe_xcalloc(1, sizeof(*w));
	w->s = s;
	w->arena = floe_arena_new();
	w->uri = floe_arena_strdup(w->arena, uri);
	parse_uri(w->arena, uri, &w->obj);
	floe_buf_init(&w->part, s->part_size);
	floe_buf_init(&w->complete, (size_t)64 << 20);
	*h = w;
	return 0;
}

static int s3_write(void *h, const void *data, size_t len)
{
	s3_writer *w = h;
	const char *p = data;
	while (len > 0) {
		size_t room = w->s->part_size - w->part.len, n = len < room ? len : room;
		if (floe_buf_put(&w->part, p, n) < 0)
			return -1;
		p += n;
		len -= n;
		if (w->part.len == w->s->part_size && send_part(w, true) < 0)
			return -1;
	}
	return 0;
}

static int complete_upload(s3_writer *w)
{
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	floe_arena *arena = floe_arena_new();
	int error = -1;
	if (((w->part.len > 0 || w->parts == 0) && send_part(w, false) < 0) || collect_parts(w) < 0)
		goto cleanup;
	floe_buf_puts(&w->complete, "</CompleteMultipartUpload>");
	s3_req r = { .method = "POST", .obj = &w->obj, .query = upload_query(arena, w->upload_id, 0),
		     .body = w->complete.ptr, .body_len = w->complete.len,
		     .extra = { "If-None-Match: *", "Content-Type: application/xml" } };
	if (s3_call(w->s, &resp, &r) < 0 || expect_ok(w, &resp, "complete the upload of") < 0)
		goto cleanup;
	/* S3 may answer 200 and then report a failure in the body. */
	if (error_code(arena, &resp)[0]) {
		fail_status(w->s, &resp, floe_arena_printf(arena, "could not complete the upload of \"%s\"", w->uri));
		goto cleanup;
	}
	w->upload_id = NULL; /* completed: nothing to abort */
	error = 0;
cleanup:
	floe_arena_free(arena);
	floe_net_response_free(&resp);
	return error;
}

static int s3_publish(void *h)
{
	s3_writer *w = h;
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	int error = -1;
	if (w->upload_id || w->pending) {
		error = complete_upload(w);
		goto cleanup;
	}
	s3_req r = { .method = "PUT", .obj = &w->obj, .body = w->part.ptr ? w->part.ptr : "",
		     .body_len = w->part.len, .extra = { "If-None-Match: *" } };
	if (s3_call(w->s, &resp, &r) < 0 || expect_ok(w, &resp, "create") < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_net_response_free(&resp);
	return error;
}

static void s3_discard(void *h)
{
	s3_writer *w = h;
	if (!w)
		return;
	for (int i = 0; i < S3_MAX_IN_FLIGHT; i++) {
		if (w->slot[i].threaded)
			pthread_join(w->slot[i].thread, NULL);
		job_free(&w->slot[i].job);
		floe_buf_free(&w->slot[i].data);
	}
	if (w->upload_id) {
		/* Best effort, keeping the error that brought us here; a few tries only: the upload
		   already failed, likely with the store unwell. */
		floe_net_response resp = FLOE_NET_RESPONSE_INIT;
		s3_req r = { .method = "DELETE", .obj = &w->obj, .query = upload_query(w->arena, w->upload_id, 0),
			     .quiet = true, .attempts = 3 };
		s3_call(w->s, &resp, &r);
		floe_net_response_free(&resp);
	}
	floe_buf_free(&w->part);
	floe_buf_free(&w->complete);
	floe_arena_free(w->arena);
	free(w);
}

/* ---- readers ---- */

typedef struct s3_reader {
	s3_state *s;
	floe_arena *arena;
	char *uri;
	s3_obj obj;
	int64_t size;
} s3_reader;

static int s3_open_read(void *state, void **h, int64_t *size, const char *uri)
{
	bool exists = false;
	*h = NULL;
	if (s3_stat(state, uri, &exists, size) < 0)
		return -1;
	if (!exists) {
		floe_error_set(FLOE_ERR_IO, "could not open \"%s\": no such object", uri);
		floe_error_errno(ENOENT);
		return -1;
	}
	s3_reader *r = floe_xcalloc(1, sizeof(*r));
	r->s = state;
	r->arena = floe_arena_new();
	r->uri = floe_arena_strdup(r->arena, uri);
	parse_uri(r->arena, uri, &r->obj);
	r->size = *size;
	*h = r;
	return 0;
}

/* Where a ranged GET lands: `buf`, at most `cap` bytes, `got` so far. */
typedef struct range_sink {
	char *buf;
	size_t cap;
	size_t got;
} range_sink;

static int range_write(void *ctx, const void *data, size_t len)
{
	range_sink *k = ctx;
	if (len > k->cap - k->got)
		return -1; /* more than asked for: a store that ignored the range */
	memcpy(k->buf + k->got, data, len);
	k->got += len;
	return 0;
}

static void range_rewind(void *ctx)
{
	((range_sink *)ctx)->got = 0;
}

static int s3_pread(void *h, void *buf, size_t len, int64_t offset, size_t *got)
{
	s3_reader *r = h;
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	range_sink sink = { buf, len, 0 };
	int error = -1;
	*got = 0;
	if (len == 0 || offset >= r->size)
		return 0;
	if ((int64_t)len > r->size - offset)
		len = sink.cap = (size_t)(r->size - offset);
	const char *range = floe_arena_printf(r->arena, "Range: bytes=%lld-%lld", (long long)offset,
					      (long long)offset + (long long)len - 1);
	s3_req q = { .method = "GET", .obj = &r->obj, .extra = { range }, .write = range_write,
		     .write_ctx = &sink, .rewind = range_rewind };
	if (s3_call(r->s, &resp, &q) < 0)
		goto cleanup;
	if (resp.status != 206 && !(resp.status == 200 && offset == 0)) {
		fail_status(r->s, &resp, floe_arena_printf(r->arena, "could not read \"%s\"", r->uri));
		goto cleanup;
	}
	*got = sink.got;
	error = 0;
cleanup:
	floe_net_response_free(&resp);
	return error;
}

static void s3_close_read(void *h)
{
	s3_reader *r = h;
	if (!r)
		return;
	floe_arena_free(r->arena);
	free(r);
}

/* ---- listing ---- */

typedef struct listed {
	const char *uri;
	int64_t size;
	int64_t mtime_ms;
} listed;

typedef struct lister {
	floe_arena *arena;
	listed *items;
	size_t n, cap;
	char *token;        /* NextContinuationToken, or NULL: done */
} lister;

/* The ListObjectsV2 query for `prefix` after `token`, sorted and encoded for signing. */
static const char *list_query(floe_arena *arena, const char *prefix, const char *token)
{
	floe_buf q = FLOE_BUF_INIT;
	if (token) {
		floe_buf_puts(&q, "continuation-token=");
		floe_net_uri_encode(&q, token, strlen(token), false);
		floe_buf_puts(&q, "&");
	}
	floe_buf_puts(&q, "list-type=2&prefix=");
	floe_net_uri_encode(&q, prefix, strlen(prefix), false);
	const char *out = floe_arena_strdup(arena, floe_buf_cstr(&q));
	floe_buf_free(&q);
	return out;
}

/* Every <Key> of a ListObjectsV2 page with its <LastModified> and <Size>; the next token. */
static int parse_page(lister *l, const char *bucket, const floe_buf *body)
{
	floe_buf v = FLOE_BUF_INIT;
	const char *x = body->ptr ? body->ptr : "";
	size_t cur = 0, len = body->len;
	int rc;
	while ((rc = floe_net_xml_next(&v, x, len, &cur, "Key")) == 1) {
		listed *it = FLOE_ARENA_PUSH(l->arena, l->items, l->n, l->cap);
		it->uri = floe_arena_printf(l->arena, "s3://%s/%s", bucket, floe_buf_cstr(&v));
		size_t at = cur;
		int64_t micros = 0;
		if (floe_net_xml_next(&v, x, len, &at, "LastModified") == 1 &&
		    floe_civil_parse_micros(&micros, floe_buf_cstr(&v)) == 0)
			it->mtime_ms = micros / 1000;
		at = cur;
		it->size = 0;
		if (floe_net_xml_next(&v, x, len, &at, "Size") == 1)
			for (const char *p = floe_buf_cstr(&v); *p >= '0' && *p <= '9'; p++)
				it->size = it->size * 10 + (*p - '0');
	}
	cur = 0;
	l->token = NULL;
	if (rc == 0 && floe_net_xml_next(&v, x, len, &cur, "NextContinuationToken") == 1)
		l->token = floe_arena_strdup(l->arena, floe_buf_cstr(&v));
	floe_buf_free(&v);
	return rc < 0 ? -1 : 0;
}

static int by_uri(const void *a, const void *b)
{
	return strcmp(((const listed *)a)->uri, ((const listed *)b)->uri);
}

static int s3_list(void *state, const char *prefix, floe_iceberg_list_fn fn, void *ctx)
{
	lister l = { .arena = floe_arena_new() };
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	s3_obj dir;
	int error = -1;
	if (!parse_uri(l.arena, prefix, &dir)) {
		floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not an s3:// location", prefix);
		goto cleanup;
	}
	const char *key_prefix = dir.key[0] && dir.key[strlen(dir.key) - 1] != '/'
					 ? floe_arena_printf(l.arena, "%s/", dir.key) : dir.key;
	s3_obj bucket = { dir.bucket, "" };
	do {
		s3_req r = { .method = "GET", .obj = &bucket, .query = list_query(l.arena, key_prefix, l.token) };
		if (s3_call(state, &resp, &r) < 0)
			goto cleanup;
		if (resp.status < 200 || resp.status >= 300) {
			fail_status(state, &resp, floe_arena_printf(l.arena, "could not list \"%s\"", prefix));
			goto cleanup;
		}
		if (parse_page(&l, dir.bucket, &resp.body) < 0)
			goto cleanup;
	} while (l.token);
	if (l.n > 1)
		qsort(l.items, l.n, sizeof(*l.items), by_uri);
	for (size_t i = 0; i < l.n; i++)
		if (fn(ctx, l.items[i].uri, l.items[i].size, l.items[i].mtime_ms))
			break;
	error = 0;
cleanup:
	floe_net_response_free(&resp);
	floe_arena_free(l.arena);
	return error;
}

static const char *s3_engine_uri(void *state, floe_arena *arena, const char *uri)
{
	(void)state;
	return floe_arena_strdup(arena, uri);
}

static void s3_close(void *state)
{
	s3_state *s = state;
	if (!s)
		return;
	free(s->endpoint);
	free(s->sigv4);
	free(s->region);
	free(s->access);
	free(s->secret);
	free(s->token);
	free(s->ca_file);
	free(s);
}

static const floe_iceberg_storage_ops s3_ops = {
	.name = "s3",
	.handles = s3_handles,
	.open_write = s3_open_write,
	.write = s3_write,
	.publish = s3_publish,
	.discard = s3_discard,
	.open_read = s3_open_read,
	.pread = s3_pread,
	.close_read = s3_close_read,
	.stat = s3_stat,
	.remove = s3_remove,
	.list = s3_list,
	.engine_uri = s3_engine_uri,
	.close = s3_close,
};

/* ---- construction, routing ---- */

/* The value of the variable `name` (a key of [warehouse] `key`), or NULL with the error set. */
static char *credential(const char *name, const char *key)
{
	const char *v = name ? getenv(name) : NULL;
	if (!name || !name[0]) {
		floe_error_set(FLOE_ERR_CONFIG, "[warehouse] %s is not set", key);
		floe_error_hint("Name the environment variable that holds it, e.g. %s = \"AWS_ACCESS_KEY_ID\".", key);
		return NULL;
	}
	if (!v || !v[0]) {
		floe_error_set(FLOE_ERR_CONFIG, "environment variable %s is %s", name, v ? "empty" : "not set");
		floe_error_detail("[warehouse] %s names it: the S3 warehouse's credentials come from it.", key);
		floe_error_hint("Export %s (its value is never printed or written by floe).", name);
		return NULL;
	}
	floe_secret_register(v);
	return floe_xstrndup(v, strlen(v));
}

static char *xprintf_endpoint(const floe_iceberg_s3_opts *o, const char *region)
{
	floe_buf b = FLOE_BUF_INIT;
	if (o->endpoint && o->endpoint[0])
		floe_buf_puts(&b, o->endpoint);
	else
		floe_buf_printf(&b, "https://s3.%s.amazonaws.com", region);
	while (b.len > 0 && b.ptr[b.len - 1] == '/')
		b.ptr[--b.len] = '\0';
	char *out = floe_xstrndup(floe_buf_cstr(&b), b.len);
	floe_buf_free(&b);
	return out;
}

bool floe_iceberg_s3_payload_unsigned(const floe_iceberg_s3_opts *opts)
{
	/* No endpoint: AWS, over https. */
	bool https = !opts->endpoint || !opts->endpoint[0] || strncasecmp(opts->endpoint, "https://", 8) == 0;
	return opts->payload_signing == FLOE_S3_SIGN_NEVER || (opts->payload_signing == FLOE_S3_SIGN_AUTO && https);
}

int floe_iceberg_storage_s3(floe_iceberg_storage **out, const floe_iceberg_s3_opts *opts)
{
	s3_state *s = floe_xcalloc(1, sizeof(*s));
	const char *region = opts->region && opts->region[0] ? opts->region : "us-east-1";
	int error = -1;
	*out = NULL;
	s->endpoint = xprintf_endpoint(opts, region);
	if (!strstr(s->endpoint, "://")) {
		floe_error_set(FLOE_ERR_CONFIG, "[warehouse] endpoint \"%s\" is not a URL", s->endpoint);
		floe_error_hint("Write it with its scheme, e.g. \"http://127.0.0.1:9000\".");
		goto cleanup;
	}
	s->region = floe_xstrndup(region, strlen(region));
	floe_buf sig = FLOE_BUF_INIT;
	floe_buf_printf(&sig, "aws:amz:%s:s3", region);
	s->sigv4 = floe_buf_detach(&sig, NULL);
	s->path_style = opts->path_style;
	s->ca_file = opts->ca_file && opts->ca_file[0] ? floe_xstrndup(opts->ca_file, strlen(opts->ca_file)) : NULL;
	s->unsigned_payload = floe_iceberg_s3_payload_unsigned(opts);
	s->attempts = opts->attempts > 0 ? opts->attempts : S3_DEFAULT_ATTEMPTS;
	s->part_size = opts->part_size ? opts->part_size : S3_DEFAULT_PART;
	if (s->part_size < S3_MIN_PART)
		s->part_size = S3_MIN_PART;
	s->backoff_base_ms = opts->backoff_base_ms > 0 ? opts->backoff_base_ms : 100;
	s->in_flight = opts->parts_in_flight > 0 ? opts->parts_in_flight : S3_DEFAULT_IN_FLIGHT;
	if (s->in_flight > S3_MAX_IN_FLIGHT)
		s->in_flight = S3_MAX_IN_FLIGHT;
	s->access_env = opts->access_key_env;
	s->secret_env = opts->secret_key_env;
	if (!(s->access = credential(opts->access_key_env, "access-key-env")) ||
	    !(s->secret = credential(opts->secret_key_env, "secret-key-env")) ||
	    (opts->session_token_env && opts->session_token_env[0] &&
	     !(s->token = credential(opts->session_token_env, "session-token-env"))))
		goto cleanup;
	*out = floe_iceberg_storage_new(&s3_ops, s);
	s = NULL;
	error = 0;
cleanup:
	s3_close(s);
	return error;
}

int floe_iceberg_storage_s3_access(floe_iceberg_storage *st, floe_iceberg_s3_access *out)
{
	s3_state *s = floe_iceberg_storage_backend(st, &s3_ops);
	if (!s)
		return 0;
	*out = (floe_iceberg_s3_access){ s->endpoint, s->region, s->path_style, s->access, s->secret, s->token,
					 s->ca_file };
	return 1;
}

/* The process's route (route_s3): strings owned here. */
static struct {
	char *dir;
	floe_iceberg_s3_opts opts;
	char *strings[8];
} route;

static const char *keep(size_t i, const char *v)
{
	free(route.strings[i]);
	route.strings[i] = v ? floe_xstrndup(v, strlen(v)) : NULL;
	return route.strings[i];
}

void floe_iceberg_storage_route_s3(const char *warehouse_dir, const floe_iceberg_s3_opts *opts)
{
	free(route.dir);
	route.dir = NULL;
	if (!opts) {
		for (size_t i = 0; i < 8; i++)
			keep(i, NULL);
		return;
	}
	route.dir = floe_xstrndup(warehouse_dir, strlen(warehouse_dir));
	route.opts = *opts;
	route.opts.location = keep(0, opts->location);
	route.opts.endpoint = keep(1, opts->endpoint);
	route.opts.region = keep(2, opts->region);
	route.opts.access_key_env = keep(3, opts->access_key_env);
	route.opts.secret_key_env = keep(4, opts->secret_key_env);
	route.opts.session_token_env = keep(5, opts->session_token_env);
	route.opts.ca_file = keep(6, opts->ca_file);
}

const floe_iceberg_s3_opts *floe_iceberg_storage_routed_s3(const char *warehouse_dir)
{
	if (!route.dir || !warehouse_dir)
		return NULL;
	size_t a = strlen(route.dir), b = strlen(warehouse_dir);
	while (a > 1 && route.dir[a - 1] == '/')
		a--;
	while (b > 1 && warehouse_dir[b - 1] == '/')
		b--;
	return a == b && memcmp(route.dir, warehouse_dir, a) == 0 ? &route.opts : NULL;
}

const char *floe_iceberg_storage_routed_dir_s3(void)
{
	return route.dir;
}
