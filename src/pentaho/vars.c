/*
 * vars.c — Kettle variables: `${NAME}` and `%%NAME%%`. Internal.* variables are
 * resolved from the file's place in the translated directory; in SQL the others become
 * dbt variables (`{{ var('NAME', 'default') }}`, the parameter's default when it has one).
 */
#include "pentaho/pentaho_int.h"

#include <string.h>

/* The value of Internal.* variable `name` for file `f`, or NULL when it has none here. */
static const char *internal(floe_arena *a, const floe_kettle_file *f, const char *name)
{
	const char *slash = strrchr(f->rel, '/');
	const char *dir = slash ? floe_arena_strndup(a, f->rel, (size_t)(slash - f->rel)) : ".";
	const char *base = slash ? slash + 1 : f->rel;
	if (strcmp(name, "Internal.Transformation.Filename.Directory") == 0 ||
	    strcmp(name, "Internal.Job.Filename.Directory") == 0 ||
	    strcmp(name, "Internal.Entry.Current.Directory") == 0)
		return dir;
	if (strcmp(name, "Internal.Transformation.Filename.Name") == 0 || strcmp(name, "Internal.Job.Filename.Name") == 0)
		return base;
	if (strcmp(name, "Internal.Transformation.Name") == 0 || strcmp(name, "Internal.Job.Name") == 0)
		return f->name;
	return NULL;
}

static const char *param_default(const floe_kettle_file *f, const char *name)
{
	for (size_t i = 0; i < f->n_params; i++)
		if (strcmp(f->params[i].name, name) == 0)
			return f->params[i].default_value;
	return NULL;
}

/* The variable starting at s (`${…}` or `%%…%%`): its name and length, or 0. */
static size_t var_at(const char *s, size_t len, const char **name, size_t *name_len)
{
	if (len >= 3 && s[0] == '$' && s[1] == '{') {
		const char *end = memchr(s + 2, '}', len - 2);
		if (end && end > s + 2) {
			*name = s + 2;
			*name_len = (size_t)(end - s - 2);
			return *name_len + 3;
		}
	} else if (len >= 5 && s[0] == '%' && s[1] == '%') {
		size_t n = 2;
		while (n < len && (s[n] == '_' || s[n] == '.' || (s[n] >= 'A' && s[n] <= 'Z') ||
				   (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9')))
			n++;
		if (n > 2 && n + 1 < len && s[n] == '%' && s[n + 1] == '%') {
			*name = s + 2;
			*name_len = n - 2;
			return n + 2;
		}
	}
	return 0;
}

/* A Jinja string literal: single quotes, backslash and quote escaped. */
static void put_jinja_string(floe_buf *out, const char *s)
{
	floe_buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			floe_buf_putc(out, '\\');
		floe_buf_putc(out, *s);
	}
	floe_buf_putc(out, '\'');
}

void pt_put_sql_vars(pt_trans *t, floe_buf *out, const char *text, size_t len)
{
	floe_buf plain = FLOE_BUF_INIT;
	for (size_t i = 0; i < len;) {
		const char *name;
		size_t name_len, n = var_at(text + i, len - i, &name, &name_len);
		if (n == 0) {
			floe_buf_putc(&plain, text[i++]);
			continue;
		}
		pt_put_jinja_safe(out, floe_buf_cstr(&plain));
		floe_buf_clear(&plain);
		const char *v = floe_arena_strndup(t->a, name, name_len);
		const char *in = internal(t->a, t->f, v), *def = param_default(t->f, v);
		if (in) {
			pt_put_jinja_safe(out, in);
		} else { /* without a default: floe_pentaho_var fails `dbt run` until the variable is given */
			floe_buf_puts(out, def ? "{{ var(" : "{{ floe_pentaho_var(");
			put_jinja_string(out, v);
			if (def) {
				floe_buf_puts(out, ", ");
				put_jinja_string(out, def);
			}
			floe_buf_puts(out, ") }}");
		}
		i += n;
	}
	pt_put_jinja_safe(out, floe_buf_cstr(&plain));
	floe_buf_free(&plain);
}

const char *pt_resolve(floe_arena *a, const floe_kettle_file *f, const char *text)
{
	floe_buf out = FLOE_BUF_INIT;
	size_t len = strlen(text);
	for (size_t i = 0; i < len;) {
		const char *name;
		size_t name_len, n = var_at(text + i, len - i, &name, &name_len);
		const char *v = n ? floe_arena_strndup(a, name, name_len) : NULL;
		const char *val = v ? internal(a, f, v) : NULL;
		val = val ? val : (v ? param_default(f, v) : NULL);
		if (val) {
			floe_buf_puts(&out, val);
			i += n;
		} else {
			floe_buf_put(&out, text + i, n ? n : 1);
			i += n ? n : 1;
		}
	}
	const char *r = floe_arena_strdup(a, floe_buf_cstr(&out));
	floe_buf_free(&out);
	return r;
}
