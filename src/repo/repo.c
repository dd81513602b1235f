/*
 * repo.c — libgit2: open or create a repository, and commit a set of paths on
 * top of HEAD through an in-memory index (the repository's own index is only
 * brought in line for those paths afterwards).
 */
#include "repo/repo.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_AUTHOR "floe"
#define DEFAULT_EMAIL "floe@localhost"

struct floe_repo {
	git_repository *git;
	char *path;
};

/* Translate libgit2's last error; returns -1. */
static int git_fail(const char *what, const char *path)
{
	const git_error *e = git_error_last();
	floe_error_set(FLOE_ERR_IO, "could not %s in git repository \"%s\": %s", what, path,
		       e && e->message ? e->message : "unknown libgit2 error");
	return -1;
}

bool floe_repo_exists(const char *path)
{
	floe_buf dotgit = FLOE_BUF_INIT;
	floe_fs_join(&dotgit, path, ".git");
	bool yes = floe_fs_exists(floe_buf_cstr(&dotgit));
	floe_buf_free(&dotgit);
	return yes;
}

static int create_repo(git_repository **out, const char *path)
{
	git_repository_init_options o;
	git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	o.flags = GIT_REPOSITORY_INIT_MKPATH;
	o.initial_head = "main";
	return git_repository_init_ext(out, path, &o);
}

int floe_repo_open(floe_repo **out, const char *path, bool create)
{
	git_repository *git = NULL;
	*out = NULL;
	git_libgit2_init();
	int rc = floe_repo_exists(path) || !create ? git_repository_open(&git, path) : create_repo(&git, path);
	if (rc < 0) {
		git_fail(create ? "create or open the repository" : "open the repository", path);
		git_libgit2_shutdown();
		return -1;
	}
	floe_repo *r = floe_xcalloc(1, sizeof(*r));
	r->git = git;
	r->path = floe_xstrndup(path, strlen(path));
	*out = r;
	return 0;
}

void floe_repo_close(floe_repo *repo)
{
	if (!repo)
		return;
	git_repository_free(repo->git);
	free(repo->path);
	free(repo);
	git_libgit2_shutdown();
}

/* HEAD's commit and tree; both NULL on an unborn branch. */
static int head_of(git_commit **commit, git_tree **tree, floe_repo *repo)
{
	git_reference *head = NULL;
	*commit = NULL;
	*tree = NULL;
	int rc = git_repository_head(&head, repo->git);
	if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return git_fail("read HEAD", repo->path);
	rc = git_reference_peel((git_object **)commit, head, GIT_OBJECT_COMMIT);
	git_reference_free(head);
	if (rc < 0 || git_commit_tree(tree, *commit) < 0)
		return git_fail("read HEAD's tree", repo->path);
	return 0;
}

static int stage(git_index *index, floe_repo *repo, const floe_repo_change *c)
{
	if (c->remove) {
		int rc = git_index_remove_bypath(index, c->path);
		return rc < 0 ? git_fail("remove a path from the index", repo->path) : 0;
	}
	git_index_entry e;
	memset(&e, 0, sizeof(e));
	e.mode = GIT_FILEMODE_BLOB;
	e.path = c->path;
	if (git_blob_create_from_buffer(&e.id, repo->git, c->data, c->len) < 0 || git_index_add(index, &e) < 0)
		return git_fail("store a file", repo->path);
	return 0;
}

/* The tree HEAD would have with `changes` applied. */
static int build_tree(git_oid *out, floe_repo *repo, git_tree *head_tree, const floe_repo_change *changes,
		      size_t n)
{
	git_index *index = NULL;
	int error = -1;
	if (git_index_new(&index) < 0 || (head_tree && git_index_read_tree(index, head_tree) < 0)) {
		git_fail("prepare a commit", repo->path);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++)
		if (stage(index, repo, &changes[i]) < 0)
			goto cleanup;
	if (git_index_write_tree_to(out, index, repo->git) < 0) {
		git_fail("write a tree", repo->path);
		goto cleanup;
	}
	error = 0;
cleanup:
	git_index_free(index);
	return error;
}

