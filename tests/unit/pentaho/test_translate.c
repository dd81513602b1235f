/*
 * test_translate.c — pieces of the translation (conditions, formulas, variables) and
 * floe_pentaho_report_read, the read-only reader of the latest report (the MCP tool's).
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "pentaho/pentaho_int.h"
#include "repo/repo.h"

#include <stdlib.h>
#include <string.h>

static pt_trans *trans_of(floe_arena *a, const char *xml)
{
	floe_kettle_file *f = NULL;
	if (floe_kettle_read(&f, a, "t.ktr", "dir/t.ktr", xml, strlen(xml)) < 0)
		return NULL;
	pt_trans *t = floe_arena_alloc(a, sizeof(*t));
	t->a = a;
	t->f = f;
	t->steps = floe_arena_alloc(a, (f->n_steps + 1) * sizeof(pt_step));
	return t;
}

FLOE_TEST(pentaho_condition_keeps_kettle_null_order_and_nesting)
{
	floe_arena *a = floe_arena_new();
	pt_trans *t = trans_of(a, "<transformation><step><name>s</name><type>FilterRows</type><compare><condition>"
				  "<negated>N</negated><conditions>"
				  "<condition><negated>N</negated><leftvalue>a</leftvalue><function>&lt;</function>"
				  "<rightvalue>b</rightvalue></condition>"
				  "<condition><negated>Y</negated><operator>OR</operator><leftvalue>c</leftvalue>"
				  "<function>IN LIST</function><value><type>String</type><text>x;y'z</text></value></condition>"
				  "</conditions></condition></compare></step></transformation>");
	FLOE_CHECK(t != NULL);
	const char *why = NULL;
	const char *sql = pt_condition(t, floe_kettle_child(floe_kettle_child(t->f->steps[0].node, "compare"), "condition"),
				       &why);
	/* the second condition is negated itself, then OR-ed: Kettle's left-to-right evaluation */
	FLOE_CHECK_STR(sql, "(coalesce(\"a\" < \"b\", \"a\" is null and \"b\" is not null) or "
			    "(not coalesce(\"c\" in ('x', 'y''z'), false)))");
	floe_arena_free(a);
}

FLOE_TEST(pentaho_formula_parses_or_says_why)
{
	floe_arena *a = floe_arena_new();
	pt_trans *t = trans_of(a, "<transformation><info><name>t</name></info></transformation>");
	const char *why = NULL;
	FLOE_CHECK_STR(pt_formula(t, "IF([a] >= 2; \"x\"; UPPER([b])) & \"!\"", &why),
		       "((case when (\"a\" >= 2) then 'x' else upper(\"b\") end) || '!')");
	FLOE_CHECK_STR(pt_formula(t, "-[a] * (1 + 2) ^ 2", &why), "((-\"a\") * power(((1 + 2)), 2))");
	FLOE_CHECK(pt_formula(t, "WEEKDAY([d])", &why) == NULL && strstr(why, "function WEEKDAY"));
	FLOE_CHECK(pt_formula(t, "[a] +", &why) == NULL && strstr(why, "does not parse"));
	FLOE_CHECK(pt_formula(t, "[a] {{ x }}", &why) == NULL);
	floe_arena_free(a);
}

FLOE_TEST(pentaho_variables_become_dbt_vars_and_internal_ones_resolve)
{
	floe_arena *a = floe_arena_new();
	pt_trans *t = trans_of(a, "<transformation><info><name>t</name><parameters><parameter><name>N</name>"
				  "<default_value>it's</default_value></parameter></parameters></info></transformation>");
	floe_buf b = FLOE_BUF_INIT;
	const char *sql = "select '${Internal.Transformation.Filename.Directory}', ${N}, %%M%%, '{{ boom }}'";
	pt_put_sql_vars(t, &b, sql, strlen(sql));
	FLOE_CHECK_STR(b.ptr, "select 'dir', {{ var('N', 'it\\'s') }}, {{ floe_pentaho_var('M') }}, '{{ '{' }}{ boom }}'");
	FLOE_CHECK_STR(pt_resolve(a, t->f, "${Internal.Job.Filename.Directory}/../x/${N}/${Q}"), "dir/../x/it's/${Q}");
	floe_buf_free(&b);
	floe_arena_free(a);
}

