/*
 * test_classify.c — floe_sync_classify on hand-made snapshots: each class, its evidence,
 * and the renames it must not guess.
 */
#include "harness.h"
#include "base/arena.h"
#include "sync/sync.h"

#define COL(n, att, pg, ice, nn) { .name = n, .attnum = att, .pg_type = pg, .iceberg = ice, .not_null = nn, .id = att }

static const char *const key_id[] = { "id" };
static const char *const key_code[] = { "code" };

static const floe_sync_column base_cols[] = {
	COL("id", 1, "integer", "int", true),
	COL("status", 2, "character varying(20)", "string", false),
	COL("qty", 3, "smallint", "int", true),
	COL("price", 4, "numeric(10,2)", "decimal(10,2)", false),
	COL("code", 5, "text", "string", true),
	COL("ratio", 6, "real", "float", false),
};

static floe_sync_table table_of(const floe_sync_column *cols, size_t n)
{
	return (floe_sync_table){ .schema = "public", .name = "orders", .bronze = "bronze.orders", .loadable = true,
				  .watermark = NULL, .key = key_id, .n_key = 1, .columns = cols, .n_columns = n };
}

/* Classify base_cols against `cols`; the one change expected, or NULL when not exactly one. */
static const floe_sync_change *one(floe_arena *a, const floe_sync_table *now, size_t *n)
{
	floe_sync_table dep = table_of(base_cols, 6);
	floe_sync_change *c = NULL;
	FLOE_CHECK(floe_sync_classify(&c, n, a, &dep, 1, now, 1) == 0);
	return *n == 1 ? c : NULL;
}

FLOE_TEST(sync_classify_nothing_changed)
{
	floe_arena *a = floe_arena_new();
	floe_sync_table now = table_of(base_cols, 6);
	size_t n = 9;
	one(a, &now, &n);
	FLOE_CHECK(n == 0);
	floe_arena_free(a);
}

FLOE_TEST(sync_classify_rename_by_attnum)
{
	floe_arena *a = floe_arena_new();
	floe_sync_column cols[6];
	memcpy(cols, base_cols, sizeof(cols));
	cols[1].name = "order_status";
	floe_sync_table now = table_of(cols, 6);
	size_t n;
	const floe_sync_change *c = one(a, &now, &n);
	FLOE_CHECK(c && c->cls == FLOE_SYNC_RENAME_COLUMN);
	if (c) {
		FLOE_CHECK_STR(c->old_name, "status");
		FLOE_CHECK_STR(c->column, "order_status");
		FLOE_CHECK(c->field_id == 2);
		FLOE_CHECK_STR(c->what, "column status renamed to order_status (field id 2 kept)");
		FLOE_CHECK(strstr(c->before, "attnum 2") != NULL);
	}
	FLOE_CHECK(floe_sync_class_breaking(FLOE_SYNC_RENAME_COLUMN) && floe_sync_class_pauses(FLOE_SYNC_RENAME_COLUMN));
	floe_arena_free(a);
}

/* Dropping `status` and adding `label` of the same type is a drop and an add: new attnum. */
FLOE_TEST(sync_classify_drop_plus_add_is_never_a_rename)
{
	floe_arena *a = floe_arena_new();
	floe_sync_column cols[6];
	memcpy(cols, base_cols, sizeof(cols));
	cols[1] = (floe_sync_column)COL("label", 7, "character varying(20)", "string", false);
	floe_sync_table dep = table_of(base_cols, 6), now = table_of(cols, 6);
	floe_sync_change *c = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_sync_classify(&c, &n, a, &dep, 1, &now, 1) == 0);
	FLOE_CHECK(n == 2);
	if (n == 2) {
		FLOE_CHECK(c[0].cls == FLOE_SYNC_DROP_COLUMN);
		FLOE_CHECK_STR(c[0].column, "status");
		FLOE_CHECK(c[1].cls == FLOE_SYNC_ADD_COLUMN);
		FLOE_CHECK_STR(c[1].column, "label");
	}
	floe_arena_free(a);
}

/* Same attnum, new name, but the old name lives on elsewhere: not a rename (a swap). */
FLOE_TEST(sync_classify_swap_is_drop_and_add)
{
	floe_arena *a = floe_arena_new();
	floe_sync_column cols[6];
	memcpy(cols, base_cols, sizeof(cols));
	cols[1].name = "code";
	cols[4].name = "status";
	floe_sync_table dep = table_of(base_cols, 6), now = table_of(cols, 6);
	floe_sync_change *c = NULL;
	size_t n = 0, drops = 0, renames = 0;
	FLOE_CHECK(floe_sync_classify(&c, &n, a, &dep, 1, &now, 1) == 0);
	for (size_t i = 0; i < n; i++) {
		drops += c[i].cls == FLOE_SYNC_DROP_COLUMN;
		renames += c[i].cls == FLOE_SYNC_RENAME_COLUMN;
	}
	FLOE_CHECK(drops == 2 && renames == 0);
	floe_arena_free(a);
}

static floe_sync_class class_after(int column, const char *pg, const char *ice)
{
	floe_arena *a = floe_arena_new();
	floe_sync_column cols[6];
	memcpy(cols, base_cols, sizeof(cols));
	cols[column].pg_type = pg;
	cols[column].iceberg = ice;
	floe_sync_table now = table_of(cols, 6);
	size_t n;
	const floe_sync_change *c = one(a, &now, &n);
	floe_sync_class cls = c ? c->cls : (floe_sync_class)-1;
	floe_arena_free(a);
	return cls;
}