/* Bring the repository's index in line with the commit, for the committed paths only. */
static int sync_index(floe_repo *repo, const floe_repo_change *changes, size_t n)
{
	git_index *index = NULL;
	int error = 0;
	if (git_repository_index(&index, repo->git) < 0)
		return git_fail("open the index", repo->path);
	for (size_t i = 0; i < n && error == 0; i++)
		error = stage(index, repo, &changes[i]);
	if (error == 0 && git_index_write(index) < 0)
		error = git_fail("write the index", repo->path);
	git_index_free(index);
	return error;
}

static int signature(git_signature **out, floe_repo *repo)
{
	if (git_signature_default(out, repo->git) == 0)
		return 0;
	git_error_clear();
	if (git_signature_now(out, DEFAULT_AUTHOR, DEFAULT_EMAIL) < 0)
		return git_fail("make a signature", repo->path);
	return 0;
}

/* Whether refs/heads/<branch> exists and its commit's tree is `tree`. */
static bool branch_holds(floe_repo *repo, const char *branch, const git_oid *tree)
{
	git_reference *ref = NULL;
	git_commit *tip = NULL;
	bool same = false;
	if (git_branch_lookup(&ref, repo->git, branch, GIT_BRANCH_LOCAL) == 0 &&
	    git_reference_peel((git_object **)&tip, ref, GIT_OBJECT_COMMIT) == 0)
		same = git_oid_equal(git_commit_tree_id(tip), tree);
	git_error_clear();
	git_commit_free(tip);
	git_reference_free(ref);
	return same;
}

/* Point refs/heads/<branch> at `id`, creating it or moving it (a proposal drafted again). */
static int point_branch(floe_repo *repo, const char *branch, const git_oid *id, const char *message)
{
	git_reference *ref = NULL;
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "refs/heads/%s", branch);
	int rc = git_reference_create(&ref, repo->git, floe_buf_cstr(&b), id, 1, message);
	git_reference_free(ref);
	if (rc < 0)
		git_fail("update the branch", repo->path);
	floe_buf_free(&b);
	return rc < 0 ? -1 : 0;
}

/* The commit at the tip of refs/heads/<branch>, NULL when the branch does not exist. */
static int branch_tip(git_commit **out, floe_repo *repo, const char *branch)
{
	git_reference *ref = NULL;
	*out = NULL;
	int rc = git_branch_lookup(&ref, repo->git, branch, GIT_BRANCH_LOCAL);
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0 || git_reference_peel((git_object **)out, ref, GIT_OBJECT_COMMIT) < 0) {
		git_reference_free(ref);
		return git_fail("read a branch", repo->path);
	}
	git_reference_free(ref);
	return 0;
}

int floe_repo_commit(bool *committed, char *commit_hex, floe_repo *repo, const floe_repo_change *changes,
		     size_t n_changes, const floe_repo_commit_opts *opts)
{
	git_commit *parent = NULL;
	git_tree *head_tree = NULL, *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, commit_id;
	int error = -1;
	*committed = false;
	if (opts->branch && opts->on_branch_tip && branch_tip(&parent, repo, opts->branch) < 0)
		goto cleanup;
	if (parent && git_commit_tree(&head_tree, parent) < 0) {
		git_fail("read a branch's tree", repo->path);
		goto cleanup;
	}
	if ((!parent && head_of(&parent, &head_tree, repo) < 0) || build_tree(&tree_id, repo, head_tree, changes, n_changes) < 0)
		goto cleanup;
	if ((head_tree && git_oid_equal(&tree_id, git_tree_id(head_tree))) ||
	    (opts->branch && branch_holds(repo, opts->branch, &tree_id))) {
		error = 0; /* nothing changed */
		goto cleanup;
	}
	if (git_tree_lookup(&tree, repo->git, &tree_id) < 0 || signature(&sig, repo) < 0)
		goto cleanup_git;
	const git_commit *parents[1] = { parent };
	if (git_commit_create(&commit_id, repo->git, opts->branch ? NULL : "HEAD", sig, sig, NULL, opts->message,
			      tree, parent ? 1 : 0, parents) < 0)
		goto cleanup_git;
	if (opts->branch ? point_branch(repo, opts->branch, &commit_id, opts->message) < 0
			 : sync_index(repo, changes, n_changes) < 0)
		goto cleanup;
	if (commit_hex)
		git_oid_tostr(commit_hex, GIT_OID_HEXSZ + 1, &commit_id);
	*committed = true;
	error = 0;
	goto cleanup;
cleanup_git:
	if (!floe_error_last())
		git_fail("commit", repo->path);
cleanup:
	git_signature_free(sig);
	git_tree_free(tree);
	git_tree_free(head_tree);
	git_commit_free(parent);
	return error;
}

