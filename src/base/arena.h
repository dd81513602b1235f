/*
 * arena.h — region allocation with lifetimes (process, run, batch, request).
 *
 * Every allocation made from an arena is released at once by floe_arena_free().
 * Allocation never returns NULL: running out of memory ends the process through
 * one handler with a clear message. Non-memory resources (fds, PGresult, temp
 * files) register cleanup callbacks, run in reverse order of registration.
 */
#ifndef FLOE_BASE_ARENA_H
#define FLOE_BASE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct floe_arena floe_arena;
typedef void (*floe_cleanup_fn)(void *data);

/* Create an arena. Never returns NULL. */
floe_arena *floe_arena_new(void);

/* Release every block and run every cleanup callback. Accepts NULL. */
void floe_arena_free(floe_arena *arena);

/* Zeroed memory owned by the arena, aligned for any type. */
void *floe_arena_alloc(floe_arena *arena, size_t size);

/* Copy of `len` bytes of `src`, NUL-terminated, owned by the arena. */
char *floe_arena_strndup(floe_arena *arena, const char *src, size_t len);
char *floe_arena_strdup(floe_arena *arena, const char *src);

/* Formatted string owned by the arena. */
char *floe_arena_printf(floe_arena *arena, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *floe_arena_vprintf(floe_arena *arena, const char *fmt, va_list ap);

/*
 * Room for one more item in an arena-backed array of `n` items of `size` bytes
 * with capacity *cap: returns `items` when it has room, else a copy with twice
 * the capacity (16 at first; the old block stays until the arena is freed).
 */
void *floe_arena_grow(floe_arena *arena, void *items, size_t n, size_t *cap, size_t size);

/* Append one zeroed item to an arena array: FLOE_ARENA_PUSH(a, v.items, v.n, v.cap)->x = 1. */
#define FLOE_ARENA_PUSH(arena, items, len, cap)                                        \
	((items) = floe_arena_grow((arena), (items), (len), &(cap), sizeof(*(items))), \
	 &(items)[(len)++])

/* Run `fn(data)` when the arena is freed. */
void floe_arena_on_cleanup(floe_arena *arena, floe_cleanup_fn fn, void *data);

/* Heap helpers that share the out-of-memory handler. */
void *floe_xmalloc(size_t size);
void *floe_xcalloc(size_t count, size_t size);
void *floe_xrealloc(void *ptr, size_t size);
char *floe_xstrndup(const char *src, size_t len);

#endif
