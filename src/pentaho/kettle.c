/*
 * kettle.c — reads .ktr and .kjb files with libxml2 (the only file of floe that calls it)
 * into the plain structures of kettle.h, then orders the steps along their hops.
 *
 * The parser is configured for outside input: no network (XML_PARSE_NONET), no DTD
 * loading, no entity substitution (XML_PARSE_NOENT off), the library's default limits
 * (XML_PARSE_HUGE off); and a SAX hook stops the parse at the first entity declaration,
 * so neither billion laughs nor an external entity is ever expanded. Files above
 * FLOE_KETTLE_MAX_BYTES are refused before parsing.
 */
#include "pentaho/kettle.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/text.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define PARSE_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA)

typedef struct reader {
	floe_arena *arena;
	const char *path;
	bool entity_declared;
} reader;

static void refuse_entity(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
			  const xmlChar *system_id, xmlChar *content)
{
	xmlParserCtxtPtr ctxt = ctx;
	((reader *)ctxt->_private)->entity_declared = true;
	xmlStopParser(ctxt);
}

static void refuse_unparsed_entity(void *ctx, const xmlChar *name, const xmlChar *public_id,
				   const xmlChar *system_id, const xmlChar *notation)
{
	refuse_entity(ctx, name, 0, public_id, system_id, NULL);
}

/* libxml2 prints some errors (encoding) through its generic handler: keep them off the terminal. */
static void silent(void *ctx, const char *msg, ...)
{
}

static bool is_secret(const char *name, const char *text)
{
	return strcasecmp(name, "password") == 0 || strncmp(text, "Encrypted ", 10) == 0;
}

/* Copy element `x` into the arena; -1 past FLOE_KETTLE_MAX_DEPTH. */
static int copy_node(floe_kettle_node **out, reader *r, xmlNodePtr x, int depth)
{
	if (depth > FLOE_KETTLE_MAX_DEPTH)
		return floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": elements nest deeper than %d",
				      r->path, FLOE_KETTLE_MAX_DEPTH);
	floe_kettle_node *n = floe_arena_alloc(r->arena, sizeof(*n));
	floe_buf text = FLOE_BUF_INIT;
	n->name = floe_arena_strdup(r->arena, (const char *)x->name);
	for (xmlNodePtr c = x->children; c; c = c->next) {
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
			floe_buf_puts(&text, (const char *)c->content);
		} else if (c->type == XML_ELEMENT_NODE) {
			floe_kettle_node *child = NULL;
			if (copy_node(&child, r, c, depth + 1) < 0) {
				floe_buf_free(&text);
				return -1;
			}
			if (child)
				*FLOE_ARENA_PUSH(r->arena, n->children, n->n_children, n->cap) = child;
		}
	}
	n->text = floe_arena_strdup(r->arena, floe_buf_cstr(&text));
	floe_buf_free(&text);
	*out = is_secret(n->name, n->text) ? NULL : n;
	return 0;
}

static int parse_xml(floe_kettle_node **root, reader *r, const char *data, size_t len)
{
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	xmlDocPtr doc = NULL;
	int error = -1;
	if (!ctxt) {
		floe_error_set(FLOE_ERR_INTERNAL, "could not start the XML parser for \"%s\"", r->path);
		goto cleanup;
	}
	ctxt->_private = r;
	ctxt->sax->entityDecl = refuse_entity;
	ctxt->sax->unparsedEntityDecl = refuse_unparsed_entity;
	doc = xmlCtxtReadMemory(ctxt, data, (int)len, NULL, NULL, PARSE_OPTIONS);
	if (r->entity_declared) {
		floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": the document declares an XML entity", r->path);
		floe_error_detail("Kettle files never declare entities; floe refuses them (entity expansion and "
				  "external entities are how XML bombs and file disclosure work).");
		goto cleanup;
	}
	if (!doc || !xmlDocGetRootElement(doc)) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		const char *msg = e && e->message ? e->message : "no root element";
		size_t n = strlen(msg);
		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			n--; /* libxml2 ends its messages with a newline */
		floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": malformed XML at line %d: %.*s", r->path,
			       e ? e->line : 0, (int)n, msg);
		goto cleanup;
	}
	error = copy_node(root, r, xmlDocGetRootElement(doc), 0);
