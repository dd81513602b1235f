/*
 * draft.c — `floe gold draft marts/<name>.md`: the description resolved against the
 * deployed lock; its `## Questions` section rewritten (or removed once none remains);
 * with no question, the proposal committed on the branch floe/mart/<name> of the
 * pipeline repository — the model, its schema file, its reconciliation tests and the
 * lock with the mart in its "marts" — leaving HEAD and the work tree alone. Merging
 * the branch is the approval.
 */
#include "gold/gold_int.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/text.h"
#include "gen/gen.h"
#include "repo/repo.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DESC_BYTES ((size_t)1 << 20)

/* Rewrite the description when its questions changed. */
static int write_questions(const char *path, const floe_gold_desc *d, const char *old, size_t old_len,
			   const floe_gold_question *q, size_t n)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_fs_write_opts o = FLOE_FS_WRITE_OPTS_INIT;
	int rc = floe_gold_desc_with_questions(&b, d, q, n);
	if (rc == 0 && (b.len != old_len || memcmp(b.ptr, old, old_len) != 0))
		rc = floe_fs_write_atomic(path, b.ptr, b.len, &o);
	floe_buf_free(&b);
	return rc;
}

static const char *hex_of(floe_arena *a, const char *text)
{
	char hex[FLOE_SHA256_HEX_LEN + 1];
	floe_sha256_hex(hex, text, strlen(text));
	return floe_arena_strdup(a, hex);
}

/* The mart's files as repository changes, and its lock entry. */
static void changes_of(floe_repo_change **out, size_t *n, floe_lock_mart *lm, floe_arena *a, const floe_gold_proposal *p)
{
	size_t count = 2 + p->n_tests;
	floe_repo_change *c = floe_arena_alloc(a, (count + 2) * sizeof(*c)); /* + the Airflow DAG and the lock */
	floe_lock_file *files = floe_arena_alloc(a, count * sizeof(*files));
	c[0] = (floe_repo_change){ .path = p->model_path, .data = p->model, .len = strlen(p->model) };
	c[1] = (floe_repo_change){ .path = p->schema_path, .data = p->schema, .len = strlen(p->schema) };
	for (size_t i = 0; i < p->n_tests; i++)
		c[2 + i] = (floe_repo_change){ .path = p->test_paths[i], .data = p->tests[i], .len = strlen(p->tests[i]) };
	for (size_t i = 0; i < count; i++)
		files[i] = (floe_lock_file){ .path = c[i].path, .sha256 = hex_of(a, c[i].data) };
	*lm = (floe_lock_mart){ .name = p->name, .table = floe_arena_printf(a, "gold.%s", p->name),
				.model = p->model_path, .reads = p->tables, .n_reads = p->n_tables, .grain = p->grain,
				.n_grain = p->n_grain, .hash = files[0].sha256, .files = files, .n_files = count };
	*out = c;
	*n = count;
}

static const char *commit_message(floe_arena *a, const floe_gold_desc *d, const floe_gold_proposal *p)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "floe gold draft: mart %s from %s\n\nReads ", p->name, d->file);
	for (size_t i = 0; i < p->n_tables; i++)
		floe_buf_printf(&b, "%s%s", i ? ", " : "", p->tables[i]);
	floe_buf_puts(&b, ".\nMerge this branch to approve the mart; `floe run` then builds it (--layer gold).\n");
	const char *s = floe_arena_strdup(a, b.ptr);
	floe_buf_free(&b);
	return s;
}

