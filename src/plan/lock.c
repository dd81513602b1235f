/*
 * lock.c — building the next lakehouse.lock.json from a plan and the previous
 * lock (field ids kept, new ones above last-column-id), rendering it, and
 * describing what changed between two locks (for commit messages).
 */
#include "plan/lock_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

floe_lock *floe_lock_new(void)
{
	floe_lock *lock = floe_xcalloc(1, sizeof(*lock));
	lock->arena = floe_arena_new();
	return lock;
}

floe_lock_table *floe_lock_add_table(floe_lock *lock)
{
	lock->tables = floe_arena_grow(lock->arena, lock->tables, lock->n, &lock->cap, sizeof(*lock->tables));
	floe_lock_table *t = &lock->tables[lock->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

void floe_lock_free(floe_lock *lock)
{
	if (!lock)
		return;
	floe_arena_free(lock->arena);
	free(lock);
}

size_t floe_lock_count(const floe_lock *lock)
{
	return lock->n;
}

const floe_lock_table *floe_lock_at(const floe_lock *lock, size_t i)
{
	return &lock->tables[i];
}

const floe_lock_table *floe_lock_find(const floe_lock *lock, const char *schema, const char *name)
{
	for (size_t i = 0; lock && i < lock->n; i++)
		if (strcmp(lock->tables[i].schema, schema) == 0 && strcmp(lock->tables[i].name, name) == 0)
			return &lock->tables[i];
	return NULL;
}

const floe_lock_table *floe_lock_name_owner(const floe_lock *lock, const char *schema, const char *name,
					    const char *bronze)
{
	for (size_t i = 0; lock && i < lock->n; i++) {
		const floe_lock_table *t = &lock->tables[i];
		if (t->last_column_id > 0 && floe_plan_same_name(t->bronze, bronze) &&
		    (strcmp(t->schema, schema) != 0 || strcmp(t->name, name) != 0))
			return t;
	}
	return NULL;
}

void floe_lock_mark_owners(floe_lock *lock)
{
	for (size_t i = 0; i < lock->n; i++) {
		floe_lock_table *t = &lock->tables[i];
		const floe_lock_table *o = floe_lock_name_owner(lock, t->schema, t->name, t->bronze);
		t->owner = o ? floe_arena_printf(lock->arena, "%s.%s", o->schema, o->name) : NULL;
	}
}

bool floe_lock_table_named(const floe_lock_table *t, const char *name)
{
	size_t sl = strlen(t->schema);
	return (!t->owner && strcmp(name, t->bronze) == 0) ||
	       (strncmp(name, t->schema, sl) == 0 && name[sl] == '.' && strcmp(name + sl + 1, t->name) == 0);
}

const char *floe_lock_file_hash(const floe_lock *lock, const char *path)
{
	for (size_t i = 0; i < lock->n_files; i++)
		if (strcmp(lock->files[i].path, path) == 0)
			return lock->files[i].sha256;
	for (size_t i = 0; i < lock->n; i++)
		for (size_t j = 0; j < lock->tables[i].n_files; j++)
			if (strcmp(lock->tables[i].files[j].path, path) == 0)
				return lock->tables[i].files[j].sha256;
	return NULL;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const floe_lock_file *)a)->path, ((const floe_lock_file *)b)->path);
}

size_t floe_lock_project_file_count(const floe_lock *lock)
{
	return lock->n_files;
}

const floe_lock_file *floe_lock_project_file_at(const floe_lock *lock, size_t i)
{
	return &lock->files[i];
}

void floe_lock_add_project_file(floe_lock *lock, const char *path, const char *sha256)
{
	size_t i = 0;
	while (i < lock->n_files && strcmp(lock->files[i].path, path) != 0)
		i++;
	if (i == lock->n_files) {
		lock->files = floe_arena_grow(lock->arena, lock->files, lock->n_files, &lock->cap_files,
					      sizeof(*lock->files));
		lock->files[lock->n_files++].path = floe_arena_strdup(lock->arena, path);
	}
	lock->files[i].sha256 = floe_arena_strdup(lock->arena, sha256);
	qsort(lock->files, lock->n_files, sizeof(*lock->files), by_path); /* rendered in path order */
}

