/*
 * gen.c — the generation step: decide per file whether to write, keep, restore
 * or remove it (the previous lock's hashes tell floe's writing from a person's),
 * write the lock, and commit floe's own files through src/repo.
 */
#include "gen/gen_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/text.h"
#include "plan/lock.h"
#include "repo/repo.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILE_BYTES ((size_t)64 << 20)

struct floe_gen_result {
	floe_arena *arena;
	const char *dir;
	floe_gen_file *files;
	size_t n, cap;
	floe_repo_change *changes; /* what floe commits: its own files, as written */
	size_t n_changes, cap_changes;
	const char *lock_changes;  /* floe_lock_describe_changes */
	const char **notes;        /* floe_gen_note: tests left out and why */
	size_t n_notes, cap_notes;
	char commit[48];
	bool committed;
	const floe_gen_opts *opts;
};

const char *floe_gen_action_name(floe_gen_action action)
{
	static const char *const names[] = { "added", "updated", "unchanged", "restored", "kept", "removed",
					     "kept" };
	return names[action];
}

static void record(floe_gen_result *r, const char *path, floe_gen_action action)
{
	r->files = floe_arena_grow(r->arena, r->files, r->n, &r->cap, sizeof(*r->files));
	r->files[r->n++] = (floe_gen_file){ floe_arena_strdup(r->arena, path), action };
}

static void to_commit(floe_gen_result *r, const char *path, const char *data, size_t len, bool remove)
{
	r->changes = floe_arena_grow(r->arena, r->changes, r->n_changes, &r->cap_changes, sizeof(*r->changes));
	r->changes[r->n_changes++] = (floe_repo_change){ floe_arena_strdup(r->arena, path),
							 data ? floe_arena_strndup(r->arena, data, len) : NULL,
							 len, remove };
}

static const char *full_path(floe_gen_result *r, const char *rel)
{
	return floe_arena_printf(r->arena, "%s/%s", r->dir, rel);
}

/* The SHA-256 of the file at `path` into `hex`; false when it does not exist. */
static int hash_file(bool *exists, char hex[FLOE_SHA256_HEX_LEN + 1], const char *path)
{
	floe_buf b;
	*exists = floe_fs_exists(path);
	if (!*exists)
		return 0;
	floe_buf_init(&b, MAX_FILE_BYTES);
	int rc = floe_fs_read_file(&b, path);
	if (rc == 0)
		floe_sha256_hex(hex, b.ptr ? b.ptr : "", b.len);
	floe_buf_free(&b);
	return rc;
}

static int write_file(floe_gen_result *r, const char *rel, const char *content)
{
	const char *path = full_path(r, rel);
	floe_fs_write_opts o = FLOE_FS_WRITE_OPTS_INIT;
	const char *slash = strrchr(path, '/');
	const char *dir = floe_arena_strndup(r->arena, path, (size_t)(slash - path));
	if (floe_fs_mkdir_p(dir, 0755) < 0 || floe_fs_write_atomic(path, content, strlen(content), &o) < 0)
		return floe_error_context("while writing %s", path);
	return 0;
}

floe_arena *floe_gen_arena(floe_gen_result *r)
{
	return r->arena;
}

void floe_gen_note(floe_gen_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	r->notes = floe_arena_grow(r->arena, r->notes, r->n_notes, &r->cap_notes, sizeof(*r->notes));
	r->notes[r->n_notes++] = floe_arena_vprintf(r->arena, fmt, ap);
	va_end(ap);
}

/* One generated file: write, keep (hand edit), restore, or leave as it is. */
int floe_gen_place(floe_gen_result *r, const char *rel, const char *content, const char *old_hash)
{
	char want[FLOE_SHA256_HEX_LEN + 1], have[FLOE_SHA256_HEX_LEN + 1];
	bool exists;
	floe_sha256_hex(want, content, strlen(content));
	if (hash_file(&exists, have, full_path(r, rel)) < 0)
		return -1;
	floe_gen_action action;
	if (!exists)
		action = old_hash ? FLOE_GEN_RESTORED : FLOE_GEN_ADDED;
	else if (strcmp(have, want) == 0)
		action = FLOE_GEN_UNCHANGED;
	else if (old_hash && strcmp(have, old_hash) == 0)
		action = FLOE_GEN_UPDATED;
	else
		action = FLOE_GEN_KEPT; /* not what floe wrote last: a person's edit */
	if (action != FLOE_GEN_UNCHANGED && action != FLOE_GEN_KEPT && write_file(r, rel, content) < 0)
		return -1;
	if (action != FLOE_GEN_KEPT)
		to_commit(r, rel, content, strlen(content), false);
	record(r, rel, action);
	return 0;
}

/*
 * The files of the merged gold marts (`floe gold draft` wrote them on a branch a person merged):
 * generate does not write them, but reports one that differs from what was drafted as drift.
 */