static int propose(floe_gold_draft_result *r, const floe_gold_desc *d, floe_lock *lock, const char *dir,
		   const floe_config *config)
{
	floe_repo *repo = NULL;
	floe_repo_change *c = NULL;
	floe_lock_mart lm;
	floe_buf lock_text = FLOE_BUF_INIT, dag = FLOE_BUF_INIT;
	const char *dag_path = NULL;
	size_t n = 0;
	bool committed = false;
	int error = -1;
	if (!floe_repo_exists(dir)) {
		floe_error_set(FLOE_ERR_CONFIG, "\"%s\" is not a git repository: there is nowhere to propose the mart", dir);
		floe_error_hint("Run `floe generate`: it writes pipeline/ as a git repository.");
		return -1;
	}
	changes_of(&c, &n, &lm, r->arena, r->proposal);
	floe_lock_set_mart(lock, &lm);
	if (floe_gen_airflow_for_lock(&dag_path, &dag, lock, config, r->arena) < 0 || floe_lock_render(&lock_text, lock) < 0)
		goto cleanup;
	if (dag_path)
		c[n++] = (floe_repo_change){ .path = dag_path, .data = dag.ptr, .len = dag.len };
	c[n++] = (floe_repo_change){ .path = FLOE_LOCK_FILE, .data = lock_text.ptr, .len = lock_text.len };
	floe_repo_commit_opts o = FLOE_REPO_COMMIT_OPTS_INIT;
	o.message = commit_message(r->arena, d, r->proposal);
	o.branch = r->branch = floe_arena_printf(r->arena, "floe/mart/%s", d->mart);
	if (floe_repo_open(&repo, dir, false) < 0 || floe_repo_commit(&committed, r->commit, repo, c, n, &o) < 0)
		goto cleanup;
	if (!committed)
		r->commit[0] = '\0';
	error = 0;
cleanup:
	floe_repo_close(repo);
	floe_buf_free(&lock_text);
	floe_buf_free(&dag);
	return error;
}

static void free_lock(void *lock)
{
	floe_lock_free(lock);
}

/* `path`: the description (relative paths are the project's); messages name it as given (r->file). */
static int draft(floe_gold_draft_result *r, const char *path, const char *dir, const floe_gold_model *model,
		 const floe_config *config)
{
	floe_buf text;
	floe_lock *lock = NULL;
	floe_gold_desc *d = NULL;
	floe_gold_mart *m = NULL;
	floe_gold_proposal *p = NULL;
	floe_lock *lock_owned = NULL;
	int error = -1;
	floe_buf_init(&text, MAX_DESC_BYTES);
	const char *lock_path = floe_arena_printf(r->arena, "%s/%s", dir, FLOE_LOCK_FILE);
	if (floe_fs_read_file(&text, path) < 0 ||
	    floe_gold_desc_parse(&d, r->arena, r->file, text.ptr ? text.ptr : "", text.len) < 0)
		goto cleanup;
	r->mart = d->mart;
	if (!floe_fs_exists(lock_path)) {
		floe_error_set(FLOE_ERR_CONFIG, "there is no deployed plan at \"%s\"", lock_path);
		floe_error_hint("Run `floe generate` (and `floe run` for silver) before drafting a mart.");
		goto cleanup;
	}
	if (floe_lock_load(&lock, lock_path) < 0)
		goto cleanup;
	floe_arena_on_cleanup(r->arena, free_lock, lock); /* the mart and its proposal borrow the lock's names */
	lock_owned = lock;
	if (floe_gold_resolve(&m, r->arena, d, lock_owned, model) < 0)
		goto cleanup;
	r->n_questions = floe_gold_question_count(m);
	r->questions = r->n_questions ? m->questions : NULL;
	if (write_questions(path, d, text.ptr ? text.ptr : "", text.len, r->questions, r->n_questions) < 0)
		goto cleanup;
	if (r->n_questions == 0) {
		if (floe_gold_propose(&p, r->arena, m) < 0)
			goto cleanup;
		r->proposal = p;
		if (propose(r, d, lock_owned, dir, config) < 0)
			goto cleanup;
	}
	error = 0;
cleanup:
	if (!lock_owned)
		floe_lock_free(lock);
	floe_buf_free(&text);
	return error;
}