void floe_lock_add_table_file(floe_lock *lock, const char *schema, const char *name, const char *path,
			      const char *sha256)
{
	floe_lock_table *t = (floe_lock_table *)floe_lock_find(lock, schema, name);
	if (!t)
		return;
	for (size_t j = 0; j < t->n_files; j++)
		if (strcmp(t->files[j].path, path) == 0) {
			t->files[j].sha256 = floe_arena_strdup(lock->arena, sha256);
			return;
		}
	floe_lock_file *files = floe_arena_alloc(lock->arena, sizeof(*files) * (t->n_files + 1));
	if (t->n_files)
		memcpy(files, t->files, sizeof(*files) * t->n_files);
	files[t->n_files].path = floe_arena_strdup(lock->arena, path);
	files[t->n_files].sha256 = floe_arena_strdup(lock->arena, sha256);
	t->files = files;
	t->n_files++;
}

void floe_lock_set_file_hash(floe_lock *lock, const char *path, const char *sha256)
{
	for (size_t i = 0; i < lock->n; i++)
		for (size_t j = 0; j < lock->tables[i].n_files; j++)
			if (strcmp(lock->tables[i].files[j].path, path) == 0)
				lock->tables[i].files[j].sha256 = floe_arena_strdup(lock->arena, sha256);
}

/* ---- field ids ---- */

/* `type` with ids: those of `old` where the structure matches, new ones from *next otherwise. */
static const floe_lock_type *with_ids(floe_arena *arena, const floe_plan_type *type, const floe_lock_type *old,
				      int *next)
{
	floe_lock_type *t = floe_arena_alloc(arena, sizeof(*t));
	t->kind = type->kind;
	if (old && old->kind != type->kind)
		old = NULL;
	if (type->kind == FLOE_PLAN_PRIMITIVE) {
		t->primitive = floe_arena_strdup(arena, type->primitive);
	} else if (type->kind == FLOE_PLAN_LIST) {
		t->element_id = old ? old->element_id : ++*next;
		t->element = with_ids(arena, type->element, old ? old->element : NULL, next);
	} else {
		t->n_fields = type->n_fields;
		t->fields = floe_arena_alloc(arena, sizeof(*t->fields) * (type->n_fields + 1));
		for (size_t i = 0; i < type->n_fields; i++) {
			const floe_lock_field *of = NULL;
			for (size_t j = 0; old && j < old->n_fields && !of; j++)
				if (strcmp(old->fields[j].name, type->field_names[i]) == 0)
					of = &old->fields[j];
			t->fields[i].id = of ? of->id : ++*next;
			t->fields[i].name = floe_arena_strdup(arena, type->field_names[i]);
			t->fields[i].type = with_ids(arena, type->field_types[i], of ? of->type : NULL, next);
		}
	}
	return t;
}

static bool plan_has_name(const floe_plan_table *t, const char *name)
{
	for (size_t i = 0; i < t->n_columns; i++)
		if (strcmp(t->columns[i].name, name) == 0)
			return true;
	return false;
}

/* The previous column this one continues: same attnum and name, or a rename of it. */
static const floe_lock_column *previous_column(const floe_lock_table *prev, const floe_plan_table *t,
					       const floe_plan_column *c)
{
	if (!prev)
		return NULL;
	for (size_t i = 0; i < prev->n_columns; i++) {
		const floe_lock_column *o = &prev->columns[i];
		if (o->attnum != c->attnum)
			continue;
		if (strcmp(o->name, c->name) == 0)
			return o;
		bool renamed = !plan_has_name(t, o->name);
		for (size_t j = 0; j < prev->n_columns && renamed; j++)
			renamed = strcmp(prev->columns[j].name, c->name) != 0;
		return renamed ? o : NULL;
	}
	return NULL;
}

/* The same type, nested names and all (field ids aside). */
static bool same_type(const floe_lock_type *old, const floe_plan_type *now)
{
	if (old->kind != now->kind)
		return false;
	if (now->kind == FLOE_PLAN_PRIMITIVE)
		return strcmp(old->primitive, now->primitive) == 0;
	if (now->kind == FLOE_PLAN_LIST)
		return same_type(old->element, now->element);
	if (old->n_fields != now->n_fields)
		return false;
	for (size_t i = 0; i < now->n_fields; i++)
		if (strcmp(old->fields[i].name, now->field_names[i]) != 0 ||
		    !same_type(old->fields[i].type, now->field_types[i]))
			return false;
	return true;
}

