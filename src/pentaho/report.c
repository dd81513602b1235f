/*
 * report.c — the coverage report of a translation: per step type and per file the
 * mapped / partial / unmapped counts with reasons, the unmapped steps, the `-- floe:
 * check` markers; Markdown for proposals/pentaho-<name>.md, JSON for --json and
 * proposals/pentaho-<name>.json. And the read-only reader of the latest report.
 */
#include "pentaho/pentaho_int.h"
#include "base/error.h"
#include "base/json.h"
#include "repo/repo.h"

#include <string.h>

static const char *const status_names[] = { "mapped", "partial", "unmapped" };

const char *floe_pentaho_status_name(floe_pentaho_status s)
{
	return status_names[s];
}

void pt_add_step(pt_run *run, const floe_kettle_file *f, size_t i, floe_pentaho_status s, const char *reason)
{
	floe_pentaho_result *r = run->r;
	floe_pentaho_step_result *out = FLOE_ARENA_PUSH(run->a, r->steps, r->n_steps, r->cap_steps);
	out->file = f->rel;
	out->name = f->steps[i].name;
	out->type = f->steps[i].type;
	out->entry = f->is_job;
	out->status = s;
	out->reason = reason;
}

void pt_add_output(pt_run *run, const char *path, const char *content)
{
	floe_pentaho_result *r = run->r;
	floe_pentaho_out_file *o = FLOE_ARENA_PUSH(run->a, r->out, r->n_out, r->cap_out);
	o->path = path;
	o->content = floe_arena_strdup(run->a, content);
	size_t line = 1;
	for (const char *p = o->content; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *m = memmem(p, n, "-- floe: check ", 15);
		if (m) {
			floe_pentaho_check *c = FLOE_ARENA_PUSH(run->a, r->checks, r->n_checks, r->cap_checks);
			c->path = path;
			c->line = line;
			c->text = floe_arena_strndup(run->a, m + 15, n - (size_t)(m + 15 - p));
		}
		p += n + (nl ? 1 : 0);
	}
}

typedef struct counts {
	size_t n[3];
} counts;

static counts count_where(const floe_pentaho_result *r, const char *type, const char *file, int entry)
{
	counts c = { { 0 } };
	for (size_t i = 0; i < r->n_steps; i++) {
		const floe_pentaho_step_result *s = &r->steps[i];
		if ((type && strcmp(s->type, type) != 0) || (file && strcmp(s->file, file) != 0) ||
		    (entry >= 0 && s->entry != (entry == 1)))
			continue;
		c.n[s->status]++;
	}
	return c;
}

/* Whether step i is the first of its (type, entry) in the list: one row per type. */
static bool first_of_type(const floe_pentaho_result *r, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (r->steps[k].entry == r->steps[i].entry && strcmp(r->steps[k].type, r->steps[i].type) == 0)
			return false;
	return true;
}

/* Markdown table text: one line, pipes escaped. */
static void md(floe_buf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			floe_buf_puts(out, "\\|");
		else
			floe_buf_putc(out, *s == '\n' || *s == '\r' ? ' ' : *s);
	}
}

static double unmapped_share(const floe_pentaho_result *r)
{
	counts c = count_where(r, NULL, NULL, 0);
	size_t total = c.n[0] + c.n[1] + c.n[2];
	return total ? 100.0 * (double)c.n[2] / (double)total : 0.0;
}

static void md_types(floe_buf *b, const floe_pentaho_result *r)
{
	floe_buf_puts(b, "\n## By step type\n\n| type | kind | mapped | partial | unmapped | reasons |\n|---|---|---:|---:|---:|---|\n");
	for (size_t i = 0; i < r->n_steps; i++) {
		if (!first_of_type(r, i))
			continue;
		counts c = count_where(r, r->steps[i].type, NULL, r->steps[i].entry);
		floe_buf_puts(b, "| ");
		md(b, r->steps[i].type);
		floe_buf_printf(b, " | %s | %zu | %zu | %zu | ", r->steps[i].entry ? "job entry" : "step", c.n[0], c.n[1], c.n[2]);
		size_t shown = 0;
		for (size_t k = i; k < r->n_steps && shown < 4; k++) { /* the first distinct reasons */
			const floe_pentaho_step_result *s = &r->steps[k];
			bool seen = !s->reason || s->entry != r->steps[i].entry || strcmp(s->type, r->steps[i].type) != 0;
			for (size_t j = i; j < k && !seen; j++)
				seen = r->steps[j].reason && r->steps[j].entry == s->entry &&
				       strcmp(r->steps[j].type, s->type) == 0 && strcmp(r->steps[j].reason, s->reason) == 0;
			if (seen)
				continue;
			floe_buf_puts(b, shown++ ? "; " : "");
			md(b, s->reason);
		}
		floe_buf_puts(b, " |\n");
	}
}

