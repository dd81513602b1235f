/*
 * proposal.c — proposals/<id>.md, the text a person reviews on the branch: what changed,
 * the evidence (catalog facts before and after, the table's DDL as PostgreSQL reports it
 * now, when it was first seen), what it reaches (bronze columns, silver columns and tests,
 * gold marts by lineage from the lock's `marts`), and what merging will do (the lock's own
 * description of the change, silver tests renamed, added or dropped, loads resumed).
 */
#include "sync/sync_int.h"
#include "base/arena.h"
#include "base/json.h"

#include <string.h>

static const floe_lock_silver *silver_section(const floe_lock *lock, const sync_table *t)
{
	const floe_lock_table *lt = floe_lock_find(lock, t->changes[0].schema, t->changes[0].table);
	return lt ? lt->silver : NULL;
}

static bool test_reads(const floe_lock_test *t, const char *column)
{
	for (size_t i = 0; column && i < t->n_columns; i++)
		if (strcmp(t->columns[i], column) == 0)
			return true;
	return false;
}

static bool has_test(const floe_lock_silver *s, const char *name)
{
	for (size_t i = 0; s && i < s->n_tests; i++)
		if (strcmp(s->tests[i].name, name) == 0)
			return true;
	return false;
}

/* Gold marts whose `reads` name `silver` (the lock's top-level "marts", when gold wrote one). */
static void marts(floe_buf *b, const char *lock_json, const char *silver)
{
	floe_json_doc *doc = NULL;
	if (!silver || floe_json_parse(&doc, lock_json, strlen(lock_json), NULL) < 0)
		return;
	const floe_json_value *ms = floe_json_get(floe_json_root(doc), "marts");
	for (size_t i = 0; i < floe_json_count(ms); i++) {
		const floe_json_value *m = floe_json_value_at(ms, i), *reads = floe_json_get(m, "reads");
		const floe_json_value *table = floe_json_get(m, "table");
		for (size_t k = 0; table && k < floe_json_count(reads); k++) {
			const floe_json_value *r = floe_json_value_at(reads, k);
			if (floe_json_type_of(r) == FLOE_JSON_STRING && strcmp(floe_json_string(r).ptr, silver) == 0)
				floe_buf_printf(b, "- gold: %s (its model reads %s)\n", floe_json_string(table).ptr, silver);
		}
	}
	floe_json_free(doc);
}

static void reach(floe_buf *b, const sync_table *t, const floe_lock *before, const char *lock_json)
{
	const floe_lock_silver *s = silver_section(before, t);
	floe_buf_puts(b, "\n## What it reaches\n\n");
	for (size_t i = 0; i < t->n; i++) {
		const floe_sync_change *c = &t->changes[i];
		const char *col = c->old_name ? c->old_name : c->column;
		if (!col) {
			floe_buf_printf(b, "- bronze: %s (the whole table)\n", t->bronze ? t->bronze : t->table);
			continue;
		}
		floe_buf_printf(b, "- bronze: %s.%s", t->bronze ? t->bronze : t->table, col);
		if (c->field_id)
			floe_buf_printf(b, " (field id %d)", c->field_id);
		floe_buf_putc(b, '\n');
		for (size_t k = 0; s && k < s->n_columns; k++)
			if (strcmp(s->columns[k].name, col) == 0)
				floe_buf_printf(b, "- silver: %s.%s\n", s->table, col);
		for (size_t k = 0; s && k < s->n_tests; k++)
			if (test_reads(&s->tests[k], col))
				floe_buf_printf(b, "- silver test: %s (%s)\n", s->tests[k].name, s->tests[k].kind);
	}
	marts(b, lock_json, s ? s->table : NULL);
}

static void merging(floe_buf *b, const sync_table *t, const floe_lock *before, const floe_lock *after)
{
	floe_buf lines = FLOE_BUF_INIT;
	size_t prefix = strlen(t->table);
	floe_buf_puts(b, "\n## What merging will do\n\n");
	floe_lock_describe_changes(&lines, before, after);
	for (const char *p = floe_buf_cstr(&lines); *p;) {
		size_t n = strcspn(p, "\n");
		if (n > prefix && strncmp(p, t->table, prefix) == 0 && p[prefix] == ':')
			floe_buf_printf(b, "- %s: %.*s\n", t->bronze ? t->bronze : t->table, (int)(n - prefix - 2),
					p + prefix + 2);
		p += n + (p[n] == '\n');
	}
	const floe_lock_silver *sb = silver_section(before, t), *sa = silver_section(after, t);
	for (size_t i = 0; sb && i < sb->n_tests; i++)
		if (!has_test(sa, sb->tests[i].name))
			floe_buf_printf(b, "- %s: silver test %s goes\n", sb->table, sb->tests[i].name);
	for (size_t i = 0; sa && i < sa->n_tests; i++)
		if (!has_test(sb, sa->tests[i].name))
			floe_buf_printf(b, "- %s: silver test %s comes\n", sa->table, sa->tests[i].name);
	floe_buf_printf(b, "- the next `floe sync` or `floe run` sees the new lock and evolves %s's Iceberg schema with "
			"its field ids (old snapshots read under the new names; a column the old files lack reloads "
			"the table in full)%s\n", t->bronze ? t->bronze : t->table,
			t->pauses ? ", and its loads, paused while this branch is open, resume" : "");
	floe_buf_free(&lines);
}

const char *sync_proposal_text(floe_arena *a, const sync_table *t, const floe_lock *before, const floe_lock *after,
			       const char *first_seen, const char *lock_json)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "# floe change %s: %s\n\n", t->id, t->table);
	floe_buf_printf(&b, "First seen %s. %s\n\n## What changed\n\n", first_seen,
			t->pauses ? "Loads of this table are paused until this branch is merged into main."
				  : "The table keeps loading on the deployed schema until this branch is merged.");
	for (size_t i = 0; i < t->n; i++)
		floe_buf_printf(&b, "- %s (%s): %s\n", floe_sync_class_name(t->changes[i].cls),
				floe_sync_class_breaking(t->changes[i].cls) ? "breaking" : "safe", t->changes[i].what);
	floe_buf_puts(&b, "\n## Evidence\n\n| change | before | after |\n|---|---|---|\n");
	for (size_t i = 0; i < t->n; i++)
		floe_buf_printf(&b, "| %s | %s | %s |\n", floe_sync_class_name(t->changes[i].cls), t->changes[i].before,
				t->changes[i].after);
	if (t->ddl)
		floe_buf_printf(&b, "\nThe table as PostgreSQL reports it now:\n\n```sql\n%s```\n", t->ddl);
	reach(&b, t, before, lock_json);
	merging(&b, t, before, after);
	floe_buf_printf(&b, "\nTo approve, merge this branch into main (git merge, or the pull request). To reject, "
			"delete the branch unmerged: %s then until the source changes back or "
			"`floe sync --repropose %s` makes the branch again.\n",
			t->pauses ? "the table stays paused" : "the table keeps its deployed schema", t->table);
	const char *s = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}