FLOE_TEST(pentaho_numbers_are_checked_before_they_reach_sql)
{
	floe_arena *a = floe_arena_new();
	pt_trans *t = trans_of(a, "<transformation><step><name>in</name><type>TableInput</type><sql>select 1</sql>"
				  "<limit>3 union select secret from t</limit></step></transformation>");
	floe_buf_init(&t->steps[0].sql, FLOE_BUF_DEFAULT_MAX);
	pt_translate_step(t, 0);
	FLOE_CHECK(t->steps[0].status == FLOE_PENTAHO_UNMAPPED && strstr(t->steps[0].reason, "not a whole number"));
	FLOE_CHECK(!strstr(floe_buf_cstr(&t->steps[0].sql), "secret"));
	floe_buf_free(&t->steps[0].sql);
	floe_arena_free(a);
}

FLOE_TEST(pentaho_report_read_returns_the_latest_report_and_writes_nothing)
{
	char dir[] = "/tmp/floe-pentaho-XXXXXX";
	FLOE_CHECK(mkdtemp(dir) != NULL);
	floe_repo *repo = NULL;
	FLOE_CHECK(floe_repo_open(&repo, dir, true) == 0);
	floe_repo_change main_file = { .path = "README", .data = "x", .len = 1 };
	floe_repo_commit_opts o = FLOE_REPO_COMMIT_OPTS_INIT;
	o.message = "init";
	bool done = false;
	char head[41] = "", tip[41] = "";
	FLOE_CHECK(floe_repo_commit(&done, head, repo, &main_file, 1, &o) == 0 && done);
	floe_repo_commit_opts ob = FLOE_REPO_COMMIT_OPTS_INIT;
	ob.message = "proposal";
	ob.branch = "floe/pentaho/etl";
	ob.on_branch_tip = true;
	const char *v1 = "{\"name\": \"etl\", \"v\": 1}\n", *v2 = "{\"name\": \"etl\", \"v\": 2}\n";
	floe_repo_change report = { .path = "proposals/pentaho-etl.json", .data = v1, .len = strlen(v1) };
	FLOE_CHECK(floe_repo_commit(&done, tip, repo, &report, 1, &ob) == 0 && done);
	report.data = v2;
	report.len = strlen(v2);
	FLOE_CHECK(floe_repo_commit(&done, tip, repo, &report, 1, &ob) == 0 && done);
	floe_repo_close(repo);

	floe_buf out = FLOE_BUF_INIT;
	FLOE_CHECK(floe_pentaho_report_read(&out, dir, "etl") == 0);
	FLOE_CHECK_STR(out.ptr, v2); /* the latest */
	floe_buf_clear(&out);
	FLOE_CHECK(floe_pentaho_report_read(&out, dir, "other") < 0 && floe_error_last()->cls == FLOE_ERR_CONFIG);
	floe_error_clear();
	/* nothing written: the work tree has no proposals/, HEAD did not move, the branch did not move */
	floe_buf p = FLOE_BUF_INIT;
	floe_fs_join(&p, dir, "proposals");
	FLOE_CHECK(!floe_fs_exists(p.ptr));
	FLOE_CHECK(floe_repo_open(&repo, dir, false) == 0);
	char again[41] = "";
	FLOE_CHECK(floe_repo_commit(&done, again, repo, &report, 1, &ob) == 0 && !done);
	FLOE_CHECK(floe_repo_commit(&done, again, repo, &main_file, 1, &o) == 0 && !done);
	floe_repo_close(repo);
	floe_buf_free(&p);
	floe_buf_free(&out);
	floe_fs_remove_tree(dir);
}
