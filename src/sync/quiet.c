/*
 * quiet.c — `floe run` skips the sync that would find nothing. After a sync that found
 * nothing to report, its inputs are stamped in .floe/sync/quiet (a SHA-256 of them): the
 * source's catalog fingerprint (pg/introspect.h: moves with any DDL, GRANT, COMMENT or role
 * change), floe.toml, the pipeline repository (every work tree file's size and mtime, HEAD's
 * file, and once a proposal exists HEAD and floe's branches with their tips), the proposals
 * ledger and the floe binary. The next run
 * computes the same stamp — one catalog query on the run's connection, a few stats — and
 * when it is equal the sync's answer would be equal too: it is skipped. A project with
 * `[git] remote` always syncs (a merge on the forge arrives only by pulling).
 */
#include "sync/sync_int.h"

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/version.h"
#include "pg/introspect.h"
#include "repo/repo.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define QUIET_STAMP ".floe/sync/quiet"

static void put_stat(floe_sha256 *h, const char *name, const char *path)
{
	struct stat st;
	char line[128];
	int n = stat(path, &st) == 0 ? snprintf(line, sizeof(line), "%lld %lld.%09ld", (long long)st.st_size,
						 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec)
				     : snprintf(line, sizeof(line), "absent");
	floe_sha256_update(h, name, strlen(name) + 1);
	floe_sha256_update(h, line, (size_t)n + 1);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Every file under `dir` but .git: its name relative to the root, size and mtime, sorted by name. */
static int put_tree(floe_sha256 *h, floe_arena *a, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	const char **names = NULL;
	size_t n = 0, cap = 0;
	if (!d)
		return floe_error_set_errno(FLOE_ERR_IO, "could not list \"%s\"", dir);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || strcmp(e->d_name, ".git") == 0)
			continue;
		if (n == cap) {
			const char **grown = floe_arena_alloc(a, (cap = cap ? 2 * cap : 32) * sizeof(*grown));
			if (n)
				memcpy(grown, names, n * sizeof(*names));
			names = grown;
		}
		names[n++] = floe_arena_strdup(a, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		const char *path = floe_arena_printf(a, "%s/%s", dir, names[i]);
		const char *name = floe_arena_printf(a, "%s/%s", rel, names[i]);
		if (floe_fs_is_dir(path) && depth < 16) {
			if (put_tree(h, a, path, name, depth + 1) < 0)
				return -1;
		} else {
			put_stat(h, name, path);
		}
	}
	return 0;
}

/* HEAD (and the branch it is on), then each of floe's branches and its tip. */
static int put_repo(floe_sha256 *h, floe_arena *a, const char *pipeline)
{
	floe_repo *repo = NULL;
	const char **names = NULL;
	size_t n = 0;
	char hex[41], branch[256];
	bool exists;
	int error = -1;
	if (floe_repo_open(&repo, pipeline, false) < 0 || floe_repo_head(repo, hex, branch, sizeof(branch)) < 0 ||
	    floe_repo_branch_names(&names, &n, a, repo, "floe/") < 0)
		goto cleanup;
	floe_sha256_update(h, hex, sizeof(hex));
	floe_sha256_update(h, branch, strlen(branch) + 1);
	for (size_t i = 0; i < n; i++) {
		if (floe_repo_branch_tip(&exists, hex, repo, names[i]) < 0)
			goto cleanup;
		floe_sha256_update(h, names[i], strlen(names[i]) + 1);
		floe_sha256_update(h, exists ? hex : "", exists ? sizeof(hex) : 1);
	}
	error = 0;
cleanup:
	floe_repo_close(repo);
	return error;
}

/* The stamp of a sync's inputs as they are now (hex, in `a`). */
static int stamp(const char **out, floe_arena *a, const floe_config *config, floe_pg *pg)
{
	floe_sha256 h;
	floe_buf toml = FLOE_BUF_INIT, ledger = FLOE_BUF_INIT;
	const char *fingerprint = NULL, *pipeline = floe_config_pipeline_dir(a, config);
	const char *ledger_path = floe_arena_printf(a, "%s/%s", config->project_dir, FLOE_SYNC_LEDGER);
	unsigned char digest[FLOE_SHA256_LEN];
	char *hex = floe_arena_alloc(a, 2 * FLOE_SHA256_LEN + 1);
	int error = -1;
	floe_sha256_init(&h);
	floe_sha256_update(&h, FLOE_VERSION, sizeof(FLOE_VERSION));
	put_stat(&h, "floe", "/proc/self/exe"); /* another build of floe may plan differently */
	if (floe_pg_catalog_fingerprint(&fingerprint, pg, a) < 0 || floe_fs_read_file(&toml, config->path) < 0 ||
	    (floe_fs_exists(ledger_path) && floe_fs_read_file(&ledger, ledger_path) < 0) ||
	    put_tree(&h, a, pipeline, "", 0) < 0)
		goto cleanup;
	/* Branches matter once a proposal was made (settling it reads them); before, a checkout
	 * or a commit shows in HEAD's file and the work tree — no need to open the repository. */
	put_stat(&h, ".git/HEAD", floe_arena_printf(a, "%s/.git/HEAD", pipeline));
	if (ledger.len && put_repo(&h, a, pipeline) < 0)
		goto cleanup;
	floe_sha256_update(&h, fingerprint, strlen(fingerprint) + 1);
	floe_sha256_update(&h, toml.ptr, toml.len);
	floe_sha256_update(&h, "\n--ledger\n", 11);
	floe_sha256_update(&h, ledger.ptr, ledger.len);
	floe_sha256_final(digest, &h);
	for (size_t i = 0; i < FLOE_SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	*out = hex;
	error = 0;
cleanup:
	floe_buf_free(&toml);
	floe_buf_free(&ledger);
	return error;
}

int sync_quiet_check(const char **out, bool *same, floe_arena *a, const floe_config *config, floe_pg *pg)
{
	floe_buf last = FLOE_BUF_INIT;
	const char *path = floe_arena_printf(a, "%s/%s", config->project_dir, QUIET_STAMP);
	int error = -1;
	*out = NULL;
	*same = false;
	if (!pg || config->git_remote[0])
		return 0; /* no connection: sync reports why; a remote: main may move on the forge */
	if (stamp(out, a, config, pg) < 0)
		goto cleanup;
	if (floe_fs_exists(path) && floe_fs_read_file(&last, path) < 0)
		goto cleanup;
	*same = last.len && strcmp(floe_buf_cstr(&last), *out) == 0;
	error = 0;
cleanup:
	floe_buf_free(&last);
	return error;
}

int sync_quiet_save(const floe_config *config, floe_arena *a, const char *stamp_hex)
{
	const char *dir = floe_arena_printf(a, "%s/.floe/sync", config->project_dir);
	floe_fs_write_opts o = FLOE_FS_WRITE_OPTS_INIT;
	if (floe_fs_mkdir_p(dir, 0755) < 0)
		return -1;
	return floe_fs_write_atomic(floe_arena_printf(a, "%s/%s", config->project_dir, QUIET_STAMP), stamp_hex,
				    strlen(stamp_hex), &o);
}
