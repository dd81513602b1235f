/*
 * proposals.c — the ledger of the proposals floe made (.floe/sync/proposals.json): which
 * branch stands for which table's changes, since when, and whether it is open, rejected
 * (deleted unmerged), merged, withdrawn (the source changed back) or superseded. It is
 * what pauses a table, and what tells a branch deleted unmerged from one never made.
 */
#include "sync/sync_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"

#include <string.h>

static const char *member(floe_arena *a, const floe_json_value *o, const char *key)
{
	const floe_json_value *v = floe_json_get(o, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_STRING)
		return "";
	floe_slice s = floe_json_string(v);
	return floe_arena_strndup(a, s.ptr, s.len);
}

sync_proposal *sync_ledger_add(sync_ledger *l, floe_arena *a)
{
	l->items = floe_arena_grow(a, l->items, l->n, &l->cap, sizeof(*l->items));
	sync_proposal *p = &l->items[l->n++];
	memset(p, 0, sizeof(*p));
	return p;
}

static int read_items(sync_ledger *out, floe_arena *a, const floe_json_value *items)
{
	for (size_t i = 0; i < floe_json_count(items); i++) {
		const floe_json_value *o = floe_json_value_at(items, i);
		const floe_json_value *pauses = floe_json_get(o, "pauses");
		sync_proposal *p = sync_ledger_add(out, a);
		p->id = member(a, o, "id");
		p->table = member(a, o, "table");
		p->bronze = member(a, o, "bronze");
		p->branch = member(a, o, "branch");
		p->commit = member(a, o, "commit");
		p->state = member(a, o, "state");
		p->first_seen = member(a, o, "first_seen");
		p->summary = member(a, o, "summary");
		p->pr = member(a, o, "pr");
		p->pauses = pauses && floe_json_type_of(pauses) == FLOE_JSON_BOOL && floe_json_bool(pauses);
	}
	return 0;
}

int sync_ledger_load(sync_ledger *out, floe_arena *a, const char *project_dir)
{
	floe_buf path = FLOE_BUF_INIT, text = FLOE_BUF_INIT;
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	int error = -1;
	memset(out, 0, sizeof(*out));
	floe_fs_join(&path, project_dir, FLOE_SYNC_LEDGER);
	if (!floe_fs_exists(path.ptr)) {
		error = 0;
		goto cleanup;
	}
	if (floe_fs_read_file(&text, path.ptr) < 0)
		goto cleanup;
	if (floe_json_parse(&doc, text.ptr ? text.ptr : "", text.len, &jerr) < 0) {
		floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": line %d: %s", path.ptr, jerr.line, jerr.message);
		floe_error_hint("floe writes this file; restore it from a backup, or delete it to forget the "
				"proposals made (their branches stay in pipeline/).");
		goto cleanup;
	}
	error = read_items(out, a, floe_json_get(floe_json_root(doc), "proposals"));
cleanup:
	floe_json_free(doc);
	floe_buf_free(&path);
	floe_buf_free(&text);
	return error;
}

int sync_ledger_save(const sync_ledger *l, const char *project_dir)
{
	floe_buf path = FLOE_BUF_INIT, dir = FLOE_BUF_INIT, text = FLOE_BUF_INIT;
	floe_json_writer w;
	floe_fs_write_opts o = FLOE_FS_WRITE_OPTS_INIT;
	floe_json_write_init(&w, &text, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_key(&w, "proposals");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < l->n; i++) {
		const sync_proposal *p = &l->items[i];
		floe_json_write_begin_object(&w, false);
		floe_json_write_member_cstr(&w, "id", p->id);
		floe_json_write_member_cstr(&w, "table", p->table);
		floe_json_write_member_cstr(&w, "bronze", p->bronze);
		floe_json_write_member_cstr(&w, "branch", p->branch);
		floe_json_write_member_cstr(&w, "commit", p->commit);
		floe_json_write_member_cstr(&w, "state", p->state);
		floe_json_write_member_bool(&w, "pauses", p->pauses);
		floe_json_write_member_cstr(&w, "first_seen", p->first_seen);
		floe_json_write_member_cstr(&w, "summary", p->summary);
		floe_json_write_member_cstr(&w, "pr", p->pr ? p->pr : "");
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	floe_fs_join(&path, project_dir, FLOE_SYNC_LEDGER);
	floe_fs_join(&dir, project_dir, ".floe/sync");
	int rc = floe_json_write_finish(&w);
	if (rc == 0)
		rc = floe_fs_mkdir_p(dir.ptr, 0700);
	if (rc == 0)
		rc = floe_fs_write_atomic(path.ptr, text.ptr, text.len, &o);
	floe_buf_free(&path);
	floe_buf_free(&dir);
	floe_buf_free(&text);
	return rc;
}

sync_proposal *sync_ledger_live(sync_ledger *l, const char *table)
{
	for (size_t i = l->n; i-- > 0;) {
		sync_proposal *p = &l->items[i];
		if (strcmp(p->table, table) == 0 && (strcmp(p->state, "open") == 0 || strcmp(p->state, "rejected") == 0 ||
						     strcmp(p->state, "refused") == 0))
			return p;
	}
	return NULL;
}

const char *floe_sync_paused(floe_arena *a, const floe_config *config, const char *schema, const char *name)
{
	sync_ledger l;
	const char *table = floe_arena_printf(a, "%s.%s", schema, name);
	if (sync_ledger_load(&l, a, config->project_dir) < 0) {
		floe_error_clear();
		return NULL;
	}
	const sync_proposal *p = sync_ledger_live(&l, table);
	if (!p || !p->pauses)
		return NULL;
	if (strcmp(p->state, "refused") == 0)
		return floe_arena_printf(a, "paused: [policy] in floe.toml refuses this change: %s; it stays paused until the "
					 "source changes back or the policy allows it", p->summary);
	if (strcmp(p->state, "rejected") == 0)
		return floe_arena_printf(a, "paused: branch %s was rejected (deleted unmerged): %s; it stays paused until "
					 "the source changes back or `floe sync --repropose %s`", p->branch, p->summary, table);
	return floe_arena_printf(a, "paused: branch %s open: %s; merge it into main to resume%s%s", p->branch, p->summary,
				 p->pr[0] ? "; pull request: " : "", p->pr);
}