static int check_marts(floe_gen_result *r, const floe_lock *next)
{
	for (size_t i = 0; i < floe_lock_mart_count(next); i++) {
		const floe_lock_mart *m = floe_lock_mart_at(next, i);
		for (size_t j = 0; j < m->n_files; j++) {
			char have[FLOE_SHA256_HEX_LEN + 1];
			bool exists;
			if (hash_file(&exists, have, full_path(r, m->files[j].path)) < 0)
				return -1;
			if (!exists)
				floe_gen_note(r, "gold mart %s: %s is missing; draft the mart again (floe gold draft)", m->name,
					      m->files[j].path);
			else
				record(r, m->files[j].path,
				       strcmp(have, m->files[j].sha256) == 0 ? FLOE_GEN_UNCHANGED : FLOE_GEN_KEPT);
		}
	}
	return 0;
}

int floe_gen_put_project_file(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const char *rel,
			      const char *content)
{
	char hex[FLOE_SHA256_HEX_LEN + 1];
	floe_sha256_hex(hex, content, strlen(content));
	if (floe_gen_place(r, rel, content, floe_lock_file_hash(prev, rel)) < 0)
		return -1;
	floe_lock_add_project_file(next, rel, hex);
	return 0;
}

int floe_gen_retire(floe_gen_result *r, const char *rel, const char *old_hash)
{
	const char *path = full_path(r, rel);
	char have[FLOE_SHA256_HEX_LEN + 1];
	bool exists;
	if (!old_hash)
		return 0;
	if (hash_file(&exists, have, path) < 0)
		return -1;
	if (exists && strcmp(have, old_hash) != 0) {
		record(r, rel, FLOE_GEN_ORPHANED);
		return 0;
	}
	if (exists && unlink(path) < 0)
		return floe_error_set_errno(FLOE_ERR_IO, "could not remove \"%s\"", path);
	to_commit(r, rel, NULL, 0, true);
	if (exists)
		record(r, rel, FLOE_GEN_REMOVED);
	return 0;
}

/*
 * The Dagster project, or with [orchestrators] dagster = false, the files of the one generated
 * before retired (removed when unedited, kept and reported when edited).
 */
static int dagster_or_retire(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const floe_config *config)
{
	if (config->orchestrators.dagster)
		return floe_gen_dagster(r, next, prev, config);
	for (size_t i = 0; i < floe_lock_project_file_count(prev); i++) {
		const floe_lock_file *f = floe_lock_project_file_at(prev, i);
		if (strncmp(f->path, "dagster/", 8) == 0 && floe_gen_retire(r, f->path, f->sha256) < 0)
			return -1;
	}
	return 0;
}

/* Files of the previous lock that the new one no longer lists. */
static int retire(floe_gen_result *r, const floe_lock *prev, const floe_lock *next)
{
	for (size_t i = 0; i < floe_lock_count(prev); i++) {
		const floe_lock_table *t = floe_lock_at(prev, i);
		for (size_t j = 0; j < t->n_files; j++)
			if (!floe_lock_file_hash(next, t->files[j].path) &&
			    floe_gen_retire(r, t->files[j].path, t->files[j].sha256) < 0)
				return -1;
	}
	return 0;
}

/* Whether schema.name is among the tables whose changes are held back (opts->hold). */
static bool held(const floe_gen_result *r, const char *schema, const char *name)
{
	size_t n = strlen(schema);
	for (size_t i = 0; r->opts && i < r->opts->n_hold; i++) {
		const char *h = r->opts->hold[i];
		if (strncmp(h, schema, n) == 0 && h[n] == '.' && strcmp(h + n + 1, name) == 0)
			return true;
	}
	return false;
}

static void hold_back(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const floe_plan *plan)
{
	for (size_t i = 0; i < floe_plan_count(plan); i++) {
		const floe_plan_table *t = floe_plan_at(plan, i);
		if (held(r, t->schema, t->name))
			floe_lock_keep_table(next, prev, t->schema, t->name);
	}
	for (size_t i = 0; i < floe_lock_count(prev); i++) {
		const floe_lock_table *t = floe_lock_at(prev, i);
		if (held(r, t->schema, t->name))
			floe_lock_keep_table(next, prev, t->schema, t->name);
	}
}

static int write_tables(floe_gen_result *r, const floe_plan *plan, const floe_lock *prev, floe_lock *next)
{
	for (size_t i = 0; i < floe_plan_count(plan); i++) {
		const floe_plan_table *t = floe_plan_at(plan, i);
		if (!t->sql || held(r, t->schema, t->name))
			continue;
		char hex[FLOE_SHA256_HEX_LEN + 1];
		floe_sha256_hex(hex, t->sql, strlen(t->sql));
		floe_lock_set_file_hash(next, t->file, hex);
		if (floe_gen_place(r, t->file, t->sql, floe_lock_file_hash(prev, t->file)) < 0)
			return -1;
	}
	return 0;
}

