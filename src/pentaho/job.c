/*
 * job.c — a .kjb job to a Dagster job (pipeline/dagster/src/floe_<project>/defs/
 * pentaho_<job>.py): one op per entry, wired along the job's hops. An op yields
 * `success` or `failure` (and `done`, for unconditional hops) so the success/failure
 * hops of Kettle choose the ops that run next. TRANS entries build their
 * transformation's models with dbt; SQL entries become dbt macros (documented
 * pre-hooks, run with `dbt run-operation`), marked for review.
 */
#include "pentaho/pentaho_int.h"
#include "base/json.h"

#include <string.h>

static const char PRELUDE[] =
	"import json\nimport os\nimport subprocess\nfrom pathlib import Path\n\nimport dagster as dg\n\n"
	"# pipeline/dagster/src/floe_<project>/defs/ -> pipeline/dbt\n"
	"DBT_DIR = Path(__file__).resolve().parents[4] / \"dbt\"\n"
	"DBT = os.environ.get(\"FLOE_DBT\", \"dbt\")\n"
	"OUTS = {name: dg.Out(dg.Nothing, is_required=False) for name in (\"success\", \"failure\", \"done\")}\n\n\n"
	"class PentahoParams(dg.Config):\n"
	"    \"\"\"The job's parameters (Kettle's named parameters), passed to dbt as --vars.\"\"\"\n\n"
	"    parameters: dict[str, str] = {}\n\n\n"
	"def _dbt(context, config, *args):\n"
	"    variables = {**PARAMETERS, **config.parameters}\n"
	"    cmd = [DBT, *args, \"--vars\", json.dumps(variables), \"--profiles-dir\", \".\", \"--project-dir\", \".\"]\n"
	"    context.log.info(\" \".join(cmd))\n"
	"    return subprocess.run(cmd, cwd=DBT_DIR, check=False).returncode == 0\n\n\n"
	"def _finish(ok, has_failure_hop, entry):\n"
	"    \"\"\"Kettle follows the success or the failure hops; a failure nobody handles fails the job.\"\"\"\n"
	"    if not ok and not has_failure_hop:\n"
	"        raise dg.Failure(f\"Pentaho job entry {entry!r} failed\")\n"
	"    yield dg.Output(None, \"success\" if ok else \"failure\")\n"
	"    yield dg.Output(None, \"done\")\n";

/* "a/./b/../c" → "a/c" (relative to DIR). */
static const char *normalize(floe_arena *a, const char *path)
{
	const char *parts[64];
	size_t n = 0;
	for (const char *p = path; *p;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		if (len == 2 && strncmp(p, "..", 2) == 0)
			n = n ? n - 1 : 0;
		else if (len && !(len == 1 && *p == '.') && n < 64)
			parts[n++] = floe_arena_strndup(a, p, len);
		p += len + (slash ? 1 : 0);
	}
	floe_buf b = FLOE_BUF_INIT;
	for (size_t k = 0; k < n; k++)
		floe_buf_printf(&b, "%s%s", k ? "/" : "", parts[k]);
	const char *r = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return r;
}

/*
 * The file an entry's `filename` names, relative to DIR. A leading variable Kettle cannot
 * resolve here (`${PROJECT_HOME}/x.ktr`) is taken as DIR itself, and *guessed set.
 */
static const char *entry_file(pt_run *run, const floe_kettle_file *f, const floe_kettle_node *e, bool *guessed)
{
	const char *written = floe_kettle_text(e, "filename");
	const char *name = pt_resolve(run->a, f, written);
	*guessed = false;
	if (strncmp(name, "${", 2) == 0 && strchr(name, '}') && strchr(name, '}')[1] == '/') {
		name = strchr(name, '}') + 2;
		*guessed = true;
	}
	if (!*name || strstr(name, "${") || name[0] == '/')
		return NULL;
	const char *slash = strrchr(f->rel, '/');
	if (strncmp(written, "${", 2) != 0 && slash) /* relative to the job's directory */
		name = floe_arena_printf(run->a, "%.*s/%s", (int)(slash - f->rel), f->rel, name);
	return normalize(run->a, name);
}

static void put_py_string(floe_buf *b, const char *s)
{
	floe_json_put_cstr(b, s); /* a JSON string is a Python string literal */
}

typedef struct op_ctx {
	pt_run *run;
	const floe_kettle_file *f;
	size_t i;
	floe_buf *b;
	floe_pentaho_status status;
	const char *reason;
} op_ctx;