/* ---- branches and linked work trees (floe sync) ---- */

int floe_repo_head(floe_repo *repo, char hex[41], char *branch, size_t branch_size)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_reference *head = NULL;
	hex[0] = '\0';
	if (branch_size)
		branch[0] = '\0';
	if (head_of(&commit, &tree, repo) < 0)
		return -1;
	if (commit)
		git_oid_tostr(hex, GIT_OID_HEXSZ + 1, git_commit_id(commit));
	if (branch_size && git_reference_lookup(&head, repo->git, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		const char *target = git_reference_symbolic_target(head);
		if (strncmp(target, "refs/heads/", 11) == 0)
			snprintf(branch, branch_size, "%s", target + 11);
	}
	git_error_clear();
	git_reference_free(head);
	git_tree_free(tree);
	git_commit_free(commit);
	return 0;
}

int floe_repo_branch_tip(bool *exists, char hex[41], floe_repo *repo, const char *name)
{
	git_reference *ref = NULL;
	*exists = false;
	hex[0] = '\0';
	int rc = git_branch_lookup(&ref, repo->git, name, GIT_BRANCH_LOCAL);
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0)
		return git_fail("look up a branch", repo->path);
	const git_oid *id = git_reference_target(ref);
	if (id) {
		git_oid_tostr(hex, GIT_OID_HEXSZ + 1, id);
		*exists = true;
	}
	git_reference_free(ref);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int floe_repo_branch_names(const char ***out, size_t *n_out, floe_arena *arena, floe_repo *repo, const char *prefix)
{
	git_branch_iterator *it = NULL;
	git_reference *ref = NULL;
	git_branch_t type;
	size_t cap = 0;
	int rc;
	*out = NULL;
	*n_out = 0;
	if (git_branch_iterator_new(&it, repo->git, GIT_BRANCH_LOCAL) < 0)
		return git_fail("list branches", repo->path);
	while ((rc = git_branch_next(&ref, &type, it)) == 0) {
		const char *name = NULL;
		if (git_branch_name(&name, ref) == 0 && strncmp(name, prefix, strlen(prefix)) == 0) {
			*out = floe_arena_grow(arena, *out, *n_out, &cap, sizeof(**out));
			(*out)[(*n_out)++] = floe_arena_strdup(arena, name);
		}
		git_reference_free(ref);
	}
	git_branch_iterator_free(it);
	if (rc != GIT_ITEROVER)
		return git_fail("list branches", repo->path);
	git_error_clear();
	if (*n_out)
		qsort(*out, *n_out, sizeof(**out), name_cmp);
	return 0;
}

int floe_repo_merged(bool *out, floe_repo *repo, const char *hex)
{
	git_oid id, head;
	*out = false;
	if (git_oid_fromstr(&id, hex) < 0 || git_reference_name_to_id(&head, repo->git, "HEAD") < 0) {
		git_error_clear();
		return 0;
	}
	*out = git_oid_equal(&id, &head) || git_graph_descendant_of(repo->git, &head, &id) == 1;
	git_error_clear();
	return 0;
}

int floe_repo_worktree_add(floe_repo *repo, const char *wt_name, const char *path, const char *branch)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	git_worktree *wt = NULL;
	git_worktree_add_options o;
	int error = -1;
	if (head_of(&commit, &tree, repo) < 0)
		goto cleanup;
	if (!commit) {
		floe_error_set(FLOE_ERR_CONFIG, "git repository \"%s\" has no commit to branch from", repo->path);
		goto cleanup;
	}
	git_worktree_add_options_init(&o, GIT_WORKTREE_ADD_OPTIONS_VERSION);
	if (git_branch_create(&ref, repo->git, branch, commit, 0) < 0) {
		git_fail("create a branch", repo->path);
		goto cleanup;
	}
	o.ref = ref;
	if (git_worktree_add(&wt, repo->git, wt_name, path, &o) < 0) {
		git_fail("add a work tree", repo->path);
		goto cleanup;
	}
	error = 0;
cleanup:
	git_worktree_free(wt);
	git_reference_free(ref);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