cleanup:
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	return error;
}

const floe_kettle_node *floe_kettle_child(const floe_kettle_node *node, const char *name)
{
	for (size_t i = 0; node && i < node->n_children; i++)
		if (strcmp(node->children[i]->name, name) == 0)
			return node->children[i];
	return NULL;
}

const char *floe_kettle_text(const floe_kettle_node *node, const char *path)
{
	char part[128];
	while (node && *path) {
		const char *slash = strchr(path, '/');
		size_t n = slash ? (size_t)(slash - path) : strlen(path);
		if (n >= sizeof(part))
			return "";
		memcpy(part, path, n);
		part[n] = 0;
		node = floe_kettle_child(node, part);
		path += n + (slash ? 1 : 0);
	}
	return node ? node->text : "";
}

bool floe_kettle_yes(const floe_kettle_node *node, const char *path)
{
	const char *t = floe_kettle_text(node, path);
	return strcasecmp(t, "Y") == 0 || strcasecmp(t, "true") == 0;
}

long floe_kettle_step_index(const floe_kettle_file *f, const char *name)
{
	for (size_t i = 0; i < f->n_steps; i++)
		if (strcmp(f->steps[i].name, name) == 0)
			return (long)i;
	return -1;
}

static void read_params(floe_kettle_file *f, floe_arena *a, const floe_kettle_node *params)
{
	size_t cap = 0;
	for (size_t i = 0; params && i < params->n_children; i++) {
		const floe_kettle_node *p = params->children[i];
		if (strcmp(p->name, "parameter") != 0 || !*floe_kettle_text(p, "name"))
			continue;
		floe_kettle_param *out = FLOE_ARENA_PUSH(a, f->params, f->n_params, cap);
		out->name = floe_kettle_text(p, "name");
		const floe_kettle_node *d = floe_kettle_child(p, "default_value");
		out->default_value = d ? d->text : NULL;
		out->description = floe_kettle_text(p, "description");
	}
}

/* A job entry's name, made unique when Kettle draws one entry several times (nr > 0). */
static const char *entry_name(floe_arena *a, const floe_kettle_node *e)
{
	const char *nr = floe_kettle_text(e, "nr");
	if (!*nr || strcmp(nr, "0") == 0)
		return floe_kettle_text(e, "name");
	return floe_arena_printf(a, "%s (%s)", floe_kettle_text(e, "name"), nr);
}

static int read_steps(floe_kettle_file *f, floe_arena *a, const floe_kettle_node *root, const char *path)
{
	const floe_kettle_node *parent = f->is_job ? floe_kettle_child(root, "entries") : root;
	const char *want = f->is_job ? "entry" : "step";
	size_t cap = 0;
	for (size_t i = 0; parent && i < parent->n_children; i++) {
		const floe_kettle_node *s = parent->children[i];
		if (strcmp(s->name, want) != 0)
			continue;
		const char *name = f->is_job ? entry_name(a, s) : floe_kettle_text(s, "name");
		if (!*name || !*floe_kettle_text(s, "type"))
			return floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": a <%s> without a name or type",
					      path, want);
		if (floe_kettle_step_index(f, name) >= 0)
			return floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": two steps are named \"%s\"",
					      path, name);
		floe_kettle_step *st = FLOE_ARENA_PUSH(a, f->steps, f->n_steps, cap);
		st->name = name;
		st->type = floe_kettle_text(s, "type");
		st->node = s;
	}
	return 0;
}

/* The step a hop end names: a job hop says which copy (from_nr / to_nr). */
static long hop_end(const floe_kettle_file *f, floe_arena *a, const floe_kettle_node *h, const char *end)
{
	const char *name = floe_kettle_text(h, end);
	if (f->is_job) {
		const char *nr = floe_kettle_text(h, strcmp(end, "from") == 0 ? "from_nr" : "to_nr");
		if (*nr && strcmp(nr, "0") != 0)
			name = floe_arena_printf(a, "%s (%s)", name, nr);
	}
	return floe_kettle_step_index(f, name);
}