/* Whether Iceberg can carry a column from `old` to `now` in place: the same type, or a widening. */
static bool follows_in_place(const floe_lock_type *old, const floe_plan_type *now)
{
	int p0, s0, p1, s1;
	if (same_type(old, now))
		return true;
	if (old->kind != FLOE_PLAN_PRIMITIVE || now->kind != FLOE_PLAN_PRIMITIVE)
		return false;
	if ((strcmp(old->primitive, "int") == 0 && strcmp(now->primitive, "long") == 0) ||
	    (strcmp(old->primitive, "float") == 0 && strcmp(now->primitive, "double") == 0))
		return true;
	return sscanf(old->primitive, "decimal(%d,%d)", &p0, &s0) == 2 &&
	       sscanf(now->primitive, "decimal(%d,%d)", &p1, &s1) == 2 && s0 == s1 && p1 > p0;
}

/*
 * Field ids: a column keeps its id across renames and widenings; a column whose type changed
 * in a way Iceberg cannot follow in place (text to int, a composite's fields) is a new column
 * with a new id, the old id retired — the table then drops the old column and adds the new one.
 */
static void assign_columns(floe_lock *lock, floe_lock_table *lt, const floe_plan_table *t,
			   const floe_lock_table *prev)
{
	int next = prev ? prev->last_column_id : 0;
	lt->n_columns = t->n_columns;
	lt->columns = floe_arena_alloc(lock->arena, sizeof(*lt->columns) * (t->n_columns + 1));
	for (size_t i = 0; i < t->n_columns; i++) {
		const floe_plan_column *c = &t->columns[i];
		const floe_lock_column *o = previous_column(prev, t, c);
		if (o && o->type && c->map.type && !follows_in_place(o->type, c->map.type))
			o = NULL;
		floe_lock_column *lc = &lt->columns[i];
		lc->id = o ? o->id : ++next;
		lc->name = floe_arena_strdup(lock->arena, c->name);
		lc->attnum = c->attnum;
		lc->pg_type = floe_arena_strdup(lock->arena, c->pg_type);
		lc->cls = floe_type_class_name(c->map.cls);
		lc->required = c->required;
		lc->type = with_ids(lock->arena, c->map.type, o ? o->type : NULL, &next);
	}
	lt->last_column_id = next;
}

static void copy_columns(floe_lock *lock, floe_lock_table *lt, const floe_lock_table *prev)
{
	if (!prev)
		return;
	lt->columns = prev->columns; /* shared read-only: the previous lock outlives the build */
	lt->n_columns = prev->n_columns;
	lt->last_column_id = prev->last_column_id;
}

static void build_table(floe_lock *lock, const floe_plan_table *t, const floe_lock_table *prev)
{
	floe_lock_table *lt = floe_lock_add_table(lock);
	floe_arena *a = lock->arena;
	lt->schema = floe_arena_strdup(a, t->schema);
	lt->name = floe_arena_strdup(a, t->name);
	lt->bronze = floe_arena_strdup(a, t->bronze);
	lt->mode = t->mode;
	lt->reason = floe_arena_strdup(a, t->reason);
	lt->watermark = t->watermark ? floe_arena_strdup(a, t->watermark) : NULL;
	lt->key = floe_arena_alloc(a, sizeof(char *) * (t->n_key + 1));
	for (size_t i = 0; i < t->n_key; i++)
		lt->key[lt->n_key++] = floe_arena_strdup(a, t->key[i]);
	if (t->mode == FLOE_LOAD_REFUSED) {
		copy_columns(lock, lt, prev);
		return;
	}
	assign_columns(lock, lt, t, prev);
	lt->n_files = 1;
	lt->files = floe_arena_alloc(a, sizeof(*lt->files));
	lt->files[0].path = floe_arena_strdup(a, t->file);
}

static void keep_removed(floe_lock *lock, const floe_lock_table *prev)
{
	floe_lock_table *lt = floe_lock_add_table(lock);
	*lt = *prev; /* strings and columns shared with the previous lock */
	lt->mode = FLOE_LOAD_REMOVED;
	if (prev->mode != FLOE_LOAD_REMOVED)
		lt->reason = "no longer among the tables floe plans (dropped, excluded, or not a table)";
	lt->watermark = NULL;
	lt->n_key = 0;
	lt->files = NULL;
	lt->n_files = 0;
	lt->silver = NULL;
}

static int by_name(const void *a, const void *b)
{
	const floe_lock_table *x = a, *y = b;
	int c = strcmp(x->schema, y->schema);
	return c ? c : strcmp(x->name, y->name);
}

