/*
 * sync.c — one `floe sync`: under the project's sync lock, settle the proposals made
 * before (merged, rejected, withdrawn), classify the catalog against main's lock, commit
 * what is safe on main (breaking tables held as deployed) and make a branch for each
 * table whose breaking changes have no proposal yet — generated in a linked work tree of
 * pipeline/, so main's work tree is never switched.
 */
#include "sync/sync_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/proc.h"
#include "base/sha256.h"
#include "gen/gen.h"
#include "plan/plan.h"
#include "repo/repo.h"
#include "state/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct ctx {
	const floe_config *config;
	floe_sync_result *r;
	floe_arena *a;
	floe_repo *repo;
	const char *pipeline;
	const floe_plan *plan;
	floe_lock *lock;              /* main's lock, as deployed before this sync */
	const char **hold;            /* tables whose changes main does not take */
	size_t n_hold;
	const char *now;
	floe_repo_pull pulled;
} ctx;

static const char *table_key(floe_arena *a, const char *schema, const char *name)
{
	return floe_arena_printf(a, "%s.%s", schema, name);
}

/* The changes' fingerprint: 8 hex digits of the SHA-256 of what they are. */
static const char *fingerprint(floe_arena *a, const sync_table *t)
{
	floe_buf b = FLOE_BUF_INIT;
	char hex[FLOE_SHA256_HEX_LEN + 1];
	floe_buf_puts(&b, t->table);
	for (size_t i = 0; i < t->n; i++) {
		const floe_sync_change *c = &t->changes[i];
		floe_buf_printf(&b, "\n%s\t%s\t%s\t%s\t%s", floe_sync_class_name(c->cls), c->column ? c->column : "",
				c->old_name ? c->old_name : "", c->before, c->after);
	}
	floe_sha256_hex(hex, b.ptr, b.len);
	floe_buf_free(&b);
	return floe_arena_strndup(a, hex, 8);
}

/* Group the changes by table, each table's action the strongest of its changes'. */
static int group(ctx *c, const floe_sync_table *now, size_t n_now)
{
	floe_sync_result *r = c->r;
	r->actions = floe_arena_alloc(c->a, (r->n_changes + 1) * sizeof(*r->actions));
	r->tables = floe_arena_alloc(c->a, (r->n_changes + 1) * sizeof(*r->tables));
	for (size_t i = 0; i < r->n_changes; i++) {
		floe_sync_change *ch = &r->changes[i];
		if (floe_sync_action_of(&r->actions[i], c->config, ch->cls) < 0)
			return -1;
		const char *key = table_key(c->a, ch->schema, ch->table);
		sync_table *t = r->n_tables ? &r->tables[r->n_tables - 1] : NULL;
		if (!t || strcmp(t->table, key) != 0) {
			t = &r->tables[r->n_tables++];
			*t = (sync_table){ .table = key, .changes = ch, .first = i, .action = FLOE_SYNC_COMMIT };
			for (size_t k = 0; k < n_now; k++)
				if (strcmp(now[k].schema, ch->schema) == 0 && strcmp(now[k].name, ch->table) == 0)
					t->ddl = now[k].ddl, t->bronze = now[k].bronze;
			const floe_lock_table *lt = floe_lock_find(c->lock, ch->schema, ch->table);
			if (!t->bronze && lt)
				t->bronze = lt->bronze;
		}
		t->n++;
		if (r->actions[i] > t->action)
			t->action = r->actions[i];
		t->pauses = t->pauses || floe_sync_class_pauses(ch->cls);
	}
	for (size_t i = 0; i < r->n_tables; i++) {
		sync_table *t = &r->tables[i];
		if (t->action == FLOE_SYNC_COMMIT)
			continue;
		t->id = fingerprint(c->a, t);
		c->hold[c->n_hold++] = t->table;
		r->n_refused += t->action == FLOE_SYNC_REFUSE;
	}
	return 0;
}

/*
 * A deployed table the plan now refuses (a privilege revoked, a type no longer carried) is no
 * schema change: main keeps it as deployed, so its loads fail with the cause rather than
 * being switched off by a sync.
 */