FLOE_TEST(sync_classify_types)
{
	FLOE_CHECK(class_after(2, "integer", "int") == FLOE_SYNC_WIDEN_TYPE);
	FLOE_CHECK(class_after(2, "bigint", "long") == FLOE_SYNC_WIDEN_TYPE);
	FLOE_CHECK(class_after(0, "smallint", "int") == FLOE_SYNC_NARROW_TYPE);
	FLOE_CHECK(class_after(5, "double precision", "double") == FLOE_SYNC_WIDEN_TYPE);
	FLOE_CHECK(class_after(1, "character varying(50)", "string") == FLOE_SYNC_WIDEN_TYPE);
	FLOE_CHECK(class_after(1, "text", "string") == FLOE_SYNC_WIDEN_TYPE);
	FLOE_CHECK(class_after(1, "character varying(5)", "string") == FLOE_SYNC_NARROW_TYPE);
	FLOE_CHECK(class_after(4, "character varying(10)", "string") == FLOE_SYNC_NARROW_TYPE);
	FLOE_CHECK(class_after(3, "numeric(12,2)", "decimal(12,2)") == FLOE_SYNC_WIDEN_TYPE);
	FLOE_CHECK(class_after(3, "numeric(8,2)", "decimal(8,2)") == FLOE_SYNC_NARROW_TYPE);
	FLOE_CHECK(class_after(3, "numeric(12,4)", "decimal(12,4)") == FLOE_SYNC_CHANGE_TYPE);
	FLOE_CHECK(class_after(4, "integer", "int") == FLOE_SYNC_CHANGE_TYPE);
	FLOE_CHECK(class_after(0, "text", "string") == FLOE_SYNC_CHANGE_TYPE);
}

FLOE_TEST(sync_classify_not_null_enum_and_added_columns)
{
	floe_arena *a = floe_arena_new();
	static const char *const before[] = { "new", "paid" }, *const after[] = { "new", "paid", "returned" };
	floe_sync_column dcols[6], cols[8];
	memcpy(dcols, base_cols, sizeof(dcols));
	memcpy(cols, base_cols, sizeof(dcols));
	dcols[1].enum_labels = before;
	dcols[1].n_enum_labels = 2;
	cols[1].enum_labels = after;
	cols[1].n_enum_labels = 3;
	cols[2].not_null = false;
	cols[6] = (floe_sync_column)COL("channel", 8, "text", "string", true);
	cols[6].default_expr = "'web'::text";
	cols[7] = (floe_sync_column)COL("must", 9, "text", "string", true);
	floe_sync_table dep = table_of(dcols, 6), now = table_of(cols, 8);
	floe_sync_change *c = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_sync_classify(&c, &n, a, &dep, 1, &now, 1) == 0);
	FLOE_CHECK(n == 4);
	if (n == 4) {
		FLOE_CHECK(c[0].cls == FLOE_SYNC_ADD_ENUM_VALUE && strstr(c[0].what, "'returned'"));
		FLOE_CHECK(c[1].cls == FLOE_SYNC_DROP_NOT_NULL);
		FLOE_CHECK(c[2].cls == FLOE_SYNC_ADD_COLUMN);
		FLOE_CHECK(c[3].cls == FLOE_SYNC_ADD_REQUIRED_COLUMN);
	}
	floe_arena_free(a);
}

FLOE_TEST(sync_classify_key_watermark_and_tables)
{
	floe_arena *a = floe_arena_new();
	floe_sync_table dep[2] = { table_of(base_cols, 6), table_of(base_cols, 6) };
	dep[0].watermark = "code";
	dep[1].name = "gone";
	floe_sync_table now[2] = { table_of(base_cols, 6), table_of(base_cols, 6) };
	now[0].key = key_code;
	now[1].name = "fresh";
	floe_sync_change *c = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_sync_classify(&c, &n, a, dep, 2, now, 2) == 0);
	FLOE_CHECK(n == 4);
	if (n == 4) {
		FLOE_CHECK(c[0].cls == FLOE_SYNC_CHANGE_KEY);
		FLOE_CHECK_STR(c[0].what, "primary key (id) became primary key (code)");
		FLOE_CHECK(c[1].cls == FLOE_SYNC_CHANGE_WATERMARK);
		FLOE_CHECK(c[2].cls == FLOE_SYNC_DROP_TABLE && floe_sync_class_pauses(c[2].cls));
		FLOE_CHECK(c[3].cls == FLOE_SYNC_ADD_TABLE && !floe_sync_class_breaking(c[3].cls));
	}
	/* a renamed key column is the rename, not a key change */
	floe_sync_column cols[6];
	memcpy(cols, base_cols, sizeof(cols));
	cols[0].name = "order_id";
	static const char *const key_new[] = { "order_id" };
	floe_sync_table d1 = table_of(base_cols, 6), n1 = table_of(cols, 6);
	n1.key = key_new;
	FLOE_CHECK(floe_sync_classify(&c, &n, a, &d1, 1, &n1, 1) == 0);
	FLOE_CHECK(n == 1 && c[0].cls == FLOE_SYNC_RENAME_COLUMN);
	floe_arena_free(a);
}

FLOE_TEST(sync_class_names)
{
	floe_sync_class cls;
	for (int i = 0; i < FLOE_SYNC_CLASS_COUNT; i++) {
		FLOE_CHECK(floe_sync_class_parse(&cls, floe_sync_class_name((floe_sync_class)i)) == 0);
		FLOE_CHECK((int)cls == i);
	}
	FLOE_CHECK(floe_sync_class_parse(&cls, "rename") < 0);
}