int floe_lock_build(floe_lock **out, const floe_plan *plan, const floe_lock *previous)
{
	floe_lock *lock = floe_lock_new();
	lock->database = floe_arena_strdup(lock->arena, floe_plan_database(plan));
	for (size_t i = 0; i < floe_plan_count(plan); i++) {
		const floe_plan_table *t = floe_plan_at(plan, i);
		if (t->mode != FLOE_LOAD_SKIPPED)
			build_table(lock, t, floe_lock_find(previous, t->schema, t->name));
	}
	for (size_t i = 0; previous && i < previous->n; i++) {
		const floe_lock_table *p = &previous->tables[i];
		if (!floe_lock_find(lock, p->schema, p->name))
			keep_removed(lock, p);
	}
	if (lock->n > 1)
		qsort(lock->tables, lock->n, sizeof(*lock->tables), by_name);
	for (size_t i = 0; previous && i < previous->n_marts; i++)
		floe_lock_set_mart(lock, &previous->marts[i]); /* merged marts stay until a person removes them */
	floe_lock_mark_owners(lock);
	*out = lock;
	return 0;
}

/* A change held back (lock.h): the table as `prev` has it, sharing prev's strings. */
void floe_lock_keep_table(floe_lock *next, const floe_lock *prev, const char *schema, const char *name)
{
	const floe_lock_table *p = floe_lock_find(prev, schema, name);
	floe_lock_table *t = (floe_lock_table *)floe_lock_find(next, schema, name);
	if (!t && !p)
		return;
	if (!p) {
		size_t i = (size_t)(t - next->tables);
		memmove(&next->tables[i], &next->tables[i + 1], (next->n - i - 1) * sizeof(*t));
		next->n--;
		return;
	}
	if (!t)
		t = floe_lock_add_table(next);
	*t = *p;
	t->files = floe_arena_alloc(next->arena, sizeof(*t->files) * (p->n_files + 1));
	if (p->n_files)
		memcpy(t->files, p->files, sizeof(*t->files) * p->n_files);
	if (next->n > 1)
		qsort(next->tables, next->n, sizeof(*next->tables), by_name);
	floe_lock_mark_owners(next);
}

/* ---- rendering ---- */

void floe_lock_write_type(floe_json_writer *w, const floe_lock_type *t)
{
	if (t->kind == FLOE_PLAN_PRIMITIVE) {
		floe_json_write_cstr(w, t->primitive);
		return;
	}
	floe_json_write_begin_object(w, true);
	if (t->kind == FLOE_PLAN_LIST) {
		floe_json_write_member_cstr(w, "type", "list");
		floe_json_write_member_int(w, "element-id", t->element_id);
		floe_json_write_key(w, "element");
		floe_lock_write_type(w, t->element);
		floe_json_write_member_bool(w, "element-required", false);
	} else {
		floe_json_write_member_cstr(w, "type", "struct");
		floe_json_write_key(w, "fields");
		floe_json_write_begin_array(w, true);
		for (size_t i = 0; i < t->n_fields; i++) {
			floe_json_write_begin_object(w, true);
			floe_json_write_member_int(w, "id", t->fields[i].id);
			floe_json_write_member_cstr(w, "name", t->fields[i].name);
			floe_json_write_member_bool(w, "required", false);
			floe_json_write_key(w, "type");
			floe_lock_write_type(w, t->fields[i].type);
			floe_json_write_end_object(w);
		}
		floe_json_write_end_array(w);
	}
	floe_json_write_end_object(w);
}

static void write_column(floe_json_writer *w, const floe_lock_column *c)
{
	floe_json_write_begin_object(w, true);
	floe_json_write_member_int(w, "id", c->id);
	floe_json_write_member_cstr(w, "name", c->name);
	floe_json_write_member_int(w, "attnum", c->attnum);
	floe_json_write_member_cstr(w, "pg-type", c->pg_type);
	floe_json_write_key(w, "type");
	floe_lock_write_type(w, c->type);
	floe_json_write_member_bool(w, "required", c->required);
	floe_json_write_member_cstr(w, "class", c->cls);
	floe_json_write_end_object(w);
}

static void write_table(floe_json_writer *w, const floe_lock_table *t)
{
	floe_json_write_begin_object(w, false);
	floe_json_write_member_cstr(w, "schema", t->schema);
	floe_json_write_member_cstr(w, "table", t->name);
	floe_json_write_member_cstr(w, "bronze", t->bronze);
	floe_json_write_member_cstr(w, "mode", floe_load_mode_name(t->mode));
	floe_json_write_member_cstr(w, "reason", t->reason);
	floe_json_write_member_cstr(w, "watermark", t->watermark);
	floe_json_write_member_strings(w, "key", t->key, t->n_key);
	floe_json_write_member_int(w, "last-column-id", t->last_column_id);
	floe_json_write_key(w, "columns");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < t->n_columns; i++)
		write_column(w, &t->columns[i]);
	floe_json_write_end_array(w);
	floe_json_write_key(w, "files");
	floe_json_write_begin_object(w, false);
	for (size_t i = 0; i < t->n_files; i++)
		if (t->files[i].sha256)
			floe_json_write_member_cstr(w, t->files[i].path, t->files[i].sha256);
	floe_json_write_end_object(w);
	if (t->silver)
		floe_lock_write_silver(w, t->silver);
	floe_json_write_end_object(w);
}

