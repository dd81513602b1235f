/*
 * kafka_produce.c — the streaming tests' producer of exact messages (poison values,
 * tombstones): reads lines `key<TAB>value` from stdin and sends each to
 * TOPIC on BROKERS through src/kafka. A value `\N` is a tombstone; `\xNN` in a value is
 * that byte (so a test can send bytes that are not UTF-8). Prints the count sent.
 *
 *   kafka_produce BROKERS TOPIC < lines
 */
#include "base/buf.h"
#include "base/error.h"
#include "kafka/kafka.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void unescape(floe_buf *out, const char *s)
{
	floe_buf_clear(out);
	for (; *s; s++) {
		unsigned v;
		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1) {
			floe_buf_putc(out, (char)v);
			s += 3;
		} else {
			floe_buf_putc(out, *s);
		}
	}
}

int main(int argc, char **argv)
{
	floe_kafka_opts o = FLOE_KAFKA_OPTS_INIT;
	floe_kafka_client *p = NULL;
	floe_buf value = FLOE_BUF_INIT;
	char line[65536];
	long sent = 0;
	bool txn = argc == 4 && strcmp(argv[3], "--transactional") == 0;
	if (argc != 3 && !txn) {
		fprintf(stderr, "usage: kafka_produce BROKERS TOPIC [--transactional] < lines\n");
		return 2;
	}
	o.brokers = argv[1];
	o.transactional_id = txn ? "floe-tests-producer" : NULL;
	if (floe_kafka_producer_open(&p, &o) < 0 || (txn && floe_kafka_transaction(p, FLOE_KAFKA_TXN_INIT, 30000) < 0))
		goto fail;
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		floe_kafka_txn step = strcmp(line, "BEGIN") == 0 ? FLOE_KAFKA_TXN_BEGIN
				      : strcmp(line, "COMMIT") == 0 ? FLOE_KAFKA_TXN_COMMIT
				      : strcmp(line, "ABORT") == 0 ? FLOE_KAFKA_TXN_ABORT : FLOE_KAFKA_TXN_INIT;
		if (txn && step != FLOE_KAFKA_TXN_INIT) {
			/* an aborted message reaches the log first, so a reader has something to skip */
			if ((step == FLOE_KAFKA_TXN_ABORT && floe_kafka_flush(p, 30000) < 0) ||
			    floe_kafka_transaction(p, step, 30000) < 0)
				goto fail;
			continue;
		}
		char *key = line, *val = strchr(line, '\t');
		if (!val)
			continue;
		*val++ = '\0';
		bool tomb = strcmp(val, "\\N") == 0;
		unescape(&value, val);
		if (floe_kafka_produce(p, argv[2], key, strlen(key), tomb ? NULL : value.ptr, value.len) < 0)
			goto fail;
		sent++;
	}
	if (floe_kafka_flush(p, 30000) < 0)
		goto fail;
	printf("%ld\n", sent);
	floe_kafka_close(p);
	floe_buf_free(&value);
	return 0;
fail:
	floe_error_print(stderr);
	floe_kafka_close(p);
	return 1;
}