static int write_lock(floe_gen_result *r, const floe_lock *next)
{
	floe_buf text = FLOE_BUF_INIT, disk = FLOE_BUF_INIT;
	const char *path = full_path(r, FLOE_LOCK_FILE);
	bool existed = floe_fs_exists(path);
	int rc = floe_lock_render(&text, next);
	if (rc == 0 && existed)
		rc = floe_fs_read_file(&disk, path);
	bool same = existed && disk.len == text.len && memcmp(disk.ptr, text.ptr, text.len) == 0;
	if (rc == 0 && !same)
		rc = write_file(r, FLOE_LOCK_FILE, floe_buf_cstr(&text));
	if (rc == 0) {
		to_commit(r, FLOE_LOCK_FILE, text.ptr, text.len, false);
		record(r, FLOE_LOCK_FILE, same ? FLOE_GEN_UNCHANGED : existed ? FLOE_GEN_UPDATED : FLOE_GEN_ADDED);
	}
	floe_buf_free(&text);
	floe_buf_free(&disk);
	return rc;
}

static const char *commit_message(floe_gen_result *r)
{
	floe_buf m = FLOE_BUF_INIT;
	size_t counts[FLOE_GEN_ORPHANED + 1] = { 0 };
	for (size_t i = 0; i < r->n; i++)
		counts[r->files[i].action]++;
	floe_buf_printf(&m, "%s: %zu added, %zu updated, %zu removed, %zu kept as edited\n\n",
			r->opts && r->opts->title ? r->opts->title : "floe generate",
			counts[FLOE_GEN_ADDED] + counts[FLOE_GEN_RESTORED], counts[FLOE_GEN_UPDATED],
			counts[FLOE_GEN_REMOVED], counts[FLOE_GEN_KEPT] + counts[FLOE_GEN_ORPHANED]);
	floe_buf_puts(&m, r->lock_changes);
	for (size_t i = 0; i < r->n_notes; i++) {
		floe_text_put_printable(&m, r->notes[i]);
		floe_buf_putc(&m, '\n');
	}
	for (size_t i = 0; i < r->n; i++) {
		const floe_gen_file *f = &r->files[i];
		if (f->action == FLOE_GEN_UNCHANGED)
			continue;
		floe_buf_printf(&m, "%s %s%s\n", floe_gen_action_name(f->action), f->path,
				f->action == FLOE_GEN_KEPT || f->action == FLOE_GEN_ORPHANED
					? " (edited by hand: drift, not overwritten)" : "");
	}
	const char *s = floe_arena_strdup(r->arena, floe_buf_cstr(&m));
	floe_buf_free(&m);
	return s;
}

static int commit(floe_gen_result *r)
{
	floe_repo *repo = NULL;
	floe_repo_commit_opts o = FLOE_REPO_COMMIT_OPTS_INIT;
	o.message = commit_message(r);
	if (floe_repo_open(&repo, r->dir, true) < 0)
		return -1;
	int rc = floe_repo_commit(&r->committed, r->commit, repo, r->changes, r->n_changes, &o);
	floe_repo_close(repo);
	return rc;
}

int floe_gen_from_plan(floe_gen_result **out, const floe_plan *plan, const floe_config *config, const char *dir)
{
	floe_gen_opts opts = FLOE_GEN_OPTS_INIT;
	opts.dir = dir;
	return floe_gen_from_plan_opts(out, plan, config, &opts);
}

int floe_gen_from_plan_opts(floe_gen_result **out, const floe_plan *plan, const floe_config *config,
			    const floe_gen_opts *opts)
{
	floe_lock *prev = NULL, *next = NULL;
	floe_buf changes = FLOE_BUF_INIT;
	floe_gen_result *r = floe_xcalloc(1, sizeof(*r));
	int error = -1;
	r->arena = floe_arena_new();
	r->opts = opts;
	const char *dir = opts->dir ? opts->dir : floe_config_pipeline_dir(r->arena, config);
	r->dir = floe_arena_strdup(r->arena, dir);
	*out = NULL;
	if (floe_fs_mkdir_p(dir, 0755) < 0 || floe_lock_load(&prev, full_path(r, FLOE_LOCK_FILE)) < 0 ||
	    floe_lock_build(&next, plan, prev) < 0)
		goto cleanup;
	if (floe_gen_silver(r, next, plan, config) < 0)
		goto cleanup;
	hold_back(r, next, prev, plan);
	if (write_tables(r, plan, prev, next) < 0 || floe_gen_dbt(r, next, prev, plan, config) < 0 ||
	    dagster_or_retire(r, next, prev, config) < 0 || floe_gen_airflow(r, next, prev, config) < 0 ||
	    floe_gen_monitoring(r, next, prev, config) < 0 || retire(r, prev, next) < 0 ||
	    check_marts(r, next) < 0 || write_lock(r, next) < 0)
		goto cleanup;
	floe_lock_describe_changes(&changes, prev, next);
	r->lock_changes = floe_arena_strdup(r->arena, floe_buf_cstr(&changes));
	if (commit(r) < 0)
		goto cleanup;
	r->opts = NULL; /* the caller's, borrowed for the call */
	*out = r;
	r = NULL;
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while generating %s", dir);
	floe_buf_free(&changes);
	floe_lock_free(prev);
	floe_lock_free(next);
	floe_gen_result_free(r);
	return error;
}