int floe_lock_render(floe_buf *out, const floe_lock *lock)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_int(&w, "format", FLOE_LOCK_FORMAT);
	floe_json_write_member_cstr(&w, "generated-by", "floe generate");
	floe_json_write_member_cstr(&w, "database", lock->database);
	floe_json_write_key(&w, "session");
	floe_json_write_begin_object(&w, false);
	for (const char *const *s = floe_plan_session_settings; s[0]; s += 2)
		floe_json_write_member_cstr(&w, s[0], s[1]);
	floe_json_write_end_object(&w);
	floe_json_write_key(&w, "tables");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < lock->n; i++)
		write_table(&w, &lock->tables[i]);
	floe_json_write_end_array(&w);
	if (lock->n_files > 0) {
		floe_json_write_key(&w, "files");
		floe_json_write_begin_object(&w, false);
		for (size_t i = 0; i < lock->n_files; i++)
			floe_json_write_member_cstr(&w, lock->files[i].path, lock->files[i].sha256);
		floe_json_write_end_object(&w);
	}
	floe_lock_write_marts(&w, lock);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}

/* ---- changes ---- */

static const floe_lock_column *column_by_id(const floe_lock_table *t, int id)
{
	for (size_t i = 0; t && i < t->n_columns; i++)
		if (t->columns[i].id == id)
			return &t->columns[i];
	return NULL;
}

/* Names in change lines are shown printable: the lines go to a terminal and a commit message. */
static const char *shown(floe_arena *a, const char *s)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_text_put_printable(&b, s);
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out;
}

static void describe_columns(floe_buf *out, floe_arena *a, const char *label, const floe_lock_table *b,
			     const floe_lock_table *t)
{
	for (size_t i = 0; i < t->n_columns; i++) {
		const floe_lock_column *c = &t->columns[i], *o = column_by_id(b, c->id);
		if (!o)
			floe_buf_printf(out, "%s: new column %s, id %d\n", label, shown(a, c->name), c->id);
		else if (strcmp(o->name, c->name) != 0)
			floe_buf_printf(out, "%s: column %s renamed to %s, id %d kept\n", label, shown(a, o->name),
					shown(a, c->name), c->id);
		if (o && strcmp(o->pg_type, c->pg_type) != 0)
			floe_buf_printf(out, "%s: column %s type %s → %s\n", label, shown(a, c->name),
					shown(a, o->pg_type), shown(a, c->pg_type));
	}
	for (size_t i = 0; b && i < b->n_columns; i++)
		if (!column_by_id(t, b->columns[i].id))
			floe_buf_printf(out, "%s: column %s dropped, id %d retired\n", label, shown(a, b->columns[i].name),
					b->columns[i].id);
}

int floe_lock_describe_changes(floe_buf *out, const floe_lock *before, const floe_lock *after)
{
	for (size_t i = 0; i < after->n; i++) {
		const floe_lock_table *a = &after->tables[i], *b = floe_lock_find(before, a->schema, a->name);
		const char *label = shown(after->arena, floe_arena_printf(after->arena, "%s.%s", a->schema, a->name));
		if (!b) {
			floe_buf_printf(out, "%s: new table, %s, %zu columns (field ids up to %d)\n", label,
					floe_load_mode_name(a->mode), a->n_columns, a->last_column_id);
			continue;
		}
		if (a->mode != b->mode)
			floe_buf_printf(out, "%s: %s → %s\n", label, floe_load_mode_name(b->mode), floe_load_mode_name(a->mode));
		if (!(a->watermark && b->watermark ? strcmp(a->watermark, b->watermark) == 0
							: a->watermark == b->watermark))
			floe_buf_printf(out, "%s: watermark %s → %s\n", label,
					b->watermark ? shown(after->arena, b->watermark) : "none",
					a->watermark ? shown(after->arena, a->watermark) : "none");
		if (a->mode != FLOE_LOAD_REMOVED && a->mode != FLOE_LOAD_REFUSED)
			describe_columns(out, after->arena, label, b, a);
	}
	return 0;
}