static int read_hops(floe_kettle_file *f, floe_arena *a, const floe_kettle_node *root, const char *path)
{
	const floe_kettle_node *parent = floe_kettle_child(root, f->is_job ? "hops" : "order");
	size_t cap = 0;
	for (size_t i = 0; parent && i < parent->n_children; i++) {
		const floe_kettle_node *h = parent->children[i];
		if (strcmp(h->name, "hop") != 0)
			continue;
		if (*floe_kettle_text(h, "enabled") && !floe_kettle_yes(h, "enabled")) {
			f->n_disabled_hops++;
			continue;
		}
		long from = hop_end(f, a, h, "from"), to = hop_end(f, a, h, "to");
		if (from < 0 || to < 0)
			return floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": a hop names step \"%s\", which "
					      "the file does not define", path,
					      floe_kettle_text(h, from < 0 ? "from" : "to"));
		floe_kettle_hop *hop = FLOE_ARENA_PUSH(a, f->hops, f->n_hops, cap);
		hop->from = (size_t)from;
		hop->to = (size_t)to;
		if (f->is_job && !floe_kettle_yes(h, "unconditional"))
			hop->kind = floe_kettle_yes(h, "evaluation") ? FLOE_KETTLE_HOP_SUCCESS : FLOE_KETTLE_HOP_FAILURE;
	}
	return 0;
}

/* Names one cycle among the steps Kahn's algorithm could not order (each has an unordered predecessor). */
static int cycle_error(const floe_kettle_file *f, const size_t *indegree, const char *path)
{
	floe_buf names = FLOE_BUF_INIT;
	size_t start = 0;
	while (indegree[start] == 0)
		start++;
	size_t cur = start;
	bool *seen = floe_xcalloc(f->n_steps, sizeof(bool));
	while (!seen[cur]) { /* walk backwards along unordered predecessors until a step repeats */
		seen[cur] = true;
		for (size_t h = 0; h < f->n_hops; h++)
			if (f->hops[h].to == cur && indegree[f->hops[h].from] > 0) {
				cur = f->hops[h].from;
				break;
			}
	}
	size_t first = cur;
	do {
		floe_buf_printf(&names, "%s\"%s\"", names.len ? " ← " : "", f->steps[cur].name);
		for (size_t h = 0; h < f->n_hops; h++)
			if (f->hops[h].to == cur && indegree[f->hops[h].from] > 0) {
				cur = f->hops[h].from;
				break;
			}
	} while (cur != first && names.len < 2000);
	floe_buf_printf(&names, " ← \"%s\"", f->steps[first].name);
	floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": its hops form a cycle: %s", path, floe_buf_cstr(&names));
	floe_error_hint("A cycle has no order to run in; disable one of its hops in Spoon and translate again.");
	free(seen);
	floe_buf_free(&names);
	return -1;
}

/* Kahn's algorithm, keeping file order among ready steps. */
static int order_steps(floe_kettle_file *f, floe_arena *a, const char *path)
{
	size_t *indegree = floe_xcalloc(f->n_steps + 1, sizeof(size_t));
	bool *done = floe_xcalloc(f->n_steps + 1, sizeof(bool));
	size_t n = 0;
	int error = 0;
	f->order = floe_arena_alloc(a, (f->n_steps + 1) * sizeof(size_t));
	for (size_t h = 0; h < f->n_hops; h++)
		indegree[f->hops[h].to]++;
	for (bool progress = true; progress;) {
		progress = false;
		for (size_t i = 0; i < f->n_steps; i++) {
			if (done[i] || indegree[i] > 0)
				continue;
			done[i] = progress = true;
			f->order[n++] = i;
			for (size_t h = 0; h < f->n_hops; h++)
				if (f->hops[h].from == i)
					indegree[f->hops[h].to]--;
		}
	}
	if (n < f->n_steps)
		error = cycle_error(f, indegree, path);
	free(indegree);
	free(done);
	return error;
}

