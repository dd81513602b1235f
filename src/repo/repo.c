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

int floe_repo_commit(bool *committed, char *commit_hex, floe_repo *repo, const floe_repo_change *changes,
		     size_t n_changes, const floe_repo_commit_opts *opts)
{
	git_commit *parent = NULL;
	git_tree *head_tree = NULL, *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, commit_id;
	int error = -1;
	*committed = false;
	if (head_of(&parent, &head_tree, repo) < 0 || build_tree(&tree_id, repo, head_tree, changes, n_changes) < 0)
		goto cleanup;
	if (opts->branch ? branch_holds(repo, opts->branch, &tree_id)
			 : head_tree && git_oid_equal(&tree_id, git_tree_id(head_tree))) {
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

int floe_repo_commit_branch(bool *committed, char *commit_hex, floe_repo *repo, const char *branch,
			    const floe_repo_change *changes, size_t n_changes, const floe_repo_commit_opts *opts)
{
	git_commit *parent = NULL;
	git_tree *base_tree = NULL, *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, commit_id;
	floe_buf refname = FLOE_BUF_INIT;
	int error = -1;
	*committed = false;
	if (branch_tip(&parent, repo, branch) < 0)
		goto cleanup;
	bool on_branch = parent != NULL;
	if (on_branch && git_commit_tree(&base_tree, parent) < 0) {
		git_fail("read a branch's tree", repo->path);
		goto cleanup;
	}
	if ((!on_branch && head_of(&parent, &base_tree, repo) < 0) ||
	    build_tree(&tree_id, repo, base_tree, changes, n_changes) < 0)
		goto cleanup;
	if (on_branch && git_oid_equal(&tree_id, git_tree_id(base_tree))) {
		error = 0; /* the branch already holds exactly this */
		goto cleanup;
	}
	git_error_clear();
	floe_buf_printf(&refname, "refs/heads/%s", branch);
	const git_commit *parents[1] = { parent };
	if (git_tree_lookup(&tree, repo->git, &tree_id) < 0 || signature(&sig, repo) < 0 ||
	    git_commit_create(&commit_id, repo->git, floe_buf_cstr(&refname), sig, sig, NULL, opts->message, tree,
			      parent ? 1 : 0, parents) < 0) {
		if (!floe_error_last())
			git_fail("commit on a branch", repo->path);
		goto cleanup;
	}
	if (commit_hex)
		git_oid_tostr(commit_hex, GIT_OID_HEXSZ + 1, &commit_id);
	*committed = true;
	error = 0;
cleanup:
	floe_buf_free(&refname);
	git_signature_free(sig);
	git_tree_free(tree);
	git_tree_free(base_tree);
	git_commit_free(parent);
	return error;
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
