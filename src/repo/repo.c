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