static void body_trans(op_ctx *o, const floe_kettle_node *e)
{
	bool guessed = false;
	const char *file = entry_file(o->run, o->f, e, &guessed);
	floe_buf models = FLOE_BUF_INIT;
	for (size_t m = 0; file && m < o->run->n_models; m++)
		if (strcmp(o->run->models[m].file, file) == 0)
			floe_buf_printf(&models, "\"%s\", ", o->run->models[m].model);
	if (!models.len) {
		o->status = FLOE_PENTAHO_UNMAPPED;
		o->reason = floe_arena_printf(o->run->a, "transformation \"%s\" is not among the translated files",
					      file ? file : floe_kettle_text(e, "filename"));
		floe_buf_puts(o->b, "    raise dg.Failure(\"floe: this entry's transformation was not translated\")\n");
	} else {
		floe_buf_printf(o->b, "    ok = _dbt(context, config, \"build\", \"--select\", %s)\n", floe_buf_cstr(&models));
		if (guessed) {
			o->status = FLOE_PENTAHO_PARTIAL;
			o->reason = floe_arena_printf(o->run->a, "the variable in \"%s\" was taken as the translated "
						      "directory", floe_kettle_text(e, "filename"));
		}
	}
	floe_buf_free(&models);
}

static void body_sql(op_ctx *o, const floe_kettle_node *e)
{
	pt_trans t = { .a = o->run->a, .f = o->f, .lock = o->run->lock };
	const char *macro = floe_arena_printf(o->run->a, "pentaho_%s__%s", pt_slug(o->run->a, o->f->name),
					      pt_slug(o->run->a, o->f->steps[o->i].name));
	floe_buf m = FLOE_BUF_INIT;
	floe_buf_printf(&m, "{%% macro %s() %%}\n-- floe: check ", macro);
	floe_buf line = FLOE_BUF_INIT;
	floe_buf_printf(&line, "SQL entry \"%s\" of Pentaho job \"%s\" (%s) ran this on connection \"%s\"; it now runs "
			"on silver's DuckDB as a pre-hook of the next entries: review its dialect",
			o->f->steps[o->i].name, o->f->name, o->f->rel, floe_kettle_text(e, "connection"));
	pt_put_one_line(&m, floe_buf_cstr(&line));
	floe_buf_puts(&m, "\n{% set sql %}\n");
	const char *sql = floe_kettle_text(e, "sql");
	pt_put_sql_vars(&t, &m, sql, strlen(sql));
	floe_buf_puts(&m, "\n{% endset %}\n{% do run_query(sql) %}\n{% endmacro %}\n");
	pt_add_output(o->run, floe_arena_printf(o->run->a, "dbt/macros/pentaho/%s/%s.sql", o->run->name, macro),
		      floe_buf_cstr(&m));
	floe_buf_printf(o->b, "    ok = _dbt(context, config, \"run-operation\", \"%s\")\n", macro);
	o->status = FLOE_PENTAHO_PARTIAL;
	o->reason = "the SQL runs on DuckDB (a dbt macro run before the next entries), not on the job's database";
	floe_buf_free(&m);
	floe_buf_free(&line);
}

static void body_job(op_ctx *o, const floe_kettle_node *e)
{
	bool guessed = false;
	const char *file = entry_file(o->run, o->f, e, &guessed);
	const char *slash = file ? strrchr(file, '/') : NULL;
	const char *base = slash ? slash + 1 : file;
	if (!file) {
		o->status = FLOE_PENTAHO_UNMAPPED;
		o->reason = "the sub-job's file name cannot be resolved";
		floe_buf_puts(o->b, "    raise dg.Failure(\"floe: this entry's sub-job could not be resolved\")\n");
		return;
	}
	const char *job = floe_arena_printf(o->run->a, "pentaho_%s", pt_slug(o->run->a, floe_arena_strndup(o->run->a,
						base, strlen(base) > 4 ? strlen(base) - 4 : strlen(base))));
	floe_buf_printf(o->b, "    from floe_%s.defs.%s import %s as sub_job  # the sub-job's file: ", o->run->project, job, job);
	pt_put_one_line(o->b, file);
	floe_buf_puts(o->b, "\n    ok = sub_job.execute_in_process(run_config={\"ops\": {}}, raise_on_error=False).success\n");
	o->status = FLOE_PENTAHO_PARTIAL;
	o->reason = "the sub-job runs in process, named after its file (check that file was translated too)";
}

static void op_body(op_ctx *o)
{
	const floe_kettle_node *e = o->f->steps[o->i].node;
	const char *type = o->f->steps[o->i].type;
	if (strcmp(type, "SPECIAL") == 0 || strcmp(type, "SUCCESS") == 0) {
		floe_buf_puts(o->b, "    ok = True\n");
	} else if (strcmp(type, "TRANS") == 0) {
		body_trans(o, e);
	} else if (strcmp(type, "SQL") == 0) {
		body_sql(o, e);
	} else if (strcmp(type, "JOB") == 0) {
		body_job(o, e);
	} else if (strcmp(type, "WRITE_TO_LOG") == 0) {
		floe_buf_puts(o->b, "    context.log.info(");
		put_py_string(o->b, floe_kettle_text(e, "logmessage"));
		floe_buf_puts(o->b, ")\n    ok = True\n");
	} else if (strcmp(type, "ABORT") == 0) {
		floe_buf_puts(o->b, "    raise dg.Failure(");
		put_py_string(o->b, *floe_kettle_text(e, "message") ? floe_kettle_text(e, "message") : "aborted");
		floe_buf_puts(o->b, ")\n");
	} else {
		o->status = FLOE_PENTAHO_UNMAPPED;
		o->reason = floe_arena_printf(o->run->a, "job entry type %s is not translated", type);
		floe_buf_puts(o->b, "    raise dg.Failure(\"floe: this Pentaho job entry was not translated\")\n");
	}
}