int floe_gen_run(floe_gen_result **out, const floe_config *config, const floe_gen_opts *opts)
{
	floe_plan *plan = NULL;
	floe_buf dir = FLOE_BUF_INIT;
	*out = NULL;
	if (opts && opts->dir)
		floe_buf_puts(&dir, opts->dir);
	else
		floe_fs_join(&dir, config->project_dir, FLOE_PIPELINE_DIR);
	int rc = floe_plan_build(&plan, config);
	if (rc == 0)
		rc = floe_gen_from_plan(out, plan, config, floe_buf_cstr(&dir));
	floe_plan_free(plan);
	floe_buf_free(&dir);
	return rc;
}

void floe_gen_result_free(floe_gen_result *result)
{
	if (!result)
		return;
	floe_arena_free(result->arena);
	free(result);
}

size_t floe_gen_file_count(const floe_gen_result *result)
{
	return result->n;
}

const floe_gen_file *floe_gen_file_at(const floe_gen_result *result, size_t i)
{
	return &result->files[i];
}

bool floe_gen_has_drift(const floe_gen_result *result)
{
	for (size_t i = 0; i < result->n; i++)
		if (result->files[i].action == FLOE_GEN_KEPT || result->files[i].action == FLOE_GEN_ORPHANED)
			return true;
	return false;
}

const char *floe_gen_commit(const floe_gen_result *result)
{
	return result->committed ? result->commit : NULL;
}

static const char *drift_note(floe_gen_action action)
{
	if (action == FLOE_GEN_KEPT)
		return "  edited by hand: drift from what floe generates; left as it is (delete it to regenerate)";
	if (action == FLOE_GEN_ORPHANED)
		return "  edited by hand, and its table is no longer planned; left as it is";
	return "";
}

int floe_gen_render_text(floe_buf *out, const floe_gen_result *r)
{
	floe_buf_printf(out, "pipeline: %s\n", r->dir);
	for (size_t i = 0; i < r->n; i++)
		floe_buf_printf(out, "  %-9s %s%s\n", floe_gen_action_name(r->files[i].action), r->files[i].path,
				drift_note(r->files[i].action));
	if (r->lock_changes && r->lock_changes[0]) {
		floe_buf_puts(out, "changes:\n");
		for (const char *p = r->lock_changes; *p;) {
			size_t n = strcspn(p, "\n");
			floe_buf_printf(out, "  %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	if (r->n_notes)
		floe_buf_puts(out, "silver:\n");
	for (size_t i = 0; i < r->n_notes; i++) {
		floe_buf_puts(out, "  ");
		floe_text_put_printable(out, r->notes[i]);
		floe_buf_putc(out, '\n');
	}
	if (r->committed)
		return floe_buf_printf(out, "committed %.12s\n", r->commit);
	return floe_buf_puts(out, "nothing changed: no commit\n");
}

int floe_gen_render_json(floe_buf *out, const floe_gen_result *r)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "pipeline", r->dir);
	floe_json_write_member_bool(&w, "committed", r->committed);
	floe_json_write_member_cstr(&w, "commit", r->committed ? r->commit : NULL);
	floe_json_write_member_bool(&w, "drift", floe_gen_has_drift(r));
	floe_json_write_key(&w, "files");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < r->n; i++) {
		floe_json_write_begin_object(&w, true);
		floe_json_write_member_cstr(&w, "path", r->files[i].path);
		floe_json_write_member_cstr(&w, "action", floe_gen_action_name(r->files[i].action));
		floe_json_write_member_bool(&w, "drift", r->files[i].action == FLOE_GEN_KEPT ||
							    r->files[i].action == FLOE_GEN_ORPHANED);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_key(&w, "changes");
	floe_json_write_begin_array(&w, false);
	for (const char *p = r->lock_changes ? r->lock_changes : ""; *p;) {
		size_t n = strcspn(p, "\n");
		floe_json_write_string(&w, p, n);
		p += n + (p[n] == '\n');
	}
	floe_json_write_end_array(&w);
	floe_json_write_member_strings(&w, "notes", r->notes, r->n_notes);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}