static int hold_refused(ctx *c, const floe_sync_table *dep, size_t n_dep, const floe_sync_table *now, size_t n_now)
{
	for (size_t i = 0; i < n_dep; i++) {
		const floe_sync_table *d = &dep[i];
		for (size_t k = 0; d->loadable && k < n_now; k++)
			if (!now[k].loadable && strcmp(now[k].schema, d->schema) == 0 && strcmp(now[k].name, d->name) == 0)
				c->hold[c->n_hold++] = table_key(c->a, d->schema, d->name);
	}
	return 0;
}

static const sync_table *table_of(const floe_sync_result *r, const char *table)
{
	for (size_t i = 0; i < r->n_tables; i++)
		if (strcmp(r->tables[i].table, table) == 0)
			return &r->tables[i];
	return NULL;
}

static void closed(ctx *c, sync_proposal *p, const char *state)
{
	p->state = state;
	c->r->closed = floe_arena_grow(c->a, c->r->closed, c->r->n_closed, &c->r->cap_closed, sizeof(*c->r->closed));
	c->r->closed[c->r->n_closed++] = floe_arena_printf(c->a, "%s: %s (%s)", state, p->branch, p->table);
}

/*
 * What became of each open or rejected proposal: merged (its tip is in main), withdrawn
 * (its table's changes are gone: the source changed back), superseded (they changed
 * again), rejected (its branch was deleted unmerged), else still open.
 */
static int settle(ctx *c)
{
	sync_ledger *l = &c->r->ledger;
	for (size_t i = 0; i < l->n; i++) {
		sync_proposal *p = &l->items[i];
		if (strcmp(p->state, "open") != 0 && strcmp(p->state, "rejected") != 0 && strcmp(p->state, "refused") != 0)
			continue;
		bool merged = false, exists = false;
		char tip[48];
		if (floe_repo_merged(&merged, c->repo, p->commit) < 0 ||
		    (p->branch[0] && floe_repo_branch_tip(&exists, tip, c->repo, p->branch) < 0))
			return -1;
		const sync_table *t = table_of(c->r, p->table);
		if (merged)
			closed(c, p, "merged");
		else if (!t || !t->id)
			closed(c, p, "withdrawn");
		else if (strcmp(t->id, p->id) != 0)
			closed(c, p, "superseded");
		else if (!exists && strcmp(p->state, "open") == 0)
			closed(c, p, "rejected");
	}
	return 0;
}

static int commit_main(ctx *c)
{
	floe_gen_result *g = NULL;
	floe_gen_opts o = FLOE_GEN_OPTS_INIT;
	o.dir = c->pipeline;
	o.hold = c->hold;
	o.n_hold = c->n_hold;
	o.title = "floe sync";
	if (floe_gen_from_plan_opts(&g, c->plan, c->config, &o) < 0)
		return -1;
	const char *id = floe_gen_commit(g);
	c->r->commit = id ? floe_arena_strdup(c->a, id) : NULL;
	floe_gen_result_free(g);
	return 0;
}

/* The lock of the work tree at `dir`, and the JSON text of main's (its gold `marts`), for the proposal. */
static int read_lock(floe_lock **out, floe_buf *json, ctx *c, const char *dir, const char *main_dir)
{
	if (floe_lock_load(out, floe_arena_printf(c->a, "%s/" FLOE_LOCK_FILE, dir)) < 0)
		return -1;
	return floe_fs_read_file(json, floe_arena_printf(c->a, "%s/" FLOE_LOCK_FILE, main_dir));
}