static bool has_hop(const floe_kettle_file *f, size_t i, floe_kettle_hop_kind kind)
{
	for (size_t h = 0; h < f->n_hops; h++)
		if (f->hops[h].from == i && f->hops[h].kind == kind)
			return true;
	return false;
}

static void emit_op(pt_run *run, const floe_kettle_file *f, size_t i, floe_buf *b)
{
	floe_buf_printf(b, "\n\n@dg.op(ins={");
	size_t n_in = 0;
	for (size_t h = 0; h < f->n_hops; h++)
		if (f->hops[h].to == i)
			floe_buf_printf(b, "%s\"after_%zu\": dg.In(dg.Nothing)", n_in++ ? ", " : "", f->hops[h].from + 1);
	floe_buf_printf(b, "}, out=OUTS)\ndef entry_%zu_%s(context, config: PentahoParams):\n    \"\"\"", i + 1,
			pt_slug(run->a, f->steps[i].name));
	floe_buf line = FLOE_BUF_INIT;
	floe_buf_printf(&line, "%s entry \"%s\"%s", f->steps[i].type, f->steps[i].name,
			n_in > 1 ? " (runs once all its incoming hops fired; Kettle runs it once per hop)" : "");
	floe_buf q = FLOE_BUF_INIT;
	put_py_string(&q, floe_buf_cstr(&line));
	floe_buf_put(b, q.ptr + 1, q.len - 2); /* the escaped text, inside the docstring */
	floe_buf_puts(b, "\"\"\"\n");
	op_ctx o = { .run = run, .f = f, .i = i, .b = b };
	op_body(&o);
	/* a body that raises leaves `ok` unset: _finish is then never reached */
	floe_buf_printf(b, "    yield from _finish(ok, %s, ", has_hop(f, i, FLOE_KETTLE_HOP_FAILURE) ? "True" : "False");
	put_py_string(b, f->steps[i].name);
	floe_buf_puts(b, ")\n");
	pt_add_step(run, f, i, o.status, o.reason);
	floe_buf_free(&line);
	floe_buf_free(&q);
}

static const char *const outputs[] = { "done", "success", "failure" };

static void emit_job(pt_run *run, const floe_kettle_file *f, const char *job, floe_buf *b)
{
	floe_buf_printf(b, "\n\n@dg.job(name=\"%s\")\ndef %s():\n", job, job);
	for (size_t k = 0; k < f->n_steps; k++) {
		size_t i = f->order[k];
		floe_buf_printf(b, "    e%zu = entry_%zu_%s(", i + 1, i + 1, pt_slug(run->a, f->steps[i].name));
		size_t n_in = 0;
		for (size_t h = 0; h < f->n_hops; h++)
			if (f->hops[h].to == i)
				floe_buf_printf(b, "%safter_%zu=e%zu.%s", n_in++ ? ", " : "", f->hops[h].from + 1,
						f->hops[h].from + 1, outputs[f->hops[h].kind]);
		floe_buf_puts(b, ")\n");
	}
	if (f->n_steps == 0)
		floe_buf_puts(b, "    pass\n");
}

void pt_translate_job(pt_run *run, const floe_kettle_file *f)
{
	const char *job = floe_arena_printf(run->a, "pentaho_%s", pt_slug(run->a, f->name));
	floe_buf b = FLOE_BUF_INIT, line = FLOE_BUF_INIT;
	floe_buf_printf(&line, "floe: translated from Pentaho job \"%s\" (%s) by `floe pentaho translate`; review before "
			"merging. Nothing was run.", f->name, f->rel);
	floe_buf_puts(&b, "# ");
	pt_put_one_line(&b, floe_buf_cstr(&line));
	floe_buf_printf(&b, "\n\"\"\"Dagster job %s: the entries of the Pentaho job in their hop order.\"\"\"\n\n%s", job, PRELUDE);
	floe_buf_puts(&b, "\n\nPARAMETERS = {");
	for (size_t p = 0; p < f->n_params; p++) {
		floe_buf_puts(&b, p ? ", " : "");
		put_py_string(&b, f->params[p].name);
		floe_buf_puts(&b, ": ");
		put_py_string(&b, f->params[p].default_value ? f->params[p].default_value : "");
	}
	floe_buf_puts(&b, "}\n");
	for (size_t k = 0; k < f->n_steps; k++)
		emit_op(run, f, f->order[k], &b);
	emit_job(run, f, job, &b);
	pt_add_output(run, floe_arena_printf(run->a, "dagster/src/floe_%s/defs/%s.py", run->project, job), floe_buf_cstr(&b));
	run->r->files[run->r->n_files - 1].n_outputs = 1;
	floe_buf_free(&b);
	floe_buf_free(&line);
}