static void md_files(floe_buf *b, const floe_pentaho_result *r)
{
	floe_buf_puts(b, "\n## By file\n\n| file | kind | mapped | partial | unmapped | models / jobs | not read because |\n"
		      "|---|---|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < r->n_files; i++) {
		const floe_pentaho_file_result *f = &r->files[i];
		counts c = count_where(r, NULL, f->rel, -1);
		floe_buf_puts(b, "| ");
		md(b, f->rel);
		floe_buf_printf(b, " | %s | %zu | %zu | %zu | %zu | ", f->is_job ? "job" : "transformation", c.n[0], c.n[1],
				c.n[2], f->n_outputs);
		md(b, f->error ? f->error : "");
		floe_buf_puts(b, " |\n");
	}
}

static void md_steps(floe_buf *b, const floe_pentaho_result *r, floe_pentaho_status want, const char *title)
{
	floe_buf_printf(b, "\n## %s\n\n", title);
	size_t n = 0;
	for (size_t i = 0; i < r->n_steps; i++) {
		const floe_pentaho_step_result *s = &r->steps[i];
		if (s->status != want)
			continue;
		floe_buf_puts(b, "- `");
		md(b, s->file);
		floe_buf_puts(b, "`: ");
		floe_buf_puts(b, s->entry ? "entry \"" : "step \"");
		md(b, s->name);
		floe_buf_puts(b, "\" (");
		md(b, s->type);
		floe_buf_puts(b, "): ");
		md(b, s->reason);
		floe_buf_putc(b, '\n');
		n++;
	}
	if (!n)
		floe_buf_puts(b, "None.\n");
}

int floe_pentaho_render_markdown(floe_buf *b, const floe_pentaho_result *r)
{
	counts s = count_where(r, NULL, NULL, 0), e = count_where(r, NULL, NULL, 1);
	floe_buf_puts(b, "# Pentaho translation \"");
	md(b, r->name);
	floe_buf_printf(b, "\"\n\nWritten by `floe pentaho translate` on branch `%s`. Nothing was run and nothing was "
			"merged: merging this branch is the approval. Every model starts with a header naming its "
			"file and steps; a partly translated step keeps its XML and a `-- floe: check` line; an "
			"unmapped step is a placeholder whose model fails its build (a pre-hook raises) until a person "
			"writes it.\n\n## Coverage\n\n| | total | mapped | partial | unmapped |\n|---|---:|---:|---:|---:|\n"
			"| transformation steps (.ktr) | %zu | %zu | %zu | %zu |\n| job entries (.kjb) | %zu | %zu | %zu | %zu |\n"
			"\nUnmapped transformation steps: %.1f %%. Files read: ", r->branch, s.n[0] + s.n[1] + s.n[2],
			s.n[0], s.n[1], s.n[2], e.n[0] + e.n[1] + e.n[2], e.n[0], e.n[1], e.n[2], unmapped_share(r));
	size_t unread = 0;
	for (size_t i = 0; i < r->n_files; i++)
		unread += r->files[i].error != NULL;
	floe_buf_printf(b, "%zu of %zu.\n", r->n_files - unread, r->n_files);
	md_types(b, r);
	md_files(b, r);
	md_steps(b, r, FLOE_PENTAHO_UNMAPPED, "Unmapped steps");
	md_steps(b, r, FLOE_PENTAHO_PARTIAL, "Partly translated steps");
	floe_buf_printf(b, "\n## `-- floe: check` markers (%zu)\n\n", r->n_checks);
	for (size_t i = 0; i < r->n_checks; i++) {
		floe_buf_printf(b, "- `%s:%zu`: ", r->checks[i].path, r->checks[i].line);
		md(b, r->checks[i].text);
		floe_buf_putc(b, '\n');
	}
	return 0;
}

/* "mapped": n, "partial": n, "unmapped": n — then the object ends. */
static void json_end_counts(floe_json_writer *w, counts c)
{
	for (int k = 0; k < 3; k++)
		floe_json_write_member_int(w, status_names[k], (int64_t)c.n[k]);
	floe_json_write_end_object(w);
}