int floe_gold_draft(floe_gold_draft_result *out, const floe_config *config, const char *path,
		    const floe_gold_draft_opts *opts)
{
	memset(out, 0, sizeof(*out));
	out->arena = floe_arena_new();
	out->file = floe_arena_strdup(out->arena, path);
	const char *dir = opts && opts->pipeline_dir ? opts->pipeline_dir
		: floe_arena_printf(out->arena, "%s/%s", config->project_dir, FLOE_PIPELINE_DIR);
	const char *full = path[0] == '/' ? path : floe_arena_printf(out->arena, "%s/%s", config->project_dir, path);
	floe_gold_model model = { .name = config->gold_model, .endpoint = config->gold_endpoint };
	if (draft(out, full, dir, &model, config) < 0)
		return floe_error_context("while drafting the mart described in %s", path);
	return 0;
}

void floe_gold_draft_result_free(floe_gold_draft_result *r)
{
	if (r)
		floe_arena_free(r->arena);
}

int floe_gold_draft_render_text(floe_buf *out, const floe_gold_draft_result *r)
{
	floe_text_put_printable(out, r->file);
	if (r->n_questions) {
		floe_buf_printf(out, ": %zu question%s, written under \"## Questions\" in the file; no SQL until each is "
				"answered there\n", r->n_questions, r->n_questions == 1 ? "" : "s");
		for (size_t i = 0; i < r->n_questions; i++) {
			floe_buf_printf(out, "  %zu. %s (line %d): ", i + 1, r->questions[i].term, r->questions[i].line);
			floe_text_put_printable(out, r->questions[i].text);
			floe_buf_putc(out, '\n');
		}
		return 0;
	}
	const floe_gold_proposal *p = r->proposal;
	floe_buf_printf(out, ": mart %s resolved\n", r->mart);
	if (r->commit[0])
		floe_buf_printf(out, "proposed on branch %s (commit %.12s):\n", r->branch, r->commit);
	else
		floe_buf_printf(out, "nothing new to propose: the pipeline's HEAD or branch %s already holds it:\n",
				r->branch);
	floe_buf_printf(out, "  %s\n  %s\n", p->model_path, p->schema_path);
	for (size_t i = 0; i < p->n_tests; i++)
		floe_buf_printf(out, "  %s\n", p->test_paths[i]);
	floe_buf_puts(out, "reads:");
	for (size_t i = 0; i < p->n_reads; i++) {
		floe_buf_puts(out, i ? ", " : " ");
		floe_text_put_printable(out, p->reads[i]);
	}
	return floe_buf_puts(out, "\nmerge the branch into main to approve; `floe run` then builds gold.");
}

int floe_gold_draft_render_json(floe_buf *out, const floe_gold_draft_result *r)
{
	floe_json_writer w;
	const floe_gold_proposal *p = r->proposal;
	floe_json_write_init(&w, out, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "mart", r->mart);
	floe_json_write_member_cstr(&w, "file", r->file);
	floe_json_write_member_bool(&w, "resolved", r->n_questions == 0);
	floe_json_write_key(&w, "questions");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < r->n_questions; i++) {
		floe_json_write_begin_object(&w, true);
		floe_json_write_member_int(&w, "number", (int64_t)i + 1);
		floe_json_write_member_cstr(&w, "kind", floe_gold_question_kind_name(r->questions[i].kind));
		floe_json_write_member_cstr(&w, "term", r->questions[i].term);
		floe_json_write_member_int(&w, "line", r->questions[i].line);
		floe_json_write_member_cstr(&w, "text", r->questions[i].text);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_member_cstr(&w, "branch", p ? r->branch : NULL);
	floe_json_write_member_cstr(&w, "commit", p && r->commit[0] ? r->commit : NULL);
	floe_json_write_member_cstr(&w, "model", p ? p->model_path : NULL);
	floe_json_write_member_strings(&w, "tests", p ? p->test_paths : NULL, p ? p->n_tests : 0);
	floe_json_write_member_strings(&w, "tables", p ? p->tables : NULL, p ? p->n_tables : 0);
	floe_json_write_member_strings(&w, "reads", p ? p->reads : NULL, p ? p->n_reads : 0);
	floe_json_write_member_strings(&w, "grain", p ? p->grain : NULL, p ? p->n_grain : 0);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}
