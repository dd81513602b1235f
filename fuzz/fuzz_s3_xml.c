/*
 * fuzz_s3_xml.c — libFuzzer target for the S3 reply reader (src/net/xml.c
 * floe_net_xml_next), which reads what an object store sends back.
 *
 * The first byte picks the element name; the rest is the reply. Every call must
 * return 1, 0 or -1; on 1 the cursor moves forward and stays within the input, and
 * the value holds no NUL (refused, decoded or not) and is no longer than the span it
 * was decoded from; on -1 an error is set. Values are
 * extracted until none is left, as the listing loop does.
 */
#include "base/buf.h"
#include "base/error.h"
#include "net/http.h"

#include <stddef.h>
#include <stdint.h>
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
	static const char *const tags[] = { "Key", "Size", "Code", "UploadId", "NextContinuationToken", "ETag" };
	if (size < 1)
		return 0;
	const char *tag = tags[data[0] % (sizeof(tags) / sizeof(tags[0]))];
	const char *xml = (const char *)data + 1;
	size_t len = size - 1, cur = 0;
	floe_buf v = FLOE_BUF_INIT;
	for (int i = 0; i < 10000; i++) {
		size_t before = cur;
		int rc = floe_net_xml_next(&v, xml, len, &cur, tag);
		require(rc == 1 || rc == 0 || rc == -1);
		if (rc == -1)
			require(floe_error_last() != NULL);
		if (rc != 1)
			break;
		require(cur > before && cur <= len);
		require(memchr(v.ptr ? v.ptr : "", '\0', v.len) == NULL);
		require(v.len <= cur - before);
	}
	floe_error_clear();
	floe_buf_free(&v);
	return 0;
}