int floe_repo_worktree_remove(floe_repo *repo, const char *wt_name)
{
	git_worktree *wt = NULL;
	git_worktree_prune_options o;
	if (git_worktree_lookup(&wt, repo->git, wt_name) < 0) {
		git_error_clear();
		return 0;
	}
	git_worktree_prune_options_init(&o, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
	o.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_WORKING_TREE | GIT_WORKTREE_PRUNE_LOCKED;
	int rc = git_worktree_prune(wt, &o);
	git_worktree_free(wt);
	return rc < 0 ? git_fail("remove a work tree", repo->path) : 0;
}

int floe_repo_read_branch_file(floe_buf *out, floe_repo *repo, const char *branch, const char *path)
{
	git_commit *tip = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int error = -1;
	if (branch_tip(&tip, repo, branch) < 0)
		goto cleanup;
	if (!tip) {
		floe_error_set(FLOE_ERR_CONFIG, "no branch \"%s\" in git repository \"%s\"", branch, repo->path);
		goto cleanup;
	}
	if (git_commit_tree(&tree, tip) < 0 || git_tree_entry_bypath(&entry, tree, path) < 0) {
		git_error_clear();
		floe_error_set(FLOE_ERR_CONFIG, "no file \"%s\" on branch \"%s\" of git repository \"%s\"", path, branch,
			       repo->path);
		goto cleanup;
	}
	if (git_blob_lookup(&blob, repo->git, git_tree_entry_id(entry)) < 0) {
		git_fail("read a file", repo->path);
		goto cleanup;
	}
	error = floe_buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	if (error < 0)
		floe_error_set(FLOE_ERR_IO, "file \"%s\" on branch \"%s\" is too large", path, branch);
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(tip);
	return error;
}

/* Branch `name`: its tip and the tip's first line. */
static int branch_entry(floe_repo_branch *b, floe_repo *repo, const char *name)
{
	git_commit *tip = NULL;
	if (branch_tip(&tip, repo, name) < 0)
		return -1;
	b->name = floe_xstrndup(name, strlen(name));
	if (!tip) /* deleted since it was listed */
		return 0;
	git_oid_tostr(b->tip, sizeof(b->tip), git_commit_id(tip));
	const char *summary = git_commit_summary(tip);
	b->summary = floe_xstrndup(summary ? summary : "", summary ? strlen(summary) : 0);
	b->time = (int64_t)git_commit_time(tip);
	git_commit_free(tip);
	return floe_repo_merged(&b->merged, repo, b->tip);
}

int floe_repo_branches(floe_repo_branch **out, size_t *n_out, floe_repo *repo, const char *prefix)
{
	floe_arena *a = floe_arena_new();
	const char **names = NULL;
	size_t n = 0, done = 0;
	floe_repo_branch *items = NULL;
	int error = -1;
	if (floe_repo_branch_names(&names, &n, a, repo, prefix) < 0)
		goto cleanup;
	items = floe_xcalloc(n ? n : 1, sizeof(*items));
	for (; done < n; done++)
		if (branch_entry(&items[done], repo, names[done]) < 0) {
			done++;
			goto cleanup;
		}
	*out = items;
	*n_out = n;
	items = NULL;
	done = 0;
	error = 0;
cleanup:
	floe_repo_branches_free(items, done);
	floe_arena_free(a);
	return error;
}

void floe_repo_branches_free(floe_repo_branch *branches, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(branches[i].name);
		free(branches[i].summary);
	}
	free(branches);
}

/* ---- a remote (floe sync's [git] remote) ---- */

static int fetch_main(git_oid *out, bool *found, floe_repo *repo, git_remote *remote, const char *name)
{
	git_fetch_options fo;
	char *spec = NULL;
	int error = -1;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	size_t len = strlen(name) + 64;
	spec = floe_xmalloc(len);
	snprintf(spec, len, "+refs/heads/main:refs/remotes/%s/main", name);
	git_strarray specs = { &spec, 1 };
	if (git_remote_fetch(remote, &specs, &fo, "floe sync: fetch") < 0) {
		git_fail("fetch from the remote", repo->path);
		goto cleanup;
	}
	snprintf(spec, len, "refs/remotes/%s/main", name);
	*found = git_reference_name_to_id(out, repo->git, spec) == 0;
	git_error_clear();
	error = 0;
cleanup:
	free(spec);
	return error;
}

