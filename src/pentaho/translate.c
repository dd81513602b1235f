/*
 * translate.c — `floe pentaho translate DIR`: find every .ktr and .kjb under DIR,
 * translate transformations, then jobs (which name the transformations' models),
 * write the report, and commit all of it on branch floe/pentaho/<name> of pipeline/.
 * A file that cannot be read is listed in the report with the reason; nothing is run.
 */
#include "pentaho/pentaho_int.h"
#include "base/error.h"
#include "base/fs.h"
#include "config/config.h"
#include "plan/lock.h"
#include "repo/repo.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 32
#define MAX_FILES 100000

typedef struct found {
	char **paths;
	size_t n, cap;
} found;

static bool has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n > e && strcmp(name + n - e, ext) == 0;
}

/* Every .ktr / .kjb under `rel` of `root` (symbolic links and hidden entries skipped). */
static int walk(found *out, const char *root, const char *rel, int depth)
{
	floe_buf dir = FLOE_BUF_INIT;
	floe_buf_puts(&dir, root);
	if (*rel)
		floe_buf_printf(&dir, "/%s", rel);
	DIR *d = opendir(floe_buf_cstr(&dir));
	int error = 0;
	if (!d) {
		error = floe_error_set_errno(FLOE_ERR_IO, "could not list directory \"%s\"", floe_buf_cstr(&dir));
		goto cleanup;
	}
	for (struct dirent *e; error == 0 && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		floe_buf c = FLOE_BUF_INIT, full = FLOE_BUF_INIT;
		floe_buf_printf(&c, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		floe_buf_printf(&full, "%s/%s", root, floe_buf_cstr(&c));
		struct stat st;
		if (lstat(floe_buf_cstr(&full), &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH)
				error = walk(out, root, floe_buf_cstr(&c), depth + 1);
			else if (S_ISREG(st.st_mode) && (has_ext(e->d_name, ".ktr") || has_ext(e->d_name, ".kjb")) &&
				 out->n < MAX_FILES) {
				out->paths = floe_xrealloc(out->paths, (out->n + 1) * sizeof(char *));
				out->paths[out->n++] = floe_buf_detach(&c, NULL);
			}
		}
		floe_buf_free(&c);
		floe_buf_free(&full);
	}
	closedir(d);
cleanup:
	floe_buf_free(&dir);
	return error;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void translate_file(pt_run *run, const char *dir, const char *rel, bool jobs)
{
	if (has_ext(rel, ".kjb") != jobs)
		return;
	floe_pentaho_file_result *fr = FLOE_ARENA_PUSH(run->a, run->r->files, run->r->n_files, run->r->cap_files);
	fr->rel = floe_arena_strdup(run->a, rel);
	fr->is_job = jobs;
	floe_kettle_file *f = NULL;
	const char *path = floe_arena_printf(run->a, "%s/%s", dir, rel);
	if (floe_kettle_load(&f, run->a, path, fr->rel) < 0) {
		floe_buf msg = FLOE_BUF_INIT;
		floe_error_put_message(&msg, floe_error_last());
		fr->error = floe_arena_strdup(run->a, floe_buf_cstr(&msg));
		floe_buf_free(&msg);
		floe_error_clear();
		return;
	}
	if (f->is_job != jobs) {
		fr->error = jobs ? "the file holds a transformation, not a job" : "the file holds a job, not a transformation";
		return;
	}
	if (jobs)
		pt_translate_job(run, f);
	else
		pt_translate_trans(run, f);
}

/* The macro a variable without a default compiles through: it fails runs and builds until it is given. */
static const char VAR_MACRO[] =
	"{#- floe pentaho translate: a Kettle variable without a default. Compiling shows ${NAME};\n"
	"    run and build fail until it is passed: dbt run --vars '{NAME: value}'. -#}\n"
	"{% macro floe_pentaho_var(name) -%}\n"
	"{%- set v = var(name, none) -%}\n"
	"{%- if v is not none -%}{{ v }}\n"
	"{%- elif execute and flags.WHICH in ['run', 'build', 'test', 'snapshot', 'seed'] -%}\n"
	"{{ exceptions.raise_compiler_error(\"floe: this model needs dbt variable \" ~ name ~ \" (Kettle's ${\" ~ name ~ \"}), which has no default: pass it with --vars\") }}\n"
	"{%- else -%}{{ '${' ~ name ~ '}' }}\n"
	"{%- endif -%}\n"
	"{%- endmacro %}\n";

static int commit(floe_pentaho_result *r, const char *pipeline_dir)
{
	floe_repo *repo = NULL;
	floe_repo_change *changes = floe_xcalloc(r->n_out + 1, sizeof(*changes));
	floe_buf msg = FLOE_BUF_INIT;
	bool committed = false;
	for (size_t i = 0; i < r->n_out; i++) {
		changes[i].path = r->out[i].path;
		changes[i].data = r->out[i].content;
		changes[i].len = strlen(r->out[i].content);
	}
	floe_buf_printf(&msg, "pentaho: translate %s (%zu files) — proposal, review before merging\n", r->name, r->n_files);
	floe_repo_commit_opts o = FLOE_REPO_COMMIT_OPTS_INIT;
	o.message = floe_buf_cstr(&msg);
	o.branch = r->branch;
	o.on_branch_tip = true;
	int error = floe_repo_open(&repo, pipeline_dir, false);
	if (error == 0)
		error = floe_repo_commit(&committed, r->commit, repo, changes, r->n_out, &o);
	if (error == 0 && !committed)
		r->commit[0] = 0;
	floe_repo_close(repo);
	floe_buf_free(&msg);
	free(changes);
	return error;
}

static int prepare(floe_pentaho_result *r, floe_lock **lock, const floe_pentaho_opts *o)
{
	if (!floe_fs_is_dir(o->dir)) {
		floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not a directory", o->dir);
		floe_error_hint("Give the directory that holds the .ktr and .kjb files.");
		return -1;
	}
	if (o->commit && !floe_repo_exists(o->pipeline_dir)) {
		floe_error_set(FLOE_ERR_CONFIG, "no pipeline repository at \"%s\"", o->pipeline_dir);
		floe_error_hint("Run `floe generate` first: the translation is committed on a branch of it, "
				"and its lock resolves source tables to bronze.");
		return -1;
	}
	floe_buf lock_path = FLOE_BUF_INIT;
	floe_fs_join(&lock_path, o->pipeline_dir, FLOE_LOCK_FILE);
	int rc = floe_lock_load(lock, floe_buf_cstr(&lock_path));
	floe_buf_free(&lock_path);
	return rc;
}

int floe_pentaho_translate(floe_pentaho_result **out, const floe_pentaho_opts *o)
{
	floe_arena *a = floe_arena_new();
	floe_pentaho_result *r = floe_arena_alloc(a, sizeof(*r));
	floe_lock *lock = NULL;
	found files = { 0 };
	r->arena = a;
	r->dir = floe_arena_strdup(a, o->dir);
	const char *base = strrchr(o->dir, '/') && strrchr(o->dir, '/')[1] ? strrchr(o->dir, '/') + 1 : o->dir;
	r->name = pt_slug(a, o->name ? o->name : base);
	r->branch = floe_arena_printf(a, "floe/pentaho/%s", r->name);
	pt_run run = { .r = r, .a = a, .name = r->name, .project = pt_slug(a, o->project ? o->project : "project") };
	int error = -1;
	*out = NULL;
	if (prepare(r, &lock, o) < 0 || walk(&files, o->dir, "", 0) < 0)
		goto cleanup;
	run.lock = lock;
	if (files.n)
		qsort(files.paths, files.n, sizeof(char *), by_path);
	for (int jobs = 0; jobs < 2; jobs++)
		for (size_t i = 0; i < files.n; i++)
			translate_file(&run, o->dir, files.paths[i], jobs);
	pt_add_output(&run, "dbt/macros/pentaho/floe_pentaho_var.sql", VAR_MACRO);
	floe_buf md = FLOE_BUF_INIT, json = FLOE_BUF_INIT;
	floe_pentaho_render_markdown(&md, r);
	floe_pentaho_render_json(&json, r);
	pt_add_output(&run, floe_arena_printf(a, "proposals/pentaho-%s.md", r->name), floe_buf_cstr(&md));
	pt_add_output(&run, floe_arena_printf(a, "proposals/pentaho-%s.json", r->name), floe_buf_cstr(&json));
	floe_buf_free(&md);
	floe_buf_free(&json);
	if (o->commit && commit(r, o->pipeline_dir) < 0)
		goto cleanup;
	*out = r;
	error = 0;
cleanup:
	for (size_t i = 0; i < files.n; i++)
		free(files.paths[i]);
	free(files.paths);
	floe_lock_free(lock);
	if (error < 0) {
		floe_error_context("while translating the Pentaho files in %s", o->dir);
		floe_arena_free(a);
	}
	return error;
}

void floe_pentaho_result_free(floe_pentaho_result *r)
{
	if (r)
		floe_arena_free(r->arena);
}
