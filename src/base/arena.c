/*
 * arena.c — bump allocator over a list of blocks, plus cleanup callbacks.
 */
#include "base/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE (64 * 1024)
#define ARENA_ALIGN 16

typedef struct arena_block {
	struct arena_block *next;
	size_t used;
	size_t size;
	_Alignas(ARENA_ALIGN) unsigned char data[];
} arena_block;

typedef struct arena_cleanup {
	struct arena_cleanup *next;
	floe_cleanup_fn fn;
	void *data;
} arena_cleanup;

struct floe_arena {
	arena_block *blocks;
	arena_cleanup *cleanups;
};

static void out_of_memory(size_t size)
{
	fprintf(stderr, "floe: out of memory (requested %zu bytes)\n", size);
	abort();
}

void *floe_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *floe_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		out_of_memory(count * size);
	return p;
}

void *floe_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

char *floe_xstrndup(const char *src, size_t len)
{
	char *p = floe_xmalloc(len + 1);
	memcpy(p, src, len);
	p[len] = '\0';
	return p;
}

floe_arena *floe_arena_new(void)
{
	return floe_xcalloc(1, sizeof(floe_arena));
}

void floe_arena_free(floe_arena *arena)
{
	if (!arena)
		return;
	/* Callbacks run newest first: later resources may depend on earlier ones. */
	for (arena_cleanup *c = arena->cleanups; c; c = c->next)
		c->fn(c->data);
	for (arena_block *b = arena->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(arena);
}

void *floe_arena_alloc(floe_arena *arena, size_t size)
{
	size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	arena_block *b = arena->blocks;

	if (need < size)
		out_of_memory(size);
	if (!b || b->size - b->used < need) {
		size_t cap = need > ARENA_BLOCK_SIZE ? need : ARENA_BLOCK_SIZE;
		b = floe_xmalloc(sizeof(arena_block) + cap);
		b->used = 0;
		b->size = cap;
		b->next = arena->blocks;
		arena->blocks = b;
	}
	void *p = b->data + b->used;
	b->used += need;
	memset(p, 0, size);
	return p;
}

char *floe_arena_strndup(floe_arena *arena, const char *src, size_t len)
{
	char *p = floe_arena_alloc(arena, len + 1);
	memcpy(p, src, len);
	p[len] = '\0';
	return p;
}

char *floe_arena_strdup(floe_arena *arena, const char *src)
{
	return floe_arena_strndup(arena, src, strlen(src));
}

char *floe_arena_vprintf(floe_arena *arena, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		n = 0;
	char *p = floe_arena_alloc(arena, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *floe_arena_printf(floe_arena *arena, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = floe_arena_vprintf(arena, fmt, ap);
	va_end(ap);
	return p;
}

void *floe_arena_grow(floe_arena *arena, void *items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return items;
	size_t next = *cap ? 2 * *cap : 16;
	void *bigger = floe_arena_alloc(arena, next * size);
	if (n)
		memcpy(bigger, items, n * size);
	*cap = next;
	return bigger;
}

void floe_arena_on_cleanup(floe_arena *arena, floe_cleanup_fn fn, void *data)
{
	arena_cleanup *c = floe_arena_alloc(arena, sizeof(*c));
	c->fn = fn;
	c->data = data;
	c->next = arena->cleanups;
	arena->cleanups = c;
}