/* In the branch's work tree: generate with every other held table held, then write the proposal. */
static int fill_branch(ctx *c, sync_table *t, const char *dir, const char *first_seen, char tip[48],
		       const char **text_out)
{
	floe_gen_result *g = NULL;
	floe_lock *after = NULL;
	floe_repo *wt = NULL;
	floe_buf json = FLOE_BUF_INIT;
	floe_gen_opts o = FLOE_GEN_OPTS_INIT;
	floe_repo_commit_opts co = FLOE_REPO_COMMIT_OPTS_INIT;
	const char **others = floe_arena_alloc(c->a, (c->n_hold + 1) * sizeof(*others));
	bool committed;
	int error = -1;
	o.dir = dir;
	o.hold = others;
	o.title = floe_arena_printf(c->a, "floe sync: proposed change %s to %s", t->id, t->table);
	for (size_t i = 0; i < c->n_hold; i++)
		if (strcmp(c->hold[i], t->table) != 0)
			others[o.n_hold++] = c->hold[i];
	if (floe_gen_from_plan_opts(&g, c->plan, c->config, &o) < 0 || read_lock(&after, &json, c, dir, c->pipeline) < 0)
		goto cleanup;
	const char *text = sync_proposal_text(c->a, t, c->lock, after, first_seen, floe_buf_cstr(&json));
	*text_out = text;
	floe_repo_change ch = { floe_arena_printf(c->a, "proposals/%s.md", t->id), text, strlen(text), false };
	const char *path = floe_arena_printf(c->a, "%s/%s", dir, ch.path);
	floe_fs_write_opts wo = FLOE_FS_WRITE_OPTS_INIT;
	co.message = floe_arena_printf(c->a, "floe sync: proposal %s for %s\n\n%s", t->id, t->table, text);
	if (floe_fs_mkdir_p(floe_arena_printf(c->a, "%s/proposals", dir), 0755) < 0 ||
	    floe_fs_write_atomic(path, text, ch.len, &wo) < 0 || floe_repo_open(&wt, dir, false) < 0 ||
	    floe_repo_commit(&committed, tip, wt, &ch, 1, &co) < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_repo_close(wt);
	floe_buf_free(&json);
	floe_lock_free(after);
	floe_gen_result_free(g);
	return error;
}

/* The branch's name: floe/change/<table>/<id>, the table as its bronze file names it. */
static const char *branch_name(ctx *c, const sync_table *t)
{
	const char *file = floe_plan_file_name(c->a, t->bronze ? t->bronze : t->table); /* "bronze/<stem>.sql" */
	const char *stem = strchr(file, '/') ? strchr(file, '/') + 1 : file;
	return floe_arena_printf(c->a, "floe/change/%.*s/%s", (int)(strlen(stem) - 4), stem, t->id);
}

/* `gh pr create` for the pushed branch: title, and the proposal as the body. */
static const char *pull_request(ctx *c, const sync_proposal *p, const char *body)
{
	floe_proc_result res;
	floe_proc_opts o = FLOE_PROC_OPTS_INIT;
	const char *title = floe_arena_printf(c->a, "floe: %s (%s)", p->summary, p->table);
	const char *argv[] = { "gh", "pr", "create", "--base", "main", "--head", p->branch, "--title", title,
			       "--body", body, NULL };
	if (!floe_proc_have("gh"))
		return floe_arena_printf(c->a, "open one by hand: gh is not installed (branch pushed to %s)",
					 c->config->git_remote);
	o.cwd = c->pipeline;
	if (floe_proc_run(&res, argv, &o) < 0) {
		floe_error_clear();
		return "open one by hand: gh could not be started";
	}
	const char *pr = res.exit_code == 0
		? floe_arena_printf(c->a, "opened %.*s", (int)strcspn(floe_buf_cstr(&res.out), "\n"), floe_buf_cstr(&res.out))
		: floe_arena_printf(c->a, "open one by hand: gh pr create exited %d (%.*s)", res.exit_code,
				    (int)strcspn(floe_buf_cstr(&res.err), "\n"), floe_buf_cstr(&res.err));
	floe_proc_result_free(&res);
	return pr;
}

/* [git] remote: push the new branch (never forced), then ask for a pull request. */
static int publish(ctx *c, sync_proposal *p, const char *body)
{
	if (!c->config->git_remote[0])
		return 0;
	if (floe_repo_push(c->repo, c->config->git_remote, p->branch) < 0)
		return floe_error_context("while pushing %s", p->branch);
	p->pr = pull_request(c, p, body);
	return 0;
}

static int propose(ctx *c, sync_table *t, const char *first_seen)
{
	const char *work = floe_arena_printf(c->a, "%s/.floe/sync/work", c->config->project_dir);
	const char *dir = floe_arena_printf(c->a, "%s/%s", work, t->id);
	const char *branch = branch_name(c, t);
	char tip[48] = "";
	const char *text = NULL;
	if (floe_fs_mkdir_p(work, 0700) < 0)
		return -1;
	if (floe_fs_exists(dir)) {
		floe_repo_worktree_remove(c->repo, t->id); /* a sync that died half way */
		floe_fs_remove_tree(dir);
	}
	if (floe_repo_worktree_add(c->repo, t->id, dir, branch) < 0)
		return floe_error_context("while making branch %s", branch);
	int rc = fill_branch(c, t, dir, first_seen, tip, &text);
	if (floe_repo_worktree_remove(c->repo, t->id) < 0 && rc == 0)
		rc = -1;
	if (rc < 0)
		return floe_error_context("while making branch %s", branch);
	sync_proposal *p = sync_ledger_add(&c->r->ledger, c->a);
	floe_buf summary = FLOE_BUF_INIT;
	for (size_t i = 0; i < t->n; i++)
		floe_buf_printf(&summary, "%s%s", i ? "; " : "", t->changes[i].what);
	*p = (sync_proposal){ .id = t->id, .table = t->table, .bronze = t->bronze ? t->bronze : "", .branch = branch,
			      .commit = floe_arena_strdup(c->a, tip), .state = "open", .pauses = t->pauses,
			      .first_seen = first_seen, .summary = floe_arena_strdup(c->a, floe_buf_cstr(&summary)),
			      .pr = "" };
	floe_buf_free(&summary);
	t->proposal = p;
	t->proposed_now = true;
	return publish(c, p, text);
}

/* A refused table pauses like a proposed one (when its class pauses), without a branch. */
static void refuse(ctx *c, sync_table *t)
{
	sync_proposal *p = sync_ledger_add(&c->r->ledger, c->a);
	*p = (sync_proposal){ .id = t->id, .table = t->table, .bronze = t->bronze ? t->bronze : "",
			      .branch = "", .commit = "", .state = "refused",
			      .pauses = t->pauses, .first_seen = c->now, .summary = t->changes[0].what, .pr = "" };
	t->proposal = p;
}

static bool repropose_of(const floe_sync_opts *o, const sync_table *t)
{
	if (!o || !o->repropose)
		return false;
	return strcmp(o->repropose, t->table) == 0 || (t->bronze && strcmp(o->repropose, t->bronze) == 0);
}

/* Each held table: its standing proposal, or a new branch. */
static int proposals(ctx *c, const floe_sync_opts *opts)
{
	for (size_t i = 0; i < c->r->n_tables; i++) {
		sync_table *t = &c->r->tables[i];
		if (t->action == FLOE_SYNC_COMMIT)
			continue;
		sync_proposal *p = sync_ledger_live(&c->r->ledger, t->table);
		const char *first_seen = c->now;
		if (p && strcmp(p->id, t->id) == 0 && strcmp(p->state, "rejected") == 0 && repropose_of(opts, t)) {
			first_seen = p->first_seen;
			p->state = "reproposed";
			p = NULL;
		}
		if (p && strcmp(p->state, "refused") == 0 && t->action != FLOE_SYNC_REFUSE) {
			p->state = "superseded"; /* [policy] no longer refuses it */
			p = NULL;
		}
		if (p && strcmp(p->id, t->id) == 0) {
			t->proposal = p;
			continue;
		}
		if (t->action == FLOE_SYNC_REFUSE)
			refuse(c, t);
		else if (propose(c, t, first_seen) < 0)
			return -1;
	}
	return 0;
}

static int check_repo(ctx *c)
{
	char head[48], branch[256];
	if (!floe_repo_exists(c->pipeline)) {
		floe_error_set(FLOE_ERR_CONFIG, "\"%s\" is not a git repository", c->pipeline);
		floe_error_hint("Run `floe generate` first: it writes pipeline/ and commits the deployed plan.");
		return -1;
	}
	if (floe_repo_open(&c->repo, c->pipeline, false) < 0 || floe_repo_head(c->repo, head, branch, sizeof(branch)) < 0)
		return -1;
	if (strcmp(branch, "main") != 0) {
		floe_error_set(FLOE_ERR_CONFIG, "pipeline/ is on branch \"%s\", not main", branch[0] ? branch : "(detached)");
		floe_error_hint("floe syncs main only: `git -C pipeline checkout main`, then run floe sync again.");
		return -1;
	}
	return 0;
}

/* [git] remote: main first fast-forwarded from the remote's (a merge done on the forge arrives here). */
static int pull(ctx *c)
{
	if (!c->config->git_remote[0])
		return 0;
	if (floe_repo_pull_main(&c->pulled, c->repo, c->config->git_remote) < 0)
		return floe_error_context("while bringing main up to %s/main", c->config->git_remote);
	return 0;
}

/* [git] remote: main pushed when it has commits the remote lacks (safe changes floe committed). */
static int push_main(ctx *c)
{
	if (!c->config->git_remote[0] || (!c->r->commit && c->pulled != FLOE_REPO_AHEAD))
		return 0;
	return floe_repo_push(c->repo, c->config->git_remote, "main");
}

static int sync_locked(ctx *c, const floe_sync_opts *opts)
{
	floe_plan *plan = NULL;
	floe_sync_table *dep = NULL, *now = NULL;
	size_t n_dep = 0, n_now = 0;
	int error = -1;
	c->pipeline = floe_config_pipeline_dir(c->a, c->config);
	if (check_repo(c) < 0 || pull(c) < 0 || sync_ledger_load(&c->r->ledger, c->a, c->config->project_dir) < 0 ||
	    floe_lock_load(&c->lock, floe_config_lock_path(c->a, c->config)) < 0 || floe_plan_build(&plan, c->config) < 0)
		goto cleanup;
	c->plan = plan;
	floe_sync_from_lock(&dep, &n_dep, c->a, c->lock);
	floe_sync_from_plan(&now, &n_now, c->a, plan);
	floe_sync_classify(&c->r->changes, &c->r->n_changes, c->a, dep, n_dep, now, n_now);
	c->hold = floe_arena_alloc(c->a, (c->r->n_changes + n_dep + 1) * sizeof(*c->hold));
	if (group(c, now, n_now) < 0 || hold_refused(c, dep, n_dep, now, n_now) < 0 || settle(c) < 0 || commit_main(c) < 0 || push_main(c) < 0 ||
	    proposals(c, opts) < 0)
		goto cleanup;
	error = 0;
cleanup:
	/* what was made stays recorded, even when a later step failed */
	if (c->r->ledger.n && sync_ledger_save(&c->r->ledger, c->config->project_dir) < 0)
		error = -1;
	floe_plan_free(plan);
	return error;
}

int floe_sync_run(floe_sync_result **out, const floe_config *config, const floe_sync_opts *opts)
{
	floe_table_lock *held = NULL;
	floe_sync_result *r = floe_xcalloc(1, sizeof(*r));
	char now[32], who[64];
	r->arena = floe_arena_new();
	ctx c = { .config = config, .r = r, .a = r->arena };
	int error = -1;
	*out = NULL;
	floe_state_now(now, sizeof(now));
	c.now = floe_arena_strdup(c.a, now);
	snprintf(who, sizeof(who), "sync-%d", (int)getpid());
	if (floe_state_lock(&held, config->project_dir, "floe_sync", who) < 0) {
		const floe_error *e = floe_error_last();
		if (e && e->cls == FLOE_ERR_CONFLICT) {
			const char *holder = floe_arena_strdup(c.a, e->subject ? e->subject : "another process");
			floe_error_set(FLOE_ERR_CONFLICT, "another floe sync holds the project's sync lock: %s", holder);
			floe_error_hint("Two syncs never run at once; this one changed nothing. Run it again once "
					"that one has finished.");
		}
		goto cleanup;
	}
	if (sync_locked(&c, opts) < 0)
		goto cleanup;
	*out = r;
	r = NULL;
	error = 0;
cleanup:
	floe_repo_close(c.repo);
	floe_lock_free(c.lock);
	floe_state_unlock(held);
	floe_sync_result_free(r);
	return error;
}

void floe_sync_result_free(floe_sync_result *result)
{
	if (!result)
		return;
	floe_arena_free(result->arena);
	free(result);
}

int floe_sync_exit_code(const floe_sync_result *result)
{
	return result->n_refused ? 1 : 0;
}

bool floe_sync_has_news(const floe_sync_result *result)
{
	return result->n_tables || result->n_closed || result->commit;
}