static void json_counts(floe_json_writer *w, const char *key, counts c)
{
	floe_json_write_key(w, key);
	floe_json_write_begin_object(w, true);
	floe_json_write_member_int(w, "total", (int64_t)(c.n[0] + c.n[1] + c.n[2]));
	json_end_counts(w, c);
}

static void json_types(floe_json_writer *w, const floe_pentaho_result *r)
{
	floe_json_write_key(w, "types");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_steps; i++) {
		if (!first_of_type(r, i))
			continue;
		counts c = count_where(r, r->steps[i].type, NULL, r->steps[i].entry);
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "type", r->steps[i].type);
		floe_json_write_member_bool(w, "entry", r->steps[i].entry);
		json_end_counts(w, c);
	}
	floe_json_write_end_array(w);
}

static void json_files(floe_json_writer *w, const floe_pentaho_result *r)
{
	floe_json_write_key(w, "files");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_files; i++) {
		const floe_pentaho_file_result *f = &r->files[i];
		counts c = count_where(r, NULL, f->rel, -1);
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "file", f->rel);
		floe_json_write_member_cstr(w, "kind", f->is_job ? "job" : "transformation");
		floe_json_write_member_cstr(w, "error", f->error);
		floe_json_write_member_int(w, "outputs", (int64_t)f->n_outputs);
		json_end_counts(w, c);
	}
	floe_json_write_end_array(w);
}

static void json_steps(floe_json_writer *w, const floe_pentaho_result *r)
{
	floe_json_write_key(w, "steps");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_steps; i++) {
		const floe_pentaho_step_result *s = &r->steps[i];
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "file", s->file);
		floe_json_write_member_cstr(w, "name", s->name);
		floe_json_write_member_cstr(w, "type", s->type);
		floe_json_write_member_bool(w, "entry", s->entry);
		floe_json_write_member_cstr(w, "status", status_names[s->status]);
		floe_json_write_member_cstr(w, "reason", s->reason);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
	floe_json_write_key(w, "checks");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_checks; i++) {
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "path", r->checks[i].path);
		floe_json_write_member_int(w, "line", (int64_t)r->checks[i].line);
		floe_json_write_member_cstr(w, "text", r->checks[i].text);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
}

int floe_pentaho_render_json(floe_buf *out, const floe_pentaho_result *r)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "name", r->name);
	floe_json_write_member_cstr(&w, "dir", r->dir);
	floe_json_write_member_cstr(&w, "branch", r->branch);
	floe_json_write_member_cstr(&w, "commit", r->commit[0] ? r->commit : NULL);
	json_counts(&w, "steps_total", count_where(r, NULL, NULL, 0));
	json_counts(&w, "entries_total", count_where(r, NULL, NULL, 1));
	char share[32];
	snprintf(share, sizeof(share), "%.2f", unmapped_share(r));
	floe_json_write_key(&w, "unmapped_percent");
	floe_json_write_number(&w, share);
	json_types(&w, r);
	json_files(&w, r);
	json_steps(&w, r);
	floe_json_write_key(&w, "outputs");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < r->n_out; i++)
		floe_json_write_cstr(&w, r->out[i].path);
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	int rc = floe_json_write_finish(&w);
	floe_buf_putc(out, '\n');
	return rc;
}

int floe_pentaho_report_read(floe_buf *out, const char *pipeline_dir, const char *name)
{
	floe_repo *repo = NULL;
	floe_arena *a = floe_arena_new();
	const char *slug = pt_slug(a, name);
	int error = -1;
	if (!floe_repo_exists(pipeline_dir)) {
		floe_error_set(FLOE_ERR_CONFIG, "no pipeline repository at \"%s\"", pipeline_dir);
		floe_error_hint("Run `floe generate`, then `floe pentaho translate DIR`.");
		goto cleanup;
	}
	if (floe_repo_open(&repo, pipeline_dir, false) < 0 ||
	    floe_repo_read_branch_file(out, repo, floe_arena_printf(a, "floe/pentaho/%s", slug),
				       floe_arena_printf(a, "proposals/pentaho-%s.json", slug)) < 0) {
		floe_error_hint("Translate it first: floe pentaho translate DIR --name %s", slug);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_repo_close(repo);
	floe_arena_free(a);
	return error;
}
