/*
 * lock_mart.c — the lock's gold marts (top-level "marts"): kept in name order, copied
 * into the lock's arena, written after the tables. `floe gold draft` sets a mart on its
 * proposal branch; `floe generate` carries every merged mart over (floe_lock_build).
 */
#include "plan/lock_int.h"
#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

size_t floe_lock_mart_count(const floe_lock *lock)
{
	return lock ? lock->n_marts : 0;
}

const floe_lock_mart *floe_lock_mart_at(const floe_lock *lock, size_t i)
{
	return &lock->marts[i];
}

const floe_lock_mart *floe_lock_mart_find(const floe_lock *lock, const char *name)
{
	for (size_t i = 0; lock && i < lock->n_marts; i++)
		if (strcmp(lock->marts[i].name, name) == 0)
			return &lock->marts[i];
	return NULL;
}

static const char **copy_strings(floe_arena *a, const char *const *s, size_t n)
{
	const char **out = floe_arena_alloc(a, (n + 1) * sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = floe_arena_strdup(a, s[i]);
	return out;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const floe_lock_mart *)a)->name, ((const floe_lock_mart *)b)->name);
}

void floe_lock_set_mart(floe_lock *lock, const floe_lock_mart *m)
{
	floe_arena *a = lock->arena;
	floe_lock_mart *slot = (floe_lock_mart *)floe_lock_mart_find(lock, m->name);
	if (!slot)
		slot = FLOE_ARENA_PUSH(a, lock->marts, lock->n_marts, lock->cap_marts);
	floe_lock_file *files = floe_arena_alloc(a, (m->n_files + 1) * sizeof(*files));
	for (size_t i = 0; i < m->n_files; i++)
		files[i] = (floe_lock_file){ floe_arena_strdup(a, m->files[i].path), floe_arena_strdup(a, m->files[i].sha256) };
	*slot = (floe_lock_mart){ .name = floe_arena_strdup(a, m->name), .table = floe_arena_strdup(a, m->table),
				  .model = floe_arena_strdup(a, m->model), .hash = floe_arena_strdup(a, m->hash),
				  .reads = copy_strings(a, m->reads, m->n_reads), .n_reads = m->n_reads,
				  .grain = copy_strings(a, m->grain, m->n_grain), .n_grain = m->n_grain,
				  .files = files, .n_files = m->n_files };
	qsort(lock->marts, lock->n_marts, sizeof(*lock->marts), by_name);
}

void floe_lock_write_marts(floe_json_writer *w, const floe_lock *lock)
{
	if (lock->n_marts == 0)
		return;
	floe_json_write_key(w, "marts");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < lock->n_marts; i++) {
		const floe_lock_mart *m = &lock->marts[i];
		floe_json_write_begin_object(w, false);
		floe_json_write_member_cstr(w, "name", m->name);
		floe_json_write_member_cstr(w, "table", m->table);
		floe_json_write_member_cstr(w, "model", m->model);
		floe_json_write_member_strings(w, "reads", m->reads, m->n_reads);
		floe_json_write_member_strings(w, "grain", m->grain, m->n_grain);
		floe_json_write_member_cstr(w, "hash", m->hash);
		floe_json_write_key(w, "files");
		floe_json_write_begin_object(w, false);
		for (size_t k = 0; k < m->n_files; k++)
			floe_json_write_member_cstr(w, m->files[k].path, m->files[k].sha256);
		floe_json_write_end_object(w);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
}
