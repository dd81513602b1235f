/*
 * repo.h — the git repositories floe writes (pipeline/): the one module that
 * calls libgit2.
 *
 * A commit is built from HEAD's tree plus exactly the paths handed in — never
 * from whatever else is staged or changed in the work tree — so a person's own
 * edits are neither committed in floe's name nor lost. The author is the one
 * git's configuration names (user.name, user.email), else "floe
 * <floe@localhost>". libgit2's errors are translated here.
 */
#ifndef FLOE_REPO_REPO_H
#define FLOE_REPO_REPO_H

#include "base/arena.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_repo floe_repo;

/* Open the repository whose work tree is `path`; with `create`, make it (branch main) if missing. */
int floe_repo_open(floe_repo **out, const char *path, bool create);
void floe_repo_close(floe_repo *repo);

/* True when `path` holds a git repository (work tree with .git). */
bool floe_repo_exists(const char *path);

typedef struct floe_repo_change {
	const char *path;  /* relative to the work tree, '/'-separated */
	const void *data;  /* the file's content as written to the work tree */
	size_t len;
	bool remove;       /* the file was deleted */
} floe_repo_change;

typedef struct floe_repo_commit_opts {
	const char *message;
	/*
	 * NULL: commit on HEAD (the work tree's index follows). A branch name ("floe/mart/x"):
	 * commit HEAD's tree plus the changes as a child of HEAD and point the branch at it
	 * (created, or moved from an earlier proposal); HEAD, the index and the work tree stay
	 * as they are. Nothing is committed when HEAD or the branch already holds that tree.
	 */
	const char *branch;
	/*
	 * With `branch`: build on the branch's own tip when it exists (a proposal that accumulates,
	 * e.g. a Pentaho translation run again), on HEAD only for a new branch.
	 */
	bool on_branch_tip;
} floe_repo_commit_opts;

#define FLOE_REPO_COMMIT_OPTS_INIT { .message = NULL, .branch = NULL, .on_branch_tip = false }

/*
 * Commit `changes` on top of HEAD (or as the first commit). When the resulting
 * tree equals HEAD's, nothing is committed and *committed is false. The index
 * is updated for these paths only. `commit_hex` (41 bytes, may be NULL) gets
 * the new commit id.
 */
int floe_repo_commit(bool *committed, char *commit_hex, floe_repo *repo, const floe_repo_change *changes,
		     size_t n_changes, const floe_repo_commit_opts *opts);

/* ---- branches and linked work trees (floe sync) ---- */

/*
 * HEAD's commit id into `hex` (41 bytes; "" on an unborn branch) and, when branch_size,
 * the branch HEAD is on into `branch` ("" when detached).
 */
int floe_repo_head(floe_repo *repo, char hex[41], char *branch, size_t branch_size);

/* The tip of local branch `name` into `hex`; *exists false (and 0) when there is no such branch. */
int floe_repo_branch_tip(bool *exists, char hex[41], floe_repo *repo, const char *name);

/*
 * The local branches whose names start with `prefix` ("floe/"), sorted, into an array of
 * arena-owned names (*n_out of them).
 */
int floe_repo_branch_names(const char ***out, size_t *n_out, floe_arena *arena, floe_repo *repo, const char *prefix);

/* Whether commit `hex` is HEAD or an ancestor of it (merged); false for a commit the repository lacks. */
int floe_repo_merged(bool *out, floe_repo *repo, const char *hex);

/*
 * Create branch `branch` at HEAD and check it out in a new linked work tree at `path`,
 * named `wt_name` (no '/'); open `path` with floe_repo_open to commit on the branch.
 * The main work tree is not touched. A branch that exists already is an error.
 */
int floe_repo_worktree_add(floe_repo *repo, const char *wt_name, const char *path, const char *branch);

/* Remove the linked work tree `wt_name`: its directory and git's record of it (the branch stays). */
int floe_repo_worktree_remove(floe_repo *repo, const char *wt_name);
/*
 * Append the content of `path` at the tip of branch `branch` to `out`. Reads only.
 * FLOE_ERR_CONFIG when the branch or the path does not exist.
 */
int floe_repo_read_branch_file(floe_buf *out, floe_repo *repo, const char *branch, const char *path);

/* A local branch as floe_repo_branches lists it. */
typedef struct floe_repo_branch {
	char *name;        /* "floe/change/orders/1a2b3c4d" */
	char tip[41];      /* "" when the branch went away while listed */
	char *summary;     /* the tip commit's first line; NULL when no tip */
	int64_t time;      /* the tip's commit time, seconds since the epoch */
	bool merged;       /* the tip is HEAD or an ancestor of it */
} floe_repo_branch;

/* floe_repo_branch_names with each branch's tip, its summary and whether it is merged. Reads only. */
int floe_repo_branches(floe_repo_branch **out, size_t *n_out, floe_repo *repo, const char *prefix);
void floe_repo_branches_free(floe_repo_branch *branches, size_t n);

/* ---- a remote ([git] remote in floe.toml) ---- */

typedef enum floe_repo_pull {
	FLOE_REPO_SAME = 0,       /* main is the remote's main */
	FLOE_REPO_FORWARDED,      /* main (and its work tree) fast-forwarded to the remote's */
	FLOE_REPO_AHEAD           /* main has commits the remote lacks (or the remote has no main) */
} floe_repo_pull;

/*
 * Fetch `remote`'s main and bring main up to it: a fast-forward moves main and updates the
 * work tree (only files main's tree had unchanged; a local edit in the way is an error). A
 * main diverged from the remote's is FLOE_ERR_CONFLICT naming both commits: floe never
 * merges. HEAD must be on main.
 */
int floe_repo_pull_main(floe_repo_pull *out, floe_repo *repo, const char *remote);

/* Push local branch `branch` to the same name on `remote`, never forced (refused: FLOE_ERR_CONFLICT). */
int floe_repo_push(floe_repo *repo, const char *remote, const char *branch);

#endif