/* Move main (HEAD) and the work tree to `to`, touching only files main's tree had unchanged. */
static int fast_forward(floe_repo *repo, const git_oid *to)
{
	git_object *target = NULL;
	git_reference *head = NULL, *moved = NULL;
	git_checkout_options co;
	int error = -1;
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE;
	if (git_object_lookup(&target, repo->git, to, GIT_OBJECT_COMMIT) < 0 ||
	    git_checkout_tree(repo->git, target, &co) < 0 || git_repository_head(&head, repo->git) < 0 ||
	    git_reference_set_target(&moved, head, to, "floe sync: fast-forward main from the remote") < 0) {
		git_fail("fast-forward main", repo->path);
		goto cleanup;
	}
	error = 0;
cleanup:
	git_reference_free(moved);
	git_reference_free(head);
	git_object_free(target);
	return error;
}

int floe_repo_pull_main(floe_repo_pull *out, floe_repo *repo, const char *remote_name)
{
	git_remote *remote = NULL;
	git_oid theirs, ours;
	bool found = false;
	int error = -1;
	*out = FLOE_REPO_SAME;
	if (git_remote_lookup(&remote, repo->git, remote_name) < 0) {
		git_fail("find the remote", repo->path);
		floe_error_hint("[git] remote in floe.toml names \"%s\": add it with `git -C pipeline remote add %s URL`, "
				"or remove the setting.", remote_name, remote_name);
		goto cleanup;
	}
	if (fetch_main(&theirs, &found, repo, remote, remote_name) < 0 ||
	    git_reference_name_to_id(&ours, repo->git, "HEAD") < 0) {
		if (!floe_error_last())
			git_fail("read HEAD", repo->path);
		goto cleanup;
	}
	if (!found || git_oid_equal(&theirs, &ours)) {
		*out = found ? FLOE_REPO_SAME : FLOE_REPO_AHEAD;
	} else if (git_graph_descendant_of(repo->git, &theirs, &ours) == 1) {
		if (fast_forward(repo, &theirs) < 0)
			goto cleanup;
		*out = FLOE_REPO_FORWARDED;
	} else if (git_graph_descendant_of(repo->git, &ours, &theirs) == 1) {
		*out = FLOE_REPO_AHEAD;
	} else {
		char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
		git_oid_tostr(a, sizeof(a), &ours);
		git_oid_tostr(b, sizeof(b), &theirs);
		floe_error_set(FLOE_ERR_CONFLICT, "main of \"%s\" (%.12s) and %s/main (%.12s) have diverged", repo->path, a,
			       remote_name, b);
		floe_error_hint("Someone committed on both sides; floe never merges and never force-pushes. Reconcile "
				"them with git (merge or rebase main onto %s/main, then push), and sync again.", remote_name);
		goto cleanup;
	}
	error = 0;
cleanup:
	git_remote_free(remote);
	return error;
}

/* libgit2 reports a ref the remote refused here, not as the push's return code. */
static int push_status(const char *refname, const char *status, void *data)
{
	char *refused = data;
	if (status && !refused[0])
		snprintf(refused, 256, "%s: %s", refname, status);
	return 0;
}

int floe_repo_push(floe_repo *repo, const char *remote_name, const char *branch)
{
	git_remote *remote = NULL;
	git_push_options po;
	char refused[256] = "";
	int error = -1;
	size_t len = 2 * strlen(branch) + 32;
	char *spec = floe_xmalloc(len);
	snprintf(spec, len, "refs/heads/%s:refs/heads/%s", branch, branch); /* no '+': never forced */
	git_strarray specs = { &spec, 1 };
	git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
	po.callbacks.push_update_reference = push_status;
	po.callbacks.payload = refused;
	if (git_remote_lookup(&remote, repo->git, remote_name) < 0 || git_remote_push(remote, &specs, &po) < 0) {
		git_fail("push to the remote", repo->path);
		goto cleanup;
	}
	if (refused[0]) {
		floe_error_set(FLOE_ERR_CONFLICT, "%s refused the push of %s (%s)", remote_name, branch, refused);
		floe_error_hint("floe never force-pushes: bring the two together with git, then sync again.");
		goto cleanup;
	}
	error = 0;
cleanup:
	free(spec);
	git_remote_free(remote);
	return error;
}
