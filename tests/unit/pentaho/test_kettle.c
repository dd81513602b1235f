/*
 * test_kettle.c — the Kettle reader: steps, hops (disabled ignored), job hop kinds,
 * passwords dropped, and hostile XML refused with a clear error.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "pentaho/kettle.h"

#include <string.h>

static const char KTR[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<transformation><info><name>t1</name>"
	"<parameters><parameter><name>MIN</name><default_value>5</default_value><description/></parameter>"
	"</parameters></info>"
	"<connection><name>db</name><password>Encrypted 2be98afc86aa7f2e4cb79ce10bec3fd89</password></connection>"
	"<order><hop><from>in</from><to>out</to><enabled>Y</enabled></hop>"
	"<hop><from>out</from><to>in</to><enabled>N</enabled></hop></order>"
	"<step><name>out</name><type>TableOutput</type><table>t</table></step>"
	"<step><name>in</name><type>TableInput</type><sql>select a &amp; b &lt; ${MIN}</sql></step>"
	"</transformation>";

static int read_text(floe_kettle_file **f, floe_arena *a, const char *xml)
{
	return floe_kettle_read(f, a, "x.ktr", "x.ktr", xml, strlen(xml));
}

FLOE_TEST(kettle_reads_steps_hops_and_orders_them)
{
	floe_arena *a = floe_arena_new();
	floe_kettle_file *f = NULL;
	FLOE_CHECK(read_text(&f, a, KTR) == 0);
	FLOE_CHECK(f && !f->is_job && f->n_steps == 2 && f->n_hops == 1 && f->n_disabled_hops == 1);
	FLOE_CHECK_STR(f->name, "t1");
	FLOE_CHECK(f->n_params == 1 && strcmp(f->params[0].default_value, "5") == 0);
	FLOE_CHECK_STR(floe_kettle_text(f->steps[1].node, "sql"), "select a & b < ${MIN}");
	FLOE_CHECK(f->order[0] == 1 && f->order[1] == 0); /* in before out */
	floe_arena_free(a);
}

FLOE_TEST(kettle_never_keeps_passwords)
{
	floe_arena *a = floe_arena_new();
	floe_kettle_file *f = NULL;
	const char *xml = "<transformation><info><name>p</name></info><step><name>s</name><type>Dummy</type>"
			  "<password>plain-secret</password><pw>Encrypted 2be98afc86</pw></step></transformation>";
	FLOE_CHECK(read_text(&f, a, xml) == 0);
	floe_buf b = FLOE_BUF_INIT;
	floe_kettle_render(&b, f->steps[0].node, 0);
	FLOE_CHECK(!strstr(b.ptr, "plain-secret") && !strstr(b.ptr, "2be98afc86") && strstr(b.ptr, "<type>Dummy"));
	floe_buf_free(&b);
	floe_arena_free(a);
}

FLOE_TEST(kettle_job_hops_have_kinds)
{
	floe_arena *a = floe_arena_new();
	floe_kettle_file *f = NULL;
	const char *xml = "<job><name>j</name><entries>"
			  "<entry><name>START</name><type>SPECIAL</type><nr>0</nr></entry>"
			  "<entry><name>t</name><type>TRANS</type><nr>0</nr></entry>"
			  "<entry><name>mail</name><type>MAIL</type><nr>0</nr></entry>"
			  "<entry><name>mail</name><type>MAIL</type><nr>1</nr></entry></entries><hops>"
			  "<hop><from>START</from><to>t</to><from_nr>0</from_nr><to_nr>0</to_nr><enabled>Y</enabled>"
			  "<evaluation>Y</evaluation><unconditional>Y</unconditional></hop>"
			  "<hop><from>t</from><to>mail</to><from_nr>0</from_nr><to_nr>1</to_nr><enabled>Y</enabled>"
			  "<evaluation>N</evaluation><unconditional>N</unconditional></hop></hops></job>";
	FLOE_CHECK(read_text(&f, a, xml) == 0);
	FLOE_CHECK(f && f->is_job && f->n_steps == 4 && f->n_hops == 2);
	FLOE_CHECK(f->hops[0].kind == FLOE_KETTLE_HOP_ALWAYS && f->hops[1].kind == FLOE_KETTLE_HOP_FAILURE);
	FLOE_CHECK(f->hops[1].to == 3);
	FLOE_CHECK_STR(f->steps[3].name, "mail (1)");
	floe_arena_free(a);
}

static void expect_error(const char *xml, const char *words)
{
	floe_arena *a = floe_arena_new();
	floe_kettle_file *f = NULL;
	FLOE_CHECK(read_text(&f, a, xml) < 0 && f == NULL);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && e->cls == FLOE_ERR_CONFIG && strstr(e->message, words) && strstr(e->message, "x.ktr"));
	floe_error_clear();
	floe_arena_free(a);
}

FLOE_TEST(kettle_refuses_hostile_xml)
{
	expect_error("<transformation><step>", "malformed XML");
	expect_error("<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">]>"
		     "<transformation>&b;</transformation>", "declares an XML entity");
	expect_error("<?xml version=\"1.0\"?><!DOCTYPE t [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
		     "<transformation>&x;</transformation>", "declares an XML entity");
	expect_error("<html/>", "root element is <html>");
	expect_error("<transformation><order><hop><from>a</from><to>b</to></hop><hop><from>b</from><to>a</to></hop>"
		     "</order><step><name>a</name><type>Dummy</type></step><step><name>b</name><type>Dummy</type>"
		     "</step></transformation>", "cycle: \"");
	expect_error("<transformation><order><hop><from>a</from><to>zz</to></hop></order>"
		     "<step><name>a</name><type>Dummy</type></step></transformation>", "\"zz\"");
}

FLOE_TEST(kettle_refuses_deep_nesting)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_puts(&b, "<transformation>");
	for (int i = 0; i < 200; i++)
		floe_buf_puts(&b, "<a>");
	for (int i = 0; i < 200; i++)
		floe_buf_puts(&b, "</a>");
	floe_buf_puts(&b, "</transformation>");
	expect_error(b.ptr, "nest deeper");
	floe_buf_free(&b);
}
