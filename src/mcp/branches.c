/*
 * branches.c — the tools over the pipeline repository's branches, read through src/repo
 * (never written): floe_schema_changes (open floe/change/… and floe/mart/… branches with
 * their proposals) and floe_pentaho_translation (the reports on floe/pentaho/…, read by
 * floe_pentaho_report_read).
 */
#include "mcp/tools_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "pentaho/pentaho.h"
#include "repo/repo.h"

#include <string.h>
#include <time.h>

#define CHANGE_PREFIX "floe/change/"
#define MART_PREFIX "floe/mart/"
#define PENTAHO_PREFIX "floe/pentaho/"

/* The pipeline repository of the project, opened to read. */
static int open_pipeline(floe_repo **repo, const floe_mcp *m, floe_arena *a)
{
	if (mcp_need_project(m) < 0)
		return -1;
	const char *dir = floe_config_pipeline_dir(a, m->config);
	if (!floe_repo_exists(dir)) {
		floe_error_set(FLOE_ERR_CONFIG, "no pipeline repository at \"%s\"", dir);
		floe_error_hint("Run `floe plan` and `floe generate` first.");
		return -1;
	}
	return floe_repo_open(repo, dir, false);
}

static void put_time(floe_buf *out, int64_t seconds)
{
	char text[32];
	struct tm tm;
	time_t t = (time_t)seconds;
	if (!gmtime_r(&t, &tm) || strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		floe_json_put_member(out, "committed_at", NULL);
	else
		floe_json_put_member(out, "committed_at", text);
}

/* One open branch; a schema change's proposals/<id>.md (the id ends its name) as the proposal. */
static void put_branch(floe_buf *out, floe_repo *repo, const floe_repo_branch *b, bool change)
{
	const char *rest = b->name + strlen(change ? CHANGE_PREFIX : MART_PREFIX);
	const char *slash = strrchr(rest, '/');
	floe_buf proposal = FLOE_BUF_INIT, path = FLOE_BUF_INIT, table = FLOE_BUF_INIT;
	floe_buf_putc(out, '{');
	floe_json_put_member(out, "branch", b->name);
	floe_json_put_member(out, "kind", change ? "schema change" : "mart");
	if (change && slash) {
		floe_buf_put(&table, rest, (size_t)(slash - rest));
		floe_json_put_member(out, "table", table.ptr);
		floe_json_put_member(out, "id", slash + 1);
		floe_buf_printf(&path, "proposals/%s.md", slash + 1);
		if (floe_repo_read_branch_file(&proposal, repo, b->name, path.ptr) < 0)
			floe_error_clear(); /* a branch without its proposal: the summary stands alone */
	} else if (!change)
		floe_json_put_member(out, "mart", rest);
	floe_json_put_member(out, "tip", b->tip);
	floe_json_put_member(out, "summary", b->summary);
	put_time(out, b->time);
	floe_json_put_member(out, "proposal", proposal.len ? proposal.ptr : NULL);
	floe_buf_putc(out, '}');
	floe_buf_free(&proposal);
	floe_buf_free(&path);
	floe_buf_free(&table);
}

int mcp_schema_changes(floe_buf *out, const floe_mcp *m, const floe_json_value *args)
{
	static const char *const prefixes[] = { CHANGE_PREFIX, MART_PREFIX };
	floe_arena *a = floe_arena_new();
	floe_repo *repo = NULL;
	floe_buf items = FLOE_BUF_INIT;
	int error = -1;
	if (mcp_check_args(args, NULL, 0) < 0 || open_pipeline(&repo, m, a) < 0)
		goto cleanup;
	for (size_t p = 0; p < 2; p++) {
		floe_repo_branch *b = NULL;
		size_t n = 0;
		if (floe_repo_branches(&b, &n, repo, prefixes[p]) < 0)
			goto cleanup;
		for (size_t i = 0; i < n; i++)
			if (!b[i].merged && b[i].tip[0]) {
				floe_buf_puts(&items, items.len ? "," : "");
				put_branch(&items, repo, &b[i], p == 0);
			}
		floe_repo_branches_free(b, n);
	}
	floe_buf_printf(out, "{\"branches\":[%s]", items.ptr ? items.ptr : "");
	floe_json_put_member(out, "approve",
			     "A person approves a branch by merging it into main of the pipeline repository (git merge "
			     "BRANCH, or the pull request); `floe run` then deploys it. Deleting it unmerged rejects it.");
	floe_buf_putc(out, '}');
	error = 0;
cleanup:
	floe_repo_close(repo);
	floe_arena_free(a);
	floe_buf_free(&items);
	return error;
}

/* {"name":…,"branch":…,"report":{…}} of translation `name`, appended to `items`. */
static int put_translation(floe_buf *items, const char *pipeline, const char *name)
{
	floe_buf report = FLOE_BUF_INIT;
	int error = -1;
	if (floe_pentaho_report_read(&report, pipeline, name) < 0)
		goto cleanup;
	floe_buf_puts(items, items->len ? ",{" : "{");
	floe_json_put_member(items, "name", name);
	floe_buf branch = FLOE_BUF_INIT;
	floe_buf_printf(&branch, PENTAHO_PREFIX "%s", name);
	floe_json_put_member(items, "branch", branch.ptr);
	floe_buf_free(&branch);
	floe_buf_puts(items, ",\"report\":");
	if (mcp_put_json_text(items, report.ptr, report.len) < 0)
		goto cleanup;
	floe_buf_putc(items, '}');
	error = 0;
cleanup:
	floe_buf_free(&report);
	return error;
}

int mcp_pentaho_translation(floe_buf *out, const floe_mcp *m, const floe_json_value *args)
{
	static const char *const known[] = { "name" };
	const floe_json_value *name = floe_json_get(args, "name");
	floe_arena *a = floe_arena_new();
	floe_repo *repo = NULL;
	floe_repo_branch *b = NULL;
	floe_buf items = FLOE_BUF_INIT;
	size_t n = 0;
	int error = -1;
	if (mcp_check_args(args, known, 1) < 0)
		goto cleanup;
	if (name && (floe_json_type_of(name) != FLOE_JSON_STRING || floe_json_string(name).len == 0 ||
		     strlen(floe_json_string(name).ptr) != floe_json_string(name).len)) {
		floe_error_set(FLOE_ERR_USAGE, "argument \"name\" must be a translation's name (floe pentaho translate --name)");
		goto cleanup;
	}
	if (open_pipeline(&repo, m, a) < 0 || floe_repo_branches(&b, &n, repo, PENTAHO_PREFIX) < 0)
		goto cleanup;
	const char *pipeline = floe_config_pipeline_dir(a, m->config);
	if (name && put_translation(&items, pipeline, floe_json_string(name).ptr) < 0)
		goto cleanup;
	for (size_t i = 0; !name && i < n; i++)
		if (put_translation(&items, pipeline, b[i].name + strlen(PENTAHO_PREFIX)) < 0)
			goto cleanup;
	floe_buf_printf(out, "{\"translations\":[%s]}", items.ptr ? items.ptr : "");
	error = 0;
cleanup:
	floe_repo_branches_free(b, n);
	floe_repo_close(repo);
	floe_arena_free(a);
	floe_buf_free(&items);
	return error;
}