static const char *base_name(floe_arena *a, const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return floe_arena_strndup(a, b, dot ? (size_t)(dot - b) : strlen(b));
}

int floe_kettle_read(floe_kettle_file **out, floe_arena *arena, const char *path, const char *rel,
		     const char *data, size_t len)
{
	reader r = { .arena = arena, .path = path };
	floe_kettle_node *root = NULL;
	*out = NULL;
	if (len > FLOE_KETTLE_MAX_BYTES)
		return floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": %zu bytes is more than the %zu a Kettle "
				      "file may have", path, len, FLOE_KETTLE_MAX_BYTES);
	xmlInitParser();
	xmlSetGenericErrorFunc(NULL, silent);
	if (parse_xml(&root, &r, data, len) < 0)
		return -1;
	if (!root || (strcmp(root->name, "transformation") != 0 && strcmp(root->name, "job") != 0))
		return floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": the root element is <%s>, not "
				      "<transformation> (.ktr) or <job> (.kjb)", path, root ? root->name : "?");
	floe_kettle_file *f = floe_arena_alloc(arena, sizeof(*f));
	f->path = floe_arena_strdup(arena, path);
	f->rel = floe_arena_strdup(arena, rel ? rel : path);
	f->is_job = strcmp(root->name, "job") == 0;
	const floe_kettle_node *info = f->is_job ? root : floe_kettle_child(root, "info");
	f->name = *floe_kettle_text(info, "name") ? floe_kettle_text(info, "name") : base_name(arena, path);
	read_params(f, arena, floe_kettle_child(info, "parameters"));
	if (read_steps(f, arena, root, path) < 0 || read_hops(f, arena, root, path) < 0 ||
	    order_steps(f, arena, path) < 0)
		return -1;
	*out = f;
	return 0;
}

int floe_kettle_load(floe_kettle_file **out, floe_arena *arena, const char *path, const char *rel)
{
	struct stat st;
	floe_buf data;
	*out = NULL;
	if (stat(path, &st) < 0)
		return floe_error_set_errno(FLOE_ERR_IO, "could not read \"%s\"", path);
	if ((size_t)st.st_size > FLOE_KETTLE_MAX_BYTES)
		return floe_error_set(FLOE_ERR_CONFIG, "could not read \"%s\": %lld bytes is more than the %zu a Kettle "
				      "file may have", path, (long long)st.st_size, FLOE_KETTLE_MAX_BYTES);
	floe_buf_init(&data, FLOE_KETTLE_MAX_BYTES + 1);
	int rc = floe_fs_read_file(&data, path);
	if (rc == 0)
		rc = floe_kettle_read(out, arena, path, rel, data.ptr ? data.ptr : "", data.len);
	floe_buf_free(&data);
	return rc;
}

static void put_escaped(floe_buf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': floe_buf_puts(out, "&lt;"); break;
		case '>': floe_buf_puts(out, "&gt;"); break;
		case '&': floe_buf_puts(out, "&amp;"); break;
		default: floe_buf_putc(out, *s);
		}
	}
}

void floe_kettle_render(floe_buf *out, const floe_kettle_node *node, int depth)
{
	if (strcmp(node->name, "GUI") == 0 || depth > FLOE_KETTLE_MAX_DEPTH)
		return; /* the canvas position says nothing about the data */
	floe_buf_printf(out, "%*s<%s>", depth * 2, "", node->name);
	bool blank = true;
	for (const char *t = node->text; *t; t++)
		blank = blank && (*t == ' ' || *t == '\n' || *t == '\r' || *t == '\t');
	if (!blank || node->n_children == 0)
		put_escaped(out, blank ? "" : node->text);
	if (node->n_children) {
		floe_buf_putc(out, '\n');
		for (size_t i = 0; i < node->n_children; i++)
			floe_kettle_render(out, node->children[i], depth + 1);
		floe_buf_printf(out, "%*s", depth * 2, "");
	}
	floe_buf_printf(out, "</%s>\n", node->name);
}
