/*
 * gold_testkit.h — what the gold unit tests share: the shop's silver lock
 * (tests/unit/gold/lock.json) and a description resolved against it.
 */
#ifndef FLOE_TESTS_GOLD_TESTKIT_H
#define FLOE_TESTS_GOLD_TESTKIT_H

#include "base/arena.h"
#include "base/error.h"
#include "gold/gold.h"
#include "plan/lock.h"

#include <stdio.h>
#include <string.h>

typedef struct gold_kit {
	floe_arena *arena;
	floe_lock *lock;
	floe_gold_desc *desc;
} gold_kit;

static inline void gold_kit_init(gold_kit *k)
{
	k->arena = floe_arena_new();
	k->desc = NULL;
	if (floe_lock_load(&k->lock, "tests/unit/gold/lock.json") < 0) {
		floe_error_print(stderr);
		k->lock = NULL;
	}
}

static inline floe_gold_mart *gold_kit_resolve(gold_kit *k, const char *md)
{
	floe_gold_mart *m = NULL;
	if (!k->lock || floe_gold_desc_parse(&k->desc, k->arena, "marts/q.md", md, strlen(md)) < 0 ||
	    floe_gold_resolve(&m, k->arena, k->desc, k->lock, NULL) < 0) {
		floe_error_print(stderr);
		return NULL;
	}
	return m;
}

static inline void gold_kit_free(gold_kit *k)
{
	floe_lock_free(k->lock);
	floe_arena_free(k->arena);
}

#endif
